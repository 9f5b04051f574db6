"""The viewer's guard: loopback Host only, a one-time URL token traded for a cookie, CSRF on POST.

A comparable tool shipped an unauthenticated local API with permissive CORS, so any web page the
user visited could read their memory. This middleware wraps the whole application and lets a
request through only when:

* its ``Host`` header names the address the viewer is bound to (a DNS-rebinding page sends its
  own host name and is refused);
* it carries the session cookie, which the browser gets once by opening the URL the command
  printed (``?token=…``), as an ``HttpOnly; SameSite=Strict`` cookie, after which the token is
  dropped from the address bar by a redirect. The token works **once**: a second use (a link
  copied from shell history, a proxy log or another user's screen) gets a page saying the link
  was used and how to get a fresh one (``conkeeper viewer`` again), never a session;
* for a state-changing request, it is a ``POST`` with the CSRF token of the page that made it.

No CORS header is ever sent, and every response says ``no-store`` and forbids framing, so the
pages can be neither read nor embedded by another origin.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE_NAME = "conkeeper_viewer"
CSRF_FIELD = "csrf"
SAFE_METHODS = frozenset({"GET", "HEAD"})
LINK_USED = (
    "This viewer link has already been used: each link signs in one browser, once. The browser "
    "that opened it first stays signed in. To open the viewer anywhere else, stop this viewer "
    "(Ctrl+C where it runs) and run 'conkeeper viewer' again: it prints a fresh link."
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
)


@dataclass(frozen=True)
class Secrets:
    """The three random values of one viewer run: URL token, session cookie, CSRF token."""

    url_token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    session: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))


def same(a: str | None, b: str) -> bool:
    """Constant-time comparison of a presented value with the expected one."""
    return a is not None and hmac.compare_digest(a.encode(), b.encode())


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` header values a browser sends for the bound loopback address."""
    names = {host, "localhost"} if host == "127.0.0.1" else {host}
    return frozenset(f"{name}:{port}" for name in names)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _cookie(scope: Scope, name: str) -> str | None:
    raw = _header(scope, b"cookie") or ""
    for part in raw.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


class Guard:
    """ASGI middleware enforcing the rules in the module docstring around ``app``."""

    def __init__(
        self,
        app: ASGIApp,
        keys: Secrets,
        hosts: frozenset[str],
        refuse: Callable[[int, str], Awaitable[Any]],
    ) -> None:
        self.app = app
        self.keys = keys
        self.hosts = hosts
        self.refuse = refuse  # builds an error response (status, sentence)
        self.token_used = False  # the URL token signs in one browser, once

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check one HTTP request; refused requests get a plain error page, never the app."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = self._problem(scope)
        if isinstance(problem, str):  # the one-time URL token: sign in
            await self._login(scope, send)
            return
        secured = _with_headers(send)
        if problem is not None:
            status, sentence = problem
            response = await self.refuse(status, sentence)
            await response(scope, receive, secured)
            return
        if scope["method"] not in SAFE_METHODS:
            replay = await self._check_csrf(scope, receive, secured)
            if replay is None:
                return
            receive = replay
        await self.app(scope, receive, secured)

    def _problem(self, scope: Scope) -> tuple[int, str] | str | None:
        if _header(scope, b"host") not in self.hosts:
            return 421, "This viewer answers only on its own loopback address; request refused."
        if scope["method"] not in SAFE_METHODS and scope["method"] != "POST":
            return 405, "Only GET and POST are used by the viewer."
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        if "token" in query and scope["method"] == "GET":
            if same(query["token"], self.keys.url_token):
                if not self.token_used:
                    self.token_used = True  # before any await: a second request never also wins
                    return "login"
                return 410, LINK_USED
            return 403, "That viewer link is not valid; open the URL 'conkeeper viewer' printed."
        if not same(_cookie(scope, COOKIE_NAME), self.keys.session):
            return 401, "Open the URL that 'conkeeper viewer' printed to sign in to this viewer."
        return None

    async def _login(self, scope: Scope, send: Send) -> None:
        """Trade the URL token for the session cookie and drop the token from the address."""
        query = [
            (k, v)
            for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"))
            if k != "token"
        ]
        location = scope.get("path", "/") + (f"?{urlencode(query)}" if query else "")
        cookie = f"{COOKIE_NAME}={self.keys.session}; HttpOnly; SameSite=Strict; Path=/"
        headers = [
            (b"location", location.encode("latin-1")),
            (b"set-cookie", cookie.encode("latin-1")),
            (b"content-length", b"0"),
            *SECURITY_HEADERS,
        ]
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    async def _check_csrf(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """Read the form body, check its CSRF token, and replay the body to the app."""
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = bool(message.get("more_body"))
            if len(body) > 1_000_000:
                break
        form = dict(parse_qsl(body.decode("utf-8", errors="replace")))
        presented = form.get(CSRF_FIELD) or _header(scope, b"x-csrf-token")
        if not same(presented, self.keys.csrf):
            response = await self.refuse(
                403, "This form is out of date or did not come from the viewer; reload the page."
            )
            await response(scope, receive, send)
            return None
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return replay


def _with_headers(send: Send) -> Send:
    """Wrap ``send`` so every response carries the security headers (and no CORS ones)."""

    async def secured(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [
                (k, v)
                for k, v in message.get("headers", [])
                if not k.lower().startswith(b"access-control-")
            ]
            message["headers"] = [*headers, *SECURITY_HEADERS]
        await send(message)

    return secured
