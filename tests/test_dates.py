"""One date parser for every ``--since`` / ``--until`` (issue 22.4): the domain function, and the
commands that take such flags reading the same forms through the real CLI."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import run_cli, session_start_context
from conkeeper.domain.dates import DateError, parse_when

NOW = datetime(2026, 3, 10, 15, 30).timestamp()
MIDNIGHT = datetime(2026, 3, 10).timestamp() * 1000


@pytest.mark.parametrize(
    ("text", "end", "expected"),
    [
        ("7d", False, (NOW - 7 * 86400) * 1000),
        ("2w", False, (NOW - 14 * 86400) * 1000),
        ("12 h", False, (NOW - 12 * 3600) * 1000),
        ("today", False, MIDNIGHT),
        ("Yesterday", False, datetime(2026, 3, 9).timestamp() * 1000),
        ("today", True, datetime(2026, 3, 11).timestamp() * 1000),
        ("yesterday", True, MIDNIGHT),
        ("2026-03-10", False, MIDNIGHT),
        ("2026-03-10", True, datetime(2026, 3, 11).timestamp() * 1000),
        ("2026-03-10T08:15", True, datetime(2026, 3, 10, 8, 15).timestamp() * 1000),
    ],
)
def test_every_form(text: str, end: bool, expected: float) -> None:
    assert parse_when(text, end=end, now=NOW) == int(expected)


@pytest.mark.parametrize("text", ["", "7", "d", "-3d", "last week", "2026-13-01", "7x", "1.5d"])
def test_anything_else_is_refused_with_the_forms(text: str) -> None:
    with pytest.raises(DateError, match="7d, 2w"):
        parse_when(text, now=NOW)


@given(st.text(max_size=30))
def test_any_text_parses_or_raises_date_error(text: str) -> None:
    try:
        value = parse_when(text, now=NOW)
    except DateError:
        return
    assert isinstance(value, int)


@given(st.integers(min_value=0, max_value=5000), st.sampled_from("hdw"))
def test_a_span_ago_is_never_in_the_future(n: int, unit: str) -> None:
    assert parse_when(f"{n}{unit}", now=NOW) <= NOW * 1000


def test_commands_accept_the_same_forms(project: Path) -> None:
    """``search``, ``insights``, ``sessions`` and ``reflect`` all read 7d, 2w and yesterday."""
    session_start_context(project)
    for form in ("7d", "2w", "yesterday", "today", (datetime.now() - timedelta(days=3)).date()):
        since = str(form)
        assert run_cli("insights", "--since", since, cwd=project).returncode == 0, since
        assert run_cli("search", "--since", since, "anything", cwd=project).returncode == 0
        listed = run_cli("sessions", "--json", "--since", since, cwd=project)
        assert listed.returncode == 0, listed.stderr
        assert len(json.loads(listed.stdout)["sessions"]) == 1, since
    reflect = run_cli("reflect", "--since", "yesterday", "--json", cwd=project)
    assert "expected a date" not in reflect.stderr and "is not a date" not in reflect.stderr


def test_sessions_until_leaves_out_later_ones(project: Path) -> None:
    """Bounded by the session's own day, not by "today" and "yesterday": a run that starts at
    23:59:59 opens the session on one day and asks on the next (words are read the same way,
    test_every_form)."""
    session_start_context(project)
    (session,) = json.loads(run_cli("sessions", "--json", cwd=project).stdout)["sessions"]
    day = datetime.fromtimestamp(session["started_at"] / 1000).date()
    out = run_cli("sessions", "--json", "--until", str(day - timedelta(days=1)), cwd=project)
    assert out.returncode == 0 and json.loads(out.stdout)["sessions"] == []
    later = run_cli("sessions", "--json", "--until", str(day), cwd=project)
    assert len(json.loads(later.stdout)["sessions"]) == 1


@pytest.mark.parametrize("command", [["insights"], ["search", "x"], ["sessions"], ["reflect"]])
def test_a_bad_date_is_one_clear_line(project: Path, command: list[str]) -> None:
    proc = run_cli(*command, "--since", "last tuesday", cwd=project)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith("conkeeper: --since 'last tuesday' is not a date")
    assert "Traceback" not in proc.stderr
