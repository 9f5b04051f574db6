"""The tool uses in a Gemini CLI chat file, in the shape the Claude Code transcript parser gives.

Why it exists: :mod:`conkeeper.services.copied_text` asks which outside source an agent's note
repeats by reading the tools' outputs in the session's transcript. Gemini CLI passes its own
chat file as ``transcript_path``, in its own format, which the Claude Code parser reads as no
tools at all, so a note a Gemini agent copied from a fetched page was judged by its words
alone. Two shapes are read (seen in the real CLI's files): JSON lines, one object per message
(``type`` ``gemini`` messages carry ``toolCalls``; a message is written again, by ``id``, as
it grows; ``{"$set": ...}`` lines update the header), and the older single JSON object with a
``messages`` array. Each tool call gives its ``name`` (Gemini's own: ``web_fetch``,
``run_shell_command``, ``read_file``...), its ``args`` and the text of its result
(``result[].functionResponse.response.output``). Nothing is written; a damaged line is skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conkeeper.services.observations.transcripts import ParsedTool

MAX_BYTES = 64 * 1024 * 1024  # a larger chat file is not read


def looks_like_gemini_chat(head: bytes) -> bool:
    """Whether a transcript's first bytes are a Gemini CLI chat file's header."""
    start = head.lstrip()[:4096]
    return start.startswith(b"{") and b'"projectHash"' in start and b'"sessionId"' in start


def gemini_tool_uses(path: Path) -> list[ParsedTool]:
    """The chat's tool calls in order, each with its result text (``None`` when it has none)."""
    try:
        data = path.read_bytes()[:MAX_BYTES]
    except OSError:
        return []
    calls: dict[str, ParsedTool] = {}
    for message in _messages(data):
        listed = message.get("toolCalls")
        for call in listed if isinstance(listed, list) else []:
            tool = _tool(call, len(calls))
            if tool is not None:
                calls[tool.id] = tool  # a message written again replaces its earlier copy
    return list(calls.values())


def _messages(data: bytes) -> list[dict[str, Any]]:
    """The messages of either file shape, in order."""
    try:
        whole = json.loads(data)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
        return [m for m in whole["messages"] if isinstance(m, dict)]
    found: list[dict[str, Any]] = []
    for line in data.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if not isinstance(item, dict):
            continue
        update = item.get("$set")
        if isinstance(update, dict) and isinstance(update.get("messages"), list):
            found.extend(m for m in update["messages"] if isinstance(m, dict))
        elif item.get("type"):
            found.append(item)
    return found


def _tool(call: object, index: int) -> ParsedTool | None:
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return None
    args = call.get("args")
    return ParsedTool(
        id=str(call.get("id") or f"gemini-call-{index}"),
        name=call["name"],
        input=args if isinstance(args, dict) else {},
        at=0,
        result_text=_result_text(call.get("result")) or _display(call.get("resultDisplay")),
        is_error=call.get("status") == "error",
    )


def _result_text(result: object) -> str | None:
    """The text of a call's ``functionResponse`` parts, joined."""
    if not isinstance(result, list):
        return None
    texts = []
    for part in result:
        inner = part.get("functionResponse") if isinstance(part, dict) else None
        response = inner.get("response") if isinstance(inner, dict) else None
        if isinstance(response, dict):
            value = response.get("output", response.get("error"))
            texts.append(value if isinstance(value, str) else json.dumps(value))
        elif isinstance(response, str):
            texts.append(response)
    return "\n".join(texts) or None


def _display(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
