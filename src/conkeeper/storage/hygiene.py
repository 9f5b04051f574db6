"""The rows behind memory hygiene: deleting sessions and projects for good, and reading and
writing the records of an export.

``services.observations.hygiene`` decides what is forgotten, shapes export records and cleans
every imported text through the privacy module; this module runs the SQL. Deleting relies on
the schema: foreign keys cascade and the FTS triggers drop index entries in the same
transaction. Inserts are idempotent (``ON CONFLICT DO NOTHING`` / ``INSERT OR IGNORE``) so
importing one backup twice changes nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

# Child tables counted (and removed by cascade) when sessions are deleted.
SESSION_CHILDREN = {
    "observations": "observations",
    "prompts": "prompts",
    "tool_events": "tool_events",
    "summaries": "session_summaries",
}


def _count(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> int:
    return int(conn.execute(sql, params).fetchone()[0])


def _children(
    conn: sqlite3.Connection, sessions: str, params: tuple[object, ...]
) -> dict[str, int]:
    return {
        name: _count(conn, f"SELECT COUNT(*) FROM {table} WHERE session_id IN ({sessions})", params)
        for name, table in SESSION_CHILDREN.items()
    }


def delete_observation(conn: sqlite3.Connection, observation_id: int) -> bool:
    """Delete one observation (its index entries follow); whether it existed."""
    return conn.execute("DELETE FROM observations WHERE id = ?", (observation_id,)).rowcount > 0


def delete_session(conn: sqlite3.Connection, session_id: int) -> dict[str, int] | None:
    """Delete a session and everything recorded in it; the counts removed per kind, or
    ``None`` when there was no such session. Call inside a transaction."""
    counts = _children(conn, "?", (session_id,))
    if conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount == 0:
        return None
    conn.execute("DELETE FROM imported_transcripts WHERE session_id = ?", (session_id,))
    return counts


def delete_project(conn: sqlite3.Connection, identity: str) -> dict[str, int] | None:
    """Delete a project with all its sessions and their rows; the counts removed per kind
    (``sessions`` included), or ``None`` when the project was never recorded."""
    row = conn.execute("SELECT id FROM projects WHERE identity = ?", (identity,)).fetchone()
    if row is None:
        return None
    project_id = int(row[0])
    sessions = "SELECT id FROM sessions WHERE project_id = ?"
    counts = _children(conn, sessions, (project_id,))
    counts["sessions"] = _count(
        conn, "SELECT COUNT(*) FROM sessions WHERE project_id = ?", (project_id,)
    )
    conn.execute(
        f"DELETE FROM imported_transcripts WHERE session_id IN ({sessions})", (project_id,)
    )
    conn.execute("DELETE FROM projects WHERE id = ?", (project_id,))
    return counts


# --------------------------------------------------------------------------- reading for export


def _rows(
    conn: sqlite3.Connection, sql: str, params: tuple[object, ...]
) -> Iterator[dict[str, Any]]:
    for row in conn.execute(sql, params):
        yield dict(row)


def projects(conn: sqlite3.Connection, project_id: int | None) -> Iterator[dict[str, Any]]:
    """Project rows: one, or every project."""
    if project_id is None:
        return _rows(conn, "SELECT * FROM projects ORDER BY id", ())
    return _rows(conn, "SELECT * FROM projects WHERE id = ? ORDER BY id", (project_id,))


def sessions_of(conn: sqlite3.Connection, project_id: int) -> Iterator[dict[str, Any]]:
    """A project's session rows, oldest first."""
    return _rows(
        conn, "SELECT * FROM sessions WHERE project_id = ? ORDER BY started_at, id", (project_id,)
    )


def prompts_of(conn: sqlite3.Connection, session_id: int) -> Iterator[dict[str, Any]]:
    """A session's stored prompts, in order."""
    return _rows(
        conn, "SELECT * FROM prompts WHERE session_id = ? ORDER BY prompt_number", (session_id,)
    )


def tool_events_of(conn: sqlite3.Connection, session_id: int) -> Iterator[dict[str, Any]]:
    """A session's tool events, in order."""
    return _rows(conn, "SELECT * FROM tool_events WHERE session_id = ? ORDER BY id", (session_id,))


def observations_of(conn: sqlite3.Connection, session_id: int) -> Iterator[dict[str, Any]]:
    """A session's observations, in order."""
    return _rows(conn, "SELECT * FROM observations WHERE session_id = ? ORDER BY id", (session_id,))


def summaries_of(conn: sqlite3.Connection, session_id: int) -> Iterator[dict[str, Any]]:
    """A session's summary row (none or one)."""
    return _rows(conn, "SELECT * FROM session_summaries WHERE session_id = ?", (session_id,))


# --------------------------------------------------------------------------- writing on import


def add_project(
    conn: sqlite3.Connection, identity: str, root: str, name: str, created_at: int
) -> tuple[int, bool]:
    """``(projects.id, whether it was added)``; a known identity is left as it is."""
    cursor = conn.execute(
        "INSERT INTO projects(identity, root, name, created_at, last_seen_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT(identity) DO NOTHING",
        (identity, root, name, created_at, created_at),
    )
    row = conn.execute("SELECT id FROM projects WHERE identity = ?", (identity,)).fetchone()
    return int(row[0]), cursor.rowcount > 0


SESSION_COLUMNS = (
    "host",
    "title",
    "subtitle",
    "started_at",
    "ended_at",
    "status",
    "end_reason",
    "transcript_path",
)


def add_session(
    conn: sqlite3.Connection, project_id: int, host_session_id: str, values: dict[str, Any]
) -> tuple[int, bool]:
    """``(sessions.id, whether it was added)`` for a session with :data:`SESSION_COLUMNS`
    ``values``; a known session is left as it is."""
    cursor = conn.execute(
        "INSERT INTO sessions(host_session_id, project_id, host, title, subtitle, started_at, "
        "ended_at, status, end_reason, transcript_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(project_id, host_session_id) DO NOTHING",
        (host_session_id, project_id, *(values.get(c) for c in SESSION_COLUMNS)),
    )
    row = conn.execute(
        "SELECT id FROM sessions WHERE project_id = ? AND host_session_id = ?",
        (project_id, host_session_id),
    ).fetchone()
    return int(row[0]), cursor.rowcount > 0


def has_summary(conn: sqlite3.Connection, session_id: int) -> bool:
    """Whether a session already has its summary."""
    found = conn.execute(
        "SELECT 1 FROM session_summaries WHERE session_id = ?", (session_id,)
    ).fetchone()
    return found is not None
