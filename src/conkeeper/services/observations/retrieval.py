"""Progressive retrieval (F12): the seed's five levels, cheapest first.

An agent reads level 1 (session titles) or level 3 (observation titles) — a few tokens per row —
and only then fetches facts (level 4) or full observations (level 5) by id. Every function
returns typed plain data (``storage.retrieval``'s ``TypedDict`` rows, ready for ``--json``) and
is scoped to one project unless ``project_id`` is ``None`` (all projects). This module decides
what may be asked (session references, observation types, the fact query's syntax); the SQL
lives in ``storage.retrieval``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from conkeeper.domain.observations import OBSERVATION_TYPES, slug_concept
from conkeeper.storage import retrieval as queries
from conkeeper.storage.observations import resolve_session
from conkeeper.storage.retrieval import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    FactHit,
    ObservationFilter,
    ObservationTitle,
    SessionSummary,
    get_observations,  # level 5: full observations by id, and the ids not found
    list_sessions,  # level 1: recent sessions with their titles, newest first
    timeline,  # observation titles around one observation, within its project
)

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "fts_query",
    "get_observations",
    "get_summary",
    "list_observations",
    "list_sessions",
    "search_facts",
    "timeline",
]

MAX_QUERY_TERMS = 16
_TERM_RE = re.compile(r"[^\W_]+", re.UNICODE)


def get_summary(
    conn: sqlite3.Connection, session_ref: str, project_id: int | None
) -> SessionSummary:
    """Level 2: a session's summary (``summary`` is ``None`` when none was made yet)."""
    return queries.session_summary(conn, resolve_session(conn, session_ref, project_id))


def list_observations(
    conn: sqlite3.Connection,
    project_id: int | None,
    *,
    session: str | None = None,
    type_: str | None = None,
    concept: str | None = None,
    file: str | None = None,
    limit: int | None = None,
) -> list[ObservationTitle]:
    """Level 3: observation titles (id, time, type, title, session), newest first."""
    where = ObservationFilter()
    if session:
        where["session_id"] = resolve_session(conn, session, project_id)
    if type_:
        if type_ not in OBSERVATION_TYPES:
            raise ValueError(f"unknown type '{type_}' (one of {', '.join(OBSERVATION_TYPES)})")
        where["type"] = type_
    if concept:
        where["concept"] = slug_concept(concept)
    if file:
        where["file"] = file
    return queries.list_observations(conn, project_id, where, limit)


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
) -> list[FactHit]:
    """Level 4: observations whose facts match ``query`` (FTS5, stemmed), with those facts."""
    match = fts_query(query)
    if match is None:
        return []
    session_id = resolve_session(conn, session, project_id) if session else None
    hits = []
    for hit, facts in queries.fact_matches(conn, match, project_id, session_id, limit):
        hit["facts"] = _matching_facts(facts, query)
        hits.append(hit)
    return hits
