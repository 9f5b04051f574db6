"""What the local database holds that a team sync has not pushed yet (the outbox, by mark).

Why it exists: hooks must not pay for team memory. Instead of a queue table written by every
hook, the outbox is derived from the rows themselves with a high-water mark per project and
kind: observations and prompts by id (they are only ever inserted), summaries by when this
store wrote them (schema 7, ``summary_stored``: stamped again when a re-extraction replaces one
in place; an imported summary keeps its old ``created_at`` but is stored now). A sync reads
the rows past the mark, pushes them, and only then advances the mark, so a crash in between
re-sends them (the server's upserts make that harmless).

Deletions cannot be derived from rows that are gone: triggers (schema 6) queue the key of every
row deleted from a project in ``team_shared`` in ``team_deletions``; a sync sends them and
drops them once the server acknowledged them (:func:`deletions`, :func:`drop_deletions`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import NamedTuple

from conkeeper.storage.driver import sqlite3
from conkeeper.storage.store import transaction


class LocalProject(NamedTuple):
    """A project the local database knows."""

    id: int
    identity: str
    root: str


class OutboxRow(NamedTuple):
    """One local row to push: its kind, its position for the mark, and its fields."""

    kind: str  # observation | summary | prompt
    position: int  # id (observations, prompts) or when it was stored (summaries)
    key: str  # stable local key: content hash, or host session id (+ prompt number)
    type: str
    title: str
    subtitle: str
    facts: tuple[str, ...]
    narrative: str
    concepts: tuple[str, ...]
    files: tuple[str, ...]
    created_at: int
    session: int = 0  # the local session's id (whose prompts a record may quote)


def known_projects(conn: sqlite3.Connection) -> list[LocalProject]:
    """Every project row, oldest first."""
    rows = conn.execute("SELECT id, identity, root FROM projects ORDER BY id").fetchall()
    return [LocalProject(int(r[0]), str(r[1]), str(r[2])) for r in rows]


def _strings(text: str | None) -> tuple[str, ...]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return ()
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def observations_after(
    conn: sqlite3.Connection, project_id: int, mark: int, limit: int
) -> list[OutboxRow]:
    """Observations of a project with ``id > mark``, oldest first."""
    rows = conn.execute(
        "SELECT id, content_hash, type, title, subtitle, facts, narrative, concepts, files, "
        "created_at, session_id FROM observations WHERE project_id = ? AND id > ? "
        "ORDER BY id LIMIT ?",
        (project_id, mark, limit),
    ).fetchall()
    return [
        OutboxRow(
            kind="observation",
            position=int(r[0]),
            key=str(r[1]),
            type=str(r[2]),
            title=str(r[3]),
            subtitle=str(r[4]),
            facts=_strings(r[5]),
            narrative=str(r[6]),
            concepts=_strings(r[7]),
            files=_strings(r[8]),
            created_at=int(r[9]),
            session=int(r[10] or 0),
        )
        for r in rows
    ]


def summaries_since(
    conn: sqlite3.Connection, project_id: int, mark: int, limit: int
) -> list[OutboxRow]:
    """Summaries of a project stored after ``mark`` (``summary_stored``), oldest first; the
    stamps are unique, so a batch cut between two never loses one."""
    rows = conn.execute(
        "SELECT st.stored_at, se.host_session_id, s.request, s.completed, s.learned, "
        "s.investigated, s.next_steps, s.notes, s.files_edited, s.session_id, s.created_at "
        "FROM summary_stored st JOIN session_summaries s ON s.id = st.summary_id "
        "JOIN sessions se ON se.id = s.session_id "
        "WHERE s.project_id = ? AND st.stored_at > ? ORDER BY st.stored_at, s.id LIMIT ?",
        (project_id, mark, limit),
    ).fetchall()
    out = []
    for r in rows:
        narrative = "\n".join(str(x) for x in (r[5], r[6], r[7]) if x)
        out.append(
            OutboxRow(
                kind="summary",
                position=int(r[0]),
                key=str(r[1]),
                type="summary",
                title=str(r[2]),
                subtitle=str(r[3]),
                facts=(str(r[4]),) if r[4] else (),
                narrative=narrative,
                concepts=(),
                files=_strings(r[8]),
                created_at=int(r[10]),
                session=int(r[9]),
            )
        )
    return out


def prompts_after(
    conn: sqlite3.Connection, project_id: int, mark: int, limit: int
) -> list[OutboxRow]:
    """Prompts of a project with ``id > mark``, oldest first."""
    rows = conn.execute(
        "SELECT p.id, se.host_session_id, p.prompt_number, p.text, p.created_at, p.session_id "
        "FROM prompts p JOIN sessions se ON se.id = p.session_id "
        "WHERE se.project_id = ? AND p.id > ? ORDER BY p.id LIMIT ?",
        (project_id, mark, limit),
    ).fetchall()
    return [
        OutboxRow(
            kind="prompt",
            position=int(r[0]),
            key=f"{r[1]}#{r[2]}",
            type="prompt",
            title="",
            subtitle="",
            facts=(),
            narrative=str(r[3]),
            concepts=(),
            files=(),
            created_at=int(r[4]),
            session=int(r[5]),
        )
        for r in rows
    ]


def session_prompts(conn: sqlite3.Connection, sessions: list[int]) -> dict[int, list[str]]:
    """The stored (cleaned) prompt texts of each of ``sessions``, in order."""
    found: dict[int, list[str]] = {}
    for start in range(0, len(sessions), 500):  # SQLite's bound-parameter limit
        chunk = sessions[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT session_id, text FROM prompts WHERE session_id IN ({marks}) "
            "ORDER BY session_id, prompt_number",
            chunk,
        ).fetchall()
        for session, text in rows:
            found.setdefault(int(session), []).append(str(text or ""))
    return found


def pending_count(conn: sqlite3.Connection, project_id: int, kind: str, mark: int) -> int:
    """How many rows of ``kind`` lie past ``mark`` for a project."""
    if kind == "observation":
        sql = "SELECT count(*) FROM observations WHERE project_id = ? AND id > ?"
    elif kind == "summary":
        sql = (
            "SELECT count(*) FROM summary_stored st JOIN session_summaries s "
            "ON s.id = st.summary_id WHERE s.project_id = ? AND st.stored_at > ?"
        )
    else:
        sql = (
            "SELECT count(*) FROM prompts p JOIN sessions se ON se.id = p.session_id "
            "WHERE se.project_id = ? AND p.id > ?"
        )
    row = conn.execute(sql, (project_id, mark)).fetchone()
    return int(row[0]) if row else 0


# --------------------------------------------------------------------------- deletions


class Deletion(NamedTuple):
    """A queued deletion: the outbox key of a row that left the store, and whether a row with
    that key is back (re-extracted, a resumed session's prompt): then the server keeps it."""

    id: int
    kind: str  # observation | summary | prompt
    key: str  # as OutboxRow.key: content hash, host session id, or host session id#number
    deleted_at: int
    live: bool
    row_id: int = 0  # a prompt's local id, which the next prompt may take


# Whether the row a deletion names exists again in its project (same content hash, session or
# prompt number): the row's own upsert then says what the server should hold.
_LIVE = """
CASE d.kind
WHEN 'observation' THEN EXISTS (
    SELECT 1 FROM observations o JOIN projects p ON p.id = o.project_id
    WHERE p.identity = d.project AND o.content_hash = d.key)
WHEN 'summary' THEN EXISTS (
    SELECT 1 FROM session_summaries s JOIN sessions se ON se.id = s.session_id
    JOIN projects p ON p.id = se.project_id
    WHERE p.identity = d.project AND se.host_session_id = d.key)
ELSE EXISTS (
    SELECT 1 FROM prompts pr JOIN sessions se ON se.id = pr.session_id
    JOIN projects p ON p.id = se.project_id
    WHERE p.identity = d.project AND se.host_session_id = d.key
    AND pr.prompt_number = d.number)
END
"""


def shared_identities(conn: sqlite3.Connection) -> set[str]:
    """The projects whose deleted rows are queued for the team."""
    return {str(r[0]) for r in conn.execute("SELECT identity FROM team_shared")}


def set_shared(conn: sqlite3.Connection, identities: Iterable[str]) -> None:
    """Queue deletions of exactly these projects from now on; the queued deletions of the
    projects left out are dropped (the team server holds nothing of theirs to delete)."""
    keep = set(identities)
    gone = shared_identities(conn) - keep
    with transaction(conn):
        conn.executemany(
            "INSERT OR IGNORE INTO team_shared(identity) VALUES (?)", [(i,) for i in sorted(keep)]
        )
        for identity in sorted(gone):
            conn.execute("DELETE FROM team_shared WHERE identity = ?", (identity,))
            conn.execute("DELETE FROM team_deletions WHERE project = ?", (identity,))


def deletion_projects(conn: sqlite3.Connection) -> list[str]:
    """The projects with queued deletions."""
    rows = conn.execute("SELECT DISTINCT project FROM team_deletions ORDER BY project")
    return [str(r[0]) for r in rows]


def deletions(conn: sqlite3.Connection, identity: str, limit: int) -> list[Deletion]:
    """The oldest ``limit`` queued deletions of a project."""
    rows = conn.execute(
        f"SELECT d.id, d.kind, d.key, d.number, d.deleted_at, {_LIVE}, d.row_id "
        "FROM team_deletions d "
        "WHERE d.project = ? ORDER BY d.id LIMIT ?",
        (identity, limit),
    ).fetchall()
    return [
        Deletion(
            id=int(r[0]),
            kind=str(r[1]),
            key=f"{r[2]}#{r[3]}" if r[1] == "prompt" else str(r[2]),
            deleted_at=int(r[4]),
            live=bool(r[5]),
            row_id=int(r[6]),
        )
        for r in rows
    ]


def drop_deletions(conn: sqlite3.Connection, ids: list[int]) -> None:
    """Forget queued deletions the server acknowledged (or that need no delivery)."""
    with transaction(conn):
        conn.executemany("DELETE FROM team_deletions WHERE id = ?", [(i,) for i in ids])


def deletion_count(conn: sqlite3.Connection, identity: str) -> int:
    """How many deletions of a project wait for the team server."""
    row = conn.execute("SELECT count(*) FROM team_deletions WHERE project = ?", (identity,))
    found = row.fetchone()
    return int(found[0]) if found else 0
