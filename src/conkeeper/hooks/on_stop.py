"""Stop: suggest ``/memory-reflect`` once per session, and only when there is something to learn.

Stop fires at the end of every assistant turn, not when the session ends, so this stays silent
almost always: it speaks at most once per session (a flag set atomically in the session state),
never while the host is already continuing because of a Stop hook (``stop_hook_active``), never
for subagents, and only with evidence — repeated tool failures, a queued correction, or a long
session. It never blocks (``decision: block`` would force the agent to keep going); the
suggestion is a ``systemMessage`` for the user, who decides.
"""

from __future__ import annotations

from typing import Any

from conkeeper.hooks.payload import HookContext, HookResult

MIN_FAILURES = 2
MIN_CORRECTIONS = 1
MIN_TOOL_EVENTS = 30


def handle(ctx: HookContext) -> HookResult | None:
    """Start per-turn LLM extraction when configured; suggest reflection once, with evidence."""
    if ctx.location is None or ctx.event != "Stop" or ctx.payload.stop_hook_active:
        return None
    from conkeeper.hosts import get_host

    host = get_host(ctx.host)
    if getattr(host, "UNHOOKED_EDITS", False):
        from conkeeper.hooks.memory_look import take_turn_edits

        take_turn_edits(ctx)
        record_unhooked_tool_uses(ctx, host.unhooked_tool_uses(ctx.payload.raw))
    from conkeeper.hooks.instruction_look import after_turn

    held = after_turn(ctx)  # an instruction file written by a tool no hook reported
    start_turn_extraction(ctx)
    if held:
        return HookResult(system_message=held)
    if ctx.config.output_style == "quiet":
        return None
    from conkeeper.services.upkeep.freshness.health import stop_reminder

    behind = stop_reminder(ctx.location, ctx.state, ctx.env)
    if behind:
        return HookResult(system_message=behind)
    if ctx.state.get("reflect_suggested"):
        return None
    evidence = gather_evidence(ctx)
    reason = evidence_reason(evidence)
    if reason is None:
        return None

    def claim(data: dict[str, Any]) -> bool:
        if data.get("reflect_suggested"):
            return False
        data["reflect_suggested"] = True
        return True

    if not ctx.state.update(claim):
        return None
    ctx.log(f"suggested /memory-reflect ({reason})")
    return HookResult(
        system_message=(
            f"ConKeeper: {reason} in this session. When you have a moment, run /memory-reflect "
            "to turn them into lessons ConKeeper keeps for next time."
        )
    )


def record_unhooked_tool_uses(ctx: HookContext, uses: list[dict[str, Any]]) -> None:
    """Store the turn's tool uses the host fired no PostToolUse for (Codex's ``apply_patch``)
    as the post-tool hook would have: a ``tool_events`` row each (once per id, so a turn read
    again adds nothing) and its observation log line. Nothing in a private turn, or with the
    observation hook off."""
    if not uses or not ctx.config.observation_hook or ctx.location is None:
        return
    state = ctx.state.read()
    if state.get("private_turn"):
        return
    number = state.get("prompt_number")
    number = number if isinstance(number, int) and not isinstance(number, bool) else 0
    from conkeeper.hooks.on_tool import record_event
    from conkeeper.hooks.payload import parse_payload
    from conkeeper.services.capture import events as capture

    for use in uses:
        payload = parse_payload(use)
        outcome: tuple[str, Any, int | None]
        if payload.hook_event_name == "PostToolUseFailure":
            outcome = capture.outcome_from_failure(payload.error, False)
        else:
            outcome = capture.outcome_from_response(payload.tool_response)
        at_ms = use.get("at_ms")
        event = capture.build_event(
            tool_name=payload.tool_name,
            tool_input=payload.tool_input,
            tool_use_id=payload.tool_use_id,
            outcome=outcome,
            root=ctx.location.root,
            now=at_ms / 1000 if isinstance(at_ms, int) else None,
        )
        record_event(ctx, number, event, event.created_at)


def start_turn_extraction(ctx: HookContext) -> None:
    """With an LLM extractor, extract the finished turn in a detached process.

    Spec F11: LLM extraction runs per turn, never per tool call and never inside the hook's
    wait. The local extractor needs no per-turn pass: SessionEnd runs it for the whole session.
    The extract command holds its own lock, so overlapping turns never extract twice.
    """
    if ctx.config.extractor == "local" or ctx.state.get("private_turn"):
        return
    from conkeeper.hooks.on_session_end import start_detached

    start_detached(ctx, ["extract", "--session", ctx.payload.session_id, "--no-summary", "--quiet"])


def gather_evidence(ctx: HookContext) -> dict[str, int]:
    """Counts for this session: tool events, failed ones, corrections queued."""
    counts = {"events": 0, "failures": 0, "corrections": 0}
    started_ms = None
    try:
        from conkeeper.storage.sessions import session_activity

        events, failures, started_ms = session_activity(ctx.store(), ctx.session_id())
        counts["events"], counts["failures"] = events, failures
    except Exception as exc:
        ctx.log(f"tool events unavailable for the reflection check: {exc}", "WARNING")
    counts["corrections"] = _corrections_since(ctx, started_ms)
    return counts


def _corrections_since(ctx: HookContext, started_ms: int | None) -> int:
    """Queue entries written since the session started (their stamps are local time)."""
    from conkeeper.domain.corrections_queue import QUEUE_NAME, count_entries

    recorded = ctx.state.get("corrections_queued")
    if isinstance(recorded, int) and not isinstance(recorded, bool) and recorded > 0:
        return recorded
    if started_ms is None or ctx.location is None or not ctx.memory_dir_exists:
        return 0
    try:
        text = (ctx.location.memory_dir / QUEUE_NAME).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    return count_entries(text, since_epoch=started_ms / 1000)


def evidence_reason(counts: dict[str, int]) -> str | None:
    """A short phrase naming the strongest evidence, or ``None`` when there is not enough."""
    parts = []
    if counts["failures"] >= MIN_FAILURES:
        parts.append(f"{counts['failures']} tool runs failed")
    if counts["corrections"] >= MIN_CORRECTIONS:
        parts.append(f"{counts['corrections']} correction(s) were queued")
    if not parts and counts["events"] >= MIN_TOOL_EVENTS:
        parts.append(f"{counts['events']} tool uses happened")
    return " and ".join(parts) if parts else None
