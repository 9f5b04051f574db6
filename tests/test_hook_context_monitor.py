"""Context monitor, Stop suggestion, PreCompact handoff and SessionEnd, through real entry points
where the host would call them."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import cli_env, run_cli
from conkeeper.hooks import on_prompt
from conkeeper.hooks.payload import parse_payload
from conkeeper.hooks.runner import build_context
from conkeeper.services.capture import handoff, monitor
from conkeeper.storage.store import open_store

MODEL = "claude-sonnet-4-5-20250929"


def assistant(tokens: int, *, model: str = MODEL, sidechain: bool = False) -> dict[str, Any]:
    return {
        "type": "assistant",
        "isSidechain": sidechain,
        "uuid": "u",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "ok"}],
            "usage": {
                "input_tokens": 10,
                "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": tokens - 1010,
                "output_tokens": 200,
            },
        },
    }


def user(text: str) -> dict[str, Any]:
    return {"type": "user", "isSidechain": False, "message": {"role": "user", "content": text}}


def write_transcript(path: Path, entries: list[dict[str, Any]], filler_bytes: int = 0) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        if filler_bytes:
            line = json.dumps(user("x" * 4000)) + "\n"
            for _ in range(filler_bytes // len(line)):
                handle.write(line)
        for entry in entries:
            handle.write(json.dumps(entry) + "\n")
    return path


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".claude" / "memory").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".claude" / "memory" / "active-context.md").write_text(
        "# Active Context\n\n## Next Steps\n- finish the monitor\n", encoding="utf-8"
    )
    return root


def payload(root: Path, event: str, session: str = "sess-1", **extra: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(root.parent / f"{session}.jsonl"),
        "cwd": str(root),
        "hook_event_name": event,
        **extra,
    }


def hook(event: str, body: dict[str, Any], **env: str) -> tuple[int, str, str]:
    result = run_cli("hook", event, stdin=json.dumps(body), env=cli_env(**env))
    return result.returncode, result.stdout, result.stderr


# --------------------------------------------------------------------------- transcript tail


def test_last_usage_reads_the_tail_of_a_large_transcript(tmp_path: Path) -> None:
    path = write_transcript(
        tmp_path / "t.jsonl",
        [assistant(50_000), user("next"), assistant(123_456), user("q")],
        filler_bytes=20 * 1024 * 1024,
    )
    start = time.perf_counter()
    usage = monitor.last_usage(path)
    elapsed = time.perf_counter() - start
    assert usage is not None and usage.tokens == 123_456 and usage.model == MODEL
    assert elapsed < 0.5  # only the tail is read


def test_sidechain_and_synthetic_entries_are_skipped(tmp_path: Path) -> None:
    path = write_transcript(
        tmp_path / "t.jsonl",
        [
            assistant(90_000),
            assistant(170_000, sidechain=True),
            assistant(5_000, model="<synthetic>"),
            {"type": "summary", "summary": "x"},
            "not json",  # type: ignore[list-item]
        ],
    )
    usage = monitor.last_usage(path)
    assert usage is not None and usage.tokens == 90_000


def test_window_widens_past_a_huge_last_line(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "t.jsonl", [assistant(70_000), user("y" * 700_000)])
    assert monitor.last_usage(path).tokens == 70_000  # type: ignore[union-attr]
    far = write_transcript(tmp_path / "f.jsonl", [assistant(70_000), user("y" * 3_000_000)])
    assert monitor.last_usage(far) is None  # beyond the 2 MB limit: give up, stay fast


def test_missing_or_empty_transcript(tmp_path: Path) -> None:
    assert monitor.last_usage(tmp_path / "nope.jsonl") is None
    (tmp_path / "empty.jsonl").write_text("")
    assert monitor.last_usage(tmp_path / "empty.jsonl") is None


@pytest.mark.parametrize(
    ("models", "used", "configured", "env", "expected"),
    [
        ([MODEL], 50_000, None, {}, 200_000),
        (["claude-sonnet-4-5[1m]"], 50_000, None, {}, 1_000_000),
        (["", "sonnet[1m]"], 50_000, None, {}, 1_000_000),
        ([MODEL], 250_000, None, {}, 1_000_000),
        ([MODEL], 50_000, 1_000_000, {}, 1_000_000),
        (["sonnet[1m]"], 50_000, None, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "400_000"}, 400_000),
        ([MODEL], 50_000, None, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "2e5"}, 200_000),
        ([MODEL], 50_000, None, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "5000"}, 100_000),
        ([MODEL], 50_000, None, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "junk"}, 200_000),
    ],
)
def test_context_window(
    models: list[str], used: int, configured: int | None, env: dict[str, str], expected: int
) -> None:
    assert monitor.context_window(models, used, configured, env) == expected


# --------------------------------------------------------------------------- flag semantics


def test_nudge_once_block_once_and_rearm_after_sync() -> None:
    state: dict[str, Any] = {}
    assert monitor.decide(state, 50, 60, 80) is None
    assert monitor.decide(state, 65, 60, 80) == "nudge"
    assert monitor.decide(state, 70, 60, 80) is None  # nudge is once
    assert monitor.decide(state, 85, 60, 80) == "block"
    assert monitor.decide(state, 90, 60, 80) is None  # never blocks twice
    state["last_sync_at"] = int(time.time() * 1000) + 1
    assert monitor.decide(state, 30, 60, 80) is None  # compacted: re-armed
    assert monitor.decide(state, 65, 60, 80) == "nudge"
    assert monitor.decide(state, 95, 60, 80) is None  # blocked before; and a sync exists


def test_no_block_when_a_sync_was_recorded() -> None:
    state: dict[str, Any] = {"last_sync_at": 1}
    assert monitor.decide(state, 90, 60, 80) == "nudge"
    assert monitor.decide(state, 95, 60, 80) is None


def _ctx(root: Path, session: str = "sess-1", **extra: Any):
    import os

    body = payload(root, "UserPromptSubmit", session, prompt="go on", **extra)
    return build_context(parse_payload(body), "UserPromptSubmit", dict(os.environ))


def test_check_injects_then_blocks_once(tmp_path: Path) -> None:
    root = project(tmp_path)
    # the user chose the 200k model explicitly: the window is known, so blocking is allowed
    (root / ".claude" / "settings.json").write_text('{"model": "sonnet"}', encoding="utf-8")
    transcript = root.parent / "sess-1.jsonl"
    write_transcript(transcript, [assistant(130_000)])
    first = on_prompt.monitor_result(_ctx(root))
    assert first is not None and "65% full" in (first.additional_context or "")
    assert on_prompt.monitor_result(_ctx(root)) is None
    write_transcript(transcript, [assistant(170_000)])
    blocked = on_prompt.monitor_result(_ctx(root))
    assert blocked is not None and blocked.block_reason and "/memory-sync" in blocked.block_reason
    assert on_prompt.monitor_result(_ctx(root)) is None


def test_check_respects_recorded_sync(tmp_path: Path) -> None:
    from conkeeper.domain.paths import locate_project
    from conkeeper.storage.state import SessionState

    root = project(tmp_path)
    write_transcript(root.parent / "sess-1.jsonl", [assistant(175_000)])
    state = SessionState(locate_project(root).identity, "sess-1")
    state.update(lambda d: d.update(last_sync_at=int(time.time() * 1000)))
    result = on_prompt.monitor_result(_ctx(root))
    assert result is not None and result.block_reason is None and result.additional_context


# --------------------------------------------------------------------------- Stop


def _tool_events(root: Path, session: str, statuses: list[str]) -> None:
    conn = open_store()
    sid = conn.execute("SELECT id FROM sessions WHERE host_session_id = ?", (session,)).fetchone()[
        0
    ]
    for i, status in enumerate(statuses):
        conn.execute(
            "INSERT INTO tool_events(session_id, prompt_number, tool_use_id, tool_name, action, "
            "status, created_at) VALUES (?, 1, ?, 'Bash', 'execute', ?, ?)",
            (sid, f"t{i}", status, 1),
        )
    conn.close()


def test_stop_suggests_reflection_once_with_evidence(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert hook("SessionStart", payload(root, "SessionStart", source="startup"))[0] == 0
    code, out, _ = hook("Stop", payload(root, "Stop", stop_hook_active=False))
    assert code == 0 and out == ""  # no evidence yet
    _tool_events(root, "sess-1", ["success", "failure", "failure"])
    code, out, _ = hook("Stop", payload(root, "Stop", stop_hook_active=True))
    assert out == ""  # the host is already continuing because of a Stop hook
    code, out, _ = hook("Stop", payload(root, "Stop", stop_hook_active=False))
    message = json.loads(out)["systemMessage"]
    assert "/memory-reflect" in message and "2 tool runs failed" in message
    assert "ending" not in message.lower() and "decision" not in json.loads(out)
    assert hook("Stop", payload(root, "Stop", stop_hook_active=False))[1] == ""


def test_stop_counts_a_correction_queued_this_session(tmp_path: Path) -> None:
    root = project(tmp_path)
    hook("SessionStart", payload(root, "SessionStart", source="startup"))
    now = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() + 1))
    (root / ".claude" / "memory" / "corrections-queue.md").write_text(
        "# Corrections Queue\n\n"
        '- **2020-01-01 10:00:00** | correction | "old one" | ref: previous assistant message\n'
        f'- **{now}** | correction | "no, use snake_case" | ref: previous assistant message\n',
        encoding="utf-8",
    )
    out = hook("Stop", payload(root, "Stop"))[1]
    assert "1 correction(s) were queued" in json.loads(out)["systemMessage"]


def test_subagent_stop_says_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    hook("SessionStart", payload(root, "SessionStart", source="startup"))
    _tool_events(root, "sess-1", ["failure"] * 5)
    assert hook("SubagentStop", payload(root, "SubagentStop"))[1] == ""


# --------------------------------------------------------------------------- PreCompact / handoff


def test_precompact_checkpoint_is_injected_exactly_once(tmp_path: Path) -> None:
    root = project(tmp_path)
    hook("SessionStart", payload(root, "SessionStart", source="startup"))
    conn = open_store()
    sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
    conn.execute(
        "INSERT INTO prompts(session_id, prompt_number, text, created_at) "
        "VALUES (?, 1, 'add the context monitor', 1)",
        (sid,),
    )
    conn.close()
    code, out, _ = hook(
        "PreCompact",
        payload(root, "PreCompact", trigger="manual", custom_instructions="keep tests"),
    )
    assert code == 0 and out == ""
    other = hook("SessionStart", payload(root, "SessionStart", "sess-2", source="compact"))[1]
    assert "Checkpoint written" not in other  # another session's compaction does not take it
    first = hook("SessionStart", payload(root, "SessionStart", source="compact"))[1]
    text = json.loads(first)["hookSpecificOutput"]["additionalContext"]
    assert "before compaction (manual)" in text and "add the context monitor" in text
    assert "Compaction instructions: keep tests" in text and "finish the monitor" in text
    second = hook("SessionStart", payload(root, "SessionStart", source="compact"))[1]
    assert "Checkpoint written" not in second


def test_take_pending_claims_once(tmp_path: Path) -> None:
    from conkeeper.domain.paths import locate_project

    location = locate_project(project(tmp_path))
    data = handoff.collect_checkpoint(location, None, "a", None, trigger="auto")
    handoff.write_checkpoint(location, data)
    assert handoff.peek_pending(location) is not None
    assert handoff.take_pending(location, "b")["session"] == "a"  # type: ignore[index]
    assert handoff.take_pending(location, "b") is None
    assert handoff.take_pending(location, "a") is None


def test_handoff_cli_write_and_next_startup(tmp_path: Path) -> None:
    root = project(tmp_path)
    hook("SessionStart", payload(root, "SessionStart", source="startup"))
    result = run_cli("handoff", "write", "--note", "halfway through monitor tests", cwd=root)
    assert result.returncode == 0, result.stderr
    shown = run_cli("handoff", "show", "--json", cwd=root)
    assert json.loads(shown.stdout)["note"] == "halfway through monitor tests"
    out = hook("SessionStart", payload(root, "SessionStart", "sess-9", source="startup"))[1]
    assert (
        "halfway through monitor tests"
        in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    )


# --------------------------------------------------------------------------- SessionEnd


def test_session_end_marks_the_session_and_is_fast(tmp_path: Path) -> None:
    root = project(tmp_path)
    hook("SessionStart", payload(root, "SessionStart", source="startup"))
    start = time.perf_counter()
    code, out, _ = hook("SessionEnd", payload(root, "SessionEnd", reason="prompt_input_exit"))
    assert time.perf_counter() - start < 1.5
    assert code == 0 and out == ""
    conn = sqlite3.connect(Path(cli_env()["CONKEEPER_HOME"]) / "conkeeper.db")
    status, reason = conn.execute("SELECT status, end_reason FROM sessions").fetchone()
    assert (status, reason) == ("completed", "prompt_input_exit")


# --------------------------------------------------------------------------- faults


def test_session_start_with_a_locked_database_still_injects_memory(tmp_path: Path) -> None:
    root = project(tmp_path)
    hook("SessionStart", payload(root, "SessionStart", source="startup"))  # creates the db
    db = Path(cli_env()["CONKEEPER_HOME"]) / "conkeeper.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        start = time.perf_counter()
        code, out, err = hook("SessionStart", payload(root, "SessionStart", "s2", source="clear"))
        elapsed = time.perf_counter() - start
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 0 and err == "" and elapsed < 8
    assert "finish the monitor" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


def test_damaged_checkpoint_and_missing_cwd_fail_open(tmp_path: Path) -> None:
    from conkeeper.domain.paths import locate_project

    root = project(tmp_path)
    folder = handoff.handoff_dir(locate_project(root).identity)
    folder.mkdir(parents=True)
    (folder / "pending-sess-1.json").write_text("{not json")
    code, out, _ = hook("SessionStart", payload(root, "SessionStart", source="compact"))
    assert code == 0 and "conkeeper-memory" in out and "Checkpoint written" not in out
    gone = payload(root, "SessionStart", source="startup")
    gone["cwd"] = str(tmp_path / "does-not-exist")
    for event in ("SessionStart", "PreCompact", "Stop", "SessionEnd"):
        body = dict(gone, hook_event_name=event)
        code, out, err = hook(event, body)
        assert (code, out, err) == (0, "", "")


def test_unwritable_memory_folder_still_checkpoints(tmp_path: Path) -> None:
    root = project(tmp_path)
    memory = root / ".claude" / "memory"
    memory.chmod(0o500)
    try:
        code, out, _ = hook("PreCompact", payload(root, "PreCompact", trigger="auto"))
        assert code == 0 and out == ""
        out = hook("SessionStart", payload(root, "SessionStart", source="compact"))[1]
        assert "Checkpoint written" in out
    finally:
        memory.chmod(0o755)
