"""Keeping the session history through damage: the backup, the restore, and forget in both.

Why it exists: prompts, tool events, observations and summaries live only in the database.
Three layers keep them when the file is damaged (garbage over its header, a file cut short, bad
pages):

1. **A backup** (``<data home>/backups/conkeeper-backup.db``), an online copy through SQLite's
   backup API, checked (``quick_check``) before it replaces the previous one. It is made off the
   hook path: by the detached worker SessionEnd starts, or by the next command when the last one
   is older than :data:`BACKUP_INTERVAL_S` and something was written since.
2. **The row journal** (:mod:`conkeeper.storage.journal`): every history write since the
   backup, one JSON line each. Taking a backup rotates it (``journal.jsonl`` →
   ``journal.prev.jsonl``; the older rotated one goes): what the backup already holds is dropped
   one backup later, so a write that raced the rotation is never lost.
3. **Salvage** (:func:`conkeeper.storage.store.salvage_into`): rows SQLite still reads from the
   damaged file.

:func:`restore` moves the damaged file aside, copies the backup back, salvages into it, replays
the journals (idempotent: natural keys), applies every tombstone, and reports what it did.
:func:`forget_in_copies` makes ``forget`` reach the backup and the journals. All three hold the
same privacy-cleaned rows as the database, and the folder is private to the user (0700).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from conkeeper.storage import hygiene, journal
from conkeeper.storage.store import (
    StoreError,
    connect,
    header_damage,
    migrate,
    salvage_into,
    salvage_summary,
    schema_version,
    transaction,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

BACKUP_NAME = "conkeeper-backup.db"
LAST_RESTORE_NAME = "last-restore.txt"  # the notice of the last restore, for doctor
BACKUP_INTERVAL_S = 3600  # a command backs up when the last backup is older and rows came since


def backup_folder(db_file: Path | str) -> Path:
    """Where the backup and the row journal of ``db_file`` live."""
    return Path(journal.journal_file_folder(os.fspath(db_file)))


def backup_path(db_file: Path | str) -> Path:
    """The backup file of ``db_file``."""
    return backup_folder(db_file) / BACKUP_NAME


def database_file(conn: sqlite3.Connection) -> str | None:
    """The file behind ``conn``'s main database (``None`` in memory)."""
    for row in conn.execute("PRAGMA database_list"):
        if row[1] == "main":
            return str(row[2]) or None
    return None


# --------------------------------------------------------------------------- backup


@dataclass(frozen=True)
class BackupInfo:
    """A backup that exists: where, when it was taken (Unix seconds), its size in bytes."""

    path: Path
    taken_at: float
    size: int
    put_back: int = 0  # sessions the database had lost that the row journal put back first
    restored: str | None = None  # the notice of a restore the backup had to make first


def last_backup(db_file: Path | str) -> BackupInfo | None:
    """The current backup of ``db_file``, or ``None``."""
    path = backup_path(db_file)
    try:
        stat = path.stat()
    except OSError:
        return None
    return BackupInfo(path, stat.st_mtime, stat.st_size)


def last_restore(db_file: Path | str, within_s: float = 7 * 86400) -> str | None:
    """The notice of a restore made in the last ``within_s`` seconds (a detached one, say),
    or ``None``."""
    path = backup_folder(db_file) / LAST_RESTORE_NAME
    try:
        if time.time() - path.stat().st_mtime > within_s:
            return None
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def backup_due(db_file: Path | str, *, now: float | None = None) -> bool:
    """Whether a backup is worth taking: rows were journaled since the last one, and it is
    older than :data:`BACKUP_INTERVAL_S` (or there is none). Two ``stat`` calls."""
    try:
        if os.stat(backup_folder(db_file) / journal.JOURNAL_NAME).st_size == 0:
            return False
    except OSError:
        return False
    info = last_backup(db_file)
    moment = time.time() if now is None else now
    return info is None or moment - info.taken_at >= BACKUP_INTERVAL_S


def make_backup(db_file: Path | str, *, only_if_due: bool = False) -> BackupInfo | None:
    """Copy the live database into the backup (SQLite's online backup: writers keep going),
    check the copy, put it in place, then rotate the journal. Raises :class:`StoreError` when
    the database cannot be read or the copy is not sound (the previous backup is kept).

    Every backup writer (this, :func:`forget_in_copies`) holds the backup folder's lock, so a
    ``conkeeper backup`` run while SessionEnd's worker backs up waits for it, then backs up,
    instead of deleting the temporary copy the other is writing. With ``only_if_due`` the
    question is asked again under the lock (``None``: the other writer's backup was enough)."""
    folder = backup_folder(db_file)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    with backup_lock(folder):
        if only_if_due and not backup_due(db_file):
            return None
        restored = _restore_if_behind(db_file)
        put_back = put_back_lost_sessions(db_file)
        _copy_and_check(db_file, folder / (BACKUP_NAME + ".tmp"))
        os.replace(folder / (BACKUP_NAME + ".tmp"), folder / BACKUP_NAME)
        _rotate(folder)
    info = last_backup(db_file)
    assert info is not None
    return replace(info, put_back=put_back, restored=restored)


def _restore_if_behind(db_file: Path | str) -> str | None:
    """Restore ``db_file`` when it lacks sessions its backup holds; the notice, else ``None``.

    Why: a database deleted (by the person, a clean-up tool, while a hook ran) comes back as a
    new, empty file at the next hook, sound as far as SQLite can tell, so no restore runs; the
    backup would then copy it over the one file that still held the history. Only ``forget``
    removes sessions, and it removes them from the backup too, so a session the backup holds
    and the database lacks was lost. The restore starts from the backup, salvages what the
    new file holds and replays the row journal, which holds every row written since."""
    missing = sessions_only_in_backup(db_file)
    if not missing:
        return None
    return recover(db_file, cause=f"lacked {missing} session(s) its backup holds")


def sessions_only_in_backup(db_file: Path | str) -> int:
    """How many sessions the backup of ``db_file`` holds that ``db_file`` lacks (matched by
    project identity and host session id); 0 when either cannot be read."""
    backup = backup_path(db_file)
    if not backup.exists() or not os.path.exists(db_file):
        return 0
    try:
        conn = connect(db_file, readonly=True)
    except sqlite3.Error:
        return 0
    try:
        conn.execute("ATTACH DATABASE ? AS kept", (f"file:{backup}?mode=ro",))
        row = conn.execute(
            "SELECT COUNT(*) FROM kept.sessions ks JOIN kept.projects kp ON kp.id = ks.project_id "
            "WHERE NOT EXISTS (SELECT 1 FROM main.sessions s JOIN main.projects p "
            "ON p.id = s.project_id WHERE p.identity = kp.identity "
            "AND s.host_session_id = ks.host_session_id)"
        ).fetchone()
    except sqlite3.Error:
        return 0
    finally:
        conn.close()
    return int(row[0])


def put_back_lost_sessions(db_file: Path | str) -> int:
    """Replay into the live database ``db_file`` the journaled rows of every session it lacks;
    the number of sessions put back.

    Why: a file can be sound and still have lost committed rows, the last transactions of a
    WAL torn by a power cut (SQLite drops every frame from a bad checksum on, silently). No
    restore runs on a sound file, and the backup that follows rotates the journal that still
    held those rows away: the next one deletes it. A journal line is appended only after its
    row committed, so a session the journal names and the database lacks was lost (a forgotten
    one stays forgotten: the tombstones are applied after). Sessions the database has are left
    alone, so a write racing this one is never rolled back to an older journaled state."""
    records = [
        record
        for file in journal.journal_files(str(backup_folder(db_file)))
        for record in journal.read_records(file)
        if record is not None
    ]
    if not any(record.get("kind") == journal.SESSION for record in records):
        return 0
    conn = connect(db_file, journaled=False)
    try:
        with transaction(conn):
            lost = _lost_sessions(conn, records)
            if not lost:
                return 0
            for record in records:
                if record.get("kind") == journal.FORGET or _session_key(record) in lost:
                    replay_record(conn, record)
            hygiene.apply_tombstones(conn)
            return sum(1 for key in lost if session_row_id(conn, _named(key)) is not None)
    finally:
        conn.close()


def _session_key(record: Mapping[str, object]) -> tuple[str, str] | None:
    """The (project identity, host session id) a journal record belongs to, ``None`` for a
    header or a tombstone."""
    if record.get("kind") in (journal.HEADER, journal.FORGET):
        return None
    return (str(record.get("project")), str(record.get("session")))


def _named(key: tuple[str, str]) -> dict[str, object]:
    return {"project": key[0], "session": key[1]}


def _lost_sessions(
    conn: sqlite3.Connection, records: list[dict[str, object]]
) -> set[tuple[str, str]]:
    """The sessions the journal names (by a whole session row) that the database lacks."""
    named = {
        key
        for record in records
        if record.get("kind") == journal.SESSION and (key := _session_key(record)) is not None
    }
    return {key for key in named if session_row_id(conn, _named(key)) is None}


@contextlib.contextmanager
def backup_lock(folder: Path) -> Iterator[None]:
    """Hold ``<backups>/.backup.lock`` (an exclusive ``flock``, waited for): the one lock every
    writer of the backup file and its temporary copy takes."""
    fd = os.open(folder / ".backup.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        journal.lock(fd)
        yield
    finally:
        os.close(fd)


def _copy_and_check(db_file: Path | str, tmp: Path) -> None:
    """The online copy of ``db_file`` into ``tmp``, checked and synced; ``tmp`` removed and
    :class:`StoreError` raised when it cannot be made or is not sound."""
    tmp.unlink(missing_ok=True)
    try:
        source = connect(db_file, readonly=True)
        try:
            copy = sqlite3.connect(tmp, isolation_level=None)
            try:
                source.backup(copy)
                _seam("backup-copied")
                copy.execute("PRAGMA journal_mode = DELETE")
                verdict = structure_check(copy)
            finally:
                copy.close()
        finally:
            source.close()
    except sqlite3.DatabaseError as exc:
        tmp.unlink(missing_ok=True)
        raise StoreError(f"{db_file}: cannot back up the database ({exc})") from None
    if verdict is not None:
        tmp.unlink(missing_ok=True)
        raise StoreError(f"{db_file}: the backup copy failed its check ({verdict})")
    os.chmod(tmp, 0o600)
    with open(tmp, "rb") as handle:
        os.fsync(handle.fileno())


def _seam(point: str) -> None:
    """``domain.safewrite.seam`` (imported late: most callers of this module never back up)."""
    if "CONKEEPER_KILL_AT" in os.environ or "CONKEEPER_STOP_AT" in os.environ:
        from conkeeper.domain.safewrite import seam

        seam(point)


def structure_check(conn: sqlite3.Connection) -> str | None:
    """The first problem ``PRAGMA quick_check`` finds in the file's structure, or ``None``.

    "NULL value in T.C" lines are left out: SQLite 3.40 reports them for a WITHOUT ROWID table
    whose primary key lists its columns in another order than the table does (the lookups of
    observation concepts and files), even when no such row exists; they are not damage.
    """
    for (line,) in conn.execute("PRAGMA quick_check(20)").fetchall():
        if line != "ok" and not str(line).startswith("NULL value in "):
            return str(line)
    return None


def _rotate(folder: Path) -> None:
    """``journal.jsonl`` becomes ``journal.prev.jsonl`` (replacing the older one, whose rows
    the previous backup, and so this one, already held), under the append lock."""
    current = folder / journal.JOURNAL_NAME
    try:
        fd = os.open(current, os.O_RDWR)
    except FileNotFoundError:
        return
    try:
        journal.lock(fd)
        os.replace(current, folder / journal.PREVIOUS_NAME)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- restore


@dataclass
class RestoreReport:
    """What :func:`restore` did, for the one line a person reads."""

    moved_to: Path
    backup_at: float | None = None  # when the backup used was taken (Unix seconds)
    backup_unusable: bool = False
    replayed: int = 0  # journal records applied
    unreadable: int = 0  # journal lines that did not parse (a write cut short)
    salvaged: dict[str, int] = field(default_factory=dict)
    journal_since: float | None = None  # when the oldest journal file was started (seconds)
    now: dict[str, int] = field(default_factory=dict)  # history rows after the restore
    cause: str = "was damaged"  # what was wrong with the file, as the notice says it

    def line(self, shown: str) -> str:
        """The one-line notice: what was restored, from when, and what may be lost."""
        parts = [f"the database {shown} {self.cause}; moved it to {self.moved_to.name}"]
        if self.backup_at is not None:
            parts.append(f"restored the backup of {_when(self.backup_at)}")
        elif self.backup_unusable:
            parts.append("its backup was damaged too")
        if self.replayed:
            parts.append(f"replayed {self.replayed:,} journaled writes made since")
        if self.salvaged or (self.backup_at is None and not self.replayed):
            parts.append(f"from the damaged file it {salvage_summary(self.salvaged)}")
        held = ", ".join(f"{n:,} {name}" for name, n in self.now.items())
        parts.append(f"it now holds {held}")
        if self.backup_at is None and not self.replayed:
            parts.append(
                "no backup or journal existed, so anything SQLite could not read is lost; "
                "ConKeeper keeps a backup from now on, and 'conkeeper export --all -o FILE' "
                "makes a copy of your own"
            )
        elif self.unreadable:
            parts.append(f"{self.unreadable} journal lines were cut short and are lost")
        elif self.backup_at is None:
            since = f" since {_when(self.journal_since)}" if self.journal_since else ""
            parts.append(
                f"there was no backup yet: every write{since} was kept, anything older is back "
                "only as far as salvage could read it ('conkeeper export --all -o FILE' makes "
                "a copy of your own)"
            )
        else:
            parts.append(
                "every recorded session was kept (extraction progress and the search index "
                "are rebuilt)"
            )
        return "; ".join(parts) + ". Memory files are untouched."


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def recover(
    target: Path | str, shown: str | None = None, *, cause: str = "was damaged"
) -> str | None:
    """Restore ``target``, found damaged; the one-line notice, or ``None`` when another process
    restored it meanwhile. Processes that find the damage at once take turns on a lock file; a
    later one sees the file replaced (another inode) and leaves it alone."""
    folder = backup_folder(target)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    seen = _inode(Path(target))
    seen_empty = _size(Path(target)) == 0
    fd = os.open(folder / ".restore.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        journal.lock(fd)
        if seen is None or _inode(Path(target)) != seen:
            return None
        if seen_empty and _size(Path(target)) and header_damage(target) is None:
            return None  # the empty file was another process's restore under way; now whole
        line = restore(target, cause).line(shown or str(target))
        with contextlib.suppress(OSError):  # what doctor shows after a restore no one watched
            (folder / LAST_RESTORE_NAME).write_text(line + "\n", encoding="utf-8")
        return line
    finally:
        os.close(fd)


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _inode(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino)


def restore(target: Path | str, cause: str = "was damaged") -> RestoreReport:
    """Rebuild the damaged database ``target``: move it (and its WAL) aside, start from the
    backup when it is sound, salvage what the damaged file still yields, replay the journals,
    apply the tombstones. The journals are kept (replaying them again changes nothing) until
    the next backup rotates them."""
    target = Path(target)
    moved = _move_aside(target)
    report = RestoreReport(moved, cause=cause)
    backup = backup_path(target)
    if backup.exists():
        if _sound(backup):
            _copy_database(backup, target)
            report.backup_at = backup.stat().st_mtime
        else:
            report.backup_unusable = True
    conn = connect(target, journaled=False)
    try:
        if schema_version(conn) < 1 or report.backup_at is not None:
            migrate(conn)
        report.salvaged = salvage_into(moved, conn)
        folder = str(backup_folder(target))
        files = journal.journal_files(folder)
        with transaction(conn):
            for file in files:
                for record in journal.read_records(file):
                    if record is None:
                        report.unreadable += 1
                    elif record.get("kind") == journal.HEADER:
                        started = record.get("started_at")
                        if isinstance(started, int) and report.journal_since is None:
                            report.journal_since = started / 1000
                    elif replay_record(conn, record):
                        report.replayed += 1
            hygiene.apply_tombstones(conn)
        report.now = {
            name: int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
            for name, table in (
                ("sessions", "sessions"),
                ("observations", "observations"),
                ("summaries", "session_summaries"),
            )
        }
    finally:
        conn.close()
    return report


def _move_aside(target: Path) -> Path:
    """Move the damaged file (and its WAL and shared memory) to ``NAME.damaged-DATE-TIME``, a
    name no earlier damaged copy holds: two restores within one second (a fast machine, a file
    damaged again at once) got the same name, and the second replaced the first copy."""
    moved = _aside_name(target, time.strftime("%Y%m%d-%H%M%S"))
    os.replace(target, moved)
    for extra in ("-wal", "-shm"):
        side = Path(str(target) + extra)
        if side.exists():
            with contextlib.suppress(OSError):
                os.replace(side, Path(str(moved) + extra))
    return moved


def _aside_name(target: Path, stamp: str) -> Path:
    """``NAME.damaged-STAMP``, or ``-2``, ``-3``... after it when that name (or its WAL or
    shared memory) is taken; the restore lock keeps two processes from picking the same one."""
    base = f"{target.name}.damaged-{stamp}"
    number = 1
    while True:
        moved = target.with_name(base if number == 1 else f"{base}-{number}")
        if not any(os.path.lexists(f"{moved}{extra}") for extra in ("", "-wal", "-shm")):
            return moved
        number += 1


def _sound(path: Path) -> bool:
    from conkeeper.storage.store import header_damage

    if header_damage(path) is not None:
        return False
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return structure_check(conn) is None
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return False


def _copy_database(source: Path, target: Path) -> None:
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target, isolation_level=None)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode = WAL")
        finally:
            dst.close()
    finally:
        src.close()


# --------------------------------------------------------------------------- replay


def _project_id(conn: sqlite3.Connection, record: dict[str, object]) -> int | None:
    from conkeeper.domain.paths import stored_identity, stored_path

    identity = stored_identity(str(record.get("project")))  # a line an older version wrote
    row = conn.execute("SELECT id FROM projects WHERE identity = ?", (identity,)).fetchone()
    if row is not None:
        return int(row[0])
    if record.get("kind") != journal.SESSION:
        return None
    root = stored_path(str(record.get("root") or identity))
    name = stored_path(str(record.get("name") or ""))
    stamp = int(time.time() * 1000)
    conn.execute(
        "INSERT INTO projects(identity, root, name, created_at, last_seen_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (identity, root, name, stamp, stamp),
    )
    return _project_id(conn, record)


def session_row_id(conn: sqlite3.Connection, record: Mapping[str, object]) -> int | None:
    """The row id of the session a journaled record names (its ``project`` identity and the
    host's ``session`` id), ``None`` when the database has no such session: what replaying the
    journal and the rows kept for later (:mod:`conkeeper.storage.pending`) both look up."""
    from conkeeper.domain.paths import stored_identity

    project = stored_identity(str(record.get("project")))  # a line an older version wrote
    row = conn.execute(
        "SELECT s.id FROM sessions s JOIN projects p ON p.id = s.project_id "
        "WHERE p.identity = ? AND s.host_session_id = ?",
        (project, str(record.get("session"))),
    ).fetchone()
    return None if row is None else int(row[0])


def replay_record(conn: sqlite3.Connection, record: dict[str, object]) -> bool:
    """Apply one journal record (idempotently); whether it was one this version understands."""
    kind = record.get("kind")
    row = record.get("row")
    if kind == journal.FORGET:
        stone = (str(record["what"]), str(record["project"]), str(record["key"]))
        conn.execute(
            "INSERT OR IGNORE INTO tombstones(kind, project, key, forgotten_at) "
            "VALUES (?, ?, ?, ?)",
            (*stone, int(str(record.get("at") or 0))),
        )
        return True
    if not isinstance(row, dict):
        return False
    if kind == journal.SESSION:
        project_id = _project_id(conn, record)
        if project_id is None:
            return False
        values = [row.get(c) for c in journal.SESSION_FIELDS]
        columns = ", ".join(journal.SESSION_FIELDS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in journal.SESSION_FIELDS)
        conn.execute(
            f"INSERT INTO sessions(host_session_id, project_id, {columns}) "
            f"VALUES (?, ?, {', '.join('?' * len(values))}) "
            f"ON CONFLICT(project_id, host_session_id) DO UPDATE SET {updates}",
            (str(record["session"]), project_id, *values),
        )
        return True
    session_id = session_row_id(conn, record)
    if session_id is None:
        return False
    if kind == journal.OBSERVATION_GONE:
        conn.execute(
            "DELETE FROM observations WHERE session_id = ? AND content_hash = ?",
            (session_id, row.get("content_hash")),
        )
        return True
    table = _CHILD_TABLES.get(str(kind))
    if table is None:
        return False
    allowed = _columns(conn, table)
    names = [str(c) for c in row if c in allowed and c not in ("id", "session_id", "project_id")]
    keys: list[str] = ["session_id"]
    owners: list[object] = [session_id]
    if "project_id" in allowed:
        keys.append("project_id")
        found = conn.execute("SELECT project_id FROM sessions WHERE id = ?", (session_id,))
        owners.append(found.fetchone()[0])
    conflict = "DO NOTHING"
    if table == "session_summaries":
        conflict = "(session_id) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in names)
    conn.execute(
        f"INSERT INTO {table}({', '.join(keys + names)}) "
        f"VALUES ({', '.join('?' * (len(keys) + len(names)))}) ON CONFLICT {conflict}",
        (*owners, *(row[c] for c in names)),
    )
    return True


_CHILD_TABLES = {
    journal.PROMPT: "prompts",
    journal.TOOL_EVENT: "tool_events",
    journal.OBSERVATION: "observations",
    journal.SUMMARY: "session_summaries",
}


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}


# --------------------------------------------------------------------------- forget


def forget_in_copies(db_file: Path | str, stones: list[hygiene.Tombstone]) -> None:
    """Make a forget reach the backup and the journals: the rows go from the backup (secure
    delete, FTS merged, file vacuumed) with the tombstones recorded there, and every journal
    line about them is dropped (the tombstones' own lines stay)."""
    folder = backup_folder(db_file)
    backup = folder / BACKUP_NAME
    if backup.exists():
        with backup_lock(folder):
            _forget_in_backup(backup, stones)
    for file in journal.journal_files(str(folder)):
        journal.rewrite(file, lambda record: not _covered(record, stones))


def _forget_in_backup(backup: Path, stones: list[hygiene.Tombstone]) -> None:
    """Apply ``stones`` to the backup file (when sound) and vacuum it; under the backup lock."""
    if not _sound(backup):
        return
    conn = connect(backup, journaled=False)
    try:
        migrate(conn)
        conn.execute("PRAGMA secure_delete = ON")
        with transaction(conn):
            hygiene.apply_tombstones(conn, stones)
            hygiene.purge_freed_text(conn)
        conn.execute("VACUUM")
        conn.execute("PRAGMA journal_mode = DELETE")  # a backup is one self-contained file
    finally:
        conn.close()


def rekey_in_copies(db_file: Path | str) -> None:
    """Schema 8 for the copies of ``db_file``: the backup's projects named after a credential
    take their digest identity and redacted root (the backup is migrated and vacuumed: no old
    bytes stay), and so do the journal lines that name them."""
    folder = backup_folder(db_file)
    backup = folder / BACKUP_NAME
    if backup.exists() and _sound(backup):
        with backup_lock(folder):
            conn = connect(backup, journaled=False)
            try:
                migrate(conn)
                conn.execute("VACUUM")
                conn.execute("PRAGMA journal_mode = DELETE")
            finally:
                conn.close()
    for file in journal.journal_files(str(folder)):
        journal.rewrite(file, lambda record: True, _rekeyed)


def _rekeyed(record: dict[str, object]) -> bool:
    """A journal record's project identity, root and name as schema 8 stores them."""
    from conkeeper.domain.paths import stored_identity, stored_path

    before = dict(record)
    if isinstance(record.get("project"), str):
        record["project"] = stored_identity(str(record["project"]))
    for key in ("root", "name"):
        if isinstance(record.get(key), str):
            record[key] = stored_path(str(record[key]))
    return record != before


def _covered(record: dict[str, object], stones: list[hygiene.Tombstone]) -> bool:
    if record.get("kind") == journal.FORGET:
        return False
    row = record.get("row")
    mine = hygiene.stone_project(str(record.get("project")))
    for kind, project, key, _at in stones:
        if mine != hygiene.stone_project(project):
            continue
        if kind == "project":
            return True
        if kind == "session" and record.get("session") == key:
            return True
        if (
            kind == "observation"
            and record.get("kind") == journal.OBSERVATION
            and isinstance(row, dict)
            and row.get("content_hash") == key
        ):
            return True
    return False
