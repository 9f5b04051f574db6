"""The row journal holds exactly what was committed: replayed into an empty store it gives back
the same history (by natural keys), whatever the order of writes, and a rolled-back
transaction leaves nothing in it. Property-tested over random sequences of the writes the hooks
and the extractor make."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conkeeper.domain.paths import ProjectLocation
from conkeeper.domain.privacy import clean_captured
from conkeeper.storage import journal, sessions
from conkeeper.storage.recovery import replay_record
from conkeeper.storage.store import ensure_project, open_store, transaction

Op = tuple[str, int, int, bool]  # (what, session, number, inside a transaction that fails)

ops = st.lists(
    st.tuples(
        st.sampled_from(["start", "prompt", "tool", "end", "title"]),
        st.integers(0, 2),
        st.integers(1, 4),
        st.booleans(),
    ),
    max_size=25,
)


def _dump(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    return {
        "sessions": conn.execute(
            "SELECT p.identity, s.host_session_id, s.status, s.ended_at, s.end_reason, s.title "
            "FROM sessions s JOIN projects p ON p.id = s.project_id ORDER BY 1, 2"
        ).fetchall(),
        "prompts": conn.execute(
            "SELECT s.host_session_id, prompt_number, text, created_at FROM prompts "
            "JOIN sessions s ON s.id = session_id ORDER BY 1, 2"
        ).fetchall(),
        "tool_events": conn.execute(
            "SELECT s.host_session_id, t.tool_use_id, t.status, t.input_summary FROM tool_events t "
            "JOIN sessions s ON s.id = session_id ORDER BY 1, 2"
        ).fetchall(),
    }


def _apply(conn: sqlite3.Connection, project: int, op: Op) -> None:
    what, session, number, _ = op
    sid = sessions.ensure_session(conn, project, f"s{session}")
    text = clean_captured(f"prompt {number} of s{session}")
    assert text is not None
    if what == "prompt":
        sessions.store_prompt(conn, sid, number, text)
    elif what == "tool":
        sessions.add_tool_event(
            conn,
            sid,
            {
                "prompt_number": number,
                "tool_use_id": f"tu{number}",
                "tool_name": "Bash",
                "action": "execute",
                "paths": "[]",
                "input_summary": f"make {number}",
                "status": "success",
                "created_at": number,
            },
        )
    elif what == "end":
        sessions.end_session(conn, sid, "exit", ended_at=1000 + number)
    elif what == "title":
        sessions.set_title_if_missing(conn, sid, text)


class Rollback(Exception):
    pass


@settings(max_examples=40, deadline=None)
@given(ops)
def test_replaying_the_journal_rebuilds_what_was_committed(sequence: list[Op]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        live = open_store(Path(tmp) / "live" / "conkeeper.db")
        location = ProjectLocation("/p", "/p", "/p/.claude/memory")
        project = ensure_project(live, location)
        for op in sequence:
            if op[3]:  # a transaction that fails: nothing of it may reach the journal
                try:
                    with transaction(live):
                        _apply(live, project, op)
                        raise Rollback
                except Rollback:
                    pass
            else:
                _apply(live, project, op)
        expected = _dump(live)
        live.close()

        rebuilt = open_store(Path(tmp) / "rebuilt.db", journaled=False)
        path = Path(tmp) / "live" / "backups" / journal.JOURNAL_NAME
        for record in journal.read_records(str(path)):
            assert record is not None
            if record["kind"] != journal.HEADER:
                assert replay_record(rebuilt, record)
        for record in journal.read_records(str(path)):  # twice: nothing changes
            if record is not None and record["kind"] != journal.HEADER:
                replay_record(rebuilt, record)
        assert _dump(rebuilt) == expected
        rebuilt.close()
