"""Queries over the memory-file search index (``index_fts``, ``index_entries``, ``index_files``).

Why it exists: :mod:`conkeeper.services.search.engine` ranks sections, highlights their lines and
weighs the query's terms; the SQL behind that lives here, like every other statement, so the service
passes plain values (an FTS5 match string, root ids, kinds, time bounds, label filters, column
weights, a limit) and gets rows back. It is on the read path of every search: it imports nothing
beyond the standard library.

The recency boost (a file dated today scores up to :data:`RECENCY_BOOST` higher than an old one)
is defined here once, as SQL (:func:`recency_factor_sql`) and in Python (:func:`recency_factor`),
because both the index's ranking and the session record's (:mod:`conkeeper.storage.record_query`)
multiply BM25 by it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the driver is the caller's (conkeeper.storage.driver)
    import sqlite3
    from collections.abc import Sequence

RECENCY_BOOST = 0.25  # a file dated today scores up to 25% higher than an old one
RECENCY_HALF_DAYS = 30.0
DAY_MS = 86_400_000


def recency_factor(now_ms: int, time_ms: int) -> float:
    """The recency boost in Python, equal to :func:`recency_factor_sql` (between 1 and
    ``1 + RECENCY_BOOST``); lets a query rank a few candidate rows itself."""
    return 1.0 + RECENCY_BOOST / (1.0 + max(0, now_ms - time_ms) / (DAY_MS * RECENCY_HALF_DAYS))


def recency_factor_sql(time_column: str) -> str:
    """SQL for the mild recency boost (``:now`` bound to Unix ms): every ranking query that
    multiplies BM25 by recency uses this one expression, so scores from different tables merge."""
    return (
        f"(1.0 + {RECENCY_BOOST} / (1.0 + max(0, :now - {time_column}) "
        f"/ {DAY_MS * RECENCY_HALF_DAYS:.1f}))"
    )


def rank_sections(
    conn: sqlite3.Connection,
    *,
    match: str,
    root_ids: Sequence[int],
    kinds: Sequence[str],
    now_ms: int,
    sessions_from: int,
    since_ms: int | None,
    categories: Sequence[str],
    tags: Sequence[str],
    weights: tuple[float, float, float],
    limit: int,
) -> list[sqlite3.Row]:
    """Sections matching ``match`` in the given roots and file kinds, best first (at most
    ``limit``), so a search asks for candidates without writing SQL.

    ``score`` is BM25 (column ``weights``: heading, body, terms) times the recency boost — lower
    is better, as SQLite orders it. Session files older than ``sessions_from`` are left out, and
    every file older than ``since_ms`` when given; each category and tag must label the section
    (case-insensitively). Rows carry ``id``, ``line_start``, ``line_end``, ``heading_path``,
    ``spans``, ``rel_path``, ``kind``, ``file_time``, ``root_id`` and ``score``.
    """
    where = [
        "index_fts MATCH :match",
        f"f.root_id IN ({','.join(str(int(i)) for i in root_ids)})",
        f"f.kind IN ({','.join(repr(k) for k in kinds)})",
        "(f.kind != 'session' OR f.file_time >= :sessions_from)",
    ]
    params: dict[str, object] = {
        "match": match,
        "now": now_ms,
        "limit": limit,
        "sessions_from": sessions_from,
    }
    if since_ms is not None:
        where.append("f.file_time >= :since")
        params["since"] = since_ms
    for i, name in enumerate(categories):
        where.append(f"e.categories LIKE :cat{i}")
        params[f"cat{i}"] = f"% {name.lower()} %"
    for i, name in enumerate(tags):
        where.append(f"e.tags LIKE :tag{i}")
        params[f"tag{i}"] = f"% {name.lower()} %"
    heading, body, terms = weights
    sql = (
        "SELECT e.id, e.line_start, e.line_end, e.heading_path, e.spans, f.rel_path, f.kind, "
        f"f.file_time, f.root_id, bm25(index_fts, {heading}, {body}, "
        f"{terms}) * {recency_factor_sql('f.file_time')} AS score "
        "FROM index_fts JOIN index_entries e ON e.id = index_fts.rowid "
        "JOIN index_files f ON f.id = e.file_id "
        f"WHERE {' AND '.join(where)} ORDER BY score LIMIT :limit"
    )
    rows: list[sqlite3.Row] = conn.execute(sql, params).fetchall()
    return rows


def highlight_bodies(
    conn: sqlite3.Connection, ids: Sequence[int], match: str, open_mark: str, close_mark: str
) -> dict[int, str]:
    """Section id -> body with the terms of ``match`` wrapped in the two marks, for the sections
    ``ids`` that match: how a search finds which lines of a section hold the query."""
    sql = (
        "SELECT rowid, highlight(index_fts, 1, :open, :close) FROM index_fts "
        f"WHERE index_fts MATCH :match AND rowid IN ({','.join(str(int(i)) for i in ids)})"
    )
    params = {"open": open_mark, "close": close_mark, "match": match}
    return {int(r[0]): r[1] for r in conn.execute(sql, params)}


def highlight_sections(
    conn: sqlite3.Connection, ids: Sequence[int], match: str, open_mark: str, close_mark: str
) -> list[tuple[int, str, str]]:
    """``(id, heading, body)`` with the terms of ``match`` wrapped in the two marks, for the
    sections ``ids`` that match: one query term at a time, this tells a search which lines (and
    headings) hold which terms."""
    sql = (
        "SELECT rowid, highlight(index_fts, 0, :open, :close), "
        "highlight(index_fts, 1, :open, :close) FROM index_fts "
        f"WHERE index_fts MATCH :match AND rowid IN ({','.join(str(int(i)) for i in ids)})"
    )
    params = {"open": open_mark, "close": close_mark, "match": match}
    return [(int(r[0]), r[1], r[2]) for r in conn.execute(sql, params)]


def _in_roots(root_ids: Sequence[int] | None) -> str:
    if root_ids is None:
        return ""
    ids = ",".join(str(int(i)) for i in root_ids)
    return f" AND e.file_id IN (SELECT id FROM index_files WHERE root_id IN ({ids}))"


def section_count(conn: sqlite3.Connection, root_ids: Sequence[int] | None = None) -> int:
    """Indexed sections (of the given roots, else all): the corpus size in a term's idf."""
    sql = "SELECT count(*) FROM index_entries e WHERE 1" + _in_roots(root_ids)
    return int(conn.execute(sql).fetchone()[0])


def matching_sections(
    conn: sqlite3.Connection, match: str, root_ids: Sequence[int] | None = None
) -> int:
    """Sections (of the given roots, else all) matching ``match``: a term's document
    frequency in its idf."""
    if root_ids is None:
        sql = "SELECT count(*) FROM index_fts WHERE index_fts MATCH ?"
    else:
        sql = (
            "SELECT count(*) FROM index_fts JOIN index_entries e ON e.id = index_fts.rowid "
            "WHERE index_fts MATCH ?" + _in_roots(root_ids)
        )
    return int(conn.execute(sql, (match,)).fetchone()[0])
