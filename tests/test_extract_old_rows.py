"""Re-extraction cleans its input whole: a prompt or tool-event row stored before a privacy fix
(still holding ``<private>`` text or a secret) must not come out as an observation or summary
with the tags gone (issue 19 item 7). The old rows are written with ``sqlite3`` straight into
the real database file; extraction runs through ``conkeeper extract``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import run_cli
from conkeeper.domain.observations import ToolEvent, Turn, clean_turns
from conkeeper.storage.store import db_path

MARKER = "zanzibar-launch-codes"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SESSION = "old-rows-1"


def _start_session(project: Path) -> None:
    payload = {
        "session_id": SESSION,
        "transcript_path": str(project.parent / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    assert run_cli("hook", "SessionStart", stdin=json.dumps(payload)).returncode == 0


def _plant_old_rows(db: Path) -> None:
    """Rows as an older ConKeeper stored them: private text and a token left in."""
    conn = sqlite3.connect(db)
    with conn:
        (sid,) = conn.execute(
            "SELECT id FROM sessions WHERE host_session_id = ?", (SESSION,)
        ).fetchone()
        conn.execute(
            "INSERT INTO prompts(session_id, prompt_number, text, created_at) VALUES (?, 1, ?, 1)",
            (sid, f"Refactor the billing module <private>{MARKER} vault</private> please"),
        )
        conn.execute(
            "INSERT INTO prompts(session_id, prompt_number, text, created_at) VALUES (?, 2, ?, 2)",
            (sid, f"<private>\nrotate {MARKER} with {SECRET}\n</private>"),
        )
        for i, (prompt, name, action, path) in enumerate(
            [
                (1, "Edit", "write", "src/billing.py"),
                (1, "Edit", "write", "src/invoice.py"),
                (2, "Edit", "write", "src/vault.py"),
            ]
        ):
            conn.execute(
                "INSERT INTO tool_events(session_id, prompt_number, tool_use_id, tool_name, "
                "action, paths, input_summary, status, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'success', ?)",
                (
                    sid,
                    prompt,
                    f"toolu_{i}",
                    name,
                    action,
                    json.dumps([path]),
                    f"{path} <private>{MARKER}</private> {SECRET}",
                    10 + i,
                ),
            )
    conn.close()


def _everything_stored(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT * FROM observations").fetchall()
        rows += conn.execute("SELECT * FROM session_summaries").fetchall()
    finally:
        conn.close()
    assert rows, "extraction stored nothing"
    return json.dumps(rows, default=str)


def test_reextracting_old_rows_launders_no_private_text(project: Path) -> None:
    _start_session(project)
    db = db_path()
    _plant_old_rows(db)
    proc = run_cli("extract", "--session", SESSION, "--summary", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    stored = _everything_stored(db)
    assert "billing" in stored.lower()  # the visible part of the prompt is used
    for needle in (MARKER, "vault</private>", SECRET, SECRET[4:]):
        assert needle not in stored, needle
    assert MARKER not in proc.stdout and SECRET not in proc.stdout
    again = run_cli("extract", "--session", SESSION, "--summary", "--json", cwd=project)
    assert again.returncode == 0, again.stderr
    assert MARKER not in _everything_stored(db)


def test_clean_turns_cleans_every_text_whole() -> None:
    event = ToolEvent(
        id=1,
        prompt_number=1,
        tool_use_id="t",
        tool_name="Bash",
        action="execute",
        paths=("src/a.py",),
        input_summary=f"deploy <private>{MARKER}</private> --token {SECRET}",
        status="failure",
        error=f"denied for <private>{MARKER}</private>",
    )
    (private, mixed) = clean_turns(
        [
            Turn(1, f"<private>\n{MARKER}\n</private>", [event]),
            Turn(2, f"fix the <private>{MARKER}</private> build", []),
        ]
    )
    assert private.prompt is None  # a wholly private prompt is a private turn
    assert mixed.prompt is not None and "fix the" in mixed.prompt
    text = json.dumps([private.prompt, mixed.prompt, private.events[0].input_summary])
    text += str(private.events[0].error)
    assert MARKER not in text and SECRET not in text
    assert private.events[0].paths == ("src/a.py",)
