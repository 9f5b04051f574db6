"""Zed: no hooks. Memory reaches Zed's agent through its rules file (the first of ``.rules``,
``.cursorrules``, ..., ``AGENTS.md``, ``CLAUDE.md`` it finds at the project root) and the MCP
server, registered under ``context_servers`` in Zed's settings.

Docs: https://zed.dev/docs/ai/rules (rule file names and order), https://zed.dev/docs/ai/mcp
(``context_servers`` with ``command``/``args``), https://zed.dev/docs/configuring-zed
(``.zed/settings.json`` and ``~/.config/zed/settings.json``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from conkeeper.hosts.spec import Integration

NAME = "zed"
TITLE = "Zed"
DOCS = (
    "https://zed.dev/docs/ai/rules",
    "https://zed.dev/docs/ai/mcp",
    "https://zed.dev/docs/configuring-zed",
)
PROJECT_DIR_ENV = None
EVENTS: dict[str, str] = {}
# Zed uses the first of these it finds at the project root as the project's rules.
RULE_FILES = (
    ".rules",
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
    ".github/copilot-instructions.md",
    "AGENT.md",
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
)


def parse(obj: dict[str, Any], event: str) -> dict[str, Any]:
    """Zed runs no hooks; nothing to parse."""
    return obj


def render(event: str, canonical: str, result: Any) -> tuple[str, str, int]:
    """Zed runs no hooks; nothing to render."""
    return "", "", 0


def rules_file(root: Path) -> Path:
    """The rules file Zed reads: the first existing one (a folder does not count), else
    ``.rules`` — so ConKeeper never shadows the user's own AGENTS.md or CLAUDE.md."""
    for name in RULE_FILES:
        candidate = root / name
        if candidate.is_file():
            return candidate
    return root / ".rules"


def integration(
    scope: str, root: Path, env: Mapping[str, str] | None = None, launcher: str | None = None
) -> Integration:
    """``context_servers`` in ``.zed/settings.json`` (or the user's), the rules snippet."""
    from conkeeper.domain.paths import home_dir
    from conkeeper.hosts.spec import (
        INSTRUCTIONS_TEXT,
        Instructions,
        Integration,
        McpRegistration,
        mcp_server_entry,
    )

    if scope == "project":
        settings = root / ".zed" / "settings.json"
    else:
        settings = home_dir(env) / ".config" / "zed" / "settings.json"
    return Integration(
        agent=NAME,
        scope=scope,
        mcp=McpRegistration(settings, "context_servers", mcp_server_entry(launcher)),
        instructions=(
            Instructions(rules_file(root), INSTRUCTIONS_TEXT) if scope == "project" else None
        ),
        notes=("Zed has no hooks: nothing is captured automatically from Zed sessions",)
        + (
            ()
            if scope == "project"
            else ("Zed's user rules live in its Rules Library, not a file: add the guidance there",)
        ),
    )
