"""Ranked full-text queries over the session record: observations, summaries and prompts.

Why it exists: :mod:`conkeeper.services.observations.search_source` turns these rows into
search hits; the SQL that finds and ranks them lives here, like every other statement. A
:class:`RecordTable` says how one FTS table maps to its rows, and :func:`ranked_records` takes
plain values (match string, project, time bound, label filters) and returns rows with scores.

Ranking at scale: scoring every match of a frequent word among 100k observations by BM25 times
recency means joining each match to its row (most of the query time). Instead the FTS table
alone gives the best :data:`CANDIDATES` matches by BM25, and only those are joined, filtered and
re-ranked with the recency factor — a two-stage ranking whose top 20 equalled the exact
BM25 × recency order on every query of ``bench/search_bench.py``. When there are fewer matches
than that, the result is exact; when filters (category, date) leave too few of the candidates,
every match is ranked in SQL instead.

Scoped by project inside FTS5 (schema 4): observations and summaries carry a ``project_id``
column in their index, so a one-project search matches ``{text columns} : (query) AND
project_id : "N"`` and only that project's matches are ever scored — in a store shared by five
projects, a frequent word no longer costs the other four projects' matches. Every query names
its text columns, so a search for a number never matches a project id.

Imported only when a search wants records; stdlib only (no :mod:`dataclasses`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import NamedTuple

from conkeeper.storage.index_query import recency_factor, recency_factor_sql

# title, subtitle, facts, narrative, concepts, files, project_id (never part of a score)
OBSERVATION_WEIGHTS = "4.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.0"
CANDIDATES = 1000  # best BM25 matches re-ranked with the recency factor (at least)


class RecordTable(NamedTuple):
    """How one FTS table maps to its rows: ``table`` (with alias), ``joins`` to more tables,
    the row id, time and project columns, the select list, the BM25 column weights, the FTS
    text columns a query may match, and whether the FTS table holds ``project_id``."""

    fts: str
    table: str
    joins: str
    id_column: str
    time_column: str
    project_column: str
    columns: str
    weights: str = ""
    text_columns: str = ""
    fts_project: bool = False


OBSERVATIONS = RecordTable(
    "observations_fts",
    "observations o",
    "JOIN projects p ON p.id = o.project_id",
    "o.id",
    "o.created_at",
    "o.project_id",
    "o.id, o.session_id, o.type, o.title, o.subtitle, o.facts, o.created_at, p.name AS project",
    OBSERVATION_WEIGHTS,
    "title subtitle facts narrative concepts files",
    True,
)
SUMMARIES = RecordTable(
    "session_summaries_fts",
    "session_summaries m",
    "JOIN projects p ON p.id = m.project_id",
    "m.id",
    "m.created_at",
    "m.project_id",
    "m.session_id, m.request, m.learned, m.completed, m.next_steps, m.created_at, "
    "p.name AS project",
    # request, investigated, learned, completed, next_steps, notes, files_read, files_edited
    "1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0",
    "request investigated learned completed next_steps notes files_read files_edited",
    True,
)
PROMPTS = RecordTable(
    "prompts_fts",
    "prompts q",
    "JOIN sessions s ON s.id = q.session_id JOIN projects pr ON pr.id = s.project_id",
    "q.id",
    "q.created_at",
    "s.project_id",
    "q.session_id, q.prompt_number, q.text, q.created_at, pr.name AS project",
)


def _filters(
    spec: RecordTable,
    project_id: int | None,
    since_ms: int | None,
    types: Sequence[str],
    concepts: Sequence[str],
    project_ids: Sequence[int] = (),
) -> tuple[str, dict[str, object]]:
    """The ``WHERE`` additions (SQL starting with `` AND``) and their parameters."""
    where = ""
    params: dict[str, object] = {}
    if project_id is not None:  # also for an FTS-scoped table: the join checks it again
        where += f" AND {spec.project_column} = :project"
        params["project"] = project_id
    elif project_ids:
        where += f" AND {spec.project_column} IN ({','.join(str(int(i)) for i in project_ids)})"
    if since_ms is not None:
        where += f" AND {spec.time_column} >= :since"
        params["since"] = since_ms
    n = 0
    for name in types:
        where += f" AND o.type = :cat{n}"
        params[f"cat{n}"] = name
        n += 1
    for name in concepts:
        where += (
            " AND o.id IN (SELECT observation_id FROM observation_concepts "
            f"WHERE concept = :cat{n})"
        )
        params[f"cat{n}"] = name
        n += 1
    return where, params


def listed_records(
    conn: sqlite3.Connection,
    spec: RecordTable,
    *,
    fetch: int,
    project_id: int | None = None,
    since_ms: int | None = None,
    types: Sequence[str] = (),
    concepts: Sequence[str] = (),
    project_ids: Sequence[int] = (),
) -> list[sqlite3.Row]:
    """Rows of ``spec`` within the filters of :func:`ranked_records`, newest first (of one
    millisecond, the one stored last: a fast machine stamps several alike), at most ``fetch``,
    with no words to match: what ``search --category NAME`` lists."""
    where, params = _filters(spec, project_id, since_ms, types, concepts, project_ids)
    rows: list[sqlite3.Row] = conn.execute(
        f"SELECT {spec.columns} FROM {spec.table} {spec.joins} WHERE 1 = 1{where} "
        f"ORDER BY {spec.time_column} DESC, {spec.id_column} DESC LIMIT :limit",
        {**params, "limit": fetch},
    ).fetchall()
    return rows


def scoped_match(
    spec: RecordTable, match: str, project_id: int | None, project_ids: Sequence[int] = ()
) -> str:
    """``match`` limited to ``spec``'s text columns and, when its FTS table holds the project
    id, to one project's rows (``project_id``), or to a few (``project_ids``; neither: every
    project)."""
    if not spec.text_columns:
        return match
    scoped = f"{{{spec.text_columns}}} : ({match})"
    if spec.fts_project and project_id is not None:
        scoped += f' AND project_id : "{int(project_id)}"'
    elif spec.fts_project and project_ids:
        scoped += " AND project_id : (" + " OR ".join(f'"{int(i)}"' for i in project_ids) + ")"
    return scoped


def ranked_records(
    conn: sqlite3.Connection,
    spec: RecordTable,
    *,
    match: str,
    now_ms: int,
    fetch: int,
    project_id: int | None = None,
    since_ms: int | None = None,
    types: Sequence[str] = (),
    concepts: Sequence[str] = (),
    project_ids: Sequence[int] = (),
) -> list[tuple[sqlite3.Row, float]]:
    """``(row, score)`` for rows of ``spec`` matching ``match``, best first, at most ``fetch``;
    ``score`` is higher-is-better (BM25 × recency, negated), so record hits rank on the same
    scale as memory-file sections.

    Filters: ``project_id`` (``None``: every project, or those of ``project_ids``), rows created
    at or after ``since_ms``, and — for :data:`OBSERVATIONS` only — observation ``types`` and
    ``concepts`` (each must hold).
    Raises :class:`sqlite3.OperationalError` when the store has no such table (an in-memory
    fallback index).
    """
    where, params = _filters(spec, project_id, since_ms, types, concepts, project_ids)
    match = scoped_match(spec, match, project_id, project_ids)
    bm25 = f"bm25({spec.fts}{', ' + spec.weights if spec.weights else ''})"
    limit = max(CANDIDATES, fetch * 10)
    candidates = conn.execute(
        f"SELECT rowid, {bm25} FROM {spec.fts} WHERE {spec.fts} MATCH :match "
        "ORDER BY 2 LIMIT :limit",
        {"match": match, "limit": limit},
    ).fetchall()
    if not candidates:
        return []
    raw = {int(r[0]): float(r[1]) for r in candidates}
    ids = ",".join(str(i) for i in raw)
    rows: list[sqlite3.Row] = conn.execute(
        f"SELECT {spec.columns}, {spec.id_column} AS rid_, {spec.time_column} AS t_ms_ "
        # NOT INDEXED: look the candidates up by rowid, never scan a project's index instead
        f"FROM {spec.table} NOT INDEXED {spec.joins} WHERE {spec.id_column} IN ({ids}){where}",
        params,
    ).fetchall()
    scored = sorted(
        ((raw[r["rid_"]] * recency_factor(now_ms, r["t_ms_"]), r["rid_"], r) for r in rows),
        key=lambda item: (item[0], item[1]),
    )[:fetch]
    if len(candidates) < limit or len(scored) == fetch:
        return [(row, -score) for score, _rid, row in scored]
    full: list[sqlite3.Row] = conn.execute(  # selective filters: rank every match in SQL
        f"SELECT {spec.columns}, {bm25} * {recency_factor_sql(spec.time_column)} AS score_ "
        f"FROM {spec.fts} JOIN {spec.table} ON {spec.id_column} = {spec.fts}.rowid "
        f"{spec.joins} WHERE {spec.fts} MATCH :match{where} ORDER BY score_ LIMIT :limit",
        {**params, "match": match, "limit": fetch, "now": now_ms},
    ).fetchall()
    return [(row, -float(row["score_"])) for row in full]
