"""A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for end-to-end tests.

The real ``claude`` CLI is pointed at it with ``ANTHROPIC_BASE_URL``. Every request body is
recorded; ``POST /v1/messages`` answers from a script: the main agent loop (requests that offer
tools) gets the next scripted turn, chosen by how many assistant turns the conversation already
holds, and side requests (titles, summaries) get a short text reply. Replies are streamed as
server-sent events in the shapes the Messages API documents (message_start,
content_block_start/delta/stop, message_delta, message_stop) or returned whole when the client
did not ask for a stream.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "claude-sonnet-4-5"


def text_turn(text: str) -> list[dict[str, Any]]:
    """One assistant turn that only says ``text`` (ends the loop)."""
    return [{"type": "text", "text": text}]


def tool_turn(tool_id: str, name: str, tool_input: dict[str, Any], text: str = "") -> list:
    """One assistant turn that calls a tool (optionally saying something first)."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
    return blocks


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def stream_events(message_id: str, blocks: list[dict[str, Any]]) -> bytes:
    """The SSE body of one streamed reply made of ``blocks``."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    usage = {
        "input_tokens": 1200,
        "output_tokens": 1,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }
    out = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": MODEL,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
            },
        )
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        out.append(
            _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        out.append(
            _sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        )
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 42},
            },
        )
    )
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def whole_message(message_id: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """The non-streamed JSON reply made of ``blocks``."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1200, "output_tokens": 42},
    }


class FakeAnthropic:
    """The server: ``script`` is the main loop's turns in order; ``requests`` what came in."""

    def __init__(self, script: list[list[dict[str, Any]]]) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """What ``ANTHROPIC_BASE_URL`` must be."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeAnthropic:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def main_loop_requests(self) -> list[dict[str, Any]]:
        """Recorded ``/v1/messages`` bodies of the agent loop (those that offer tools)."""
        return [
            r["body"]
            for r in self.requests
            if r["path"].startswith("/v1/messages")
            and r["body"].get("tools")
            and not r["path"].startswith("/v1/messages/count_tokens")
        ]

    def reply_for(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The scripted turn for a request: by assistant turns so far, or a side reply."""
        if not body.get("tools"):
            return text_turn("ConKeeper end-to-end test")
        done = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        if done < len(self.script):
            return self.script[done]
        return text_turn("Done.")

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
                    404,
                    b'{"type":"error","error":{"type":"not_found_error","message":"not here"}}',
                    "application/json",
                )

            def do_HEAD(self) -> None:
                self._send(200, b"", "text/plain")

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with fake.lock:
                    fake.requests.append({"method": "POST", "path": self.path, "body": body})
                    number = len(fake.requests)
                if self.path.startswith("/v1/messages/count_tokens"):
                    self._send(200, b'{"input_tokens": 1200}', "application/json")
                    return
                if not self.path.startswith("/v1/messages"):
                    self._send(
                        404,
                        b'{"type":"error","error":{"type":"not_found_error","message":"not here"}}',
                        "application/json",
                    )
                    return
                blocks = fake.reply_for(body)
                message_id = f"msg_fake_{number:04d}"
                if body.get("stream"):
                    self._send(200, stream_events(message_id, blocks), "text/event-stream")
                else:
                    payload = json.dumps(whole_message(message_id, blocks)).encode()
                    self._send(200, payload, "application/json")

        return Handler
