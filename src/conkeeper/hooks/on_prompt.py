"""UserPromptSubmit: count and store the prompt, queue corrections, run the context monitor.

The prompt is read from the payload's ``prompt`` field (Claude Code never sends
``user_message``; reading that silently disabled correction capture in a comparable tool).
It is privacy-cleaned before anything else sees it: a prompt that is entirely private is not
stored, not queued, and marks the turn private so its tool events are not captured either.

The context monitor (``services.capture.monitor.check``) runs first: when it blocks the prompt
(exit 2 at the hard threshold), the prompt never reaches the model, so it is not counted.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from conkeeper.domain.privacy import CleanText
    from conkeeper.hooks.payload import HookContext, HookResult

START_SOURCE = "start_source"  # state key: how the host last started this session
FRESH_STARTS = frozenset({"startup", "clear"})  # starts that carry no earlier turn over


def handle(ctx: HookContext) -> HookResult | None:
    """Monitor, then capture; returns the monitor's nudge or block, if any."""
    if ctx.location is None:
        return None
    result = monitor_result(ctx)
    if result is not None and result.block_reason:
        return result
    from conkeeper.hooks.memory_look import look

    # what the person edited in memory between turns is theirs, not the next tool's
    look(ctx, lambda: _capture_prompt(ctx))
    from conkeeper.hooks.instruction_look import look as look_at_instructions

    look_at_instructions(ctx)  # what the person wrote into CLAUDE.md between turns is theirs
    return result


def monitor_result(ctx: HookContext) -> HookResult | None:
    """The context monitor's verdict for this prompt as hook output (logged when it acts)."""
    try:
        from conkeeper.services.capture import monitor

        verdict = monitor.check(
            ctx.state,
            ctx.payload.transcript_path,
            ctx.config,
            ctx.env,
            model_hint=str(ctx.payload.raw.get("model") or ""),
            project_root=ctx.location.root if ctx.location else None,
        )
    except Exception:
        from conkeeper.storage.logfile import log_exception

        log_exception("hook UserPromptSubmit: context monitor failed", env=ctx.env)
        return None
    if verdict is None:
        return None
    from conkeeper.hooks.payload import HookResult

    reading = verdict.reading
    where = f"context {reading.percent:.0f}% of {reading.window}"
    if verdict.action == "block":
        ctx.log(f"{where}: blocked once for a sync")
        return HookResult(block_reason=verdict.message)
    ctx.log(f"{where}: sync requested")
    return HookResult(additional_context=verdict.message)


def _capture_prompt(ctx: HookContext) -> None:
    from conkeeper.domain.privacy import clean_captured

    cleaned = clean_captured(ctx.payload.prompt or "")

    def apply(data: dict[str, Any]) -> int:
        current = data.get("prompt_number")
        number = (current if isinstance(current, int) and not isinstance(current, bool) else 0) + 1
        data["prompt_number"] = number
        data["private_turn"] = cleaned is None
        return number

    number = ctx.state.update(apply)
    if cleaned is None:
        return
    number = _store(ctx, number, cleaned)
    _queue_correction(ctx, cleaned, opening=_opens_conversation(ctx, number))


def _opens_conversation(ctx: HookContext, number: int) -> bool:
    """Whether this prompt is the first of a conversation the agent has not spoken in yet:
    prompt 1 of a session its host started afresh (``startup`` or ``clear``). After a
    ``resume`` or a ``compact`` the host carries earlier turns over, and a session whose start
    ConKeeper never saw may have had them: both keep their corrections."""
    if number != 1:
        return False
    try:
        source = ctx.state.get(START_SOURCE)
    except Exception:
        return False
    return source in FRESH_STARTS


def _store(ctx: HookContext, number: int, cleaned: CleanText) -> int:
    """Store the prompt; returns the number it was stored under (the state's, or the next free
    one when the state lost count)."""
    from conkeeper.storage import sessions

    try:
        conn = ctx.store()
        session = ctx.session_id()
        used = sessions.store_prompt(conn, session, number, cleaned)
        sessions.set_title_if_missing(conn, session, cleaned)
        if used != number:
            _renumber(ctx, number, used)
        return used
    except Exception:
        from conkeeper.storage import journal
        from conkeeper.storage.logfile import log_exception
        from conkeeper.storage.store import now_ms

        log_exception("hook UserPromptSubmit: could not store the prompt", env=ctx.env)
        row = {"prompt_number": number, "text": cleaned, "created_at": now_ms()}
        ctx.keep_for_later(journal.PROMPT, row)
        return number


def _renumber(ctx: HookContext, number: int, used: int) -> None:
    """The session's state lost its prompt count (pruned after weeks idle, then resumed), so
    the prompt was stored under the next free number: the tool uses that follow are tied to
    that prompt, not to an old one of the same number."""

    def apply(data: dict[str, Any]) -> None:
        if data.get("prompt_number") == number:  # no later prompt took over meanwhile
            data["prompt_number"] = used

    ctx.state.update(apply)


def _queue_correction(ctx: HookContext, cleaned: str, *, opening: bool) -> None:
    """Queue the prompt when it reads as a correction or friction. An ``opening`` prompt has
    no agent turn of this session before it, so the learned scorer's flag alone does not make
    it a correction (a new task's wording reads like one); a rule or a structural shape does
    ("No, we use pytest not unittest here" often answers the previous session's work)."""
    if not ctx.memory_dir_exists or ctx.location is None:
        return
    from conkeeper.services.analysis import corrections

    try:
        found = corrections.detect(cleaned, ctx.config.correction_sensitivity)
        if found.label is None or (opening and found.scorer_only):
            return
        ignore = corrections.load_ignore_patterns(ctx.location.root)
        if corrections.is_ignored(cleaned, ignore):
            return
        excerpt = corrections.queue_excerpt(cleaned, found)
        corrections.append_to_queue(ctx.location.memory_dir, found.label, excerpt)
        ctx.state.update(_count_queued)
    except Exception:
        from conkeeper.storage.logfile import log_exception

        log_exception("hook UserPromptSubmit: could not queue a correction", env=ctx.env)


def _count_queued(data: dict[str, Any]) -> None:
    """Per-session count of queued items (the Stop hook's evidence for suggesting reflection)."""
    current = data.get("corrections_queued")
    valid = isinstance(current, int) and not isinstance(current, bool)
    data["corrections_queued"] = (current + 1) if valid and current is not None else 1
