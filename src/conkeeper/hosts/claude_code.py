"""Claude Code: ConKeeper's reference host (spec §6). Its payloads already are the neutral
shape, and its output contract is the one the handlers were written for. Installing into it
(plugin, or hooks in a settings file) is ``services.setup.install``'s original path.

Docs: https://docs.claude.com/en/docs/claude-code/hooks (events, input, JSON output, exit 2).
"""

from __future__ import annotations

from conkeeper.hosts.common import MAX_CONTEXT_CHARS, MAX_MESSAGE_CHARS, block, cap_text, dump

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any


NAME = "claude-code"
TITLE = "Claude Code"
DOCS = ("https://docs.claude.com/en/docs/claude-code/hooks",)

EVENTS: dict[str, str] = {
    "SessionStart": "SessionStart",
    "UserPromptSubmit": "UserPromptSubmit",
    "PreToolUse": "PreToolUse",
    "PostToolUse": "PostToolUse",
    "PostToolUseFailure": "PostToolUseFailure",
    "PreCompact": "PreCompact",
    "Stop": "Stop",
    "SubagentStop": "SubagentStop",
    "SessionEnd": "SessionEnd",
}
# Events whose exit code 2 blocks (or feeds stderr back to the model).
BLOCKING_EVENTS = frozenset(
    {"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop"}
)
# Events whose hookSpecificOutput.additionalContext reaches the model.
CONTEXT_EVENTS = frozenset(
    {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"}
)
PLAIN_STDOUT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit"})
PROJECT_DIR_ENV = "CLAUDE_PROJECT_DIR"


def parse(obj: dict[str, Any], event: str) -> dict[str, Any]:
    """Claude Code's payload is the neutral payload."""
    return obj


def render(event: str, canonical: str, result: Any) -> tuple[str, str, int]:
    """``(stdout, stderr, exit_code)`` for a handler result, per Claude Code's contract."""
    if result is None or result.is_empty():
        return "", "", 0
    if result.block_reason and canonical in BLOCKING_EVENTS:
        return block(result.block_reason)
    context = result.additional_context
    message = result.system_message
    if context and canonical not in CONTEXT_EVENTS:
        message = f"{message}\n\n{context}" if message else context
        context = None
    out: dict[str, Any] = {}
    if context:
        out["hookSpecificOutput"] = {
            "hookEventName": canonical,
            "additionalContext": cap_text(context, MAX_CONTEXT_CHARS),
        }
    if message:
        out["systemMessage"] = cap_text(message, MAX_MESSAGE_CHARS)
    if out:
        return dump(out), "", 0
    if result.plain_stdout and canonical in PLAIN_STDOUT_EVENTS:
        plain = cap_text(result.plain_stdout, MAX_CONTEXT_CHARS)
        if plain.lstrip().startswith("{"):  # the host would parse it as JSON; wrap it instead
            return (
                dump(
                    {"hookSpecificOutput": {"hookEventName": canonical, "additionalContext": plain}}
                ),
                "",
                0,
            )
        return plain + ("" if plain.endswith("\n") else "\n"), "", 0
    return "", "", 0


def transcripts_dir(env: Mapping[str, str] | None = None) -> Path:
    """Claude Code's transcripts: ``~/.claude/projects/<project>/<session>.jsonl``."""
    from conkeeper.domain.paths import home_dir

    return home_dir(env) / ".claude" / "projects"
