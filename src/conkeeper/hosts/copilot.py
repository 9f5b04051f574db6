"""GitHub Copilot (CLI and cloud agent): hooks in ``.github/hooks/*.json`` (camelCase events,
``bash``/``powershell`` commands, ``timeoutSec``), whose outputs are ignored except a
``preToolUse`` decision (``permissionDecision: "deny"`` on stdout; a non-zero exit is only
logged), so memory reaches the model through ``.github/copilot-instructions.md`` and the MCP
server. Its file tools take Anthropic's editor fields (``path``, ``old_str``, ``new_str``,
``file_text``), read here as ConKeeper's (``file_path``, ``old_string``, ``new_string``,
``content``) so an agent's write into a memory file is known as the agent's.

Docs: https://docs.github.com/en/copilot/reference/hooks-configuration (events, input JSON,
outputs), https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference
(``~/.copilot/hooks``), https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers
(``~/.copilot/mcp-config.json``), https://code.visualstudio.com/docs/copilot/customization/mcp-servers
(``.vscode/mcp.json``), https://docs.github.com/en/copilot/how-tos/configure-custom-instructions.
"""

from __future__ import annotations

import time

from conkeeper.hosts.common import MAX_MESSAGE_CHARS, as_object, cap_text, dump, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from conkeeper.hosts.spec import Integration

NAME = "copilot"
TITLE = "GitHub Copilot"
DOCS = (
    "https://docs.github.com/en/copilot/reference/hooks-configuration",
    "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference",
    "https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers",
    "https://code.visualstudio.com/docs/copilot/customization/mcp-servers",
)
PROJECT_DIR_ENV = None

EVENTS: dict[str, str] = {
    "sessionStart": "SessionStart",
    "userPromptSubmitted": "UserPromptSubmit",
    # the look before a tool: what a shell command then writes into memory is the agent's,
    # and an approval of held memory run from the agent's shell is refused
    "preToolUse": "PreToolUse",
    "postToolUse": "PostToolUse",
    "sessionEnd": "SessionEnd",
}
TOOLS = {
    "bash": "Bash",
    "shell": "Bash",
    "powershell": "Bash",
    "edit": "Edit",
    "create": "Write",
    "view": "Read",
}
# The editor tool's fields (``str_replace_editor``, and ``edit`` / ``create``) as ConKeeper's.
_EDITOR_FIELDS = {
    "path": "file_path",
    "old_str": "old_string",
    "new_str": "new_string",
    "file_text": "content",
}
# ``str_replace_editor``'s commands as the tool each one is.
_EDITOR_COMMANDS = {
    "create": "Write",
    "str_replace": "Edit",
    "insert": "Edit",
    "view": "Read",
}


def session_key(obj: dict[str, Any]) -> str:
    """Copilot's hook input carries no session id: ``sessionId`` when present, else one
    session per project per day (``copilot-YYYYMMDD``)."""
    given = text_of(obj.get("sessionId")) or text_of(obj.get("session_id"))
    if given:
        return given
    stamp = obj.get("timestamp")
    seconds = stamp / 1000 if isinstance(stamp, (int, float)) else time.time()
    return "copilot-" + time.strftime("%Y%m%d", time.gmtime(seconds))


def parse(obj: dict[str, Any], event: str) -> dict[str, Any]:
    """Copilot's camelCase fields as ConKeeper's; ``toolArgs`` is a JSON string."""
    neutral: dict[str, Any] = {
        "session_id": session_key(obj),
        "cwd": obj.get("cwd"),
        "hook_event_name": EVENTS.get(event, event),
        "source": "startup" if obj.get("source") == "new" else obj.get("source"),
        "prompt": obj.get("prompt"),
        "reason": obj.get("reason"),
    }
    tool = text_of(obj.get("toolName"))
    if tool:
        args = as_object(obj.get("toolArgs"))
        neutral["tool_name"] = _tool_name(tool, args)
        neutral["tool_input"] = _editor_args(args)
        result = as_object(obj.get("toolResult"))
        if result.get("resultType") in {"failure", "denied"}:
            neutral["hook_event_name"] = "PostToolUseFailure"
            neutral["error"] = text_of(result.get("textResultForLlm")) or result["resultType"]
        else:
            neutral["tool_response"] = {"stdout": text_of(result.get("textResultForLlm")) or ""}
    return neutral


def _tool_name(tool: str, args: dict[str, Any]) -> str:
    """ConKeeper's name for a Copilot tool (``str_replace_editor`` by its ``command``)."""
    if tool == "str_replace_editor":
        command = text_of(args.get("command")) or ""
        return _EDITOR_COMMANDS.get(command, tool)
    return TOOLS.get(tool, tool)


def _editor_args(args: dict[str, Any]) -> dict[str, Any]:
    """The tool's arguments with the editor fields also under ConKeeper's names."""
    extra = {ours: args[theirs] for theirs, ours in _EDITOR_FIELDS.items() if theirs in args}
    return {**args, **{k: v for k, v in extra.items() if k not in args}}


def render(event: str, canonical: str, result: Any) -> tuple[str, str, int]:
    """Copilot ignores these events' output except a ``preToolUse`` decision: a refusal is
    ``permissionDecision: "deny"`` with its reason on stdout (Copilot logs a non-zero exit
    and runs the tool anyway)."""
    if result is not None and result.block_reason and event == "preToolUse":
        reason = cap_text(result.block_reason.strip(), MAX_MESSAGE_CHARS)
        return dump({"permissionDecision": "deny", "permissionDecisionReason": reason}), "", 0
    return "", "", 0


def integration(
    scope: str, root: Path, env: Mapping[str, str] | None = None, launcher: str | None = None
) -> Integration:
    """A hooks file of ConKeeper's own, MCP in ``.vscode/mcp.json`` (project) or
    ``~/.copilot/mcp-config.json`` (user), the instructions snippet (project)."""
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

    events = tuple(HookEvent(name, canonical, None, 10) for name, canonical in EVENTS.items())

    def handler(event: HookEvent) -> dict[str, Any]:
        return {
            "type": "command",
            "bash": hook_command(NAME, event.name, launcher),
            "timeoutSec": event.timeout,
        }

    if scope == "project":
        hooks_path = root / ".github" / "hooks" / "conkeeper.json"
        mcp = McpRegistration(
            root / ".vscode" / "mcp.json",
            "servers",
            {"type": "stdio", **mcp_server_entry(launcher)},
        )
        instructions = Instructions(root / ".github" / "copilot-instructions.md", INSTRUCTIONS_TEXT)
    else:
        hooks_path = home_dir(env) / ".copilot" / "hooks" / "conkeeper.json"
        mcp = McpRegistration(
            home_dir(env) / ".copilot" / "mcp-config.json",
            "mcpServers",
            {"type": "local", **mcp_server_entry(launcher), "tools": ["*"]},
        )
        instructions = None
    return Integration(
        agent=NAME,
        scope=scope,
        hooks=HooksFile(hooks_path, "flat", events, handler, top={"version": 1}, whole_file=True),
        mcp=mcp,
        instructions=instructions,
        notes=(
            "Copilot ignores hook output: memory reaches the model through the "
            "instructions file and the MCP tools, not through hooks",
        ),
    )
