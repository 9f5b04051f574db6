"""A scripted stand-in for the OpenAI Responses API on 127.0.0.1, for the Codex CLI end-to-end
test: it records every request body and streams scripted turns as server-sent events in the
documented shapes (response.created, response.output_item.added/done,
response.output_text.delta, response.completed). A turn is chosen by how many function-call
outputs the request already carries."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _sse(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def message_item(text: str, n: int) -> dict[str, Any]:
    """An assistant message output item."""
    return {
        "type": "message",
        "id": f"msg_{n}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def call_item(name: str, arguments: dict[str, Any], n: int) -> dict[str, Any]:
    """A function call output item."""
    return {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"call_{n}",
        "name": name,
        "arguments": json.dumps(arguments),
        "status": "completed",
    }


def stream(items: list[dict[str, Any]], n: int) -> bytes:
    """The SSE body of one response made of ``items``."""
    response = {"id": f"resp_{n}", "object": "response", "status": "in_progress", "output": []}
    out = [_sse({"type": "response.created", "response": response})]
    for index, item in enumerate(items):
        out.append(
            _sse(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "status": "in_progress"},
                }
            )
        )
        if item["type"] == "message":
            out.append(
                _sse(
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": item["content"][0]["text"],
                    }
                )
            )
        out.append(_sse({"type": "response.output_item.done", "output_index": index, "item": item}))
    usage = {
        "input_tokens": 900,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 920,
    }
    done = {**response, "status": "completed", "output": items, "usage": usage}
    out.append(_sse({"type": "response.completed", "response": done}))
    return b"".join(out)


class FakeResponses:
    """``script(request_body, turn) -> items`` decides each reply; ``requests`` records all."""

    def __init__(self, script: Any) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The provider ``base_url`` (with ``/v1``)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeResponses:
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
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, b'{"object": "list", "data": []}', "application/json")
                else:
                    self._send(404, b"{}", "application/json")

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with fake.lock:
                    fake.requests.append({"method": "POST", "path": self.path, "body": body})
                    n = len(fake.requests)
                if not self.path.rstrip("/").endswith("/responses"):
                    self._send(404, b"{}", "application/json")
                    return
                self._send(200, stream(fake.script(body), n), "text/event-stream")

        return Handler
