"""A scripted stand-in for the OpenAI Responses API on 127.0.0.1, for the Codex CLI end-to-end
test: it records every request body and streams scripted turns as server-sent events in the
documented shapes (response.created, response.output_item.added/done,
response.output_text.delta, response.completed). A turn is chosen by how many function-call
outputs the request already carries."""

from __future__ import annotations

import json
from typing import Any

from fake_http import JSON, Answer, RecordingServer


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


class FakeResponses(RecordingServer):
    """``script(request_body, turn) -> items`` decides each reply; ``requests`` records all."""

    def __init__(self, script: Any) -> None:
        super().__init__()
        self.script = script

    @property
    def base_url(self) -> str:
        """The provider ``base_url`` (with ``/v1``)."""
        return f"{self.root_url}/v1"

    def on_get(self, path: str) -> Answer:
        """An empty model list; nothing else."""
        if path.rstrip("/").endswith("/models"):
            return 200, b'{"object": "list", "data": []}', JSON
        return 404, b"{}", JSON

    def on_post(self, path: str, body: dict[str, Any], number: int) -> Answer:
        """The scripted turn streamed as server-sent events."""
        if not path.rstrip("/").endswith("/responses"):
            return 404, b"{}", JSON
        return 200, stream(self.script(body), number), "text/event-stream"
