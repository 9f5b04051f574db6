"""Memory health: how far each memory file is behind the code, and what moved since the last
``/memory-sync``.

A memory file nobody touched for 80 commits is probably describing a project that no longer
exists; a new session should know that, and what changed while it was away. Both answers come
from the same cached freshness run as the stale entries (see :mod:`.stale`), so SessionStart
and Stop read them without starting git.

``.last-sync`` (in the memory folder) records when the last sync happened and at which
commit: two lines, the Unix time (the bash ConKeeper's format, so its files keep working; an
ISO-8601 UTC time is read too) and the ``HEAD`` hash. ``conkeeper sync mark`` writes it, and the
first SessionStart in a project writes it as the baseline; the next SessionStart summarises the
commits and the memory or ADR files changed since.

SessionStart needs both answers for the session it starts, not the one after: right after new
commits (when they matter most) the cached report is keyed by the old ``HEAD``. So
:func:`session_freshness` answers them itself with two ``git log`` calls run in parallel and no
diff work (commit list; commits touching the memory folder), well inside the hook's budget.
"""

from __future__ import annotations

import time
from pathlib import Path

from conkeeper.domain.records import Record
from conkeeper.services.upkeep.freshness.gitrepo import read_head
from conkeeper.services.upkeep.freshness.report import LAST_SYNC_FILE, write_cache_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from conkeeper.domain.paths import ProjectLocation
    from conkeeper.storage.state import SessionState

BEHIND_COMMITS = 30
SYNC_SUBJECTS = 5
SYNC_FILES = 8
# the memory files whose health is tracked (ADRs and session files are records, not state)
HEALTH_FILES = (
    "active-context.md",
    "progress.md",
    "patterns.md",
    "glossary.md",
    "product-context.md",
    "friction.md",
)
# commits named in the SessionStart diff, per token budget (economy shows no diff)
DIFF_COMMITS = {"light": 3, "standard": 5, "detailed": 10}
HEALTH_STATE_KEY = "health_behind"


class LastSync(Record):
    """When the last memory sync happened (Unix seconds) and at which commit (may be empty);
    ``baseline`` when it is only the mark the first session wrote, not a real sync."""

    __slots__ = ("baseline", "head", "time")

    def __init__(self, when: float, head: str, baseline: bool = False) -> None:
        self.time = when
        self.head = head
        self.baseline = baseline


def record_last_sync(
    root: Path,
    memory_dir: Path,
    when: float | None = None,
    *,
    baseline: bool = False,
    source: str = "user-cli",
) -> LastSync:
    """Write ``.last-sync`` (Unix time and ``HEAD``; a third line ``baseline`` for the first
    session's mark) through the write path; returns what was written. The file is ConKeeper's
    own record, so its whole content is the change."""
    from conkeeper.domain.safewrite import create_file, edit_file

    stamp = time.time() if when is None else when
    head = read_head(root) or ""
    memory_dir.mkdir(parents=True, exist_ok=True)
    text = f"{int(stamp)}\n{head or '-'}\n" + ("baseline\n" if baseline else "")
    path = memory_dir / LAST_SYNC_FILE
    data = text.encode()
    if baseline:  # the first session's mark never replaces a real sync written meanwhile
        create_file(path, data, command="session baseline", source=source, root=memory_dir)
    else:
        edit_file(path, lambda _: data, command="sync", source=source, root=memory_dir)
    return LastSync(float(int(stamp)), head, baseline)


def ensure_last_sync(root: Path, memory_dir: Path) -> bool:
    """Write the baseline ``.last-sync`` when there is none; ``True`` when this call wrote it
    (a first session: nothing to compare with yet). A symlinked ``.last-sync`` is refused:
    never read or written through."""
    path = memory_dir / LAST_SYNC_FILE
    try:
        if path.is_symlink() or path.exists() or not memory_dir.is_dir():
            return False
        record_last_sync(root, memory_dir, baseline=True, source="hook")
    except Exception:  # a read-only folder, a concurrent writer: no baseline this time
        return False
    return True


def read_last_sync(memory_dir: Path) -> LastSync | None:
    """The recorded last sync, or ``None`` when there is none, it cannot be read, it is a
    symlink, or it lies in the future."""
    import calendar

    path = memory_dir / LAST_SYNC_FILE
    try:
        if path.is_symlink():
            return None
        lines = path.read_text(encoding="utf-8").split()
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
    if when > time.time() + 60:
        return None
    head = lines[1] if len(lines) > 1 and len(lines[1]) == 40 else ""
    return LastSync(when, head, baseline="baseline" in lines[1:])


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
    """The memory files more than ``threshold`` commits behind, furthest first."""
    rows = [(name, count) for name, count in health.items() if count > threshold]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def health_line(rows: list[tuple[str, int]], limit: int = 3) -> str:
    """The files furthest behind on one line, for SessionStart and Stop."""
    shown = ", ".join(f"{name} ({count} commits behind)" for name, count in rows[:limit])
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return f"Memory behind the code: {shown}{more} since they last changed"


# --------------------------------------------------------------------------- SessionStart


class SyncDiff(Record):
    """What moved since the last sync: commit count, the newest commits (``hash subject``),
    and the memory or ADR files changed since (relative to the memory folder)."""

    __slots__ = ("commits", "memory_files", "shown", "since")

    def __init__(
        self, since: float, commits: int, shown: list[str], memory_files: list[str]
    ) -> None:
        self.since = since
        self.commits = commits
        self.shown = shown
        self.memory_files = memory_files


class SessionFreshness(Record):
    """What SessionStart tells about memory health: files behind (over ``threshold``), the
    diff since the last sync, and whether this is the first session (baseline just written)."""

    __slots__ = ("behind", "diff", "first_run", "threshold")

    def __init__(
        self,
        behind: list[tuple[str, int]] | None = None,
        diff: SyncDiff | None = None,
        first_run: bool = False,
        threshold: int = 0,
    ) -> None:
        self.behind = behind or []
        self.diff = diff
        self.first_run = first_run
        self.threshold = threshold


def session_freshness(
    root: Path,
    memory_dir: Path,
    *,
    staleness_commits: int,
    diff_commits: int,
    env: Mapping[str, str] | None = None,
) -> SessionFreshness:
    """Health and the since-sync diff for a starting session (spec F19).

    The first session in a project writes the ``.last-sync`` baseline (no diff yet).
    Health (``staleness_commits`` > 0, in a git repository): commits on ``HEAD`` since each of
    :data:`HEALTH_FILES` last changed in git; a file with uncommitted edits is current.
    Diff (``diff_commits`` > 0): commits since the recorded sync (by commit when recorded, else
    by time), at most ``diff_commits`` named, and the memory/ADR files changed since (in git or
    on disk), also outside git.

    The answer is cached in the data home under the freshness signature (``HEAD``, the memory
    files' sizes and mtimes, ``.last-sync``): a session started on an unchanged project asks
    git nothing; the first one after new commits pays three parallel calls.
    """
    first_run = ensure_last_sync(root, memory_dir)
    if first_run:
        diff_commits = 0
    cached, key, path = _cached(root, memory_dir, env, staleness_commits, diff_commits)
    if cached is not None:
        return cached
    result = _answer(root, memory_dir, staleness_commits, diff_commits)
    result.first_run = first_run
    _store(path, key, result)
    return result


def _answer(
    root: Path, memory_dir: Path, staleness_commits: int, diff_commits: int
) -> SessionFreshness:
    """Ask git (and the memory folder) for health and the diff."""
    last = read_last_sync(memory_dir)
    want_health = staleness_commits > 0
    log = _git_history(root, memory_dir) if (want_health or last) else None
    result = SessionFreshness(threshold=staleness_commits)
    if want_health and log is not None:
        synced = _since(log, last) if last is not None and not last.baseline else None
        result.behind = behind(_health_counts(memory_dir, log, synced), staleness_commits)
    if last is not None and diff_commits > 0:
        result.diff = _diff(memory_dir, log, last, diff_commits)
    return result


def _cached(
    root: Path,
    memory_dir: Path,
    env: Mapping[str, str] | None,
    staleness_commits: int,
    diff_commits: int,
) -> tuple[SessionFreshness | None, str, Path | None]:
    """The cached answer for the current signature and settings (else ``None``), the key and
    the cache file."""
    import json

    from conkeeper.domain.paths import stored_identity
    from conkeeper.services.upkeep.freshness.report import health_cache_path, signature

    try:
        where = stored_identity(str(root))  # a folder named after a credential: its digest
        key = f"{signature(root, memory_dir)}:{staleness_commits}:{diff_commits}:{where}"
        path = health_cache_path(root, env)
    except Exception:
        return None, "", None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None, key, path
        diff = data.get("diff")
        result = SessionFreshness(
            behind=[(str(n), int(c)) for n, c in data.get("behind", [])],
            diff=SyncDiff(
                float(diff["since"]),
                int(diff["commits"]),
                [str(x) for x in diff["shown"]],
                [str(x) for x in diff["memory_files"]],
            )
            if isinstance(diff, dict)
            else None,
            threshold=staleness_commits,
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None, key, path
    return result, key, path


def _store(path: Path | None, key: str, result: SessionFreshness) -> None:
    """Write the answer to the cache atomically (a failure only costs the next session)."""
    if path is None:
        return
    diff = result.diff
    data = {
        "key": key,
        "behind": [[n, c] for n, c in result.behind],
        "diff": None
        if diff is None
        else {
            "since": diff.since,
            "commits": diff.commits,
            "shown": diff.shown,
            "memory_files": diff.memory_files,
        },
    }
    write_cache_file(path, data)


class _History(Record):
    """``HEAD``'s commits newest first (hash, time, subject) and, per memory file, the index in
    that list of the newest commit that touched it."""

    __slots__ = ("commits", "dirty", "touched")

    def __init__(
        self, commits: list[tuple[str, int, str]], touched: dict[str, int], dirty: set[str]
    ) -> None:
        self.commits = commits
        self.touched = touched
        self.dirty = dirty  # memory files with uncommitted changes (or untracked)


def _git_history(root: Path, memory_dir: Path) -> _History | None:
    """Three git calls in parallel (no diffs over the whole history): every commit of ``HEAD``
    in topological order, the commits touching the memory folder with their files, and the
    memory files with uncommitted changes."""
    from conkeeper.services.upkeep.freshness.gitrepo import run_git_parallel

    if read_head(root) is None:
        return None
    try:
        prefix = memory_dir.resolve().relative_to(root.resolve()).as_posix()
    except (OSError, ValueError):
        return None
    every, memory, status = run_git_parallel(
        root,
        [
            (["log", "--topo-order", "--format=%H%x1f%ct%x1f%s", "HEAD"], None),
            (
                [
                    "log",
                    "--topo-order",
                    "--no-renames",
                    "--format=%x1e%H",
                    "--name-only",
                    "HEAD",
                    "--",
                    prefix,
                ],
                None,
            ),
            (["status", "--porcelain=v1", "--untracked-files=all", "--", prefix], None),
        ],
    )
    if every is None or memory is None:
        return None
    dirty = set()
    for line in (status or "").split("\n"):
        path = line[3:].strip().strip('"')
        if path.startswith(prefix + "/"):
            dirty.add(path[len(prefix) + 1 :])
    commits: list[tuple[str, int, str]] = []
    for line in every.split("\n"):
        parts = line.split("\x1f", 2)
        if len(parts) == 3 and parts[1].isdigit():
            commits.append((parts[0], int(parts[1]), parts[2]))
    position = {sha: index for index, (sha, _t, _s) in enumerate(commits)}
    touched: dict[str, int] = {}
    current = -1
    for line in memory.split("\n"):
        if line.startswith("\x1e"):
            current = position.get(line[1:].strip(), -1)
        elif line and current >= 0 and line.startswith(prefix + "/"):
            touched.setdefault(line[len(prefix) + 1 :], current)
    return _History(commits, touched, dirty)


def _mtime(path: Path) -> float | None:
    """A regular file's modification time (``None`` for a symlink or a missing file)."""
    try:
        if path.is_symlink():
            return None
        return path.stat().st_mtime
    except OSError:
        return None


def _since(log: _History, last: LastSync) -> int:
    """How many of ``HEAD``'s newest commits came after ``last`` (by its commit when known,
    else by time: a commit in the sync's own second counts as after it)."""
    if last.head:
        for index, (sha, _t, _s) in enumerate(log.commits):
            if sha == last.head:
                return index
    return sum(1 for _sha, when, _s in log.commits if when >= int(last.time))


def _health_counts(memory_dir: Path, log: _History, synced: int | None = None) -> dict[str, int]:
    """Commits since each health file last changed: its newest commit's position in ``HEAD``'s
    history; 0 when it has uncommitted edits (a file mtimes alone cannot tell: a clone or a
    checkout touches every file). A real sync reviewed every file: never more than ``synced``
    (the commits since it), so a file that needed no change stops being reported."""
    if not log.commits:
        return {}
    counts: dict[str, int] = {}
    for name in HEALTH_FILES:
        mtime = _mtime(memory_dir / name)
        if mtime is None:
            continue
        if name in log.dirty and name in log.touched:
            counts[name] = 0
        elif name in log.touched:
            counts[name] = log.touched[name]
        else:  # never committed: the commits since it was last written
            counts[name] = sum(1 for _sha, when, _s in log.commits if when > mtime)
        if synced is not None:
            counts[name] = min(counts[name], synced)
    return counts


def _diff(memory_dir: Path, log: _History | None, last: LastSync, limit: int) -> SyncDiff:
    """The commits and memory/ADR files changed since ``last``."""
    since: list[tuple[str, int, str]] = []
    boundary = -1
    if log is not None:
        boundary = _since(log, last)
        since = log.commits[:boundary]
    changed: dict[str, None] = {}
    for name in HEALTH_FILES:
        mtime = _mtime(memory_dir / name)
        if mtime is not None and (
            mtime > last.time or (log is not None and 0 <= log.touched.get(name, -1) < boundary)
        ):
            changed.setdefault(name, None)
    for adr in _adr_files(memory_dir):
        mtime = _mtime(memory_dir / adr)
        if mtime is not None and (
            mtime > last.time or (log is not None and 0 <= log.touched.get(adr, -1) < boundary)
        ):
            changed.setdefault(adr, None)
    shown = [f"{sha[:7]} {subject[:100]}" for sha, _t, subject in since[:limit]]
    return SyncDiff(last.time, len(since), shown, list(changed)[:SYNC_FILES])


def _adr_files(memory_dir: Path) -> list[str]:
    """``decisions/*.md`` except the generated index, as paths relative to the memory folder."""
    try:
        names = sorted(p.name for p in (memory_dir / "decisions").glob("*.md"))
    except OSError:
        return []
    return [f"decisions/{name}" for name in names if name != "INDEX.md"]


# --------------------------------------------------------------------------- Stop


STOP_EVERY = 10


def remember_behind(state: SessionState, rows: list[tuple[str, int]]) -> None:
    """Keep what SessionStart found behind in the session state, for the Stop reminder."""
    stamp = time.time()

    def apply(data: dict[str, object]) -> None:
        data[HEALTH_STATE_KEY] = [[name, count] for name, count in rows]
        data["health_checked_at"] = stamp
        data["health_stop_count"] = 0

    state.update(apply)


def stop_reminder(
    location: ProjectLocation, state: SessionState, env: Mapping[str, str]
) -> str | None:
    """The Stop hook's health reminder: the memory files SessionStart found far behind the
    code, repeated every :data:`STOP_EVERY` turns (the first at the first Stop) until a memory
    sync happens (recorded in this session, or ``.last-sync`` rewritten after the check)."""
    data = state.read()
    rows = _rows(data.get(HEALTH_STATE_KEY))
    if not rows or data.get("last_sync_at"):
        return None
    checked = data.get("health_checked_at")
    last = read_last_sync(location.memory_dir)
    synced = _mtime(location.memory_dir / LAST_SYNC_FILE)
    if (
        isinstance(checked, (int, float))
        and last is not None
        and synced is not None
        and synced > checked
    ):
        return None
    count = data.get("health_stop_count")
    count = count if isinstance(count, int) and not isinstance(count, bool) else 0
    state.update(lambda d: d.__setitem__("health_stop_count", count + 1))
    if count % STOP_EVERY:
        return None
    return f"ConKeeper: stale memory. {health_line(rows)}; run /memory-sync to refresh them."


def _rows(value: object) -> list[tuple[str, int]]:
    """``[[name, count], ...]`` read back from the session state."""
    if not isinstance(value, list):
        return []
    rows = []
    for item in value:
        if isinstance(item, list) and len(item) == 2 and isinstance(item[1], int):
            rows.append((str(item[0]), item[1]))
    return rows
