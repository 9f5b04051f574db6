"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round four: cases a checker
would try that still came out wrong through the real entry points (hooks run as subprocesses
with each host's payloads, then the CLI), each failing before its fix.

* ``consolidate --apply`` deleted the entry with more detail of two about the same names:
  "Dates are stored in UTC." was kept and "Dates are stored in UTC, displayed in the user's
  time zone." removed (the pair was a duplicate "about the same names", whose merge kept the
  first line, not the longer one);
* ``reflect approve`` wrote "Print nahi." into ``patterns.md`` from corrections in Hindi written
  in Latin script ("hamesha `logging` use karo, print nahi": always use logging, not print):
  the clause "print nahi" was read as an English order opening on "print", and the rule lost
  what to use; such clauses are not read by the English readings, and approval asks for the
  rule in the user's words;
* a Codex CLI session whose hook payload carried a shell command's output but no exit code
  (no rollout to look it up in) stored a failing ``pytest`` as a success: ``reflect`` never
  said it was still failing and ``insights`` gave it a 0% failure rate; a test run is read from
  its runner's summary line, as a piped one is;
* ``insights`` counted one command's runs under other names in "failure rate per command":
  ``python -m pytest`` as "python", ``uv run pytest`` as "uv run", ``cd api && pytest`` as
  "cd api", ``npm run test`` apart from ``npm test``: the failing runs of pytest showed as
  "pytest 100% (1/1)" beside a passing "python";
* ``stale`` said only "renamed to src/basket.py" of an entry citing `` `Cart.apply_coupon` ``
  in src/cart.py when the rename also dropped the name: a reader moves the path and keeps a
  name the code no longer has; the reason says the name is not in the renamed file either;
* ``stale`` checked the owner of `` `Cart.apply_coupon` `` but not of `` `Cart.apply_coupon()` ``:
  with the parentheses only the method was looked for, so a class renamed to ``Basket`` left
  the entry fresh;
* ``reflect`` found "no rule stated" in "Wir verwenden pnpm in diesem Repo" (German read only
  with two of its common words, and "diesem" was none), so approval asked for words the user
  had already given.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from conftest import cli_env, run_cli
from test_e2e_session import set_up_project
from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write
from test_reflect_facts import FAILURE, NamedSession, _bash, _edit, _reflect


def test_a_merge_keeps_the_entry_with_more_detail(tmp_path: Path) -> None:
    root = tmp_path / "web"
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", "--yes", cwd=root).returncode == 0
    patterns = root / ".claude" / "memory" / "patterns.md"
    pairs = [
        ("- Dates are stored in UTC.",
         "- Dates are stored in UTC, displayed in the user's time zone."),
        ("- Logging goes through structlog.",
         "- Request logging goes through structlog with the request id bound."),
        ("- State lives in Zustand stores.", "- Global state goes in Zustand stores."),
    ]  # fmt: skip
    body = "".join(f"{short}\n{long}\n" for short, long in pairs)
    patterns.write_text(patterns.read_text(encoding="utf-8") + f"\n## Data\n\n{body}")
    shown = json.loads(run_cli("consolidate", "--json", cwd=root).stdout)["proposals"]
    assert {(p["remove_text"], p["keep_text"]) for p in shown} == set(pairs)
    assert run_cli("consolidate", "--apply", cwd=root).returncode == 0
    text = patterns.read_text(encoding="utf-8")
    for short, long in pairs:
        assert f"{long}\n" in text and f"{short}\n" not in text


def test_a_correction_in_hindi_is_no_english_order(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a4a4a4a4-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to src/cart.py")
    texts = (
        "tumne phir se print use kiya. hamesha `logging` use karo, print nahi",
        "phir se print()! hamesha `logging` use karo, print nahi",
    )
    for text in texts:
        _edit(s, "src/cart.py")
        _bash(s, "pytest -q")
        s.prompt(text)
    for _ in range(3):
        _bash(s, "ruff check .")
    report = _reflect(s, "--write")
    (theme,) = [r for r in report["recommendations"] if r["kind"] == "correction-theme"]
    assert "nahi" not in theme["rule"], theme
    number = str(theme["number"])
    refused = run_cli("reflect", "approve", number, cwd=s.project, env=s.env)
    assert refused.returncode != 0 and "--text" in refused.stderr
    rule = "Use `logging`, not print()."
    approved = run_cli("reflect", "approve", number, "--text", rule, cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert f"- {rule}\n" in patterns and "nahi" not in patterns


def _codex(root: Path, event: str, **fields: object) -> None:
    payload = {
        "session_id": "cdx-lp4",
        "transcript_path": None,
        "cwd": str(root),
        "model": "gpt-5-codex",
        "turn_id": "t1",
        "hook_event_name": event,
        **fields,
    }
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "hook", "--host", "codex", event],
        input=json.dumps(payload),
        cwd=root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_a_codex_test_run_without_its_exit_code_is_read_from_its_summary(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", "--yes", cwd=root).returncode == 0
    _codex(root, "SessionStart", source="startup")
    _codex(root, "UserPromptSubmit", prompt="Fix the discount rounding in src/cart.py")
    failed = (
        "FAILED tests/test_cart.py::test_discount - assert 1 == 2\n"
        "========= 1 failed, 3 passed in 0.21s ========="
    )
    runs = [("ruff check .", "All checks passed!")] * 3
    runs += [("uv run pytest -q", failed), ("git status --short", " M src/cart.py")]
    for n, (command, output) in enumerate(runs):
        _codex(
            root,
            "PostToolUse",
            tool_name="Bash",
            tool_use_id=f"call_{n}",
            tool_input={"command": command},
            tool_response=output,
        )

    def still_failing() -> list[str]:
        report = run_cli("reflect", "--json", cwd=root)
        assert report.returncode == 0, report.stderr
        found = json.loads(report.stdout)["recommendations"]
        return [r["what"] for r in found if "still failing" in r["what"]]

    assert still_failing() == [
        "Pick up `tests/test_cart.py::test_discount`, still failing when the work stopped"
    ]
    insights = json.loads(run_cli("insights", "--json", cwd=root).stdout)
    assert [(t["tool"], t["uses"], t["failures"]) for t in insights["tools"]] == [("Bash", 5, 1)]
    _codex(
        root,
        "PostToolUse",
        tool_name="Bash",
        tool_use_id="call_9",
        tool_input={"command": "uv run pytest -q"},
        tool_response="========= 4 passed in 0.19s =========",
    )
    assert still_failing() == []


def test_insights_counts_the_runs_of_one_command_written_many_ways(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a5a5a5a5-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount rounding and run the tests")
    _bash(s, "pytest tests/test_cart.py", error=FAILURE)
    _bash(s, "python -m pytest tests/test_cart.py", error=FAILURE)
    _bash(s, "cd api && uv run pytest -q")
    _bash(s, "PYTHONPATH=src python3 -m pytest -q")
    _bash(s, "npm test", error="Exit code 1\nnpm ERR! Test failed.")
    _bash(s, "cd web && npm run test")
    _bash(s, "npm run build")
    result = run_cli("insights", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    rows = {r["command"]: (r["runs"], r["failures"]) for r in json.loads(result.stdout)["commands"]}
    assert rows == {"pytest": (4, 2), "npm test": (2, 1), "npm run build": (1, 0)}, rows
    text = run_cli("insights", cwd=s.project, env=s.env).stdout
    assert re.search(r"^  pytest\s.*50%\s+\(2/4\)$", text, re.M), text


def test_a_renamed_file_that_lost_the_cited_name_says_so(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    helpers = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(20))
    write(
        root,
        "src/cart.py",
        helpers + "class Cart:\n    def apply_coupon(self, c):\n        return c\n",
    )
    write(root, "web/api.ts", helpers.replace("def ", "// ") + "export function fetchOrders() {}\n")
    commit(root, "code", T0)
    write(
        root,
        ".claude/memory/patterns.md",
        "# Patterns\n\n- Coupons: `Cart.apply_coupon` in src/cart.py.\n"
        "- Orders are loaded by `fetchOrders` in web/api.ts.\n",
    )
    commit(root, "memory", T0 + DAY)
    git(root, "mv", "src/cart.py", "src/basket.py")
    write(
        root, "src/basket.py", helpers + "class Cart:\n    def redeem(self, c):\n        return c\n"
    )
    git(root, "mv", "web/api.ts", "web/orders.ts")
    commit(root, "rename cart to basket, api to orders", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    assert sorted(found) == [3, 4], found
    assert found[3]["detail"] == "renamed to src/basket.py, and `apply_coupon` is not in it"
    assert found[4]["detail"] == "renamed to web/orders.ts"  # the name moved with the file
    assert by_line(stale_json(root))[3]["detail"] == found[3]["detail"]  # cached alike


def test_a_qualified_call_checks_its_owner_as_the_name_without_parentheses(
    tmp_path: Path,
) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "src/cart.py", "class Cart:\n    def apply_coupon(self, c):\n        return c\n")
    commit(root, "code", T0)
    write(
        root,
        ".claude/memory/patterns.md",
        "# Patterns\n\n- Coupons go through `Cart.apply_coupon()` in src/cart.py.\n"
        "- Coupons: `Cart.apply_coupon` in src/cart.py.\n",
    )
    commit(root, "memory", T0 + DAY)
    write(root, "src/cart.py", "class Basket:\n    def apply_coupon(self, c):\n        return c\n")
    commit(root, "rename the class", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    assert sorted(found) == [3, 4], found
    assert {found[n]["citation"] for n in (3, 4)} == {"Cart"}
    assert found[3]["detail"] == found[4]["detail"] == "no longer in src/cart.py"


def test_a_german_habit_is_approved_in_the_users_words(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a6a6a6a6-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Füge den Coupon-Endpunkt in src/cart.py hinzu")
    for text in (
        "du hast schon wieder npm benutzt. Wir verwenden pnpm in diesem Repo",
        "wieder npm?! wir verwenden pnpm in diesem Repo",
    ):
        _edit(s, "src/cart.py")
        _bash(s, "npm install")
        s.prompt(text)
    for _ in range(3):
        _bash(s, "pnpm install")
    report = _reflect(s, "--write")
    (theme,) = [r for r in report["recommendations"] if r["kind"] == "correction-theme"]
    assert theme["rule"] == "Wir verwenden pnpm in diesem Repo."
    approved = run_cli("reflect", "approve", str(theme["number"]), cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert "- Wir verwenden pnpm in diesem Repo.\n" in patterns and "wieder" not in patterns
