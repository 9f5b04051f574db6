"""Progressive retrieval (F12): the seed's five levels, cheapest first.

An agent reads level 1 (session titles) or level 3 (observation titles) — a few tokens per row —
and only then fetches facts (level 4) or full observations (level 5) by id. Every function
returns plain dicts ready for ``--json`` and is scoped to one project unless ``project_id`` is
``None`` (all projects). Queries use the indexes of schema 3 (no JSON scans): the by-concept and
by-file filters go through ``observation_concepts`` / ``observation_files``, facts through FTS5.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from conkeeper.domain.observations import OBSERVATION_TYPES, json_list, slug_concept
from conkeeper.storage.observations import resolve_session

DEFAULT_LIMIT = 50
MAX_LIMIT = 1000
MAX_QUERY_TERMS = 16
_TERM_RE = re.compile(r"[^\W_]+", re.UNICODE)


def _scope(project_id: int | None, column: str = "project_id") -> tuple[str, tuple[int, ...]]:
    if project_id is None:
        return "", ()
    return f" AND {column} = ?", (project_id,)


def _limit(limit: int | None) -> int:
    return max(1, min(MAX_LIMIT, limit or DEFAULT_LIMIT))


def list_sessions(
    conn: sqlite3.Connection, project_id: int | None, limit: int | None = None, offset: int = 0
) -> list[dict]:
    """Level 1: recent sessions with their titles, newest first."""
    where, params = _scope(project_id, "s.project_id")
    rows = conn.execute(
        "SELECT s.id, s.host_session_id, s.title, s.subtitle, s.status, s.started_at, "
        "s.ended_at, p.name AS project, "
        "(SELECT COUNT(*) FROM observations o WHERE o.session_id = s.id) AS observations, "
        "EXISTS (SELECT 1 FROM session_summaries m WHERE m.session_id = s.id) AS summarized "
        "FROM sessions s JOIN projects p ON p.id = s.project_id "
        f"WHERE 1 = 1{where} ORDER BY s.started_at DESC, s.id DESC LIMIT ? OFFSET ?",
        (*params, _limit(limit), max(0, offset)),
    ).fetchall()
    return [
        {
            "id": r["id"],
            "host_session_id": r["host_session_id"],
            "title": r["title"] or "(untitled)",
            "subtitle": r["subtitle"],
            "status": r["status"],
            "started_at": r["started_at"],
            "ended_at": r["ended_at"],
            "project": r["project"],
            "observations": r["observations"],
            "summarized": bool(r["summarized"]),
        }
        for r in rows
    ]


def get_summary(conn: sqlite3.Connection, session_ref: str, project_id: int | None) -> dict:
    """Level 2: a session's summary (``summary`` is ``None`` when none was made yet)."""
    session_id = resolve_session(conn, session_ref, project_id)
    session = conn.execute(
        "SELECT s.id, s.host_session_id, s.title, s.status, s.started_at, s.ended_at, "
        "p.name AS project FROM sessions s JOIN projects p ON p.id = s.project_id "
        "WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    row = conn.execute(
        "SELECT * FROM session_summaries WHERE session_id = ?", (session_id,)
    ).fetchone()
    summary = None
    if row is not None:
        summary = {
            "request": row["request"],
            "investigated": row["investigated"],
            "learned": row["learned"],
            "completed": row["completed"],
            "next_steps": row["next_steps"],
            "files_read": json_list(row["files_read"]),
            "files_edited": json_list(row["files_edited"]),
            "notes": row["notes"],
            "extractor": row["extractor"],
            "created_at": row["created_at"],
        }
    return {"session": dict(session), "summary": summary}


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
    *,
    session: str | None = None,
    type_: str | None = None,
    concept: str | None = None,
    file: str | None = None,
    limit: int | None = None,
) -> list[dict]:
    """Level 3: observation titles (id, time, type, title, session), newest first."""
    clauses, params = ["1 = 1"], []
    if project_id is not None:
        clauses.append("o.project_id = ?")
        params.append(project_id)
    if session:
        clauses.append("o.session_id = ?")
        params.append(resolve_session(conn, session, project_id))
    if type_:
        if type_ not in OBSERVATION_TYPES:
            raise ValueError(f"unknown type '{type_}' (one of {', '.join(OBSERVATION_TYPES)})")
        clauses.append("o.type = ?")
        params.append(type_)
    if concept:
        clauses.append(
            "o.id IN (SELECT observation_id FROM observation_concepts WHERE concept = ?)"
        )
        params.append(slug_concept(concept))
    if file:
        clause, values = _file_clause(file)
        clauses.append(clause)
        params.extend(values)
    order = "o.prompt_number, o.id" if session else "o.created_at DESC, o.id DESC"
    rows = conn.execute(
        "SELECT o.id, o.session_id, o.prompt_number, o.type, o.title, o.subtitle, o.created_at "
        f"FROM observations o WHERE {' AND '.join(clauses)} ORDER BY {order} LIMIT ?",
        (*params, _limit(limit)),
    ).fetchall()
    return [dict(r) for r in rows]


def fts_query(text: str) -> str | None:
    """A safe FTS5 expression: every word quoted, ANDed (prefix with a trailing ``*``)."""
    terms = []
    for raw in text.split()[: MAX_QUERY_TERMS * 2]:
        prefix = raw.endswith("*")
        for word in _TERM_RE.findall(raw):
            terms.append(f'"{word}"' + ("*" if prefix else ""))
    terms = terms[:MAX_QUERY_TERMS]
    return " AND ".join(terms) if terms else None


def _matching_facts(facts: Sequence[str], query: str) -> list[str]:
    words = [w.lower().rstrip("*") for w in _TERM_RE.findall(query)]
    stems = [w[: max(3, len(w) - 2)] for w in words]
    hits = [f for f in facts if any(s in f.lower() for s in stems)]
    return hits or list(facts[:2])


def search_facts(
    conn: sqlite3.Connection,
    query: str,
    project_id: int | None,
    *,
    session: str | None = None,
    limit: int | None = None,
) -> list[dict]:
    """Level 4: observations whose facts match ``query`` (FTS5, stemmed), with those facts."""
    match = fts_query(query)
    if match is None:
        return []
    clauses, params = [], []
    if project_id is not None:
        clauses.append("o.project_id = ?")
        params.append(project_id)
    if session:
        clauses.append("o.session_id = ?")
        params.append(resolve_session(conn, session, project_id))
    extra = "".join(f" AND {c}" for c in clauses)
    rows = conn.execute(
        "SELECT o.id, o.session_id, o.type, o.title, o.facts, o.created_at, "
        "bm25(observations_fts) AS rank FROM observations_fts "
        "JOIN observations o ON o.id = observations_fts.rowid "
        f"WHERE observations_fts MATCH ?{extra} ORDER BY rank LIMIT ?",
        (f"facts : ({match})", *params, _limit(limit)),
    ).fetchall()
    return [
        {
            "id": r["id"],
            "session_id": r["session_id"],
            "type": r["type"],
            "title": r["title"],
            "facts": _matching_facts(json_list(r["facts"]), query),
            "created_at": r["created_at"],
        }
        for r in rows
    ]


def _full(row: sqlite3.Row) -> dict:
    return {
        "id": row["id"],
        "session_id": row["session_id"],
        "host_session_id": row["host_session_id"],
        "project": row["project"],
        "prompt_number": row["prompt_number"],
        "type": row["type"],
        "title": row["title"],
        "subtitle": row["subtitle"],
        "facts": json_list(row["facts"]),
        "narrative": row["narrative"],
        "concepts": json_list(row["concepts"]),
        "files": json_list(row["files"]),
        "extractor": row["extractor"],
        "created_at": row["created_at"],
    }


_FULL_SELECT = (
    "SELECT o.*, s.host_session_id, p.name AS project FROM observations o "
    "JOIN sessions s ON s.id = o.session_id JOIN projects p ON p.id = o.project_id "
)


def get_observations(
    conn: sqlite3.Connection, ids: Sequence[int], project_id: int | None = None
) -> tuple[list[dict], list[int]]:
    """Level 5: full observations by id, in the order asked; also the ids not found."""
    found: list[dict] = []
    missing: list[int] = []
    where, params = _scope(project_id, "o.project_id")
    for obs_id in ids:
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
) -> dict:
    """Observation titles around one observation, in time order, within its project."""
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
    items = [dict(r) for r in reversed(earlier)] + [dict(center)] + [dict(r) for r in later]
    for item in items:
        item["anchor"] = item["id"] == anchor_id
    return {"anchor": anchor_id, "items": items}
