"""What the local database holds that a team sync has not pushed yet (the outbox, by mark).

Why it exists: hooks must not pay for team memory. Instead of a queue table written by every
hook, the outbox is derived from the rows themselves with a high-water mark per project and
kind: observations and prompts by id (they are only ever inserted), summaries by
``created_at`` (a session's summary is replaced in place when it is re-extracted, which stamps
it anew). A sync reads the rows past the mark, pushes them, and only then advances the mark,
so a crash in between re-sends them (the server's upserts make that harmless).
"""

from __future__ import annotations

import json
from typing import NamedTuple

from conkeeper.storage.driver import sqlite3


class LocalProject(NamedTuple):
    """A project the local database knows."""

    id: int
    identity: str
    root: str


class OutboxRow(NamedTuple):
    """One local row to push: its kind, its position for the mark, and its fields."""

    kind: str  # observation | summary | prompt
    position: int  # id (observations, prompts) or created_at (summaries)
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
    """Summaries of a project stamped after ``mark``, oldest first (a caller reads them all:
    there is one per session, and a batch cut between two equal stamps would lose one)."""
    rows = conn.execute(
        "SELECT s.created_at, se.host_session_id, s.request, s.completed, s.learned, "
        "s.investigated, s.next_steps, s.notes, s.files_edited, s.session_id "
        "FROM session_summaries s JOIN sessions se ON se.id = s.session_id "
        "WHERE s.project_id = ? AND s.created_at > ? ORDER BY s.created_at, s.id LIMIT ?",
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
                created_at=int(r[0]),
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
        sql = "SELECT count(*) FROM session_summaries WHERE project_id = ? AND created_at > ?"
    else:
        sql = (
            "SELECT count(*) FROM prompts p JOIN sessions se ON se.id = p.session_id "
            "WHERE se.project_id = ? AND p.id > ?"
        )
    row = conn.execute(sql, (project_id, mark)).fetchone()
    return int(row[0]) if row else 0
