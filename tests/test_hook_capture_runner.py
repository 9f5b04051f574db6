"""The hook runner and the capture side, driven through the real entry point as subprocesses.

Every payload here is shaped like Claude Code's (``prompt``, ``tool_response``, ``error``,
``is_interrupt``...). The fault tests check the promise of spec §5: exit 0 promptly, nothing on
stdout but valid JSON, nothing written outside the memory and data folders, the problem in
ConKeeper's log, and no line lost.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import cli_env

HOOK = [sys.executable, "-m", "conkeeper", "hook"]


# --------------------------------------------------------------------------- helpers


def hook(
    tmp_path: Path, event: str, payload: object, *, raw: bytes | None = None, **env: str
) -> subprocess.CompletedProcess[bytes]:
    data = raw if raw is not None else json.dumps(payload).encode()
    return subprocess.run(
        [*HOOK, event],
        input=data,
        env=cli_env(**env),
        capture_output=True,
        timeout=60,
        check=False,
    )


def tool_payload(project: Path, n: int, session: str = "sess-1", **fields: object) -> dict:
    base = {
        "session_id": session,
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": f"toolu_{session}_{n}",
        "tool_input": {"command": f"echo step {n}", "description": "echo"},
        "tool_response": {"stdout": f"step {n}\n", "stderr": "", "interrupted": False},
    }
    base.update(fields)
    return base


def log_text(tmp_path: Path) -> str:
    path = tmp_path / "data" / "logs" / "conkeeper.log"
    return path.read_text() if path.exists() else ""


def observation_lines(project: Path) -> list[str]:
    files = sorted((project / ".claude" / "memory" / "sessions").glob("*-observations.md"))
    lines: list[str] = []
    for f in files:
        lines += [line for line in f.read_text().splitlines() if line.startswith("- **")]
    return lines


def db_rows(tmp_path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(tmp_path / "data" / "conkeeper.db")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def files_under(path: Path) -> set[Path]:
    return {p for p in path.rglob("*") if p.is_file()}


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("malformed", b'{"session_id": "x", "cwd": '),
        ("empty", b""),
        ("non-object", b'["PostToolUse", 1, 2]'),
        ("non-utf8", b'{"session_id": "\xff\xfe", "cwd": "\x80"}'),
        ("scalar", b"42"),
    ],
)
def test_bad_stdin_exits_zero_silently_and_logs(tmp_path: Path, name: str, raw: bytes) -> None:
    proc = hook(tmp_path, "PostToolUse", None, raw=raw)
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert proc.stderr == b""
    if name != "non-utf8":  # decodes (with replacement) to an object without a usable cwd
        assert "PostToolUse" in log_text(tmp_path)


def test_five_megabyte_payload_still_works(tmp_path: Path, project: Path) -> None:
    payload = tool_payload(project, 1)
    payload["tool_response"] = {"stdout": "x" * (5 * 1024 * 1024), "stderr": ""}
    proc = hook(tmp_path, "PostToolUse", payload)
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert len(observation_lines(project)) == 1


def test_payload_over_the_cap_is_ignored_and_logged(tmp_path: Path, project: Path) -> None:
    raw = b'{"pad": "' + b"x" * (8 * 1024 * 1024 + 10) + b'"}'
    proc = hook(tmp_path, "PostToolUse", None, raw=raw)
    assert proc.returncode == 0 and proc.stdout == b""
    assert "larger than" in log_text(tmp_path)


def test_unknown_event_and_missing_event_exit_zero(tmp_path: Path) -> None:
    assert hook(tmp_path, "NoSuchEvent", {}).returncode == 0
    proc = subprocess.run(
        HOOK, input=b"{}", env=cli_env(), capture_output=True, timeout=60, check=False
    )
    assert proc.returncode == 0 and proc.stdout == b""


def test_event_names_are_case_and_kebab_insensitive(tmp_path: Path, project: Path) -> None:
    for n, name in enumerate(["post-tool-use", "posttooluse", "POST_TOOL_USE"]):
        assert hook(tmp_path, name, tool_payload(project, n)).returncode == 0
    assert len(observation_lines(project)) == 3


# --------------------------------------------------------------------------- containment


def test_session_id_with_path_characters_stays_contained(tmp_path: Path, project: Path) -> None:
    before = files_under(tmp_path)
    payload = tool_payload(project, 1, session="../../../../etc/passwd")
    assert hook(tmp_path, "PostToolUse", payload).returncode == 0
    new = files_under(tmp_path) - before
    allowed = (tmp_path / "data", project / ".claude" / "memory")
    assert new and all(any(p.is_relative_to(a) for a in allowed) for p in new)
    states = list((tmp_path / "data" / "state").rglob("*.json"))
    assert [s.name for s in states] == ["___.._.._.._etc_passwd.json"]
    assert db_rows(tmp_path, "SELECT host_session_id FROM sessions") == [
        ("___.._.._.._etc_passwd",)
    ]


def test_missing_cwd_falls_back_to_claude_project_dir(tmp_path: Path, project: Path) -> None:
    payload = tool_payload(project, 1, cwd=str(tmp_path / "gone"))
    proc = hook(tmp_path, "PostToolUse", payload, CLAUDE_PROJECT_DIR=str(project))
    assert proc.returncode == 0
    assert len(observation_lines(project)) == 1


def test_missing_cwd_without_fallback_writes_nothing(tmp_path: Path, project: Path) -> None:
    payload = tool_payload(project, 1, cwd=str(tmp_path / "gone"))
    proc = hook(tmp_path, "PostToolUse", payload)
    assert proc.returncode == 0 and proc.stdout == b""
    assert observation_lines(project) == []
    assert not (tmp_path / "data" / "conkeeper.db").exists()
    assert "no usable cwd" in log_text(tmp_path)


def test_missing_transcript_does_not_stop_prompt_capture(tmp_path: Path, project: Path) -> None:
    payload = {
        "session_id": "s",
        "transcript_path": str(tmp_path / "nope.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Add a health check endpoint",
    }
    proc = hook(tmp_path, "UserPromptSubmit", payload)
    assert proc.returncode == 0
    assert db_rows(tmp_path, "SELECT text FROM prompts") == [("Add a health check endpoint",)]


def test_unwritable_memory_folder_keeps_the_database_row(tmp_path: Path, project: Path) -> None:
    (project / ".claude" / "memory" / "sessions").write_text("a file where a folder should be")
    proc = hook(tmp_path, "PostToolUse", tool_payload(project, 1))
    assert proc.returncode == 0 and proc.stdout == b""
    assert db_rows(tmp_path, "SELECT count(*) FROM tool_events") == [(1,)]
    assert "observation log" in log_text(tmp_path)


def test_locked_database_exits_promptly_and_keeps_the_log_line(
    tmp_path: Path, project: Path
) -> None:
    assert hook(tmp_path, "PostToolUse", tool_payload(project, 0)).returncode == 0
    holder = sqlite3.connect(tmp_path / "data" / "conkeeper.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        start = time.monotonic()
        proc = hook(tmp_path, "PostToolUse", tool_payload(project, 1))
        elapsed = time.monotonic() - start
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert proc.returncode == 0 and proc.stdout == b""
    assert elapsed < 8
    assert len(observation_lines(project)) == 2
    assert "could not store tool event" in log_text(tmp_path)


def test_codex_apply_patch_recorded_at_stop_survives_a_locked_database(
    tmp_path: Path, project: Path
) -> None:
    """Codex fires no PostToolUse for its own ``apply_patch``: the Stop hook records the
    turn's patches from the rollout. With the database locked it dropped them (no row, no
    observation line), where PostToolUse keeps both: the line written, the row kept for
    the next hook."""
    rollout = tmp_path / "rollout.jsonl"
    item = {
        "type": "FileChange",
        "id": "call_patch_1",
        "status": "completed",
        "changes": {"src/app.py": {"type": "update"}},
    }
    record = {"type": "item_completed", "turn_id": "turn-1", "item": item}
    rollout.write_text(json.dumps({"payload": {**record, "completed_at_ms": 1}}) + "\n")
    stop = {
        "session_id": "cx-1",
        "turn_id": "turn-1",
        "transcript_path": str(rollout),
        "cwd": str(project),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    codex_hook = [*HOOK, "--host", "codex"]
    start = tool_payload(project, 0, session="cx-1")
    run = {"env": cli_env(), "capture_output": True, "timeout": 60, "check": False}
    first = subprocess.run([*codex_hook, "PostToolUse"], input=json.dumps(start).encode(), **run)
    assert first.returncode == 0
    holder = sqlite3.connect(tmp_path / "data" / "conkeeper.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        proc = subprocess.run([*codex_hook, "Stop"], input=json.dumps(stop).encode(), **run)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert proc.returncode == 0 and b"Traceback" not in proc.stdout + proc.stderr
    assert any("src/app.py" in line for line in observation_lines(project))
    again = tool_payload(project, 2, session="cx-1")
    subprocess.run([*codex_hook, "PostToolUse"], input=json.dumps(again).encode(), **run)
    rows = db_rows(tmp_path, "SELECT tool_name, paths FROM tool_events WHERE tool_name = 'Edit'")
    assert rows == [("Edit", '["src/app.py"]')]


def test_parallel_hooks_of_two_sessions_lose_nothing(tmp_path: Path, project: Path) -> None:
    procs = []
    for session in ("alpha", "beta"):
        for n in range(12):
            data = json.dumps(tool_payload(project, n, session=session)).encode()
            p = subprocess.Popen(
                [*HOOK, "PostToolUse"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=cli_env(CONKEEPER_SAVE_INTERVAL="0"),
            )
            procs.append((p, data))
    for p, data in procs:
        out, _ = p.communicate(data, timeout=60)
        assert p.returncode == 0 and out == b""
    lines = observation_lines(project)
    assert len(lines) == 24 and len(set(lines)) <= 24
    for session in ("alpha", "beta"):
        assert sum("`echo step" in line for line in lines) == 24
        rows = db_rows(
            tmp_path,
            "SELECT count(DISTINCT tool_use_id) FROM tool_events e JOIN sessions s "
            f"ON s.id = e.session_id WHERE s.host_session_id = '{session}'",
        )
        assert rows == [(12,)]


# --------------------------------------------------------------------------- the log format


def test_observation_lines_follow_the_seed_format(tmp_path: Path, project: Path) -> None:
    target = project / "src" / "app.py"
    payloads = [
        tool_payload(project, 1, tool_input={"command": "npm test"}),
        tool_payload(
            project,
            2,
            tool_name="Read",
            tool_input={"file_path": str(target)},
            tool_response={"type": "text", "file": {"filePath": str(target)}},
        ),
        tool_payload(
            project,
            3,
            tool_input={"command": "pytest -q tests/test_app.py"},
            tool_response={"stdout": "", "stderr": "E   assert 1 == 2 | boom", "exit_code": 1},
        ),
        tool_payload(project, 4, tool_name="Grep", tool_input={"pattern": "TODO", "path": "src"}),
    ]
    for payload in payloads:
        assert hook(tmp_path, "PostToolUse", payload).returncode == 0
    failure = tool_payload(
        project, 5, tool_name="Bash", tool_input={"command": "make build"}, hook_event_name=""
    )
    failure.pop("tool_response")
    failure.update(error="Exit code 2\nmake: *** [build] Error 2", is_interrupt=False)
    assert hook(tmp_path, "PostToolUseFailure", failure).returncode == 0
    interrupted = dict(failure, tool_use_id="toolu_int", error="", is_interrupt=True)
    assert hook(tmp_path, "PostToolUseFailure", interrupted).returncode == 0

    files = list((project / ".claude" / "memory" / "sessions").glob("*-observations.md"))
    text = files[0].read_text()
    assert text.startswith(f"# Session Observations — {files[0].name[:10]}\n")
    assert "<!-- Auto-generated by ConKeeper PostToolUse hook -->\n\n- **" in text
    lines = [line.split(" | ", 1)[1] for line in observation_lines(project)]
    assert lines[0] == "`Bash` | execute | — | `npm test` | success"
    assert lines[1] == "`Read` | read | `src/app.py` | — | success"
    assert lines[2].startswith(
        "`Bash` | execute | `tests/test_app.py` | `pytest -q tests/test_app.py`"
    )
    assert lines[2].endswith("| failure: exit code 1: E assert 1 == 2 \\| boom")
    assert lines[3] == "`Grep` | read | `src` | — | success"
    assert (
        lines[4]
        == "`Bash` | execute | — | `make build` | failure: Exit code 2 make: *** [build] Error 2"
    )
    assert lines[5] == "`Bash` | execute | — | `make build` | interrupted"
    rows = db_rows(
        tmp_path,
        "SELECT tool_name, action, status, exit_code, paths FROM tool_events ORDER BY id",
    )
    assert rows[2] == ("Bash", "execute", "failure", 1, '["tests/test_app.py"]')
    assert rows[3][1] == "search"
    assert rows[4][2:4] == ("failure", 2)
    assert rows[5][2] == "interrupted"


def test_secrets_in_inputs_and_errors_are_redacted(tmp_path: Path, project: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    payload = tool_payload(
        project,
        1,
        tool_input={"command": f"curl -H 'Authorization: token {token}' https://api"},
        tool_response={"stdout": "", "stderr": f"bad credentials {token}", "exit_code": 22},
    )
    assert hook(tmp_path, "PostToolUse", payload).returncode == 0
    everything = "\n".join(observation_lines(project)) + str(
        db_rows(tmp_path, "SELECT input_summary, error FROM tool_events")
    )
    assert token not in everything
    assert "[REDACTED" in everything


def test_duration_comes_from_pre_tool_use(tmp_path: Path, project: Path) -> None:
    pre = tool_payload(project, 1, hook_event_name="PreToolUse")
    pre.pop("tool_response")
    pre_proc = hook(tmp_path, "PreToolUse", pre)
    assert pre_proc.returncode == 0 and pre_proc.stdout == b""
    assert hook(tmp_path, "PostToolUse", tool_payload(project, 1)).returncode == 0
    (duration,) = db_rows(tmp_path, "SELECT duration_ms FROM tool_events")[0]
    assert isinstance(duration, int) and 0 <= duration < 60_000


def test_redelivered_event_is_recorded_once(tmp_path: Path, project: Path) -> None:
    for _ in range(2):
        assert hook(tmp_path, "PostToolUse", tool_payload(project, 7)).returncode == 0
    assert len(observation_lines(project)) == 1
    assert db_rows(tmp_path, "SELECT count(*) FROM tool_events") == [(1,)]


@pytest.mark.parametrize(
    ("env", "lines", "rows"),
    [
        ({"CONKEEPER_OBSERVATION_HOOK": "false"}, 0, 0),
        ({"CONKEEPER_OBSERVATION_DETAIL": "off"}, 0, 1),
        ({"CONKEEPER_OBSERVATION_DETAIL": "stubs_only"}, 1, 1),
    ],
)
def test_observation_settings(
    tmp_path: Path, project: Path, env: dict[str, str], lines: int, rows: int
) -> None:
    assert hook(tmp_path, "PostToolUse", tool_payload(project, 1), **env).returncode == 0
    found = observation_lines(project)
    assert len(found) == lines
    if lines:
        assert found[0].endswith("| `Bash` | execute | — | — | success")
    if rows:
        assert db_rows(tmp_path, "SELECT count(*) FROM tool_events") == [(rows,)]


def test_no_memory_folder_means_no_log_file(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    (bare / ".git").mkdir(parents=True)
    assert hook(tmp_path, "PostToolUse", tool_payload(bare, 1)).returncode == 0
    assert not (bare / ".claude").exists()


# --------------------------------------------------------------------------- prompts and privacy


def prompt_payload(project: Path, text: str, session: str = "sess-1") -> dict:
    return {
        "session_id": session,
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def test_private_prompt_is_not_stored_and_its_tools_are_not_captured(
    tmp_path: Path, project: Path
) -> None:
    assert hook(tmp_path, "UserPromptSubmit", prompt_payload(project, "Set up CI")).returncode == 0
    secret = "<private>\nmy bank pin is 1234, no, use it\n</private>"
    assert hook(tmp_path, "UserPromptSubmit", prompt_payload(project, secret)).returncode == 0
    assert hook(tmp_path, "PostToolUse", tool_payload(project, 1)).returncode == 0
    assert hook(tmp_path, "UserPromptSubmit", prompt_payload(project, "Now docs")).returncode == 0
    assert hook(tmp_path, "PostToolUse", tool_payload(project, 2)).returncode == 0
    prompts = db_rows(tmp_path, "SELECT prompt_number, text FROM prompts ORDER BY prompt_number")
    assert prompts == [(1, "Set up CI"), (3, "Now docs")]
    assert db_rows(tmp_path, "SELECT prompt_number FROM tool_events") == [(3,)]
    assert len(observation_lines(project)) == 1
    assert db_rows(tmp_path, "SELECT title FROM sessions") == [("Set up CI",)]
    assert not (project / ".claude" / "memory" / "corrections-queue.md").exists()


def test_prompt_is_read_from_prompt_not_user_message(tmp_path: Path, project: Path) -> None:
    wrong = {k: v for k, v in prompt_payload(project, "").items() if k != "prompt"}
    wrong["user_message"] = "no, use snake_case"
    assert hook(tmp_path, "UserPromptSubmit", wrong).returncode == 0
    assert not (project / ".claude" / "memory" / "corrections-queue.md").exists()
    right = prompt_payload(project, "no, use snake_case for method names")
    assert hook(tmp_path, "UserPromptSubmit", right).returncode == 0
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text()
    assert queue.startswith(
        "# Corrections Queue\n<!-- Auto-populated by ConKeeper UserPromptSubmit hook -->\n\n"
    )
    line = queue.splitlines()[-1]
    assert line.endswith(
        '| correction | "no, use snake_case for method names" | ref: previous assistant message'
    )
    (state,) = (tmp_path / "data" / "state").rglob("sess-1.json")
    assert json.loads(state.read_text())["corrections_queued"] == 1


def test_queue_text_is_sanitised_and_ignore_file_is_honoured(tmp_path: Path, project: Path) -> None:
    (project / ".correction-ignore").write_text(
        "# never flag these\ntry again with.*verbose\n[bad\n"
    )
    for text in [
        'Try again, it failed | see "log" <!-- hidden -->\nsecond line',
        "try again with --verbose please",
        "ugh [bad regex still doesn't work",
    ]:
        assert hook(tmp_path, "UserPromptSubmit", prompt_payload(project, text)).returncode == 0
    lines = (project / ".claude" / "memory" / "corrections-queue.md").read_text().splitlines()
    entries = [line for line in lines if line.startswith("- **")]
    assert len(entries) == 1
    assert '"Try again, it failed \\| see \\"log\\" hidden second line"' in entries[0]


def test_save_reminder_every_interval_and_reset_by_sync_mark(tmp_path: Path, project: Path) -> None:
    outputs = []
    for n in range(7):
        proc = hook(tmp_path, "PostToolUse", tool_payload(project, n), CONKEEPER_SAVE_INTERVAL="3")
        assert proc.returncode == 0
        outputs.append(proc.stdout)
    reminders = [i for i, out in enumerate(outputs) if out]
    assert reminders == [2, 5]
    message = json.loads(outputs[2])
    assert message["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert "3 tool uses since the last save" in message["hookSpecificOutput"]["additionalContext"]
    mark = subprocess.run(
        [sys.executable, "-m", "conkeeper", "sync", "mark", "--save", "--json"],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert mark.returncode == 0, mark.stderr
    assert json.loads(mark.stdout)["recorded"] == "save"
    more = [
        hook(tmp_path, "PostToolUse", tool_payload(project, 10 + n), CONKEEPER_SAVE_INTERVAL="3")
        for n in range(3)
    ]
    assert [bool(p.stdout) for p in more] == [False, False, True]


def test_sync_mark_without_any_session_is_a_clear_error(tmp_path: Path, project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "sync", "mark"],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("conkeeper: no ConKeeper session recorded")
    assert "Traceback" not in proc.stderr


def test_no_writes_outside_memory_and_data(tmp_path: Path, project: Path) -> None:
    before = files_under(tmp_path)
    for n in range(3):
        hook(tmp_path, "PostToolUse", tool_payload(project, n))
    hook(tmp_path, "UserPromptSubmit", prompt_payload(project, "that didn't work"))
    new = files_under(tmp_path) - before
    allowed = (tmp_path / "data", project / ".claude" / "memory")
    outside = [p for p in new if not any(p.is_relative_to(a) for a in allowed)]
    assert outside == []
    assert os.listdir(tmp_path / "home") == []


def test_the_log_never_stores_a_secret_a_message_quotes(tmp_path: Path) -> None:
    """The log took every message as given: an unknown event name (or an exception's text, a
    path, a session id) that quoted a token was stored in the clear in ``conkeeper.log``."""
    token = "ghp_" + "Zq8xV3mK9pL2wR7tY4nB6cD1fH5jS0aE8uQ3"
    assert hook(tmp_path, f"Evil-{token}", {}).returncode == 0
    logged = log_text(tmp_path)
    assert "unknown event" in logged and token not in logged
