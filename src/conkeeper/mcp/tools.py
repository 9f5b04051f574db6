"""What each MCP tool does, without the MCP SDK: call one service, shape a compact payload.

Why it exists: the server module (:mod:`conkeeper.mcp.server`) only wires these functions to the
SDK, so the tools' behaviour — scope, limits, privacy on the way out, the token estimate every
answer carries — is plain Python that the rest of the code base can read and test. Every
function takes the server's project directory and the tool's arguments, returns a JSON-ready
dict ending with ``estimated_tokens`` (like the CLI's ``--json``), and raises
:class:`ToolInputError` with one sentence for anything a caller can fix.

Privacy: every text that leaves comes from a service that already applies the privacy module
(the search index holds privacy-blanked text, observations were cleaned when captured, memory
files are read through :func:`conkeeper.services.memory_files.read_visible`), and the payload is
cleaned again on the way out: record texts with
:func:`conkeeper.domain.privacy.clean_captured`, memory text with secret redaction.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from conkeeper.domain.tokens import estimate_tokens

SEARCH_LIMIT = 10
MAX_SEARCH_LIMIT = 50
MAX_IDS = 50
MAX_NEIGHBOURS = 50
MAX_SESSIONS = 100
MAX_SNIPPET = 240


class ToolInputError(Exception):
    """A tool call that cannot be answered; the message is one sentence for the agent."""


def _finish(payload: dict[str, Any], clean: Callable[[str], str]) -> dict[str, Any]:
    """``payload`` with every string cleaned and the estimated token cost of the answer."""
    cleaned: dict[str, Any] = _clean(payload, clean)
    cleaned["estimated_tokens"] = estimate_tokens(json.dumps(cleaned, ensure_ascii=False))
    return cleaned


def _clean(value: Any, clean: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {key: _clean(item, clean) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(item, clean) for item in value]
    return value


def _clean_record(text: str) -> str:
    from conkeeper.domain.privacy import clean_captured

    return clean_captured(text) or ""


STORED_HELD_MARK = (
    "[held: this stored text reads like an instruction; the user can read it with "
    "'conkeeper show', 'conkeeper summary' or 'conkeeper viewer']"
)
_SHORTEST_ORDER = 12  # characters: ids, dates, kinds and titles' single words are never judged


def _clean_stored(text: str) -> str:
    """A stored record's text as an agent may read it: cleaned, and held when it reads like an
    instruction. Observations and summaries keep what a tool returned; SessionStart never
    injects such text, so an agent asking for the record by id gets a marker instead."""
    cleaned = _clean_record(text)
    if len(cleaned) < _SHORTEST_ORDER:
        return cleaned
    from conkeeper.services.quarantine import reads_as_order

    return STORED_HELD_MARK if reads_as_order(cleaned) else cleaned


_FIELDS_PAIRED = 8  # a record with more texts has only its neighbouring ones read together
# what names a record rather than saying something: never judged, never replaced
_RECORD_KEYS = frozenset(
    {"id", "session_id", "host_session_id", "project", "scope", "extractor", "content_hash"}
)


def _held_together(record: Any) -> Any:
    """``record`` (an observation or a summary) with both texts of each pair that reads like
    an order together, though neither does alone, replaced by the marker (one order split
    over two facts, or over a summary's request and next steps). A text that reads like one
    alone is marked by :func:`_clean_stored`; a record is one piece of memory, read together
    here."""
    if not isinstance(record, dict):
        return record
    from conkeeper.services.quarantine import reads_as_order, reads_as_split_order

    kept = {key: value for key, value in record.items() if key not in _RECORD_KEYS}
    texts = [v for v in _texts_of(kept) if len(v) >= _SHORTEST_ORDER and not reads_as_order(v)]
    wide = len(texts) <= _FIELDS_PAIRED
    held: set[str] = set()
    for index, one in enumerate(texts):
        for two in texts[index + 1 :] if wide else texts[index + 1 : index + 2]:
            if reads_as_split_order(one, two):
                held.update((one, two))
    if not held:
        return record
    return {
        key: value if key in _RECORD_KEYS else _mark_texts(value, held)
        for key, value in record.items()
    }


def _texts_of(value: Any) -> list[str]:
    """The record's cleaned texts: string values and the strings of its lists, in order."""
    if isinstance(value, str):
        return [_clean_record(value)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts_of(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _texts_of(item)]
    return []


def _mark_texts(value: Any, held: set[str]) -> Any:
    if isinstance(value, str):
        return STORED_HELD_MARK if _clean_record(value) in held else value
    if isinstance(value, dict):
        return {key: _mark_texts(item, held) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_mark_texts(item, held) for item in value]
    return value


def _redact(text: str) -> str:
    from conkeeper.domain.secrets import redact

    return redact(text)


def _bounded(name: str, value: int, low: int, high: int) -> int:
    if value < low or value > high:
        raise ToolInputError(f"'{name}' must be between {low} and {high} (got {value}).")
    return value


@contextlib.contextmanager
def _store() -> Iterator[sqlite3.Connection]:
    """The user's database for one call; store problems become one sentence."""
    from conkeeper.services.workspace import project_store
    from conkeeper.storage.store import StoreError

    try:
        with project_store() as conn:
            yield conn
    except StoreError as exc:
        raise ToolInputError(str(exc)) from None
    except sqlite3.DatabaseError as exc:
        raise ToolInputError(f"the ConKeeper database could not answer: {exc}") from None


def _scoped(conn: sqlite3.Connection, cwd: Path, all_projects: bool) -> tuple[int | None, str]:
    """``(project_id filter, label)`` for the server's project, or every project."""
    from conkeeper.services.workspace import project_scope

    scope = project_scope(conn, all_projects=all_projects, cwd=cwd)
    return scope.row_filter, scope.label


# --------------------------------------------------------------------------- search


def search(
    cwd: Path,
    query: str,
    *,
    limit: int = SEARCH_LIMIT,
    include_global: bool = False,
    include_sessions: bool = False,
    category: str | None = None,
    all_projects: bool = False,
    all_time: bool = False,
    team: bool = False,
) -> dict[str, Any]:
    """A compact index of hits (id, where, a short snippet), ranked by the search service.

    Its notices say when the session window left older session files out, as the CLI does,
    so an agent knows to ask again with ``all_time``, and name memory files that could not be
    read whole (invalid UTF-8 read with replacements, or skipped for size or permissions). With
    ``team``, the team server's hits for this project follow, each with its ``author``
    (``source`` "team"; a notice when the team could not be asked).
    """
    from conkeeper.services.search.engine import SearchError, SearchRequest
    from conkeeper.services.search.engine import search as run_search

    _bounded("limit", limit, 1, MAX_SEARCH_LIMIT)
    request = SearchRequest(
        query=query,
        cwd=cwd,
        include_global=include_global,
        include_sessions=include_sessions,
        categories=(category.strip().lower(),) if category and category.strip() else (),
        all_projects=all_projects,
        limit=limit,
        context=0,
        sessions_days=0 if all_time else _sessions_days(cwd) if include_sessions else 30,
    )
    try:
        response = run_search(request)
    except SearchError as exc:
        raise ToolInputError(str(exc)) from None
    hits = [_compact_hit(hit) for hit in response.hits]
    notices = [
        *response.notices,
        *_window_notice(response.window),
        *(f"not read whole: {path}: {why}" for path, why in response.unread),
    ]
    if team:
        hits += _team_hits(cwd, query, limit, notices)
    payload = {
        "query": response.query,
        "scope": response.scope,
        "count": len(hits),
        "hits": hits,
        "notices": notices,
        "next": "read_memory(path) for a memory file; get_observations(ids) for obs:N hits; "
        "summary(session) for summary:N hits",
    }
    return _finish(payload, _redact)


def _team_hits(cwd: Path, query: str, limit: int, notices: list[str]) -> list[dict[str, Any]]:
    """The team server's hits for this project as index lines with their author; text written
    by teammates' agents, marked as such (a notice, and each hit held as SessionStart's team
    block holds a teammate's line)."""
    from conkeeper.services.team.search import team_search

    found = team_search(cwd, query, limit)
    if found.error:
        notices.append(f"team search: {found.error}")
    from conkeeper.services.quarantine import TEAM_NOTICE, hold_team_hit

    if found.hits:
        notices.append(TEAM_NOTICE)
    items = []
    for hit in map(hold_team_hit, found.hits):
        snippet = " ".join(str(hit["subtitle"] or hit["narrative"]).split())
        items.append(
            {
                "id": f"team:{hit['uid'][:16]}",
                "source": "team",
                "author": hit["author"],
                "type": hit["type"],
                "title": hit["title"],
                "snippet": snippet[: MAX_SNIPPET - 1] + "…"
                if len(snippet) > MAX_SNIPPET
                else snippet,
                "facts": hit["facts"][:5],
                "project": hit["project"],
                "score": hit.get("score", 0),
            }
        )
    return items


def _window_notice(window: str) -> list[str]:
    """The service's "N older session files not searched" line, worded for a tool call."""
    if not window:
        return []
    return [window.split(";")[0] + "; call search again with all_time=true to include them"]


def _sessions_days(cwd: Path) -> int:
    from conkeeper.domain.config import load_config
    from conkeeper.domain.paths import locate_project

    return int(load_config(locate_project(cwd).root).config.sessions_days)


def _compact_hit(hit: Any) -> dict[str, Any]:
    """One line of the index: a stable id, its kind, where it is, and a short snippet."""
    snippet = " ".join(hit.snippet.split())
    if len(snippet) > MAX_SNIPPET:
        snippet = snippet[: MAX_SNIPPET - 1] + "…"
    item: dict[str, Any] = {
        "id": hit.ref or f"{hit.path}:{hit.line}",
        "source": hit.source,
        "path": hit.path,
        "line": hit.line,
        "title": hit.label or hit.heading,
        "snippet": snippet,
        "score": round(hit.score, 4),
    }
    if hit.categories:
        item["categories"] = list(hit.categories)
    if hit.project:
        item["project"] = hit.project
    return item


# --------------------------------------------------------------------------- the session record


def sessions(
    cwd: Path, *, limit: int = 20, offset: int = 0, all_projects: bool = False
) -> dict[str, Any]:
    """Level 1: recent sessions with titles, newest first. A title is a session's first
    prompt (or an imported export's text): one that reads like an order answers a marker."""
    from conkeeper.services.observations.retrieval import list_sessions

    _bounded("limit", limit, 1, MAX_SESSIONS)
    if offset < 0:
        raise ToolInputError(f"'offset' cannot be negative (got {offset}).")
    with _store() as conn:
        project_id, label = _scoped(conn, cwd, all_projects)
        items = list_sessions(conn, project_id, limit, offset)
    return _finish({"level": 1, "scope": label, "sessions": items}, _clean_stored)


def summary(cwd: Path, session: str, *, all_projects: bool = False) -> dict[str, Any]:
    """Level 2: one session's summary (``summary`` is null when none was made yet)."""
    from conkeeper.services.observations.retrieval import get_summary
    from conkeeper.storage.observations import SessionNotFound

    with _store() as conn:
        project_id, label = _scoped(conn, cwd, all_projects)
        try:
            data = get_summary(conn, session, project_id)
        except SessionNotFound as exc:
            raise ToolInputError(f"{exc} in {label}.") from None
    if isinstance(data, dict) and isinstance(data.get("summary"), dict):
        data = {**data, "summary": _held_together(data["summary"])}
    return _finish({"level": 2, "scope": label, **data}, _clean_stored)


def get_observations(cwd: Path, ids: list[int], *, all_projects: bool = False) -> dict[str, Any]:
    """Level 5: full observations by id, in the order asked, and the ids not found."""
    from conkeeper.services.observations.retrieval import get_observations as fetch

    if not ids:
        raise ToolInputError("give at least one observation id, e.g. ids=[42].")
    if len(ids) > MAX_IDS:
        raise ToolInputError(f"at most {MAX_IDS} ids per call (got {len(ids)}).")
    with _store() as conn:
        project_id, label = _scoped(conn, cwd, all_projects)
        found, missing = fetch(conn, list(dict.fromkeys(ids)), project_id)
    observations = [_held_together(item) for item in found]
    payload = {"level": 5, "scope": label, "observations": observations, "missing": missing}
    return _finish(payload, _clean_stored)


def timeline(
    cwd: Path, anchor: int, *, before: int = 5, after: int = 5, all_projects: bool = False
) -> dict[str, Any]:
    """Observation titles around one observation, in time order, within its project."""
    from conkeeper.services.observations.retrieval import timeline as around

    _bounded("before", before, 0, MAX_NEIGHBOURS)
    _bounded("after", after, 0, MAX_NEIGHBOURS)
    with _store() as conn:
        project_id, label = _scoped(conn, cwd, all_projects)
        try:
            data = around(conn, anchor, project_id, before, after)
        except LookupError:
            raise ToolInputError(f"no observation {anchor} in {label}.") from None
    items = data.get("items") if isinstance(data, dict) else None
    if isinstance(items, list):
        data = {**data, "items": _held_neighbours(items)}
    return _finish({"scope": label, **data}, _clean_stored)


def _held_neighbours(items: list[Any]) -> list[Any]:
    """Timeline items with the titles of two neighbours that read like an order together
    (though neither does alone) replaced by the marker, as SessionStart's index leaves them
    out: one order split over two observations."""
    from conkeeper.services.quarantine import reads_as_order, reads_as_split_order

    titles = [
        _clean_record(str(item.get("title") or "")) if isinstance(item, dict) else ""
        for item in items
    ]
    alone = [len(t) >= _SHORTEST_ORDER and reads_as_order(t) for t in titles]
    held: set[int] = set()
    for index in range(len(titles) - 1):
        one, two = titles[index], titles[index + 1]
        if (
            one
            and two
            and not (alone[index] or alone[index + 1])
            and reads_as_split_order(one, two)
        ):
            held.update((index, index + 1))
    return [
        {**item, "title": STORED_HELD_MARK} if index in held else item
        for index, item in enumerate(items)
    ]


# --------------------------------------------------------------------------- memory files


def read_memory(cwd: Path, path: str, scope: str = "project") -> dict[str, Any]:
    """One memory file's visible text (private lines removed, credentials redacted)."""
    from conkeeper.services.memory_files import MemoryAccessError, read_visible

    try:
        memory = read_visible(cwd, path, scope)
    except MemoryAccessError as exc:
        raise ToolInputError(str(exc)) from None
    payload = {
        "scope": memory.scope,
        "path": memory.path,
        "kind": memory.kind,
        "text": memory.text,
        "private_file": memory.private_file,
        "hidden_lines": memory.hidden_lines,
        "held_lines": memory.held_lines,
    }
    return _finish(payload, _redact)


def list_memory(cwd: Path) -> list[dict[str, str]]:
    """The memory files an agent may read (project first, then global)."""
    from conkeeper.services.memory_files import list_memory_files

    return [
        {"scope": ref.scope, "path": ref.path, "kind": ref.kind} for ref in list_memory_files(cwd)
    ]


def remember(
    cwd: Path, text: str, category: str, file: str, scope: str = "project"
) -> dict[str, Any]:
    """Save an entry with its category tag to a memory file, or hold it for the user's review
    (:mod:`conkeeper.services.remember`: the same engine and answer as ``conkeeper remember``).

    ``status`` is ``saved``, ``held`` (instruction-shaped text, or any agent write to global
    memory: it waits in ``conkeeper review`` with its ``reasons``) or ``duplicate``; a refusal
    (credential, private text, unknown category or file) is a tool error with its reason.
    """
    from conkeeper.services.memory_files import MemoryAccessError, memory_root
    from conkeeper.services.remember import remember as remember_entry

    try:
        root = memory_root(cwd, scope)
    except MemoryAccessError as exc:
        raise ToolInputError(str(exc)) from None
    from conkeeper.services.workspace import current_project

    result = remember_entry(
        root,
        file,
        text,
        category.strip().lower(),
        scope=scope,
        source="agent-mcp",
        project=current_project(cwd),
    )
    if result.status == "refused":
        raise ToolInputError(f"{(result.reason or 'refused').rstrip('.')}.")
    return _finish(result.as_dict(), _redact)
