"""Memory health: how far each memory file is behind the code, and what moved since the last
``/memory-sync``.

A memory file nobody touched for 80 commits is probably describing a project that no longer
exists; a new session should know that, and what changed while it was away. Both answers come
from the same cached freshness run as the stale entries (see :mod:`.stale`), so SessionStart
and Stop read them without starting git.

``.last-sync`` (in the memory folder) records when the last sync happened and at which
commit: two lines, an ISO-8601 UTC time and the ``HEAD`` hash. ``conkeeper sync mark`` writes
it; the next SessionStart summarises the commits and the memory or ADR files changed since.
"""

from __future__ import annotations

import time
from pathlib import Path

from conkeeper.domain.records import Record
from conkeeper.services.freshness.gitrepo import read_head
from conkeeper.services.freshness.report import LAST_SYNC_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from conkeeper.domain.paths import ProjectLocation
    from conkeeper.storage.state import SessionState

BEHIND_COMMITS = 30
SYNC_SUBJECTS = 5
SYNC_FILES = 8


class LastSync(Record):
    """When the last memory sync happened (Unix seconds) and at which commit (may be empty)."""

    __slots__ = ("head", "time")

    def __init__(self, when: float, head: str) -> None:
        self.time = when
        self.head = head


def record_last_sync(root: Path, memory_dir: Path, when: float | None = None) -> LastSync:
    """Write ``.last-sync`` (time and ``HEAD``) atomically; returns what was written."""
    from conkeeper.domain.textio import atomic_write

    stamp = time.time() if when is None else when
    head = read_head(root) or ""
    iso = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))
    memory_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(memory_dir / LAST_SYNC_FILE, f"{iso}\n{head}\n", root=memory_dir)
    return LastSync(stamp, head)


def read_last_sync(memory_dir: Path) -> LastSync | None:
    """The recorded last sync, or ``None`` when there is none or it cannot be read."""
    import calendar

    try:
        lines = (memory_dir / LAST_SYNC_FILE).read_text(encoding="utf-8").split()
    except (OSError, UnicodeDecodeError):
        return None
    if not lines:
        return None
    try:
        when = float(calendar.timegm(time.strptime(lines[0], "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        try:
            when = float(lines[0])
        except ValueError:
            return None
    head = lines[1] if len(lines) > 1 and len(lines[1]) == 40 else ""
    return LastSync(when, head)


def sync_args(last: LastSync) -> list[str]:
    """``git log`` arguments for the commits since the last sync (by hash, else by time)."""
    args = ["log", "--name-only", "--format=\x1e%h\x1f%ct\x1f%s"]
    if last.head:
        return [*args, f"{last.head}..HEAD"]
    return [*args, f"--since={int(last.time)}"]


def parse_sync(output: str | None, memory_prefix: str) -> dict[str, object] | None:
    """``{"commits": n, "subjects": [...], "memory_files": [...]}`` from :func:`sync_args`
    output (``None`` when git could not tell, e.g. the recorded commit is gone)."""
    if output is None:
        return None
    subjects: list[str] = []
    files: dict[str, None] = {}
    count = 0
    for line in output.split("\n"):
        if line.startswith("\x1e"):
            parts = line[1:].split("\x1f", 2)
            count += 1
            if len(parts) == 3 and len(subjects) < SYNC_SUBJECTS:
                subjects.append(f"{parts[0]} {parts[2][:100]}")
        elif line.startswith(memory_prefix) and line.endswith(".md"):
            files.setdefault(line[len(memory_prefix) :], None)
    return {"commits": count, "subjects": subjects, "memory_files": list(files)[:SYNC_FILES]}


def behind(health: dict[str, int], threshold: int = BEHIND_COMMITS) -> list[tuple[str, int]]:
    """The memory files at least ``threshold`` commits behind, furthest first."""
    rows = [(name, count) for name, count in health.items() if count >= threshold]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def health_line(rows: list[tuple[str, int]], limit: int = 3) -> str:
    """One line naming the files furthest behind, for SessionStart and Stop."""
    shown = ", ".join(f"{name} ({count} commits)" for name, count in rows[:limit])
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return (
        f"Memory behind the code: {shown}{more} since they last changed or were synced; "
        "review them with /memory-sync."
    )


STOP_EVERY = 10


def stop_reminder(
    location: ProjectLocation, state: SessionState, env: Mapping[str, str]
) -> str | None:
    """The Stop hook's health reminder: memory files far behind the code, repeated every
    :data:`STOP_EVERY` turns (the first at the first Stop) until a memory sync is recorded in
    this session; never when the cached report is missing or all files are current."""
    data = state.read()
    if data.get("last_sync_at"):
        return None
    count = data.get("health_stop_count")
    count = count if isinstance(count, int) and not isinstance(count, bool) else 0
    state.update(lambda d: d.__setitem__("health_stop_count", count + 1))
    if count % STOP_EVERY:
        return None
    from conkeeper.services.freshness.report import load_cached

    if not location.memory_dir.is_dir():
        return None
    report, _ = load_cached(location.root, location.memory_dir, location.identity, env)
    rows = behind(report.health) if report else []
    return "ConKeeper: " + health_line(rows) if rows else None
