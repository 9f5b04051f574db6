"""Issue 20 from outside, fourth round: timing (overlapping sessions, events in one
millisecond), every host's route into memory, the review flow end to end, and Unicode and
length tricks on what a person is asked to approve. Each test drives the real entry points
(hooks as subprocesses with each host's payload shapes, the CLI, the viewer's HTTP API) and
failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_e2e_session import set_up_project
from test_reflect_facts import FAILURE, NamedSession, _bash, _reflect

# --------------------------------------------------------------------------- timing


def _open_work(report: dict[str, Any]) -> list[str]:
    return [r["what"] for r in report["recommendations"] if r["kind"] == "abandoned"]


def test_still_failing_follows_time_across_overlapping_sessions(tmp_path: Path) -> None:
    """Two windows on one project: the first runs ``pytest -q`` (fails), the second runs it
    (fails), then the first runs it again and it passes. ``reflect --since`` read the
    sessions' events one session after the other, so the second window's failure looked like
    the last run and was reported "still failing when the work stopped" although the last
    run of that command passed; the other way round, a failure that came last was hidden by
    a pass listed after it."""
    a = NamedSession(tmp_path, "aaaa0000-0000-4000-8000-000000000001")
    set_up_project(a)
    b = NamedSession(tmp_path, "bbbb0000-0000-4000-8000-000000000002", a.project)
    b.env = a.env
    a.hook("SessionStart", source="startup")
    b.hook("SessionStart", source="startup")
    a.prompt("Fix the discount rounding in src/cart.py")
    b.prompt("Look at the failing cart test too")
    for _ in range(3):
        _bash(b, "ruff check .")
    _bash(a, "pytest -q", error=FAILURE)
    _bash(b, "pytest -q", error=FAILURE)
    _bash(a, "pytest -q")  # the last run of the command passed
    assert not any("still failing" in w for w in _open_work(_reflect(a, "--since", "1d")))

    c = NamedSession(tmp_path, "cccc0000-0000-4000-8000-000000000003", a.project)
    d = NamedSession(tmp_path, "dddd0000-0000-4000-8000-000000000004", a.project)
    c.env = d.env = a.env
    c.hook("SessionStart", source="startup")
    d.hook("SessionStart", source="startup")
    c.prompt("Make the tax test pass")
    d.prompt("Check the tax module")
    for _ in range(3):
        _bash(c, "ruff check .")
    _bash(d, "pytest tests/test_tax.py")  # passes first
    tax_failure = "Exit code 1\nFAILED tests/test_tax.py::test_vat - AssertionError: assert 0"
    _bash(c, "pytest tests/test_tax.py", error=tax_failure)  # and the last run failed
    open_work = _open_work(_reflect(c, "--since", "1d"))
    assert any("test_tax.py::test_vat`, still failing" in w for w in open_work), open_work
