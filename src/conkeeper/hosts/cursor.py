"""Cursor: hooks in ``.cursor/hooks.json`` (``{"version": 1, "hooks": {event: [{command}]}}``,
camelCase event names, snake_case payload fields), MCP servers in ``.cursor/mcp.json``, and
project rules in ``.cursor/rules/*.mdc``.

Docs: https://cursor.com/docs/agent/hooks (events, input, output, timeout in seconds),
https://cursor.com/docs/context/mcp (``mcpServers``), https://cursor.com/docs/context/rules
(``.mdc`` with ``alwaysApply``).
"""

from __future__ import annotations

import os

from conkeeper.hosts.common import context_and_message, dump, first_root, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from conkeeper.hosts.spec import Integration

NAME = "cursor"
TITLE = "Cursor"
DOCS = (
    "https://cursor.com/docs/agent/hooks",
    "https://cursor.com/docs/context/mcp",
    "https://cursor.com/docs/context/rules",
)
PROJECT_DIR_ENV = "CURSOR_PROJECT_DIR"

EVENTS: dict[str, str] = {
    "sessionStart": "SessionStart",
    "beforeSubmitPrompt": "UserPromptSubmit",
    # the look before a shell command (``command``, ``cwd``): what it then writes into memory
    # is the agent's, and an approval of held memory run from the agent's shell is refused
    "beforeShellExecution": "PreToolUse",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "preCompact": "PreCompact",
    "stop": "Stop",
    "sessionEnd": "SessionEnd",
}
# Events whose output has ``additional_context`` for the model.
CONTEXT_EVENTS = frozenset({"sessionStart", "postToolUse"})
TOOLS = {"Shell": "Bash", "Write": "Write", "Read": "Read", "Grep": "Grep", "Delete": "Write"}


def parse(obj: dict[str, Any], event: str) -> dict[str, Any]:
    """Cursor's fields as ConKeeper's (``conversation_id`` is the session)."""
    neutral: dict[str, Any] = {
        "session_id": obj.get("session_id") or obj.get("conversation_id"),
        "transcript_path": obj.get("transcript_path"),
        "cwd": obj.get("cwd") or first_root(obj, "workspace_roots") or os.getcwd(),
        "hook_event_name": EVENTS.get(event, event),
        "prompt": obj.get("prompt"),
        "reason": obj.get("reason"),
        "trigger": obj.get("trigger"),
        "last_assistant_message": obj.get("text"),
        "tool_use_id": obj.get("tool_use_id"),
    }
    tool = text_of(obj.get("tool_name"))
    if event == "beforeShellExecution":
        neutral["tool_name"] = "Bash"
        neutral["tool_input"] = {"command": text_of(obj.get("command")) or ""}
        neutral["cwd"] = obj.get("cwd") or neutral["cwd"]
    elif tool:
        neutral["tool_name"] = TOOLS.get(tool, tool)
        tool_input = obj.get("tool_input")
        neutral["tool_input"] = tool_input if isinstance(tool_input, dict) else {}
    if event == "postToolUseFailure":
        neutral["error"] = text_of(obj.get("error_message")) or "tool failed"
    elif tool:
        neutral["tool_response"] = {"stdout": text_of(obj.get("tool_output")) or ""}
    return neutral


def render(event: str, canonical: str, result: Any) -> tuple[str, str, int]:
    """``additional_context`` where Cursor takes it, ``continue``/``user_message`` to block a
    prompt, ``permission: "deny"`` to refuse a shell command (never ``allow``: that would run
    it without asking the user); everything else as ``user_message`` on a prompt, or
    nothing."""
    if result is None or result.is_empty():
        return "", "", 0
    if result.block_reason and event == "beforeSubmitPrompt":
        return dump({"continue": False, "user_message": result.block_reason.strip()}), "", 0
    if result.block_reason and event == "beforeShellExecution":
        reason = result.block_reason.strip()
        return dump({"permission": "deny", "user_message": reason, "agent_message": reason}), "", 0
    context, message = context_and_message(result)
    if context and event in CONTEXT_EVENTS:
        return dump({"additional_context": context}), "", 0
    if event == "beforeSubmitPrompt":
        note = "\n\n".join(x for x in (message, context) if x)
        return dump({"continue": True, "user_message": note}), "", 0
    return "", "", 0


def integration(
    scope: str, root: Path, env: Mapping[str, str] | None = None, launcher: str | None = None
) -> Integration:
    """``hooks.json`` and ``mcp.json`` in ``.cursor`` (or ``~/.cursor``); a project rule."""
    from conkeeper.domain.paths import home_dir
    from conkeeper.hosts.spec import (
        INSTRUCTIONS_TEXT,
        HookEvent,
        HooksFile,
        Instructions,
        Integration,
        McpRegistration,
        hook_command,
        mcp_server_entry,
    )

    base = root / ".cursor" if scope == "project" else home_dir(env) / ".cursor"
    events = tuple(HookEvent(name, canonical, None, 10) for name, canonical in EVENTS.items())

    def handler(event: HookEvent) -> dict[str, Any]:
        return {"command": hook_command(NAME, event.name, launcher), "timeout": event.timeout}

    rule = (
        "---\ndescription: ConKeeper project memory\nalwaysApply: true\n---\n\n" + INSTRUCTIONS_TEXT
    )
    return Integration(
        agent=NAME,
        scope=scope,
        hooks=HooksFile(base / "hooks.json", "flat", events, handler, top={"version": 1}),
        mcp=McpRegistration(base / "mcp.json", "mcpServers", mcp_server_entry(launcher)),
        instructions=(
            Instructions(root / ".cursor" / "rules" / "conkeeper.mdc", rule, "file")
            if scope == "project"
            else None
        ),
        notes=()
        if scope == "project"
        else ("user rules live in Cursor's settings, not in a file: add the guidance there",),
    )
