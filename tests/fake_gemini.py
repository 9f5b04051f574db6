"""A scripted stand-in for the Gemini API (``generateContent`` / ``streamGenerateContent``)
on 127.0.0.1, for the Gemini CLI end-to-end test. Records every request; ``script(body)``
returns the next reply's parts (text or ``functionCall``), streamed as ``alt=sse`` events of
GenerateContentResponse objects or returned whole."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def response(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One GenerateContentResponse with ``parts``."""
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": 900,
            "candidatesTokenCount": 20,
            "totalTokenCount": 920,
        },
        "modelVersion": "gemini-2.5-flash",
    }


class FakeGemini:
    """The server; ``requests`` holds ``{"method", "path", "body"}`` for each request."""

    def __init__(self, script: Any) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """What ``GOOGLE_GEMINI_BASE_URL`` must be."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeGemini:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                return

            def _send(self, status: int, body: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                with fake.lock:
                    fake.requests.append({"method": "GET", "path": self.path, "body": {}})
                self._send(
                    404, b'{"error": {"code": 404, "message": "not here"}}', "application/json"
                )

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with fake.lock:
                    fake.requests.append({"method": "POST", "path": self.path, "body": body})
                path = self.path.split("?", 1)[0]
                if path.endswith(":countTokens"):
                    self._send(200, b'{"totalTokens": 900}', "application/json")
                    return
                reply = response(fake.script(body, path))
                if ":streamGenerateContent" in path:
                    data = f"data: {json.dumps(reply)}\r\n\r\n".encode()
                    self._send(200, data, "text/event-stream")
                else:
                    self._send(200, json.dumps(reply).encode(), "application/json")

        return Handler
