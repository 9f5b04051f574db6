"""PreCompact (manual or auto): write a handoff checkpoint before the context is summarised.

The next SessionStart (source ``compact``) injects it once, so the agent resumes with its
focus, the state of the work tree and its next steps rather than only the host's summary.
Prints nothing: PreCompact output does not reach the model.
"""

from __future__ import annotations

from conkeeper.hooks.payload import HookContext, HookResult


def handle(ctx: HookContext) -> HookResult | None:
    """Collect and store the checkpoint; the database part is optional."""
    from conkeeper.services.capture import handoff

    if ctx.location is None or ctx.payload.compaction_due is False:
        return None  # a host that fires PreCompact before every model call (Gemini CLI)
    trigger = (ctx.payload.trigger or "").strip().lower()
    trigger = trigger if trigger in ("manual", "auto") else "auto"
    conn = session_row = None
    try:
        conn = ctx.store()
        session_row = ctx.session_id()
    except Exception as exc:
        ctx.log(f"database unavailable, checkpoint without session facts: {exc}", "WARNING")
    data = handoff.collect_checkpoint(
        ctx.location,
        conn,
        ctx.payload.session_id,
        session_row,
        trigger=trigger,
        instructions=ctx.payload.custom_instructions,
    )
    path = handoff.write_checkpoint(ctx.location, data, ctx.env)
    ctx.log(f"handoff checkpoint ({trigger}) written to {path}")
    if ctx.config.output_style == "verbose":
        return HookResult(
            system_message="ConKeeper saved a handoff checkpoint for after compaction."
        )
    return None
