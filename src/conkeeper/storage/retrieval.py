"""The queries behind progressive retrieval (F12), and the typed rows they return.

``services.observations.retrieval`` decides what an agent may ask for (levels, filters, query
syntax); this module runs the SQL against the schema-3 indexes (no JSON scans: the by-concept and
by-file filters go through ``observation_concepts`` / ``observation_files``, facts through
FTS5). Every row is a ``TypedDict``: plain data ready for ``--json``, checked by mypy.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TypedDict

from conkeeper.domain.observations import json_list
from conkeeper.storage.driver import fits_row_id

MAX_LIMIT = 1000
DEFAULT_LIMIT = 50


class SessionRow(TypedDict):
    """Level 1: one session with its title and how much was extracted from it."""

    id: int
    host_session_id: str
    title: str
    subtitle: str | None
    status: str
    started_at: int | None
    ended_at: int | None
    project: str
    observations: int
    summarized: bool


class SessionHead(TypedDict):
    """The session a summary belongs to."""

    id: int
    host_session_id: str
    title: str | None
    status: str
    started_at: int | None
    ended_at: int | None
    project: str


class SummaryRecord(TypedDict):
    """Level 2: a session summary (seed 004's fields)."""

    request: str | None
    investigated: str | None
    learned: str | None
    completed: str | None
    next_steps: str | None
    files_read: list[str]
    files_edited: list[str]
    notes: str | None
    extractor: str
    created_at: int


class SessionSummary(TypedDict):
    """A session and its summary (``None`` until one is made)."""

    session: SessionHead
    summary: SummaryRecord | None


class ObservationTitle(TypedDict, total=False):
    """Level 3 (and the timeline): an observation's title and where it came from.

    ``subtitle`` is present in level 3 rows, ``anchor`` in timeline rows."""

    id: int
    session_id: int
    prompt_number: int
    type: str
    title: str
    subtitle: str | None
    created_at: int
    anchor: bool


class FactHit(TypedDict):
    """Level 4: an observation whose facts matched, with the matching facts."""

    id: int
    session_id: int
    type: str
    title: str
    facts: list[str]
    created_at: int


class FullObservation(TypedDict):
    """Level 5: everything recorded about one observation."""

    id: int
    session_id: int
    host_session_id: str
    project: str
    prompt_number: int
    type: str
    title: str
    subtitle: str | None
    facts: list[str]
    narrative: str | None
    concepts: list[str]
    files: list[str]
    extractor: str
    created_at: int


class Timeline(TypedDict):
    """Observation titles around an anchor, in time order."""

    anchor: int
    items: list[ObservationTitle]


class ObservationFilter(TypedDict, total=False):
    """Level-3 filters, already validated by the service (``session`` is a ``sessions.id``)."""

    session_id: int
    type: str
    concept: str
    file: str


def clamp_limit(limit: int | None) -> int:
    """A row limit between 1 and :data:`MAX_LIMIT` (:data:`DEFAULT_LIMIT` when unset)."""
    return max(1, min(MAX_LIMIT, limit or DEFAULT_LIMIT))


def _scope(project_id: int | None, column: str) -> tuple[str, tuple[int, ...]]:
    if project_id is None:
        return "", ()
    return f" AND {column} = ?", (project_id,)


def list_sessions(
    conn: sqlite3.Connection,
    project_id: int | None,
    limit: int | None = None,
    offset: int = 0,
    *,
    since_ms: int | None = None,
    until_ms: int | None = None,
) -> list[SessionRow]:
    """Recent sessions with their titles, newest first; ``since_ms`` / ``until_ms`` keep those
    started at or after / before those instants."""
    where, params = _scope(project_id, "s.project_id")
    if since_ms is not None:
        where, params = where + " AND s.started_at >= ?", (*params, since_ms)
    if until_ms is not None:
        where, params = where + " AND s.started_at < ?", (*params, until_ms)
    rows = conn.execute(
        "SELECT s.id, s.host_session_id, s.title, s.subtitle, s.status, s.started_at, "
        "s.ended_at, p.name AS project, "
        "(SELECT COUNT(*) FROM observations o WHERE o.session_id = s.id) AS observations, "
        "EXISTS (SELECT 1 FROM session_summaries m WHERE m.session_id = s.id) AS summarized "
        "FROM sessions s JOIN projects p ON p.id = s.project_id "
        f"WHERE 1 = 1{where} ORDER BY s.started_at DESC, s.id DESC LIMIT ? OFFSET ?",
        (*params, clamp_limit(limit), max(0, offset)),
    ).fetchall()
    return [
        SessionRow(
            id=r["id"],
            host_session_id=r["host_session_id"],
            title=r["title"] or "(untitled)",
            subtitle=r["subtitle"],
            status=r["status"],
            started_at=r["started_at"],
            ended_at=r["ended_at"],
            project=r["project"],
            observations=r["observations"],
            summarized=bool(r["summarized"]),
        )
        for r in rows
    ]


def session_summary(conn: sqlite3.Connection, session_id: int) -> SessionSummary:
    """A session (by ``sessions.id``) and its summary, ``None`` when none was made yet."""
    s = conn.execute(
        "SELECT s.id, s.host_session_id, s.title, s.status, s.started_at, s.ended_at, "
        "p.name AS project FROM sessions s JOIN projects p ON p.id = s.project_id "
        "WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    if s is None:
        raise LookupError(f"no session {session_id}")
    session = SessionHead(
        id=s["id"],
        host_session_id=s["host_session_id"],
        title=s["title"],
        status=s["status"],
        started_at=s["started_at"],
        ended_at=s["ended_at"],
        project=s["project"],
    )
    row = conn.execute(
        "SELECT * FROM session_summaries WHERE session_id = ?", (session_id,)
    ).fetchone()
    summary = None
    if row is not None:
        summary = SummaryRecord(
            request=row["request"],
            investigated=row["investigated"],
            learned=row["learned"],
            completed=row["completed"],
            next_steps=row["next_steps"],
            files_read=json_list(row["files_read"]),
            files_edited=json_list(row["files_edited"]),
            notes=row["notes"],
            extractor=row["extractor"],
            created_at=row["created_at"],
        )
    return SessionSummary(session=session, summary=summary)


def _file_clause(path: str) -> tuple[str, tuple[str, ...]]:
    """Observations touching ``path``: the exact file, a folder prefix, or a bare file name."""
    value = path.strip().replace("\\", "/").strip("/")
    while value.startswith("./"):
        value = value[2:]
    if "/" not in value:
        return (
            "o.id IN (SELECT observation_id FROM observation_files WHERE basename = ? "
            "OR path = ? OR (path >= ? AND path < ?))",
            (value, value, value + "/", value + "0"),
        )
    return (
        "o.id IN (SELECT observation_id FROM observation_files WHERE path = ? "
        "OR (path >= ? AND path < ?))",
        (value, value + "/", value + "0"),
    )


def list_observations(
    conn: sqlite3.Connection,
    project_id: int | None,
    where: ObservationFilter,
    limit: int | None = None,
) -> list[ObservationTitle]:
    """Observation titles matching ``where``: a session's in prompt order, else newest first."""
    clauses: list[str] = ["1 = 1"]
    params: list[int | str] = []
    if project_id is not None:
        clauses.append("o.project_id = ?")
        params.append(project_id)
    if "session_id" in where:
        clauses.append("o.session_id = ?")
        params.append(where["session_id"])
    if "type" in where:
        clauses.append("o.type = ?")
        params.append(where["type"])
    if "concept" in where:
        clauses.append(
            "o.id IN (SELECT observation_id FROM observation_concepts WHERE concept = ?)"
        )
        params.append(where["concept"])
    if "file" in where:
        clause, values = _file_clause(where["file"])
        clauses.append(clause)
        params.extend(values)
    order = "o.prompt_number, o.id" if "session_id" in where else "o.created_at DESC, o.id DESC"
    rows = conn.execute(
        "SELECT o.id, o.session_id, o.prompt_number, o.type, o.title, o.subtitle, o.created_at "
        f"FROM observations o WHERE {' AND '.join(clauses)} ORDER BY {order} LIMIT ?",
        (*params, clamp_limit(limit)),
    ).fetchall()
    return [_title(r, subtitle=True) for r in rows]


def _title(row: sqlite3.Row, *, subtitle: bool = False) -> ObservationTitle:
    item = ObservationTitle(
        id=row["id"],
        session_id=row["session_id"],
        prompt_number=row["prompt_number"],
        type=row["type"],
        title=row["title"],
        created_at=row["created_at"],
    )
    if subtitle:
        item["subtitle"] = row["subtitle"]
    return item


def fact_matches(
    conn: sqlite3.Connection,
    match: str,
    project_id: int | None,
    session_id: int | None = None,
    limit: int | None = None,
) -> list[tuple[FactHit, list[str]]]:
    """Observations whose facts match the FTS5 expression ``match``, best first, each with
    all its facts (the service picks the ones to show)."""
    clauses: list[str] = []
    params: list[int] = []
    if project_id is not None:
        clauses.append("o.project_id = ?")
        params.append(project_id)
    if session_id is not None:
        clauses.append("o.session_id = ?")
        params.append(session_id)
    extra = "".join(f" AND {c}" for c in clauses)
    rows = conn.execute(
        "SELECT o.id, o.session_id, o.type, o.title, o.facts, o.created_at, "
        "bm25(observations_fts) AS rank FROM observations_fts "
        "JOIN observations o ON o.id = observations_fts.rowid "
        f"WHERE observations_fts MATCH ?{extra} ORDER BY rank LIMIT ?",
        (f"facts : ({match})", *params, clamp_limit(limit)),
    ).fetchall()
    return [
        (
            FactHit(
                id=r["id"],
                session_id=r["session_id"],
                type=r["type"],
                title=r["title"],
                facts=[],
                created_at=r["created_at"],
            ),
            json_list(r["facts"]),
        )
        for r in rows
    ]


_FULL_SELECT = (
    "SELECT o.*, s.host_session_id, p.name AS project FROM observations o "
    "JOIN sessions s ON s.id = o.session_id JOIN projects p ON p.id = o.project_id "
)


def _full(row: sqlite3.Row) -> FullObservation:
    return FullObservation(
        id=row["id"],
        session_id=row["session_id"],
        host_session_id=row["host_session_id"],
        project=row["project"],
        prompt_number=row["prompt_number"],
        type=row["type"],
        title=row["title"],
        subtitle=row["subtitle"],
        facts=json_list(row["facts"]),
        narrative=row["narrative"],
        concepts=json_list(row["concepts"]),
        files=json_list(row["files"]),
        extractor=row["extractor"],
        created_at=row["created_at"],
    )


def get_observations(
    conn: sqlite3.Connection, ids: Sequence[int], project_id: int | None = None
) -> tuple[list[FullObservation], list[int]]:
    """Full observations by id, in the order asked; also the ids not found."""
    found: list[FullObservation] = []
    missing: list[int] = []
    where, params = _scope(project_id, "o.project_id")
    for obs_id in ids:
        row = None
        if fits_row_id(obs_id):
            row = conn.execute(f"{_FULL_SELECT}WHERE o.id = ?{where}", (obs_id, *params)).fetchone()
        if row is None:
            missing.append(obs_id)
        else:
            found.append(_full(row))
    return found, missing


def timeline(
    conn: sqlite3.Connection,
    anchor_id: int,
    project_id: int | None,
    before: int = 5,
    after: int = 5,
) -> Timeline:
    """Observation titles around one observation, in time order, within its project.

    Raises ``LookupError`` when the anchor does not exist (in ``project_id``, when given)."""
    anchor = None
    if fits_row_id(anchor_id):
        anchor = conn.execute(
            "SELECT id, project_id, created_at FROM observations WHERE id = ?", (anchor_id,)
        ).fetchone()
    if anchor is None or (project_id is not None and anchor["project_id"] != project_id):
        raise LookupError(f"no observation {anchor_id} in this project")
    cols = (
        "SELECT o.id, o.session_id, o.prompt_number, o.type, o.title, o.created_at "
        "FROM observations o WHERE o.project_id = ? "
    )
    key = (anchor["created_at"], anchor["id"])
    earlier = conn.execute(
        cols + "AND (o.created_at < ? OR (o.created_at = ? AND o.id < ?)) "
        "ORDER BY o.created_at DESC, o.id DESC LIMIT ?",
        (anchor["project_id"], key[0], key[0], key[1], max(0, before)),
    ).fetchall()
    later = conn.execute(
        cols + "AND (o.created_at > ? OR (o.created_at = ? AND o.id > ?)) "
        "ORDER BY o.created_at, o.id LIMIT ?",
        (anchor["project_id"], key[0], key[0], key[1], max(0, after)),
    ).fetchall()
    center = conn.execute(cols + "AND o.id = ?", (anchor["project_id"], anchor_id)).fetchone()
    items = [_title(r) for r in [*reversed(earlier), center, *later]]
    for item in items:
        item["anchor"] = item["id"] == anchor_id
    return Timeline(anchor=anchor_id, items=items)
