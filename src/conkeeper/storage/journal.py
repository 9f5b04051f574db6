"""The row journal: an append-only record of the session history written since the last backup.

Why it exists: captured prompts, tool events, observations and summaries live only in the
database, so a damaged file would take them with it. ``storage.recovery`` keeps a backup made
off the hook path; this journal holds what was written after it, one JSON line per write, so a
damaged database is rebuilt from the backup plus the journal replayed (plus whatever salvage
still reads from the damaged file).

A line is the row as stored (the text was cleaned by the privacy module before it reached the
store, so the journal is as clean as the database), keyed by natural ids (project identity,
host session id, prompt number, tool-use id, content hash) rather than row ids, so replaying
it twice changes nothing. The storage functions that write history call :func:`note_session`
or :func:`note_row` after their statement: outside a transaction the line is appended at once
(the statement has already committed), inside :func:`conkeeper.storage.store.transaction` it
waits for the commit and is dropped on rollback.

Appending costs a JSON encoding and one ``O_APPEND`` write under a short advisory lock (the
lock only matters when ``forget`` rewrites the file); it runs on the hook path, so this module
imports nothing beyond ``os`` (``fcntl`` where it exists) and ``json`` when it writes or reads
a record (a search that only checks for rows kept for later loads neither ``json`` nor
``re``). A write that fails (a full disk) is logged and never stops the hook.
"""

from __future__ import annotations

import contextlib
import os

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: appends are not locked
    fcntl = None  # type: ignore[assignment]  # the module is optional

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterable, Iterator, Mapping

JOURNAL_NAME = "journal.jsonl"
PREVIOUS_NAME = "journal.prev.jsonl"  # the journal rotated at the last backup (still replayed)

# Record kinds: a session's whole row (last one wins), a child row (inserted once), an
# observation a re-extraction removed, and a tombstone (forget).
SESSION = "session"
PROMPT = "prompt"
TOOL_EVENT = "tool_event"
OBSERVATION = "observation"
SUMMARY = "summary"
OBSERVATION_GONE = "observation_gone"
FORGET = "forget"
HEADER = "journal"  # the first line of a journal file: when it started


def journal_file_folder(db_file: str) -> str:
    """The folder of the backup and row journal of the database ``db_file``."""
    return os.path.join(os.path.dirname(db_file) or ".", "backups")


PENDING_NAME = "pending.jsonl"


def pending_file(db_file: str) -> str:
    """Where the rows the database ``db_file`` could not take wait
    (:mod:`conkeeper.storage.pending`): named here, beside the journal, so the check every hook
    makes when it opens the database does not import the spool's module."""
    return os.path.join(journal_file_folder(db_file), PENDING_NAME)


def _encode(record: Mapping[str, object]) -> str:
    import json

    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def note(conn: sqlite3.Connection, record: Mapping[str, object]) -> None:
    """Journal ``record`` for ``conn``'s database (nothing when ``conn`` keeps no journal)."""
    path: str | None = getattr(conn, "journal_file", None)
    if path is None:
        return
    line = _encode(record)
    if conn.in_transaction:
        conn.journal_pending.append(line)  # type: ignore[attr-defined]  # a StoreConnection
        return
    append_lines(path, (line,))


def flush(conn: sqlite3.Connection) -> None:
    """Write the lines of the transaction that has just committed."""
    pending: list[str] = conn.journal_pending  # type: ignore[attr-defined]  # a StoreConnection
    path: str | None = getattr(conn, "journal_file", None)
    lines, pending[:] = list(pending), []
    if path is not None and lines:
        append_lines(path, lines)


def append_lines(path: str, lines: Iterable[str]) -> bool:
    """Append ``lines`` to the journal at ``path`` in one write; whether it worked.

    The lock is shared with :func:`rewrite`: an append that waited for a rewrite finds its file
    replaced (no links left) and appends to the new one instead.
    """
    data = "".join(lines).encode("utf-8")
    try:
        for _ in range(3):
            fd = _open_append(path)
            try:
                lock(fd)
                stat = os.fstat(fd)
                if stat.st_nlink == 0:
                    continue  # rewritten while we waited: append to the new file
                # a new journal says from when it holds every write
                _append_whole(fd, (_header() if stat.st_size == 0 else b"") + data, stat.st_size)
                return True
            finally:
                os.close(fd)
    except OSError as exc:
        from conkeeper.storage.logfile import log

        log(f"could not append to the row journal {path}: {exc}", level="WARNING")
    return False


def _append_whole(fd: int, data: bytes, size: int) -> None:
    """Append ``data`` whole to the locked file of ``size`` bytes, or not at all: a write cut
    short (a full disk) is cut back off, since the next line appended onto a fragment would not
    parse either, and that row would be lost too. Raises the write's ``OSError``."""
    try:
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(28, "No space left on device (a write cut short)")
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)
        raise


def _header() -> bytes:
    import time

    return _encode({"kind": HEADER, "started_at": int(time.time() * 1000)}).encode("utf-8")


def lock(fd: int) -> None:
    """Take the journal's append lock on an open descriptor (released when it is closed)."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)


def _open_append(path: str) -> int:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    try:
        return os.open(path, flags, 0o600)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        return os.open(path, flags, 0o600)


def _session_key(conn: sqlite3.Connection, session_id: int) -> tuple[str, str] | None:
    """(project identity, host session id) of ``sessions.id``, cached per connection."""
    keys: dict[int, tuple[str, str]] = conn.journal_keys  # type: ignore[attr-defined]
    found = keys.get(session_id)
    if found is None:
        row = conn.execute(
            "SELECT p.identity, s.host_session_id FROM sessions s "
            "JOIN projects p ON p.id = s.project_id WHERE s.id = ?",
            (session_id,),
        ).fetchone()
        if row is None:
            return None
        found = keys[session_id] = (str(row[0]), str(row[1]))
    return found


SESSION_FIELDS = (
    "host",
    "title",
    "subtitle",
    "started_at",
    "ended_at",
    "status",
    "end_reason",
    "transcript_path",
)


def note_session(conn: sqlite3.Connection, session_id: int) -> None:
    """Journal a session's whole row as it is now (with its project's identity, root and
    name), after any write to it; replay keeps the last one."""
    if getattr(conn, "journal_file", None) is None:
        return
    row = conn.execute(
        "SELECT p.identity, p.root, p.name, s.host_session_id, s.host, s.title, s.subtitle, "
        "s.started_at, s.ended_at, s.status, s.end_reason, s.transcript_path "
        "FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return
    conn.journal_keys[session_id] = (str(row[0]), str(row[3]))  # type: ignore[attr-defined]
    note(
        conn,
        {
            "kind": SESSION,
            "project": row[0],
            "root": row[1],
            "name": row[2],
            "session": row[3],
            "row": dict(zip(SESSION_FIELDS, tuple(row)[4:], strict=True)),
        },
    )


def note_row(
    conn: sqlite3.Connection, kind: str, session_id: int, row: Mapping[str, object]
) -> None:
    """Journal a row of a session's ``kind`` (prompt, tool event, observation, summary):
    its columns without the row ids."""
    if getattr(conn, "journal_file", None) is None:
        return
    key = _session_key(conn, session_id)
    if key is not None:
        note(conn, {"kind": kind, "project": key[0], "session": key[1], "row": dict(row)})


def read_records(path: str) -> Iterator[dict[str, object] | None]:
    """The records of one journal file in order; ``None`` for a line that does not parse (a
    write cut short by a crash)."""
    if not os.path.exists(path):
        return
    import json

    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                yield None
                continue
            yield record if isinstance(record, dict) else None


def journal_files(folder: str) -> list[str]:
    """The journal files of a backups folder, oldest first (the rotated one, then the current)."""
    return [
        os.path.join(folder, name)
        for name in (PREVIOUS_NAME, JOURNAL_NAME)
        if os.path.exists(os.path.join(folder, name))
    ]


def rewrite(
    path: str,
    keep: Callable[[dict[str, object]], bool],
    change: Callable[[dict[str, object]], bool] | None = None,
) -> int:
    """Rewrite one journal file without the records ``keep`` refuses (``forget``), each kept
    record passed to ``change`` (which edits it in place and says whether it did: schema 8's
    digest identities); returns how many were dropped. The new file replaces the old under the
    append lock, so no concurrent append is lost."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return 0
    try:
        lock(fd)
        kept: list[str] = []
        dropped = changed = 0
        for record in read_records(path):
            if record is not None and not keep(record):
                dropped += 1
            elif record is not None:
                changed += bool(change and change(record))
                kept.append(_encode(record))
        if dropped or changed:
            tmp = path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as out:
                out.writelines(kept)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        return dropped
    finally:
        os.close(fd)
