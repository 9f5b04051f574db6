"""The viewer's pages: each handler asks one service for data and renders one template.

Nothing here searches, cleans or formats on its own: search is ``services.search.engine`` (the CLI's
ranking), observations and sessions come from ``services.observations.retrieval``, memory files
from ``services.memory_files`` (private content already removed), the queue and its routing from
``services.analysis.corrections`` and ``services.analysis.routing``. Browsing opens the database
read-only.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.templating import Jinja2Templates

from conkeeper.domain.observations import OBSERVATION_TYPES
from conkeeper.domain.paths import ProjectLocation
from conkeeper.viewer.render import markdown_html
from conkeeper.viewer.security import CSRF_FIELD, Secrets

QUEUE_TARGETS = (
    ("patterns.md", "patterns.md (conventions, patterns)"),
    ("glossary.md", "glossary.md (terms)"),
    ("product-context.md", "product-context.md (preferences)"),
    ("active-context.md", "active-context.md (workflow)"),
    ("adr", "a new ADR in decisions/"),
)
PAGE_OBSERVATIONS = 100
PAGE_SESSIONS = 30
FLASHES_KEPT = 64  # notices a viewer run keeps for the page it redirects to


class Flashes:
    """The notices this viewer said after an action, each under a random id the redirect
    carries (``/review?flash=ID``). A page shows only what the server itself said: a message
    taken from the URL let a crafted link show "Approved by your security team" on the review
    page. An unknown id shows nothing; the oldest notice goes when more are kept."""

    def __init__(self) -> None:
        self._said: dict[str, str] = {}

    def put(self, message: str) -> str:
        """Keep ``message`` (already cleaned) and return the id a redirect names it by."""
        import secrets

        key = secrets.token_urlsafe(16)
        self._said[key] = message
        while len(self._said) > FLASHES_KEPT:
            del self._said[next(iter(self._said))]
        return key

    def get(self, key: str) -> str:
        """The notice kept under ``key`` (empty for an id this run never gave)."""
        return self._said.get(key, "")


@dataclass(frozen=True)
class ViewerContext:
    """What every page needs: the project shown, the global memory folder and this run's keys."""

    location: ProjectLocation
    global_memory_dir: Path
    keys: Secrets
    templates: Jinja2Templates
    # the agent variable set when an agent started this viewer (it could read the sign-in link
    # it printed): such a viewer never approves what is held for the user's review
    started_by: str | None = None
    flashes: Flashes = field(default_factory=Flashes)


def _ctx(request: Request) -> ViewerContext:
    context: ViewerContext = request.app.state.viewer
    return context


def _agent_behind(request: Request) -> str | None:
    """Why this request is an agent's: the viewer was started by one, or the process at the
    other end of the connection is one (``curl`` from its shell with the stolen link)."""
    started = _ctx(request).started_by
    if started is not None:
        return f"this viewer was started by an agent ({started})"
    client, server = request.scope.get("client"), request.scope.get("server")
    if not client or not server:
        return None
    from conkeeper.services.agent_peer import peer_marker

    found = peer_marker((str(client[0]), int(client[1])), (str(server[0]), int(server[1])))
    return None if found is None else f"{found} (an agent)"


def render(request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
    """Render template ``name`` with the values every page uses (project, CSRF token, nav)."""
    ctx = _ctx(request)
    values.update(
        project=ctx.location.name,
        csrf_field=CSRF_FIELD,
        csrf=ctx.keys.csrf,
        path=request.url.path,
    )
    response: HTMLResponse = ctx.templates.TemplateResponse(
        request, name, values, status_code=status
    )
    return response


@contextmanager
def _browse_store() -> Iterator[sqlite3.Connection | None]:
    """The database opened read-only, or ``None`` when ConKeeper has recorded nothing yet."""
    from conkeeper.domain.paths import db_path
    from conkeeper.services.workspace import project_store

    if not db_path().exists():
        yield None
        return
    with project_store(readonly=True) as conn:
        yield conn


def _project_id(conn: sqlite3.Connection, location: ProjectLocation) -> int | None:
    """The row filter for the viewed project (one that matches nothing when it is unseen)."""
    from conkeeper.services.workspace import project_scope

    return project_scope(conn, location=location).row_filter


def when(ms: int | None) -> str:
    """A timestamp in milliseconds as local ``YYYY-MM-DD HH:MM`` (a dash when unknown)."""
    if not ms:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000))


# ----------------------------------------------------------------------------- timeline


async def timeline_page(request: Request) -> Response:
    """Sessions and observations, newest first, filtered by type, concept, file or session."""
    from conkeeper.services.observations.retrieval import list_observations, list_sessions

    params = request.query_params
    filters = {k: params.get(k, "").strip() for k in ("type", "concept", "file", "session")}
    sessions: Sequence[object] = []
    observations: Sequence[object] = []
    error = ""
    with _browse_store() as conn:
        if conn is not None:
            project_id = _project_id(conn, _ctx(request).location)
            sessions = list_sessions(conn, project_id, PAGE_SESSIONS)
            try:
                observations = list_observations(
                    conn,
                    project_id,
                    session=filters["session"] or None,
                    type_=filters["type"] or None,
                    concept=filters["concept"] or None,
                    file=filters["file"] or None,
                    limit=PAGE_OBSERVATIONS,
                )
            except (LookupError, ValueError) as exc:
                error = str(exc).strip("'\"")
    return render(
        request,
        "timeline.html",
        sessions=sessions,
        observations=observations,
        filters=filters,
        types=OBSERVATION_TYPES,
        error=error,
        recorded=bool(sessions or observations),
    )


async def observation_page(request: Request) -> Response:
    """One observation's full record; ``?fragment=1`` returns only the record for expansion."""
    from conkeeper.services.observations.retrieval import get_observations

    obs_id = int(request.path_params["obs_id"])
    record = None
    with _browse_store() as conn:
        if conn is not None:
            found, _missing = get_observations(
                conn, [obs_id], _project_id(conn, _ctx(request).location)
            )
            record = found[0] if found else None
    if record is None:
        return render(
            request, "error.html", 404, message=f"No observation {obs_id} in this project."
        )
    name = (
        "observation_fragment.html" if request.query_params.get("fragment") else "observation.html"
    )
    return render(request, name, obs=record)


# ----------------------------------------------------------------------------- search


async def search_page(request: Request) -> Response:
    """Search memory (and sessions when asked) with the CLI's search service and ranking."""
    from conkeeper.services.search.engine import (
        SearchError,
        SearchRequest,
        count_line,
        group_by_file,
        search,
    )

    query = request.query_params.get("q", "").strip()
    with_sessions = request.query_params.get("sessions") == "1"
    with_global = request.query_params.get("global") == "1"
    groups: list[tuple[str, list[Any]]] = []
    summary = ""
    notices: list[str] = []
    error = ""
    if query:
        try:
            response = search(
                SearchRequest(
                    query,
                    cwd=_ctx(request).location.root,
                    include_global=with_global,
                    include_sessions=with_sessions,
                    limit=30,
                )
            )
        except SearchError as exc:
            error = str(exc)
        else:
            groups = group_by_file(response.hits)
            summary = count_line(response) if response.hits else ""
            notices = list(response.notices)
    return render(
        request,
        "search.html",
        query=query,
        with_sessions=with_sessions,
        with_global=with_global,
        groups=groups,
        summary=summary,
        notices=notices,
        error=error,
    )


# ----------------------------------------------------------------------------- memory files


def _memory_dir(request: Request, scope: str) -> Path:
    ctx = _ctx(request)
    return ctx.global_memory_dir if scope == "global" else ctx.location.memory_dir


async def memory_page(request: Request) -> Response:
    """The project's and the user's memory files."""
    from conkeeper.services.memory_files import list_memory_files

    files = list_memory_files(_ctx(request).location.root)
    scopes = [(scope, [f for f in files if f.scope == scope]) for scope in ("project", "global")]
    return render(request, "memory.html", scopes=scopes)


async def memory_file_page(request: Request) -> Response:
    """One memory file rendered as Markdown, private content removed, tags shown as labels."""
    from conkeeper.services.memory_files import MemoryAccessError, read_visible

    scope = "global" if request.query_params.get("scope") == "global" else "project"
    try:
        doc = read_visible(
            _ctx(request).location.root,
            request.query_params.get("path", ""),
            scope,
            withhold=False,  # the person's own view of the file
        )
    except MemoryAccessError as exc:
        return render(request, "error.html", 404, message=str(exc))
    return render(request, "memory_file.html", doc=doc, body=markdown_html(doc.text))


# ----------------------------------------------------------------------------- retros


async def retros_page(request: Request) -> Response:
    """Retrospectives (``sessions/*-retro.md``), newest first, each rendered with its backlog."""
    from conkeeper.services.memory_files import list_memory_files, read_visible

    root = _ctx(request).location.root
    retros = sorted(
        (
            f.path
            for f in list_memory_files(root, ("project",))
            if f.path.startswith("sessions/") and f.path.endswith("-retro.md")
        ),
        reverse=True,
    )
    chosen = request.query_params.get("path") or (retros[0] if retros else "")
    body = None
    if chosen in retros:
        body = markdown_html(read_visible(root, chosen, "project").text)
    return render(request, "retros.html", retros=retros, chosen=chosen, body=body)


# ----------------------------------------------------------------------------- queue


async def queue_page(request: Request) -> Response:
    """The corrections queue with approve (choosing the target file) and reject."""
    from conkeeper.domain.categories import MEMORY_CATEGORIES, classify
    from conkeeper.services.analysis.corrections import read_queue

    items = read_queue(_memory_dir(request, "project"))
    proposals = {item.line: classify(item.text).best_guess or "convention" for item in items}
    return render(
        request,
        "queue.html",
        items=items,
        keys={item.line: _queue_key(item) for item in items},
        rules={item.line: _stated_rule(item) for item in items},
        proposals=proposals,
        categories=MEMORY_CATEGORIES,
        targets=QUEUE_TARGETS,
        message=_ctx(request).flashes.get(request.query_params.get("flash", "")),
    )


def _stated_rule(item: Any) -> str:
    """The rule a queued item states, shown in the approve form for the person to keep or
    reword ("" when it states none: the person writes it)."""
    from conkeeper.services.analysis.routing import RoutingError, queued_rule

    try:
        return queued_rule(item)
    except RoutingError:
        return ""


async def queue_action(request: Request) -> Response:
    """Apply or reject one queued item through the same routing as the CLI, then go back."""
    from conkeeper.domain.messages import clean_message, disk_full_message
    from conkeeper.domain.textio import MemoryFileError
    from conkeeper.services.analysis.routing import (
        LEFT_IN_QUEUE,
        RoutingError,
        apply_item,
        reject_item,
    )

    form = await request.form()
    action = request.path_params["action"]
    try:
        line = int(str(form.get("line", "")))
        memory_dir = _memory_dir(request, "project")
        line = _line_now(memory_dir, line, str(form.get("key", "")))
        if action == "apply":
            target = str(form.get("target", ""))
            category = str(form.get("category", "")) or None
            if target == "adr":
                category = None  # an ADR is always a decision
            done = apply_item(
                memory_dir,
                line,
                target,
                category=category,
                text=str(form.get("text", "")).strip() or None,  # the person's wording
                source="user-viewer",
                by_agent=_agent_behind(request) is not None,
            )
            message = f"Applied to {done.target} as {done.category}: {done.text}"
        else:
            done = reject_item(memory_dir, line, source="user-viewer")
            message = "" if done.left_in_queue else f"Rejected: {done.item.text}"
        if done.left_in_queue:  # a person reworded or removed it meanwhile: never removed
            message = f"{message} {LEFT_IN_QUEUE}; the queue below shows it now.".lstrip()
    except ValueError:
        message = "That queue item is not valid; reload the queue."
    except (RoutingError, MemoryFileError) as exc:
        message = str(exc)
    except OSError as exc:  # a full disk is said as such; anything else is a crash page
        message = disk_full_message(exc) or ""
        if not message:
            raise

    return _redirect_with(request, "/queue", clean_message(message))


def _queue_key(item: Any) -> str:
    """What names a queued item across changes to the queue: its time, label and text."""
    from conkeeper.domain.corrections_queue import item_id

    return item_id(item, 16)


def _line_now(memory_dir: Path, line: int, key: str) -> int:
    """The line the item the person saw is on now: a page stays open for minutes, and an item
    applied or rejected meanwhile (another tab, the sync skill) moves the ones after it up, so
    its old line would name another item. Refused when the item is gone."""
    from conkeeper.services.analysis.corrections import read_queue
    from conkeeper.services.analysis.routing import RoutingError

    if not key:
        return line  # a form from before the key existed
    found = [item.line for item in read_queue(memory_dir) if _queue_key(item) == key]
    if not found:
        raise RoutingError("That item is no longer in the queue; nothing was changed.")
    return min(found, key=lambda n: (abs(n - line), n))


async def review_page(request: Request) -> Response:
    """Memory entries held for review (project and global) with approve and drop."""
    from conkeeper.services.review import list_held

    ctx = _ctx(request)
    items = list_held([ctx.location.memory_dir, ctx.global_memory_dir])
    return render(
        request,
        "review.html",
        items=[item.as_dict() for item in items],
        message=_ctx(request).flashes.get(request.query_params.get("flash", "")),
    )


async def review_action(request: Request) -> Response:
    """Approve (write with provenance) or drop one held entry, through the CLI's service."""
    from conkeeper.domain.messages import clean_message
    from conkeeper.services.review import ReviewError, approve, drop

    ctx = _ctx(request)
    form = await request.form()
    action = request.path_params["action"]
    wanted = str(form.get("id", ""))
    folders = [ctx.location.memory_dir, ctx.global_memory_dir]
    try:
        agent = _agent_behind(request) if action == "approve" else None
        if agent is not None:
            message = (
                f"{agent[:1].upper()}{agent[1:]}, so it cannot approve: open the viewer you "
                "started in your own terminal in your browser, or run 'conkeeper review "
                "approve ID' there."
            )
        elif action == "approve":
            item, status, path = approve(folders, wanted)
            done = {"saved": "written to", "kept": "kept in", "restored": "put back into"}.get(
                status, "already in"
            )
            message = f"Approved {item.id}: {done} {path} ({item.scope})."
        elif action == "drop":
            message = f"Dropped {drop(folders, wanted).id}."
        else:
            message = "Unknown action."
    except ReviewError as exc:
        message = str(exc)
    return _redirect_with(request, "/review", clean_message(message))


def _redirect_with(request: Request, page: str, message: str) -> RedirectResponse:
    """Go back to ``page`` with ``message`` kept by the server (:class:`Flashes`), the URL
    carrying only its id."""
    query = urlencode({"flash": _ctx(request).flashes.put(message)})
    return RedirectResponse(f"{page}?{query}", status_code=303)
