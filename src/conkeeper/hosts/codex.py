"""Codex CLI: Claude-compatible hooks (``hooks.json`` next to ``config.toml``), MCP servers as
``[mcp_servers.NAME]`` tables in ``config.toml``, and ``AGENTS.md`` for instructions.

Docs: https://developers.openai.com/codex/hooks (events, matcher groups, timeout in seconds,
``hookSpecificOutput.additionalContext``), https://developers.openai.com/codex/mcp and
https://developers.openai.com/codex/config-reference (``mcp_servers``), output schemas in
openai/codex ``codex-rs/hooks/schema/generated/*.schema.json``.
"""

from __future__ import annotations

from conkeeper.hosts.common import render_hook_output

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from conkeeper.hosts.spec import Integration

NAME = "codex"
TITLE = "Codex CLI"
DOCS = (
    "https://developers.openai.com/codex/hooks",
    "https://developers.openai.com/codex/mcp",
    "https://developers.openai.com/codex/guides/agents-md",
)
PROJECT_DIR_ENV = None

# Codex event -> ConKeeper event (Stop ends every turn, SessionEnd the main thread).
EVENTS: dict[str, str] = {
    "SessionStart": "SessionStart",
    "UserPromptSubmit": "UserPromptSubmit",
    "PreToolUse": "PreToolUse",
    "PostToolUse": "PostToolUse",
    "PreCompact": "PreCompact",
    "Stop": "Stop",
    "SubagentStop": "SubagentStop",
    "SessionEnd": "SessionEnd",
}
ROLLOUT_TAIL_BYTES = 256 * 1024
# Events whose hookSpecificOutput.additionalContext Codex adds to the model's context.
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PostToolUse"})
BLOCKING_EVENTS = frozenset({"UserPromptSubmit", "PreToolUse", "Stop"})
TIMEOUT_SECONDS = {"PreToolUse": 5, "SessionEnd": 5}
# ``apply_patch`` run through the shell tool fires PreToolUse but never PostToolUse: memory files
# are looked at again at Stop, and what changed during the turn is the agent's
# (hooks.memory_look); the patch's file changes are read from the rollout then
# (:func:`unhooked_tool_uses`) and recorded as the edits they were.
UNHOOKED_EDITS = True
TURN_TAIL_BYTES = 1024 * 1024


def parse(obj: dict[str, Any], event: str) -> dict[str, Any]:
    """Codex sends Claude Code's field names (``session_id``, ``cwd``, ``tool_input``...), but
    a shell tool's ``tool_response`` is only its output text: the exit code is looked up in
    the session's rollout file, where Codex has already recorded the finished command."""
    response = obj.get("tool_response")
    if event != "PostToolUse" or not isinstance(response, str):
        return obj
    outcome = _rollout_outcome(obj.get("transcript_path"), obj.get("tool_use_id"))
    if outcome is None:
        return _read_from_summary(obj, response)
    status, exit_code = outcome
    if status == "failed" or (exit_code not in (None, 0)):
        return {
            **obj,
            "hook_event_name": "PostToolUseFailure",
            "error": f"exit code {exit_code}" if exit_code is not None else "failed",
            "tool_response": {"stdout": response, "exit_code": exit_code},
        }
    return {**obj, "tool_response": {"stdout": response, "exit_code": exit_code}}


def _read_from_summary(obj: dict[str, Any], response: str) -> dict[str, Any]:
    """A shell tool's use whose exit code the rollout does not hold (no rollout path, or the
    item not written yet): a test run is read from its runner's summary line ("1 failed, 3
    passed in 0.2s" is a failure; it was recorded as a success, and reflect took it for a
    pass), any other command keeps no exit code."""
    from conkeeper.domain.test_summary import runs_tests, summary_verdict

    tool_input = obj.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    passed = (
        summary_verdict(response)[0] if isinstance(command, str) and runs_tests(command) else None
    )
    if passed is False:
        return {
            **obj,
            "hook_event_name": "PostToolUseFailure",
            "error": response,
            "tool_response": {"stdout": response},
        }
    exit_code = {"exit_code": 0} if passed else {}
    return {**obj, "tool_response": {"stdout": response, **exit_code}}


def _rollout_outcome(path: object, call_id: object) -> tuple[str, int | None] | None:
    """``(status, exit_code)`` of the command item ``call_id`` in the rollout's tail, if any."""
    if not isinstance(path, str) or not isinstance(call_id, str) or not call_id or "\x00" in path:
        return None
    import json

    tail = _rollout_tail(path, ROLLOUT_TAIL_BYTES)
    if tail is None:
        return None
    needle = f'"id":"{call_id}"'.encode()
    for line in reversed(tail.splitlines()):
        if needle not in line or b'"item_completed"' not in line:
            continue
        try:
            item = json.loads(line)["payload"]["item"]
        except (ValueError, KeyError, TypeError):
            continue
        code = item.get("exit_code")
        return str(item.get("status") or ""), code if isinstance(code, int) else None
    return None


def _rollout_tail(path: str, size: int) -> bytes | None:
    """The last ``size`` bytes of the rollout file ``path`` (``None`` when it cannot be read):
    what Codex recorded last, the finished command or the turn's patches, is at its end."""
    import os

    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - size))
            return handle.read()
    except OSError:
        return None


def unhooked_tool_uses(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The file edits Codex's own ``apply_patch`` made in the turn a Stop payload ends, as
    PostToolUse payloads (one per file, ``Edit``; ``Write`` for a new file) with ``at_ms``,
    when the patch finished: Codex fires no PostToolUse for them, and records each patch in
    the rollout as a completed ``FileChange`` item with its files and status."""
    path, turn = obj.get("transcript_path"), obj.get("turn_id")
    if not isinstance(path, str) or not path or "\x00" in path:
        return []
    import json

    tail = _rollout_tail(path, TURN_TAIL_BYTES)
    if tail is None:
        return []
    uses: list[dict[str, Any]] = []
    for line in tail.splitlines():
        if b'"FileChange"' not in line or b'"item_completed"' not in line:
            continue
        try:
            record = json.loads(line)["payload"]
        except (ValueError, KeyError, TypeError):
            continue
        if not isinstance(record, dict):
            continue
        if not isinstance(turn, str) or record.get("turn_id") == turn:
            uses.extend(_file_changes(record))
    return uses


def _file_changes(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One payload per file of a ``FileChange`` item (the first keeps the call's id)."""
    item = record.get("item")
    if not isinstance(item, dict) or item.get("type") != "FileChange":
        return []
    changes, call_id = item.get("changes"), item.get("id")
    if not isinstance(changes, dict) or not isinstance(call_id, str) or not call_id:
        return []
    failed = item.get("status") != "completed"
    error = str(item.get("stderr") or item.get("stdout") or f"patch {item.get('status')}")
    uses = []
    for number, (file_path, change) in enumerate(changes.items()):
        added = isinstance(change, dict) and change.get("type") == "add"
        use: dict[str, Any] = {
            "hook_event_name": "PostToolUseFailure" if failed else "PostToolUse",
            "tool_name": "Write" if added else "Edit",
            "tool_input": {"file_path": file_path},
            "tool_use_id": call_id if number == 0 else f"{call_id}#{number + 1}",
            "at_ms": record.get("completed_at_ms"),
        }
        if failed:
            use["error"] = error
        else:
            use["tool_response"] = {"stdout": str(item.get("stdout") or "")}
        uses.append(use)
    return uses


def render(event: str, canonical: str, result: Any) -> tuple[str, str, int]:
    """JSON with ``hookSpecificOutput`` / ``systemMessage``; exit 2 to block."""
    return render_hook_output(event, result, CONTEXT_EVENTS, BLOCKING_EVENTS)


def transcripts_dir(env: Mapping[str, str] | None = None) -> Path:
    """Codex's session rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``."""
    from conkeeper.domain.paths import home_dir

    return home_dir(env) / ".codex" / "sessions"


def mcp_entry(launcher: str | None = None) -> dict[str, Any]:
    """ConKeeper's ``[mcp_servers.conkeeper]`` table. ``required = true``: without it ``codex
    exec`` sends its first request before the server has started, and the model's first turn
    has none of ConKeeper's tools (seen with Codex 0.171). Install registers the server only
    when its interpreter has the ``mcp`` extra, so Codex is not kept from starting by it."""
    from conkeeper.hosts.spec import mcp_server_entry

    return {**mcp_server_entry(launcher), "required": True}


def integration(
    scope: str, root: Path, env: Mapping[str, str] | None = None, launcher: str | None = None
) -> Integration:
    """``.codex/hooks.json`` + ``.codex/config.toml`` (project) or the same under ``~/.codex``."""
    from conkeeper.domain.paths import home_dir
    from conkeeper.hosts.spec import (
        HookEvent,
        HooksFile,
        Integration,
        McpRegistration,
        hook_command,
    )

    base = root / ".codex" if scope == "project" else home_dir(env) / ".codex"
    events = tuple(
        HookEvent(
            name,
            canonical,
            "startup|resume|clear" if name == "SessionStart" else None,
            TIMEOUT_SECONDS.get(name, 10),
        )
        for name, canonical in EVENTS.items()
    )

    def handler(event: HookEvent) -> dict[str, Any]:
        return {
            "type": "command",
            "command": hook_command(NAME, event.name, launcher),
            "timeout": event.timeout,
        }

    return Integration(
        agent=NAME,
        scope=scope,
        hooks=HooksFile(base / "hooks.json", "grouped", events, handler),
        mcp=McpRegistration(base / "config.toml", "mcp_servers", mcp_entry(launcher), "toml"),
        notes=(
            "Codex asks you to review and trust new command hooks before they run (/hooks); "
            "project hooks load only in a trusted project",
        ),
    )
