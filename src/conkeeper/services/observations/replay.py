"""Replaying a recorded session (hook payloads) into the store through the real capture path.

The extraction-quality benchmark, the tests and demos need sessions whose outcome is known.
A recorded session is JSON: ``project_root``, ``session_id`` and ``turns``, each turn a
``prompt`` and ``events`` shaped like Claude Code's PostToolUse (``tool_name``,
``tool_input``, ``tool_response``) or PostToolUseFailure (``error``, ``is_interrupt``)
payloads. Each event goes through :func:`conkeeper.services.capture.events.build_event`, exactly
like a live hook, so replayed rows carry the same redaction and truncation as real ones.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conkeeper.domain.paths import ProjectLocation, project_memory_dir
from conkeeper.domain.privacy import CleanText
from conkeeper.services.capture.events import (
    build_event,
    outcome_from_failure,
    outcome_from_response,
    piped_test_outcome,
    store_event,
)
from conkeeper.storage.sessions import (
    end_session,
    ensure_session,
    set_title_if_missing,
    store_prompt,
)
from conkeeper.storage.store import ensure_project, transaction

START_MS = 1_700_000_000_000


def load_recording(path: Path) -> dict[str, Any]:
    """A recorded session from its JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


def relocate(recording: Mapping[str, Any], root: str) -> dict[str, Any]:
    """A copy of ``recording`` whose project (and every path inside it) lives at ``root``."""
    old = str(recording["project_root"])
    text = json.dumps(recording, ensure_ascii=False).replace(
        json.dumps(old)[1:-1], json.dumps(root)[1:-1]
    )
    return json.loads(text)


def event_outcome(event: Mapping[str, Any]) -> tuple[str, CleanText | None, int | None]:
    """The capture outcome of a recorded event (failure payload or tool response; a piped
    test run's read from its summary, as the hook does)."""
    reported: tuple[str, CleanText | None, int | None]
    if "error" in event or event.get("is_interrupt"):
        reported = outcome_from_failure(event.get("error"), bool(event.get("is_interrupt")))
        return piped_test_outcome(event.get("tool_input"), reported, event.get("error"))
    reported = outcome_from_response(event.get("tool_response"))
    return piped_test_outcome(event.get("tool_input"), reported, event.get("tool_response"))


def replay(conn: sqlite3.Connection, recording: Mapping[str, Any], *, end: bool = True) -> int:
    """Store a recorded session (prompts cleaned, events captured); returns ``sessions.id``."""
    from conkeeper.domain.privacy import clean_captured

    root = Path(recording["project_root"])
    location = ProjectLocation(root=root, identity=str(root), memory_dir=project_memory_dir(root))
    with transaction(conn):
        project_id = ensure_project(conn, location)
        session_id = ensure_session(conn, project_id, str(recording.get("session_id", "replay")))
        clock = START_MS
        for number, turn in enumerate(recording.get("turns", []), start=1):
            text = clean_captured(str(turn.get("prompt", "")))
            if text is not None:
                store_prompt(conn, session_id, number, text)
                set_title_if_missing(conn, session_id, text)
            for index, event in enumerate(turn.get("events", [])):
                clock += 1000
                captured = build_event(
                    tool_name=event.get("tool_name"),
                    tool_input=event.get("tool_input") or {},
                    tool_use_id=event.get("tool_use_id") or f"replay-{number}-{index}",
                    outcome=event_outcome(event),
                    root=root,
                    now=clock / 1000,
                )
                store_event(conn, session_id, number, captured)
        if end:
            end_session(conn, session_id, None, ended_at=clock)
    return session_id


def raw_log_text(recording: Mapping[str, Any]) -> str:
    """Everything the agent saw in the session (prompts, tool inputs and outputs) as text:
    the baseline an observation's token cost is compared with."""
    parts = []
    for turn in recording.get("turns", []):
        parts.append(str(turn.get("prompt", "")))
        for event in turn.get("events", []):
            parts.append(json.dumps(event, ensure_ascii=False))
    return "\n".join(parts)
