"""The search index: memory-file sections in SQLite FTS5, kept in step with the files.

Why it exists: Markdown is the user's memory, but scanning every file for every query is slow and
cannot rank. The index is derived data that is never trusted blindly — :func:`refresh_root`
re-checks every file's stamp (one ``os.scandir`` walk compared against one ``SELECT``) and
re-indexes what changed before each search, so results are never stale.

This module holds the roots, the refresh that ties scanning to writing, status and opening the
database. Scanning (stamps, fingerprint) lives in :mod:`conkeeper.storage.index_scan`; reading,
parsing and writing rows in :mod:`conkeeper.storage.index_write`, imported only when a refresh
finds a change (its public names are still reachable from here, lazily).

Privacy hygiene: connections use ``PRAGMA secure_delete``; see
:mod:`~conkeeper.storage.index_write`
for how text that has just become private is scrubbed.
"""

from __future__ import annotations

import contextlib
import os
import time

from conkeeper.domain.paths import (
    ProjectLocation,
    db_file,
    global_memory_folder,
    home_folder,
    memory_folder_of,
    stored_path,
)
from conkeeper.domain.records import FrozenRecord, Record
from conkeeper.storage.driver import sqlite3
from conkeeper.storage.index_scan import (
    NOT_INDEXED,
    RACY_WINDOW_NS,
    ROW_FORMAT,
    SESSIONS_DIR,
    FileKind,
    FileStat,
    IndexRoot,
    Progress,
    RefreshStats,
    RootKind,
    file_kind,
    file_time_ms,
    walk_root,
)
from conkeeper.storage.pending import store_waiting
from conkeeper.storage.store import (
    SCHEMA_VERSION,
    DamagedStore,
    StoreError,
    connect,
    describe_error,
    ensure_project,
    header_damage,
    migrate,
    open_for_reading,
    schema_version,
    transaction,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the search read path never imports pathlib (see conkeeper.domain.paths)
    from pathlib import Path


__all__ = [
    "NOT_INDEXED",
    "RACY_WINDOW_NS",
    "ROW_FORMAT",
    "SESSIONS_DIR",
    "FileKind",
    "FileStat",
    "IndexRoot",
    "Progress",
    "RefreshStats",
    "RootKind",
    "file_kind",
    "file_time_ms",
    "walk_root",
]
_WRITER_NAMES = frozenset(
    {
        "CHUNK_LINES",
        "MAX_WORKERS",
        "PARALLEL_MIN_FILES",
        "EntryRow",
        "PreparedFile",
        "entry_rows",
        "identifier_terms",
        "identifiers",
        "prepare_file",
        "scrub",
    }
)


def __getattr__(name: str) -> object:
    """Names that moved to :mod:`conkeeper.storage.index_write`, imported on first use."""
    if name in _WRITER_NAMES:
        from conkeeper.storage import index_write

        return getattr(index_write, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- roots


def project_root(
    conn: sqlite3.Connection, location: ProjectLocation, *, current: bool = True
) -> IndexRoot:
    """The :class:`IndexRoot` of a project, registering it in the store when new or moved
    (a plain SELECT otherwise: searching should not write when nothing changed)."""
    row = conn.execute(
        "SELECT id, root FROM projects WHERE identity = ?", (location.identity,)
    ).fetchone()
    if row is not None and row[1] == location.shown_root:
        project_id = int(row[0])
    else:
        project_id = ensure_project(conn, location)
    return _project_root(project_id, location.root_folder, location.name, current=current)


def _project_root(project_id: int, root: str, name: str, *, current: bool) -> IndexRoot:
    memory = memory_folder_of(root)
    display = ".claude/memory" if current else f"{tilde(root)}/.claude/memory"
    return IndexRoot("project", memory, project_id, display, name)


def global_root() -> IndexRoot:
    """The :class:`IndexRoot` of the user's global memory, ``~/.claude/memory``."""
    folder = global_memory_folder()
    return IndexRoot("global", folder, None, tilde(folder))


def known_project_roots(
    conn: sqlite3.Connection, current: ProjectLocation | None = None
) -> list[IndexRoot]:
    """Roots of every project the store knows whose memory folder still exists."""
    roots = []
    rows = conn.execute("SELECT id, identity, root, name FROM projects ORDER BY id").fetchall()
    for row in rows:
        is_current = current is not None and row["identity"] == current.identity
        # the live root of a folder named after a credential is known only to its own sessions
        root = current.root_folder if current is not None and is_current else row["root"]
        if not os.path.isdir(memory_folder_of(root)):
            continue
        roots.append(_project_root(int(row["id"]), root, row["name"], current=is_current))
    return roots


def tilde(path: Path | str) -> str:
    """``path`` with the user's home shown as ``~`` (how people and agents read paths)."""
    text = os.fspath(path)
    home = home_folder()
    if home and home != os.sep and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home) :]
    return text


def ensure_root(conn: sqlite3.Connection, root: IndexRoot) -> int:
    """The ``index_roots.id`` of ``root``; a project whose folder moved starts afresh."""
    return _root_row(conn, root)[0]


def _root_row(conn: sqlite3.Connection, root: IndexRoot) -> tuple[int, str | None]:
    """``(id, fingerprint)`` of ``root``'s row, creating (or re-creating after a move) it."""
    if root.kind == "global":
        row = conn.execute(
            "SELECT id, path, fingerprint FROM index_roots WHERE kind = 'global'"
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT id, path, fingerprint FROM index_roots WHERE kind = 'project' "
            "AND project_id = ?",
            (root.project_id,),
        ).fetchone()
    shown = stored_path(root.folder)  # a folder named after a credential is stored redacted
    if row is not None and row[1] == shown:
        return int(row[0]), row[2]
    with transaction(conn):
        if row is not None:  # moved (or another worktree): its files are other files now
            conn.execute("DELETE FROM index_roots WHERE id = ?", (row[0],))
        cur = conn.execute(
            "INSERT INTO index_roots(project_id, kind, path) VALUES (?, ?, ?)",
            (root.project_id, root.kind, shown),
        )
    return int(cur.lastrowid or 0), None


# --------------------------------------------------------------------------- refreshing


def refresh_root(
    conn: sqlite3.Connection, root: IndexRoot, *, progress: Progress | None = None
) -> RefreshStats:
    """Bring ``root``'s rows in line with its files; returns what changed.

    A no-change re-check is one directory walk plus one single-row SELECT (the root's
    fingerprint). Otherwise files are compared one by one; reading and parsing happen outside
    the write transaction, then everything is written in one short ``BEGIN IMMEDIATE``
    transaction, so parallel searches never see half a file.
    """
    started = time.perf_counter()
    root_id, stored = _root_row(conn, root)
    scan = walk_root(root.folder)
    current = scan.fingerprint(time.time_ns())
    stats = RefreshStats(scanned=len(scan), root_id=root_id)
    if current is not None and current == stored:
        stats.unchanged = len(scan)
        stats.seconds = time.perf_counter() - started
        return stats
    files = scan.files()
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: this SELECT is the bulk of a file-by-file check
    known = {
        row[0]: row[1:]
        for row in cursor.execute(
            "SELECT rel_path, id, size, mtime_ns, sha256 FROM index_files WHERE root_id = ?",
            (root_id,),
        )
    }
    if stored is not None and not stored.startswith(f"{ROW_FORMAT}:"):
        # Rows were made by another version of the parser: re-parse every file once.
        known = {rel: (row[0], -1, -1, "") for rel, row in known.items()}
    if _same_stamps(files, known):  # e.g. the racy window has passed: no file to read
        stats.unchanged = len(files)
        plan = None
    else:
        from conkeeper.storage.index_write import plan_refresh, write_plan

        plan = plan_refresh(root, files, known, stats, progress)
    if plan is not None and (plan.prepared or plan.touched or plan.removed):
        write_plan(conn, root_id, plan, current)
    elif current != stored:
        with transaction(conn):
            conn.execute("UPDATE index_roots SET fingerprint = ? WHERE id = ?", (current, root_id))
    stats.seconds = time.perf_counter() - started
    return stats


def clear_index(conn: sqlite3.Connection) -> None:
    """Forget every indexed file (``index --rebuild``); the next refresh re-reads them all."""
    conn.execute("PRAGMA secure_delete = ON")
    with transaction(conn):
        conn.execute("DELETE FROM index_fts")
        conn.execute("DELETE FROM index_roots")
        conn.execute("INSERT INTO index_fts(index_fts) VALUES ('rebuild')")
    with contextlib.suppress(sqlite3.DatabaseError):
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def count_older_sessions(conn: sqlite3.Connection, root_ids: list[int], before_ms: int) -> int:
    """Session files of ``root_ids`` dated before ``before_ms`` (what a window leaves out)."""
    if not root_ids:
        return 0
    marks = ",".join("?" * len(root_ids))
    row = conn.execute(
        f"SELECT count(*) FROM index_files WHERE kind = 'session' AND root_id IN ({marks}) "
        "AND file_time < ?",
        (*root_ids, before_ms),
    ).fetchone()
    return int(row[0])


def unread_files(conn: sqlite3.Connection, root_ids: list[int]) -> list[tuple[int, str, str, str]]:
    """``(root id, relative path, kind, note)`` of every indexed file of ``root_ids`` that a
    search could not read whole: skipped (too large, unreadable, binary) or read with invalid
    UTF-8 replaced. A search names them, so no file drops out of its results without a word."""
    if not root_ids:
        return []
    marks = ",".join("?" * len(root_ids))
    rows = conn.execute(
        "SELECT root_id, rel_path, kind, note FROM index_files "
        f"WHERE root_id IN ({marks}) AND note IS NOT NULL AND note != '' ORDER BY rel_path",
        root_ids,
    ).fetchall()
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]


def _same_stamps(files: dict[str, FileStat], known: dict[str, tuple[int, int, int, str]]) -> bool:
    """True when the index holds exactly these files with these sizes and mtimes."""
    if len(files) != len(known):
        return False
    for rel, stat in files.items():
        row = known.get(rel)
        if row is None or row[1] != stat.size or row[2] != stat.mtime_ns:
            return False
    return True


# --------------------------------------------------------------------------- status


class RootStatus(FrozenRecord):
    """What ``index --status`` reports for one root."""

    __slots__ = ("checked_at", "entries", "files", "kind", "path", "private", "project", "skipped")
    kind: RootKind
    path: str
    project: str
    files: int
    entries: int
    private: int
    skipped: list[tuple[str, str]]
    checked_at: int

    def __init__(
        self,
        kind: RootKind,
        path: str,
        project: str,
        files: int,
        entries: int,
        private: int,
        skipped: list[tuple[str, str]],
        checked_at: int,
    ) -> None:
        self._set(kind=kind, path=path, project=project, files=files, entries=entries)
        self._set(private=private, skipped=skipped, checked_at=checked_at)


def index_status(conn: sqlite3.Connection) -> list[RootStatus]:
    """Per-root counts and the skipped files with their notes."""
    result = []
    roots = conn.execute(
        "SELECT r.id, r.kind, r.path, r.checked_at, coalesce(p.name, '') AS name "
        "FROM index_roots r LEFT JOIN projects p ON p.id = r.project_id ORDER BY r.kind, r.path"
    ).fetchall()
    for root in roots:
        counts = conn.execute(
            "SELECT count(*), coalesce(sum(entries), 0), "
            "coalesce(sum(status = 'private'), 0) FROM index_files WHERE root_id = ?",
            (root["id"],),
        ).fetchone()
        skipped = conn.execute(
            "SELECT rel_path, coalesce(note, '') FROM index_files "
            "WHERE root_id = ? AND status = 'skipped' ORDER BY rel_path",
            (root["id"],),
        ).fetchall()
        result.append(
            RootStatus(
                root["kind"],
                root["path"],
                root["name"],
                int(counts[0]),
                int(counts[1]),
                int(counts[2]),
                [(r[0], r[1]) for r in skipped],
                int(root["checked_at"]),
            )
        )
    return result


# --------------------------------------------------------------------------- opening


class IndexStore(Record):
    """An open database for the index, and what a person should be told about how it opened.

    ``ephemeral`` means the real database could not be written (locked, read-only, newer
    schema) and an in-memory index stands in for this one run.
    """

    __slots__ = ("conn", "ephemeral", "file", "notices")

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path | str,
        notices: list[str] | None = None,
        ephemeral: bool = False,
    ) -> None:
        self.conn, self.file = conn, os.fspath(path)
        self.notices: list[str] = [] if notices is None else notices
        self.ephemeral = ephemeral

    @property
    def path(self) -> Path:
        """The database file as a path (``file`` is the same as a string)."""
        from pathlib import Path

        return Path(self.file)


IN_MEMORY = "searching with a temporary in-memory index instead"
_CORRUPT_WORDS = ("not a database", "malformed", "corrupt", "file is encrypted")


def is_corruption(exc: BaseException) -> bool:
    """True when ``exc`` says the database file is damaged (rather than busy or read-only)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and any(w in text for w in _CORRUPT_WORDS)


def open_index_store(path: Path | str | None = None, *, fallback: bool = False) -> IndexStore:
    """Open the store for indexing, repairing what is merely derived.

    A damaged file is moved aside (``conkeeper.db.damaged-<time>``) and a fresh database is
    created — the index is rebuilt from the memory files on the next refresh. With ``fallback``
    (searching), a database that is locked, read-only or from a newer ConKeeper is replaced by an
    in-memory index for this run, with a notice; otherwise that raises :class:`StoreError`.
    """
    target = os.fspath(path) if path else db_file()
    try:
        return IndexStore(_open_checked(target), target)
    except (sqlite3.DatabaseError, StoreError, OSError) as exc:
        if is_corruption(exc) or isinstance(exc, DamagedStore):
            notice = move_aside(target)
            return IndexStore(_open_checked(target), target, [notice])
        message = _message(target, exc)
        if not fallback:
            raise StoreError(message) from None
        if _is_unwritable(message):
            with contextlib.suppress(StoreError):  # a full disk: search the history as stored
                notice = f"{message}; searching the index and history as stored"
                return IndexStore(open_for_reading(target), target, [notice])
        notice = f"{message}; {IN_MEMORY}"
        return IndexStore(memory_store(), target, [notice], ephemeral=True)


def _is_unwritable(message: str) -> bool:
    """Whether a store message says the file cannot be written but may still be read (a full
    disk, a read-only file); an index that then needs a write goes in-memory as before."""
    return any(mark in message for mark in ("disk is full", "ulimit -f", "read-only"))


def memory_store() -> sqlite3.Connection:
    """A throw-away, fully migrated store in memory (fallback and tests)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    migrate(conn)
    return conn


def _open_checked(target: str) -> sqlite3.Connection:
    damage = header_damage(target)
    if damage is not None:
        raise DamagedStore(f"{target}: the database file is damaged ({damage})")
    conn = connect(target)
    try:
        if schema_version(conn) > SCHEMA_VERSION:
            raise StoreError(
                f"{target}: written by a newer ConKeeper (schema {schema_version(conn)}, this one "
                f"knows {SCHEMA_VERSION}); upgrade ConKeeper"
            )
        migrate(conn)
        conn.execute("SELECT count(*) FROM index_roots").fetchone()
        store_waiting(conn, target)  # search shows the history hooks kept for later
        conn.execute("SELECT rowid FROM index_fts LIMIT 1").fetchall()
    except BaseException:
        conn.close()
        raise
    return conn


def _message(target: str, exc: BaseException) -> str:
    if isinstance(exc, StoreError):
        return str(exc)
    if isinstance(exc, sqlite3.DatabaseError):
        return describe_error(target, exc)
    return f"{target}: cannot open the database ({getattr(exc, 'strerror', None) or exc})"


def move_aside(target: Path | str) -> str:
    """Restore a damaged database at ``target`` (``storage.recovery``: the damaged file moved
    aside, the backup, salvage, the row journal); returns the one-line notice."""
    from conkeeper.storage.recovery import recover

    notice = recover(target, tilde(os.fspath(target)))
    return notice or f"the database {tilde(os.fspath(target))} was restored by another process"
