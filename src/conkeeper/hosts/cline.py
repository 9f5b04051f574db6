"""Cline: hooks are executable files named after the event in ``.clinerules/hooks/`` (or
``~/Documents/Cline/Hooks/``); the payload nests the event's data under a camelCase key and the
output is ``{"cancel", "contextModification", "errorMessage"}``, where ``contextModification``
is added to the conversation.

Docs: https://docs.cline.bot/features/hooks/hook-reference (hook names, input fields, output),
https://docs.cline.bot/customization/hooks (locations), https://docs.cline.bot/mcp/configuring-mcp-servers
(``cline_mcp_settings.json``), https://docs.cline.bot/features/cline-rules (``.clinerules/``).
"""

from __future__ import annotations

from conkeeper.hosts.common import as_object, dump, first_root, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from conkeeper.hosts.spec import Integration

NAME = "cline"
TITLE = "Cline"
DOCS = (
    "https://docs.cline.bot/features/hooks/hook-reference",
    "https://docs.cline.bot/customization/hooks",
    "https://docs.cline.bot/mcp/configuring-mcp-servers",
    "https://docs.cline.bot/features/cline-rules",
)
PROJECT_DIR_ENV = None

EVENTS: dict[str, str] = {
    "TaskStart": "SessionStart",
    "TaskResume": "SessionStart",
    "UserPromptSubmit": "UserPromptSubmit",
    # the look before a tool: what a command then writes into memory is the agent's, and an
    # approval of held memory run from the agent's shell is refused
    "PreToolUse": "PreToolUse",
    "PostToolUse": "PostToolUse",
    "PreCompact": "PreCompact",
    "TaskComplete": "SessionEnd",
    "TaskCancel": "SessionEnd",
}
TOOLS = {
    "execute_command": "Bash",
    "write_to_file": "Write",
    "replace_in_file": "Edit",
    "read_file": "Read",
    "search_files": "Grep",
    "web_fetch": "WebFetch",
}
SOURCES = {"TaskStart": "startup", "TaskResume": "resume"}


def _section(obj: dict[str, Any], event: str) -> dict[str, Any]:
    key = event[0].lower() + event[1:]
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def parse(obj: dict[str, Any], event: str) -> dict[str, Any]:
    """Cline's ``taskId`` is the session; ``workspaceRoots[0]`` the project."""
    data = _section(obj, event)
    neutral: dict[str, Any] = {
        "session_id": obj.get("taskId"),
        "cwd": first_root(obj, "workspaceRoots"),
        "hook_event_name": EVENTS.get(event, event),
        "source": SOURCES.get(event),
        "prompt": data.get("prompt"),
        "reason": {"TaskComplete": "completed", "TaskCancel": "cancelled"}.get(event),
    }
    tool = text_of(data.get("toolName"))
    if tool:
        params = as_object(data.get("parameters"))
        if "path" in params and "file_path" not in params:
            params = {**params, "file_path": params["path"]}
        diff = params.get("diff")
        if isinstance(diff, str) and "edits" not in params:  # replace_in_file's blocks
            params = {**params, "edits": search_replace_edits(diff)}
        neutral["tool_name"] = TOOLS.get(tool, tool)
        neutral["tool_input"] = params
        if data.get("success") is False:
            neutral["hook_event_name"] = "PostToolUseFailure"
            neutral["error"] = text_of(data.get("result")) or "tool failed"
        else:
            neutral["tool_response"] = {"stdout": text_of(data.get("result")) or ""}
    return neutral


_SEARCH = ("------- SEARCH", "<<<<<<< SEARCH")
_DIVIDER = "======="
_REPLACE = ("+++++++ REPLACE", ">>>>>>> REPLACE")


def search_replace_edits(diff: str) -> list[dict[str, str]]:
    """``replace_in_file``'s SEARCH/REPLACE blocks as ``old_string`` / ``new_string`` pairs
    (what the edit wrote is what it replaced each searched text with)."""
    edits: list[dict[str, str]] = []
    old: list[str] | None = None
    new: list[str] | None = None
    for line in diff.splitlines():
        marker = line.strip()
        if marker in _SEARCH:
            old, new = [], None
        elif marker == _DIVIDER and old is not None and new is None:
            new = []
        elif marker in _REPLACE and old is not None and new is not None:
            edits.append({"old_string": "\n".join(old), "new_string": "\n".join(new)})
            old = new = None
        elif new is not None:
            new.append(line)
        elif old is not None:
            old.append(line)
    return edits


def render(event: str, canonical: str, result: Any) -> tuple[str, str, int]:
    """Always one JSON object: ``cancel`` false unless blocking, context as
    ``contextModification``."""
    out: dict[str, Any] = {"cancel": False}
    if result is not None and not result.is_empty():
        from conkeeper.hosts.common import context_and_message

        if result.block_reason and event in ("UserPromptSubmit", "PreToolUse"):
            return dump({"cancel": True, "errorMessage": result.block_reason.strip()}), "", 0
        context, message = context_and_message(result)
        note = "\n\n".join(x for x in (context, message) if x)
        if note:
            out["contextModification"] = note
    return dump(out), "", 0


def script(event: str, launcher: str | None = None) -> str:
    """The executable file Cline runs for one event (POSIX shell)."""
    from conkeeper.hosts.spec import hook_command

    return (
        "#!/bin/sh\n# ConKeeper hook (managed by 'conkeeper install --agent cline')\n"
        f"exec {hook_command(NAME, event, launcher)}\n"
    )


def integration(
    scope: str, root: Path, env: Mapping[str, str] | None = None, launcher: str | None = None
) -> Integration:
    """Hook scripts and a rule file in ``.clinerules`` (project) or Cline's global folders;
    the MCP server in VS Code's Cline settings (user scope)."""
    from conkeeper.domain.paths import home_dir
    from conkeeper.hosts.spec import (
        INSTRUCTIONS_TEXT,
        HookScripts,
        Instructions,
        Integration,
        McpRegistration,
        mcp_server_entry,
    )

    home = home_dir(env)
    folder = (
        root / ".clinerules" / "hooks"
        if scope == "project"
        else (home / "Documents" / "Cline" / "Hooks")
    )
    rules = (
        root / ".clinerules" / "conkeeper.md"
        if scope == "project"
        else (home / "Documents" / "Cline" / "Rules" / "conkeeper.md")
    )
    settings = (
        home
        / ".config"
        / "Code"
        / "User"
        / "globalStorage"
        / "saoudrizwan.claude-dev"
        / "settings"
        / "cline_mcp_settings.json"
    )
    return Integration(
        agent=NAME,
        scope=scope,
        scripts=HookScripts(folder, {event: script(event, launcher) for event in EVENTS}),
        mcp=(
            McpRegistration(
                settings, "mcpServers", {**mcp_server_entry(launcher), "disabled": False}
            )
            if scope == "user"
            else None
        ),
        instructions=Instructions(rules, INSTRUCTIONS_TEXT, "file"),
        notes=(
            "Cline keeps MCP servers in one global file (VS Code's globalStorage): run with "
            "--scope user to register it",
        ),
    )
