"""What ``forget session`` takes back from the memory files: the lines ConKeeper itself
derived from the session (its corrections-queue entries, and in the retro files its summary
line, its evidence quotes and the pending items only it gave evidence for).

Forgetting a session deletes its rows; without this, ``reflect`` went on reporting the session
from the queue and the retro ("Corrections: 2 detected", "Already in memory (this retro)"), and
the person's words stayed quoted in files they thought forgotten. Each file changes through the
one write path (``domain.safewrite``) in one journal group, so ``undo`` restores it; a line a
person wrote, and a rule they approved into a memory file, stay.
"""

from __future__ import annotations

from pathlib import Path

from conkeeper.domain.records import FrozenRecord


class SessionTrace(FrozenRecord):
    """What a session left that its derived lines can be recognised by, read before its rows
    are deleted: the project root, the host session id and its prompts ``(text, ms)``."""

    __slots__ = ("host_session_id", "prompts", "root")
    root: str
    host_session_id: str
    prompts: tuple[tuple[str, int], ...]

    def __init__(self, root: str, host_session_id: str, prompts: tuple[tuple[str, int], ...]):
        self._set(root=root, host_session_id=host_session_id, prompts=prompts)


def _edit(path: Path, change: object, memory_dir: Path) -> int:
    """Apply ``change`` to ``path`` through the write path; 1 when the file changed."""
    from conkeeper.domain.safewrite import edit_file, text_edit

    assert callable(change)
    done = edit_file(
        path, text_edit(change), command="forget session", source="user-cli", root=memory_dir
    )
    return int(done.changed)  # not a compare outside the lock: a hook's line is no change


def forget_derived(trace: SessionTrace) -> int:
    """Take the session's derived lines out of its project's queue and retro files; returns
    how many files changed."""
    from conkeeper.domain import corrections_queue as cq
    from conkeeper.domain.paths import memory_folder_of
    from conkeeper.domain.safewrite import write_group
    from conkeeper.services.analysis.reflection import retro
    from conkeeper.services.analysis.reflection.findings import quote

    if not trace.prompts:
        return 0
    memory_dir = Path(memory_folder_of(trace.root))
    texts = [text for text, _ in trace.prompts]
    times = [ms / 1000 for _, ms in trace.prompts]
    said = frozenset(cq.sanitize_queue_text(t) for t in texts)
    first, last = cq.queue_stamp(min(times) - 60), cq.queue_stamp(max(times) + 60)
    line = f"- Session {trace.host_session_id[:8]}:"
    quotes = frozenset(quote(t) for t in texts)
    changed = 0
    with write_group():
        queue = memory_dir / cq.QUEUE_NAME
        if queue.is_file():
            changed += _edit(queue, lambda t: cq.without_entries(t, said, first, last), memory_dir)
        for path in sorted((memory_dir / "sessions").glob("*-retro.md")):
            changed += _edit(path, lambda t: retro.forget_edit(t, line, quotes), memory_dir)
    return changed
