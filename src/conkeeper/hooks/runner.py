"""The one entry point of every host hook: ``conkeeper hook [--host NAME] EVENT``.

A hook must never hurt the agent (spec principle 2). So the runner reads a bounded payload,
lets the host module (``conkeeper.hosts.<name>``, Claude Code by default) map the host's event
name and payload to ConKeeper's neutral ones, hands them to the event's handler module, and lets
the host module turn the handler's :class:`HookResult` into the only output that host allows
(for Claude Code: a JSON object with ``hookSpecificOutput`` and/or ``systemMessage``, a block
with exit 2 and the reason on stderr for events that can block, or nothing).
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
from conkeeper.hosts import DEFAULT_HOST, get_host
from conkeeper.hosts.claude_code import BLOCKING_EVENTS, CONTEXT_EVENTS, PLAIN_STDOUT_EVENTS
from conkeeper.hosts.common import MAX_CONTEXT_CHARS, MAX_MESSAGE_CHARS, TRUNCATION_NOTE, cap_text

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
    "resolve_event",
    "run_hook",
]

DISABLE_ENV = "CONKEEPER_DISABLE_HOOKS"
MAX_STDIN_BYTES = 8 * 1024 * 1024
__all__ += ["BLOCKING_EVENTS", "CONTEXT_EVENTS", "MAX_MESSAGE_CHARS", "PLAIN_STDOUT_EVENTS"]
__all__ += ["TRUNCATION_NOTE", "cap_text", "render"]

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


def build_context(
    payload: HookPayload, event: str, env: Mapping[str, str], host: Any = None
) -> HookContext:
    """Resolve the project and settings for a payload: ``cwd``, else the host's project
    variable (``CLAUDE_PROJECT_DIR`` for Claude Code), else no project at all (handlers then
    write nothing)."""
    from conkeeper.domain.config import load_config
    from conkeeper.domain.paths import locate_project
    from conkeeper.storage.identity_cache import identifier, remember_folder

    project_env = getattr(host, "PROJECT_DIR_ENV", "CLAUDE_PROJECT_DIR")
    cwd = _usable_dir(payload.cwd) or (_usable_dir(env.get(project_env)) if project_env else None)
    location = locate_project(cwd, identifier(env)) if cwd is not None else None
    if location is not None:
        remember_folder(location.root_folder, env)  # the journal keys its files unscanned
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
        host=host.NAME if host is not None else DEFAULT_HOST,
    )
    if location is None:
        ctx.log(f"no usable cwd or {project_env}; nothing will be written", "WARNING")
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


def render(event: str, result: HookResult | None) -> tuple[str, str, int]:
    """``(stdout, stderr, exit_code)`` for a handler result, per Claude Code's contract."""
    from conkeeper.hosts import claude_code

    return claude_code.render(event, event, result)


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


def resolve_event(host: Any, event: str) -> tuple[str, str] | None:
    """``(host_event, canonical_event)`` for the name an agent passed; ``None`` if unknown."""
    if host.NAME == DEFAULT_HOST:
        canonical = canonical_event(event)
        return (canonical, canonical) if canonical else None
    if event in host.EVENTS:
        return event, host.EVENTS[event]
    wanted = event.strip().replace("-", "").replace("_", "").lower()
    for name, canonical in host.EVENTS.items():
        if name.replace("-", "").replace("_", "").lower() == wanted:
            return name, canonical
    return None


def run_hook(
    event: str,
    stdin_bytes: bytes | None = None,
    *,
    host: str | None = None,
    env: Mapping[str, str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Run one hook event end to end and return the process exit code (0, or 2 for a block).

    ``host`` names the agent whose contract the payload and output follow (Claude Code when
    omitted). ``stdin_bytes`` is the raw payload; when ``None`` it is read from stdin (capped).
    Never raises: every failure is logged and becomes exit 0 with nothing printed.
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    ctx: HookContext | None = None
    try:
        if hooks_disabled(environ):
            if stdin_bytes is None:
                read_stdin()  # drain the payload so the host never sees a broken pipe
            return 0
        try:
            agent = get_host(host)
        except KeyError:
            _log(f"hook: unknown host {host!r}; ignored", environ)
            return 0
        names = resolve_event(agent, event)
        if names is None:
            _log(f"hook: unknown event {event!r} for {agent.NAME}; ignored", environ)
            return 0
        host_event, canonical = names
        data = read_stdin() if stdin_bytes is None else stdin_bytes
        if data is None or len(data) > MAX_STDIN_BYTES:
            _log(f"hook {canonical}: payload larger than {MAX_STDIN_BYTES} bytes; ignored", environ)
            return 0
        obj = _decode_payload(data, canonical, environ)
        if obj is None:
            return 0
        neutral = agent.parse(obj, host_event)
        if agent.NAME != DEFAULT_HOST:  # e.g. a failed AfterTool is a PostToolUseFailure
            canonical = canonical_event(neutral.get("hook_event_name")) or canonical
        handler = _load_handler(canonical)
        if handler is None:
            return 0
        payload = parse_payload(neutral)
        ctx = build_context(payload, canonical, environ, agent)
        result = _cleaned_notices(handler.handle(ctx))
        ctx.close()
        out, err, code = agent.render(host_event, canonical, result)
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


def _cleaned_notices(result: HookResult | None) -> HookResult | None:
    """``result`` with its note to the user and its block reason cleaned whole by the privacy
    module (a notice may quote a file name, a prompt or an error); the injected context is
    cleaned where it is built. Imports nothing when there is no notice (the common case)."""
    if result is None or not (result.system_message or result.block_reason):
        return result
    from conkeeper.domain.messages import clean_message

    if result.system_message:
        result.system_message = clean_message(result.system_message)
    if result.block_reason:
        result.block_reason = clean_message(result.block_reason)
    return result


def _write(stream: IO[str], text: str) -> None:
    """Write ``text`` for the host as UTF-8, whatever the locale: under ``LC_ALL=C
    PYTHONUTF8=0`` (or a Latin-1 locale) stdout could not encode an em dash, and the whole
    context was dropped. A character UTF-8 cannot carry (a lone surrogate) becomes U+FFFD."""
    if not text:
        return
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:  # a text stream of the caller's (tests, in-process hosts)
            stream.write(text)
            stream.flush()
            return
        stream.flush()
        buffer.write(text.encode("utf-8", "replace"))
        buffer.flush()
    except (OSError, ValueError):
        pass
