"""PreToolUse, PostToolUse and PostToolUseFailure: timing, capture and save reminders.

This is the hottest path (every tool call), so it does the minimum: one locked state update
(tool start time, prompt number, privacy of the turn, save counter), one ``INSERT OR IGNORE``
and one locked append. It never imports search or indexing. Each write is guarded on its own,
so a locked database still leaves the log line and an unwritable memory folder still leaves
the database row; every failure is logged.
"""

from __future__ import annotations

from conkeeper.hooks.payload import HookResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from conkeeper.domain.privacy import CleanText
    from conkeeper.hooks.payload import HookContext


def handle(ctx: HookContext) -> HookResult | None:
    """Dispatch on the tool event."""
    if ctx.location is None:
        return None
    if ctx.event == "PreToolUse":
        _record_start(ctx)
        return None
    return _after_tool(ctx)


def _record_start(ctx: HookContext) -> None:
    """Remember the start time for the duration; nothing else, no output."""
    if ctx.payload.tool_use_id and ctx.config.observation_hook:
        from conkeeper.storage.state import record_tool_start

        record_tool_start(ctx.state, ctx.payload.tool_use_id)


def _after_tool(ctx: HookContext) -> HookResult | None:
    from conkeeper.services.capture import reminders
    from conkeeper.storage.state import now_ms, pop_tool_start

    tool_use_id = ctx.payload.tool_use_id
    interval = ctx.config.save_interval if ctx.memory_dir_exists else 0
    stamp = now_ms()

    def apply(data: dict[str, Any]) -> tuple[bool, int, int | None, int | None]:
        start = pop_tool_start(data, tool_use_id) if tool_use_id else None
        number = data.get("prompt_number")
        number = number if isinstance(number, int) and not isinstance(number, bool) else 0
        return bool(data.get("private_turn")), number, start, reminders.tick(data, interval)

    private, prompt_number, start, due = ctx.state.update(apply)
    if ctx.config.observation_hook and not private:
        duration = max(0, stamp - start) if start is not None else None
        _capture(ctx, prompt_number, duration, stamp / 1000)
    warning = _memory_write_warning(ctx) if ctx.payload.tool_name in _WRITE_TOOLS else None
    if due is not None:
        return HookResult(additional_context=reminders.reminder_text(due), system_message=warning)
    return HookResult(system_message=warning) if warning else None


_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})


def _memory_write_warning(ctx: HookContext) -> str | None:
    """A note for the user when the agent wrote instruction-shaped text straight into a memory
    file with its own edit tools (bypassing ``remember``'s review): the next session would read
    it. Only edits inside the memory folder are checked; the text is never echoed."""
    if ctx.event != "PostToolUse" or ctx.location is None or not ctx.memory_dir_exists:
        return None
    tool_input = ctx.payload.tool_input
    target = str(tool_input.get("file_path") or "")
    memory = str(ctx.location.memory_dir)
    if not target.startswith(memory + "/") or "/sessions/" in target[len(memory) :]:
        return None
    edits = tool_input.get("edits")
    pieces = [tool_input.get("content"), tool_input.get("new_string")]
    if isinstance(edits, list):
        pieces.extend(e.get("new_string") for e in edits if isinstance(e, dict))
    written = "\n".join(p for p in pieces if isinstance(p, str))
    if not written:
        return None
    relative = target[len(memory) + 1 :]
    from conkeeper.storage import agent_edits

    # Every line the agent wrote is remembered as the agent's: SessionStart leaves out those
    # that read like instructions until the user keeps them (`conkeeper review`).
    try:
        agent_edits.record(ctx.location.memory_dir, relative, written)
    except OSError as exc:
        from conkeeper.storage.logfile import log

        log(f"hook PostToolUse: agent edit of {relative} not recorded ({exc})", env=ctx.env)
    # The phrase rules alone: this is a notice, not a hold, so their stricter reading costs the
    # user little, and the learned scorer's import would cost this hook ~3 ms of CPU per call
    # (bench/poisoning_hook_ab.py). What SessionStart injects is still judged by both.
    from conkeeper.domain.instructions import rule_findings

    found = rule_findings(written)
    if not found:
        return None
    from conkeeper.storage.logfile import log

    log(f"hook PostToolUse: instruction-shaped text written to memory {relative}", env=ctx.env)
    return (
        f"ConKeeper: the agent wrote text that reads like an instruction into memory file "
        f"{relative} ({found[0].reason}). It is held from the next sessions until you keep or "
        "drop it: conkeeper review."
    )


def _capture(ctx: HookContext, prompt_number: int, duration: int | None, when: float) -> None:
    from conkeeper.services.capture import events as capture

    payload = ctx.payload
    outcome: tuple[str, CleanText | None, int | None]
    if ctx.event == "PostToolUseFailure":
        outcome = capture.outcome_from_failure(payload.error, payload.is_interrupt)
    else:
        outcome = capture.outcome_from_response(payload.tool_response)
    event = capture.build_event(
        tool_name=payload.tool_name,
        tool_input=payload.tool_input,
        tool_use_id=payload.tool_use_id,
        outcome=outcome,
        root=ctx.location.root if ctx.location else None,
        duration_ms=duration,
        now=when,
    )
    new = True
    try:
        new = capture.store_event(ctx.store(), ctx.session_id(), prompt_number, event)
    except Exception:
        from conkeeper.storage.logfile import log_exception

        log_exception(f"hook {ctx.event}: could not store tool event", env=ctx.env)
    if not new:  # a re-delivered payload: already logged once
        return
    line = capture.format_log_line(event, ctx.config.observation_detail)
    if line is None or not ctx.memory_dir_exists or ctx.location is None:
        return
    try:
        capture.append_observation(ctx.location.memory_dir, line, when)
    except Exception:
        from conkeeper.storage.logfile import log_exception

        log_exception(f"hook {ctx.event}: could not append to the observation log", env=ctx.env)
