"""``conkeeper doctor`` with hooks registered where no settings file says so (a plugin loaded
with ``claude --plugin-dir``), and with other agents installed."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli


def _checks(project: Path) -> dict[str, dict]:
    proc = run_cli("doctor", "--json", cwd=project)
    return {c["name"]: c for c in json.loads(proc.stdout)["checks"]} | {"_code": proc.returncode}


def _session_start(project: Path, host: str | None = None) -> None:
    payload = {
        "session_id": "s-1",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
        "transcript_path": str(project / "t.jsonl"),
    }
    args = ["hook", "--host", host, "SessionStart"] if host else ["hook", "SessionStart"]
    assert run_cli(*args, cwd=project, stdin=json.dumps(payload)).returncode == 0


def test_nothing_installed_is_a_failure(project: Path) -> None:
    checks = _checks(project)
    assert checks["hooks"]["status"] == "FAIL" and checks["_code"] == 1


def test_hooks_that_fire_without_settings_count_as_installed(project: Path) -> None:
    _session_start(project)  # what the plugin's hook does under 'claude --plugin-dir'
    checks = _checks(project)
    assert checks["hooks"]["status"] == "OK" and "--plugin-dir" in checks["hooks"]["detail"]


def test_other_agents_are_listed_with_their_last_session(project: Path) -> None:
    assert run_cli("install", "--agent", "gemini", cwd=project).returncode == 0
    assert run_cli("install", "--agent", "zed", cwd=project).returncode == 0
    checks = _checks(project)
    assert checks["hooks"]["status"] == "WARN"  # no Claude Code hooks, but other agents
    assert "no session recorded yet" in checks["agent gemini"]["detail"]
    assert "mcp" in checks["agent zed"]["detail"]
    _session_start(project, "gemini")
    assert "last session" in _checks(project)["agent gemini"]["detail"]
