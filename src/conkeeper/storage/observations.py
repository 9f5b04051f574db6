"""Reading turns and writing observations/summaries: the only SQL the extractors need.

Kept apart from the extractors so that the rules (local or LLM) stay pure functions over
:class:`~conkeeper.domain.observations.Turn` lists, and every write goes through one
place that applies normalisation and the per-project duplicate suppression.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from conkeeper.domain.observations import (
    CleanObservation,
    Observation,
    Summary,
    ToolEvent,
    Turn,
    content_hash,
    json_list,
    normalize_observation,
    normalize_summary,
)
from conkeeper.storage import journal
from conkeeper.storage.driver import fits_row_id
from conkeeper.storage.store import now_ms


class SessionNotFound(LookupError):
    """No session matches the reference the user gave."""


@dataclass(frozen=True)
class SessionInfo:
    """The session facts extraction and retrieval need."""

    id: int
    host_session_id: str
    project_id: int
    project_root: str
    status: str
    title: str | None
    started_at: int
    ended_at: int | None


def session_info(conn: sqlite3.Connection, session_id: int) -> SessionInfo:
    """The :class:`SessionInfo` of ``sessions.id``; :class:`SessionNotFound` when absent."""
    row = conn.execute(
        "SELECT s.id, s.host_session_id, s.project_id, p.root, s.status, s.title, s.started_at, "
        "s.ended_at FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        raise SessionNotFound(f"no session with id {session_id}")
    return SessionInfo(*tuple(row))


def resolve_session(conn: sqlite3.Connection, ref: str, project_id: int | None = None) -> int:
    """``sessions.id`` for a reference: a numeric id, a host session id, or a unique prefix of
    one (at least 4 characters). Raises :class:`SessionNotFound` with a one-line reason."""
    text = ref.strip()
    if not text:
        raise SessionNotFound("empty session reference")
    scope = "" if project_id is None else " AND project_id = ?"
    extra: tuple[int, ...] = () if project_id is None else (project_id,)
    if text.isdigit() and fits_row_id(int(text)):
        row = conn.execute(f"SELECT id FROM sessions WHERE id = ?{scope}", (int(text), *extra))
        found = row.fetchone()
        if found is not None:
            return int(found[0])
    rows = conn.execute(
        f"SELECT id FROM sessions WHERE host_session_id = ?{scope} ORDER BY started_at DESC",
        (text, *extra),
    ).fetchall()
    if len(rows) >= 1:
        return int(rows[0][0])
    if len(text) >= 4:
        like = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = conn.execute(
            f"SELECT id FROM sessions WHERE host_session_id LIKE ? ESCAPE '\\'{scope} LIMIT 2",
            (like, *extra),
        ).fetchall()
        if len(rows) == 1:
            return int(rows[0][0])
        if len(rows) > 1:
            raise SessionNotFound(f"session prefix '{text}' is ambiguous; give more characters")
    raise SessionNotFound(f"no session '{text}' (use 'conkeeper sessions' to list them)")


def resolve_in_scope(conn: sqlite3.Connection, ref: str, project_id: int | None) -> int:
    """:func:`resolve_session`, preferring ``project_id``'s sessions (host ids can repeat
    across projects), then any project's."""
    if project_id is not None:
        try:
            return resolve_session(conn, ref, project_id)
        except SessionNotFound:
            pass
    return resolve_session(conn, ref)


def _event(row: sqlite3.Row) -> ToolEvent:
    return ToolEvent(
        id=int(row["id"]),
        prompt_number=int(row["prompt_number"]),
        tool_use_id=row["tool_use_id"],
        tool_name=row["tool_name"],
        action=row["action"],
        paths=tuple(json_list(row["paths"])),
        input_summary=row["input_summary"] or "",
        status=row["status"],
        error=row["error"],
        exit_code=row["exit_code"],
        created_at=int(row["created_at"]),
    )


def turn_times(turns: Sequence[Turn]) -> dict[int, int]:
    """When each turn's work ended (its last tool use), so observations of an imported or
    re-extracted session are dated when the work happened, not when extraction ran."""
    return {t.prompt_number: max(e.created_at for e in t.events) for t in turns if t.events}


def load_turns(conn: sqlite3.Connection, session_id: int) -> list[Turn]:
    """The session's prompts and tool events grouped into turns, in order.

    A prompt number with events but no stored prompt is a private (or uncaptured) turn: its
    ``prompt`` is ``None``, and LLM extractors never see it.
    """
    prompts = {
        int(r[0]): r[1]
        for r in conn.execute(
            "SELECT prompt_number, text FROM prompts WHERE session_id = ?", (session_id,)
        )
    }
    turns: dict[int, Turn] = {n: Turn(n, text) for n, text in prompts.items()}
    rows = conn.execute(
        "SELECT * FROM tool_events WHERE session_id = ? ORDER BY prompt_number, id",
        (session_id,),
    )
    for row in rows:
        event = _event(row)
        turns.setdefault(event.prompt_number, Turn(event.prompt_number, None)).events.append(event)
    return [turns[n] for n in sorted(turns)]


def last_event_id(conn: sqlite3.Connection, session_id: int) -> int:
    """The highest ``tool_events.id`` of a session (0 when none), for extraction progress."""
    row = conn.execute(
        "SELECT COALESCE(MAX(id), 0) FROM tool_events WHERE session_id = ?", (session_id,)
    ).fetchone()
    return int(row[0])


def insert_observation(
    conn: sqlite3.Connection,
    session_id: int,
    project_id: int,
    obs: CleanObservation,
    extractor: str,
    created_at: int | None = None,
) -> int | None:
    """Insert one normalised (so cleaned) observation; its id, or ``None`` when a duplicate (same
    content hash in the project) already exists."""
    row = {
        "prompt_number": obs.prompt_number,
        "type": obs.type,
        "title": obs.title,
        "subtitle": obs.subtitle,
        "facts": json.dumps(obs.facts, ensure_ascii=False),
        "narrative": obs.narrative,
        "concepts": json.dumps(obs.concepts, ensure_ascii=False),
        "files": json.dumps(obs.files, ensure_ascii=False),
        "content_hash": content_hash(obs),
        "extractor": extractor,
        "created_at": created_at if created_at is not None else now_ms(),
    }
    if observation_forgotten(conn, project_id, str(row["content_hash"])):
        return None
    cursor = conn.execute(
        "INSERT INTO observations(session_id, project_id, prompt_number, type, title, subtitle, "
        "facts, narrative, concepts, files, content_hash, extractor, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(project_id, content_hash) DO NOTHING",
        (session_id, project_id, *row.values()),
    )
    if not cursor.rowcount:
        return None
    journal.note_row(conn, journal.OBSERVATION, session_id, row)
    return cursor.lastrowid


def observation_forgotten(conn: sqlite3.Connection, project_id: int, digest: str) -> bool:
    """Whether a person forgot the observation with this content hash in this project
    (``forget observation``): re-extraction or an import must not bring it back."""
    try:
        found = conn.execute(
            "SELECT 1 FROM tombstones WHERE kind = 'observation' AND key = ? "
            "AND project = (SELECT identity FROM projects WHERE id = ?)",
            (digest, project_id),
        ).fetchone()
    except sqlite3.OperationalError:  # a store not yet at schema 5 has no tombstones
        return False
    return found is not None


def save_observations(
    conn: sqlite3.Connection,
    session: SessionInfo,
    observations: Sequence[Observation],
    extractor: str,
    *,
    replace: bool = False,
    created_at: int | None = None,
    times: dict[int, int] | None = None,
) -> tuple[list[int], int]:
    """Store observations (normalised, duplicates suppressed); returns (new ids, removed).

    With ``replace``, the session's earlier rows from the same ``extractor`` that the new set
    no longer contains are deleted, so a deterministic extractor re-run over a grown session
    leaves exactly its current output (unchanged rows keep their ids). The caller holds the
    transaction.
    """
    clean = [n for n in (normalize_observation(o, session.project_root) for o in observations) if n]
    removed = 0
    if replace:
        keep = {content_hash(o) for o in clean}
        stale = [
            (int(r[0]), str(r[1]))
            for r in conn.execute(
                "SELECT id, content_hash FROM observations WHERE session_id = ? AND extractor = ?",
                (session.id, extractor),
            )
            if r[1] not in keep
        ]
        for obs_id, digest in stale:
            conn.execute("DELETE FROM observations WHERE id = ?", (obs_id,))
            journal.note_row(conn, journal.OBSERVATION_GONE, session.id, {"content_hash": digest})
        removed = len(stale)
    ids = []
    for obs in clean:
        stamp = (times or {}).get(obs.prompt_number, created_at)
        new_id = insert_observation(conn, session.id, session.project_id, obs, extractor, stamp)
        if new_id is not None:
            ids.append(new_id)
    return ids, removed


def session_observations(conn: sqlite3.Connection, session_id: int) -> list[Observation]:
    """Every stored observation of a session, in id order."""
    from conkeeper.domain.observations import observation_from_row

    rows = conn.execute(
        "SELECT * FROM observations WHERE session_id = ? ORDER BY id", (session_id,)
    ).fetchall()
    return [observation_from_row(r) for r in rows]


def save_summary(
    conn: sqlite3.Connection,
    session: SessionInfo,
    summary: Summary,
    extractor: str,
    created_at: int | None = None,
) -> int:
    """Insert or replace the session's summary (one per session); returns its id."""
    clean = normalize_summary(summary, session.project_root)
    conn.execute(
        "INSERT INTO session_summaries(session_id, project_id, request, investigated, learned, "
        "completed, next_steps, files_read, files_edited, notes, extractor, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(session_id) DO UPDATE SET request = excluded.request, "
        "investigated = excluded.investigated, learned = excluded.learned, "
        "completed = excluded.completed, next_steps = excluded.next_steps, "
        "files_read = excluded.files_read, files_edited = excluded.files_edited, "
        "notes = excluded.notes, extractor = excluded.extractor, created_at = excluded.created_at",
        (
            session.id,
            session.project_id,
            clean.request,
            clean.investigated,
            clean.learned,
            clean.completed,
            clean.next_steps,
            json.dumps(clean.files_read, ensure_ascii=False),
            json.dumps(clean.files_edited, ensure_ascii=False),
            clean.notes,
            extractor,
            created_at if created_at is not None else now_ms(),
        ),
    )
    row = conn.execute(
        f"SELECT id, {', '.join(SUMMARY_COLUMNS)} FROM session_summaries WHERE session_id = ?",
        (session.id,),
    ).fetchone()
    journal.note_row(
        conn, journal.SUMMARY, session.id, dict(zip(SUMMARY_COLUMNS, tuple(row)[1:], strict=True))
    )
    return int(row[0])


SUMMARY_COLUMNS = (
    "request",
    "investigated",
    "learned",
    "completed",
    "next_steps",
    "files_read",
    "files_edited",
    "notes",
    "extractor",
    "created_at",
)


@dataclass(frozen=True)
class ExtractionProgress:
    """How far extraction got in a session."""

    extractor: str
    last_event_id: int
    last_prompt_number: int
    summarized: bool


def get_progress(conn: sqlite3.Connection, session_id: int) -> ExtractionProgress | None:
    """The session's extraction progress, or ``None`` when it was never extracted."""
    row = conn.execute(
        "SELECT extractor, last_event_id, last_prompt_number, summarized "
        "FROM extraction_progress WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    return ExtractionProgress(row[0], int(row[1]), int(row[2]), bool(row[3]))


def set_progress(conn: sqlite3.Connection, session_id: int, progress: ExtractionProgress) -> None:
    """Record extraction progress (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO extraction_progress(session_id, extractor, last_event_id, "
        "last_prompt_number, summarized, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(session_id) DO UPDATE SET extractor = excluded.extractor, "
        "last_event_id = excluded.last_event_id, "
        "last_prompt_number = excluded.last_prompt_number, "
        "summarized = excluded.summarized, updated_at = excluded.updated_at",
        (
            session_id,
            progress.extractor,
            progress.last_event_id,
            progress.last_prompt_number,
            int(progress.summarized),
            now_ms(),
        ),
    )


def pending_sessions(conn: sqlite3.Connection, project_id: int | None = None) -> list[int]:
    """Sessions with tool events or prompts newer than their last extraction, or ended but
    never summarised."""
    scope = "" if project_id is None else " AND s.project_id = ?"
    params: tuple[int, ...] = () if project_id is None else (project_id,)
    rows = conn.execute(
        "SELECT s.id FROM sessions s LEFT JOIN extraction_progress x ON x.session_id = s.id "
        "WHERE (EXISTS (SELECT 1 FROM tool_events t WHERE t.session_id = s.id "
        "               AND t.id > COALESCE(x.last_event_id, 0)) "
        "   OR EXISTS (SELECT 1 FROM prompts p WHERE p.session_id = s.id "
        "               AND p.prompt_number > COALESCE(x.last_prompt_number, 0)) "
        "   OR (s.status != 'active' AND COALESCE(x.summarized, 0) = 0 "
        "       AND EXISTS (SELECT 1 FROM prompts p WHERE p.session_id = s.id)))"
        + scope
        + " ORDER BY s.started_at",
        params,
    ).fetchall()
    return [int(r[0]) for r in rows]
