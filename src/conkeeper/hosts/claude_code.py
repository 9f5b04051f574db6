"""Claude Code: ConKeeper's reference host (spec §6). Its payloads already are the neutral
shape, and its output contract is the one the handlers were written for. It is installed either
as the plugin (``hooks/hooks.json``, generated from :data:`HOOK_SPECS`) or, like every other
agent, by ``conkeeper install`` through :func:`integration` (hooks in a settings file).

Docs: https://docs.claude.com/en/docs/claude-code/hooks (events, input, JSON output, exit 2).
"""

from __future__ import annotations

from conkeeper.hosts.common import MAX_CONTEXT_CHARS, MAX_MESSAGE_CHARS, block, cap_text, dump

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from conkeeper.hosts.spec import Integration


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
# ``conkeeper install`` scopes, the default first: ~/.claude/settings.json,
# <project>/.claude/settings.json, <project>/.claude/settings.local.json.
INSTALL_SCOPES = ("user", "project", "local")


class HookSpec:
    """One event ConKeeper listens to: matcher (``None`` where the event takes none) and the
    host's timeout in seconds (a safety net; the hooks themselves finish far sooner). A plain
    class: this module is on the hook path, which imports no ``dataclasses``."""

    __slots__ = ("event", "matcher", "timeout")

    def __init__(self, event: str, matcher: str | None, timeout: int) -> None:
        self.event = event
        self.matcher = matcher
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"HookSpec({self.event!r}, {self.matcher!r}, {self.timeout})"


# The plugin's hooks.json and settings installs register exactly these.
HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", "startup|resume|clear|compact", 10),
    HookSpec("UserPromptSubmit", None, 10),
    # PreToolUse only marks the start time of tools whose duration is worth knowing.
    HookSpec("PreToolUse", "Bash|Task|WebFetch|WebSearch", 5),
    HookSpec("PostToolUse", "*", 10),
    HookSpec("PostToolUseFailure", "*", 10),
    HookSpec("PreCompact", "manual|auto", 10),
    HookSpec("Stop", None, 10),
    # SessionEnd has a total budget of about 1.5 s; the hook detaches anything longer.
    HookSpec("SessionEnd", None, 5),
)


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


def settings_file(scope: str, root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The settings file of a scope (``user``, ``project`` or ``local``)."""
    from conkeeper.domain.paths import home_dir

    if scope == "user":
        return home_dir(env) / ".claude" / "settings.json"
    return root / ".claude" / ("settings.json" if scope == "project" else "settings.local.json")


def integration(
    scope: str, root: Path, env: Mapping[str, str] | None = None, launcher: str | None = None
) -> Integration:
    """ConKeeper's hooks in the scope's settings file (for a pip install without the plugin)."""
    from conkeeper.hosts.spec import HookEvent, HooksFile, Integration, python_command

    events = tuple(HookEvent(s.event, s.event, s.matcher, s.timeout) for s in HOOK_SPECS)

    def handler(event: HookEvent) -> dict[str, Any]:
        command = f"{python_command(launcher)} hook {event.name}"
        return {"type": "command", "command": command, "timeout": event.timeout}

    return Integration(
        agent=NAME,
        scope=scope,
        hooks=HooksFile(settings_file(scope, root, env), "grouped", events, handler),
    )
