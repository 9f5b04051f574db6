"""Other projects' memory folders watched around every agent shell command, named or not.

Why it exists: the tool hooks watched another project's memory folder only when the shell
command's text reached it (a path-like word under ``.claude``). A path built by ``$(printf
...)``, decoded from base64, read from a file, or inside a script or ``make`` target the agent
runs names nothing, and the order it appended there was injected by that project's next
SessionStart as the person's note. The check here reads no text: the folders of the projects
ConKeeper knows (:mod:`conkeeper.storage.memory_folders`) are looked at before the command
(their files changed since their last look become known content: the person's) and after it
(a file changed while it ran has its new lines recorded as the agent's,
:func:`conkeeper.storage.agent_edits.record_changes`, but those ConKeeper's own journaled
writes put there meanwhile: the person's ``conkeeper remember``, a prompt's queued
correction), so that SessionStart holds back those that read like orders and marks the rest
as the agent's.

The trade: what the person typed into another project's memory while an agent's shell command
ran counts as the agent's (held if it reads like an order, until ``conkeeper review`` keeps it).
Cost: a ``scandir`` of each known folder (the 8 most recently started) before and after each
shell command: 3.6 ms for 20 folders on a loaded 2-core machine; the command's start rides on
the tool hook's own state update (no second lock and rewrite); a project not started among
the last 8 is not watched, but its next look (SessionStart, a prompt, this module's before)
still takes a file last changed while an agent's shell command ran for the agent's
(:func:`conkeeper.hooks.memory_look.take_changes`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from conkeeper.hooks.payload import HookContext

STATE_KEY = "known_folder_watch"  # tool use id -> when the shell command started (ms)
_SLACK_MS = 50  # file times come from a coarse clock (as in on_tool)
_KEEP_MS = 6 * 3600 * 1000  # a start whose end never came is forgotten after this long


def watched(ctx: HookContext, skip: list[Path]) -> list[Path]:
    """The known folders that exist, those in ``skip`` (watched already) left out: what
    :func:`before` and :func:`after` look at around a shell command."""
    from conkeeper.storage.memory_folders import known

    left = {str(path) for path in skip}
    return [Path(f) for f in known(ctx.env) if f not in left and os.path.isdir(f)]


def note_start(data: dict[str, Any], key: str, stamp: int) -> None:
    """Inside the PreToolUse state update: note when the shell command ``key`` starts (the
    tool hook's own update carries it, so the state file is locked and written once)."""
    starts = data.get(STATE_KEY)
    starts = (
        {k: v for k, v in starts.items() if isinstance(v, int) and v > stamp - _KEEP_MS}
        if isinstance(starts, dict)
        else {}
    )
    starts[key] = stamp
    data[STATE_KEY] = starts


def take_start(data: dict[str, Any], key: str) -> int | None:
    """Inside the PostToolUse state update: when the shell command ``key`` started (None when
    no look came before it), forgotten as it is read."""
    starts = data.get(STATE_KEY)
    start = starts.pop(key, None) if isinstance(starts, dict) else None
    return start if isinstance(start, int) else None


def before(ctx: HookContext, folders: list[Path]) -> None:
    """PreToolUse of a shell command, its start noted (:func:`note_start`): make what changed
    in each known folder since its last look (the person's edits) known content."""
    from conkeeper.hooks.memory_look import take_changes
    from conkeeper.storage import agent_edits

    for folder in folders:
        since = _last_look_ns(folder)
        prints = agent_edits.fingerprints(folder)
        stale = [rel for rel, (_, changed) in prints.items() if since is None or changed > since]
        if stale:
            with _logged(ctx):
                take_changes(ctx, folder, stale, prints)


def after(ctx: HookContext, folders: list[Path], start: int | None) -> None:
    """PostToolUse of a shell command that started at ``start`` (:func:`take_start`): the
    known folders' files changed while it ran have their new lines recorded as the agent's."""
    if start is None:
        return  # no look before it (a host without a pre-tool hook for its shell)
    since_ns = (start - _SLACK_MS) * 1_000_000
    from conkeeper.storage import agent_edits

    for folder in folders:
        prints = agent_edits.fingerprints(folder)
        changed = sorted(rel for rel, (_, at) in prints.items() if at >= since_ns)
        if not changed:
            continue
        new = [rel for rel in changed if agent_edits.known_keys(folder, rel) is None]
        if _last_look_ns(folder) is None:
            new = []  # never looked at: what is there may be the person's
        with _logged(ctx):
            accounted = journaled_keys(folder, changed, start)
            agent_edits.record_changes(folder, changed, prints, since_ns, new, accounted)


def _last_look_ns(folder: Path) -> int | None:
    """When the folder's known content was last written (its baseline's change time)."""
    from conkeeper.storage.agent_edits import BASELINE, REVIEW_DIR

    try:
        return os.stat(folder / REVIEW_DIR / BASELINE).st_mtime_ns
    except OSError:
        return None


def journaled_keys(
    folder: Path, changed: list[str], start_ms: int, command: str | None = None
) -> set[str]:
    """The keys of the lines ConKeeper's own journaled writes (only those of ``command`` when
    given) put into ``changed`` files since ``start_ms`` (the person's ``conkeeper remember``,
    a prompt's line in the corrections queue): those changes are accounted for, not the
    agent's."""
    from conkeeper.domain.safewrite import memory_journal_dir, read_journal
    from conkeeper.storage.agent_edits import line_key

    paths = {os.path.abspath(folder / rel) for rel in changed}
    paths |= {os.path.realpath(path) for path in paths}
    keys: set[str] = set()
    for entry in read_journal(memory_journal_dir(folder)):
        if entry.undoes is not None or entry.time * 1000 < start_ms - _JOURNAL_SLACK_MS:
            continue
        if command is not None and entry.command != command:
            continue
        for path in paths & set(entry.paths):
            text = entry.written_bytes(path).decode("utf-8", "replace")
            keys.update(line_key(line) for line in text.splitlines() if line.strip())
    return keys


_JOURNAL_SLACK_MS = 2000  # a journal entry's time is taken just after its write


@contextlib.contextmanager
def _logged(ctx: HookContext) -> Iterator[None]:
    """A failure to read or record a folder is logged (the hook fails open)."""
    try:
        yield
    except OSError as exc:
        from conkeeper.storage.logfile import log

        log(f"hook {ctx.event}: a known memory folder not watched ({exc})", env=ctx.env)
