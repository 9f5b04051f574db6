"""The HTTP plumbing every scripted model server of the end-to-end tests shares.

A fake (Anthropic, OpenAI Responses, Gemini) runs on 127.0.0.1 on a free port for the length of
a ``with`` block, records every request as ``{"method", "path", "body"}`` (the body parsed as
JSON when it is), and answers through two methods a subclass overrides: :meth:`on_get` and
:meth:`on_post`, each returning ``(status, body bytes, content type)``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = tuple[int, bytes, str]
JSON = "application/json"


class RecordingServer:
    """A threaded loopback server that records requests and lets a subclass answer them."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT`` of this server."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Any:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def record(self, method: str, path: str, body: dict[str, Any]) -> int:
        """Record one request; returns how many requests came in so far."""
        with self.lock:
            self.requests.append({"method": method, "path": path, "body": body})
            return len(self.requests)

    def on_get(self, path: str) -> Answer:
        """The answer to a GET (default: not found)."""
        return 404, b"{}", JSON

    def on_post(self, path: str, body: dict[str, Any], number: int) -> Answer:
        """The answer to the ``number``-th request, a POST of ``body``."""
        raise NotImplementedError


def _handler(fake: RecordingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            return

        def _send(self, answer: Answer) -> None:
            status, body, ctype = answer
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_HEAD(self) -> None:
            self._send((200, b"", "text/plain"))

        def do_GET(self) -> None:
            fake.record("GET", self.path, {})
            self._send(fake.on_get(self.path))

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_raw": raw.decode("utf-8", "replace")}
            number = fake.record("POST", self.path, body)
            self._send(fake.on_post(self.path, body, number))

    return Handler
