"""Search sources for observations, session summaries and prompts (schema 3).

Plugged into :mod:`conkeeper.services.search` through its source registry, so one query
returns memory-file entries and these rows together, each hit labelled by ``source``
(``observation``, ``summary``, ``prompt``) and carrying a ``ref`` an agent can fetch
(``obs:42`` → ``conkeeper show 42``; ``summary:7`` → ``conkeeper summary 7``). Scores use
the same BM25 scale and recency boost as memory files so the merged ranking is fair.

Filters: ``--since`` applies to every table; a ``--category`` that is an observation type
matches the type, any other category a concept; summaries and prompts carry no categories or
tags, so a category or tag filter leaves them out (and a tag filter leaves out observations).

Ranking at scale: scoring every match of a frequent word among 100k observations by BM25 times
recency means joining each match to its row (most of the query time). Instead the FTS table
alone gives the best :data:`CANDIDATES` matches by BM25, and only those are joined, filtered and
re-ranked with the recency factor — a two-stage ranking whose top 20 equalled the exact
BM25 × recency order on every query of ``bench/search_bench.py``. When there are fewer matches
than that, the result is exact; when filters (category, project, date) leave too few of the
candidates, every match is ranked in SQL instead.

Privacy: the rows were cleaned when they were captured, and every text shown is passed through
:func:`conkeeper.domain.privacy.clean_captured` again on the way out (private spans cut,
secrets redacted); a record whose title or text has nothing left to show is not a hit.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from conkeeper.domain.observations import OBSERVATION_TYPES, json_list
from conkeeper.domain.paths import locate_project
from conkeeper.domain.privacy import clean_captured
from conkeeper.services.search import (
    SearchContext,
    SearchHit,
    recency_factor,
    recency_factor_sql,
    register_source,
)

SOURCE_NAMES = ("observation", "summary", "prompt")
# title, subtitle, facts, narrative, concepts, files
OBSERVATION_WEIGHTS = "4.0, 2.0, 2.0, 1.0, 1.0, 1.0"
SNIPPET_CHARS = 240
CANDIDATES = 1000  # best BM25 matches re-ranked with the recency factor (at least)


@dataclass(frozen=True)
class _Table:
    """How one FTS table maps to its rows: ``table`` (with alias), ``joins`` to more tables,
    the row id and time columns, the select list and the BM25 column weights."""

    fts: str
    table: str
    joins: str
    id_column: str
    time_column: str
    columns: str
    weights: str = ""


def _ranked(
    ctx: SearchContext, spec: _Table, where: str, params: dict[str, object]
) -> list[tuple[sqlite3.Row, float]]:
    """``(row, score)`` for rows matching the query under ``where`` (SQL starting with
    `` AND``), best first, at most ``ctx.fetch``; ``score`` is higher-is-better."""
    bm25 = f"bm25({spec.fts}{', ' + spec.weights if spec.weights else ''})"
    limit = max(CANDIDATES, ctx.fetch * 10)
    candidates = ctx.conn.execute(
        f"SELECT rowid, {bm25} FROM {spec.fts} WHERE {spec.fts} MATCH :match "
        "ORDER BY 2 LIMIT :limit",
        {"match": ctx.plan.match, "limit": limit},
    ).fetchall()
    if not candidates:
        return []
    raw = {int(r[0]): float(r[1]) for r in candidates}
    ids = ",".join(str(i) for i in raw)
    rows = ctx.conn.execute(
        f"SELECT {spec.columns}, {spec.id_column} AS rid_, {spec.time_column} AS t_ms_ "
        # NOT INDEXED: look the candidates up by rowid, never scan a project's index instead
        f"FROM {spec.table} NOT INDEXED {spec.joins} WHERE {spec.id_column} IN ({ids}){where}",
        params,
    ).fetchall()
    scored = sorted(
        ((raw[r["rid_"]] * recency_factor(ctx.now_ms, r["t_ms_"]), r["rid_"], r) for r in rows),
        key=lambda item: (item[0], item[1]),
    )[: ctx.fetch]
    if len(candidates) < limit or len(scored) == ctx.fetch:
        return [(row, -score) for score, _rid, row in scored]
    full = ctx.conn.execute(  # selective filters: rank every match in SQL
        f"SELECT {spec.columns}, {bm25} * {recency_factor_sql(spec.time_column)} AS score_ "
        f"FROM {spec.fts} JOIN {spec.table} ON {spec.id_column} = {spec.fts}.rowid "
        f"{spec.joins} WHERE {spec.fts} MATCH :match{where} ORDER BY score_ LIMIT :limit",
        {**params, "match": ctx.plan.match, "limit": ctx.fetch, "now": ctx.now_ms},
    ).fetchall()
    return [(row, -float(row["score_"])) for row in full]


OBSERVATIONS = _Table(
    "observations_fts",
    "observations o",
    "JOIN projects p ON p.id = o.project_id",
    "o.id",
    "o.created_at",
    "o.id, o.session_id, o.type, o.title, o.subtitle, o.facts, o.created_at, p.name AS project",
    OBSERVATION_WEIGHTS,
)
SUMMARIES = _Table(
    "session_summaries_fts",
    "session_summaries m",
    "JOIN projects p ON p.id = m.project_id",
    "m.id",
    "m.created_at",
    "m.session_id, m.request, m.learned, m.completed, m.next_steps, m.created_at, "
    "p.name AS project",
)
PROMPTS = _Table(
    "prompts_fts",
    "prompts q",
    "JOIN sessions s ON s.id = q.session_id JOIN projects pr ON pr.id = s.project_id",
    "q.id",
    "q.created_at",
    "q.session_id, q.prompt_number, q.text, q.created_at, pr.name AS project",
)


def _project_filter(ctx: SearchContext, column: str) -> tuple[str, dict[str, object]]:
    if ctx.request.all_projects:
        return "", {}
    identity = locate_project(ctx.request.cwd).identity
    row = ctx.conn.execute("SELECT id FROM projects WHERE identity = ?", (identity,)).fetchone()
    return f" AND {column} = :project", {"project": -1 if row is None else int(row[0])}


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"


def _shown(text: str | None) -> str:
    """``text`` as it may be printed: private parts cut, secrets redacted, one clipped line
    (``""`` when nothing may be shown)."""
    cleaned = clean_captured(text or "")
    return _clip(cleaned) if cleaned else ""


def _since(ctx: SearchContext, column: str, params: dict[str, object]) -> str:
    if ctx.request.since_ms is None:
        return ""
    params["since"] = ctx.request.since_ms
    return f" AND {column} >= :since"


def _session_path(ctx: SearchContext, session_id: int, project: str) -> str:
    """Where a record comes from; the project is named when several may appear."""
    return f"session #{session_id}" + (f" ({project})" if ctx.request.all_projects else "")


def _first_matching(texts: list[str], needles: tuple[str, ...]) -> str:
    """The first text holding a query word, else the first non-empty one, else ``""``."""
    for text in texts:
        low = text.lower()
        if any(n in low for n in needles):
            return text
    return next((t for t in texts if t and not t.isspace()), "")


class ObservationSource:
    """Observations, summaries and prompts as search hits."""

    names: tuple[str, ...] = SOURCE_NAMES

    def search(self, ctx: SearchContext) -> list[SearchHit]:
        """Hits from every wanted table; a store without schema 3 yields none."""
        wanted = [n for n in ctx.request.sources if n in SOURCE_NAMES]
        hits: list[SearchHit] = []
        try:
            if "observation" in wanted:
                hits += self._observations(ctx)
            if "summary" in wanted:
                hits += self._summaries(ctx)
            if "prompt" in wanted:
                hits += self._prompts(ctx)
        except sqlite3.OperationalError:  # an in-memory fallback index has no such tables
            return []
        return hits

    def _observations(self, ctx: SearchContext) -> list[SearchHit]:
        req = ctx.request
        if req.tags:  # observations carry no tags
            return []
        scope, params = _project_filter(ctx, "o.project_id")
        where = scope + _since(ctx, "o.created_at", params)
        for i, name in enumerate(req.categories):
            if name in OBSERVATION_TYPES:
                where += f" AND o.type = :cat{i}"
            else:
                where += (
                    f" AND o.id IN (SELECT observation_id FROM observation_concepts "
                    f"WHERE concept = :cat{i})"
                )
            params[f"cat{i}"] = name
        hits = []
        for r, score in _ranked(ctx, OBSERVATIONS, where, params):
            title = _shown(r["title"])
            if not title:
                continue
            texts = [*json_list(r["facts"]), r["subtitle"]]
            snippet = _shown(_first_matching(texts, ctx.plan.needles))
            hits.append(
                SearchHit(
                    source="observation",
                    path=_session_path(ctx, r["session_id"], r["project"]),
                    line=0,
                    heading=f"#{r['id']} [{r['type']}] {title}",
                    snippet=snippet or _shown(r["subtitle"]) or title,
                    categories=(r["type"],),
                    tags=(),
                    score=score,
                    project=r["project"],
                    ref=f"obs:{r['id']}",
                    time_ms=int(r["created_at"]),
                    label=f"observation #{r['id']} ({r['type']}) — {title}",
                )
            )
        return hits

    def _summaries(self, ctx: SearchContext) -> list[SearchHit]:
        if ctx.request.categories or ctx.request.tags:  # summaries carry no labels
            return []
        scope, params = _project_filter(ctx, "m.project_id")
        scope += _since(ctx, "m.created_at", params)
        hits = []
        for r, score in _ranked(ctx, SUMMARIES, scope, params):
            texts = [r[k] for k in ("completed", "learned", "next_steps", "request")]
            snippet = _shown(_first_matching(texts, ctx.plan.needles))
            if not snippet:
                continue
            request = _shown(r["request"])[:120]
            hits.append(
                SearchHit(
                    source="summary",
                    path=_session_path(ctx, r["session_id"], r["project"]),
                    line=0,
                    heading=request,
                    snippet=snippet,
                    categories=(),
                    tags=(),
                    score=score,
                    project=r["project"],
                    ref=f"summary:{r['session_id']}",
                    time_ms=int(r["created_at"]),
                    label=f"summary of session #{r['session_id']}"
                    + (f" — {request}" if request else ""),
                )
            )
        return hits

    def _prompts(self, ctx: SearchContext) -> list[SearchHit]:
        if ctx.request.categories or ctx.request.tags:  # prompts carry no labels
            return []
        scope, params = _project_filter(ctx, "s.project_id")
        scope += _since(ctx, "q.created_at", params)
        hits = []
        for r, score in _ranked(ctx, PROMPTS, scope, params):
            text = _shown(r["text"])
            if not text:
                continue
            hits.append(
                SearchHit(
                    source="prompt",
                    path=_session_path(ctx, r["session_id"], r["project"]),
                    line=0,
                    heading=f"prompt {r['prompt_number']}",
                    snippet=text,
                    categories=(),
                    tags=(),
                    score=score,
                    project=r["project"],
                    ref=f"prompt:{r['session_id']}:{r['prompt_number']}",
                    time_ms=int(r["created_at"]),
                    label=f"prompt {r['prompt_number']} of session #{r['session_id']}",
                )
            )
        return hits


register_source(ObservationSource())
