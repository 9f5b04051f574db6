"""Host sessions in the store: created on first sight, titled by the first prompt, ended once.

Every hook event may be the first one ConKeeper sees of a session (the plugin can be installed
mid-session, SessionStart can fail), so any hook that needs the session row calls
:func:`ensure_session`, which is idempotent and safe under parallel hooks (one upsert).
"""

from __future__ import annotations

import sqlite3

from conkeeper.storage import journal
from conkeeper.storage.store import now_ms

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from conkeeper.domain.privacy import CleanText

MAX_TITLE_CHARS = 200


def find_session(conn: sqlite3.Connection, project_id: int, host_session_id: str) -> int | None:
    """The ``sessions.id`` of a host session, or ``None`` (a read; no write transaction)."""
    row = conn.execute(
        "SELECT id FROM sessions WHERE project_id = ? AND host_session_id = ?",
        (project_id, host_session_id),
    ).fetchone()
    return None if row is None else int(row[0])


def find_session_by_identity(
    conn: sqlite3.Connection, identity: str, host_session_id: str
) -> int | None:
    """The ``sessions.id`` for a project identity and host session id, read-only.

    The hot path (PostToolUse) uses this first so that an existing session costs one indexed
    read instead of two upserts.
    """
    row = conn.execute(
        "SELECT s.id FROM sessions s JOIN projects p ON p.id = s.project_id "
        "WHERE p.identity = ? AND s.host_session_id = ?",
        (identity, host_session_id),
    ).fetchone()
    return None if row is None else int(row[0])


def recent_transcript(conn: sqlite3.Connection, identity: str, since_ms: int) -> str | None:
    """The transcript path of the project's newest session started since ``since_ms`` (the
    session an agent's ``remember`` most likely comes from), or None."""
    row = conn.execute(
        "SELECT s.transcript_path FROM sessions s JOIN projects p ON p.id = s.project_id "
        "WHERE p.identity = ? AND s.transcript_path IS NOT NULL AND s.status <> 'imported' "
        "AND s.started_at >= ? ORDER BY s.started_at DESC, s.id DESC LIMIT 1",
        (identity, since_ms),
    ).fetchone()
    return None if row is None else str(row[0])


def ensure_session(
    conn: sqlite3.Connection,
    project_id: int,
    host_session_id: str,
    *,
    transcript_path: str | None = None,
    host: str = "claude-code",
) -> int:
    """The ``sessions.id`` of a host session, inserting it when new.

    A known session gets its transcript path filled in when it was missing, and a session
    that had ended is active again (Claude Code resumes sessions under the same id).
    Imported sessions keep their status.
    """
    conn.execute(
        "INSERT INTO sessions(host_session_id, project_id, host, started_at, transcript_path) "
        "VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(project_id, host_session_id) DO UPDATE SET "
        "transcript_path = COALESCE(excluded.transcript_path, sessions.transcript_path), "
        "status = CASE WHEN sessions.status IN ('completed', 'abandoned') "
        "THEN 'active' ELSE sessions.status END, "
        "ended_at = CASE WHEN sessions.status IN ('completed', 'abandoned') "
        "THEN NULL ELSE sessions.ended_at END",
        (host_session_id, project_id, host, now_ms(), transcript_path),
    )
    found = find_session(conn, project_id, host_session_id)
    if found is None:  # pragma: no cover - the upsert above guarantees the row
        raise sqlite3.IntegrityError(f"session {host_session_id!r} could not be recorded")
    journal.note_session(conn, found)
    return found


def set_title_if_missing(conn: sqlite3.Connection, session_id: int, title: CleanText) -> bool:
    """Give a session its title (the first stored prompt, one line) unless it has one.

    Returns whether the title was set. Only privacy-cleaned text is accepted (the type says
    so: :class:`~conkeeper.domain.privacy.CleanText` comes only from the privacy module).
    """
    line = " ".join(title.split())[:MAX_TITLE_CHARS]
    if not line:
        return False
    cursor = conn.execute(
        "UPDATE sessions SET title = ? WHERE id = ? AND (title IS NULL OR title = '')",
        (line, session_id),
    )
    if cursor.rowcount:
        journal.note_session(conn, session_id)
    return cursor.rowcount > 0


def end_session(
    conn: sqlite3.Connection, session_id: int, reason: str | None, *, ended_at: int | None = None
) -> None:
    """Mark a session completed with the host's end reason (``clear``, ``logout``, ...), at
    ``ended_at`` (ms; default now)."""
    conn.execute(
        "UPDATE sessions SET status = CASE WHEN status = 'imported' THEN status "
        "ELSE 'completed' END, ended_at = ?, end_reason = ? WHERE id = ?",
        (ended_at if ended_at is not None else now_ms(), (reason or "")[:100] or None, session_id),
    )
    journal.note_session(conn, session_id)


def next_prompt_number(conn: sqlite3.Connection, session_id: int) -> int:
    """One more than the highest stored prompt number of a session (1 for a new session).

    The hook's own counter lives in session state (private prompts are counted but never
    stored); this is the fallback when that state is lost.
    """
    row = conn.execute(
        "SELECT COALESCE(MAX(prompt_number), 0) FROM prompts WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    return int(row[0]) + 1


def store_prompt(
    conn: sqlite3.Connection, session_id: int, prompt_number: int, text: CleanText
) -> int:
    """Store a cleaned prompt under ``prompt_number`` (or the next free number when that one
    is taken after lost state); returns the number used. Only privacy-cleaned text is
    accepted."""
    number = prompt_number
    stamp = now_ms()
    for _ in range(3):
        cursor = conn.execute(
            "INSERT OR IGNORE INTO prompts(session_id, prompt_number, text, created_at) "
            "VALUES (?, ?, ?, ?)",
            (session_id, number, text, stamp),
        )
        if cursor.rowcount:
            journal.note_row(
                conn,
                journal.PROMPT,
                session_id,
                {"prompt_number": number, "text": text, "created_at": stamp},
            )
            return number
        number = next_prompt_number(conn, session_id)
    raise sqlite3.IntegrityError(f"could not store prompt {prompt_number} of session {session_id}")


def last_session_by_host(conn: sqlite3.Connection, identity: str) -> dict[str, int]:
    """For one project, when each host (agent) last started a session (ms), as hooks saw it:
    the doctor's evidence that an agent's hooks really fire, however they were registered."""
    rows = conn.execute(
        "SELECT s.host, MAX(s.started_at) FROM sessions s JOIN projects p ON p.id = s.project_id "
        "WHERE p.identity = ? AND s.status != 'imported' GROUP BY s.host",
        (identity,),
    ).fetchall()
    return {str(host): int(started) for host, started in rows if started is not None}


def session_activity(conn: sqlite3.Connection, session_id: int) -> tuple[int, int, int | None]:
    """``(tool events, failed tool events, started_at ms or None)`` of one session."""
    row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(status = 'failure'), 0) FROM tool_events "
        "WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    start = conn.execute("SELECT started_at FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return int(row[0]), int(row[1]), int(start[0]) if start and start[0] else None


def session_title(conn: sqlite3.Connection, session_id: int) -> str | None:
    """A session's title (its first stored prompt), ``None`` when it has none."""
    row = conn.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return row[0] if row and row[0] else None


def recent_prompts(conn: sqlite3.Connection, session_id: int, limit: int) -> list[tuple[int, str]]:
    """The last ``limit`` stored prompts of a session as ``(number, text)``, oldest first."""
    rows = conn.execute(
        "SELECT prompt_number, text FROM prompts WHERE session_id = ? "
        "ORDER BY prompt_number DESC LIMIT ?",
        (session_id, limit),
    ).fetchall()
    return [(int(r[0]), str(r[1])) for r in reversed(rows)]


def recent_written_paths(conn: sqlite3.Connection, session_id: int, limit: int = 50) -> list[str]:
    """The ``paths`` JSON of a session's last successful writes, newest first."""
    rows = conn.execute(
        "SELECT paths FROM tool_events WHERE session_id = ? AND action = 'write' "
        "AND status = 'success' ORDER BY id DESC LIMIT ?",
        (session_id, limit),
    ).fetchall()
    return [r[0] or "[]" for r in rows]


def recent_failures(
    conn: sqlite3.Connection, session_id: int, limit: int = 3
) -> list[tuple[str, str | None, str | None]]:
    """A session's last failed tool uses as ``(tool, input summary, error)``, oldest first."""
    rows = conn.execute(
        "SELECT tool_name, input_summary, error FROM tool_events "
        "WHERE session_id = ? AND status != 'success' ORDER BY id DESC LIMIT ?",
        (session_id, limit),
    ).fetchall()
    return [(str(r[0]), r[1], r[2]) for r in reversed(rows)]


def recent_observation_titles(
    conn: sqlite3.Connection, session_id: int, limit: int = 5
) -> list[tuple[int, str, str]]:
    """A session's last observations as ``(id, type, title)``, oldest first."""
    rows = conn.execute(
        "SELECT id, type, title FROM observations WHERE session_id = ? ORDER BY id DESC LIMIT ?",
        (session_id, limit),
    ).fetchall()
    return [(int(r[0]), str(r[1]), str(r[2])) for r in reversed(rows)]


TOOL_EVENT_COLUMNS = (
    "prompt_number",
    "tool_use_id",
    "tool_name",
    "action",
    "paths",
    "input_summary",
    "status",
    "error",
    "exit_code",
    "duration_ms",
    "created_at",
)


def add_tool_event(conn: sqlite3.Connection, session_id: int, values: Mapping[str, object]) -> bool:
    """Store a tool event (:data:`TOOL_EVENT_COLUMNS`) unless its tool-use id is known (a
    hook may see one twice, an import may repeat); whether it was added."""
    cursor = conn.execute(
        "INSERT OR IGNORE INTO tool_events(session_id, prompt_number, tool_use_id, tool_name, "
        "action, paths, input_summary, status, error, exit_code, duration_ms, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (session_id, *(values.get(c) for c in TOOL_EVENT_COLUMNS)),
    )
    if cursor.rowcount:
        journal.note_row(conn, journal.TOOL_EVENT, session_id, values)
    return cursor.rowcount > 0


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """A table's column names (empty when it does not exist: later migrations may be missing
    from a database only read)."""
    return {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}


def latest_observations(
    conn: sqlite3.Connection, project_id: int, limit: int
) -> list[tuple[int, int | None, str, str | None]]:
    """A project's newest observations as ``(id, created_at, type, title)``, newest first."""
    columns = _columns(conn, "observations")
    if not {"id", "session_id", "type", "title", "created_at"} <= columns:
        return []
    if "project_id" in columns:  # indexed on (project_id, created_at DESC, id)
        sql = (
            "SELECT id, created_at, type, title FROM observations WHERE project_id = ? "
            "ORDER BY created_at DESC, id DESC LIMIT ?"
        )
    else:
        sql = (
            "SELECT id, created_at, type, title FROM observations "
            "WHERE session_id IN (SELECT id FROM sessions WHERE project_id = ?) "
            "ORDER BY id DESC LIMIT ?"
        )
    return [(int(r[0]), r[1], str(r[2]), r[3]) for r in conn.execute(sql, (project_id, limit))]


SUMMARY_FIELDS = ("request", "completed", "next_steps")


def latest_summary(
    conn: sqlite3.Connection, project_id: int
) -> tuple[dict[str, str | None], int | None, str] | None:
    """The project's newest session summary: ``(the fields of SUMMARY_FIELDS it has, the
    session's started_at, its host session id)``, or ``None``."""
    columns = _columns(conn, "session_summaries")
    fields = [c for c in SUMMARY_FIELDS if c in columns]
    if "session_id" not in columns or not fields:
        return None
    order = "ss.created_at DESC, ss.id DESC" if "created_at" in columns else "ss.id DESC"
    where = "ss.project_id = ?" if "project_id" in columns else "s.project_id = ?"
    row = conn.execute(
        f"SELECT {', '.join('ss.' + f for f in fields)}, s.started_at, s.host_session_id "
        "FROM session_summaries ss JOIN sessions s ON s.id = ss.session_id "
        f"WHERE {where} ORDER BY {order} LIMIT 1",
        (project_id,),
    ).fetchone()
    if row is None:
        return None
    return dict(zip(fields, row[: len(fields)], strict=True)), row[len(fields)], row[-1]


def add_prompt(
    conn: sqlite3.Connection, session_id: int, number: int, text: str, created_at: int
) -> bool:
    """Store a prompt unless that number is taken; whether it was added."""
    cursor = conn.execute(
        "INSERT OR IGNORE INTO prompts(session_id, prompt_number, text, created_at) "
        "VALUES (?, ?, ?, ?)",
        (session_id, number, text, created_at),
    )
    if cursor.rowcount:
        journal.note_row(
            conn,
            journal.PROMPT,
            session_id,
            {"prompt_number": number, "text": text, "created_at": created_at},
        )
    return cursor.rowcount > 0


def ensure_imported_session(
    conn: sqlite3.Connection,
    project_id: int,
    host_session_id: str,
    started_at: int,
    ended_at: int,
    transcript_path: str,
) -> int:
    """The ``sessions.id`` of an imported transcript's session, inserted as ``imported`` when
    new; a re-import updates the end of an imported session, never a live one's."""
    conn.execute(
        "INSERT INTO sessions(host_session_id, project_id, host, started_at, ended_at, status, "
        "end_reason, transcript_path) VALUES (?, ?, 'claude-code', ?, ?, 'imported', 'import', ?) "
        "ON CONFLICT(project_id, host_session_id) DO UPDATE SET "
        "transcript_path = COALESCE(sessions.transcript_path, excluded.transcript_path), "
        "ended_at = CASE WHEN sessions.status = 'imported' THEN excluded.ended_at "
        "ELSE sessions.ended_at END",
        (host_session_id, project_id, started_at, ended_at, transcript_path),
    )
    found = find_session(conn, project_id, host_session_id)
    if found is None:  # pragma: no cover - the upsert above guarantees the row
        raise sqlite3.IntegrityError(f"session {host_session_id!r} could not be recorded")
    journal.note_session(conn, found)
    return found


def set_subtitle_if_missing(conn: sqlite3.Connection, session_id: int, subtitle: str) -> None:
    """Give a session a subtitle (cleaned text, at most 200 characters) unless it has one."""
    cursor = conn.execute(
        "UPDATE sessions SET subtitle = ? WHERE id = ? AND subtitle IS NULL",
        (subtitle[:200], session_id),
    )
    if cursor.rowcount:
        journal.note_session(conn, session_id)
