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


def test_a_python_without_the_mcp_sdk_is_named_in_one_line(project: Path, tmp_path: Path) -> None:
    import subprocess
    import venv

    from conftest import SRC, cli_env

    venv.create(tmp_path / "nomcp", with_pip=False)  # a Python without the 'mcp' package
    python = tmp_path / "nomcp" / "bin" / "python3"  # also the python3 first on PATH
    env = {**cli_env(PATH=f"{python.parent}:/usr/bin:/bin"), "PYTHONPATH": str(SRC)}
    env.pop("CONKEEPER_PYTHON", None)
    proc = subprocess.run(
        [str(python), "-m", "conkeeper", "doctor", "--json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    mcp = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}["mcp server"]
    assert mcp["status"] == "WARN" and "'mcp' package" in mcp["detail"], mcp
    assert "conkeeper[mcp]" in mcp["fix"]
    assert _checks(project)["mcp server"]["status"] == "OK"  # this test's Python has it
