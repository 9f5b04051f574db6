"""SessionStart (startup, resume, clear, compact): give the agent its memory.

Records the session, claims a pending handoff checkpoint (after a compaction: this session's
own PreCompact checkpoint), and injects the budgeted, privacy-stripped ``<conkeeper-memory>``
block built by :mod:`conkeeper.services.context`, with the freshness notes: possibly stale
entries (cached), memory files behind the code and what changed since the last sync (asked of
git for this session). On ``resume`` of a
session that already holds the block, only what changed since is injected. The database is
optional here: when it is locked or damaged, memory files still load and the problem goes to
the log.
"""

from __future__ import annotations

import contextlib
import os
import time

from conkeeper.hooks.payload import HookResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

    from conkeeper.hooks.payload import HookContext
    from conkeeper.services.context import SessionInfo
    from conkeeper.services.upkeep.freshness.health import SessionFreshness
    from conkeeper.services.upkeep.freshness.report import Report

PRUNE_EVERY_S = 6 * 3600
MAX_NAMED = 8  # files named in the systemMessage; the rest are counted


def handle(ctx: HookContext) -> HookResult | None:
    """Build and return the session-start context."""
    from conkeeper.services.context import SessionInfo, build_session_context

    if ctx.location is None:
        return None
    _prune_state(ctx)
    from conkeeper.hooks.memory_look import look

    look(ctx)  # the session's first look: the lines there now are not its tools' writes
    from conkeeper.hooks.instruction_look import look as look_at_instructions

    look_at_instructions(ctx)  # and the instruction files' lines now are not its tools' either
    _note_folder(ctx)
    source = (ctx.payload.source or "startup").strip().lower() or "startup"
    info = SessionInfo(source=source, host_session_id=ctx.payload.session_id)
    _note_start(ctx, source)
    notes: list[str] = []
    conn = _open_store(ctx, info, notes)
    if ctx.config.auto_load:
        info.handoff = _claim_handoff(ctx, source)
        info.injected_at = _mark_injected(ctx, source)
        info.freshness = _freshness(ctx)
        info.health = _health(ctx)
        info.team = _team(ctx)
    problems: list[str] = []
    unread: list[str] = []
    text = build_session_context(
        ctx.location, ctx.config, conn, info, env=ctx.env, problems=problems, notes=unread
    )
    for problem in problems:
        ctx.log(problem, "WARNING")
    for note in unread:
        ctx.log(f"memory file not read whole: {note}", "WARNING")
    parts = [" ".join(notes), unread_files_message(unread) or ""]
    return HookResult(
        additional_context=text, system_message="\n".join(p for p in parts if p) or None
    )


def _note_start(ctx: HookContext, source: str) -> None:
    """Record how the host started the session: its first prompt is no correction when the
    start carried no earlier turn over (see ``on_prompt``)."""
    from conkeeper.hooks.on_prompt import START_SOURCE

    def apply(data: dict[str, object]) -> None:
        data[START_SOURCE] = source

    try:
        ctx.state.update(apply)
    except Exception as exc:
        ctx.log(f"session state unavailable: {exc}", "WARNING")


def _note_folder(ctx: HookContext) -> None:
    """List this project's memory folder among those every agent shell command is watched
    around (:mod:`conkeeper.storage.memory_folders`), whichever project the agent works in."""
    if ctx.location is None or not ctx.memory_dir_exists:
        return
    from conkeeper.storage import memory_folders

    try:
        memory_folders.note(str(ctx.location.memory_dir), ctx.env)
    except OSError as exc:
        ctx.log(f"memory folder not listed ({exc})", "WARNING")


def unread_files_message(notes: list[str]) -> str | None:
    """The note shown to the person when memory files could not be read whole (named one per
    line), so a file never drops out of the agent's context without a word."""
    if not notes:
        return None
    shown = notes[:MAX_NAMED]
    more = len(notes) - len(shown)
    lines = [f"ConKeeper: {len(notes)} memory file(s) not loaded whole:"]
    lines += [f"- {note}" for note in shown]
    if more:
        lines.append(f"- and {more} more (see 'conkeeper doctor')")
    return "\n".join(lines)


def _team(ctx: HookContext) -> list[dict[str, str]]:
    """Teammates' newest decisions and bug fixes, from the cache the last team sync wrote (a
    small file; the hook never asks the server)."""
    if not ctx.config.team_sync or ctx.location is None:
        return []
    from conkeeper.domain.paths import data_folder
    from conkeeper.services.team.recent import read_recent

    return read_recent(data_folder(ctx.env), ctx.location.identity)


def _mark_injected(ctx: HookContext, source: str) -> float | None:
    """Record that this session now holds the memory block; on ``resume`` return when it was
    last injected (``None`` otherwise, or when this session never received it)."""

    def apply(data: dict[str, object]) -> object:
        previous = data.get("memory_injected_at")
        data["memory_injected_at"] = time.time()
        return previous

    try:
        previous = ctx.state.update(apply)
    except Exception as exc:
        ctx.log(f"session state unavailable: {exc}", "WARNING")
        return None
    if source != "resume" or not isinstance(previous, (int, float)):
        return None
    return float(previous)


def _freshness(ctx: HookContext) -> Report | None:
    """The cached freshness report (stale entries, health, changes since the last sync).

    Git never runs inside this hook: when ``HEAD`` or the memory files changed since the last
    check, ``conkeeper stale --quiet`` refreshes the cache in the background for next time.
    """
    location = ctx.location
    if location is None or not location.memory_dir.is_dir():
        return None
    try:
        from conkeeper.services.upkeep.freshness.report import load_cached

        report, _ = load_cached(location.root, location.memory_dir, location.identity, ctx.env)
    except Exception as exc:
        ctx.log(f"freshness report skipped: {exc}", "WARNING")
        return None
    if report is None:
        from conkeeper.hooks.on_session_end import start_detached

        start_detached(ctx, ["stale", "--quiet"])
    return report


def _health(ctx: HookContext) -> SessionFreshness | None:
    """Memory health and the diff since the last sync, for this session (cached per ``HEAD``
    and memory stamps; else three parallel git calls). The first session writes the
    ``.last-sync`` baseline. What is found behind is kept for the Stop reminder."""
    location = ctx.location
    if location is None or not ctx.memory_dir_exists:
        return None
    try:
        from conkeeper.services.upkeep.freshness.health import (
            DIFF_COMMITS,
            remember_behind,
            session_freshness,
        )

        health = session_freshness(
            location.root,
            location.memory_dir,
            staleness_commits=ctx.config.staleness_commits,
            diff_commits=DIFF_COMMITS.get(ctx.config.token_budget, 0),
            env=ctx.env,
        )
        remember_behind(ctx.state, health.behind)
    except Exception as exc:
        ctx.log(f"memory health skipped: {exc}", "WARNING")
        return None
    return health


def _open_store(ctx: HookContext, info: SessionInfo, notes: list[str]) -> sqlite3.Connection | None:
    """The database with this session recorded, or ``None`` when it cannot be used.

    A damaged database is restored by a detached ``conkeeper backup --if-due`` (which restores
    before anything else; never inside this hook's wait), and the person is told once.
    """
    try:
        conn = ctx.store()
        info.project_id = ctx.project_id()
        info.session_row_id = ctx.session_id()
        return conn
    except Exception as exc:
        from conkeeper.storage.store import DamagedStore

        ctx.log(f"database unavailable, memory files only: {exc}", "WARNING")
        if isinstance(exc, DamagedStore):
            from conkeeper.hooks.on_session_end import start_detached

            start_detached(ctx, ["backup", "--if-due"])
            notes.append(
                "ConKeeper: the session-history database was damaged; it is being restored "
                "from its backup and row journal in the background ('conkeeper doctor' says "
                "what was restored). Memory files loaded as usual."
            )
        return None


def _claim_handoff(ctx: HookContext, source: str) -> str | None:
    from conkeeper.services.capture import handoff

    if ctx.location is None:  # handle() returns before this without a project
        return None
    try:
        data = handoff.take_pending(
            ctx.location,
            ctx.payload.session_id,
            own_only=source == "compact",
            env=ctx.env,
        )
    except Exception as exc:
        ctx.log(f"handoff checkpoint could not be read: {exc}", "WARNING")
        return None
    if data is None:
        return None
    ctx.log(f"handoff checkpoint from session {data.get('session')} injected")
    return handoff.render_checkpoint(data)


def _prune_state(ctx: HookContext) -> None:
    """Drop stale per-session state files, at most every few hours (a marker's mtime)."""
    from conkeeper.domain.paths import state_dir
    from conkeeper.storage.state import prune_old_state

    marker = state_dir(ctx.env) / ".last-prune"
    with contextlib.suppress(OSError):
        if time.time() - marker.stat().st_mtime < PRUNE_EVERY_S:
            return
    try:
        removed = prune_old_state(env=ctx.env)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        os.utime(marker)
        if removed:
            ctx.log(f"pruned {removed} old session state file(s)")
    except OSError as exc:
        ctx.log(f"state pruning skipped: {exc}", "WARNING")
