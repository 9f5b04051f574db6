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
from collections.abc import Callable
from pathlib import Path

from conkeeper.domain.records import FrozenRecord, Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a search about 4 ms of start-up; annotations only need it here
    from typing import Literal, TypeAlias

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
ROW_FORMAT = "rows-2"
SESSIONS_DIR = "sessions"
# Top-level files that document the memory format rather than hold memory (schema.md,
# .memory-config.md): their examples — a <private> block in a code fence, say — are not results.
# The memory layout (conkeeper.domain.memory) names them; a test keeps the two in step, so a
# search need not import the layout module.
NOT_INDEXED = frozenset({"schema.md", ".memory-config.md"})
_SIZE = operator.itemgetter(2)  # FileStat.size, read in C
_MTIME = operator.itemgetter(3)  # FileStat.mtime_ns, read in C


class IndexRoot(FrozenRecord):
    """One memory folder the index covers, and how its files are shown to people."""

    __slots__ = ("display", "kind", "path", "project", "project_id")
    kind: RootKind
    path: Path  # the memory folder
    project_id: int | None
    display: str  # prefix for display paths, e.g. ".claude/memory" or "~/.claude/memory"
    project: str  # project name ("" for the global root)

    def __init__(
        self, kind: RootKind, path: Path, project_id: int | None, display: str, project: str = ""
    ) -> None:
        self._set(kind=kind, path=path, project_id=project_id, display=display, project=project)


class FileStat(tuple[str, str, int, int]):
    """What the walk learned about one file without reading it: ``(rel, path, size,
    mtime_ns)``, a plain tuple underneath because the walk is hot (a named tuple's class comes
    with :mod:`typing`, too slow to import on the search path)."""

    __slots__ = ()

    def __new__(cls, rel: str, path: str, size: int, mtime_ns: int) -> FileStat:
        return tuple.__new__(cls, (rel, path, size, mtime_ns))

    def __getnewargs__(self) -> tuple[str, str, int, int]:  # pickling (parallel indexing)
        return (self[0], self[1], self[2], self[3])

    def __repr__(self) -> str:
        return f"FileStat(rel={self[0]!r}, path={self[1]!r}, size={self[2]}, mtime_ns={self[3]})"

    @property
    def rel(self) -> str:
        """POSIX path below the root."""
        return self[0]

    @property
    def path(self) -> str:
        """Absolute path of the file."""
        return self[1]

    @property
    def size(self) -> int:
        """Size in bytes."""
        return self[2]

    @property
    def mtime_ns(self) -> int:
        """Modification time in nanoseconds."""
        return self[3]


def scan_root(root: Path) -> dict[str, FileStat]:
    """Every ``*.md`` file under ``root`` (hidden names and :data:`NOT_INDEXED` skipped, symlinks
    kept inside ``root``), in walk order.

    One ``os.scandir`` walk (file types come from the directory listing, one ``stat`` per
    Markdown file); this is the whole cost of a no-change re-check besides one SELECT, so the
    loop does as little as it can per file (the ``stat`` system calls are most of its time; at
    10,000 files they are about 25 ms of the walk's 35 ms). The walk order is stable while the
    folders do not change, which is all :func:`fingerprint` needs.
    """
    found: dict[str, FileStat] = {}
    stat = os.stat
    new = _new_stat
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name[0] == ".":
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, prefix + name + "/"))
                    continue
                if not name.endswith(".md") or (not prefix and name in NOT_INDEXED):
                    continue
                path = entry.path
                if entry.is_symlink() and not _inside(path, root):
                    continue  # a link leading outside the memory folder is not memory
                st = stat(path)
            except OSError:
                continue
            rel = prefix + name
            found[rel] = new(FileStat, (rel, path, st.st_size, st.st_mtime_ns))
    return found


def _inside(path: str, root: Path) -> bool:
    from conkeeper.domain.textio import is_within

    return is_within(Path(path), root)


# FileStat(...) runs a Python-level __new__; tuple.__new__ builds the same tuple in C.
_new_stat = tuple.__new__


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


def fingerprint(files: dict[str, FileStat], now_ns: int) -> str | None:
    """One hash of every file's path, size and mtime, in walk order — equal means "nothing
    changed" (a different walk order only costs one file-by-file comparison, never a stale
    result).

    ``None`` when a file changed within :data:`RACY_WINDOW_NS`: a second edit in the same clock
    tick could keep size and mtime, so such a root is always checked file by file.

    Runs before every search over every file, so nothing here takes a Python-level step per
    file: the names are joined and the numbers packed by C code, then hashed once.
    """
    stamps = files.values()
    if files and now_ns - max(map(_MTIME, stamps)) < RACY_WINDOW_NS:
        return None
    digest = blake2b(b"%d\0" % len(files), digest_size=32)
    digest.update("\0".join(files).encode("utf-8", "surrogatepass"))
    digest.update(array("q", map(_SIZE, stamps)).tobytes())
    digest.update(array("q", map(_MTIME, stamps)).tobytes())
    return f"{ROW_FORMAT}:{digest.hexdigest()}"


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
