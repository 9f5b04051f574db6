"""The hooks' look at the memory files: what they hold now becomes their known content.

Why it exists: which lines of a memory file an agent's edit wrote is read against the file's
known content (:mod:`conkeeper.storage.agent_edits`' baseline). That content was taken before
a tool only where the host fires a pre-tool hook for it: Claude Code's PreToolUse matches
shell and web tools, not Write; Gemini CLI's BeforeTool matches shell commands; Cursor has no
pre-tool event for its edits. A whole-file Write as the session's first tool, or after the
person edited a file between turns, then took every line it held for the agent's: the
person's own notes were marked as the agent's and ConKeeper's template lines held for review,
where dropping one cuts it from the file. SessionStart and each prompt look first; what the
person changed between turns is theirs, what a tool writes during a turn is the tool's.

Cost: stdlib only; a ``scandir`` and ``stat`` of the memory folders per prompt, the files read
only when one changed since the last look.
"""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from conkeeper.hooks.payload import HookContext

Prints = dict[str, dict[str, list[int]]]  # memory folder -> file -> [size, change time]


def memory_dirs(ctx: HookContext) -> list[Path]:
    """The memory folders SessionStart reads: the project's and the user's global one."""
    from conkeeper.domain.paths import global_memory_dir

    assert ctx.location is not None
    dirs = [ctx.location.memory_dir] if ctx.memory_dir_exists else []
    global_dir = global_memory_dir(ctx.env)
    if global_dir not in dirs and global_dir.is_dir():
        dirs.append(global_dir)
    return dirs


def earlier(before: object, folder: str) -> dict[str, list[int]] | None:
    """One folder's prints from the state's copy (None when there was none)."""
    found = before.get(folder) if isinstance(before, dict) else None
    return found if isinstance(found, dict) else None


def look(ctx: HookContext, during: Callable[[], None] | None = None) -> None:
    """Between turns (SessionStart, a prompt): the memory files changed since the last look, or
    all of them at the session's first, become their known content. ``during``: the hook's own
    writes (the prompt's line in the corrections queue), run after the files are looked at and
    before the look is kept, so they are neither taken for the person's change nor read again
    by the next look. Left alone while a tool of this session runs (its writes are read when it
    ends)."""
    dirs = memory_dirs(ctx) if ctx.location is not None else []
    if not dirs:
        if during is not None:
            during()
        return
    from conkeeper.storage import agent_edits
    from conkeeper.storage.state import now_ms

    seen: Prints = {str(d): agent_edits.fingerprints(d) for d in dirs}
    if during is not None:
        during()
    kept = seen if during is None else {str(d): agent_edits.fingerprints(d) for d in dirs}
    stamp = now_ms()

    def apply(data: dict[str, Any]) -> tuple[bool, object]:
        if data.get("tool_starts"):
            return False, None
        before = data.get("memory_prints")
        data["memory_prints"], data["memory_prints_at"] = kept, stamp
        data["memory_prints_before_tool"] = False
        return True, before

    took, before = ctx.state.update(apply)
    if took:
        refresh(ctx, seen, before)


def take_turn_edits(ctx: HookContext) -> None:
    """At the end of a turn (Stop) of a host that runs some edit tools without a tool hook
    (Codex's ``apply_patch``: the host module's ``UNHOOKED_EDITS``): the memory files changed
    since the last look were written during the agent's turn, so their new lines are recorded
    as the agent's, as a shell command's are by its PostToolUse. Without it, an order such a
    tool wrote as the turn's last act was taken for the person's note at the next look and
    reached the next session. The person's own edit made while the agent's turn ran is taken
    for the agent's too (held when it reads like an order; they keep it with
    ``conkeeper review``)."""
    dirs = memory_dirs(ctx) if ctx.location is not None else []
    if not dirs:
        return
    from conkeeper.storage import agent_edits
    from conkeeper.storage.state import now_ms

    seen: Prints = {str(d): agent_edits.fingerprints(d) for d in dirs}
    stamp = now_ms()

    def apply(data: dict[str, Any]) -> tuple[object, object]:
        # the turn is over: a start still noted is a tool whose end the host never reported
        # (Codex fires PreToolUse for such an apply_patch, and no PostToolUse), which would
        # otherwise keep every later look waiting for it
        data.pop("tool_starts", None)
        before, at = data.get("memory_prints"), data.get("memory_prints_at")
        data["memory_prints"], data["memory_prints_at"] = seen, stamp
        data["memory_prints_before_tool"] = False
        return before, at

    before, at = ctx.state.update(apply)
    _record_turn_edits(ctx, seen, before, at)


def _record_turn_edits(ctx: HookContext, prints: Prints, before: object, at: object) -> None:
    """The files of ``prints`` changed since the look ``before`` (taken at ``at``, Unix ms):
    their new lines recorded as the agent's (a folder never looked at only becomes known)."""
    from conkeeper.storage import agent_edits

    since_ns = (at - _SLACK_MS) * 1_000_000 if isinstance(at, int) else None
    for folder, now in prints.items():
        seen = earlier(before, folder)
        try:
            if seen is None or since_ns is None:
                agent_edits.remember_contents(Path(folder), sorted(now))
                continue
            changed = agent_edits.changed_files(seen, now)
            if changed:
                new = [rel for rel in changed if rel not in seen]
                agent_edits.record_changes(Path(folder), changed, now, since_ns, new)
        except OSError as exc:
            from conkeeper.storage.logfile import log

            log(f"hook {ctx.event}: memory changes not checked ({exc})", env=ctx.env)


def refresh(ctx: HookContext, prints: Prints, before: object) -> None:
    """The memory files of ``prints`` changed since ``before`` (all of a folder never looked
    at) become their known content."""
    from conkeeper.storage import agent_edits

    for folder, now in prints.items():
        seen = earlier(before, folder)
        changed = sorted(now) if seen is None else agent_edits.changed_files(seen, now)
        if not changed:
            continue
        try:
            take_changes(ctx, Path(folder), changed, now)
        except OSError as exc:
            from conkeeper.storage.logfile import log

            log(f"hook {ctx.event}: memory contents not noted ({exc})", env=ctx.env)


_SLACK_MS = 50  # file times come from a coarse clock, behind (as in on_tool): before a start only


def take_changes(
    ctx: HookContext, folder: Path, changed: list[str], now: dict[str, list[int]]
) -> None:
    """``changed`` files of ``folder`` become its known content: the person's, except a file
    last changed while an agent's shell command ran (any project's,
    :mod:`conkeeper.storage.agent_shells`), whose new lines are recorded as the agent's. A
    folder no shell hook watched then (another project's, pushed out of the newest 8 known
    folders) was written through a path no hook saw; its next look must not launder that."""
    from conkeeper.storage import agent_edits

    during = _during_agent_shells(ctx, changed, now)
    if during:
        since_ns = min(now[rel][1] for rel in during)
        looked = (folder / agent_edits.REVIEW_DIR / agent_edits.BASELINE).exists()
        new = [rel for rel in during if looked and agent_edits.known_keys(folder, rel) is None]
        agent_edits.record_changes(folder, during, now, since_ns, new)
    rest = [rel for rel in changed if rel not in during]
    if rest:
        agent_edits.remember_contents(folder, rest)


def _during_agent_shells(
    ctx: HookContext, changed: list[str], now: dict[str, list[int]]
) -> list[str]:
    """The files of ``changed`` whose last change fell inside an ended agent shell command's
    span (one still running is judged by its own end: a watched folder's change then is
    recorded as the agent's by its PostToolUse), or after one that left a process running
    (:func:`_left_spans`)."""
    from conkeeper.storage.agent_shells import windows
    from conkeeper.storage.state import now_ms

    stamp = now_ms()
    spans = windows(stamp, ctx.env, running=False) + _left_spans(ctx, stamp)
    if not spans:
        return []
    return [
        rel
        for rel in changed
        if any(start - _SLACK_MS <= now[rel][1] // 1_000_000 <= end for start, end in spans)
    ]


def _left_spans(ctx: HookContext, stamp: int) -> list[tuple[int, int]]:
    """The spans of agent shell commands that left a process running (``nohup``, ``&``,
    ``setsid``, ``at now``...): from their start until a look finds none of the processes
    started inside them running, noted ``closed`` then (a detached child's write after its
    command returned is the agent's, even when it has exited by this look)."""
    from conkeeper.storage import agent_shells

    spans: list[tuple[int, int]] = []
    for key, start, end, closed in agent_shells.left_behind(stamp, ctx.env):
        if closed is None and not agent_shells.still_running(start, end):
            agent_shells.note("closed", key, stamp, ctx.env)
        spans.append((start, stamp if closed is None else closed))
    return spans
