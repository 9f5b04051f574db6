"""A scripted stand-in for the Gemini API (``generateContent`` / ``streamGenerateContent``)
on 127.0.0.1, for the Gemini CLI end-to-end test. Records every request; ``script(body)``
returns the next reply's parts (text or ``functionCall``), streamed as ``alt=sse`` events of
GenerateContentResponse objects or returned whole. ``prompt_tokens`` is the input size each
reply reports (a number, or a function of the request body): Gemini CLI compresses its
history once that passes half the model's window."""

from __future__ import annotations

import json
from typing import Any

from fake_http import JSON, Answer, RecordingServer


def response(parts: list[dict[str, Any]], prompt_tokens: int = 900) -> dict[str, Any]:
    """One GenerateContentResponse with ``parts``, billed ``prompt_tokens`` of input."""
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": 20,
            "totalTokenCount": prompt_tokens + 20,
        },
        "modelVersion": "gemini-2.5-flash",
    }


class FakeGemini(RecordingServer):
    """The server; ``requests`` holds ``{"method", "path", "body"}`` for each request."""

    def __init__(self, script: Any, prompt_tokens: Any = 900) -> None:
        super().__init__()
        self.script = script
        self.prompt_tokens = prompt_tokens

    @property
    def base_url(self) -> str:
        """What ``GOOGLE_GEMINI_BASE_URL`` must be."""
        return self.root_url

    def on_get(self, path: str) -> Answer:
        """Nothing is served by GET."""
        return 404, b'{"error": {"code": 404, "message": "not here"}}', JSON

    def on_post(self, path: str, body: dict[str, Any], number: int) -> Answer:
        """Token counts, or the scripted reply streamed (``alt=sse``) or whole."""
        path = path.split("?", 1)[0]
        if path.endswith(":countTokens"):
            return 200, b'{"totalTokens": 900}', JSON
        tokens = self.prompt_tokens
        reply = response(self.script(body, path), tokens(body) if callable(tokens) else tokens)
        if ":streamGenerateContent" in path:
            return 200, f"data: {json.dumps(reply)}\r\n\r\n".encode(), "text/event-stream"
        return 200, json.dumps(reply).encode(), JSON
