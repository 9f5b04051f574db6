"""The user's single SQLite database: connection settings, migrations and project rows.

Every process (hooks in parallel, the CLI, the MCP server) opens the store the same way: WAL
journal, a busy timeout so writers wait instead of failing with "database is locked", foreign
keys on. The schema is a sequence of migrations (``storage/migrations/mNNNN_*.py``) applied in
order; a database written by a newer ConKeeper is refused, never modified.

Opening an up-to-date database (every hook, nearly always) reads ``PRAGMA user_version`` and
compares it with :data:`SCHEMA_VERSION`; the migration modules are only discovered and imported
when something is actually missing.
"""

from __future__ import annotations

import os
import time

from conkeeper.domain.paths import ProjectLocation, db_path
from conkeeper.domain.records import FrozenRecord
from conkeeper.storage.driver import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:  # the search read path passes plain strings and never imports pathlib
    from collections.abc import Callable, Iterator
    from pathlib import Path
    from typing import Any

BUSY_TIMEOUT_MS = 5000
BUSY_TIMEOUT_ENV = "CONKEEPER_BUSY_TIMEOUT_MS"


class StoreError(Exception):
    """The database cannot be used; the message is one line saying what to do."""


class UnwritableStore(StoreError):
    """The database cannot be written (a full disk, a read-only file or folder); a command that
    only reads may still open it as it is (:func:`open_for_reading`)."""


class DamagedStore(StoreError):
    """The database file is damaged (its header overwritten, the file cut short, pages that no
    longer read). A command restores it (``storage.recovery``); a hook fails open."""


class StoreConnection(sqlite3.Connection):
    """A connection that knows where the row journal of its database is.

    Why: the storage functions that write session history append what they wrote to
    :mod:`conkeeper.storage.journal`, so a damaged file can be rebuilt from the last backup.
    ``journal_file`` is ``None`` for read-only, in-memory and recovery connections;
    ``journal_pending`` holds the lines of the open transaction (written on commit, dropped on
    rollback); ``journal_keys`` caches ``sessions.id`` → (project identity, host session id).
    """

    journal_file: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.journal_pending: list[str] = []
        self.journal_keys: dict[int, tuple[str, str]] = {}


# The number of the newest migration module. Bump it with every new migration (a test checks
# that it equals the number of migration modules); it lets an up-to-date database open without
# importing any of them.
SCHEMA_VERSION = 8


class Migration(FrozenRecord):
    """One forward step of the schema."""

    __slots__ = ("apply", "description", "version")
    version: int
    description: str
    apply: Callable[[sqlite3.Connection], None]

    def __init__(
        self, version: int, description: str, apply: Callable[[sqlite3.Connection], None]
    ) -> None:
        self._set(version=version, description=description, apply=apply)


_loaded: list[Migration] | None = None


def load_migrations() -> list[Migration]:
    """Every migration module under ``storage/migrations``, in order (imported once)."""
    global _loaded
    if _loaded is None:
        import importlib
        import pkgutil

        from conkeeper.storage import migrations as package

        found: list[Migration] = []
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("m"):
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            found.append(Migration(module.VERSION, module.DESCRIPTION, module.apply))
        found.sort(key=lambda m: m.version)
        versions = [m.version for m in found]
        if versions != list(range(1, SCHEMA_VERSION + 1)):
            raise StoreError(
                f"migrations are not numbered 1..{SCHEMA_VERSION} (SCHEMA_VERSION): {versions}"
            )
        _loaded = found
    return _loaded


def __getattr__(name: str) -> object:
    """``MIGRATIONS`` is loaded on first access (module ``__getattr__``, PEP 562)."""
    if name == "MIGRATIONS":
        return load_migrations()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def busy_timeout_ms() -> int:
    """How long a writer waits for a lock: ``CONKEEPER_BUSY_TIMEOUT_MS`` when set (tests and
    impatient automation), else :data:`BUSY_TIMEOUT_MS`."""
    raw = os.environ.get(BUSY_TIMEOUT_ENV, "")
    return int(raw) if raw.isdigit() else BUSY_TIMEOUT_MS


def connect(
    path: Path | str, *, readonly: bool = False, journaled: bool = True, immutable: bool = False
) -> sqlite3.Connection:
    """Open ``path`` with ConKeeper's connection settings, without migrating; history written
    through it goes to the row journal unless ``journaled`` is false (a backup, a restore).
    ``immutable`` (read-only only): no lock and no shared memory, the file as it is."""
    timeout_ms = busy_timeout_ms()
    if readonly:
        conn = sqlite3.connect(
            f"file:{path}?mode=ro" + ("&immutable=1" if immutable else ""),
            uri=True,
            timeout=timeout_ms / 1000,
            isolation_level=None,
            factory=StoreConnection,
        )
    else:
        file = os.fspath(path)
        os.makedirs(os.path.dirname(file) or ".", exist_ok=True)
        conn = sqlite3.connect(
            file, timeout=timeout_ms / 1000, isolation_level=None, factory=StoreConnection
        )
        if journaled and file != ":memory:":
            conn.journal_file = journal_file_of(file)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {timeout_ms}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def set_busy_timeout(conn: sqlite3.Connection, timeout_ms: int) -> None:
    """Change how long ``conn`` waits for a lock (a hook gives up sooner than a command)."""
    conn.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in the database (``PRAGMA user_version``)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, target: int | None = None) -> int:
    """Apply every missing migration up to ``target`` (default: latest); returns the version.

    Each migration runs in its own ``BEGIN IMMEDIATE`` transaction, so two processes opening a
    fresh database at once never apply one step twice.
    """
    goal = SCHEMA_VERSION if target is None else target
    current = schema_version(conn)
    if current > SCHEMA_VERSION:
        raise StoreError(
            f"the database was written by a newer ConKeeper (schema {current}, this one knows "
            f"{SCHEMA_VERSION}); upgrade ConKeeper"
        )
    if current >= goal:
        return current
    for migration in load_migrations():
        if migration.version <= current or migration.version > goal:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if schema_version(conn) >= migration.version:  # another process got here first
                conn.execute("COMMIT")
                continue
            migration.apply(conn)
            conn.execute(f"PRAGMA user_version = {migration.version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        current = migration.version
    return schema_version(conn)


def open_store(
    path: Path | str | None = None, *, readonly: bool = False, journaled: bool = True
) -> sqlite3.Connection:
    """Open the user's database (default: :func:`conkeeper.domain.paths.db_path`), migrated.

    Raises :class:`StoreError` with a one-line message when the file is corrupt, not a
    database, from a newer version, locked beyond the busy timeout, or not writable.
    """
    target = path or db_path()
    damage = header_damage(target)
    if damage is not None:
        raise DamagedStore(f"{target}: the database file is damaged ({damage}); {RECOVER_ADVICE}")
    try:
        conn = connect(target, readonly=readonly, journaled=journaled)
        if readonly:
            if schema_version(conn) > SCHEMA_VERSION:
                raise StoreError(
                    f"{target}: written by a newer ConKeeper (schema {schema_version(conn)}); "
                    "upgrade ConKeeper"
                )
            return conn
        migrate(conn)
        return conn
    except StoreError:
        raise
    except sqlite3.DatabaseError as exc:
        message = _explain(target, exc)
        if message.endswith(RECOVER_ADVICE):
            raise DamagedStore(message) from None
        if _unwritable(message):
            raise UnwritableStore(message) from None
        raise StoreError(message) from None
    except OSError as exc:
        raise StoreError(f"{target}: cannot open the database ({exc.strerror or exc})") from None


def _unwritable(message: str) -> bool:
    """Whether a store message says the file cannot be written but may still be read."""
    return any(mark in message for mark in ("disk is full", "ulimit -f", "read-only"))


def open_for_reading(path: Path | str | None = None) -> sqlite3.Connection:
    """The database opened only to read, for a command that shows history when it cannot be
    written (:class:`UnwritableStore`): read-only, or, when even that needs a write (SQLite's
    shared-memory file on a full disk), as the file holds it (``immutable``: what a WAL not yet
    folded into it adds is not seen). Raises :class:`StoreError` with one line."""
    target = os.fspath(path or db_path())
    failure: sqlite3.DatabaseError | None = None
    for immutable in (False, True):
        try:
            conn = connect(target, readonly=True, immutable=immutable)
        except sqlite3.DatabaseError as exc:
            failure = exc
            continue
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads a page
            return conn
        except sqlite3.DatabaseError as exc:
            conn.close()
            failure = exc
    assert failure is not None
    raise StoreError(_explain(target, failure))


RECOVER_ADVICE = (
    "run 'conkeeper doctor' (or any command) to restore it from its backup and row journal "
    "(memory files are untouched)"
)
_MAGIC = b"SQLite format 3\x00"


def journal_file_of(db_file: str) -> str:
    """The row journal of the database ``db_file``: ``<its folder>/backups/journal.jsonl``."""
    return os.path.join(os.path.dirname(db_file) or ".", "backups", "journal.jsonl")


def header_damage(path: Path | str) -> str | None:
    """What is wrong with the database file's header, or ``None`` (also for a missing or empty
    file, which SQLite creates afresh).

    Why: garbage over the header or a file cut short are the commonest damage (a bad copy, a full
    disk, a crash of the file system). SQLite notices the second only when it reads a missing
    page, possibly after writing more rows into the broken file; reading 100 bytes and the size
    (a few microseconds, hooks included) notices both before anything is written.
    """
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY)
    except OSError:
        return None  # missing (created afresh) or unreadable (SQLite says which)
    try:
        header = os.read(fd, 100)
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if size == 0:
        return _empty_file_damage(os.fspath(path))
    if len(header) < 100 or not header.startswith(_MAGIC):
        return "its header is not SQLite's"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return "its header holds an impossible page size"
    pages = int.from_bytes(header[28:32], "big")
    if size % page_size or (header[24:28] == header[92:96] and pages * page_size > size):
        return f"the file is cut short: {size:,} bytes of {pages * page_size:,}"
    return None


def _empty_file_damage(db_file: str) -> str | None:
    """An empty file is a new database, unless a backup or journaled rows show it held history
    (a file cut to zero bytes): then it is damage, or every session would vanish without a word.
    Runs only for an empty file, so the hook path pays nothing more."""
    folder = os.path.join(os.path.dirname(db_file) or ".", "backups")
    for name in ("conkeeper-backup.db", "journal.jsonl", "journal.prev.jsonl"):
        try:
            if os.stat(os.path.join(folder, name)).st_size > 0:
                return "the file is empty (cut to zero bytes)"
        except OSError:
            continue
    return None


def describe_error(path: Path | str, exc: sqlite3.DatabaseError) -> str:
    """The one-line message for a SQLite error on ``path`` (busy, read-only, damaged, ...), for
    callers that hit the error after opening (a write, a query) rather than in :func:`open_store`.
    """
    return _explain(path, exc)


def _explain(path: Path | str, exc: sqlite3.DatabaseError) -> str:
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return f"{path}: the database is busy (locked by another process); try again"
    if "readonly" in text or "read-only" in text:
        return f"{path}: the database is read-only; check its permissions"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"{path}: the database file is damaged; {RECOVER_ADVICE}"
    if "disk is full" in text or "disk i/o error" in text:
        full = _no_room(path)
        if full is not None:
            return f"{path}: {full} (SQLite: {exc})"
    if "unable to open" in text:
        return f"{path}: cannot open the database; check the folder exists and is writable"
    return f"{path}: database error: {exc}"


def _no_room(path: Path | str) -> str | None:
    """Why no write to ``path`` can land, when that is so: the disk holding it has no room left
    (SQLite calls that "disk I/O error" when its shared-memory file cannot grow), or this
    process may not grow a file that far (a file-size limit); else ``None``."""
    from conkeeper.domain.messages import mount_point

    folder = os.path.dirname(os.fspath(path)) or "."
    try:
        import resource

        room = os.statvfs(folder)
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    except (ImportError, OSError, ValueError):  # Windows: no statvfs, no limits
        return None
    if room.f_bavail * room.f_frsize < 64 * 1024:
        return f"the disk is full: free space on {mount_point(folder)} and retry"
    if limit != resource.RLIM_INFINITY and limit < 64 * 1024 * 1024:
        return "a file-size limit (ulimit -f) stops every write: raise it and retry"
    return None


def now_ms() -> int:
    """Current time in Unix milliseconds, the unit of every ``*_at`` column."""
    return int(time.time() * 1000)


def ensure_project(conn: sqlite3.Connection, location: ProjectLocation) -> int:
    """The ``projects.id`` for ``location`` (keyed by identity), inserting or touching it.
    The root is stored as shown (``ProjectLocation.shown_root``): a folder named after a
    credential is never written here, only its digest identity and redacted form."""
    stamp = now_ms()
    conn.execute(
        "INSERT INTO projects(identity, root, name, created_at, last_seen_at) "
        "VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(identity) DO UPDATE SET root = excluded.root, "
        "last_seen_at = excluded.last_seen_at",
        (location.identity, location.shown_root, location.name, stamp, stamp),
    )
    row = conn.execute(
        "SELECT id FROM projects WHERE identity = ?", (location.identity,)
    ).fetchone()
    return int(row[0])


def find_project(conn: sqlite3.Connection, identity: str) -> int | None:
    """The ``projects.id`` for an identity, or ``None`` when the project was never seen."""
    row = conn.execute("SELECT id FROM projects WHERE identity = ?", (identity,)).fetchone()
    return None if row is None else int(row[0])


class _Transaction:
    """The context manager behind :func:`transaction` (a class: no contextlib on hook paths)."""

    __slots__ = ("conn", "mark", "nested")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.nested = conn.in_transaction
        self.mark = 0

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("SAVEPOINT conkeeper_nested" if self.nested else "BEGIN IMMEDIATE")
        pending = getattr(self.conn, "journal_pending", None)
        self.mark = len(pending) if pending is not None else 0
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        pending: list[str] | None = getattr(self.conn, "journal_pending", None)
        if self.nested:
            if exc_type is not None:
                self.conn.execute("ROLLBACK TO conkeeper_nested")
                if pending:
                    del pending[self.mark :]  # the journal forgets what was rolled back
            self.conn.execute("RELEASE conkeeper_nested")
            return
        if exc_type is not None:
            self.conn.execute("ROLLBACK")
            if pending:
                pending.clear()
            return
        self.conn.execute("COMMIT")
        if pending:
            from conkeeper.storage.journal import flush

            flush(self.conn)


def transaction(conn: sqlite3.Connection) -> _Transaction:
    """``with transaction(conn):`` — ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any
    exception (even mid-``executemany``).

    Inside a caller's transaction (the transcript importer wraps a whole file) it becomes a
    savepoint, so the caller's all-or-nothing still holds. IMMEDIATE takes the write lock up
    front, so a busy database waits on the busy timeout instead of failing half-way.
    """
    return _Transaction(conn)


# --------------------------------------------------------------------------- salvage

# Tables rebuilt from their sources instead of salvaged: the search index over memory files.
_DERIVED_PREFIXES = ("index_",)
_FTS_SHADOW_SUFFIXES = ("_data", "_idx", "_content", "_docsize", "_config")
# At most this many single-row reads to step over a damaged stretch of one table.
SALVAGE_PROBE_LIMIT = 50_000
_Values = tuple[object, ...]  # one row's column values


def salvage(damaged: Path, target: Path) -> dict[str, int]:
    """Copy every row SQLite can still read from ``damaged`` into a fresh database at ``target``.

    Why: captured prompts, tool events, observations and summaries exist nowhere else, so a
    damaged file must not take them with it when it is moved aside. ``target`` is created and
    migrated; each table the new schema shares with the damaged file is copied row by row
    (common columns, ids kept so references hold), stepping over pages SQLite cannot read. The
    search index is skipped (it is rebuilt from the memory files, which are never touched).
    Returns rows recovered per table (tables with none are left out); never raises for a
    damaged source, and returns ``{}`` when nothing could be read.
    """
    try:  # the rows are already in the journal (or lost from it): not journaled again
        conn = open_store(target, journaled=False)
    except StoreError:
        return {}
    try:
        return salvage_into(damaged, conn)
    finally:
        conn.close()


def salvage_into(damaged: Path | str, conn: sqlite3.Connection) -> dict[str, int]:
    """:func:`salvage` into an open, migrated store (a restored backup, say): rows it already
    holds are kept (``INSERT OR IGNORE``). Rows recovered per table; never raises for a damaged
    source."""
    source = _open_damaged(damaged)
    if source is None:
        return {}
    counts: dict[str, int] = {}
    try:
        for table in _salvage_tables(conn):
            copied = _copy_table(source, conn, table)
            if copied:
                counts[table] = copied
    except sqlite3.Error:
        pass  # keep what was committed table by table
    finally:
        source.close()
    return counts


def salvage_summary(counts: dict[str, int]) -> str:
    """``recovered 1,204 rows (prompts 40, tool_events 1,164)`` or ``no rows could be
    recovered``: the part of the one-line notice that says what was saved."""
    total = sum(counts.values())
    if not total:
        return "no rows could be recovered"
    parts = ", ".join(f"{table} {n:,}" for table, n in counts.items())
    return f"recovered {total:,} row{'s' if total != 1 else ''} ({parts})"


def _open_damaged(path: Path | str) -> sqlite3.Connection | None:
    """A read-only connection to the damaged file whose schema can be read, or ``None``."""
    for query in ("mode=ro", "immutable=1"):
        try:
            conn = sqlite3.connect(f"file:{path}?{query}", uri=True, isolation_level=None)
        except sqlite3.Error:
            continue
        try:
            conn.execute("SELECT name FROM sqlite_master").fetchall()
            return conn
        except sqlite3.Error:
            conn.close()
    return None


def _salvage_tables(conn: sqlite3.Connection) -> list[str]:
    """Ordinary tables of the new schema in creation order (parents before children)."""
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY rowid"
    ).fetchall()
    virtual = [r[0] for r in rows if (r[1] or "").upper().startswith("CREATE VIRTUAL")]
    shadows = {v + suffix for v in virtual for suffix in _FTS_SHADOW_SUFFIXES}
    return [
        r[0]
        for r in rows
        if r[0] not in virtual and r[0] not in shadows and not r[0].startswith(_DERIVED_PREFIXES)
    ]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")').fetchall()]


def _copy_table(source: sqlite3.Connection, conn: sqlite3.Connection, table: str) -> int:
    """Rows of ``table`` readable in ``source`` inserted into ``conn``; returns how many."""
    try:
        old = set(_columns(source, table))
    except sqlite3.Error:
        return 0
    columns = [c for c in _columns(conn, table) if c in old]
    if not columns:
        return 0
    names = ", ".join(f'"{c}"' for c in columns)
    insert = f'INSERT OR IGNORE INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})'
    copied = 0
    with transaction(conn):
        for row in _readable_rows(source, table, names):
            try:
                copied += conn.execute(insert, row).rowcount > 0
            except (sqlite3.IntegrityError, sqlite3.InterfaceError):
                continue  # its parent row was lost, or the damage broke a constraint or type
    return copied


def _readable_rows(source: sqlite3.Connection, table: str, names: str) -> Iterator[_Values]:
    """Every row of ``table`` SQLite can read, streamed: a forward scan up to the first damaged
    page, a backward scan down to the last one, then single-row reads across the gap."""
    select = f'SELECT rowid, {names} FROM "{table}"'
    try:
        source.execute(select + " LIMIT 0").fetchall()
    except sqlite3.Error:
        yield from _scan_without_rowid(source, table, names)
        return
    forward = _Progress()
    yield from _scan(source, select + " ORDER BY rowid", (), forward)
    if forward.complete:
        return
    floor = forward.high or 0
    backward = _Progress()
    yield from _scan(source, select + " WHERE rowid > ? ORDER BY rowid DESC", (floor,), backward)
    limit = floor + SALVAGE_PROBE_LIMIT
    ceiling = limit if backward.low is None else min(backward.low, limit)
    for rowid in range(floor + 1, ceiling):
        try:
            found = source.execute(select + " WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.Error:
            continue
        if found is not None:
            yield tuple(found[1:])


class _Progress:
    """How far one scan got: the lowest and highest rowid read, and whether it ran to the end."""

    __slots__ = ("complete", "high", "low")

    def __init__(self) -> None:
        self.low: int | None = None
        self.high: int | None = None
        self.complete = False


def _scan(
    source: sqlite3.Connection, query: str, params: tuple[object, ...], progress: _Progress
) -> Iterator[_Values]:
    """Rows of ``query`` (rowid first, dropped from what is yielded) until SQLite fails."""
    try:
        for found in source.execute(query, params):
            rowid = int(found[0])
            progress.low = rowid if progress.low is None else min(progress.low, rowid)
            progress.high = rowid if progress.high is None else max(progress.high, rowid)
            yield tuple(found[1:])
    except sqlite3.Error:
        return
    progress.complete = True


def _scan_without_rowid(source: sqlite3.Connection, table: str, names: str) -> list[_Values]:
    """A WITHOUT ROWID table (derived lookups) read in key order until the first failure."""
    rows: list[_Values] = []
    try:
        cursor = source.execute(f'SELECT {names} FROM "{table}"')
        found = cursor.fetchone()
        while found is not None:
            rows.append(tuple(found))
            found = cursor.fetchone()
    except sqlite3.Error:
        return rows
    return rows
