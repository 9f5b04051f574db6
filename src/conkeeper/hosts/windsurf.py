"""Windsurf (Cascade): hooks in ``.windsurf/hooks.json`` (snake_case events, a ``tool_info``
object in the payload, exit 2 blocks pre-hooks, no way to add context), so memory reaches the
model through a rule in ``.windsurf/rules/`` and the MCP server (``mcp_config.json``).
``post_write_code`` carries what it wrote (``edits``: old and new strings), read as an edit
tool's, and ``pre_run_command`` is the look before a shell command.

Docs: https://docs.windsurf.com/windsurf/cascade/hooks (events, input, exit codes, file
locations), https://docs.windsurf.com/windsurf/cascade/mcp (``~/.codeium/windsurf/
mcp_config.json``), https://docs.windsurf.com/windsurf/cascade/memories (rules, ``trigger``).
"""

from __future__ import annotations

import os

from conkeeper.hosts.common import as_object, block, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from conkeeper.hosts.spec import Integration

NAME = "windsurf"
TITLE = "Windsurf"
DOCS = (
    "https://docs.windsurf.com/windsurf/cascade/hooks",
    "https://docs.windsurf.com/windsurf/cascade/mcp",
    "https://docs.windsurf.com/windsurf/cascade/memories",
)
PROJECT_DIR_ENV = None

EVENTS: dict[str, str] = {
    "pre_user_prompt": "UserPromptSubmit",
    # the look before a shell command (``command_line``): what it then writes into memory is
    # the agent's, and an approval of held memory run from the agent's shell is refused
    "pre_run_command": "PreToolUse",
    "post_run_command": "PostToolUse",
    "post_write_code": "PostToolUse",
    "post_read_code": "PostToolUse",
    "post_cascade_response": "Stop",
}
TOOL_FOR_EVENT = {
    "pre_run_command": "Bash",
    "post_run_command": "Bash",
    "post_write_code": "Edit",
    "post_read_code": "Read",
}


def parse(obj: dict[str, Any], event: str) -> dict[str, Any]:
    """Windsurf's ``trajectory_id`` is the session; ``tool_info`` holds the event's data."""
    info = as_object(obj.get("tool_info"))
    neutral: dict[str, Any] = {
        "session_id": obj.get("trajectory_id"),
        "cwd": info.get("cwd") or os.getcwd(),
        "hook_event_name": EVENTS.get(event, event),
        "prompt": info.get("user_prompt"),
        "last_assistant_message": info.get("response"),
        "tool_use_id": obj.get("execution_id"),
    }
    tool = TOOL_FOR_EVENT.get(event)
    if tool == "Bash":
        neutral["tool_input"] = {"command": text_of(info.get("command_line")) or ""}
    elif tool:
        neutral["tool_input"] = {"file_path": text_of(info.get("file_path")) or ""}
        edits = info.get("edits")  # post_write_code: [{old_string, new_string}], what it wrote
        if isinstance(edits, list):
            neutral["tool_input"]["edits"] = [e for e in edits if isinstance(e, dict)]
    if tool:
        neutral["tool_name"] = tool
        neutral["tool_response"] = {}
    return neutral


_PRE_HOOKS = frozenset({"pre_user_prompt", "pre_run_command"})


def render(event: str, canonical: str, result: Any) -> tuple[str, str, int]:
    """Only a block means anything to Windsurf (exit 2 on a pre-hook, reason on stderr)."""
    if result is not None and result.block_reason and event in _PRE_HOOKS:
        return block(result.block_reason)
    return "", "", 0


def integration(
    scope: str, root: Path, env: Mapping[str, str] | None = None, launcher: str | None = None
) -> Integration:
    """Hooks in ``.windsurf/hooks.json`` or ``~/.codeium/windsurf/hooks.json``; MCP (user
    file only); an always-on rule in the project."""
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

    user_base = home_dir(env) / ".codeium" / "windsurf"
    base = root / ".windsurf" if scope == "project" else user_base
    events = tuple(HookEvent(name, canonical) for name, canonical in EVENTS.items())

    def handler(event: HookEvent) -> dict[str, Any]:
        return {"command": hook_command(NAME, event.name, launcher), "show_output": False}

    rule = "---\ntrigger: always_on\n---\n\n" + INSTRUCTIONS_TEXT
    return Integration(
        agent=NAME,
        scope=scope,
        hooks=HooksFile(base / "hooks.json", "flat", events, handler),
        mcp=(
            McpRegistration(user_base / "mcp_config.json", "mcpServers", mcp_server_entry(launcher))
            if scope == "user"
            else None
        ),
        instructions=(
            Instructions(root / ".windsurf" / "rules" / "conkeeper.md", rule, "file")
            if scope == "project"
            else None
        ),
        notes=(
            "Windsurf hooks cannot add context: the rule and the MCP tools carry memory",
            "Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json: "
            "run with --scope user to register it",
        ),
    )
