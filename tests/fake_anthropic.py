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
from typing import Any

from fake_http import JSON, Answer, RecordingServer

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


NOT_FOUND = b'{"type":"error","error":{"type":"not_found_error","message":"not here"}}'


class FakeAnthropic(RecordingServer):
    """The server: ``script`` is the main loop's turns in order; ``requests`` what came in."""

    def __init__(self, script: list[list[dict[str, Any]]]) -> None:
        super().__init__()
        self.script = script

    @property
    def base_url(self) -> str:
        """What ``ANTHROPIC_BASE_URL`` must be."""
        return self.root_url

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

    def on_get(self, path: str) -> Answer:
        """Nothing is served by GET."""
        return 404, NOT_FOUND, JSON

    def on_post(self, path: str, body: dict[str, Any], number: int) -> Answer:
        """Token counts, or the scripted turn streamed or whole."""
        if path.startswith("/v1/messages/count_tokens"):
            return 200, b'{"input_tokens": 1200}', JSON
        if not path.startswith("/v1/messages"):
            return 404, NOT_FOUND, JSON
        blocks = self.reply_for(body)
        message_id = f"msg_fake_{number:04d}"
        if body.get("stream"):
            return 200, stream_events(message_id, blocks), "text/event-stream"
        return 200, json.dumps(whole_message(message_id, blocks)).encode(), JSON
