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

from conkeeper.domain.paths import stored_identity, stored_path
from conkeeper.domain.session_id import path_without_secret
from conkeeper.storage.driver import fits_row_id

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
    if not fits_row_id(observation_id):
        return False
    return conn.execute("DELETE FROM observations WHERE id = ?", (observation_id,)).rowcount > 0


def delete_session(conn: sqlite3.Connection, session_id: int) -> dict[str, int] | None:
    """Delete a session and everything recorded in it; the counts removed per kind, or
    ``None`` when there was no such session. Call inside a transaction."""
    if not fits_row_id(session_id):
        return None
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
    """``(projects.id, whether it was added)``; a known identity is left as it is. An export
    an older version wrote names a folder named after a credential by its path: stored by
    its digest and redacted form, as this version stores it."""
    identity, root, name = stored_identity(identity), stored_path(root), stored_path(name)
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


# --------------------------------------------------------------------------- tombstones

Tombstone = tuple[str, str, str, int]  # (kind, project identity, key, forgotten_at ms)


def stone_project(identity: str) -> str:
    """A project's identity as a tombstone keeps it: a folder path holding a credential as
    ``redacted-<digest>`` (the forgotten project's path must not outlive it in the file);
    every comparison with a tombstone goes through here."""
    return path_without_secret(identity)


def _stone(stone: Tombstone) -> Tombstone:
    kind, project, key, at = stone
    return kind, stone_project(project), key, at


def _project_ids(conn: sqlite3.Connection, project: str) -> list[int]:
    """The ``projects.id`` rows a tombstone's project names (a digest stands for the project
    whose identity it was made of)."""
    if not project.startswith("redacted-"):
        rows = conn.execute("SELECT id FROM projects WHERE identity = ?", (project,))
        return [int(r[0]) for r in rows]
    rows = conn.execute("SELECT id, identity FROM projects")
    return [int(r[0]) for r in rows if stone_project(str(r[1])) == project]


def session_key(conn: sqlite3.Connection, session_id: int) -> tuple[str, str] | None:
    """(project identity, host session id) of ``sessions.id``, or ``None``."""
    if not fits_row_id(session_id):
        return None
    row = conn.execute(
        "SELECT p.identity, s.host_session_id FROM sessions s JOIN projects p "
        "ON p.id = s.project_id WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def session_root(conn: sqlite3.Connection, session_id: int) -> str | None:
    """The last root seen of the project ``sessions.id`` belongs to, or ``None``."""
    if not fits_row_id(session_id):
        return None
    row = conn.execute(
        "SELECT p.root FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    return None if row is None else str(row[0])


def observation_key(conn: sqlite3.Connection, observation_id: int) -> tuple[str, str] | None:
    """(project identity, content hash) of ``observations.id``, or ``None``."""
    if not fits_row_id(observation_id):
        return None
    row = conn.execute(
        "SELECT p.identity, o.content_hash FROM observations o JOIN projects p "
        "ON p.id = o.project_id WHERE o.id = ?",
        (observation_id,),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def add_tombstone(conn: sqlite3.Connection, stone: Tombstone) -> None:
    """Record that something was forgotten (its key, never its text), and journal it so a
    restore from backup keeps it forgotten."""
    from conkeeper.storage import journal

    kind, project, key, at = _stone(stone)
    conn.execute(
        "INSERT INTO tombstones(kind, project, key, forgotten_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(kind, project, key) DO UPDATE SET forgotten_at = excluded.forgotten_at",
        (kind, project, key, at),
    )
    journal.note(
        conn, {"kind": journal.FORGET, "what": kind, "project": project, "key": key, "at": at}
    )


def tombstones(conn: sqlite3.Connection) -> list[Tombstone]:
    """Every tombstone, oldest first."""
    return [
        (str(r[0]), str(r[1]), str(r[2]), int(r[3]))
        for r in conn.execute(
            "SELECT kind, project, key, forgotten_at FROM tombstones ORDER BY forgotten_at, id"
        )
    ]


def session_forgotten(
    conn: sqlite3.Connection, identity: str, host_session_id: str, started_at: int | None
) -> bool:
    """Whether the session was forgotten: by itself, or with its whole project when it started
    before the project was forgotten (sessions recorded afterwards are new work)."""
    found = conn.execute(
        "SELECT 1 FROM tombstones WHERE project = ? AND ((kind = 'session' AND key = ?) "
        "OR (kind = 'project' AND forgotten_at >= ?)) LIMIT 1",
        (stone_project(identity), host_session_id, started_at or 0),
    ).fetchone()
    return found is not None


def apply_tombstones(conn: sqlite3.Connection, stones: list[Tombstone] | None = None) -> int:
    """Delete every row a tombstone covers (all of them, or ``stones``, which are also
    recorded); returns the sessions and observations removed. Used after a restore and on the
    backup when something is forgotten. Call inside a transaction."""
    removed = 0
    for stone in tombstones(conn) if stones is None else stones:
        kind, project, key, at = _stone(stone)
        if stones is not None:
            conn.execute(
                "INSERT OR IGNORE INTO tombstones(kind, project, key, forgotten_at) "
                "VALUES (?, ?, ?, ?)",
                (kind, project, key, at),
            )
        for project_id in _project_ids(conn, project):
            removed += _apply_stone(conn, kind, key, at, project_id)
    return removed


def _apply_stone(conn: sqlite3.Connection, kind: str, key: str, at: int, project_id: int) -> int:
    """Delete what one tombstone covers in one project; the sessions and observations gone."""
    if kind == "session":  # a session resumed after the forget is new capture: kept
        return conn.execute(
            "DELETE FROM sessions WHERE host_session_id = ? AND started_at <= ? AND project_id = ?",
            (key, at, project_id),
        ).rowcount
    if kind == "observation":
        return conn.execute(
            "DELETE FROM observations WHERE content_hash = ? AND project_id = ?",
            (key, project_id),
        ).rowcount
    removed = conn.execute(
        "DELETE FROM sessions WHERE started_at <= ? AND project_id = ?", (at, project_id)
    ).rowcount
    conn.execute(
        "DELETE FROM projects WHERE id = ? AND NOT EXISTS "
        "(SELECT 1 FROM sessions s WHERE s.project_id = projects.id)",
        (project_id,),
    )
    return removed


def secure_delete(conn: sqlite3.Connection) -> None:
    """From now on, SQLite overwrites what ``conn`` deletes (a forget leaves no bytes behind)."""
    conn.execute("PRAGMA secure_delete = ON")


def purge_freed_text(conn: sqlite3.Connection) -> None:
    """Merge the FTS5 indexes so no posting of a deleted row survives in their segments (a
    forgotten text must not stay findable in the file, even by reading its bytes)."""
    tables = [
        str(r[0])
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'"
        )
    ]
    for table in tables:
        conn.execute(f'INSERT INTO "{table}"("{table}") VALUES (\'optimize\')')
