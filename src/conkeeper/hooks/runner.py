"""The one entry point of every host hook: ``conkeeper hook EVENT``.

A hook must never hurt the agent (spec principle 2). So the runner reads a bounded payload,
hands it to the event's handler module, and turns the handler's :class:`HookResult` into the
only output the host contract allows: a JSON object with ``hookSpecificOutput`` and/or
``systemMessage``, a block (exit 2, reason on stderr) for events that can block, or nothing.
Every problem (bad input, a missing project, a locked database, a bug) is written to
ConKeeper's log and the hook exits 0 with nothing on stdout.

Handlers live in ``conkeeper.hooks.on_<name>`` and expose ``handle(ctx) -> HookResult | None``.
Imports stay lazy: only the handler for this event, and only what it uses, is loaded.

``CONKEEPER_DISABLE_HOOKS=1`` turns every hook into a no-op (exit 0, nothing printed, nothing
written). ConKeeper sets it for the ``claude`` process its LLM extractor starts, so that
session's own hooks do not capture the extractor's work into the user's memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

from conkeeper.hooks.payload import HookContext, HookPayload, HookResult, parse_payload

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO, Any

__all__ = [
    "EVENTS",
    "MAX_CONTEXT_CHARS",
    "MAX_STDIN_BYTES",
    "HookContext",
    "HookPayload",
    "HookResult",
    "build_context",
    "canonical_event",
    "run_hook",
]

DISABLE_ENV = "CONKEEPER_DISABLE_HOOKS"
MAX_STDIN_BYTES = 8 * 1024 * 1024
MAX_CONTEXT_CHARS = 9000
MAX_MESSAGE_CHARS = 2000
TRUNCATION_NOTE = "\n[ConKeeper: context truncated to fit the hook output limit]"

# canonical event name -> handler module under conkeeper.hooks
EVENTS: dict[str, str] = {
    "SessionStart": "on_session_start",
    "UserPromptSubmit": "on_prompt",
    "PreToolUse": "on_tool",
    "PostToolUse": "on_tool",
    "PostToolUseFailure": "on_tool",
    "PreCompact": "on_compact",
    "Stop": "on_stop",
    "SubagentStop": "on_stop",
    "SessionEnd": "on_session_end",
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

_LOOKUP = {name.lower(): name for name in EVENTS}


def canonical_event(name: str | None) -> str | None:
    """``PostToolUse`` for ``posttooluse``, ``post-tool-use``, ``post_tool_use``...; else None."""
    if not name:
        return None
    return _LOOKUP.get(name.strip().replace("-", "").replace("_", "").lower())


def read_stdin(stream: IO[bytes] | None = None, cap: int = MAX_STDIN_BYTES) -> bytes | None:
    """Read at most ``cap`` bytes of the payload; ``None`` when there is more than that."""
    source = stream if stream is not None else sys.stdin.buffer
    chunks: list[bytes] = []
    remaining = cap + 1
    while remaining > 0:
        chunk = source.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    data = b"".join(chunks)
    return None if len(data) > cap else data


def _log(message: str, env: Mapping[str, str], level: str = "WARNING") -> None:
    from conkeeper.storage.logfile import log

    log(message, level=level, env=env)


def _decode_payload(data: bytes, event: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    text = data.decode("utf-8", errors="replace").strip()
    if not text:
        _log(f"hook {event}: empty payload on stdin; ignored", env)
        return None
    try:
        obj = json.loads(text)
    except ValueError as exc:
        _log(f"hook {event}: malformed JSON payload ({exc}); ignored", env)
        return None
    if not isinstance(obj, dict):
        _log(f"hook {event}: payload is a JSON {type(obj).__name__}, not an object; ignored", env)
        return None
    return obj


def _usable_dir(value: str | None) -> Path | None:
    if not value or "\x00" in value:
        return None
    path = Path(value)
    try:
        return path if path.is_absolute() and path.is_dir() else None
    except OSError:
        return None


def build_context(payload: HookPayload, event: str, env: Mapping[str, str]) -> HookContext:
    """Resolve the project and settings for a payload: ``cwd``, else ``CLAUDE_PROJECT_DIR``,
    else no project at all (handlers then write nothing)."""
    from conkeeper.domain.config import load_config
    from conkeeper.domain.paths import locate_project

    cwd = _usable_dir(payload.cwd) or _usable_dir(env.get("CLAUDE_PROJECT_DIR"))
    location = locate_project(cwd) if cwd is not None else None
    loaded = load_config(location.root if location else None, env)
    memory_dir_exists = False
    if location is not None:
        try:
            memory_dir_exists = location.memory_dir.is_dir()
        except OSError:
            memory_dir_exists = False
    ctx = HookContext(
        payload=payload,
        event=event,
        location=location,
        config=loaded.config,
        env=env,
        memory_dir_exists=memory_dir_exists,
    )
    if location is None:
        ctx.log("no usable cwd or CLAUDE_PROJECT_DIR; nothing will be written", "WARNING")
    if loaded.warnings:
        _log_config_warnings(ctx, loaded.warnings)
    return ctx


def _log_config_warnings(ctx: HookContext, warnings: list[str]) -> None:
    """Log configuration warnings once per session, not on every tool call."""
    import zlib

    digest = f"{zlib.crc32(chr(10).join(warnings).encode('utf-8', 'replace')):08x}"
    if ctx.location is None:
        ctx.log("config: " + "; ".join(warnings), "WARNING")
        return

    def apply(data: dict[str, Any]) -> bool:
        if data.get("config_warnings") == digest:
            return False
        data["config_warnings"] = digest
        return True

    if ctx.state.update(apply):
        for warning in warnings:
            ctx.log(f"config: {warning}", "WARNING")


def cap_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, with a note saying it was cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(TRUNCATION_NOTE))] + TRUNCATION_NOTE


def render(event: str, result: HookResult | None) -> tuple[str, str, int]:
    """``(stdout, stderr, exit_code)`` for a handler result, per the host contract."""
    if result is None or result.is_empty():
        return "", "", 0
    if result.block_reason and event in BLOCKING_EVENTS:
        return "", cap_text(result.block_reason.strip(), MAX_MESSAGE_CHARS) + "\n", 2
    context = result.additional_context
    message = result.system_message
    if context and event not in CONTEXT_EVENTS:
        message = f"{message}\n\n{context}" if message else context
        context = None
    out: dict[str, Any] = {}
    if context:
        out["hookSpecificOutput"] = {
            "hookEventName": event,
            "additionalContext": cap_text(context, MAX_CONTEXT_CHARS),
        }
    if message:
        out["systemMessage"] = cap_text(message, MAX_MESSAGE_CHARS)
    if out:
        return json.dumps(out, ensure_ascii=False) + "\n", "", 0
    if result.plain_stdout and event in PLAIN_STDOUT_EVENTS:
        plain = cap_text(result.plain_stdout, MAX_CONTEXT_CHARS)
        if plain.lstrip().startswith("{"):  # the host would parse it as JSON; wrap it instead
            return render(event, HookResult(additional_context=plain))
        return plain + ("" if plain.endswith("\n") else "\n"), "", 0
    return "", "", 0


def hooks_disabled(env: Mapping[str, str]) -> bool:
    """Whether ``CONKEEPER_DISABLE_HOOKS`` asks every hook to do nothing."""
    return env.get(DISABLE_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def _load_handler(event: str) -> Any | None:
    name = f"conkeeper.hooks.{EVENTS[event]}"
    try:
        __import__(name)
        return sys.modules[name]
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None  # this event has no handler in this version
        raise


def run_hook(
    event: str,
    stdin_bytes: bytes | None = None,
    *,
    env: Mapping[str, str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Run one hook event end to end and return the process exit code (0, or 2 for a block).

    ``stdin_bytes`` is the raw payload; when ``None`` it is read from stdin (capped). Never
    raises: every failure is logged and becomes exit 0 with nothing printed.
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    ctx: HookContext | None = None
    try:
        if hooks_disabled(environ):
            if stdin_bytes is None:
                read_stdin()  # drain the payload so the host never sees a broken pipe
            return 0
        canonical = canonical_event(event)
        if canonical is None:
            _log(f"hook: unknown event {event!r}; ignored", environ)
            return 0
        data = read_stdin() if stdin_bytes is None else stdin_bytes
        if data is None or len(data) > MAX_STDIN_BYTES:
            _log(f"hook {canonical}: payload larger than {MAX_STDIN_BYTES} bytes; ignored", environ)
            return 0
        obj = _decode_payload(data, canonical, environ)
        if obj is None:
            return 0
        handler = _load_handler(canonical)
        if handler is None:
            return 0
        ctx = build_context(parse_payload(obj), canonical, environ)
        result = handler.handle(ctx)
        ctx.close()
        out, err, code = render(canonical, result)
        _write(stdout or sys.stdout, out)
        _write(stderr or sys.stderr, err)
        return code
    except BaseException:  # a hook must never fail the agent, whatever happened
        from conkeeper.storage.logfile import log_exception

        log_exception(f"hook {event} failed", env=environ)
        return 0
    finally:
        if ctx is not None:
            with contextlib.suppress(Exception):
                ctx.close()


def _write(stream: IO[str], text: str) -> None:
    if not text:
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        pass
