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
import sqlite3
import time
from pathlib import Path

from conkeeper.domain.paths import ProjectLocation, db_path
from conkeeper.domain.records import FrozenRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

BUSY_TIMEOUT_MS = 5000
BUSY_TIMEOUT_ENV = "CONKEEPER_BUSY_TIMEOUT_MS"


class StoreError(Exception):
    """The database cannot be used; the message is one line saying what to do."""


# The number of the newest migration module. Bump it with every new migration (a test checks
# that it equals the number of migration modules); it lets an up-to-date database open without
# importing any of them.
SCHEMA_VERSION = 3


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


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open ``path`` with ConKeeper's connection settings, without migrating."""
    timeout_ms = busy_timeout_ms()
    if readonly:
        conn = sqlite3.connect(
            f"file:{path}?mode=ro",
            uri=True,
            timeout=timeout_ms / 1000,
            isolation_level=None,
        )
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=timeout_ms / 1000, isolation_level=None)
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


def open_store(path: Path | None = None, *, readonly: bool = False) -> sqlite3.Connection:
    """Open the user's database (default: :func:`conkeeper.domain.paths.db_path`), migrated.

    Raises :class:`StoreError` with a one-line message when the file is corrupt, not a
    database, from a newer version, locked beyond the busy timeout, or not writable.
    """
    target = path or db_path()
    try:
        conn = connect(target, readonly=readonly)
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
        raise StoreError(_explain(target, exc)) from None
    except OSError as exc:
        raise StoreError(f"{target}: cannot open the database ({exc.strerror or exc})") from None


def describe_error(path: Path, exc: sqlite3.DatabaseError) -> str:
    """The one-line message for a SQLite error on ``path`` (busy, read-only, damaged, ...), for
    callers that hit the error after opening (a write, a query) rather than in :func:`open_store`.
    """
    return _explain(path, exc)


def _explain(path: Path, exc: sqlite3.DatabaseError) -> str:
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return f"{path}: the database is busy (locked by another process); try again"
    if "readonly" in text or "read-only" in text:
        return f"{path}: the database is read-only; check its permissions"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return (
            f"{path}: the database file is damaged; move it aside and run "
            "'conkeeper index --rebuild' (memory files are untouched)"
        )
    if "unable to open" in text:
        return f"{path}: cannot open the database; check the folder exists and is writable"
    return f"{path}: database error: {exc}"


def now_ms() -> int:
    """Current time in Unix milliseconds, the unit of every ``*_at`` column."""
    return int(time.time() * 1000)


def ensure_project(conn: sqlite3.Connection, location: ProjectLocation) -> int:
    """The ``projects.id`` for ``location`` (keyed by identity), inserting or touching it."""
    stamp = now_ms()
    conn.execute(
        "INSERT INTO projects(identity, root, name, created_at, last_seen_at) "
        "VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(identity) DO UPDATE SET root = excluded.root, "
        "last_seen_at = excluded.last_seen_at",
        (location.identity, str(location.root), location.name, stamp, stamp),
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

    __slots__ = ("conn", "nested")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.nested = conn.in_transaction

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("SAVEPOINT conkeeper_nested" if self.nested else "BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if self.nested:
            if exc_type is not None:
                self.conn.execute("ROLLBACK TO conkeeper_nested")
            self.conn.execute("RELEASE conkeeper_nested")
        else:
            self.conn.execute("ROLLBACK" if exc_type is not None else "COMMIT")


def transaction(conn: sqlite3.Connection) -> _Transaction:
    """``with transaction(conn):`` — ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any
    exception (even mid-``executemany``).

    Inside a caller's transaction (the transcript importer wraps a whole file) it becomes a
    savepoint, so the caller's all-or-nothing still holds. IMMEDIATE takes the write lock up
    front, so a busy database waits on the busy timeout instead of failing half-way.
    """
    return _Transaction(conn)
