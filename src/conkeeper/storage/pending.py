"""History a hook could not store: kept beside the row journal until the database takes it.

Why it exists: a hook waits a short while for a locked database (another program holding a
write transaction, a long import) and then gives up, so the agent is never kept waiting. The
prompt or tool event it was storing exists nowhere else; dropped, it was lost for good (the
Markdown observation log keeps only a line). So a hook that cannot store a row appends it here
(``<data home>/backups/pending.jsonl``, the row journal's format and folder), and the next
hook or command that opens the database for writing stores it (:func:`store_waiting`),
journals it, and empties the file. A session's end (SessionEnd) waits the same way: lost, the
session stayed active for good and was never summarised. Replaying is idempotent: prompts are
keyed by number, tool events by tool-use id, an end by its time.

On the hook path: the standard library only; :mod:`conkeeper.storage.recovery` is imported
only when there is something to replay.
"""

from __future__ import annotations

import os

from conkeeper.domain.paths import stored_identity, stored_path
from conkeeper.storage import journal
from conkeeper.storage.journal import pending_file

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: nothing is spooled there
    fcntl = None  # type: ignore[assignment]  # the module is optional

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Mapping

SESSION_SEEN = "session_seen"  # a session (and its project) to create when missing
SESSION_END = "session_end"  # a session's end (SessionEnd): ``ended_at``, ``end_reason``
KINDS = (journal.PROMPT, journal.TOOL_EVENT, SESSION_END)


def spool(
    db_file: str,
    session: Mapping[str, object],
    kind: str,
    row: Mapping[str, object],
) -> bool:
    """Keep one row of ``kind`` (one of :data:`KINDS`) for later;
    ``session``: ``project`` (identity), ``root``, ``name``, ``session`` (the host's id),
    ``host``, ``transcript_path``. Whether it was written (a full disk is logged)."""
    if fcntl is None:  # pragma: no cover - Windows
        return False
    keys = {"project": session.get("project"), "session": session.get("session")}
    seen = {
        "kind": SESSION_SEEN,
        **keys,
        "root": session.get("root"),
        "name": session.get("name"),
        "row": {
            "host": session.get("host"),
            "transcript_path": session.get("transcript_path"),
            "started_at": row.get("created_at", row.get("ended_at")),
        },
    }
    import json

    lines = [
        json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        for record in (seen, {"kind": kind, **keys, "row": dict(row)})
    ]
    return journal.append_lines(pending_file(db_file), lines)


def store_waiting(conn: sqlite3.Connection, db_file: str) -> int:
    """Store the rows waiting for ``db_file`` (:func:`replay`) when there are any: what every
    connection opened for writing does first, so a command shows what hooks kept for later
    (one existence check when nothing waits). A database still locked leaves them waiting
    (logged); how many were stored."""
    if fcntl is None or not os.path.exists(pending_file(db_file)):
        return 0
    try:
        return replay(conn, db_file)
    except Exception as exc:  # locked, damaged, a full disk: the rows stay for the next try
        from conkeeper.storage.logfile import log

        log(f"rows kept for later stay waiting: {exc}", level="WARNING")
        return 0


def replay(conn: sqlite3.Connection, db_file: str) -> int:
    """Store the rows waiting for ``db_file`` through ``conn`` (one transaction, journaled
    on commit) and empty the file; how many were stored. Nothing happens when another process
    is replaying them, and a database still locked leaves them waiting (the error
    propagates)."""
    path = pending_file(db_file)
    if fcntl is None or not os.path.exists(path):
        return 0
    fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0
        data = os.pread(fd, os.fstat(fd).st_size, 0)
        records = [_record(line) for line in data.decode("utf-8", "replace").splitlines()]
        stored = _store([r for r in records if r is not None], conn)
        os.ftruncate(fd, 0)
        return stored
    finally:
        os.close(fd)


def _record(line: str) -> dict[str, object] | None:
    import json

    try:
        found = json.loads(line)
    except ValueError:
        return None  # a line cut short by a crash
    return found if isinstance(found, dict) else None


def _store(records: list[dict[str, object]], conn: sqlite3.Connection) -> int:
    """Apply ``records`` in one transaction (each row journaled as its storage function would
    have); how many rows were new."""
    from conkeeper.storage.recovery import replay_record, session_row_id
    from conkeeper.storage.store import transaction

    stored = 0
    with transaction(conn):
        for record in records:
            kind = str(record.get("kind"))
            row = record.get("row")
            if not isinstance(row, dict) or _forgotten(conn, record, row):
                continue  # `forget` ran since: what it removed never comes back
            if kind == SESSION_SEEN:
                _ensure_session(conn, record)
                continue
            session_id = session_row_id(conn, record)
            if kind not in KINDS or session_id is None:
                continue
            if kind == SESSION_END:
                stored += _end_session(conn, session_id, row)
                continue
            if not _is_new(conn, kind, session_id, row):
                continue
            replay_record(conn, record)
            journal.note_row(conn, kind, session_id, row)
            stored += 1
    return stored


def _forgotten(
    conn: sqlite3.Connection, record: Mapping[str, object], row: Mapping[str, object]
) -> bool:
    """Whether a tombstone written after the row was captured covers it (its session, or its
    whole project)."""
    from conkeeper.storage.hygiene import stone_project

    when = row.get("created_at", row.get("started_at", row.get("ended_at"))) or 0
    found = conn.execute(
        "SELECT 1 FROM tombstones WHERE project = ? AND forgotten_at >= ? "
        "AND (kind = 'project' OR (kind = 'session' AND key = ?)) LIMIT 1",
        (stone_project(str(record.get("project"))), when, str(record.get("session"))),
    ).fetchone()
    return found is not None


def _end_session(conn: sqlite3.Connection, session_id: int, row: Mapping[str, object]) -> int:
    """End the session as SessionEnd would have (journaled by the storage function), unless
    a later end is already stored (a resumed session that ended again); 1 when stored."""
    from conkeeper.storage.sessions import end_session

    ended_at = row.get("ended_at")
    if not isinstance(ended_at, int):
        return 0
    found = conn.execute("SELECT ended_at FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if found is not None and found[0] is not None and int(found[0]) >= ended_at:
        return 0
    reason = row.get("end_reason")
    end_session(conn, session_id, reason if isinstance(reason, str) else None, ended_at=ended_at)
    return 1


def _is_new(
    conn: sqlite3.Connection, kind: str, session_id: int, row: Mapping[str, object]
) -> bool:
    """Whether the row is not stored yet (by prompt number, or tool-use id when it has one)."""
    if kind == journal.PROMPT:
        query = "SELECT 1 FROM prompts WHERE session_id = ? AND prompt_number = ?"
        key = row.get("prompt_number")
    elif row.get("tool_use_id"):
        query = "SELECT 1 FROM tool_events WHERE session_id = ? AND tool_use_id = ?"
        key = row.get("tool_use_id")
    else:
        return True
    return conn.execute(query, (session_id, key)).fetchone() is None


def _ensure_session(conn: sqlite3.Connection, record: Mapping[str, object]) -> None:
    """Create the record's project and session when they are missing (never change them)."""
    row = record.get("row")
    row = row if isinstance(row, dict) else {}
    identity = stored_identity(str(record.get("project")))  # a spool an older version wrote
    stamp = row.get("started_at") or 0
    conn.execute(
        "INSERT OR IGNORE INTO projects(identity, root, name, created_at, last_seen_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (
            identity,
            stored_path(str(record.get("root") or identity)),
            stored_path(str(record.get("name") or "")),
            stamp,
            stamp,
        ),
    )
    cursor = conn.execute(
        "INSERT OR IGNORE INTO sessions(host_session_id, project_id, host, started_at, "
        "transcript_path) SELECT ?, id, ?, ?, ? FROM projects WHERE identity = ?",
        (
            str(record.get("session")),
            str(row.get("host") or "claude-code"),
            stamp,
            row.get("transcript_path"),
            identity,
        ),
    )
    if cursor.rowcount:
        from conkeeper.storage.recovery import session_row_id

        found = session_row_id(conn, record)
        if found is not None:
            journal.note_session(conn, found)
