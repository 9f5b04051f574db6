"""Search over everything ConKeeper remembers, with results an agent can act on.

Why it exists: one engine behind every front door (``conkeeper search``, the portable
``tools/memory-search.sh``, skills, the MCP server) so ranking, privacy, filters and the output
layout are the same everywhere.

How a search runs (:func:`search`):

1. open the store (a damaged database is moved aside and rebuilt; a locked, read-only or newer one
   is replaced by an in-memory index for this run, with a notice);
2. refresh every root in scope — re-check file stamps, re-index what changed — so results are
   never stale (:func:`conkeeper.storage.index.refresh_root`);
3. turn the user's text into safe FTS5 expressions (:mod:`conkeeper.services.search.query`):
   every term is quoted, so no input raises a syntax error; ``"quoted phrases"``, ``prefix*``,
   ``OR`` between terms and identifiers (``parse_config``, ``parseConfig``) work as typed;
   stopwords and question words are dropped; irregular forms (``buy``/``bought``) are joined;
4. ask every enabled *source* for hits holding every term; when none do — or when the query was a
   sentence or question and fewer than ``limit`` do — ask again for hits holding any term;
5. rank lines (:func:`rank_hits`): a matching line scores the idf-weighted share of the query's
   terms it holds (a share of its neighbours' and of its section heading's terms counts too, and
   a share of all the distinct terms its section holds, so the section that covers the question
   outranks one line matching one rare word); idf is judged over the roots searched, blended
   with a share of the term's rarity among the lines of the sections found;
   hits are ordered by their best line plus small shares of their section BM25 and of how many
   of their lines match (:func:`hit_rank`; recency breaks ties), and files by their best hit;
   each hit keeps the lines that are among the best ``limit`` overall (and its own best).

Query language: keyword queries mean "all of these words" (a keyword query that finds nothing
falls back to any of them); stemming makes ``running`` find ``run``; case never matters;
``"a b"`` is a phrase; ``word*`` a prefix; ``x OR y`` an alternative; a bare ``AND`` is ignored;
any other punctuation is text. At most :data:`MAX_TERMS` terms are used (a 100 KB paste is cut).

``--sessions`` covers the last ``sessions_days`` days of session files; the response says how
many older ones it left out (``window``), and ``sessions_days=0`` (``--all-time``) covers all.

Sources (the extension point): a source implements :class:`SearchSource` — a ``name`` and
``search(ctx) -> list[SearchHit]`` — and is registered with :func:`register_source`. The built-in
:class:`MemoryFileSource` answers for the file kinds ``memory``, ``session`` and ``global``.
Sources for ``observation``, ``summary`` and ``prompt`` rows (schema 3) plug in the same way:
put the class in its own module, call ``register_source(...)`` at import, and add the module
name to :data:`EXTRA_SOURCE_MODULES` so it is imported lazily; :class:`SearchRequest.sources`
says which sources a request wants. A source receives the parsed :class:`QueryPlan` (its
``match`` string works for any FTS5 table using the same tokenizer) and the request's filters,
and returns :class:`SearchHit` objects whose ``score`` is "higher is better" on the BM25 scale,
so hits from different sources merge into one ranking.

Counting: a *match* is a matching line (context lines are not counted); a hit with no line that
literally contains a query word (it matched by stem, identifier part or category) counts its
first line. ``Found M matches across F files.`` reports those numbers.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import namedtuple
from collections.abc import Iterable, Sequence

from conkeeper.domain.messages import clean_message, clean_path
from conkeeper.domain.paths import locate_project, memory_folder_of
from conkeeper.domain.ranking import hit_cover, hit_score, idf, line_score
from conkeeper.domain.records import FrozenRecord, Record
from conkeeper.services.search.query import MAX_TERMS, QueryPlan, build_match, label_listing
from conkeeper.storage import index_query
from conkeeper.storage.driver import sqlite3
from conkeeper.storage.index import (
    IN_MEMORY,
    IndexRoot,
    IndexStore,
    RefreshStats,
    count_older_sessions,
    global_root,
    is_corruption,
    known_project_roots,
    memory_store,
    move_aside,
    open_index_store,
    project_root,
    refresh_root,
    unread_files,
)
from conkeeper.storage.index_query import RECENCY_BOOST as RECENCY_BOOST
from conkeeper.storage.index_query import RECENCY_HALF_DAYS as RECENCY_HALF_DAYS
from conkeeper.storage.index_query import recency_factor as recency_factor
from conkeeper.storage.index_query import recency_factor_sql as recency_factor_sql
from conkeeper.storage.index_spans import Span, decode_spans
from conkeeper.storage.store import StoreError, describe_error

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a search about 4 ms of start-up; annotations only need it here
    from pathlib import Path
    from typing import NamedTuple, Protocol

    from conkeeper.storage.index_scan import Progress

    class SearchSource(Protocol):
        """A kind of thing search can find. ``names`` are the source names it answers for."""

        names: tuple[str, ...]

        def search(self, ctx: SearchContext) -> list[SearchHit]:
            """Hits for ``ctx.plan`` within ``ctx.request``'s filters, best first."""
            ...


MAX_QUERY_ECHO = 200
MAX_LINE_CHARS = 300
DEFAULT_LIMIT = 20
CANDIDATES = 3  # sections fetched per wanted hit, so the best lines can come from any of them
MIN_CANDIDATES = 30
# Line ranking (tuned on LoCoMo conversations 0-4 only): the shares of a line's neighbours, its
# section and its hit's BM25 and matching lines are conkeeper.domain.ranking's (the team
# server's search ranks with the same formula); a term of the section's heading counts this
# much on each line.
HEADING_SHARE = 0.5
# A term's weight is its idf over sections blended with this share of its idf over the lines of
# the sections found (see SearchContext.blend_line_rarity).
LINE_IDF_SHARE = 0.2
FILE_SOURCES = ("memory", "session", "global")
# Rows of the session record (schema 3): found with --sessions, or alone with --observations.
RECORD_SOURCES = ("observation", "summary", "prompt")
EXTRA_SOURCE_MODULES: tuple[str, ...] = ("conkeeper.services.observations.search_source",)
HEADING_WEIGHT, BODY_WEIGHT, TERMS_WEIGHT = 4.0, 1.0, 0.5
# The recency boost (RECENCY_BOOST, recency_factor, recency_factor_sql) is defined with the
# ranking SQL in conkeeper.storage.index_query and re-exported above for sources.
_HL_OPEN, _HL_CLOSE = "\ue000", "\ue001"
_DAY_MS = 86_400_000


class SearchError(Exception):
    """The search cannot run (bad request, unusable database); one line for a person."""


# --------------------------------------------------------------------------- requests and hits


class SearchRequest(FrozenRecord):
    """Everything a front door can ask for; defaults are the seed's: project memory only.

    A plain record, not a dataclass: a search is a fresh process, and :mod:`dataclasses` costs
    start-up time (see :mod:`conkeeper.domain.records`).
    """

    __slots__ = (
        "all_projects",
        "categories",
        "context",
        "cwd",
        "extra_sources",
        "include_global",
        "include_sessions",
        "kinds",
        "limit",
        "projects",
        "query",
        "sessions_days",
        "since_ms",
        "tags",
    )
    query: str
    cwd: Path | str
    include_global: bool
    include_sessions: bool
    kinds: tuple[str, ...]  # restrict to these sources (implies including them)
    categories: tuple[str, ...]
    tags: tuple[str, ...]
    since_ms: int | None
    all_projects: bool
    limit: int
    context: int
    sessions_days: int  # 0: every session file, however old
    extra_sources: tuple[str, ...]  # e.g. ("observation",) once such a source exists
    # with all_projects: only these project folders (and the current project); () = every one
    projects: tuple[Path, ...]

    def __init__(
        self,
        query: str,
        cwd: Path | str | None = None,
        include_global: bool = False,
        include_sessions: bool = False,
        kinds: tuple[str, ...] = (),
        categories: tuple[str, ...] = (),
        tags: tuple[str, ...] = (),
        since_ms: int | None = None,
        all_projects: bool = False,
        limit: int = DEFAULT_LIMIT,
        context: int = 1,
        sessions_days: int = 30,
        extra_sources: tuple[str, ...] = (),
        projects: tuple[Path, ...] = (),
    ) -> None:
        self._set(query=query, cwd=os.getcwd() if cwd is None else cwd, kinds=kinds)
        self._set(include_global=include_global, include_sessions=include_sessions)
        self._set(categories=categories, tags=tags, since_ms=since_ms, all_projects=all_projects)
        self._set(limit=limit, context=context, sessions_days=sessions_days)
        self._set(extra_sources=extra_sources, projects=projects)

    @property
    def sources(self) -> tuple[str, ...]:
        """The source names this request searches."""
        if self.kinds:
            return tuple(dict.fromkeys(self.kinds))
        wanted = ["memory"]
        if self.include_global:
            wanted.append("global")
        if self.include_sessions:
            wanted += ["session", *RECORD_SOURCES]
        return tuple(dict.fromkeys([*wanted, *self.extra_sources]))


if TYPE_CHECKING:

    class HitLine(NamedTuple):
        """One printed line of a hit: a match or a line of context after one."""

        line: int
        text: str
        match: bool
        cover: float = 0.0  # idf-weighted share of the query's terms this line holds (matches)

else:  # the same named tuple without importing typing (about 4 ms of a search's start-up)
    HitLine = namedtuple("HitLine", ("line", "text", "match", "cover"), defaults=(0.0,))


class SearchHit(FrozenRecord):
    """One result: an entry of a memory file, or a row of another source.

    ``path`` is what people read (``.claude/memory/x.md``, ``~/.claude/memory/x.md``); ``line`` is
    the first matching line (0 for sources without lines); ``score`` is higher-is-better.
    """

    __slots__ = (
        "categories",
        "cover",
        "heading",
        "label",
        "line",
        "line_end",
        "line_start",
        "lines",
        "path",
        "project",
        "ref",
        "score",
        "snippet",
        "source",
        "tags",
        "time_ms",
    )
    source: str
    path: str
    line: int
    heading: str
    snippet: str
    categories: tuple[str, ...]
    tags: tuple[str, ...]
    score: float
    lines: tuple[HitLine, ...]
    line_start: int
    line_end: int
    project: str
    ref: str  # a stable id for non-file sources (e.g. "obs:42")
    time_ms: int
    label: str  # how a record is introduced, e.g. "observation #42 (bugfix) — Fix x"
    cover: float  # best line's cover (+ its section's share); -1 until ranked (see rank_hits)

    def __init__(
        self,
        source: str,
        path: str,
        line: int,
        heading: str,
        snippet: str,
        categories: tuple[str, ...],
        tags: tuple[str, ...],
        score: float,
        lines: tuple[HitLine, ...] = (),
        line_start: int = 0,
        line_end: int = 0,
        project: str = "",
        ref: str = "",
        time_ms: int = 0,
        label: str = "",
        cover: float = -1.0,
    ) -> None:
        self._set(source=source, path=path, line=line, heading=heading, snippet=snippet)
        self._set(categories=categories, tags=tags, score=score, lines=lines)
        self._set(line_start=line_start, line_end=line_end, project=project, ref=ref)
        self._set(time_ms=time_ms, label=label, cover=cover)

    @property
    def is_record(self) -> bool:
        """True for a row of the session record (observation, summary, prompt), not a file."""
        return self.source in RECORD_SOURCES

    @property
    def match_count(self) -> int:
        """Matching lines of this hit (at least one: the hit itself matched)."""
        return max(1, sum(1 for line in self.lines if line.match))

    def to_json(self) -> dict[str, object]:
        """The ``--json`` form of this hit."""
        return {
            "path": self.path,
            "line": self.line,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "heading": self.heading,
            "snippet": self.snippet,
            "categories": list(self.categories),
            "tags": list(self.tags),
            "score": round(self.score, 4),
            "source": self.source,
            "project": self.project,
            "ref": self.ref,
            "label": self.label,
            "time_ms": self.time_ms,
            "lines": [{"line": x.line, "text": x.text, "match": x.match} for x in self.lines],
        }


class SearchResponse(Record):
    """Hits in relevance order plus what a front door needs to present them."""

    __slots__ = (
        "hits",
        "notices",
        "query",
        "refreshed",
        "scope",
        "truncated_query",
        "unread",
        "window",
    )
    query: str
    scope: str
    hits: list[SearchHit]
    notices: list[str]
    refreshed: RefreshStats
    truncated_query: bool
    window: str  # "N older session files not searched; ..." when --sessions left some out
    unread: list[tuple[str, str]]  # (display path, why): files searched with replacements or not

    def __init__(
        self,
        query: str,
        scope: str,
        hits: list[SearchHit],
        notices: list[str] | None = None,
        refreshed: RefreshStats | None = None,
        truncated_query: bool = False,
        window: str = "",
    ) -> None:
        self.query, self.scope, self.hits = query, scope, hits
        self.notices = [] if notices is None else notices
        self.refreshed = RefreshStats() if refreshed is None else refreshed
        self.truncated_query, self.window = truncated_query, window
        self.unread = []

    @property
    def matches(self) -> int:
        """Matching lines over all hits."""
        return sum(h.match_count for h in self.hits)

    @property
    def files(self) -> int:
        """Distinct files among the hits."""
        return len({h.path for h in self.hits if not h.is_record})

    @property
    def records(self) -> dict[str, int]:
        """How many observations, summaries and prompts are among the hits, by source."""
        counts: dict[str, int] = {}
        for hit in self.hits:
            if hit.is_record:
                counts[hit.source] = counts.get(hit.source, 0) + 1
        return counts

    def to_json(self) -> dict[str, object]:
        """The ``--json`` payload: the same results as the Markdown layout."""
        return {
            "query": self.query,
            "scope": self.scope,
            "matches": self.matches,
            "files": self.files,
            "records": self.records,
            "results": [h.to_json() for _path, hits in group_by_file(self.hits) for h in hits],
            "notices": [
                *self.notices,
                *([self.window] if self.window else []),
                *(f"{path}: {why}" for path, why in self.unread),
            ],
            "unread_files": [{"path": path, "note": why} for path, why in self.unread],
        }


# --------------------------------------------------------------------------- sources


class SearchContext(Record):
    """What a source gets: the open database, the parsed query, the request and its roots."""

    __slots__ = (
        "_line_weighted",
        "_weights",
        "conn",
        "fetch",
        "now_ms",
        "plan",
        "request",
        "roots",
    )
    conn: sqlite3.Connection
    plan: QueryPlan
    request: SearchRequest
    roots: dict[int, IndexRoot]  # index_roots.id -> root, already refreshed
    now_ms: int
    fetch: int  # how many hits a source should return at most
    _weights: tuple[float, ...] | None
    _line_weighted: bool  # the weights already blend in rarity among lines (see blend_line_rarity)

    def __init__(
        self,
        conn: sqlite3.Connection,
        plan: QueryPlan,
        request: SearchRequest,
        roots: dict[int, IndexRoot],
        now_ms: int,
        fetch: int,
        _weights: tuple[float, ...] | None = None,
        _line_weighted: bool = False,
    ) -> None:
        self.conn, self.plan, self.request, self.roots = conn, plan, request, roots
        self.now_ms, self.fetch, self._weights = now_ms, fetch, _weights
        self._line_weighted = _line_weighted

    def weights(self) -> tuple[float, ...]:
        """Each query term's rarity (BM25 idf over the indexed sections, blended with its
        rarity among the lines found once :meth:`blend_line_rarity` ran), in term order."""
        if self._weights is None:
            self._weights = term_weights(self.conn, self.plan.terms, list(self.roots) or None)
        return self._weights

    def blend_line_rarity(self, line_counts: Sequence[int], total_lines: int) -> None:
        """Blend each term's weight with its idf over the lines of the sections first found
        (``line_counts[k]`` of ``total_lines`` hold term ``k``), by :data:`LINE_IDF_SHARE`.

        Lines are what is ranked: a word found in most sections can still be on few of their
        lines, and there it says more than its section idf admits. Done once per search (the
        fallback keeps the first blend), so every hit's cover uses the same weights."""
        if self._line_weighted or total_lines <= 0:
            return
        self._weights = tuple(
            (1.0 - LINE_IDF_SHARE) * w + LINE_IDF_SHARE * idf(n, total_lines)
            for w, n in zip(self.weights(), line_counts, strict=True)
        )
        self._line_weighted = True


_SOURCES: list[SearchSource] = []


def register_source(source: SearchSource) -> None:
    """Add a source (idempotent by class); later helpers call this for observations etc."""
    if not any(type(s) is type(source) for s in _SOURCES):
        _SOURCES.append(source)


def _load_extra_sources(request: SearchRequest) -> None:
    """Import the optional source modules, only when the request wants a non-file source."""
    if all(name in FILE_SOURCES for name in request.sources):
        return
    import importlib

    for module in EXTRA_SOURCE_MODULES:
        with contextlib.suppress(ModuleNotFoundError):
            importlib.import_module(module)


class MemoryFileSource:
    """Entries of memory files: project memory, session files and global memory."""

    names: tuple[str, ...] = FILE_SOURCES

    def search(self, ctx: SearchContext) -> list[SearchHit]:
        """Sections ranked by BM25 (heading above body) times recency, each with its matching
        lines scored by how much of the query they hold (:func:`rank_hits` orders them)."""
        kinds = [k for k in ctx.request.sources if k in FILE_SOURCES]
        if not kinds or not ctx.roots:
            return []
        rows = self._rank(ctx, kinds)
        if not rows:
            return []
        ids = [r["id"] for r in rows]
        highlighted = self._highlight(ctx, ids, ctx.plan.match)
        covers, unions = self._covers(ctx, ids)
        hits = []
        for row in rows:
            body = highlighted.get(row["id"], "")
            hit = self._hit(ctx, row, body, covers.get(row["id"], {}), unions.get(row["id"], 0.0))
            if hit is not None:
                hits.append(hit)
        return hits

    def _rank(self, ctx: SearchContext, kinds: list[str]) -> list[sqlite3.Row]:
        req = ctx.request
        return index_query.rank_sections(
            ctx.conn,
            match=ctx.plan.match,
            root_ids=list(ctx.roots),
            kinds=kinds,
            now_ms=ctx.now_ms,
            sessions_from=sessions_from(req, ctx.now_ms),
            since_ms=req.since_ms,
            categories=req.categories,
            tags=req.tags,
            weights=(HEADING_WEIGHT, BODY_WEIGHT, TERMS_WEIGHT),
            limit=ctx.fetch,
        )

    def _highlight(self, ctx: SearchContext, ids: list[int], match: str) -> dict[int, str]:
        return index_query.highlight_bodies(ctx.conn, ids, match, _HL_OPEN, _HL_CLOSE)

    def _covers(
        self, ctx: SearchContext, ids: list[int]
    ) -> tuple[dict[int, dict[int, float]], dict[int, float]]:
        """Per section, per body line (0-based): the summed rarity of the terms it holds; a
        term of the section's heading counts (by :data:`HEADING_SHARE`) for every such line.
        The first call of a search also blends each term's rarity among these sections' lines
        into the weights (:meth:`SearchContext.blend_line_rarity`)."""
        if len(ctx.plan.terms) < 2:
            return {}, {}
        found = [self._term_lines(ctx, ids, term) for term in ctx.plan.terms]
        sizes = {rowid: size for per_term in found for rowid, _held, _head, size in per_term}
        counts = [sum(len(held) for _r, held, _h, _s in per_term) for per_term in found]
        ctx.blend_line_rarity(counts, sum(sizes.values()))
        out: dict[int, dict[int, float]] = {}
        unions: dict[int, float] = {}
        heads: dict[int, list[tuple[float, set[int]]]] = {}
        for per_term, weight in zip(found, ctx.weights(), strict=True):
            for rowid, held, in_heading, _size in per_term:
                lines = out.setdefault(rowid, {})
                unions[rowid] = unions.get(rowid, 0.0) + weight
                for i in held:
                    lines[i] = lines.get(i, 0.0) + weight
                if in_heading:
                    heads.setdefault(rowid, []).append((weight, set(held)))
        for rowid, extra in heads.items():
            lines = out[rowid]
            for i in lines:
                lines[i] += sum(HEADING_SHARE * w for w, held in extra if i not in held)
        return out, unions

    def _term_lines(
        self, ctx: SearchContext, ids: list[int], term: str
    ) -> list[tuple[int, list[int], bool, int]]:
        """Per section of ``ids`` holding ``term``: its id, the body lines (0-based) that hold
        the term, whether its heading does, and its number of body lines."""
        sections = index_query.highlight_sections(ctx.conn, ids, term, _HL_OPEN, _HL_CLOSE)
        out = []
        for rowid, heading, body in sections:
            texts = body.split("\n")
            held = [i for i, text in enumerate(texts) if _HL_OPEN in text]
            out.append((rowid, held, bool(heading) and _HL_OPEN in heading, len(texts)))
        return out

    def _hit(
        self,
        ctx: SearchContext,
        row: sqlite3.Row,
        body: str,
        covers: dict[int, float],
        union: float = 0.0,
    ) -> SearchHit | None:
        spans = decode_spans(row["spans"])
        start = int(row["line_start"])
        texts = body.split("\n")
        matched = sorted(covers) if covers else _matching_lines(texts, ctx.plan.needles)
        if ctx.plan.listing:
            matched = _labelled_lines(texts, spans, start, ctx.request)
        if ctx.request.categories or ctx.request.tags:  # keep lines the labels qualify
            matched = [i for i in matched if _line_labels_ok(spans, start + i, ctx.request)]
            if not matched:
                return None
        total = sum(ctx.weights()) or 1.0
        own = {i: covers.get(i, total) / total for i in matched}
        whole = union / total
        scored = {
            i: line_score(own[i], max(own.get(i - 1, 0.0), own.get(i + 1, 0.0)), whole) for i in own
        }
        lines = _with_context(texts, scored, start, ctx.request.context)
        root = ctx.roots[int(row["root_id"])]
        lines = _withhold_held(
            root.folder, row["rel_path"], texts, start, lines, every=root.kind == "global"
        )
        lines = _withhold_tagged(os.path.join(root.folder, row["rel_path"]), lines)
        lines = _without_hidden_runs(lines)
        if _is_record_file(row["rel_path"]):
            lines = _mark_logged_orders(lines)
        first = lines[0] if lines else HitLine(start, "", True, 1.0)
        cats, tags = _labels_for(spans, [ln.line for ln in lines if ln.match])
        heading_path = row["heading_path"]
        return SearchHit(
            source=row["kind"],
            path=clean_path(f"{root.display}/{row['rel_path']}"),
            line=first.line,
            heading=heading_path.rsplit(" > ", 1)[-1] if heading_path else "",
            snippet=first.text,
            categories=cats,
            tags=tags,
            score=-float(row["score"]),
            lines=tuple(lines),
            line_start=start,
            line_end=int(row["line_end"]),
            project=clean_path(root.project),
            time_ms=int(row["file_time"]),
            cover=hit_cover(first.cover, whole),
        )


register_source(MemoryFileSource())


def term_weights(
    conn: sqlite3.Connection, terms: Sequence[str], root_ids: Sequence[int] | None = None
) -> tuple[float, ...]:
    """BM25's idf of each term over the indexed sections of the roots searched (every root
    when none are given): rare words count more, judged by the memory being searched."""
    if len(terms) < 2:
        return tuple(1.0 for _ in terms)
    total = index_query.section_count(conn, root_ids)
    weights = []
    for term in terms:
        found = index_query.matching_sections(conn, term, root_ids)
        weights.append(idf(found, total))
    return tuple(weights)


def sessions_from(req: SearchRequest, now: int) -> int:
    """Oldest session-file date in scope: ``--since``, else the ``sessions_days`` window."""
    if req.since_ms is not None:
        return req.since_ms
    return 0 if req.sessions_days <= 0 else now - req.sessions_days * _DAY_MS


_HELD_CACHE: dict[tuple[str, str], tuple[tuple[int, int], frozenset[str]]] = {}
# files ConKeeper writes from what tools, pages and prompts said (the observation log, the
# corrections queue, retros): their lines are records of outside text, not the user's notes
_RECORD_KINDS = frozenset({"observations", "queue", "retro"})


def _is_record_file(rel_path: str) -> bool:
    """True for the observation log, a retro or the corrections queue (by their names)."""
    if not rel_path.endswith(("-observations.md", "-retro.md", "corrections-queue.md")):
        return False
    from conkeeper.domain.memory import memory_file_kind

    return memory_file_kind(rel_path) in _RECORD_KINDS


_LOGGED_HELD_MARK = "[held: this logged text reads like an instruction; open the file to see it]"


def _mark_logged_orders(lines: list[HitLine]) -> list[HitLine]:
    """``lines`` of a record file with each that reads like an order shown as a marker, as
    search marks a stored observation's text (a logged command, a queued prompt)."""
    from conkeeper.services.quarantine import reads_as_order

    out = []
    for hit in lines:
        raw = hit.text.replace(_HL_OPEN, "").replace(_HL_CLOSE, "")
        if len(raw.strip()) >= 12 and reads_as_order(raw):
            hit = hit._replace(text=_LOGGED_HELD_MARK)
        out.append(hit)
    return out


def _withhold_held(
    folder: str,
    rel: str,
    texts: list[str],
    start: int,
    lines: list[HitLine],
    *,
    every: bool = False,
) -> list[HitLine]:
    """``lines`` with those SessionStart holds back from an agent (an agent wrote them into
    the file with its own tools and they read like instructions: ``storage.agent_edits``; in
    the global memory, ``every`` line an agent wrote) shown as
    :data:`conkeeper.services.context.HELD_MARK`, so a search never hands the next
    agent verbatim what its session start left out. Costs one ``stat`` when nothing is held."""
    held = _held_keys(folder, rel)
    if not held:
        return lines
    from conkeeper.services.context import HELD_MARK, held_agent_lines

    raw = [t.replace(_HL_OPEN, "").replace(_HL_CLOSE, "") for t in texts]  # as the file has it
    withheld = held_agent_lines(raw, held, every=every)  # alone and in neighbouring pairs
    out = []
    for hit in lines:
        if hit.line - start in withheld:
            hit = hit._replace(text=HELD_MARK)
        out.append(hit)
    return out


_AGENT_TAG = b"@source: agent-"
_Marks = tuple[frozenset[int], dict[int, str]]  # lines held back, first lines' source notes
_NO_MARKS: _Marks = (frozenset(), {})
_TAGGED_CACHE: dict[str, tuple[tuple[int, int], _Marks]] = {}


def _withhold_tagged(path: str, lines: list[HitLine]) -> list[HitLine]:
    """``lines`` as SessionStart shows an agent's entries: the first line of each ends with
    its source ("saved by an agent via MCP remember, 2026-11-26"), and the lines of one the
    user never approved that reads like an instruction (a teammate's commit, a restored
    export, a note saved before the detector knew its form) are
    :data:`conkeeper.services.context.HELD_MARK`. The index keeps no tag lines, so the file is
    read (once per change); its text is judged only when it holds an agent's tag."""
    withheld, notes = _tagged_lines(path)
    if not withheld and not notes:
        return lines
    from conkeeper.services.context import HELD_MARK

    out = []
    for hit in lines:
        index = hit.line - 1
        if index in withheld:
            hit = hit._replace(text=HELD_MARK)
        elif index in notes:
            hit = hit._replace(text=f"{hit.text.rstrip()} _({notes[index]})_")
        out.append(hit)
    return out


def _without_hidden_runs(lines: list[HitLine]) -> list[HitLine]:
    """``lines`` without runs of characters that show nothing yet carry a message (tag
    characters, a run of variation selectors: :func:`conkeeper.domain.hidden_text.
    strip_hidden_runs`), even in the person's own line: an answer read by a model must never
    carry one."""
    if all(hit.text.isascii() for hit in lines):
        return lines
    from conkeeper.domain.hidden_text import strip_hidden_runs

    return [hit._replace(text=strip_hidden_runs(hit.text)) for hit in lines]


def _tagged_lines(path: str) -> _Marks:
    """What :func:`_withhold_tagged` marks in ``path``."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO put there never blocks
    except OSError:
        return _NO_MARKS
    try:
        info = os.fstat(fd)
        stamp = (info.st_mtime_ns, info.st_size)
        cached = _TAGGED_CACHE.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if not stat.S_ISREG(info.st_mode):
            return _NO_MARKS
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read()
    except OSError:
        return _NO_MARKS
    finally:
        os.close(fd)
    found = _judge_tagged(data, path) if _AGENT_TAG in data else _NO_MARKS
    _TAGGED_CACHE[path] = (stamp, found)
    return found


def _judge_tagged(data: bytes, path: str) -> _Marks:
    from conkeeper.domain.privacy import clean_for_index
    from conkeeper.domain.textio import MemoryFileError, decode_lenient
    from conkeeper.services.context import agent_entry_notes, held_tagged_entries

    try:
        text, _ = decode_lenient(data, path)
    except MemoryFileError:
        return _NO_MARKS
    lines = clean_for_index(text).split("\n")
    return frozenset(held_tagged_entries(lines)), agent_entry_notes(lines)


def _held_keys(folder: str, rel: str) -> frozenset[str]:
    """The held keys of one file of a memory folder (``storage.agent_edits.held_keys``), read
    again only when the folder's record changed."""
    record = os.path.join(folder, ".review", "agent-edits")
    try:
        info = os.stat(record)
    except OSError:
        return frozenset()
    approved = os.path.join(folder, ".review", "agent-edits-approved")
    try:
        stamp = (info.st_mtime_ns + os.stat(approved).st_mtime_ns, info.st_size)
    except OSError:
        stamp = (info.st_mtime_ns, info.st_size)
    cached = _HELD_CACHE.get((folder, rel))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    from pathlib import Path

    from conkeeper.storage.agent_edits import held_keys

    keys = held_keys(Path(folder), rel)
    _HELD_CACHE[(folder, rel)] = (stamp, keys)
    return keys


def _matching_lines(texts: list[str], needles: Sequence[str]) -> list[int]:
    """Indexes of lines FTS5 highlighted; else lines containing a needle; else the first line."""
    marked = [i for i, t in enumerate(texts) if _HL_OPEN in t]
    if marked:
        return marked
    lowered = [t.lower() for t in texts]
    found = [i for i, t in enumerate(lowered) if t.strip() and any(n in t for n in needles)]
    if found:
        return found
    return [next((i for i, t in enumerate(texts) if t.strip()), 0)]


def _with_context(
    texts: list[str], scored: dict[int, float], start: int, context: int
) -> list[HitLine]:
    """Matching lines, best cover first (ties in line order), each followed by up to
    ``context`` non-blank lines after it that are not matches themselves."""
    order = sorted(scored, key=lambda i: (-scored[i], i))
    shown: set[int] = set()
    out: list[HitLine] = []
    for i in order:
        if i >= len(texts) or i in shown:
            continue
        shown.add(i)
        out.append(HitLine(start + i, _display_line(texts[i]), True, scored[i]))
        for j in range(i + 1, min(len(texts), i + 1 + context)):
            if texts[j].strip() and j not in scored and j not in shown:
                shown.add(j)
                out.append(HitLine(start + j, _display_line(texts[j]), False))
    return out


def _labelled_lines(
    texts: list[str], spans: list[Span], start: int, req: SearchRequest
) -> list[int]:
    """For a listing (labels, no words): the first line of each entry of this section that
    carries every wanted label (0-based, blank lines skipped); a bullet inside a listed
    section is part of it, not listed again."""
    qualifying = sorted(
        (int(s[0]), int(s[1]))
        for s in spans
        if start <= int(s[0]) < start + len(texts) and _line_labels_ok(spans, int(s[0]), req)
    )
    out: list[int] = []
    covered = -1
    for first, last in qualifying:
        if first <= covered:
            continue
        covered = max(covered, last)
        i = first - start
        while i < len(texts) - 1 and not texts[i].strip():
            i += 1
        out.append(i)
    return sorted(set(out))


def _display_line(text: str) -> str:
    clean = text.replace(_HL_OPEN, "").replace(_HL_CLOSE, "").rstrip()
    return clean if len(clean) <= MAX_LINE_CHARS else clean[: MAX_LINE_CHARS - 1] + "…"


def _labels_at(spans: list[Span], line: int) -> tuple[set[str], set[str]]:
    cats: set[str] = set()
    tags: set[str] = set()
    for span in spans:
        if span[0] <= line <= span[1]:
            cats.update(span[2])
            tags.update(span[3])
    return cats, tags


def _line_labels_ok(spans: list[Span], line: int, req: SearchRequest) -> bool:
    cats, tags = _labels_at(spans, line)
    return all(c.lower() in cats for c in req.categories) and all(
        t.lower() in tags for t in req.tags
    )


def _labels_for(spans: list[Span], lines: Iterable[int]) -> tuple[tuple[str, ...], ...]:
    """Categories and tags that qualify any of ``lines``, in the order they are declared."""
    cats: dict[str, None] = {}
    tags: dict[str, None] = {}
    wanted = set(lines)
    for span in spans:
        if any(int(span[0]) <= ln <= int(span[1]) for ln in wanted):
            cats.update(dict.fromkeys(span[2]))
            tags.update(dict.fromkeys(span[3]))
    return tuple(cats), tuple(tags)


# --------------------------------------------------------------------------- running a search


def scope_description(req: SearchRequest) -> str:
    """How the no-results sentence names what was searched."""
    names = {
        "memory": "all projects' memory" if req.all_projects else "project memory",
        "session": _session_scope(req),
        "global": "global memory",
        "observation": "observations",
        "summary": "session summaries",
        "prompt": "prompts",
    }
    parts = [names.get(s, s) for s in req.sources]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    filters = [f"category: {c}" for c in req.categories] + [f"tag: {t}" for t in req.tags]
    if req.since_ms is not None:
        filters.append("since " + time.strftime("%Y-%m-%d", time.localtime(req.since_ms / 1000)))
    return text + (f" ({', '.join(filters)})" if filters else "")


def _session_scope(req: SearchRequest) -> str:
    if req.since_ms is not None or req.sessions_days <= 0:
        return "session files"
    return f"session files (last {req.sessions_days} days)"


def _roots(conn: sqlite3.Connection, req: SearchRequest) -> list[IndexRoot]:
    """The memory folders a request covers (registering the current project)."""
    wanted = set(req.sources)
    location = locate_project(req.cwd)
    roots: list[IndexRoot] = []
    if wanted & {"memory", "session"}:
        if os.path.isdir(location.memory_folder):
            roots.append(project_root(conn, location))
        if req.all_projects:
            seen = {r.project_id for r in roots}
            wanted_dirs = {_resolved(memory_folder_of(os.fspath(p))) for p in req.projects}
            roots.extend(
                r
                for r in known_project_roots(conn, location)
                if r.project_id not in seen
                and (not wanted_dirs or _resolved(r.folder) in wanted_dirs)
            )
    if "global" in wanted:
        roots.append(global_root())
    return roots


def _resolved(folder: str) -> str:
    """``folder`` with symlinks resolved, for comparing project folders found different ways."""
    try:
        return os.path.realpath(folder)
    except (OSError, ValueError):
        return folder


def _refresh(
    conn: sqlite3.Connection, roots: list[IndexRoot], progress: Progress | None = None
) -> tuple[dict[int, IndexRoot], RefreshStats]:
    total = RefreshStats()
    by_id: dict[int, IndexRoot] = {}
    for root in roots:
        stats = refresh_root(conn, root, progress=progress)
        total.add(stats)
        by_id[stats.root_id] = root
    return by_id, total


def search(
    request: SearchRequest, store: IndexStore | None = None, progress: Progress | None = None
) -> SearchResponse:
    """Run ``request`` against fresh data and return ranked hits (never a stale result).
    ``progress(done, total)`` hears how re-indexing changed files goes (a front door may draw
    it; services never print).

    Raises :class:`SearchError` for an empty query or a database that cannot be used even in
    memory; everything else (odd characters, huge queries, a damaged or locked database) is
    handled, with notices in the response.
    """
    if request.query and request.query.replace("\x00", "").strip():
        plan = build_match(request.query)
    elif request.categories or request.tags:  # no words: list every entry with the labels
        plan = label_listing((*request.categories, *request.tags))
    else:
        raise SearchError("the query is empty; give a word or phrase to search for")
    own = store is None
    try:
        active = store or open_index_store(fallback=True)
    except (StoreError, sqlite3.DatabaseError, OSError) as exc:
        raise SearchError(str(exc)) from None
    try:
        return _search_with_recovery(active, request, plan, progress)
    finally:
        if own:
            active.conn.close()


def _search_with_recovery(
    store: IndexStore, request: SearchRequest, plan: QueryPlan, progress: Progress | None = None
) -> SearchResponse:
    """Run once; on a damaged database rebuild it, on a locked or read-only one go in-memory."""
    try:
        return _run(store, request, plan, progress)
    except sqlite3.DatabaseError as exc:
        if store.ephemeral:
            raise SearchError(describe_error(store.path, exc)) from None
        failure = exc
    store.conn.close()
    try:
        if is_corruption(failure):
            notice = move_aside(store.path)
            fresh = open_index_store(store.path, fallback=True)
            fresh.notices.insert(0, notice)
        else:
            message = describe_error(store.path, failure)
            fresh = IndexStore(memory_store(), store.path, [f"{message}; {IN_MEMORY}"], True)
    except (StoreError, sqlite3.DatabaseError, OSError) as exc:
        raise SearchError(str(exc)) from None
    try:
        return _run(fresh, request, plan, progress)
    except sqlite3.DatabaseError as exc:
        raise SearchError(describe_error(fresh.path, exc)) from None
    finally:
        fresh.conn.close()


def _run(
    store: IndexStore, request: SearchRequest, plan: QueryPlan, progress: Progress | None = None
) -> SearchResponse:
    _load_extra_sources(request)
    roots, refreshed = _refresh(store.conn, _roots(store.conn, request), progress)
    listed = " ".join(
        [*(f"--category {c}" for c in request.categories), *(f"--tag {t}" for t in request.tags)]
    )
    response = SearchResponse(  # echoed back: the query and filters pass privacy whole first
        clean_message(listed if plan.listing else request.query),
        clean_message(scope_description(request)),
        [],
        list(store.notices),
        refreshed,
        plan.truncated,
    )
    response.unread = _unread(store.conn, roots, request)
    if plan.truncated:
        response.notices.append(f"the query was cut to its first {MAX_TERMS} terms")
    if plan.empty:
        return response
    limit = max(1, request.limit)
    fetch = max(limit * CANDIDATES, MIN_CANDIDATES)
    fetch *= 3 if request.categories or request.tags else 1
    ctx = SearchContext(store.conn, plan, request, roots, int(time.time() * 1000), fetch)
    hits = _gather(ctx)
    if plan.listing:  # every labelled entry, in file and line order (records newest first)
        hits.sort(key=lambda h: (1, "", -h.time_ms) if h.is_record else (0, h.path, h.line))
        response.hits = hits[:limit]
        return response
    if _wants_fallback(plan, hits, limit):
        ctx = ctx.replace(plan=plan.replace(match=plan.any_match), _weights=ctx.weights())
        seen = {_hit_key(h) for h in hits}
        hits += [h for h in _gather(ctx) if _hit_key(h) not in seen]
    response.hits = rank_hits(hits, plan, ctx.weights(), limit)
    response.window = _window_note(ctx)
    return response


def _unread(
    conn: sqlite3.Connection, roots: dict[int, IndexRoot], request: SearchRequest
) -> list[tuple[str, str]]:
    """``(display path, why)`` of the searched files that could not be read whole (skipped, or
    read with invalid UTF-8 replaced): never dropped from the results without a word. Both
    cleaned by the privacy module, as a hit's path is: a file named after a key is named
    ``[REDACTED:<kind>].md`` here too."""
    wanted = set(request.sources)
    out = []
    for root_id, rel, kind, note in unread_files(conn, list(roots)):
        if kind in wanted:
            why = note[len(rel) + 2 :] if note.startswith(rel + ": ") else note
            out.append((clean_path(f"{roots[root_id].display}/{rel}"), clean_message(why)))
    return out


def _window_note(ctx: SearchContext) -> str:
    """Say how many session files the ``sessions_days`` window left out (never silently)."""
    req = ctx.request
    if "session" not in req.sources or req.since_ms is not None or req.sessions_days <= 0:
        return ""
    older = count_older_sessions(ctx.conn, list(ctx.roots), sessions_from(req, ctx.now_ms))
    if not older:
        return ""
    noun = "file" if older == 1 else "files"
    return (
        f"{older} older session {noun} not searched (over {req.sessions_days} days old); "
        "use --since or --all-time"
    )


def _wants_fallback(plan: QueryPlan, hits: list[SearchHit], limit: int) -> bool:
    """Whether to add hits holding only some terms: when the query is a sentence or question
    (stopwords were dropped) and fewer than ``limit`` hits hold every term, or when none do.
    A keyword query that finds something keeps meaning "all of these words"."""
    if plan.any_match == plan.match:
        return False
    return not hits or (bool(plan.dropped) and len(hits) < limit)


def _gather(ctx: SearchContext) -> list[SearchHit]:
    hits: list[SearchHit] = []
    for source in _SOURCES:
        if set(source.names) & set(ctx.request.sources):
            hits.extend(source.search(ctx))
    return hits


def _hit_key(hit: SearchHit) -> tuple[str, str, int, str]:
    return (hit.source, hit.path, hit.line_start, hit.ref)


def rank_hits(
    hits: list[SearchHit], plan: QueryPlan, weights: Sequence[float], limit: int
) -> list[SearchHit]:
    """Order hits by :func:`hit_rank` (BM25 and recency break ties), keep ``limit``, and within
    each keep the lines that rank among the best ``limit`` lines overall (and always its own best
    line): the answer comes first, not the section's top. Files are then listed in the order of
    their best hit (:func:`group_by_file`).
    """
    total = sum(weights) or 1.0
    ranked = [
        h if h.cover >= 0 else h.replace(cover=_text_cover(h, plan, weights, total)) for h in hits
    ]
    top = max([h.score for h in ranked if h.score > 0] or [1.0])
    ranked.sort(key=lambda h: (round(hit_rank(h, top), 6), h.score), reverse=True)
    kept = ranked[:limit]
    best = sorted(
        (
            (round(ln.cover, 6), h.score, -ln.line, n)
            for n, h in enumerate(kept)
            for ln in h.lines
            if ln.match
        ),
        reverse=True,
    )[:limit]
    wanted = {(n, -neg_line) for _c, _s, neg_line, n in best}
    return [_trim_lines(h, {line for m, line in wanted if m == n}) for n, h in enumerate(kept)]


def hit_rank(hit: SearchHit, top_score: float) -> float:
    """How high a ranked hit (its ``cover`` set) is listed: its best line's cover, plus a share
    of its section BM25 relative to the best hit's ``top_score``, plus a log-damped share of how
    many of its lines match (:func:`conkeeper.domain.ranking.hit_score`): the evidence of
    the whole section, not only of its best line, decides between sections whose best lines are
    alike. ``hit.lines`` must still hold every matching line (before :func:`_trim_lines`)."""
    return hit_score(hit.cover, hit.score, top_score, hit.match_count)


def _trim_lines(hit: SearchHit, wanted: set[int]) -> SearchHit:
    """``hit`` with only the matching lines in ``wanted`` (and its best one), with context."""
    keep: list[HitLine] = []
    showing = False
    for ln in hit.lines:
        if ln.match:
            showing = not keep or ln.line in wanted
        if showing:
            keep.append(ln)
    return hit.replace(lines=tuple(keep))


def _text_cover(hit: SearchHit, plan: QueryPlan, weights: Sequence[float], total: float) -> float:
    """Cover for a hit without scored lines (a record): terms whose words its text contains."""
    if len(plan.terms) < 2:
        return 1.0
    text = f"{hit.label} {hit.heading} {hit.snippet}".lower()
    held = 0.0
    for term, weight in zip(plan.terms, weights, strict=True):
        words = [w.strip('"*').lower() for w in term.split(" OR ")]
        if any(w and w[: max(3, len(w) - 2)] in text for w in words):
            held += weight
    return held / total


# --------------------------------------------------------------------------- presenting


def echo_query(query: str) -> str:
    """The query as shown in headers: one line, NULs removed, at most 200 characters."""
    flat = " ".join(query.replace("\x00", " ").split())
    return flat if len(flat) <= MAX_QUERY_ECHO else flat[: MAX_QUERY_ECHO - 1] + "…"


def group_by_file(hits: Sequence[SearchHit]) -> list[tuple[str, list[SearchHit]]]:
    """Files in order of their best hit; within a file, hits in rank order. Each record
    (observation, summary, prompt) is a group of its own, keyed by its ``ref``."""
    groups: dict[str, list[SearchHit]] = {}
    for hit in hits:
        groups.setdefault(hit.ref if hit.is_record else hit.path, []).append(hit)
    return list(groups.items())


_RECORD_NOUNS = {
    "observation": ("observation", "observations"),
    "summary": ("session summary", "session summaries"),
    "prompt": ("prompt", "prompts"),
}


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def count_line(response: SearchResponse) -> str:
    """``Found M matches across F files.`` (the seed's sentence), naming records when present:
    ``Found 5 matches across 2 files, 2 observations and 1 session summary.``"""
    parts = []
    records = response.records
    if response.files or not records:
        parts.append(_count(response.files, "file", "files"))
    for source in RECORD_SOURCES:
        if records.get(source):
            parts.append(_count(records[source], *_RECORD_NOUNS[source]))
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"Found {_count(response.matches, 'match', 'matches')} across {listed}."


def _record_block(hit: SearchHit) -> list[str]:
    """A record hit: its label as a heading, then where and when, then the matching text."""
    when = time.strftime("%Y-%m-%d", time.localtime(hit.time_ms / 1000)) if hit.time_ms else ""
    where = ", ".join(x for x in (hit.path, when) if x)
    return [f"### {hit.label or hit.ref}", f"**{where}:** {hit.snippet}" if where else hit.snippet]


Block = tuple[tuple[str, ...], tuple[str, ...], list[str]]  # categories, tags, printed lines


def file_blocks(hits: Sequence[SearchHit]) -> list[Block]:
    """The hits of one file as blocks a reader takes in at a glance: each block is a run of
    adjacent lines (a match with its context, or neighbouring matches) in line order, with the
    categories and tags of the entries it shows; blocks come in rank order (the block holding
    the best-ranked matching line first). A hit without lines is a block of its own."""
    shown: dict[int, HitLine] = {}
    rank: dict[int, tuple[int, int]] = {}  # line -> (hit rank, line rank within the hit)
    owner: dict[int, int] = {}
    loose: list[tuple[tuple[int, int], int]] = []
    for n, hit in enumerate(hits):
        if not hit.lines:
            loose.append(((n, 0), n))
        for k, ln in enumerate(hit.lines):
            if ln.line not in shown or (ln.match and not shown[ln.line].match):
                shown[ln.line] = ln
                owner.setdefault(ln.line, n)
            if ln.match:
                rank[ln.line] = min(rank.get(ln.line, (n, k)), (n, k))
    runs: list[list[int]] = []
    for line in sorted(shown):
        if runs and line == runs[-1][-1] + 1:
            runs[-1].append(line)
        else:
            runs.append([line])
    ordered: list[tuple[tuple[int, int], list[int], int]] = []
    for run in runs:
        best = min((rank[x] for x in run if x in rank), default=(owner[run[0]], len(shown)))
        ordered.append((best, run, -1))
    ordered.extend((key, [], n) for key, n in loose)
    ordered.sort(key=lambda item: item[0])
    blocks = []
    for _key, run, lone in ordered:
        members = sorted({owner[x] for x in run} | ({lone} if lone >= 0 else set()))
        cats = tuple(dict.fromkeys(c for m in members for c in hits[m].categories))
        tags = tuple(dict.fromkeys(t for m in members for t in hits[m].tags))
        if lone >= 0:
            text = [f"**{hits[lone].ref or hits[lone].heading}:** {hits[lone].snippet}"]
        else:
            text = [format_line(shown[x]) for x in run]
        blocks.append((cats, tags, text))
    return blocks


def format_line(line: HitLine) -> str:
    """A shown line: ``**Line N:** text`` for a match (the seed's form), ``  Line N: text``
    (indented, not bold) for a line of context, so the two never look alike."""
    if line.match:
        return f"**Line {line.line}:** {line.text}"
    return f"  Line {line.line}: {line.text}"


def format_markdown(response: SearchResponse) -> str:
    """The seed's agent-optimised layout (results grouped by file, ``**Line N:**``, category
    tags, closing count line): inside a file, blocks of adjacent lines in line order, ranked
    (:func:`file_blocks`), context lines marked apart (:func:`format_line`); records
    (observations, summaries, prompts) get a labelled block each."""
    query = echo_query(response.query)
    window = f"\n({response.window})\n" if response.window else ""
    window += "".join(f"\n(not read whole: {path}: {why})\n" for path, why in response.unread)
    if not response.hits:
        return f'No results found for "{query}" in {response.scope}.\n' + window
    out = [f'## Results for: "{query}"', ""]
    for path, hits in group_by_file(response.hits):
        if hits[0].is_record:
            out.extend(_record_block(hits[0]))
            out.append("")
            continue
        out.append(f"### {path}")
        for n, (cats, tags, lines) in enumerate(file_blocks(hits)):
            if n:
                out.append("")  # blocks apart: lines not adjacent in the file never run together
            out.extend(f"<!-- @category: {c} -->" for c in cats)
            out.extend(f"<!-- @tag: {t} -->" for t in tags)
            out.extend(lines)
        out.append("")
    out.append("---")
    out.append(count_line(response))
    return "\n".join(out) + "\n" + window
