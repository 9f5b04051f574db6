"""Search sources for observations, session summaries and prompts (schema 3).

Plugged into :mod:`conkeeper.services.search.engine` through its source registry, so one query
returns memory-file entries and these rows together, each hit labelled by ``source``
(``observation``, ``summary``, ``prompt``) and carrying a ``ref`` an agent can fetch
(``obs:42`` → ``conkeeper show 42``; ``summary:7`` → ``conkeeper summary 7``). Scores use
the same BM25 scale and recency boost as memory files so the merged ranking is fair.

Filters: ``--since`` applies to every table; a ``--category`` that is an observation type
matches the type, any other category a concept; summaries and prompts carry no categories or
tags, so a category or tag filter leaves them out (and a tag filter leaves out observations).

Ranking: the queries live in :mod:`conkeeper.storage.record_query` (a two-stage ranking: the
best BM25 matches of the FTS table alone, re-ranked with the recency factor).

Privacy: the rows were cleaned when they were captured, and every text shown is passed through
:func:`conkeeper.domain.privacy.clean_captured` again on the way out (private spans cut,
secrets redacted); a record whose title or text has nothing left to show is not a hit.
"""

from __future__ import annotations

import sqlite3

from conkeeper.domain.observations import OBSERVATION_TYPES, json_list
from conkeeper.domain.paths import locate_project
from conkeeper.domain.privacy import clean_captured
from conkeeper.services.search.engine import SearchContext, SearchHit, register_source
from conkeeper.storage.record_query import (
    OBSERVATIONS,
    PROMPTS,
    SUMMARIES,
    RecordTable,
    listed_records,
    ranked_records,
)
from conkeeper.storage.store import find_project

SOURCE_NAMES = ("observation", "summary", "prompt")
SNIPPET_CHARS = 240


def _ranked(
    ctx: SearchContext,
    spec: RecordTable,
    types: tuple[str, ...] = (),
    concepts: tuple[str, ...] = (),
) -> list[tuple[sqlite3.Row, float]]:
    """``(row, score)`` for rows of ``spec`` matching the query within the request's project
    and ``--since``, best first, at most ``ctx.fetch``; ``score`` is higher-is-better."""
    project_id, project_ids = _project_scope(ctx)
    if ctx.plan.listing:  # labels and no words: every row with them, newest first
        rows = listed_records(
            ctx.conn,
            spec,
            fetch=ctx.fetch,
            project_id=project_id,
            since_ms=ctx.request.since_ms,
            types=types,
            concepts=concepts,
            project_ids=project_ids,
        )
        return [(row, 0.0) for row in rows]
    return ranked_records(
        ctx.conn,
        spec,
        match=ctx.plan.match,
        now_ms=ctx.now_ms,
        fetch=ctx.fetch,
        project_id=project_id,
        since_ms=ctx.request.since_ms,
        types=types,
        concepts=concepts,
        project_ids=project_ids,
    )


def _project_scope(ctx: SearchContext) -> tuple[int | None, tuple[int, ...]]:
    """``(project_id, project_ids)`` for :func:`ranked_records`: the current project; with
    ``all_projects`` every project, or — for a cross-project search — the current project and
    the ones found under the configured roots (-1, matching nothing, when none is known)."""
    request = ctx.request
    if request.all_projects and not request.projects:
        return None, ()
    if not request.all_projects:
        found = find_project(ctx.conn, locate_project(request.cwd).identity)
        return (-1 if found is None else found), ()
    folders = (request.cwd, *request.projects)
    found_ids = (find_project(ctx.conn, locate_project(f).identity) for f in folders)
    ids = tuple(sorted({i for i in found_ids if i is not None}))
    return (None, ids) if ids else (-1, ())


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"


HELD_MARK = "[held: this stored text reads like an instruction; `conkeeper show` has it]"
_SHORTEST_ORDER = 12  # characters: a shorter text is never judged


def _shown(text: str | None) -> str:
    """``text`` as it may be printed: private parts cut, secrets redacted, one clipped line
    (``""`` when nothing may be shown), or :data:`HELD_MARK` when it reads like an order.

    A record keeps what a tool or a page said; SessionStart never injects such text and the
    MCP record tools answer a marker, so a search hit (which an agent reads as memory) does
    too. Judged whole before clipping, so an order past the snippet's end still counts."""
    cleaned = clean_captured(text or "")
    if not cleaned:
        return ""
    if len(cleaned) >= _SHORTEST_ORDER:
        from conkeeper.services.quarantine import reads_as_order

        if reads_as_order(cleaned):
            return HELD_MARK
    return _clip(cleaned)


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
        types = tuple(c for c in req.categories if c in OBSERVATION_TYPES)
        concepts = tuple(c for c in req.categories if c not in OBSERVATION_TYPES)
        hits = []
        for r, score in _ranked(ctx, OBSERVATIONS, types, concepts):
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
        hits = []
        for r, score in _ranked(ctx, SUMMARIES):
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
        hits = []
        for r, score in _ranked(ctx, PROMPTS):
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
