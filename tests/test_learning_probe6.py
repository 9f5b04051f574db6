"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round six: cases a checker
would try that still came out wrong through the real entry points (hooks run as subprocesses
with Claude Code's payloads, then the CLI), each failing before its fix.

* ``reflect`` found "no rule stated" in the short forms of a rule in Spanish, German, French,
  Portuguese and Italian ("Usa pnpm, no npm", "Otra vez npm. Siempre usa `pnpm` aquí",
  "Nimm pnpm, nicht npm", "Di nuovo npm. Usa sempre `pnpm` qui"): the clause held too few of
  the language's common words, and Italian was not read at all;
* ``stale`` took a member cited with its class for any method of that name: with
  `` `CartService.applyCoupon` `` renamed away in web/src/cart.ts it said "now in kt/Cart.kt"
  (a Kotlin ``Cart`` holds an ``applyCoupon``), and cited without a file the entry stayed
  fresh; a member counts where its class is named too;
* ``stale`` never checked a member cited the Ruby, PHP, Elixir or C++ way (`` `Cart.empty?` ``,
  `` `$cart->fromCookie()` ``, `` `Cart.apply/2` ``, `` `Cart::apply` ``): renamed away, the
  entries stayed fresh;
* ``insights`` said a routed rule "stopped recurring" when the correction came back 45 days
  ago, after it was routed: only the sessions of the report's window (30 days by default)
  were read, so the recurrence was out of sight; routed rules are judged on every session
  since the first routing;
* ``reflect`` said "still failing when the work stopped", and ``extract`` wrote an "Unresolved
  test failure" observation, when the hook process of the passing rerun had a clock 30 s
  behind: a session's events were put in the order of their stamps, so the later pass came
  first; a session's events keep the order its hooks stored them in;
* ``reflect`` said "still failing" when the failing run was `(cd . && pytest -q)` or
  `(cd ./api && pytest -q)` and the passing one `pytest -q` or `cd api && pytest -q` (`.` and
  `./api` were other folders than the root and `api`), and when `go test ./...` failed and
  `go test ./... -count=1` passed (any option with a value was read as picking tests);
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from test_e2e_session import set_up_project
from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write
from test_learning_probe5 import approve_as_stated
from test_reflect_facts import (
    FAILURE,
    NamedSession,
    _approve_convention,
    _bash,
    _complaining_session,
    _edit,
    _reflect,
)

DAY_MS = 86_400_000


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def _transcript(folder: Path, cwd: Path, sid: str, start_ms: int, steps: list[tuple]) -> None:
    """A Claude Code transcript of one session on another machine: ``("prompt", text)`` and
    ``("bash", command, output, failed)`` steps, twenty seconds apart from ``start_ms``."""
    base = {"isSidechain": False, "userType": "external", "cwd": str(cwd), "sessionId": sid,
            "version": "2.0.30", "gitBranch": "main", "parentUuid": None}  # fmt: skip
    lines: list[dict[str, Any]] = []
    for n, step in enumerate(steps):
        at = _iso(start_ms + n * 20_000)
        if step[0] == "prompt":
            message = {"role": "user", "content": step[1]}
            lines.append(
                {**base, "type": "user", "uuid": f"u{n}", "timestamp": at, "message": message}
            )
            continue
        use = f"toolu_{sid[:8]}_{n:03d}"
        call = {"type": "tool_use", "id": use, "name": "Bash", "input": {"command": step[1]}}
        lines.append({**base, "type": "assistant", "uuid": f"a{n}", "timestamp": at,
                      "message": {"model": "claude-sonnet-4-5", "id": f"msg_{sid[:8]}_{n}",
                                  "type": "message", "role": "assistant", "content": [call],
                                  "usage": {"input_tokens": 10, "output_tokens": 5}}})  # fmt: skip
        result = {
            "tool_use_id": use,
            "type": "tool_result",
            "content": step[2],
            "is_error": step[3],
        }
        message = {"role": "user", "content": [result]}
        at = _iso(start_ms + n * 20_000 + 5_000)
        lines.append({**base, "type": "user", "uuid": f"r{n}", "timestamp": at, "message": message})
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (folder / f"{sid}.jsonl").write_text(text, encoding="utf-8")


SHORT_FORMS = [
    (("Usa pnpm, no npm", "Otra vez npm. Usa pnpm, no npm"), "Usa pnpm, no npm.", "Otra vez"),
    (("Usa pnpm, no npm", "Otra vez npm. Siempre usa `pnpm` aquí"),
     "Siempre usa `pnpm` aquí.", "Otra vez"),
    (("Nimm pnpm, nicht npm", "Schon wieder npm. Immer `pnpm` verwenden hier"),
     "Immer `pnpm` verwenden hier.", "Schon wieder"),
    (("Utilise pnpm, pas npm", "Encore npm. Utilise pnpm, pas npm"),
     "Utilise pnpm, pas npm.", "Encore"),
    (("Usa pnpm, não npm", "De novo npm. Sempre use `pnpm` aqui"),
     "Sempre use `pnpm` aqui.", "De novo"),
    (("Usa pnpm, non npm", "Di nuovo npm. Usa sempre `pnpm` qui"),
     "Usa sempre `pnpm` qui.", "Di nuovo"),
]  # fmt: skip


@pytest.mark.parametrize(("texts", "rule", "complaint"), SHORT_FORMS)
def test_a_short_rule_in_another_language_is_approved_as_stated(
    tmp_path: Path, texts: tuple[str, str], rule: str, complaint: str
) -> None:
    session = NamedSession(tmp_path, "a6a6a6a6-0000-4000-8000-000000000001")
    approve_as_stated(
        session, texts, rule, complaint, path="web/src/cart.ts", command="npm install"
    )


def _shop(tmp_path: Path, code: dict[str, str], memory: str) -> Path:
    """A git project with ``code``, then ``memory`` as patterns.md a day later: fresh."""
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in code.items():
        write(root, rel, text)
    commit(root, "code", T0)
    write(root, ".claude/memory/patterns.md", memory)
    commit(root, "memory", T0 + DAY)
    assert stale_json(root, "--no-cache")["findings"] == []
    return root


OWNED = {
    "web/src/cart.ts": "export class CartService {\n  applyCoupon(code: string) {}\n}\n",
    "kt/Cart.kt": "class Cart {\n    fun applyCoupon(code: String) {}\n}\n",
}
OWNED_CITED = """# Patterns

- `CartService.applyCoupon` applies a coupon on the web side.
- Web coupons: `CartService.applyCoupon` in `web/src/cart.ts`.
"""


def test_a_member_cited_with_its_class_is_looked_for_in_that_class(tmp_path: Path) -> None:
    root = _shop(tmp_path, OWNED, OWNED_CITED)
    write(root, "web/src/cart.ts", OWNED["web/src/cart.ts"].replace("applyCoupon", "redeem"))
    commit(root, "rename", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    assert sorted(found) == [3, 4], found
    assert {f["citation"] for f in found.values()} == {"applyCoupon"}
    assert "kt/Cart.kt" not in found[4]["detail"] and "kt/Cart.kt" not in found[3]["detail"]
    assert found[4]["detail"] == "no longer in web/src/cart.ts", found[4]


MEMBERS = {
    "rb/cart.rb": "class Cart\n  def empty?\n    true\n  end\nend\n",
    "php/Cart.php": "<?php\nclass Cart {\n    public static function fromCookie() {}\n}\n",
    "ex/checkout.ex": "defmodule Checkout do\n  def settle(order, code), do: order\nend\n",
    "cpp/basket.cpp": "class Basket {\n  void refill();\n};\nvoid Basket::refill() {}\n",
    "cpp/till.cpp": "class Till {\n  void drain();\n};\nvoid Till::drain() {}\n",
}
MEMBERS_CITED = """# Patterns

- `Cart.empty?` is true for a new cart.
- PHP carts come from `$cart->fromCookie()`.
- `Checkout.settle/2` settles an order in Elixir.
- `Basket::refill` tops a basket up in C++.
- `Till::drain` empties the till.
"""


def test_stale_checks_members_cited_the_ruby_php_elixir_and_cpp_way(tmp_path: Path) -> None:
    root = _shop(tmp_path, MEMBERS, MEMBERS_CITED)
    renamed = {
        "rb/cart.rb": ("empty?", "blank?"),
        "php/Cart.php": ("fromCookie", "fromRequest"),
        "ex/checkout.ex": ("settle", "close"),
        "cpp/basket.cpp": ("refill", "restock"),
    }
    for rel, (old, new) in renamed.items():
        write(root, rel, MEMBERS[rel].replace(old, new))
    write(root, "cpp/till.cpp", "class Till {\n public:\n  Till();\n};\n")  # drain moved
    write(root, "cpp/till_drain.cpp", '#include "till.h"\nvoid Till::drain() {}\n')
    commit(root, "rename", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    cited = {line: f["citation"] for line, f in found.items()}
    assert cited == {3: "empty?", 4: "fromCookie", 5: "settle", 6: "refill"}, found


def _insights(s: NamedSession, *args: str) -> dict[str, Any]:
    done = run_cli("insights", "--json", *args, cwd=s.project, env=s.env)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_a_rule_that_came_back_before_the_window_did_not_stop_recurring(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a6a6a6a6-0000-4000-8000-000000000010")
    set_up_project(s)
    _complaining_session(s)
    _, retro = _approve_convention(s)
    now = int(time.time() * 1000)
    text = retro.read_text(encoding="utf-8")  # the rule was routed two months ago
    retro.write_text(
        re.sub(r"<!-- routed: \S+ -->", f"<!-- routed: {_iso(now - 60 * DAY_MS)} -->", text)
    )
    forgot = run_cli("forget", "session", s.session_id, "--yes", cwd=s.project, env=s.env)
    assert forgot.returncode == 0, forgot.stderr
    (s.project / ".claude" / "memory" / "corrections-queue.md").write_text("# Corrections Queue\n")
    folder = Path(s.env["HOME"]) / ".claude" / "projects" / "-work-shop-api"
    folder.mkdir(parents=True)
    _transcript(folder, s.project, "a6a6a6a6-1111-4000-8000-000000000045", now - 45 * DAY_MS,
                [("prompt", "Add the coupon list"), ("bash", "pytest -q", "1 passed", False),
                 ("prompt", "you forgot it again. run ruff before pytest, every time"),
                 ("bash", "ruff check .", "All checks passed!", False)])  # fmt: skip
    for n in range(3):
        _transcript(folder, s.project, f"a6a6a6a6-2222-4000-8000-00000000000{n}",
                    now - (10 - n) * DAY_MS,
                    [("prompt", f"Add pagination step {n}"), ("bash", "ruff check .", "ok", False),
                     ("bash", "pytest -q", "1 passed", False)])  # fmt: skip
    imported = run_cli("import", "transcripts", str(folder), "--json", cwd=s.project, env=s.env)
    assert imported.returncode == 0 and json.loads(imported.stdout)["imported"] == 4
    report = _insights(s)  # the last 30 days: the recurrence 45 days ago is before them
    assert len(report["sessions"]) == 3 and report["themes"] == []
    (row,) = report["routed"]
    assert (row["verdict"], row["after"], row["stopped"]) == ("recurred", 1, False), row
    assert _insights(s, "--since", "90d")["routed"] == [row]


SKEW = """import os, time
_shift = float(os.environ.get("PROBE_CLOCK_SKEW", "0"))
_real = time.time
time.time = lambda: _real() + _shift
"""


def test_a_hook_whose_clock_is_behind_does_not_reorder_the_session(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a6a6a6a6-0000-4000-8000-000000000020")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount in src/cart.py")
    for _ in range(3):
        _bash(s, "ruff check .")
    _edit(s, "src/cart.py")
    _bash(s, "pytest -q", error=FAILURE)
    _edit(s, "src/cart.py")
    skewed = tmp_path / "skewed"
    skewed.mkdir()
    (skewed / "sitecustomize.py").write_text(SKEW, encoding="utf-8")
    normal = s.env
    s.env = {**normal, "PROBE_CLOCK_SKEW": "-30",
             "PYTHONPATH": os.pathsep.join([str(skewed), normal["PYTHONPATH"]])}  # fmt: skip
    _bash(s, "pytest -q")  # the rerun passes; its hook process's clock is 30 s behind
    s.env = normal
    report = _reflect(s, "--depth", "thorough")
    assert [r for r in report["recommendations"] if r["kind"] == "abandoned"] == [], report
    s.hook("SessionEnd", reason="other")
    assert run_cli("extract", "--json", cwd=s.project, env=s.env).returncode == 0
    listed = run_cli("observations", "--json", cwd=s.project, env=s.env)
    titles = [o["title"] for o in json.loads(listed.stdout)["observations"]]
    assert titles and not any("Unresolved" in t for t in titles), titles


GO_FAILED = "Exit code 1\n--- FAIL: TestCart (0.00s)\nFAIL\tshop/cart\t0.01s"
SETTLED = [
    ("(cd . && pytest -q)", "pytest -q", FAILURE),
    ("(cd ./api && pytest -q)", "cd api && pytest -q", FAILURE),
    ("go test ./...", "go test ./... -count=1", GO_FAILED),
]


@pytest.mark.parametrize(("failed", "passed", "error"), SETTLED)
def test_a_failure_settled_by_the_same_run_written_otherwise_is_not_open(
    tmp_path: Path, failed: str, passed: str, error: str
) -> None:
    s = NamedSession(tmp_path, "a6a6a6a6-0000-4000-8000-000000000030")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount in src/cart.py")
    for _ in range(3):
        _bash(s, "ruff check .")
    _edit(s, "src/cart.py")
    _bash(s, failed, error=error)
    _edit(s, "src/cart.py")
    _bash(s, passed)
    report = _reflect(s, "--depth", "thorough")
    assert [r["what"] for r in report["recommendations"] if r["kind"] == "abandoned"] == []


CATEGORISED = """# Patterns

Notes for the web app. Keep this short.

## Testing
- Run `pnpm test` before every push.
- Never mock the database in integration tests.
- Run `pnpm test` before every push.
  <!-- @category: convention -->

## Dates
- Store dates in UTC.
- Store dates in UTC, except `billing_day`, which is stored in the customer's time zone.
"""


def test_a_merge_keeps_the_copy_the_person_categorised(tmp_path: Path) -> None:
    root = tmp_path / "web"
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=root).returncode == 0
    patterns = root / ".claude" / "memory" / "patterns.md"
    patterns.write_text(CATEGORISED, encoding="utf-8")
    assert run_cli("consolidate", "--apply", cwd=root).returncode == 0
    text = patterns.read_text(encoding="utf-8")
    assert text == CATEGORISED.replace("- Run `pnpm test` before every push.\n- Never", "- Never")
