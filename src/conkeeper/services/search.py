"""Search over everything ConKeeper remembers, with results an agent can act on.

Why it exists: one engine behind every front door (``conkeeper search``, the portable
``tools/memory-search.sh``, skills, the MCP server) so ranking, privacy, filters and the output
layout are the same everywhere.

How a search runs (:func:`search`):

1. open the store (a damaged database is moved aside and rebuilt; a locked, read-only or newer one
   is replaced by an in-memory index for this run, with a notice);
2. refresh every root in scope — re-check file stamps, re-index what changed — so results are
   never stale (:func:`conkeeper.storage.index.refresh_root`);
3. turn the user's text into a safe FTS5 expression (:func:`build_match`): every term is quoted,
   so quotes, parentheses, ``AND``, ``-``, ``*``, ``:`` or NUL bytes can never raise a syntax
   error; ``"quoted phrases"``, ``prefix*``, ``OR`` between terms and identifiers
   (``parse_config``, ``parseConfig``, ``src/auth/token.py``) are understood;
4. ask every enabled *source* for hits, merge them by score, keep ``limit``.

Query language: words are ANDed; stemming makes ``running`` find ``run``; case never matters;
``"a b"`` is a phrase; ``word*`` a prefix; ``x OR y`` an alternative; a bare ``AND`` is ignored;
any other punctuation is text. At most :data:`MAX_TERMS` terms are used (a 100 KB paste is cut).

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
import importlib
import json
import re
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from conkeeper.domain.paths import locate_project
from conkeeper.storage.index import (
    IN_MEMORY,
    IndexRoot,
    IndexStore,
    RefreshStats,
    global_root,
    is_corruption,
    known_project_roots,
    memory_store,
    move_aside,
    open_index_store,
    project_root,
    refresh_root,
)
from conkeeper.storage.store import StoreError, describe_error

MAX_TERMS = 32
MAX_QUERY_ECHO = 200
MAX_LINE_CHARS = 300
DEFAULT_LIMIT = 20
FILE_SOURCES = ("memory", "session", "global")
# Rows of the session record (schema 3): found with --sessions, or alone with --observations.
RECORD_SOURCES = ("observation", "summary", "prompt")
EXTRA_SOURCE_MODULES: tuple[str, ...] = ("conkeeper.services.observations.search_source",)
HEADING_WEIGHT, BODY_WEIGHT, TERMS_WEIGHT = 4.0, 1.0, 0.5
RECENCY_BOOST = 0.25  # a file dated today scores up to 25% higher than an old one
RECENCY_HALF_DAYS = 30.0
_HL_OPEN, _HL_CLOSE = "\ue000", "\ue001"
_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]")
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W\d_A-Za-z]+")
_DAY_MS = 86_400_000


class SearchError(Exception):
    """The search cannot run (bad request, unusable database); one line for a person."""


# --------------------------------------------------------------------------- query parsing


@dataclass(frozen=True)
class QueryPlan:
    """A user's text turned into FTS5: ``match`` is safe to pass to ``MATCH``.

    ``needles`` are lower-case word fragments used to point at matching lines when FTS5's
    highlighter has nothing to mark (a stem, identifier part or category matched).
    """

    text: str
    match: str
    needles: tuple[str, ...]
    truncated: bool = False

    @property
    def empty(self) -> bool:
        """True when the text held nothing searchable (only punctuation, say)."""
        return not self.match


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def _term(raw: str, prefix: bool) -> tuple[str, list[str]] | None:
    """The FTS5 expression and needles for one raw word of the query."""
    words = _WORD.findall(raw)
    if not words:
        return None
    star = "*" if prefix else ""
    lowered = [w.lower() for w in words]
    if len(words) == 1 and _CAMEL.search(words[0]):  # parseConfig: whole, or its parts
        parts = [p.lower() for p in _CAMEL_PART.findall(words[0])]
        whole = _quote(lowered[0]) + star
        return f"{whole} OR {_quote(' '.join(parts))}{star}", [lowered[0], *parts]
    return _quote(" ".join(lowered)) + star, lowered


def _tokens(text: str) -> list[tuple[str, bool]]:
    """Split query text into ``(token, is_phrase)``; unmatched quotes are plain text."""
    out: list[tuple[str, bool]] = []
    parts = text.split('"')
    closed = len(parts) % 2 == 1
    for i, part in enumerate(parts):
        phrase = i % 2 == 1 and (closed or i < len(parts) - 1)
        if phrase:
            out.append((part, True))
        else:
            out.extend((word, False) for word in part.split())
    return out


def build_match(text: str, max_terms: int = MAX_TERMS) -> QueryPlan:
    """Parse ``text`` (any string at all) into a :class:`QueryPlan`; never raises."""
    clean = text.replace("\x00", " ")
    pieces: list[str] = []
    needles: list[str] = []
    pending_or = False
    truncated = False
    for token, phrase in _tokens(clean):
        if not phrase and token in ("AND", "OR"):
            pending_or = token == "OR" and bool(pieces)
            continue
        if len(pieces) >= max_terms:
            truncated = True
            break
        prefix = not phrase and token.endswith("*")
        term = _term(token.rstrip("*") if prefix else token, prefix)
        if term is None:
            continue
        if pending_or:
            pieces[-1] = f"{pieces[-1]} OR {term[0]}"
        else:
            pieces.append(term[0])
        needles.extend(term[1])
        pending_or = False
    match = " AND ".join(f"({p})" if " OR " in p else p for p in pieces)
    return QueryPlan(text, match, tuple(dict.fromkeys(needles)), truncated)


# --------------------------------------------------------------------------- requests and hits


@dataclass(frozen=True)
class SearchRequest:
    """Everything a front door can ask for; defaults are the seed's: project memory only."""

    query: str
    cwd: Path = field(default_factory=Path.cwd)
    include_global: bool = False
    include_sessions: bool = False
    kinds: tuple[str, ...] = ()  # restrict to these sources (implies including them)
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    since_ms: int | None = None
    all_projects: bool = False
    limit: int = DEFAULT_LIMIT
    context: int = 1
    sessions_days: int = 30
    extra_sources: tuple[str, ...] = ()  # e.g. ("observation",) once such a source exists

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


@dataclass(frozen=True)
class HitLine:
    """One printed line of a hit: a match or a line of context after one."""

    line: int
    text: str
    match: bool


@dataclass(frozen=True)
class SearchHit:
    """One result: an entry of a memory file, or a row of another source.

    ``path`` is what people read (``.claude/memory/x.md``, ``~/.claude/memory/x.md``); ``line`` is
    the first matching line (0 for sources without lines); ``score`` is higher-is-better.
    """

    source: str
    path: str
    line: int
    heading: str
    snippet: str
    categories: tuple[str, ...]
    tags: tuple[str, ...]
    score: float
    lines: tuple[HitLine, ...] = ()
    line_start: int = 0
    line_end: int = 0
    project: str = ""
    ref: str = ""  # a stable id for non-file sources (e.g. "obs:42")
    time_ms: int = 0
    label: str = ""  # how a record is introduced, e.g. "observation #42 (bugfix) — Fix x"

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


@dataclass
class SearchResponse:
    """Hits in relevance order plus what a front door needs to present them."""

    query: str
    scope: str
    hits: list[SearchHit]
    notices: list[str] = field(default_factory=list)
    refreshed: RefreshStats = field(default_factory=RefreshStats)
    truncated_query: bool = False

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
            "results": [h.to_json() for h in self.hits],
            "notices": list(self.notices),
        }


# --------------------------------------------------------------------------- sources


@dataclass
class SearchContext:
    """What a source gets: the open database, the parsed query, the request and its roots."""

    conn: sqlite3.Connection
    plan: QueryPlan
    request: SearchRequest
    roots: dict[int, IndexRoot]  # index_roots.id -> root, already refreshed
    now_ms: int
    fetch: int  # how many hits a source should return at most


class SearchSource(Protocol):
    """A kind of thing search can find. ``names`` are the source names it answers for."""

    names: tuple[str, ...]

    def search(self, ctx: SearchContext) -> list[SearchHit]:
        """Hits for ``ctx.plan`` within ``ctx.request``'s filters, best first."""
        ...


_SOURCES: list[SearchSource] = []


def register_source(source: SearchSource) -> None:
    """Add a source (idempotent by class); later helpers call this for observations etc."""
    if not any(type(s) is type(source) for s in _SOURCES):
        _SOURCES.append(source)


def _load_extra_sources(request: SearchRequest) -> None:
    """Import the optional source modules, only when the request wants a non-file source."""
    if all(name in FILE_SOURCES for name in request.sources):
        return
    for module in EXTRA_SOURCE_MODULES:
        with contextlib.suppress(ModuleNotFoundError):
            importlib.import_module(module)


def recency_factor(now_ms: int, time_ms: int) -> float:
    """The recency boost in Python, equal to :func:`recency_factor_sql` (between 1 and
    ``1 + RECENCY_BOOST``); lets a source rank a few candidate rows itself."""
    return 1.0 + RECENCY_BOOST / (1.0 + max(0, now_ms - time_ms) / (_DAY_MS * RECENCY_HALF_DAYS))


def recency_factor_sql(time_column: str) -> str:
    """SQL for the mild recency boost (``:now`` bound to Unix ms); shared with other sources."""
    return (
        f"(1.0 + {RECENCY_BOOST} / (1.0 + max(0, :now - {time_column}) "
        f"/ {_DAY_MS * RECENCY_HALF_DAYS:.1f}))"
    )


class MemoryFileSource:
    """Entries of memory files: project memory, session files and global memory."""

    names: tuple[str, ...] = FILE_SOURCES

    def search(self, ctx: SearchContext) -> list[SearchHit]:
        """Rank entries with BM25 (heading above body) times the recency factor."""
        kinds = [k for k in ctx.request.sources if k in FILE_SOURCES]
        if not kinds or not ctx.roots:
            return []
        rows = self._rank(ctx, kinds)
        if not rows:
            return []
        highlighted = self._highlight(ctx, [r["id"] for r in rows])
        hits = []
        for row in rows:
            hit = self._hit(ctx, row, highlighted.get(row["id"], ""))
            if hit is not None:
                hits.append(hit)
        return hits

    def _rank(self, ctx: SearchContext, kinds: list[str]) -> list[sqlite3.Row]:
        req = ctx.request
        where = [
            "index_fts MATCH :match",
            f"f.root_id IN ({','.join(str(i) for i in ctx.roots)})",
            f"f.kind IN ({','.join(repr(k) for k in kinds)})",
            "(f.kind != 'session' OR f.file_time >= :sessions_from)",
        ]
        params: dict[str, object] = {
            "match": ctx.plan.match,
            "now": ctx.now_ms,
            "limit": ctx.fetch,
            "sessions_from": _sessions_from(req, ctx.now_ms),
        }
        if req.since_ms is not None:
            where.append("f.file_time >= :since")
            params["since"] = req.since_ms
        for i, name in enumerate(req.categories):
            where.append(f"e.categories LIKE :cat{i}")
            params[f"cat{i}"] = f"% {name.lower()} %"
        for i, name in enumerate(req.tags):
            where.append(f"e.tags LIKE :tag{i}")
            params[f"tag{i}"] = f"% {name.lower()} %"
        sql = (
            "SELECT e.id, e.line_start, e.line_end, e.heading_path, e.spans, f.rel_path, f.kind, "
            f"f.file_time, f.root_id, bm25(index_fts, {HEADING_WEIGHT}, {BODY_WEIGHT}, "
            f"{TERMS_WEIGHT}) * {recency_factor_sql('f.file_time')} AS score "
            "FROM index_fts JOIN index_entries e ON e.id = index_fts.rowid "
            "JOIN index_files f ON f.id = e.file_id "
            f"WHERE {' AND '.join(where)} ORDER BY score LIMIT :limit"
        )
        return ctx.conn.execute(sql, params).fetchall()

    def _highlight(self, ctx: SearchContext, ids: list[int]) -> dict[int, str]:
        sql = (
            "SELECT rowid, highlight(index_fts, 1, :open, :close) FROM index_fts "
            f"WHERE index_fts MATCH :match AND rowid IN ({','.join(str(i) for i in ids)})"
        )
        params = {"open": _HL_OPEN, "close": _HL_CLOSE, "match": ctx.plan.match}
        return {int(r[0]): r[1] for r in ctx.conn.execute(sql, params)}

    def _hit(self, ctx: SearchContext, row: sqlite3.Row, body: str) -> SearchHit | None:
        spans = json.loads(row["spans"]) if row["spans"] else []
        start = int(row["line_start"])
        texts = body.split("\n")
        matched = _matching_lines(texts, ctx.plan.needles)
        if ctx.request.categories or ctx.request.tags:  # keep lines the labels qualify
            matched = [i for i in matched if _line_labels_ok(spans, start + i, ctx.request)]
            if not matched:
                return None
        lines = _with_context(texts, matched, start, ctx.request.context)
        first = lines[0] if lines else HitLine(start, "", True)
        cats, tags = _labels_for(spans, [ln.line for ln in lines if ln.match])
        root = ctx.roots[int(row["root_id"])]
        heading_path = row["heading_path"]
        return SearchHit(
            source=row["kind"],
            path=f"{root.display}/{row['rel_path']}",
            line=first.line,
            heading=heading_path.rsplit(" > ", 1)[-1] if heading_path else "",
            snippet=first.text,
            categories=cats,
            tags=tags,
            score=-float(row["score"]),
            lines=tuple(lines),
            line_start=start,
            line_end=int(row["line_end"]),
            project=root.project,
            time_ms=int(row["file_time"]),
        )


register_source(MemoryFileSource())


def _sessions_from(req: SearchRequest, now: int) -> int:
    """Oldest session-file date in scope: ``--since``, else the ``sessions_days`` window."""
    if req.since_ms is not None:
        return req.since_ms
    return 0 if req.sessions_days <= 0 else now - req.sessions_days * _DAY_MS


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


def _with_context(texts: list[str], matched: list[int], start: int, context: int) -> list[HitLine]:
    """Matching lines plus up to ``context`` non-blank lines after each, in line order."""
    chosen: dict[int, bool] = {}
    for i in matched:
        chosen[i] = True
        for j in range(i + 1, min(len(texts), i + 1 + context)):
            if texts[j].strip() and j not in chosen:
                chosen[j] = False
    return [
        HitLine(start + i, _display_line(texts[i]), chosen[i])
        for i in sorted(chosen)
        if i < len(texts)
    ]


def _display_line(text: str) -> str:
    clean = text.replace(_HL_OPEN, "").replace(_HL_CLOSE, "").rstrip()
    return clean if len(clean) <= MAX_LINE_CHARS else clean[: MAX_LINE_CHARS - 1] + "…"


def _labels_at(spans: list[list[Any]], line: int) -> tuple[set[str], set[str]]:
    # A span is a JSON-decoded [line_start, line_end, categories, tags] from the index.
    cats: set[str] = set()
    tags: set[str] = set()
    for span in spans:
        if int(span[0]) <= line <= int(span[1]):
            cats.update(span[2])
            tags.update(span[3])
    return cats, tags


def _line_labels_ok(spans: list[list[Any]], line: int, req: SearchRequest) -> bool:
    cats, tags = _labels_at(spans, line)
    return all(c.lower() in cats for c in req.categories) and all(
        t.lower() in tags for t in req.tags
    )


def _labels_for(spans: list[list[Any]], lines: Iterable[int]) -> tuple[tuple[str, ...], ...]:
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
        if location.memory_dir.is_dir():
            roots.append(project_root(conn, location))
        if req.all_projects:
            seen = {r.project_id for r in roots}
            roots.extend(r for r in known_project_roots(conn, location) if r.project_id not in seen)
    if "global" in wanted:
        roots.append(global_root())
    return roots


def _refresh(
    conn: sqlite3.Connection, roots: list[IndexRoot]
) -> tuple[dict[int, IndexRoot], RefreshStats]:
    total = RefreshStats()
    by_id: dict[int, IndexRoot] = {}
    for root in roots:
        stats = refresh_root(conn, root)
        total.add(stats)
        by_id[stats.root_id] = root
    return by_id, total


def search(request: SearchRequest, store: IndexStore | None = None) -> SearchResponse:
    """Run ``request`` against fresh data and return ranked hits (never a stale result).

    Raises :class:`SearchError` for an empty query or a database that cannot be used even in
    memory; everything else (odd characters, huge queries, a damaged or locked database) is
    handled, with notices in the response.
    """
    if not request.query or not request.query.replace("\x00", "").strip():
        raise SearchError("the query is empty; give a word or phrase to search for")
    plan = build_match(request.query)
    own = store is None
    try:
        active = store or open_index_store(fallback=True)
    except (StoreError, sqlite3.DatabaseError, OSError) as exc:
        raise SearchError(str(exc)) from None
    try:
        return _search_with_recovery(active, request, plan)
    finally:
        if own:
            active.conn.close()


def _search_with_recovery(
    store: IndexStore, request: SearchRequest, plan: QueryPlan
) -> SearchResponse:
    """Run once; on a damaged database rebuild it, on a locked or read-only one go in-memory."""
    try:
        return _run(store, request, plan)
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
        return _run(fresh, request, plan)
    except sqlite3.DatabaseError as exc:
        raise SearchError(describe_error(fresh.path, exc)) from None
    finally:
        fresh.conn.close()


def _run(store: IndexStore, request: SearchRequest, plan: QueryPlan) -> SearchResponse:
    _load_extra_sources(request)
    roots, refreshed = _refresh(store.conn, _roots(store.conn, request))
    response = SearchResponse(
        request.query,
        scope_description(request),
        [],
        list(store.notices),
        refreshed,
        plan.truncated,
    )
    if plan.truncated:
        response.notices.append(f"the query was cut to its first {MAX_TERMS} terms")
    if plan.empty:
        return response
    fetch = max(1, request.limit) * (3 if request.categories or request.tags else 1)
    ctx = SearchContext(store.conn, plan, request, roots, int(time.time() * 1000), fetch)
    hits: list[SearchHit] = []
    for source in _SOURCES:
        if set(source.names) & set(request.sources):
            hits.extend(source.search(ctx))
    hits.sort(key=lambda h: h.score, reverse=True)
    response.hits = hits[: max(1, request.limit)]
    return response


# --------------------------------------------------------------------------- presenting


def echo_query(query: str) -> str:
    """The query as shown in headers: one line, NULs removed, at most 200 characters."""
    flat = " ".join(query.replace("\x00", " ").split())
    return flat if len(flat) <= MAX_QUERY_ECHO else flat[: MAX_QUERY_ECHO - 1] + "…"


def group_by_file(hits: Sequence[SearchHit]) -> list[tuple[str, list[SearchHit]]]:
    """Files in order of their best hit; within a file, hits in line order. Each record
    (observation, summary, prompt) is a group of its own, keyed by its ``ref``."""
    groups: dict[str, list[SearchHit]] = {}
    for hit in hits:
        groups.setdefault(hit.ref if hit.is_record else hit.path, []).append(hit)
    return [(path, sorted(items, key=lambda h: (h.line, h.ref))) for path, items in groups.items()]


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


def format_markdown(response: SearchResponse) -> str:
    """The seed's agent-optimised layout (results grouped by file, closing count line); records
    (observations, summaries, prompts) get a labelled block each."""
    query = echo_query(response.query)
    if not response.hits:
        return f'No results found for "{query}" in {response.scope}.\n'
    out = [f'## Results for: "{query}"', ""]
    for path, hits in group_by_file(response.hits):
        if hits[0].is_record:
            out.extend(_record_block(hits[0]))
            out.append("")
            continue
        out.append(f"### {path}")
        for hit in hits:
            out.extend(f"<!-- @category: {c} -->" for c in hit.categories)
            out.extend(f"<!-- @tag: {t} -->" for t in hit.tags)
            if hit.lines:
                out.extend(f"**Line {ln.line}:** {ln.text}" for ln in hit.lines)
            else:
                out.append(f"**{hit.ref or hit.heading}:** {hit.snippet}")
        out.append("")
    out.append("---")
    out.append(count_line(response))
    return "\n".join(out) + "\n"
