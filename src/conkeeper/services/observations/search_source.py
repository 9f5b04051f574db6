"""Search sources for observations, session summaries and prompts (schema 3).

Plugged into :mod:`conkeeper.services.search` through its source registry, so one query
returns memory-file entries and these rows together, each hit labelled by ``source``
(``observation``, ``summary``, ``prompt``) and carrying a ``ref`` an agent can fetch
(``obs:42`` → ``conkeeper show 42``; ``summary:7`` → ``conkeeper summary 7``). Scores use
the same BM25 scale and recency boost as memory files so the merged ranking is fair.
"""

from __future__ import annotations

import sqlite3

from conkeeper.domain.paths import locate_project
from conkeeper.services.observations.model import OBSERVATION_TYPES, json_list
from conkeeper.services.search import (
    SearchContext,
    SearchHit,
    recency_factor_sql,
    register_source,
)

SOURCE_NAMES = ("observation", "summary", "prompt")
# title, subtitle, facts, narrative, concepts, files
OBSERVATION_WEIGHTS = "4.0, 2.0, 2.0, 1.0, 1.0, 1.0"
SNIPPET_CHARS = 240


def _project_filter(ctx: SearchContext, column: str) -> tuple[str, dict[str, object]]:
    if ctx.request.all_projects:
        return "", {}
    identity = locate_project(ctx.request.cwd).identity
    row = ctx.conn.execute("SELECT id FROM projects WHERE identity = ?", (identity,)).fetchone()
    return f" AND {column} = :project", {"project": -1 if row is None else int(row[0])}


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"


def _first_matching(texts: list[str], needles: tuple[str, ...]) -> str:
    for text in texts:
        low = text.lower()
        if any(n in low for n in needles):
            return text
    return texts[0] if texts else ""


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
        scope, params = _project_filter(ctx, "o.project_id")
        where = "observations_fts MATCH :match" + scope
        req = ctx.request
        if req.since_ms is not None:
            where += " AND o.created_at >= :since"
            params["since"] = req.since_ms
        for i, name in enumerate(req.categories):
            if name in OBSERVATION_TYPES:
                where += f" AND o.type = :cat{i}"
            else:
                where += (
                    f" AND o.id IN (SELECT observation_id FROM observation_concepts "
                    f"WHERE concept = :cat{i})"
                )
            params[f"cat{i}"] = name
        rows = ctx.conn.execute(
            "SELECT o.id, o.session_id, o.type, o.title, o.subtitle, o.facts, o.created_at, "
            "p.name AS project, "
            f"bm25(observations_fts, {OBSERVATION_WEIGHTS}) "
            f"* {recency_factor_sql('o.created_at')} AS score "
            "FROM observations_fts JOIN observations o ON o.id = observations_fts.rowid "
            "JOIN projects p ON p.id = o.project_id "
            f"WHERE {where} ORDER BY score LIMIT :limit",
            {"match": ctx.plan.match, "now": ctx.now_ms, "limit": ctx.fetch, **params},
        ).fetchall()
        return [
            SearchHit(
                source="observation",
                path=f"session #{r['session_id']} observations",
                line=0,
                heading=f"#{r['id']} [{r['type']}] {r['title']}",
                snippet=_clip(
                    _first_matching(json_list(r["facts"]), ctx.plan.needles) or r["subtitle"]
                ),
                categories=(r["type"],),
                tags=(),
                score=-float(r["score"]),
                project=r["project"],
                ref=f"obs:{r['id']}",
                time_ms=int(r["created_at"]),
            )
            for r in rows
        ]

    def _summaries(self, ctx: SearchContext) -> list[SearchHit]:
        scope, params = _project_filter(ctx, "m.project_id")
        rows = ctx.conn.execute(
            "SELECT m.session_id, m.request, m.learned, m.completed, m.next_steps, m.created_at, "
            f"p.name AS project, bm25(session_summaries_fts) "
            f"* {recency_factor_sql('m.created_at')} AS score "
            "FROM session_summaries_fts JOIN session_summaries m "
            "ON m.id = session_summaries_fts.rowid JOIN projects p ON p.id = m.project_id "
            f"WHERE session_summaries_fts MATCH :match{scope} ORDER BY score LIMIT :limit",
            {"match": ctx.plan.match, "now": ctx.now_ms, "limit": ctx.fetch, **params},
        ).fetchall()
        return [
            SearchHit(
                source="summary",
                path=f"session #{r['session_id']} summary",
                line=0,
                heading=_clip(r["request"])[:120],
                snippet=_clip(
                    _first_matching(
                        [r["completed"], r["learned"], r["next_steps"], r["request"]],
                        ctx.plan.needles,
                    )
                ),
                categories=(),
                tags=(),
                score=-float(r["score"]),
                project=r["project"],
                ref=f"summary:{r['session_id']}",
                time_ms=int(r["created_at"]),
            )
            for r in rows
        ]

    def _prompts(self, ctx: SearchContext) -> list[SearchHit]:
        scope, params = _project_filter(ctx, "s.project_id")
        rows = ctx.conn.execute(
            "SELECT q.session_id, q.prompt_number, q.text, q.created_at, pr.name AS project, "
            f"bm25(prompts_fts) * {recency_factor_sql('q.created_at')} AS score "
            "FROM prompts_fts JOIN prompts q ON q.id = prompts_fts.rowid "
            "JOIN sessions s ON s.id = q.session_id JOIN projects pr ON pr.id = s.project_id "
            f"WHERE prompts_fts MATCH :match{scope} ORDER BY score LIMIT :limit",
            {"match": ctx.plan.match, "now": ctx.now_ms, "limit": ctx.fetch, **params},
        ).fetchall()
        return [
            SearchHit(
                source="prompt",
                path=f"session #{r['session_id']} prompts",
                line=0,
                heading=f"prompt {r['prompt_number']}",
                snippet=_clip(r["text"]),
                categories=(),
                tags=(),
                score=-float(r["score"]),
                project=r["project"],
                ref=f"prompt:{r['session_id']}:{r['prompt_number']}",
                time_ms=int(r["created_at"]),
            )
            for r in rows
        ]


register_source(ObservationSource())
