"""Every agent's hook payloads, shaped as its documentation shows, through the real hook entry
(``python -m conkeeper hook --host NAME EVENT`` as a subprocess) into the real database.

The payload shapes come from the pages cited in docs/agents/NAME.md. What is checked: the
session is recorded under the agent's name, prompts and tool outcomes land with real
statuses, memory is injected in the agent's own output field where it has one, and the agent
that ignores hook output gets nothing on stdout.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_env, run_cli

FACT = "Releases are cut from the trunk branch every Tuesday."


@pytest.fixture
def memory_project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", cwd=root).returncode == 0
    patterns = root / ".claude" / "memory" / "patterns.md"
    patterns.write_text(patterns.read_text() + f"\n## Release\n\n- {FACT}\n", encoding="utf-8")
    return root


def hook(host: str, event: str, payload: dict, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "hook", "--host", host, event],
        input=json.dumps(payload),
        cwd=cwd,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr
    return proc


def db() -> sqlite3.Connection:
    conn = sqlite3.connect(Path(cli_env()["CONKEEPER_HOME"]) / "conkeeper.db")
    conn.row_factory = sqlite3.Row
    return conn


def events() -> list[sqlite3.Row]:
    with db() as conn:
        return conn.execute(
            "SELECT s.host, s.host_session_id, t.tool_name, t.status, t.input_summary "
            "FROM tool_events t JOIN sessions s ON s.id = t.session_id ORDER BY t.id"
        ).fetchall()


def prompts() -> list[str]:
    with db() as conn:
        return [r[0] for r in conn.execute("SELECT text FROM prompts ORDER BY id")]


def test_gemini_cli(memory_project: Path) -> None:
    base = {
        "session_id": "gem-1",
        "transcript_path": str(memory_project / "chat.json"),
        "cwd": str(memory_project),
        "timestamp": "2026-11-23T10:00:00Z",
    }
    start = hook(
        "gemini",
        "SessionStart",
        {**base, "hook_event_name": "SessionStart", "source": "startup"},
        memory_project,
    )
    out = json.loads(start.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart" and FACT in out["additionalContext"]
    hook(
        "gemini",
        "BeforeAgent",
        {**base, "hook_event_name": "BeforeAgent", "prompt": "add a release checklist"},
        memory_project,
    )
    hook(
        "gemini",
        "AfterTool",
        {
            **base,
            "hook_event_name": "AfterTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "make test", "description": "tests"},
            "tool_response": {
                "llmContent": "Exit Code: 2\nFAILED",
                "returnDisplay": "FAILED",
                "error": {"message": "Command exited with code 2"},
            },
        },
        memory_project,
    )
    hook(
        "gemini",
        "AfterTool",
        {
            **base,
            "hook_event_name": "AfterTool",
            "tool_name": "replace",
            "tool_input": {
                "file_path": str(memory_project / "a.py"),
                "old_string": "a",
                "new_string": "b",
            },
            "tool_response": {"llmContent": "Successfully modified file", "returnDisplay": "ok"},
        },
        memory_project,
    )
    rows = events()
    assert [(r["host"], r["tool_name"], r["status"]) for r in rows] == [
        ("gemini", "Bash", "failure"),
        ("gemini", "Edit", "success"),
    ]
    assert prompts() == ["add a release checklist"]


def test_codex_cli(memory_project: Path) -> None:
    base = {
        "session_id": "cdx-1",
        "transcript_path": None,
        "cwd": str(memory_project),
        "model": "gpt-5-codex",
        "turn_id": "t1",
    }
    start = hook(
        "codex",
        "SessionStart",
        {**base, "hook_event_name": "SessionStart", "source": "startup"},
        memory_project,
    )
    out = json.loads(start.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart" and FACT in out["additionalContext"]
    hook(
        "codex",
        "PostToolUse",
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": "c1",
            "tool_input": {"command": "cargo test"},
            "tool_response": {"exit_code": 101, "stdout": "", "stderr": "test failed"},
        },
        memory_project,
    )
    assert [(r["host"], r["status"]) for r in events()] == [("codex", "failure")]


def test_cursor(memory_project: Path) -> None:
    base = {
        "conversation_id": "cur-1",
        "generation_id": "g1",
        "model": "gpt-5",
        "cursor_version": "1.7",
        "workspace_roots": [str(memory_project)],
        "user_email": None,
        "transcript_path": None,
    }
    start = hook(
        "cursor",
        "sessionStart",
        {
            **base,
            "hook_event_name": "sessionStart",
            "session_id": "cur-1",
            "is_background_agent": False,
            "composer_mode": "agent",
        },
        memory_project,
    )
    assert FACT in json.loads(start.stdout)["additional_context"]
    prompt = hook(
        "cursor",
        "beforeSubmitPrompt",
        {
            **base,
            "hook_event_name": "beforeSubmitPrompt",
            "prompt": "rename the module",
            "attachments": [],
        },
        memory_project,
    )
    assert prompt.stdout == "" or json.loads(prompt.stdout)["continue"] is True
    hook(
        "cursor",
        "postToolUse",
        {
            **base,
            "hook_event_name": "postToolUse",
            "tool_name": "Shell",
            "tool_input": {"command": "npm test"},
            "tool_output": '{"exitCode": 0}',
            "duration": 1200,
            "tool_use_id": "cu1",
        },
        memory_project,
    )
    hook(
        "cursor",
        "postToolUseFailure",
        {
            **base,
            "hook_event_name": "postToolUseFailure",
            "tool_name": "Shell",
            "tool_input": {"command": "npm run lint"},
            "error_message": "exit code 1",
            "failure_type": "error",
            "tool_use_id": "cu2",
        },
        memory_project,
    )
    assert [(r["host"], r["tool_name"], r["status"]) for r in events()] == [
        ("cursor", "Bash", "success"),
        ("cursor", "Bash", "failure"),
    ]
    assert prompts() == ["rename the module"]


def test_copilot_output_is_ignored_so_nothing_is_printed(memory_project: Path) -> None:
    base = {"timestamp": 1704614400000, "cwd": str(memory_project)}
    start = hook(
        "copilot",
        "sessionStart",
        {**base, "source": "new", "initialPrompt": "fix the build"},
        memory_project,
    )
    assert start.stdout == "" and start.returncode == 0
    hook("copilot", "userPromptSubmitted", {**base, "prompt": "fix the build"}, memory_project)
    hook(
        "copilot",
        "postToolUse",
        {
            **base,
            "toolName": "bash",
            "toolArgs": json.dumps({"command": "npm test"}),
            "toolResult": {"resultType": "failure", "textResultForLlm": "1 test failed"},
        },
        memory_project,
    )
    rows = events()
    assert [(r["host"], r["tool_name"], r["status"]) for r in rows] == [
        ("copilot", "Bash", "failure")
    ]
    assert rows[0]["host_session_id"] == "copilot-20240107"
    assert prompts() == ["fix the build"]


def test_windsurf(memory_project: Path) -> None:
    base = {"trajectory_id": "ws-1", "execution_id": "e1", "timestamp": "2026-11-23T10:00:00Z"}
    done = hook(
        "windsurf",
        "pre_user_prompt",
        {
            **base,
            "agent_action_name": "pre_user_prompt",
            "tool_info": {"user_prompt": "add logging"},
        },
        memory_project,
    )
    assert done.returncode == 0 and done.stdout == ""
    hook(
        "windsurf",
        "post_run_command",
        {
            **base,
            "agent_action_name": "post_run_command",
            "tool_info": {"command_line": "pytest -q", "cwd": str(memory_project)},
        },
        memory_project,
    )
    assert [(r["host"], r["tool_name"]) for r in events()] == [("windsurf", "Bash")]
    assert prompts() == ["add logging"]


def test_cline(memory_project: Path) -> None:
    base = {
        "clineVersion": "3.36.0",
        "timestamp": "1732350000000",
        "taskId": "task-9",
        "workspaceRoots": [str(memory_project)],
        "userId": "u1",
    }
    start = hook(
        "cline",
        "TaskStart",
        {
            **base,
            "hookName": "TaskStart",
            "taskStart": {
                "taskMetadata": {"taskId": "task-9", "ulid": "01J", "initialTask": "add a cache"}
            },
        },
        memory_project,
    )
    out = json.loads(start.stdout)
    assert out["cancel"] is False and FACT in out["contextModification"]
    hook(
        "cline",
        "UserPromptSubmit",
        {
            **base,
            "hookName": "UserPromptSubmit",
            "userPromptSubmit": {"prompt": "use redis", "attachments": []},
        },
        memory_project,
    )
    post = hook(
        "cline",
        "PostToolUse",
        {
            **base,
            "hookName": "PostToolUse",
            "postToolUse": {
                "toolName": "execute_command",
                "parameters": {"command": "make"},
                "result": "make: *** [all] Error 2",
                "success": False,
                "executionTimeMs": 900,
            },
        },
        memory_project,
    )
    assert json.loads(post.stdout)["cancel"] is False
    assert [(r["host"], r["tool_name"], r["status"]) for r in events()] == [
        ("cline", "Bash", "failure")
    ]
    assert prompts() == ["use redis"]


def test_unknown_host_or_event_fails_open(memory_project: Path) -> None:
    for host, event in (("vim", "SessionStart"), ("gemini", "NotAnEvent"), ("zed", "Start")):
        proc = hook(host, event, {"cwd": str(memory_project)}, memory_project)
        assert proc.returncode == 0 and proc.stdout == ""
