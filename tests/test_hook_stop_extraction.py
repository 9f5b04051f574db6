"""Stop starts per-turn LLM extraction detached, and only when an LLM extractor is chosen."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import cli_env, run_cli


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".claude" / "memory").mkdir(parents=True)
    (root / ".git").mkdir()
    return root


def _stop(root: Path, **env: str) -> str:
    body = {
        "session_id": "sess-stop",
        "transcript_path": str(root.parent / "t.jsonl"),
        "cwd": str(root),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "Done.",
    }
    proc = run_cli("hook", "Stop", stdin=json.dumps(body), env=cli_env(**env))
    assert proc.returncode == 0 and proc.stdout == ""
    log = Path(cli_env()["CONKEEPER_HOME"]) / "logs" / "conkeeper.log"
    return log.read_text(encoding="utf-8") if log.exists() else ""


def test_llm_extractor_is_started_detached_per_turn(tmp_path: Path) -> None:
    log = _stop(
        _project(tmp_path),
        CONKEEPER_EXTRACTOR="openai",
        CONKEEPER_LLM_BASE_URL="http://127.0.0.1:9/v1",
    )
    assert "started 'conkeeper extract --session sess-stop --no-summary --quiet' detached" in log


def test_local_extractor_waits_for_session_end(tmp_path: Path) -> None:
    assert "conkeeper extract" not in _stop(_project(tmp_path))
