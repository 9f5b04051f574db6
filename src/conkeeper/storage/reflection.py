"""The queries reflection and insights need: sessions in a window, their tool events with
durations, and their summaries; and the Stop hook's evidence counts. SQL lives here so the
analysis core stays plain Python. Cheap to import (the Stop hook uses it): the observation
records are imported only by the functions that build them."""

from __future__ import annotations

import sqlite3

from conkeeper.domain.records import FrozenRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from conkeeper.domain.observations import ToolEvent


class SessionRow(FrozenRecord):
    """A session as reflection sees it (times are Unix ms)."""

    __slots__ = ("ended_at", "host_session_id", "id", "started_at", "status", "title")
    id: int
    host_session_id: str
    title: str | None
    started_at: int
    ended_at: int | None
    status: str

    def __init__(
        self,
        id: int,
        host_session_id: str,
        title: str | None,
        started_at: int,
        ended_at: int | None,
        status: str,
    ) -> None:
        self._set(
            id=id,
            host_session_id=host_session_id,
            title=title,
            started_at=started_at,
            ended_at=ended_at,
            status=status,
        )


_SESSION_COLUMNS = "id, host_session_id, title, started_at, ended_at, status"


def project_sessions(
    conn: sqlite3.Connection, project_id: int, since_ms: int | None = None
) -> list[SessionRow]:
    """The project's sessions started at or after ``since_ms`` (all when ``None``), oldest
    first."""
    rows = conn.execute(
        f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE project_id = ? AND started_at >= ? "
        "ORDER BY started_at, id",
        (project_id, since_ms or 0),
    ).fetchall()
    return [SessionRow(*tuple(row)) for row in rows]


def latest_session(conn: sqlite3.Connection, project_id: int) -> SessionRow | None:
    """The project's most recently started session."""
    row = conn.execute(
        f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE project_id = ? "
        "ORDER BY started_at DESC, id DESC LIMIT 1",
        (project_id,),
    ).fetchone()
    return SessionRow(*tuple(row)) if row else None


def session_row(conn: sqlite3.Connection, session_id: int) -> SessionRow | None:
    """One session by ``sessions.id``."""
    row = conn.execute(
        f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return SessionRow(*tuple(row)) if row else None


def session_events(conn: sqlite3.Connection, session_id: int) -> list[tuple[ToolEvent, int]]:
    """The session's tool events in order, each with its duration in ms (0 when unknown).

    The order is the prompts' and, within one, the order the hooks stored the events in: a
    hook process whose clock is behind stamps a later run earlier, and a failing run then
    read as the last one is "still failing" after it passed. ``created_at`` of the returned
    events is in Unix ms, as stored.
    """
    from conkeeper.domain.observations import ToolEvent, json_list

    rows = conn.execute(
        "SELECT id, prompt_number, tool_use_id, tool_name, action, paths, input_summary, "
        "status, error, exit_code, created_at, COALESCE(duration_ms, 0) FROM tool_events "
        "WHERE session_id = ? ORDER BY prompt_number, id",
        (session_id,),
    ).fetchall()
    return [
        (
            ToolEvent(
                id=int(r[0]),
                prompt_number=int(r[1]),
                tool_use_id=r[2],
                tool_name=r[3],
                action=r[4],
                paths=tuple(json_list(r[5])),
                input_summary=r[6] or "",
                status=r[7],
                error=r[8],
                exit_code=r[9],
                created_at=int(r[10]),
            ),
            int(r[11]),
        )
        for r in rows
    ]


def session_prompts(conn: sqlite3.Connection, session_id: int) -> list[tuple[int, str, int]]:
    """``(prompt_number, text, created_at ms)`` of the session's stored prompts, in order."""
    rows = conn.execute(
        "SELECT prompt_number, text, created_at FROM prompts WHERE session_id = ? "
        "ORDER BY prompt_number",
        (session_id,),
    ).fetchall()
    return [(int(r[0]), str(r[1]), int(r[2])) for r in rows]


def prompts_between(conn: sqlite3.Connection, start_ms: int, end_ms: int) -> list[tuple[int, str]]:
    """``(sessions.id, text)`` of every stored prompt sent from ``start_ms`` to ``end_ms``."""
    rows = conn.execute(
        "SELECT session_id, text FROM prompts WHERE created_at BETWEEN ? AND ? ORDER BY id",
        (start_ms, end_ms),
    ).fetchall()
    return [(int(r[0]), str(r[1])) for r in rows]


def session_summary(conn: sqlite3.Connection, session_id: int) -> dict[str, str] | None:
    """The session's stored summary fields (request, learned, completed, next_steps)."""
    row = conn.execute(
        "SELECT request, learned, completed, next_steps FROM session_summaries "
        "WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    return {
        "request": row[0] or "",
        "learned": row[1] or "",
        "completed": row[2] or "",
        "next_steps": row[3] or "",
    }
