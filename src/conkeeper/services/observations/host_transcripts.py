"""The tool uses in another host's transcript (Gemini CLI, Codex), in the shape the Claude Code
transcript parser gives.

Why it exists: :mod:`conkeeper.services.copied_text` asks which outside source an agent's note
repeats by reading the tools' outputs in the session's transcript. Gemini CLI and Codex pass
their own files as ``transcript_path``, which the Claude Code parser reads as no tools at all,
so a note their agent copied from a fetched page or a download was judged by its words alone.
Read here (shapes seen in the files the real CLIs wrote in the end-to-end tests):

* **Gemini CLI chat files**: JSON lines, one object per message (``type`` ``gemini`` messages
  carry ``toolCalls``; a message is written again, by ``id``, as it grows; ``{"$set": ...}``
  lines update the header), or the older single JSON object with a ``messages`` array. Each
  call gives its ``name`` (Gemini's own: ``web_fetch``, ``run_shell_command``, ``read_file``),
  its ``args`` and its result text (``result[].functionResponse.response.output``).
* **Codex rollouts**: JSON lines whose first is ``session_meta``; ``response_item`` lines carry a
  ``function_call`` (``name``, ``arguments`` as a JSON string, ``call_id``) and later its
  ``function_call_output`` (``output``). A shell call's ``cmd`` (or ``command`` list) is given
  as ``command``, the key the Claude Code shape uses.

Nothing is written; a damaged line is skipped.
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


def looks_like_codex_rollout(head: bytes) -> bool:
    """Whether a transcript's first bytes are a Codex rollout's ``session_meta`` line."""
    first = head.lstrip()[:4096].split(b"\n", 1)[0]
    return first.startswith(b"{") and b'"session_meta"' in first


def other_host_tool_uses(path: Path) -> list[ParsedTool] | None:
    """The tool uses of a Gemini CLI chat file or a Codex rollout; None when ``path`` is
    neither (a Claude Code transcript, or unreadable)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    if looks_like_gemini_chat(head):
        return gemini_tool_uses(path)
    if looks_like_codex_rollout(head):
        return codex_tool_uses(path)
    return None


def gemini_tool_uses(path: Path) -> list[ParsedTool]:
    """The chat's tool calls in order, each with its result text (``None`` when it has none)."""
    data = _read(path)
    calls: dict[str, ParsedTool] = {}
    for message in _messages(data):
        listed = message.get("toolCalls")
        for call in listed if isinstance(listed, list) else []:
            tool = _tool(call, len(calls))
            if tool is not None:
                calls[tool.id] = tool  # a message written again replaces its earlier copy
    return list(calls.values())


def _read(path: Path) -> bytes:
    """The file's first :data:`MAX_BYTES` bytes (none when it cannot be read)."""
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_BYTES)
    except OSError:
        return b""


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


def codex_tool_uses(path: Path) -> list[ParsedTool]:
    """The rollout's function calls in order, each with its output (``None`` until it has one)."""
    data = _read(path)
    calls: dict[str, ParsedTool] = {}
    for line in data.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        payload = item.get("payload") if isinstance(item, dict) else None
        if not isinstance(payload, dict) or item.get("type") != "response_item":
            continue
        call_id = payload.get("call_id")
        if not isinstance(call_id, str):
            continue
        if payload.get("type") == "function_call" and isinstance(payload.get("name"), str):
            calls[call_id] = ParsedTool(call_id, payload["name"], _codex_input(payload), 0)
        elif payload.get("type") == "function_call_output" and call_id in calls:
            output = payload.get("output")
            calls[call_id].result_text = output if isinstance(output, str) else json.dumps(output)
    return list(calls.values())


def _codex_input(payload: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments, with a shell command under ``command`` as one string."""
    try:
        args = json.loads(payload.get("arguments") or "{}")
    except (TypeError, ValueError):
        return {}
    if not isinstance(args, dict):
        return {}
    command = args.get("cmd", args.get("command"))
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    return {**args, "command": command} if isinstance(command, str) else args
