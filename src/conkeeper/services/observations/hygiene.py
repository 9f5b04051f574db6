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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from conkeeper.domain.messages import clean_path
from conkeeper.domain.observations import (
    Observation,
    Summary,
    json_list,
    normalize_observation,
)
from conkeeper.storage import hygiene as rows
from conkeeper.storage.sessions import add_prompt, add_tool_event
from conkeeper.storage.store import SCHEMA_VERSION, now_ms, transaction

EXPORT_FORMAT = "conkeeper-export"
EXPORT_VERSION = 2  # 2: memory files (``services.memory_backup``) follow the records
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
    memory_files: int = 0  # queue and retro files the lines derived from a session left

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``."""
        return dict(self.__dict__)


def _forget(
    conn: sqlite3.Connection, work: Callable[[], tuple[ForgetResult, list[rows.Tombstone]]]
) -> ForgetResult:
    """Delete in one transaction and leave tombstones (so no import or restore brings the rows
    back), then make the forget reach the backup and the row journal."""
    rows.secure_delete(conn)
    with transaction(conn):
        result, stones = work()
        for stone in stones:
            rows.add_tombstone(conn, stone)
        rows.purge_freed_text(conn)
    from conkeeper.storage.recovery import database_file, forget_in_copies

    file = database_file(conn)
    if file is not None:
        forget_in_copies(file, stones)
    return result


def forget_observation(conn: sqlite3.Connection, observation_id: int) -> ForgetResult:
    """Delete one observation (and its index entries); LookupError when absent."""

    def work() -> tuple[ForgetResult, list[rows.Tombstone]]:
        key = rows.observation_key(conn, observation_id)
        if key is None or not rows.delete_observation(conn, observation_id):
            raise LookupError(f"no observation {observation_id}")
        stone = ("observation", key[0], key[1], now_ms())
        return ForgetResult(f"observation {observation_id}", observations=1), [stone]

    return _forget(conn, work)


def forget_session(conn: sqlite3.Connection, session_id: int) -> ForgetResult:
    """Delete a session and everything recorded in it, and the lines ConKeeper derived from it
    in the project's queue and retro files (``forget_files``: changed first; a file that
    cannot be changed raises :class:`~conkeeper.domain.safewrite.WriteError`, nothing
    forgotten)."""
    from conkeeper.services.observations.forget_files import SessionTrace, forget_derived
    from conkeeper.storage.reflection import session_prompts

    key, root = rows.session_key(conn, session_id), rows.session_root(conn, session_id)
    prompts = tuple((text, ms) for _, text, ms in session_prompts(conn, session_id))

    def work() -> tuple[ForgetResult, list[rows.Tombstone]]:
        key = rows.session_key(conn, session_id)
        counts = rows.delete_session(conn, session_id)
        if counts is None or key is None:
            raise LookupError(f"no session {session_id}")
        stone = ("session", key[0], key[1], now_ms())
        return ForgetResult(f"session {session_id}", sessions=1, **counts), [stone]

    # The files first: one that cannot be changed (read-only) raises a one-line WriteError with
    # the rows still there, so the same command finishes once it is writable; deleting the rows
    # first left the person's words quoted in the retro with no session left to forget.
    changed = forget_derived(SessionTrace(root, key[1], prompts)) if key and root else 0
    result = _forget(conn, work)
    result.memory_files = changed
    return result


def forget_project(conn: sqlite3.Connection, identity: str) -> ForgetResult:
    """Delete a project with all its sessions, observations and index rows, and the hooks'
    state files, watch-list line and freshness caches that name its folders."""

    def work() -> tuple[ForgetResult, list[rows.Tombstone]]:
        counts = rows.delete_project(conn, identity)
        if counts is None:
            raise LookupError(f"no project recorded for {identity}")
        shown = f"project {clean_path(identity)}"  # the folder may be named after a key
        return ForgetResult(shown, **counts), [("project", identity, "", now_ms())]

    result = _forget(conn, work)
    from conkeeper.services.upkeep.freshness.report import forget_cached
    from conkeeper.storage import memory_folders
    from conkeeper.storage.state import forget_project_state

    forget_project_state(identity)  # the hooks' state and caches name the project's folders
    memory_folders.forget(identity)
    forget_cached(identity)
    return result


# --------------------------------------------------------------------------- export


def export_records(conn: sqlite3.Connection, project_id: int | None) -> Iterator[dict]:
    """Every record of one project (or all), parents before children."""
    yield {
        "kind": "header",
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "schema": SCHEMA_VERSION,
        "exported_at": now_ms(),
    }
    for project in rows.projects(conn, project_id):
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
    for s in rows.sessions_of(conn, project["id"]):
        key = {"project": identity, "session": s["host_session_id"]}
        yield {
            "kind": "session",
            **key,
            **{k: s[k] for k in rows.SESSION_COLUMNS},
        }
        for p in rows.prompts_of(conn, s["id"]):
            yield {"kind": "prompt", **key, "prompt_number": p["prompt_number"],
                   "text": p["text"], "created_at": p["created_at"]}  # fmt: skip
        for t in rows.tool_events_of(conn, s["id"]):
            yield {
                "kind": "tool_event",
                **key,
                **{k: t[k] for k in t if k not in ("id", "session_id")},
                "paths": json_list(t["paths"]),
            }
        for o in rows.observations_of(conn, s["id"]):
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
        for m in rows.summaries_of(conn, s["id"]):
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
    forgotten: int = 0  # records of sessions a person forgot (tombstones): left out

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``."""
        return {
            "added": self.added,
            "skipped": self.skipped,
            "forgotten": self.forgotten,
            "damaged_lines": self.damaged[:20],
        }


def _clean(text: object) -> str | None:
    from conkeeper.domain.privacy import clean_captured

    return clean_captured(str(text)) if isinstance(text, str) and text else None


class _Importer:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.projects: dict[str, int] = {}
        self.sessions: dict[tuple[str, str], int] = {}
        self.forgotten: set[tuple[str, str]] = set()
        self.result = ImportJsonlResult()

    def added(self, kind: str, count: int = 1) -> None:
        self.result.added[kind] = self.result.added.get(kind, 0) + count

    def project(self, rec: dict) -> None:
        identity = str(rec["identity"])
        project_id, new = rows.add_project(
            self.conn,
            identity,
            str(rec.get("root") or identity),
            str(rec.get("name") or identity),
            int(rec.get("created_at") or now_ms()),
        )
        self.added("projects", int(new))
        self.projects[identity] = project_id

    def session(self, rec: dict) -> None:
        project_id = self.projects[str(rec["project"])]
        key = (str(rec["project"]), str(rec["session"]))
        started = rec.get("started_at")
        if rows.session_forgotten(
            self.conn, key[0], key[1], started if isinstance(started, int) else None
        ):
            self.forgotten.add(key)
            self.result.forgotten += 1
            return
        status = rec.get("status")
        if status not in ("active", "completed", "abandoned", "imported"):
            status = "imported"
        session_id, new = rows.add_session(
            self.conn,
            project_id,
            str(rec["session"]),
            {
                "host": str(rec.get("host") or "claude-code"),
                "title": _clean(rec.get("title")),
                "subtitle": _clean(rec.get("subtitle")),
                "started_at": int(rec.get("started_at") or now_ms()),
                "ended_at": rec.get("ended_at"),
                "status": status,
                "end_reason": rec.get("end_reason"),
                "transcript_path": rec.get("transcript_path"),
            },
        )
        self.added("sessions", int(new))
        self.sessions[(str(rec["project"]), str(rec["session"]))] = session_id

    def session_id(self, rec: dict) -> int:
        return self.sessions[(str(rec["project"]), str(rec["session"]))]

    def prompt(self, rec: dict) -> None:
        text = _clean(rec.get("text"))
        if text is None:
            self.result.skipped += 1
            return
        new = add_prompt(
            self.conn,
            self.session_id(rec),
            int(rec["prompt_number"]),
            text,
            int(rec.get("created_at") or now_ms()),
        )
        self.added("prompts", int(new))

    def tool_event(self, rec: dict) -> None:
        status = rec.get("status")
        if status not in ("success", "failure", "interrupted"):
            status = "failure"  # fmt: skip
        new = add_tool_event(
            self.conn,
            self.session_id(rec),
            {
                "prompt_number": int(rec.get("prompt_number") or 0),
                "tool_use_id": str(rec["tool_use_id"]),
                "tool_name": str(rec.get("tool_name") or "unknown"),
                "action": str(rec.get("action") or "other"),
                "paths": json.dumps([p for p in (_clean(x) for x in rec.get("paths") or []) if p]),
                "input_summary": _clean(rec.get("input_summary")) or "",
                "status": status,
                "error": None if status == "success" else _clean(rec.get("error")),
                "exit_code": rec.get("exit_code"),
                "duration_ms": rec.get("duration_ms"),
                "created_at": int(rec.get("created_at") or now_ms()),
            },
        )
        self.added("tool_events", int(new))

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
        if rows.has_summary(self.conn, session_id):
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
    with transaction(conn), open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                kind = record.get("kind")
                if kind not in RECORD_KINDS:
                    continue  # the header, or a kind from a newer ConKeeper
                key = (str(record.get("project")), str(record.get("session")))
                if kind != "session" and key in importer.forgotten:
                    importer.result.forgotten += 1
                    continue
                getattr(importer, kind)(record)
            except (ValueError, KeyError, TypeError, AttributeError):
                importer.result.damaged.append(number)
        rows.apply_tombstones(conn)  # a forgotten project's empty row, say, stays gone
    return importer.result
