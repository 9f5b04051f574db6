"""The viewer application: routes, templates, the security guard, and the server that runs it.

``conkeeper viewer`` builds the app with :func:`create_app` and runs it with :func:`serve` on a
socket bound to 127.0.0.1 only, for as long as the command runs (no daemon). Templates are
rendered on the server with autoescaping, and every value a template prints passes through the
privacy module first (Jinja's ``finalize``), so even a record stored before a privacy fix cannot
show a private span or a secret.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from conkeeper.domain.paths import ProjectLocation
from conkeeper.viewer import pages
from conkeeper.viewer.security import Guard, Secrets, allowed_hosts

HERE = Path(__file__).resolve().parent
HOST = "127.0.0.1"


def shown(value: Any) -> Any:
    """What a template may print for ``value``: strings cleaned by the privacy module."""
    if value is None:
        return ""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return _cleaned(value)


@lru_cache(maxsize=65536)
def _cleaned(text: str) -> str:
    """The privacy module's cleaning of one printed string, remembered: pages repeat them."""
    from conkeeper.domain.privacy import clean_captured

    return clean_captured(text) or ""


def _templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.finalize = shown
    templates.env.globals["when"] = pages.when
    return templates


def _error_page(templates: Jinja2Templates) -> Callable[[int, str], Any]:
    async def refuse(status: int, sentence: str) -> Response:
        from conkeeper.domain.messages import clean_message

        body = templates.get_template("error.html").render(
            message=clean_message(sentence), bare=True
        )
        return HTMLResponse(body, status_code=status)

    return refuse


def create_app(
    location: ProjectLocation,
    global_memory_dir: Path,
    keys: Secrets,
    port: int,
    started_by: str | None = None,
) -> Guard:
    """The viewer for ``location``'s project, guarded for ``127.0.0.1:port`` and ``keys``;
    ``started_by``: why an agent started it (``agent_process.agent_marker``; it then never
    approves a held entry)."""
    templates = _templates()
    refuse = _error_page(templates)

    async def on_http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        sentence = "That page does not exist." if status == 404 else "Request not allowed."
        response: Response = await refuse(status, sentence)
        return response

    async def on_crash(request: Request, exc: Exception) -> Response:
        from conkeeper.domain.messages import disk_full_message
        from conkeeper.storage.logfile import log_exception

        full = disk_full_message(exc)
        if full is not None:  # the log cannot be written either: say what to do
            response: Response = await refuse(507, full[:1].upper() + full[1:] + ".")
            return response
        log_exception(f"viewer: {request.url.path} failed")
        response = await refuse(
            500, "The viewer hit an internal error; the details are in ConKeeper's log."
        )
        return response

    app = Starlette(
        routes=[
            Route("/", pages.timeline_page),
            Route("/observation/{obs_id:int}", pages.observation_page),
            Route("/search", pages.search_page),
            Route("/memory", pages.memory_page),
            Route("/memory/file", pages.memory_file_page),
            Route("/retros", pages.retros_page),
            Route("/queue", pages.queue_page),
            Route("/queue/{action:str}", pages.queue_action, methods=["POST"]),
            Route("/review", pages.review_page),
            Route("/review/{action:str}", pages.review_action, methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
        ],
        exception_handlers={HTTPException: on_http_error, Exception: on_crash},
    )
    app.state.viewer = pages.ViewerContext(location, global_memory_dir, keys, templates, started_by)
    return Guard(app, keys, allowed_hosts(HOST, port), refuse)


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0 picks a free one)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    sock.listen(64)
    return sock


def serve(app: Guard, sock: socket.socket) -> None:
    """Run ``app`` on ``sock`` until interrupted (Ctrl-C ends it cleanly)."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
