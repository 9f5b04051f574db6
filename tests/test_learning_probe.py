"""Issue 20 ("memory worth trusting"), probed from outside: variants of its wrong-learning cases
that still came out wrong, each replayed through the real hooks and read through the CLI (or
built as a real git repository) as a user would, and each failing before its fix.

* ``insights`` ignored a routed rule broken again when the detector queued it as friction
  ("again no ruff before running pytest"), and counted sessions that were only opened (no
  prompt, no tool use) as later sessions without the correction;
* ``reflect approve`` wrote "Use tabs; indent with 4 spaces." for "wrong again!!! tabs. we
  indent with 4 spaces" / "4 spaces, not tabs, I said" (the mistake named after "again" read
  as the fix), and "Print(); use logging, not print." for "again print()! use logging";
* ``reflect`` called a test "still failing when the work stopped" after a passing run of the
  whole suite (`pytest -q` after `pytest tests/test_cart.py`, `go test ./...`, `npm test`), and
  called an edit, a failure, a pass and a run the user interrupted an "edit → fail loop", and
  `reflect --session` on a session whose failing test the next session fixed still said it;
* ``consolidate --apply`` removed the user's newer "Run migrations with `make db-migrate`" as a
  duplicate of an agent's older `make migrate` entry, removed the more detailed of two
  entries while saying it kept the one "with more detail", and removed the user's entry in
  favour of an agent's copy of it;
* ``stale`` left `SCREAMING_CASE` constants unchecked unless a config file was cited, did not
  check `package.module.func`, and reported a folder the entry itself says is gone.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import cli_env, run_cli
from test_e2e_session import set_up_project
from test_reflect_facts import (
    FAILURE,
    NamedSession,
    _approve_convention,
    _bash,
    _complaining_session,
    _edit,
    _reflect,
)


def _routed(s: NamedSession) -> dict[str, Any]:
    result = run_cli("insights", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)["routed"]
    return row


def _later(tmp_path: Path, s: NamedSession, session_id: str) -> NamedSession:
    later = NamedSession(tmp_path, session_id, s.project)
    later.env = s.env
    later.hook("SessionStart", source="startup")
    return later


def test_a_routed_rule_broken_again_counts_whatever_the_detector_called_it(
    tmp_path: Path,
) -> None:
    s = NamedSession(tmp_path, "a0a0a0a0-1111-4000-8000-000000000001")
    set_up_project(s)
    _complaining_session(s)
    _approve_convention(s)
    later = _later(tmp_path, s, "a0a0a0a0-1111-4000-8000-000000000002")
    later.prompt("Add pagination to the coupon list")
    _bash(later, "pytest -q")
    later.prompt("again no ruff before running pytest. how many times")
    queue = (s.project / ".claude" / "memory" / "corrections-queue.md").read_text("utf-8")
    assert "again no ruff before running pytest" in queue
    row = _routed(s)
    assert (row["verdict"], row["after"], row["stopped"]) == ("recurred", 1, False)


def test_a_rule_broken_again_within_the_second_it_was_routed_counts_on_a_fast_machine(
    tmp_path: Path,
) -> None:
    """CI once ran the flow above within one second: the first session's last prompt, the
    routing and the broken rule all fell in the queue line's second, and the line was dated by
    the first session's prompt (before the routing). The times are set here as that machine
    had them; only the prompt the line quotes dates it."""
    s = NamedSession(tmp_path, "a0a0a0a0-1111-4000-8000-000000000011")
    set_up_project(s)
    _complaining_session(s)
    _approve_convention(s)
    later = _later(tmp_path, s, "a0a0a0a0-1111-4000-8000-000000000012")
    later.prompt("again no ruff before running pytest. how many times")
    memory = s.project / ".claude" / "memory"
    queue = (memory / "corrections-queue.md").read_text("utf-8")
    (stamp,) = re.findall(r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})[^\n]*again no ruff", queue)
    second = int(time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S"))) * 1000
    with sqlite3.connect(s.data_home / "conkeeper.db") as conn:
        rows = conn.execute("SELECT id, text FROM prompts ORDER BY created_at").fetchall()
        first_last = next(i for i, text in reversed(rows) if "again no ruff" not in text)
        broken = next(i for i, text in rows if "again no ruff" in text)
        conn.execute("UPDATE prompts SET created_at = ? WHERE id = ?", (second + 100, first_last))
        # the first session's earlier prompts came before its last one, whatever this machine's
        # speed put them in that second
        conn.execute(
            "UPDATE prompts SET created_at = min(created_at, ?) WHERE id NOT IN (?, ?)",
            (second, first_last, broken),
        )
        conn.execute("UPDATE prompts SET created_at = ? WHERE id = ?", (second + 700, broken))
    (retro,) = (memory / "sessions").glob("*-retro.md")
    routed = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second // 1000)) + ".400Z"
    text = re.sub(r"<!-- routed: [^ ]+ -->", f"<!-- routed: {routed} -->", retro.read_text("utf-8"))
    retro.write_text(text, "utf-8")
    row = _routed(s)
    assert (row["verdict"], row["before"], row["after"]) == ("recurred", 2, 1)


def test_sessions_only_opened_are_no_evidence_that_a_correction_stopped(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a0a0a0a0-2222-4000-8000-000000000001")
    set_up_project(s)
    _complaining_session(s)
    _approve_convention(s)
    for n in range(3):  # three windows opened after the routing, nothing asked in them
        _later(tmp_path, s, f"a0a0a0a0-2222-4000-8000-00000000001{n}")
    row = _routed(s)
    assert (row["verdict"], row["later_sessions"], row["stopped"]) == ("too early", 0, False)
    for n in range(3):  # three sessions of real work without the correction
        later = _later(tmp_path, s, f"a0a0a0a0-2222-4000-8000-00000000002{n}")
        later.prompt(f"Add pagination step {n} to the coupon list")
        _bash(later, "ruff check .")
    row = _routed(s)
    assert (row["verdict"], row["later_sessions"], row["stopped"]) == ("stopped recurring", 3, True)


def _git(root: Path, *args: str) -> None:
    env = cli_env(
        GIT_AUTHOR_NAME="Ann",
        GIT_AUTHOR_EMAIL="ann@example.com",
        GIT_COMMITTER_NAME="Ann",
        GIT_COMMITTER_EMAIL="ann@example.com",
    )
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _stale(root: Path) -> dict[int, dict[str, Any]]:
    result = run_cli("stale", "--no-cache", "--json", cwd=root)
    assert result.returncode == 0, result.stderr
    return {f["line"]: f for f in json.loads(result.stdout)["findings"]}


ENTRIES = (
    "- The cart holds at most `MAX_ITEMS` items",  # a constant, no file cited
    "- Prices default to `DEFAULT_CURRENCY`",
    "- VAT goes through `shop.cart.compute_tax`",  # package.module.func
    "- Read `os.environ` through `shop.settings.env`, never `os.getenv`",
    "- Never set `LEGACY_MODE`; it was removed",  # a thing to avoid, gone: the rule kept
    "- Timeouts are read from `REQUEST_TIMEOUT` in the environment",  # never in the code
    "- Use `json.loads`, not `eval`, to parse payloads",
)


def test_stale_checks_constants_and_package_paths_without_false_alarms(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    (root / "src" / "shop").mkdir(parents=True)
    _git(root, "init", "-q")
    code = root / "src" / "shop" / "cart.py"
    code.write_text(
        'MAX_ITEMS = 50\nDEFAULT_CURRENCY: str = "EUR"\n\n\ndef compute_tax(amount):\n'
        "    return amount\n",
        encoding="utf-8",
    )
    (root / "src" / "shop" / "settings.py").write_text(
        "import os\n\n\ndef env(name):\n    return os.environ[name]\n", encoding="utf-8"
    )
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "patterns.md").write_text(
        "# Patterns\n\n## Code\n" + "\n".join(ENTRIES) + "\n", encoding="utf-8"
    )
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "cart")
    first = 4  # the line of ENTRIES[0]
    assert _stale(root) == {}
    text = code.read_text(encoding="utf-8")
    for old, new in (
        ("MAX_ITEMS", "CART_LIMIT"),
        ("DEFAULT_CURRENCY", "BASE_CURRENCY"),
        ("def compute_tax", "def calculate_tax"),
    ):
        text = text.replace(old, new)
    code.write_text(text, encoding="utf-8")
    _git(root, "commit", "-qam", "rename the cart's names")
    found = _stale(root)
    assert sorted(found) == [first, first + 1, first + 2], found
    assert [found[first + i]["citation"] for i in range(3)] == [
        "MAX_ITEMS",
        "DEFAULT_CURRENCY",
        "compute_tax",
    ]
    assert all(f["reason"] == "symbol-gone" for f in found.values())
    assert "src/shop/cart.py" in found[first]["detail"]


def test_a_path_the_entry_says_is_gone_is_no_false_alarm_in_git_or_outside(
    tmp_path: Path,
) -> None:
    for in_git in (True, False):
        root = tmp_path / f"shop-{in_git}"
        (root / "src" / "shop").mkdir(parents=True)
        (root / "src" / "shop" / "cart.py").write_text("X = 1\n", encoding="utf-8")
        memory = root / ".claude" / "memory"
        memory.mkdir(parents=True)
        (memory / "patterns.md").write_text(
            "# Patterns\n\n"
            "- The shop code is in `src/shop/`; the old `src/legacy/` folder is gone\n"
            "- `src/shop/old_cart.py` was removed, use src/shop/cart.py\n"
            "- Taxes live in src/shop/tax.py\n",
            encoding="utf-8",
        )
        if in_git:
            _git(root, "init", "-q")
            _git(root, "add", "-A")
            _git(root, "commit", "-qm", "shop")
        found = _stale(root)
        assert sorted(found) == [5], (in_git, found)  # only the file that should be there
        assert found[5]["reason"] == "missing" and found[5]["citation"] == "src/shop/tax.py"


@pytest.mark.parametrize(
    ("failing", "error", "passing"),
    [
        ("pytest tests/test_cart.py", FAILURE, "python -m pytest -q"),
        ("cd api && PYTHONPATH=src pytest tests/test_cart.py -x", FAILURE, "cd api && pytest"),
        ("go test ./cart/", "Exit code 1\n--- FAIL: TestDiscount (0.00s)", "go test ./..."),
        ("npm test -- cart.test.js", "Exit code 1\n  ✕ discount (5 ms)", "npm run test"),
    ],
)
def test_a_passing_run_of_the_whole_suite_settles_a_failing_test(
    tmp_path: Path, failing: str, error: str, passing: str
) -> None:
    s = NamedSession(tmp_path, "b0b0b0b0-1111-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount in the cart")
    for _ in range(3):
        _bash(s, "ruff check .")
    _edit(s, "src/cart.py")
    _bash(s, failing, error=error)
    _edit(s, "src/cart.py")
    _bash(s, passing)  # the whole suite, that test included, passed last
    report = _reflect(s, "--depth", "thorough")
    assert not [r for r in report["recommendations"] if r["kind"] == "abandoned"]

    t = NamedSession(tmp_path, "b0b0b0b0-1111-4000-8000-000000000002")
    set_up_project(t)
    t.hook("SessionStart", source="startup")
    t.prompt("Fix the discount in the cart")
    for _ in range(3):
        _bash(t, "ruff check .")
    _edit(t, "src/cart.py")
    _bash(t, failing, error=error)
    _bash(t, "cd elsewhere && pytest -q" if "cd api" in failing else "make lint")
    report = _reflect(t, "--depth", "thorough")  # a run of something else settles nothing
    open_work = [r for r in report["recommendations"] if r["kind"] == "abandoned"]
    assert len(open_work) == 1 and "still failing" in open_work[0]["what"]


def test_an_interrupted_run_is_no_failure_of_an_edit_loop(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "b0b0b0b0-2222-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount in src/cart.py")
    for _ in range(3):
        _bash(s, "ruff check .")
    _edit(s, "src/cart.py")
    _bash(s, "pytest tests/test_cart.py", error=FAILURE)
    _edit(s, "src/cart.py")
    _bash(s, "pytest tests/test_cart.py")
    _edit(s, "src/cart.py")
    s.tool("Bash", {"command": "pytest tests/test_cart.py"}, error="Interrupted", interrupt=True)
    report = _reflect(s, "--depth", "thorough")
    assert [r["kind"] for r in report["recommendations"]] == []


def _consolidate(root: Path, *args: str) -> dict[str, Any]:
    result = run_cli("consolidate", *args, "--json", cwd=root)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_consolidate_never_removes_the_users_entry_the_newer_command_or_the_detail(
    tmp_path: Path,
) -> None:
    root = tmp_path / "shop"
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    (root / "Makefile").write_text("migrate:\n\ttrue\ndb-migrate:\n\ttrue\n", encoding="utf-8")
    patterns = memory / "patterns.md"
    older = (
        "# Patterns\n\n"
        "- Run migrations with `make migrate` before starting the API server\n"
        "<!-- @source: agent-mcp 2026-11-20 -->\n"
        "- Integration tests need the `docker compose up db` container running\n"
        "- Money is always `Decimal` (never float)\n"
        "<!-- @source: agent-mcp 2026-11-20 -->\n"
    )
    newer = (
        "- Run migrations with `make db-migrate` before starting the API server\n"
        "- Integration tests need the `docker compose up db redis` containers running\n"
        "- Money is always `Decimal`\n"
    )
    patterns.write_text(older, encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "memory")
    patterns.write_text(older + newer, encoding="utf-8")
    _git(root, "commit", "-qam", "the user's corrections")

    plan = _consolidate(root)
    by_text = {p["entries"][0]["text"][:12]: p for p in plan["proposals"]}
    assert len(by_text) == 3, plan["proposals"]
    migrate = by_text["- Run migrat"]
    assert migrate["kind"] == "contradiction" and migrate["remove"] is None
    assert "`make migrate`" in migrate["reason"] and "`make db-migrate`" in migrate["reason"]
    docker = by_text["- Integratio"]
    assert docker["kind"] == "duplicate" and "redis" in docker["keep_text"]
    money = by_text["- Money is a"]
    assert money["kind"] == "duplicate" and money["keep"] == "patterns.md:10"  # the user's

    _consolidate(root, "--apply")
    after = patterns.read_text(encoding="utf-8")
    assert "`make migrate`" in after and "`make db-migrate`" in after
    assert "`docker compose up db redis`" in after and "`docker compose up db`" not in after
    assert "- Money is always `Decimal`\n" in after and "(never float)" not in after


@pytest.mark.parametrize(
    ("complaints", "wrong", "right"),
    [
        (
            ("wrong again!!! tabs. we indent with 4 spaces", "4 spaces, not tabs, I said"),
            "use tabs",
            "4 spaces",
        ),
        (
            (
                "ugh, you used print again. we use the logging module here, I told you",
                "again print()! use logging, not print",
            ),
            "print()",
            "logging",
        ),
    ],
)
def test_an_approved_rule_never_orders_the_mistake_it_complains_about(
    tmp_path: Path, complaints: tuple[str, str], wrong: str, right: str
) -> None:
    s = NamedSession(tmp_path, "c0c0c0c0-1111-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to src/cart.py")
    for text in complaints:
        _edit(s, "src/cart.py")
        _bash(s, "pytest -q")
        s.prompt(text)
    report = _reflect(s, "--write")
    (theme,) = [r for r in report["recommendations"] if r["kind"] == "correction-theme"]
    approved = run_cli("reflect", "approve", str(theme["number"]), cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    rule = next(line for line in patterns.splitlines() if right in line.lower())
    assert rule.startswith("- ") and wrong not in rule.lower(), rule


def test_a_failure_fixed_in_a_later_session_is_not_still_failing(tmp_path: Path) -> None:
    first = "d0d0d0d0-1111-4000-8000-000000000001"
    s = NamedSession(tmp_path, first)
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount in src/cart.py")
    for _ in range(3):
        _bash(s, "ruff check .")
    _edit(s, "src/cart.py")
    _bash(s, "pytest tests/test_cart.py", error=FAILURE)
    s.hook("SessionEnd", reason="other")
    open_work = _reflect(s, "--session", first, "--depth", "thorough")["recommendations"]
    assert [r["kind"] for r in open_work] == ["abandoned"]  # true when it was the last run

    later = _later(tmp_path, s, "d0d0d0d0-1111-4000-8000-000000000002")
    later.prompt("Carry on with the discount")
    _edit(later, "src/cart.py")
    _bash(later, "python -m pytest tests/test_cart.py -q")
    report = _reflect(s, "--session", first, "--depth", "thorough")
    assert not [r for r in report["recommendations"] if r["kind"] == "abandoned"]
