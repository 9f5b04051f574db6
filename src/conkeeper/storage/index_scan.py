"""What is on disk, cheaply: the memory roots, their Markdown files' stamps and the fingerprint
that says "nothing changed".

Why it exists: every search re-checks every file before it answers (never a stale result), so
this is the hot path of a no-change search. It needs no parser, no privacy module and no hashing
of file contents — only one ``os.scandir`` walk and one digest of the stamps — and imports
nothing heavier; :mod:`conkeeper.storage.index_write` (reading, parsing, writing rows) is loaded
only when something did change.
"""

from __future__ import annotations

import operator
import os
from array import array
from collections import namedtuple
from collections.abc import Callable

from conkeeper.domain.records import FrozenRecord, Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and pathlib cost a search milliseconds; annotations only need them
    from pathlib import Path
    from typing import Literal, NamedTuple, TypeAlias

    RootKind: TypeAlias = Literal["project", "global"]
    FileKind: TypeAlias = Literal["memory", "session", "global"]
else:  # at run time the names stay importable (and usable in aliases) as plain str
    RootKind = FileKind = str

try:  # the same BLAKE2 hashlib would hand out, without hashlib's OpenSSL start-up (~3 ms)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without the bundled _blake2
    from hashlib import blake2b

Progress = Callable[[int, int], None]

RACY_WINDOW_NS = 2_000_000_000
# Bump when the rows made from a file change (parser, chunking, category inheritance): every
# root whose stored fingerprint carries another format is re-parsed once on its next refresh.
ROW_FORMAT = "rows-3"
SESSIONS_DIR = "sessions"
# Top-level files that document the memory format rather than hold memory (schema.md,
# .memory-config.md): their examples — a <private> block in a code fence, say — are not results.
# The memory layout (conkeeper.domain.memory) names them; a test keeps the two in step, so a
# search need not import the layout module.
NOT_INDEXED = frozenset({"schema.md", ".memory-config.md"})


class IndexRoot(FrozenRecord):
    """One memory folder the index covers, and how its files are shown to people.

    The folder is held as a string (``folder``), so a search never needs :mod:`pathlib`;
    ``path`` hands it out as a :class:`~pathlib.Path` for everything else.
    """

    __slots__ = ("display", "folder", "kind", "project", "project_id")
    kind: RootKind
    folder: str  # the memory folder
    project_id: int | None
    display: str  # prefix for display paths, e.g. ".claude/memory" or "~/.claude/memory"
    project: str  # project name ("" for the global root)

    def __init__(
        self,
        kind: RootKind,
        path: Path | str,
        project_id: int | None,
        display: str,
        project: str = "",
    ) -> None:
        self._set(kind=kind, folder=os.fspath(path), project_id=project_id, display=display)
        self._set(project=project)

    @property
    def path(self) -> Path:
        """The memory folder as a path."""
        from pathlib import Path

        return Path(self.folder)


if TYPE_CHECKING:

    class FileStat(NamedTuple):
        """What the walk learned about one file without reading it (a tuple: the walk is hot)."""

        rel: str  # POSIX path below the root
        path: str
        size: int
        mtime_ns: int

else:  # the same named tuple without importing typing (about 4 ms of a search's start-up)
    FileStat = namedtuple("FileStat", ("rel", "path", "size", "mtime_ns"))


class RootScan:
    """The Markdown files of one memory root and their ``stat`` results, in walk order.

    A no-change search needs only :meth:`fingerprint`, so the per-file :class:`FileStat` tuples
    are built (:meth:`files`) only when the fingerprint differs. Listing, ``stat`` and hashing
    each run as C-level passes over lists: at 10,000 files a Python-level loop building a tuple
    per file cost nearly as much as the ``stat`` calls themselves.
    """

    __slots__ = ("paths", "rels", "stats")

    def __init__(self, rels: list[str], paths: list[str], stats: list[os.stat_result]) -> None:
        self.rels, self.paths, self.stats = rels, paths, stats

    def __len__(self) -> int:
        return len(self.rels)

    def files(self) -> dict[str, FileStat]:
        """Relative path -> :class:`FileStat`, in walk order."""
        return {
            rel: _new_stat(FileStat, (rel, path, st.st_size, st.st_mtime_ns))
            for rel, path, st in zip(self.rels, self.paths, self.stats, strict=True)
        }

    def fingerprint(self, now_ns: int) -> str | None:
        """One hash of every file's path, size and mtime, in walk order — equal means "nothing
        changed" (a different walk order only costs one file-by-file comparison, never a stale
        result).

        ``None`` when a file changed within :data:`RACY_WINDOW_NS`: a second edit in the same
        clock tick could keep size and mtime, so such a root is always checked file by file.
        Nothing here takes a Python-level step per file: the names are joined and the numbers
        packed by C code, then hashed once.
        """
        mtimes = array("q", map(_ST_MTIME, self.stats))
        if mtimes and now_ns - max(mtimes) < RACY_WINDOW_NS:
            return None
        digest = blake2b(b"%d\0" % len(mtimes), digest_size=32)
        digest.update("\0".join(self.rels).encode("utf-8", "surrogatepass"))
        digest.update(array("q", map(_ST_SIZE, self.stats)).tobytes())
        digest.update(mtimes.tobytes())
        return f"{ROW_FORMAT}:{digest.hexdigest()}"


def walk_root(root: Path | str) -> RootScan:
    """Every ``*.md`` file under ``root`` (hidden names and :data:`NOT_INDEXED` skipped, symlinks
    kept inside ``root``), stamped by one ``stat`` each.

    One ``os.scandir`` walk (file types come from the directory listing), then every ``stat``
    in one ``map``: the system calls are most of a no-change re-check's time, so nothing else
    takes a Python-level step per file. The walk order is stable while the folders do not
    change, which is all :func:`fingerprint` needs.
    """
    rels: list[str] = []
    paths: list[str] = []
    stack: list[tuple[str, str]] = [(os.fspath(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = [e for e in it if e.name[0] != "."]
        except OSError:
            continue
        stack += [(e.path, prefix + e.name + "/") for e in entries if _is_folder(e)]
        markdown = [e for e in entries if e.name.endswith(".md") and _is_file(e, root)]
        if not prefix:
            markdown = [e for e in markdown if e.name not in NOT_INDEXED]
        rels += [prefix + e.name for e in markdown]
        paths += [e.path for e in markdown]
    try:
        stats = list(map(os.stat, paths))
    except OSError:  # a file went away (or turned unreadable) between listing and stat
        return _stat_each(rels, paths)
    return RootScan(rels, paths, stats)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str], root: Path | str) -> bool:
    """Not a folder; a link only when it stays inside the memory folder."""
    try:
        if entry.is_dir(follow_symlinks=False):
            return False
        return not entry.is_symlink() or _inside(entry.path, root)
    except OSError:
        return False


def _stat_each(rels: list[str], paths: list[str]) -> RootScan:
    """The slow path of :func:`walk_root`: ``stat`` one by one, leaving out what fails (a
    symlink to a missing file stays, stamped by ``lstat``, so search can say it was skipped)."""
    scan = RootScan([], [], [])
    for rel, path in zip(rels, paths, strict=True):
        try:
            st = os.stat(path)
        except FileNotFoundError:  # a dangling link is kept (by its own stamp) to be named
            if not os.path.islink(path):
                continue
            st = os.lstat(path)
        except OSError:
            continue
        scan.rels.append(rel)
        scan.paths.append(path)
        scan.stats.append(st)
    return scan


def _inside(path: str, root: Path | str) -> bool:
    from pathlib import Path

    from conkeeper.domain.textio import is_within

    return is_within(Path(path), Path(root))


# FileStat(...) runs a Python-level __new__; tuple.__new__ builds the same tuple in C.
_new_stat = tuple.__new__
_ST_SIZE = operator.attrgetter("st_size")
_ST_MTIME = operator.attrgetter("st_mtime_ns")


def file_kind(root: IndexRoot, rel: str) -> FileKind:
    """``global`` for the global root, ``session`` under ``sessions/``, else ``memory``."""
    if root.kind == "global":
        return "global"
    return "session" if rel.startswith(SESSIONS_DIR + "/") else "memory"


def file_time_ms(rel: str, mtime_ns: int) -> int:
    """The date a file is about: a ``YYYY-MM-DD`` in its name (local midnight), else its mtime.

    Session files are named by date; their mtime changes on checkout or copy, their name does not.
    """
    name = rel.rsplit("/", 1)[-1]
    if len(name) >= 10 and name[4] == "-" and name[7] == "-":
        digits = name[:4] + name[5:7] + name[8:10]
        if digits.isascii() and digits.isdigit():
            import time

            parts = (int(name[:4]), int(name[5:7]), int(name[8:10]), 0, 0, 0, 0, 0, -1)
            try:
                return int(time.mktime(parts) * 1000)
            except (ValueError, OverflowError):
                pass
    return mtime_ns // 1_000_000


class RefreshStats(Record):
    """What one refresh did; ``changed`` says whether anything was written."""

    __slots__ = (
        "added",
        "entries",
        "removed",
        "root_id",
        "scanned",
        "seconds",
        "skipped",
        "touched",
        "unchanged",
        "updated",
    )

    def __init__(
        self,
        scanned: int = 0,
        unchanged: int = 0,
        added: int = 0,
        updated: int = 0,
        touched: int = 0,
        removed: int = 0,
        skipped: int = 0,
        entries: int = 0,
        seconds: float = 0.0,
        root_id: int = 0,
    ) -> None:
        self.scanned, self.unchanged, self.added, self.updated = scanned, unchanged, added, updated
        self.touched, self.removed, self.skipped, self.entries = touched, removed, skipped, entries
        self.seconds, self.root_id = seconds, root_id

    @property
    def changed(self) -> bool:
        """True when the refresh wrote anything."""
        return bool(self.added or self.updated or self.touched or self.removed)

    def add(self, other: RefreshStats) -> None:
        """Accumulate another root's numbers (for multi-root commands)."""
        for name in ("scanned", "unchanged", "added", "updated", "touched", "removed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.skipped += other.skipped
        self.entries += other.entries
        self.seconds += other.seconds
