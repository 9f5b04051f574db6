"""The freshness report and its cache: what SessionStart, Stop and doctor read.

A run of the stale checker (:mod:`.stale`) costs a few git calls; its :class:`Report` (stale
findings, per-file health, changes since the last sync) is cached in the data home, keyed by
``HEAD``, the size and mtime of every checked memory file and ``.last-sync``, and checked
against the size and mtime of every work-tree file the answer looked at (a cited file deleted or
edited without a commit, and outside git any change, leaves ``HEAD`` as it was). Reading it back
needs no git, no regex and no parsing of memory files, so the hooks import only this module.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import zlib
from pathlib import Path

from conkeeper.domain.records import Record
from conkeeper.services.upkeep.freshness.gitrepo import read_head

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

CACHE_VERSION = 4
LAST_SYNC_FILE = ".last-sync"


class Finding(Record):
    """One entry that is possibly stale: where it is, what it cites, why, and the evidence."""

    __slots__ = ("citation", "commit", "date", "detail", "file", "line", "reason", "summary")

    def __init__(
        self,
        file: str,
        line: int,
        summary: str,
        citation: str,
        reason: str,
        detail: str,
        commit: str = "",
        date: str = "",
    ) -> None:
        self.file = file
        self.line = line
        self.summary = summary
        self.citation = citation
        self.reason = reason
        self.detail = detail
        self.commit = commit
        self.date = date

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly form (``conkeeper stale --json``, the cache)."""
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Finding:
        """The inverse of :meth:`as_dict`."""
        return cls(**{name: data.get(name, "") for name in cls.__slots__})  # type: ignore[arg-type]

    def one_line(self) -> str:
        """``file:line `citation` — detail (commit, date)`` for notes and listings."""
        evidence = f" ({self.commit}, {self.date})" if self.commit else ""
        return f"{self.file}:{self.line} `{self.citation}`: {self.detail}{evidence}"


class Report(Record):
    """The outcome of a run: findings, entries and citations checked, git calls made, time."""

    __slots__ = (
        "cached",
        "citations",
        "elapsed_ms",
        "entries",
        "findings",
        "git",
        "git_calls",
        "health",
        "last_sync",
        "seen",
        "sync",
        "watched",
    )

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.health: dict[str, int] = {}
        self.sync: dict[str, object] | None = None
        self.last_sync: float | None = None
        self.entries = 0
        self.citations = 0
        self.git = False
        self.git_calls = 0
        self.elapsed_ms = 0.0
        self.cached = False
        # size and modification time (None: missing) of each work-tree path the answer read
        self.watched: dict[str, list[int] | None] = {}
        # the cited paths seen in the work tree at this check or an earlier one: one that is
        # gone now was this project's file, whatever folder it sat in (outside git, or a file
        # git never tracked, nothing else says so)
        self.seen: list[str] = []

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly form."""
        return {
            "findings": [f.as_dict() for f in self.findings],
            "entries_checked": self.entries,
            "citations_checked": self.citations,
            "git": self.git,
            "git_calls": self.git_calls,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "cached": self.cached,
            "health": self.health,
            "last_sync": self.last_sync,
            "sync": self.sync,
        }


# --------------------------------------------------------------------------- files


SKIPPED_FILES = frozenset({"schema.md", "corrections-queue.md", ".memory-config.md"})


def is_checked_memory_file(rel: str) -> bool:
    """Curated knowledge (not logs, session records, the queue, the config, the schema or the
    generated ADR index): the same split as ``domain.memory.memory_file_kind``, without its
    import cost on the SessionStart path."""
    top, _, rest = rel.partition("/")
    if not rest:
        return rel not in SKIPPED_FILES
    if top == "sessions":
        return False
    return not (top == "decisions" and rest == "INDEX.md")


def memory_files(memory_dir: Path) -> list[Path]:
    """The curated memory files whose entries are checked (sorted; a symlink is followed only
    when it stays inside the memory folder; ``sessions/`` is never entered)."""
    found: list[Path] = []
    _scan(str(memory_dir), "", memory_dir, found)
    return found


def _scan(folder: str, rel_folder: str, memory_dir: Path, found: list[Path]) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        rel = f"{rel_folder}/{entry.name}" if rel_folder else entry.name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir:
            if not entry.name.startswith(".") and rel != "sessions":
                _scan(entry.path, rel, memory_dir, found)
            continue
        if not entry.name.endswith(".md") or not is_checked_memory_file(rel):
            continue
        path = Path(entry.path)
        if entry.is_symlink() and not _inside(path, memory_dir):
            continue
        try:
            if not entry.is_file():  # a FIFO would block the reader; a socket is no file
                continue
        except OSError:
            continue
        found.append(path)


def _inside(path: Path, root: Path) -> bool:
    from conkeeper.domain.textio import is_within

    return is_within(path, root)


# --------------------------------------------------------------------------- cache


def signature(root: Path, memory_dir: Path) -> str:
    """``HEAD`` plus the size and mtime of every checked memory file and ``.last-sync``."""
    head = read_head(root) or "-"
    crc = 0
    count = 0
    for path in memory_files(memory_dir):
        try:
            st = os.stat(path)
        except OSError:
            continue
        count += 1
        crc = zlib.crc32(f"{path}:{st.st_size}:{st.st_mtime_ns};".encode(), crc)
    with contextlib.suppress(OSError):
        crc = zlib.crc32((memory_dir / LAST_SYNC_FILE).read_bytes(), crc)
    return f"v{CACHE_VERSION}:{head}:{count}:{crc:08x}"


def work_tree_stamps(root: Path, paths: Iterable[str]) -> dict[str, list[int] | None]:
    """Size and modification time of each path under ``root`` (``None`` when it is missing):
    what a cached report is checked against besides ``HEAD``, since a file deleted or edited
    without a commit (and outside git every change) leaves ``HEAD`` as it was."""
    stamps: dict[str, list[int] | None] = {}
    for rel in paths:
        try:
            info = os.stat(os.path.join(root, rel))
        except (OSError, ValueError):
            stamps[rel] = None
            continue
        stamps[rel] = [info.st_size, info.st_mtime_ns]
    return stamps


def _stored_root(root: Path) -> str:
    """The root as a cache keeps it: a folder named after a credential by its digest."""
    from conkeeper.domain.paths import stored_identity

    return stored_identity(str(root))


def cache_path(identity: str, env: Mapping[str, str] | None = None) -> Path:
    """Where a project's cached report lives in the data home."""
    from conkeeper.domain.paths import data_home

    key = f"{zlib.crc32(identity.encode('utf-8', 'replace')):08x}"
    return data_home(env) / "freshness" / f"{key}.json"


def health_cache_path(root: Path | str, env: Mapping[str, str] | None = None) -> Path:
    """Where SessionStart's cached health answer for the work tree ``root`` lives (beside the
    report; :mod:`.health` writes it, a forget removes it)."""
    from conkeeper.domain.paths import data_home

    key = f"{zlib.crc32(str(root).encode('utf-8', 'replace')):08x}"
    return data_home(env) / "freshness" / f"{key}-health.json"


def forget_cached(identity: str, env: Mapping[str, str] | None = None) -> None:
    """Remove a forgotten project's cached report and SessionStart health answer (both name
    its folder)."""
    for path in (cache_path(identity, env), health_cache_path(identity, env)):
        with contextlib.suppress(OSError):
            path.unlink()


def load_cached(
    root: Path, memory_dir: Path, identity: str, env: Mapping[str, str] | None = None
) -> tuple[Report | None, str]:
    """The cached report when it is still valid (else ``None``) and the current signature."""
    current = signature(root, memory_dir)
    try:
        data = json.loads(cache_path(identity, env).read_text(encoding="utf-8"))
        if data.get("signature") != current or data.get("root") != _stored_root(root):
            return None, current
        report = Report()
        report.findings = [Finding.from_dict(f) for f in data.get("findings", ())]
        report.entries = int(data.get("entries_checked", 0))
        report.citations = int(data.get("citations_checked", 0))
        report.git = bool(data.get("git"))
        report.health = {str(k): int(v) for k, v in (data.get("health") or {}).items()}
        report.sync = data.get("sync")
        report.last_sync = data.get("last_sync")
        report.cached = True
        watched = data.get("watched") or {}
        if work_tree_stamps(root, watched) != watched:
            return None, current  # a cited file changed, went or came outside a commit
        report.watched = watched
        report.seen = [str(p) for p in data.get("seen") or ()]
        return report, current
    except (OSError, ValueError, TypeError, AttributeError):
        return None, current


def store_cached(
    report: Report, root: Path, identity: str, current: str, env: Mapping[str, str] | None = None
) -> None:
    """Write the report to the cache atomically (a failure only costs the next run)."""
    path = cache_path(identity, env)
    data = report.as_dict()
    data.update({"signature": current, "root": _stored_root(root), "written_at": time.time()})
    data["watched"] = report.watched
    data["seen"] = report.seen
    write_cache_file(path, data)


def previously_seen(
    root: Path, identity: str, env: Mapping[str, str] | None = None
) -> frozenset[str]:
    """The cited paths an earlier check of ``root`` saw in the work tree (outside git, or for a
    file git never tracked, the only record that a file now missing was there), whether or not
    that report is still valid: ``stale --no-cache`` reads it too."""
    try:
        data = json.loads(cache_path(identity, env).read_text(encoding="utf-8"))
        if data.get("root") != _stored_root(root):
            return frozenset()
        watched = data.get("watched") or {}
        present = {str(p) for p, stamp in watched.items() if stamp is not None}
        return frozenset(present | {str(p) for p in data.get("seen") or ()})
    except (OSError, ValueError, TypeError, AttributeError):
        return frozenset()


def write_cache_file(path: Path, data: Mapping[str, object]) -> None:
    """Write a freshness cache file as JSON, atomically; a failure only costs the next run
    (the caches are derived state, never the user's)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
