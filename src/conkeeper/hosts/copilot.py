"""GitHub Copilot (CLI and cloud agent): hooks in ``.github/hooks/*.json`` (camelCase events,
``bash``/``powershell`` commands, ``timeoutSec``), whose outputs are ignored except a
``preToolUse`` decision, so memory reaches the model through
``.github/copilot-instructions.md`` and the MCP server.

Docs: https://docs.github.com/en/copilot/reference/hooks-configuration (events, input JSON,
outputs), https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference
(``~/.copilot/hooks``), https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers
(``~/.copilot/mcp-config.json``), https://code.visualstudio.com/docs/copilot/customization/mcp-servers
(``.vscode/mcp.json``), https://docs.github.com/en/copilot/how-tos/configure-custom-instructions.
"""

from __future__ import annotations

import time

from conkeeper.hosts.common import as_object, block, text_of

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
    "postToolUse": "PostToolUse",
    "sessionEnd": "SessionEnd",
}
TOOLS = {"bash": "Bash", "shell": "Bash", "edit": "Edit", "create": "Write", "view": "Read"}


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
        neutral["tool_name"] = TOOLS.get(tool, tool)
        args = as_object(obj.get("toolArgs"))
        if "path" in args and "file_path" not in args:
            args = {**args, "file_path": args["path"]}
        neutral["tool_input"] = args
        result = as_object(obj.get("toolResult"))
        if result.get("resultType") in {"failure", "denied"}:
            neutral["hook_event_name"] = "PostToolUseFailure"
            neutral["error"] = text_of(result.get("textResultForLlm")) or result["resultType"]
        else:
            neutral["tool_response"] = {"stdout": text_of(result.get("textResultForLlm")) or ""}
    return neutral


def render(event: str, canonical: str, result: Any) -> tuple[str, str, int]:
    """Copilot ignores these events' output; only a block (exit 2) would mean anything."""
    if result is not None and result.block_reason and event == "preToolUse":
        return block(result.block_reason)
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
