"""Memory hygiene: forgetting rows for good, and moving the store's memory between machines.

``forget`` deletes an observation, a session (with its prompts, tool events, observations and
summary) or a whole project; foreign keys cascade and the FTS triggers remove the index
entries in the same transaction, so nothing forgotten stays searchable.

``export`` writes JSONL, one record a line, keyed by natural ids (project identity, host session
id, prompt number, tool-use id, content hash) rather than row ids, so ``import_jsonl`` into
another database merges instead of clashing, and importing the same file twice changes
nothing. Everything imported passes the privacy module again: a backup may have been edited.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from conkeeper.domain.observations import (
    Observation,
    Summary,
    json_list,
    normalize_observation,
)
from conkeeper.storage.store import SCHEMA_VERSION, now_ms

EXPORT_FORMAT = "conkeeper-export"
EXPORT_VERSION = 1
RECORD_KINDS = ("project", "session", "prompt", "tool_event", "observation", "summary")


@dataclass
class ForgetResult:
    """What a forget removed."""

    target: str
    observations: int = 0
    sessions: int = 0
    prompts: int = 0
    tool_events: int = 0
    summaries: int = 0

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``."""
        return dict(self.__dict__)


def _count(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> int:
    return int(conn.execute(sql, params).fetchone()[0])


def _in_transaction(conn: sqlite3.Connection, work: Any) -> Any:
    from conkeeper.storage.store import transaction

    with transaction(conn):
        return work()


def forget_observation(conn: sqlite3.Connection, observation_id: int) -> ForgetResult:
    """Delete one observation (and its index entries); LookupError when absent."""

    def work() -> ForgetResult:
        cursor = conn.execute("DELETE FROM observations WHERE id = ?", (observation_id,))
        if cursor.rowcount == 0:
            raise LookupError(f"no observation {observation_id}")
        return ForgetResult(f"observation {observation_id}", observations=1)

    return _in_transaction(conn, work)


def _session_counts(conn: sqlite3.Connection, where: str, params: tuple[object, ...]) -> dict:
    return {
        "observations": _count(
            conn, f"SELECT COUNT(*) FROM observations WHERE session_id IN ({where})", params
        ),
        "prompts": _count(
            conn, f"SELECT COUNT(*) FROM prompts WHERE session_id IN ({where})", params
        ),
        "tool_events": _count(
            conn, f"SELECT COUNT(*) FROM tool_events WHERE session_id IN ({where})", params
        ),
        "summaries": _count(
            conn, f"SELECT COUNT(*) FROM session_summaries WHERE session_id IN ({where})", params
        ),
    }


def forget_session(conn: sqlite3.Connection, session_id: int) -> ForgetResult:
    """Delete a session and everything recorded in it."""

    def work() -> ForgetResult:
        counts = _session_counts(conn, "?", (session_id,))
        cursor = conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        if cursor.rowcount == 0:
            raise LookupError(f"no session {session_id}")
        conn.execute("DELETE FROM imported_transcripts WHERE session_id = ?", (session_id,))
        return ForgetResult(f"session {session_id}", sessions=1, **counts)

    return _in_transaction(conn, work)


def forget_project(conn: sqlite3.Connection, identity: str) -> ForgetResult:
    """Delete a project with all its sessions, observations and index rows."""

    def work() -> ForgetResult:
        row = conn.execute("SELECT id FROM projects WHERE identity = ?", (identity,)).fetchone()
        if row is None:
            raise LookupError(f"no project recorded for {identity}")
        project_id = int(row[0])
        where = "SELECT id FROM sessions WHERE project_id = ?"
        counts = _session_counts(conn, where, (project_id,))
        sessions = _count(conn, "SELECT COUNT(*) FROM sessions WHERE project_id = ?", (project_id,))
        conn.execute(
            "DELETE FROM imported_transcripts WHERE session_id IN "
            "(SELECT id FROM sessions WHERE project_id = ?)",
            (project_id,),
        )
        conn.execute("DELETE FROM projects WHERE id = ?", (project_id,))
        return ForgetResult(f"project {identity}", sessions=sessions, **counts)

    return _in_transaction(conn, work)


# --------------------------------------------------------------------------- export


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> Iterator[dict]:
    for row in conn.execute(sql, params):
        yield dict(row)


def export_records(conn: sqlite3.Connection, project_id: int | None) -> Iterator[dict]:
    """Every record of one project (or all), parents before children."""
    scope = "" if project_id is None else " WHERE id = ?"
    params: tuple[object, ...] = () if project_id is None else (project_id,)
    yield {
        "kind": "header",
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "schema": SCHEMA_VERSION,
        "exported_at": now_ms(),
    }
    for project in _rows(conn, f"SELECT * FROM projects{scope} ORDER BY id", params):
        yield from _export_project(conn, project)


def _export_project(conn: sqlite3.Connection, project: dict) -> Iterator[dict]:
    identity = project["identity"]
    yield {
        "kind": "project",
        "identity": identity,
        "root": project["root"],
        "name": project["name"],
        "created_at": project["created_at"],
    }
    sessions = _rows(
        conn,
        "SELECT * FROM sessions WHERE project_id = ? ORDER BY started_at, id",
        (project["id"],),
    )
    for s in sessions:
        key = {"project": identity, "session": s["host_session_id"]}
        yield {
            "kind": "session",
            **key,
            **{
                k: s[k]
                for k in (
                    "host",
                    "title",
                    "subtitle",
                    "started_at",
                    "ended_at",
                    "status",
                    "end_reason",
                    "transcript_path",
                )
            },
        }
        for p in _rows(conn, "SELECT * FROM prompts WHERE session_id = ? ORDER BY prompt_number",
                       (s["id"],)):  # fmt: skip
            yield {"kind": "prompt", **key, "prompt_number": p["prompt_number"],
                   "text": p["text"], "created_at": p["created_at"]}  # fmt: skip
        for t in _rows(conn, "SELECT * FROM tool_events WHERE session_id = ? ORDER BY id",
                       (s["id"],)):  # fmt: skip
            yield {
                "kind": "tool_event",
                **key,
                **{k: t[k] for k in t if k not in ("id", "session_id")},
                "paths": json_list(t["paths"]),
            }
        for o in _rows(conn, "SELECT * FROM observations WHERE session_id = ? ORDER BY id",
                       (s["id"],)):  # fmt: skip
            yield {
                "kind": "observation",
                **key,
                **{
                    k: o[k]
                    for k in (
                        "prompt_number",
                        "type",
                        "title",
                        "subtitle",
                        "narrative",
                        "content_hash",
                        "extractor",
                        "created_at",
                    )
                },
                "facts": json_list(o["facts"]),
                "concepts": json_list(o["concepts"]),
                "files": json_list(o["files"]),
            }
        for m in _rows(conn, "SELECT * FROM session_summaries WHERE session_id = ?", (s["id"],)):
            yield {
                "kind": "summary",
                **key,
                **{
                    k: m[k]
                    for k in (
                        "request",
                        "investigated",
                        "learned",
                        "completed",
                        "next_steps",
                        "notes",
                        "extractor",
                        "created_at",
                    )
                },
                "files_read": json_list(m["files_read"]),
                "files_edited": json_list(m["files_edited"]),
            }


def write_export(records: Iterable[dict], out: IO[str]) -> int:
    """Write records as JSONL; returns how many were written."""
    count = 0
    for record in records:
        out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        count += 1
    return count


# --------------------------------------------------------------------------- import


@dataclass
class ImportJsonlResult:
    """What importing a backup did."""

    added: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    damaged: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``."""
        return {"added": self.added, "skipped": self.skipped, "damaged_lines": self.damaged[:20]}


def _clean(text: object) -> str | None:
    from conkeeper.domain.privacy import clean_captured

    return clean_captured(str(text)) if isinstance(text, str) and text else None


class _Importer:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.projects: dict[str, int] = {}
        self.sessions: dict[tuple[str, str], int] = {}
        self.result = ImportJsonlResult()

    def added(self, kind: str, count: int = 1) -> None:
        self.result.added[kind] = self.result.added.get(kind, 0) + count

    def project(self, rec: dict) -> None:
        stamp = int(rec.get("created_at") or now_ms())
        identity = str(rec["identity"])
        cursor = self.conn.execute(
            "INSERT INTO projects(identity, root, name, created_at, last_seen_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(identity) DO NOTHING",
            (
                identity,
                str(rec.get("root") or identity),
                str(rec.get("name") or identity),
                stamp,
                stamp,
            ),
        )
        self.added("projects", cursor.rowcount)
        row = self.conn.execute("SELECT id FROM projects WHERE identity = ?", (identity,))
        self.projects[identity] = int(row.fetchone()[0])

    def session(self, rec: dict) -> None:
        project_id = self.projects[str(rec["project"])]
        status = rec.get("status")
        if status not in ("active", "completed", "abandoned", "imported"):
            status = "imported"
        cursor = self.conn.execute(
            "INSERT INTO sessions(host_session_id, project_id, host, title, subtitle, started_at, "
            "ended_at, status, end_reason, transcript_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(project_id, host_session_id) DO NOTHING",
            (
                str(rec["session"]),
                project_id,
                str(rec.get("host") or "claude-code"),
                _clean(rec.get("title")),
                _clean(rec.get("subtitle")),
                int(rec.get("started_at") or now_ms()),
                rec.get("ended_at"),
                status,
                rec.get("end_reason"),
                rec.get("transcript_path"),
            ),
        )
        self.added("sessions", cursor.rowcount)
        row = self.conn.execute(
            "SELECT id FROM sessions WHERE project_id = ? AND host_session_id = ?",
            (project_id, str(rec["session"])),
        ).fetchone()
        self.sessions[(str(rec["project"]), str(rec["session"]))] = int(row[0])

    def session_id(self, rec: dict) -> int:
        return self.sessions[(str(rec["project"]), str(rec["session"]))]

    def prompt(self, rec: dict) -> None:
        text = _clean(rec.get("text"))
        if text is None:
            self.result.skipped += 1
            return
        cursor = self.conn.execute(
            "INSERT OR IGNORE INTO prompts(session_id, prompt_number, text, created_at) "
            "VALUES (?, ?, ?, ?)",
            (
                self.session_id(rec),
                int(rec["prompt_number"]),
                text,
                int(rec.get("created_at") or now_ms()),
            ),
        )
        self.added("prompts", cursor.rowcount)

    def tool_event(self, rec: dict) -> None:
        status = rec.get("status")
        if status not in ("success", "failure", "interrupted"):
            status = "failure"  # fmt: skip
        action = rec.get("action") or "other"
        cursor = self.conn.execute(
            "INSERT OR IGNORE INTO tool_events(session_id, prompt_number, tool_use_id, tool_name, "
            "action, paths, input_summary, status, error, exit_code, duration_ms, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.session_id(rec),
                int(rec.get("prompt_number") or 0),
                str(rec["tool_use_id"]),
                str(rec.get("tool_name") or "unknown"),
                str(action),
                json.dumps([p for p in (_clean(x) for x in rec.get("paths") or []) if p]),
                _clean(rec.get("input_summary")) or "",
                status,
                None if status == "success" else _clean(rec.get("error")),
                rec.get("exit_code"),
                rec.get("duration_ms"),
                int(rec.get("created_at") or now_ms()),
            ),
        )
        self.added("tool_events", cursor.rowcount)

    def observation(self, rec: dict) -> None:
        from conkeeper.storage.observations import insert_observation

        def texts(key: str) -> list[str]:
            return [c for c in (_clean(v) for v in rec.get(key) or []) if c]

        obs = normalize_observation(
            Observation(
                type=str(rec.get("type") or ""),
                title=_clean(rec.get("title")) or "",
                subtitle=_clean(rec.get("subtitle")) or "",
                facts=texts("facts"),
                narrative=_clean(rec.get("narrative")) or "",
                concepts=texts("concepts"),
                files=texts("files"),
                prompt_number=int(rec.get("prompt_number") or 0),
            )
        )
        if obs is None:
            self.result.skipped += 1
            return
        project_id = self.projects[str(rec["project"])]
        new = insert_observation(
            self.conn,
            self.session_id(rec),
            project_id,
            obs,
            str(rec.get("extractor") or "import"),
            int(rec.get("created_at") or now_ms()),
        )
        self.added("observations", 0 if new is None else 1)

    def summary(self, rec: dict) -> None:
        from conkeeper.storage.observations import save_summary, session_info

        session_id = self.session_id(rec)
        exists = self.conn.execute(
            "SELECT 1 FROM session_summaries WHERE session_id = ?", (session_id,)
        ).fetchone()
        if exists:
            return
        summary = Summary(
            **{
                k: _clean(rec.get(k)) or ""
                for k in ("request", "investigated", "learned", "completed", "next_steps", "notes")
            },
            files_read=[f for f in (_clean(v) for v in rec.get("files_read") or []) if f],
            files_edited=[f for f in (_clean(v) for v in rec.get("files_edited") or []) if f],
        )
        save_summary(
            self.conn,
            session_info(self.conn, session_id),
            summary,
            str(rec.get("extractor") or "import"),
            int(rec.get("created_at") or now_ms()),
        )
        self.added("summaries")


def import_jsonl(conn: sqlite3.Connection, path: Path) -> ImportJsonlResult:
    """Merge a JSONL backup into the store in one transaction (idempotent)."""
    importer = _Importer(conn)
    conn.execute("BEGIN IMMEDIATE")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    kind = record.get("kind")
                    if kind not in RECORD_KINDS:
                        continue  # the header, or a kind from a newer ConKeeper
                    getattr(importer, kind)(record)
                except (ValueError, KeyError, TypeError, AttributeError):
                    importer.result.damaged.append(number)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return importer.result
