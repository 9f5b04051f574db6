"""Gemini CLI: hooks in ``settings.json`` (matcher groups like Claude Code, timeouts in
milliseconds, its own event and tool names), MCP servers under ``mcpServers`` of the same file.

Docs: https://geminicli.com/docs/hooks/reference (events, input and output fields, exit 2),
https://geminicli.com/docs/hooks (event table), https://geminicli.com/docs/tools/mcp-server
(``mcpServers``).
"""

from __future__ import annotations

from conkeeper.hosts.common import render_hook_output, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from conkeeper.hosts.spec import Integration

NAME = "gemini"
TITLE = "Gemini CLI"
DOCS = (
    "https://geminicli.com/docs/hooks/reference",
    "https://geminicli.com/docs/hooks",
    "https://geminicli.com/docs/tools/mcp-server",
)
PROJECT_DIR_ENV = "GEMINI_PROJECT_DIR"

EVENTS: dict[str, str] = {
    "SessionStart": "SessionStart",
    "BeforeAgent": "UserPromptSubmit",
    "BeforeTool": "PreToolUse",
    "AfterTool": "PostToolUse",
    "PreCompress": "PreCompact",
    "AfterAgent": "Stop",
    "SessionEnd": "SessionEnd",
}
# hookSpecificOutput.additionalContext reaches the model for these.
CONTEXT_EVENTS = frozenset({"SessionStart", "BeforeAgent", "AfterTool"})
# Exit 2 blocks the turn (BeforeAgent), the tool (BeforeTool) or retries (AfterAgent). On
# AfterTool it would replace the tool's result, so ConKeeper never blocks there.
BLOCKING_EVENTS = frozenset({"BeforeAgent", "BeforeTool", "AfterAgent"})
TIMEOUT_MS = {"SessionStart": 10000, "BeforeTool": 5000, "SessionEnd": 5000}
# Gemini CLI tool -> the Claude Code tool ConKeeper's capture understands.
TOOLS = {
    "run_shell_command": "Bash",
    "replace": "Edit",
    "write_file": "Write",
    "read_file": "Read",
    "read_many_files": "Read",
    "glob": "Glob",
    "search_file_content": "Grep",
    "grep_search": "Grep",
    "web_fetch": "WebFetch",
    "google_web_search": "WebSearch",
}


def _tool_input(obj: dict[str, Any]) -> dict[str, Any]:
    tool_input = obj.get("tool_input")
    if not isinstance(tool_input, dict):
        return {}
    if "absolute_path" in tool_input and "file_path" not in tool_input:
        return {**tool_input, "file_path": tool_input["absolute_path"]}
    return tool_input


def parse(obj: dict[str, Any], event: str) -> dict[str, Any]:
    """Gemini's fields as ConKeeper's: tool names, ``tool_response.error`` and a shell
    command's ``Exit Code:``/``Signal:`` lines mapped (a killed command is interrupted)."""
    canonical = EVENTS.get(event, event)
    neutral: dict[str, Any] = {
        "session_id": obj.get("session_id"),
        "transcript_path": obj.get("transcript_path"),
        "cwd": obj.get("cwd"),
        "hook_event_name": canonical,
        "source": obj.get("source"),
        "prompt": _user_prompt(obj.get("prompt")),
        "trigger": obj.get("trigger"),
        "reason": obj.get("reason"),
        "stop_hook_active": obj.get("stop_hook_active"),
        "last_assistant_message": obj.get("prompt_response"),
    }
    if event == "PreCompress" and obj.get("trigger") != "manual":
        neutral["compaction_due"] = compression_due(obj)
    tool = text_of(obj.get("tool_name"))
    if tool:
        neutral["tool_name"] = TOOLS.get(tool, tool)
        neutral["tool_input"] = _tool_input(obj)
    response = obj.get("tool_response")
    if isinstance(response, dict):
        error = response.get("error")
        if error:
            neutral["hook_event_name"] = "PostToolUseFailure"
            message = error.get("message") if isinstance(error, dict) else error
            neutral["error"] = text_of(message) or str(message)
        else:
            output = text_of(response.get("llmContent")) or ""
            neutral["tool_response"] = {"stdout": output}
            code = _exit_code(output) if tool == "run_shell_command" else None
            signal = _signal(output) if tool == "run_shell_command" else None
            if signal is not None:  # killed: neither a pass nor a failure of the command
                neutral["hook_event_name"] = "PostToolUseFailure"
                neutral["is_interrupt"] = True
                neutral["error"] = f"killed by signal {signal}"
            elif code:
                neutral["hook_event_name"] = "PostToolUseFailure"
                neutral["error"] = f"exit code {code}"
            if code is not None:
                neutral["tool_response"]["exit_code"] = code
    return neutral


# Gemini CLI compresses when the last reply's prompt tokens reach ``model.compressionThreshold``
# (default 0.5) of the model's window (``tokenLimit``: 1,048,576, Gemma 4 256,000).
DEFAULT_COMPRESSION_THRESHOLD = 0.5
TOKEN_LIMIT, GEMMA_4_TOKEN_LIMIT = 1_048_576, 256_000
GEMMA_4_MODELS = frozenset({"gemma-4-31b-it", "gemma-4-26b-a4b-it"})
CHAT_TAIL_BYTES, CHAT_MAX_TAIL_BYTES = 64 * 1024, 4 * 1024 * 1024


def compression_due(obj: dict[str, Any]) -> bool:
    """Whether Gemini CLI will really compress now. Its PreCompress (trigger ``auto``) fires
    before every model call and carries no token count; the call compresses only when the
    chat file's last reply used at least the threshold of the model's window. Unknown (no
    chat file, no reply yet) is not due: a checkpoint per model call would be worse than none."""
    reply = _last_reply_usage(obj.get("transcript_path"))
    if reply is None:
        return False
    tokens, model = reply
    limit = GEMMA_4_TOKEN_LIMIT if model in GEMMA_4_MODELS else TOKEN_LIMIT
    return tokens >= _compression_threshold(text_of(obj.get("cwd"))) * limit


def _compression_threshold(cwd: str | None) -> float:
    """``model.compressionThreshold`` of the project's then the user's ``settings.json``."""
    import json
    from pathlib import Path

    from conkeeper.domain.paths import home_dir

    folders = [Path(cwd) / ".gemini"] if cwd else []
    for path in [*folders, home_dir() / ".gemini"]:
        try:
            model = json.loads(path.joinpath("settings.json").read_text("utf-8")).get("model")
            value = model.get("compressionThreshold") if isinstance(model, dict) else None
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1:
            return float(value)
    return DEFAULT_COMPRESSION_THRESHOLD


def _last_reply_usage(path: object) -> tuple[int, str] | None:
    """``(input tokens, model)`` of the chat file's last ``gemini`` message with token counts,
    read from the file's tail (doubled up to a cap when one message is longer than it)."""
    import os

    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    tail = CHAT_TAIL_BYTES
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            while True:
                handle.seek(max(0, size - tail))
                found = _usage_in(handle.read(), whole=tail >= size)
                if found is not None or tail >= min(size, CHAT_MAX_TAIL_BYTES):
                    return found
                tail *= 2
    except OSError:
        return None


def _usage_in(data: bytes, whole: bool) -> tuple[int, str] | None:
    """The last reply's usage among the JSON lines of ``data`` (its first line is partial
    unless ``whole``): a message line, a ``$set`` of the message list, or a whole chat."""
    import json

    lines = data.splitlines()
    for line in reversed(lines if whole else lines[1:]):
        if b'"tokens"' not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        for message in reversed(_messages_of(record)):
            tokens = message.get("tokens") if isinstance(message, dict) else None
            count = tokens.get("input") if isinstance(tokens, dict) else None
            if message.get("type") == "gemini" and isinstance(count, int):
                return count, text_of(message.get("model")) or ""
    return None


def _messages_of(record: object) -> list[Any]:
    """The messages one chat-file record holds: itself, or a ``messages`` list (under
    ``$set`` when Gemini CLI rewrites the list, at top level in a whole-file chat)."""
    if not isinstance(record, dict):
        return []
    if record.get("type") == "gemini":
        return [record]
    update = record.get("$set")
    messages = (update if isinstance(update, dict) else record).get("messages")
    return messages if isinstance(messages, list) else []


HOOK_CONTEXT_OPEN, HOOK_CONTEXT_CLOSE = "<hook_context>", "</hook_context>"


def _user_prompt(value: object) -> str | None:
    """The prompt the user typed. In non-interactive mode Gemini CLI prepends SessionStart
    context to it inside ``<hook_context>`` (HTML-escaped); that is ConKeeper's own memory
    and must never be stored or scanned as if the user had written it."""
    text = text_of(value)
    if text is None or not text.startswith(HOOK_CONTEXT_OPEN):
        return text
    end = text.find(HOOK_CONTEXT_CLOSE)
    if end < 0:
        return ""
    return text[end + len(HOOK_CONTEXT_CLOSE) :].lstrip("\n")


def _exit_code(output: str) -> int | None:
    """The ``Exit Code: N`` line run_shell_command adds to its output for a non-zero exit."""
    marker = output.rfind("Exit Code: ")
    if marker < 0:
        return None
    digits = output[marker + 11 :].split("\n", 1)[0].strip()
    return int(digits) if digits.isdigit() else None


def _signal(output: str) -> str | None:
    """The ``Signal: N`` line run_shell_command adds when a signal killed the command
    (``Signal: (none)`` otherwise, or no line)."""
    marker = output.rfind("Signal: ")
    if marker < 0:
        return None
    value = output[marker + 8 :].split("\n", 1)[0].strip()
    return value if value and value != "(none)" and value.isalnum() else None


def render(event: str, canonical: str, result: Any) -> tuple[str, str, int]:
    """``hookSpecificOutput.additionalContext`` and ``systemMessage``; exit 2 to block."""
    return render_hook_output(event, result, CONTEXT_EVENTS, BLOCKING_EVENTS)


def transcripts_dir(env: Mapping[str, str] | None = None) -> Path:
    """Gemini CLI keeps chats under ``~/.gemini/tmp/<project hash>/``."""
    from conkeeper.domain.paths import home_dir

    return home_dir(env) / ".gemini" / "tmp"


def integration(
    scope: str, root: Path, env: Mapping[str, str] | None = None, launcher: str | None = None
) -> Integration:
    """Hooks and ``mcpServers`` in ``.gemini/settings.json`` (or ``~/.gemini/settings.json``)."""
    from conkeeper.domain.paths import home_dir
    from conkeeper.hosts.spec import (
        HookEvent,
        HooksFile,
        Integration,
        McpRegistration,
        hook_command,
        mcp_server_entry,
    )

    base = root / ".gemini" if scope == "project" else home_dir(env) / ".gemini"
    # Lifecycle matchers are exact strings, not regexes: SessionStart gets none (every source).
    matchers = {"BeforeTool": "run_shell_command"}
    events = tuple(
        HookEvent(name, canonical, matchers.get(name), TIMEOUT_MS.get(name, 10000))
        for name, canonical in EVENTS.items()
    )

    def handler(event: HookEvent) -> dict[str, Any]:
        return {
            "name": f"conkeeper-{event.name}",
            "type": "command",
            "command": hook_command(NAME, event.name, launcher),
            "timeout": event.timeout,
        }

    path = base / "settings.json"
    return Integration(
        agent=NAME,
        scope=scope,
        hooks=HooksFile(path, "grouped", events, handler),
        mcp=McpRegistration(path, "mcpServers", mcp_server_entry(launcher)),
    )
