"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round five: cases a checker
would try that still came out wrong through the real entry points (hooks run as subprocesses
with Claude Code's payloads, then the CLI), each failing before its fix.

* ``reflect`` found "no rule stated" in corrections written in Japanese, Chinese and Korean
  ("`logging` を使ってください、print は使わないで", "请用 `logging`，不要用 print",
  "`logging`을 사용하세요, print는 쓰지 마세요"), and in Spanish ones whose order clause held
  one common Spanish word ("Hay que usar `logging`"): approval asked for words the user had
  typed. The rule is kept in the user's language, without the complaint sentence around it;
* ``stale`` never checked a method cited the way Rust, PHP and Ruby call it
  (`` `Cart::from_session()` ``, `` `PriceFormatter::format()` ``, `` `Cart#apply_coupon()` ``)
  nor a definition quoted from Go, Rust, Kotlin, TypeScript or PHP code
  (`` `func (c *Cart) ApplyCoupon` ``, `` `pub fn total` ``, `` `export const MAX_ITEMS` ``):
  the names were renamed away and the entries stayed fresh;
* ``reflect`` said a failing ``pytest`` was "still failing when the work stopped" when it was
  run again afterwards piped through ``| tail -3`` with no summary line to read: that last
  run is neither a pass nor a failure, so the claim was a guess; the open work is still
  proposed, saying the last run printed no result;
* ``insights`` counted that unread run as a passing one in "failure rate per tool" and "per
  command" (pytest 50% (1/2) when its only readable run failed);
* ``insights`` and ``reflect`` counted a build the user interrupted as a failure of Bash and of
  ``npm run build`` (and in the session's failures), while the code said interrupted uses
  are no failures;
* ``consolidate`` read a table's rows as entries: ``--apply`` deleted the row "| Dates are
  stored in UTC. | yes |" from the person's table, and two rows differing in their "Since"
  column were a contradiction ("2024 against 2025");
* ``consolidate`` read the bullets nested under an entry as the entry's own words: "Never log
  request bodies." under "Logging goes through `structlog`." made it contradict "Logging goes
  through `structlog` with the request id bound.", and a merge removed an entry with the
  child bullets nobody else held;
* ``consolidate --apply`` removed "Run `make lint` before every push; CI runs it too." and
  kept "Run `make lint` before every push." (two entries of one file "saying the same thing":
  the first was kept whatever the other added);
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from test_e2e_session import set_up_project
from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write
from test_reflect_facts import NamedSession, _bash, _edit, _reflect

SPOKEN = [
    (
        ("また print を使ってる。`logging` を使ってください、print は使わないで",
         "また print？ `logging` を使ってください、print は使わないで"),
        "`logging` を使ってください、print は使わないで。",
        "また",
    ),
    (
        ("你又用了 print。请用 `logging`，不要用 print",
         "又是 print！请用 `logging`，不要用 print"),
        "请用 `logging`，不要用 print。",
        "又",
    ),
    (
        ("또 print를 썼네요. `logging`을 사용하세요, print는 쓰지 마세요",
         "또 print! `logging`을 사용하세요, print는 쓰지 마세요"),
        "`logging`을 사용하세요, print는 쓰지 마세요.",
        "또",
    ),
    (
        ("Otra vez print. Ya te dije que no. Hay que usar `logging`.",
         "¡Otra vez print! Hay que usar `logging`"),
        "Hay que usar `logging`.",
        "Otra vez",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("texts", "rule", "complaint"), SPOKEN)
def test_a_rule_in_japanese_chinese_korean_or_spanish_is_approved_as_stated(
    tmp_path: Path, texts: tuple[str, str], rule: str, complaint: str
) -> None:
    session = NamedSession(tmp_path, "a5a5a5a5-0000-4000-8000-000000000001")
    approve_as_stated(session, texts, rule, complaint, path="src/cart.py", command="pytest -q")


def approve_as_stated(
    s: NamedSession, texts: tuple[str, str], rule: str, complaint: str, *, path: str, command: str
) -> None:
    """Replay ``texts`` as corrections after edits of ``path`` and runs of ``command``, then
    check reflect states ``rule``, `reflect approve` writes it without ``complaint``, and the
    complaint stays quoted in the retro's evidence."""
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt(f"Add the coupon endpoint to {path}")
    for text in texts:
        _edit(s, path)
        _bash(s, command)
        s.prompt(text)
    report = _reflect(s, "--write")
    (theme,) = [r for r in report["recommendations"] if r["kind"] == "correction-theme"]
    assert theme["rule"] == rule, theme
    approved = run_cli("reflect", "approve", str(theme["number"]), cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert f"- {rule}\n" in patterns and complaint not in patterns
    retro = Path(report["retro"]).read_text(encoding="utf-8")
    assert complaint in retro.split("## Evidence")[1]  # the quote stays in the retro


CODE = {
    "cart/cart.go": "package cart\n\ntype Cart struct{}\n\n"
    "func (c *Cart) ApplyCoupon(code string) error { return nil }\n",
    "rs/src/lib.rs": "pub struct Cart;\nimpl Cart {\n    pub fn from_session() -> Self { Cart }\n"
    "    pub fn total(&self) -> u32 { 0 }\n}\n",
    "kt/Price.kt": "object PriceFormatter {\n    fun format(n: Int) = n.toString()\n}\n",
    "rb/cart.rb": "class Cart\n  def apply_coupon(code)\n  end\nend\n",
    "web/src/cart.ts": "export const MAX_ITEMS = 50;\nexport class CartService {}\n",
    "php/Cart.php": "<?php\nclass Cart {\n    public static function fromCookie() {}\n}\n",
}
CITED = """# Patterns

- Coupons: `func (c *Cart) ApplyCoupon` checks the code first.
- `Cart::from_session()` restores the cart after login.
- `pub fn total` sums the lines in cents.
- `PriceFormatter::format()` formats every price shown.
- `Cart#apply_coupon()` is the Ruby side of coupons.
- `export const MAX_ITEMS` caps a cart.
- PHP carts come from `Cart::fromCookie()`.
"""
RENAMES = {
    "cart/cart.go": ("ApplyCoupon", "Redeem"),
    "rs/src/lib.rs": ("from_session", "restore"),
    "kt/Price.kt": ("PriceFormatter", "Prices"),
    "rb/cart.rb": ("apply_coupon", "redeem"),
    "web/src/cart.ts": ("MAX_ITEMS", "ITEM_LIMIT"),
    "php/Cart.php": ("fromCookie", "fromRequest"),
}


def test_stale_checks_methods_and_definitions_of_other_languages(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in CODE.items():
        write(root, rel, text)
    commit(root, "code", T0)
    write(root, ".claude/memory/patterns.md", CITED)
    commit(root, "memory", T0 + DAY)
    assert stale_json(root, "--no-cache")["findings"] == []
    for rel, (old, new) in RENAMES.items():
        write(root, rel, CODE[rel].replace(old, new))
    write(root, "rs/src/lib.rs", CODE["rs/src/lib.rs"].replace("from_session", "restore")
          .replace("fn total", "fn sum"))  # fmt: skip
    commit(root, "rename", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    cited = {line: f["citation"] for line, f in found.items()}
    assert cited == {
        3: "ApplyCoupon", 4: "from_session", 5: "total", 6: "PriceFormatter",
        7: "apply_coupon", 8: "MAX_ITEMS", 9: "fromCookie",
    }, found  # fmt: skip
    assert {f["reason"] for f in found.values()} == {"symbol-gone"}


FAILING = "Exit code 1\nFAILED tests/test_cart.py::test_discount\n1 failed, 3 passed in 0.2s"


def _piped_session(tmp_path: Path) -> NamedSession:
    """A failing pytest, then the same run piped through tail (no summary line in what tail
    kept), then a build the user interrupted."""
    s = NamedSession(tmp_path, "a5a5a5a5-0000-4000-8000-000000000002")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount in src/cart.py")
    for _ in range(3):
        _bash(s, "ruff check .")
    _edit(s, "src/cart.py")
    _bash(s, "pytest -q", error=FAILING)
    _edit(s, "src/cart.py")
    unread = {"stdout": "tests/test_cart.py ....", "stderr": "", "interrupted": False}
    s.tool("Bash", {"command": "pytest -q 2>&1 | tail -3"}, {**unread, "isImage": False})
    s.tool("Bash", {"command": "npm run build"}, None, error="Interrupted", interrupt=True)
    return s


def test_no_still_failing_when_the_last_run_was_piped_and_unread(tmp_path: Path) -> None:
    s = _piped_session(tmp_path)
    report = _reflect(s, "--depth", "thorough")
    (open_work,) = [r for r in report["recommendations"] if r["kind"] == "abandoned"]
    assert "still failing" not in open_work["what"], open_work
    assert open_work["what"] == (
        "Check `tests/test_cart.py::test_discount`: it failed, and its last run "
        "(`pytest -q 2>&1 | tail -3`) printed no result to read"
    )


def _rates(s: NamedSession) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    done = run_cli("insights", "--json", cwd=s.project, env=s.env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    tools = {r["tool"]: (r["uses"], r["failures"]) for r in report["tools"]}
    return tools, {r["command"]: (r["runs"], r["failures"]) for r in report["commands"]}


def test_insights_leaves_an_unread_run_out_of_the_failure_rates(tmp_path: Path) -> None:
    tools, commands = _rates(_piped_session(tmp_path))
    assert commands["pytest"] == (1, 1)
    assert tools["Bash"][0] == 4  # three ruff runs, the failing pytest (the build interrupted)


def test_an_interrupted_run_is_no_failure_in_insights_or_reflect(tmp_path: Path) -> None:
    s = _piped_session(tmp_path)
    tools, commands = _rates(s)
    # neither a pass nor a failure: left out of the totals (learning follow-up)
    assert "npm run build" not in commands and tools["Bash"] == (4, 1)
    done = json.loads(run_cli("insights", "--json", cwd=s.project, env=s.env).stdout)
    assert done["sessions"][0]["failures"] == 1
    assert _reflect(s, "--depth", "thorough")["counts"]["failures"] == 1


def _memory(tmp_path: Path, body: str) -> Path:
    root = tmp_path / "web"
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=root).returncode == 0
    patterns = root / ".claude" / "memory" / "patterns.md"
    patterns.write_text(body, encoding="utf-8")
    return root


def _proposals(root: Path) -> list[dict[str, object]]:
    done = run_cli("consolidate", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout)["proposals"])


TABLE = """# Patterns

* Dates are stored in UTC
  and displayed in the user's time zone.
* Dates are stored in UTC.

| Rule | Since |
|---|---|
| Dates are stored in UTC. | yes |
| Logging goes through `structlog`. | 2024 |
| Logging goes through `structlog` with the request id bound. | 2025 |
"""


def test_consolidate_leaves_a_tables_rows_alone(tmp_path: Path) -> None:
    root = _memory(tmp_path, TABLE)
    shown = _proposals(root)
    assert [p["kind"] for p in shown] == ["duplicate"], shown
    assert run_cli("consolidate", "--apply", cwd=root).returncode == 0
    text = (root / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert text == TABLE.replace("* Dates are stored in UTC.\n", "")


NESTED = """# Patterns

## Logging
- Logging goes through `structlog`.
  - Bind the request id in the middleware.
  - Never log request bodies.
- Logging goes through `structlog` with the request id bound.

## Lint
- Run `make lint` before every push.
  1. It runs `ruff` and `mypy`.
  2. CI runs the same target.
- Run `make lint` before every push (the pre-push hook does it).
"""


def test_consolidate_reads_nested_bullets_apart_and_never_merges_them_away(
    tmp_path: Path,
) -> None:
    root = _memory(tmp_path, NESTED)
    assert _proposals(root) == []
    assert run_cli("consolidate", "--apply", cwd=root).returncode == 0
    assert (root / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8") == NESTED


def test_a_merge_in_one_file_keeps_the_entry_that_says_more(tmp_path: Path) -> None:
    short, long = (
        "- Run `make lint` before every push.",
        "- Run `make lint` before every push; CI runs it too.",
    )
    root = _memory(tmp_path, f"# Patterns\n\n{short}\n{long}\n")
    assert run_cli("consolidate", "--apply", cwd=root).returncode == 0
    text = (root / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert text == f"# Patterns\n\n{long}\n"


JEST_FAILED = "Exit code 1\n FAIL  src/cart.test.ts\nTests:       1 failed, 3 passed, 4 total"


def test_insights_names_a_package_run_as_the_command_it_runs(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a5a5a5a5-0000-4000-8000-000000000003")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the coupon total in web/src/cart.ts")
    for command in ("npm --prefix web test", "cd web && npm test", "npm -w web test"):
        _bash(s, command, error=JEST_FAILED)
    for command in ("pnpm --filter web test", "pnpm test", "make -C web test"):
        _bash(s, command)
    commands = _rates(s)[1]
    assert commands["npm test"] == (3, 3) and commands["pnpm test"] == (2, 0), commands
    assert commands["make test"] == (1, 0) and "npm" not in commands and "pnpm" not in commands
