"""End to end: a realistic Claude Code session replayed through the real hook entry points.

Every event is a separate ``python -m conkeeper hook EVENT`` process fed a payload shaped like
Claude Code's (spec §6), in the order the host sends them and only for the events and matchers
``hooks/hooks.json`` registers; one event goes through the plugin launcher ``bin/conkeeper-hook``.

Payload shapes, as looked up for this test: a Bash ``tool_response`` is
``{"stdout", "stderr", "interrupted", "isImage"}`` with no exit code; a Bash command that exits
non-zero does not produce PostToolUse at all but PostToolUseFailure, whose ``error`` is
``"Exit code N"`` followed by the command's output (anthropics/claude-code issues #19523 and
#83394). Read/Edit/Grep responses follow the host's structured shapes.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from conftest import cli_env, run_cli
from conkeeper.domain.privacy import CONTEXT_MARKER_TAG
from conkeeper.services.setup.install import HOOK_SPECS

ROOT = Path(__file__).resolve().parents[1]
SESSION = "3f2a9c1e-7b4d-4e8a-9c61-2d5f0a1b7e90"
MODEL = "claude-sonnet-4-5-20250929"
PRIVATE = "ACME-CUSTOMER-CONTRACT-7731"
QUEUE_LINE = re.compile(
    r'^- \*\*\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\*\* \| correction \| "(?P<text>[^"]*)" \| '
    r"ref: previous assistant message$"
)


def matcher_allows(event: str, tool: str) -> bool:
    """Whether hooks.json registers ``event`` for ``tool`` (what the host would run)."""
    for spec in HOOK_SPECS:
        if spec.event == event:
            return spec.matcher in (None, "*") or tool in spec.matcher.split("|")
    return False


class Session:
    """Replays events for one session and records every hook result."""

    def __init__(self, tmp_path: Path) -> None:
        self.project = tmp_path / "shop-api"
        self.transcript = tmp_path / "transcripts" / f"{SESSION}.jsonl"
        self.transcript.parent.mkdir()
        self.outputs: list[tuple[str, dict[str, Any] | None]] = []
        self.tool_count = 0
        self.env = cli_env()
        self.data_home = Path(self.env["CONKEEPER_HOME"])

    def payload(self, event: str, **fields: Any) -> dict[str, Any]:
        return {
            "session_id": SESSION,
            "transcript_path": str(self.transcript),
            "cwd": str(self.project),
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }

    def hook(self, event: str, launcher: bool = False, **fields: Any) -> dict[str, Any] | None:
        body = json.dumps(self.payload(event, **fields))
        start = time.perf_counter()
        if launcher:
            import subprocess

            env = dict(self.env, CLAUDE_PLUGIN_ROOT=str(ROOT))
            env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
            proc = subprocess.run(
                ["/bin/sh", str(ROOT / "bin" / "conkeeper-hook"), event],
                input=body.encode(),
                env=env,
                capture_output=True,
                timeout=60,
                check=False,
            )
            code, out, err = proc.returncode, proc.stdout.decode(), proc.stderr.decode()
        else:
            result = run_cli("hook", event, stdin=body, env=self.env)
            code, out, err = result.returncode, result.stdout, result.stderr
        elapsed = time.perf_counter() - start
        assert code == 0, (event, code, err)
        assert err == "", (event, err)
        parsed = json.loads(out) if out.strip() else None
        self.outputs.append((event, parsed))
        return {"out": parsed, "elapsed": elapsed}

    def prompt(self, text: str) -> dict[str, Any] | None:
        self.append_transcript({"type": "user", "message": {"role": "user", "content": text}})
        return self.hook("UserPromptSubmit", prompt=text)

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        response: Any = None,
        *,
        error: str | None = None,
        interrupt: bool = False,
        launcher: bool = False,
    ) -> dict[str, Any] | None:
        self.tool_count += 1
        use_id = f"toolu_01{self.tool_count:020d}"
        if matcher_allows("PreToolUse", name):
            self.hook("PreToolUse", tool_name=name, tool_input=tool_input, tool_use_id=use_id)
        if error is None:
            return self.hook(
                "PostToolUse",
                launcher=launcher,
                tool_name=name,
                tool_input=tool_input,
                tool_response=response,
                tool_use_id=use_id,
            )
        return self.hook(
            "PostToolUseFailure",
            tool_name=name,
            tool_input=tool_input,
            tool_use_id=use_id,
            error=error,
            is_interrupt=interrupt,
        )

    def append_transcript(self, entry: dict[str, Any]) -> None:
        with open(self.transcript, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"sessionId": SESSION, "isSidechain": False, **entry}) + "\n")

    def assistant_turn(self, context_tokens: int) -> None:
        self.append_transcript(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{context_tokens}",
                    "model": MODEL,
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Done."}],
                    "usage": {
                        "input_tokens": 6,
                        "cache_creation_input_tokens": 2_000,
                        "cache_read_input_tokens": context_tokens - 2_006,
                        "output_tokens": 400,
                    },
                },
            }
        )


def context_of(result: dict[str, Any] | None, event: str) -> str:
    assert result is not None and result["out"] is not None
    specific = result["out"]["hookSpecificOutput"]
    assert specific["hookEventName"] == event
    return specific["additionalContext"]


def check_block(text: str) -> None:
    assert text.startswith(f"<{CONTEXT_MARKER_TAG}>") and text.endswith(f"</{CONTEXT_MARKER_TAG}>")
    assert len(text) <= 8000
    assert PRIVATE not in text and "PRIVATE-GLOSSARY" not in text
    assert "/memory-search" in text


def set_up_project(session: Session) -> None:
    project = session.project
    project.mkdir()
    (project / ".git").mkdir()  # a work-tree root (no git binary needed for identity)
    init = run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=project)
    assert init.returncode == 0, init.stderr
    memory = project / ".claude" / "memory"
    (memory / "active-context.md").write_text(
        "# Active Context\n\n## Current Focus\n- Token refresh retries in src/auth/token.py\n"
        f"<private>\n- Customer contract {PRIVATE} drives the deadline\n</private>\n\n"
        "## Next Steps\n- Make the refresh retry use exponential backoff\n",
        encoding="utf-8",
    )
    (memory / "glossary.md").write_text(
        "---\nprivate: true\n---\n# Glossary\n- PRIVATE-GLOSSARY term\n", encoding="utf-8"
    )


def test_realistic_session_end_to_end(tmp_path: Path) -> None:
    s = Session(tmp_path)
    set_up_project(s)
    memory = s.project / ".claude" / "memory"

    # --- start
    start = s.hook("SessionStart", source="startup", model=MODEL)
    first_context = context_of(start, "SessionStart")
    check_block(first_context)
    assert "Token refresh retries" in first_context and "Checkpoint written" not in first_context

    # --- prompt 1 and a burst of tools (the 5th tool use brings the save reminder)
    assert s.prompt("Add a retry to the token refresh in src/auth/token.py")["out"] is None
    s.tool(
        "Read",
        {"file_path": str(s.project / "src/auth/token.py")},
        {
            "type": "text",
            "file": {
                "filePath": str(s.project / "src/auth/token.py"),
                "content": "def refresh():\n    ...\n",
                "numLines": 2,
                "startLine": 1,
                "totalLines": 2,
            },
        },
    )
    s.tool(
        "Grep",
        {
            "pattern": "def refresh",
            "path": str(s.project / "src"),
            "output_mode": "files_with_matches",
        },
        {"mode": "files_with_matches", "filenames": ["src/auth/token.py"], "numFiles": 1},
    )
    s.tool(
        "Edit",
        {
            "file_path": str(s.project / "src/auth/token.py"),
            "old_string": "    ...",
            "new_string": "    return retry(fetch, attempts=3)",
        },
        {
            "filePath": str(s.project / "src/auth/token.py"),
            "oldString": "    ...",
            "newString": "    return retry(fetch, attempts=3)",
            "structuredPatch": [],
            "userModified": False,
            "replaceAll": False,
        },
    )
    s.tool(
        "Bash",
        {"command": "pytest -q tests/test_token.py", "description": "Run token tests"},
        error="Exit code 1\nF.\n=== FAILURES ===\nE   NameError: name 'retry' is not defined\n"
        "1 failed, 1 passed in 0.12s",
    )
    reminder = s.tool(
        "Bash",
        {"command": "sleep 600", "description": "wait"},
        error="Command interrupted by user",
        interrupt=True,
    )
    assert reminder is not None and "tool uses since the last save" in context_of(
        reminder, "PostToolUseFailure"
    )
    s.assistant_turn(48_000)

    # --- prompt 2: a correction
    assert s.prompt("no, use snake_case for method names")["out"] is None
    s.tool(
        "Edit",
        {
            "file_path": str(s.project / "src/auth/token.py"),
            "old_string": "refreshToken",
            "new_string": "refresh_token",
        },
        {
            "filePath": str(s.project / "src/auth/token.py"),
            "oldString": "refreshToken",
            "newString": "refresh_token",
            "structuredPatch": [],
            "userModified": False,
        },
        launcher=True,  # once through the plugin launcher
    )
    s.tool(
        "Bash",
        {"command": "pytest -q tests/test_token.py", "description": "Run token tests"},
        {"stdout": "..\n2 passed in 0.10s\n", "stderr": "", "interrupted": False, "isImage": False},
    )
    s.tool(
        "Bash",
        {"command": "git status --short", "description": "Show changes"},
        {"stdout": " M src/auth/token.py\n", "stderr": "", "interrupted": False, "isImage": False},
    )
    s.assistant_turn(131_000)  # 65% of 200k: over auto_sync_threshold (60)

    # --- prompt 3: the context monitor asks for a sync, once
    nudge = s.prompt("now add a test for the backoff")
    assert "/memory-sync" in context_of(nudge, "UserPromptSubmit")
    s.tool(
        "Write",
        {"file_path": str(s.project / "tests/test_backoff.py"), "content": "def test_x(): ..."},
        {
            "type": "create",
            "filePath": str(s.project / "tests/test_backoff.py"),
            "content": "def test_x(): ...",
            "structuredPatch": [],
        },
    )
    s.assistant_turn(133_000)

    # --- what the session captured
    # one log per local day: a session that runs past midnight writes two, read in date order
    logs = sorted((memory / "sessions").glob("*-observations.md"))
    assert 1 <= len(logs) <= 2
    texts = {log.name[:10]: log.read_text(encoding="utf-8") for log in logs}
    assert all(text.startswith(f"# Session Observations — {day}\n") for day, text in texts.items())
    log_text = "".join(texts.values())
    lines = [line for line in log_text.splitlines() if line.startswith("- **")]
    assert len(lines) == 9
    assert lines[0].endswith("| `Read` | read | `src/auth/token.py` | — | success")
    assert "`Grep` | read" in lines[1] and "`Edit` | write" in lines[2]
    assert "`Bash` | execute" in lines[3] and "`pytest -q tests/test_token.py`" in lines[3]
    assert "| failure" in lines[3] and "Exit code 1" in lines[3]
    assert "interrupted" in lines[4].rsplit("|", 1)[1]
    assert lines[6].endswith("| success") and "`pytest -q tests/test_token.py`" in lines[6]
    assert PRIVATE not in log_text

    queue = (memory / "corrections-queue.md").read_text(encoding="utf-8")
    items = [m for line in queue.splitlines() if (m := QUEUE_LINE.match(line))]
    assert [m["text"] for m in items] == ["no, use snake_case for method names"]

    conn = sqlite3.connect(s.data_home / "conkeeper.db")
    sessions = conn.execute("SELECT id, title, status FROM sessions").fetchall()
    assert len(sessions) == 1
    session_id, title, status = sessions[0]
    assert title == "Add a retry to the token refresh in src/auth/token.py"
    assert status == "active"
    prompts = conn.execute(
        "SELECT prompt_number, text FROM prompts WHERE session_id = ? ORDER BY prompt_number",
        (session_id,),
    ).fetchall()
    assert [p[0] for p in prompts] == [1, 2, 3]
    assert prompts[1][1] == "no, use snake_case for method names"
    events = conn.execute(
        "SELECT tool_name, status, prompt_number, exit_code, duration_ms, tool_use_id "
        "FROM tool_events WHERE session_id = ? ORDER BY id",
        (session_id,),
    ).fetchall()
    assert [(e[0], e[1], e[2]) for e in events] == [
        ("Read", "success", 1),
        ("Grep", "success", 1),
        ("Edit", "success", 1),
        ("Bash", "failure", 1),
        ("Bash", "interrupted", 1),
        ("Edit", "success", 2),
        ("Bash", "success", 2),
        ("Bash", "success", 2),
        ("Write", "success", 3),
    ]
    assert events[3][3] == 1  # exit code read from "Exit code 1"
    assert all(e[4] is not None for e in events if e[0] == "Bash")  # PreToolUse timed them
    assert len({e[5] for e in events}) == len(events)

    # --- compaction: checkpoint, then injected exactly once
    assert s.hook("PreCompact", trigger="auto", custom_instructions="")["out"] is None
    after = context_of(s.hook("SessionStart", source="compact", model=MODEL), "SessionStart")
    check_block(after)
    assert after.count("Checkpoint written before compaction (auto)") == 1
    assert "Session focus: Add a retry to the token refresh" in after
    assert "#3: now add a test for the backoff" in after
    assert "src/auth/token.py" in after and "Recent failure: Bash" in after
    resumed = context_of(s.hook("SessionStart", source="resume", model=MODEL), "SessionStart")
    assert "Checkpoint written" not in resumed
    all_contexts = [
        o["hookSpecificOutput"]["additionalContext"]
        for e, o in s.outputs
        if o and e == "SessionStart"
    ]
    assert sum("Checkpoint written" in c for c in all_contexts) == 1

    # --- end of turn: one reflection suggestion, with evidence, never "session ending"
    stop = s.hook("Stop", stop_hook_active=False, last_assistant_message="Done.")
    message = stop["out"]["systemMessage"]
    assert "/memory-reflect" in message and "ending" not in message.lower()
    assert "decision" not in stop["out"]
    assert s.hook("Stop", stop_hook_active=False)["out"] is None

    # --- session end: within the host's budget, session closed
    end = s.hook("SessionEnd", reason="prompt_input_exit")
    assert end["out"] is None and end["elapsed"] < 1.5
    status, reason = conn.execute(
        "SELECT status, end_reason FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    assert (status, reason) == ("completed", "prompt_input_exit")

    # --- every output was valid JSON or nothing; nothing private anywhere in the store
    for table, column in (("prompts", "text"), ("tool_events", "input_summary")):
        for (value,) in conn.execute(f"SELECT {column} FROM {table}"):
            assert PRIVATE not in (value or "")
    conn.close()
    log = s.data_home / "logs" / "conkeeper.log"
    if log.exists():
        assert " ERROR " not in log.read_text(encoding="utf-8")
