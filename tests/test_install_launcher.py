"""Installs that work (issue 22 item 6), through the real CLI run by real interpreters.

Configs name the stable launcher ``<data home>/bin/conkeeper``, never one virtual environment's
``python``; the launcher keeps working when that environment is replaced; the MCP server is
registered only when the interpreter that will run it can import the ``mcp`` extra.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SRC, cli_env, run_cli


def _venv(path: Path) -> Path:
    """A bare virtual environment: no pip, no mcp; ConKeeper's core runs from ``src``."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


def _install_with(python: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = cli_env()
    env["PYTHONPATH"] = str(SRC)
    return subprocess.run(
        [str(python), "-m", "conkeeper", "install", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _launcher() -> Path:
    return Path(cli_env()["CONKEEPER_HOME"]) / "bin" / "conkeeper"


def _bare_env(**extra: str) -> dict[str, str]:
    """What an agent gives a hook: no PYTHONPATH, no activated environment."""
    env = {k: v for k, v in cli_env().items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = "/usr/bin:/bin"
    env.update(extra)
    return env


def test_configs_name_the_launcher_not_this_interpreter(project: Path) -> None:
    proc = run_cli("install", "--agent", "codex", cwd=project)
    assert proc.returncode == 0, proc.stderr
    hooks = (project / ".codex/hooks.json").read_text()
    config = (project / ".codex/config.toml").read_text()
    command = json.loads(hooks)["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert shlex.split(command) == [str(_launcher()), "hook", "--host", "codex", "SessionStart"]
    assert f"command = {json.dumps(str(_launcher()))}" in config and 'args = ["mcp"]' in config
    assert sys.executable not in hooks and sys.executable not in config
    assert os.access(_launcher(), os.X_OK)


def test_mcp_is_registered_only_when_the_extra_is_there(project: Path, tmp_path: Path) -> None:
    python = _venv(tmp_path / "bare")
    proc = _install_with(python, project, "--agent", "codex")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "MCP" in line]
    assert len(lines) == 1 and "pip install 'conkeeper[mcp]'" in lines[0]
    assert "not registered" in lines[0]
    assert (project / ".codex/hooks.json").is_file()  # the rest is installed
    assert not (project / ".codex/config.toml").exists()
    gemini = _install_with(python, project, "--agent", "gemini", "--json")
    report = json.loads(gemini.stdout)
    assert report["mcp_registered"] is False
    settings = json.loads((project / ".gemini/settings.json").read_text())
    assert "hooks" in settings and "mcpServers" not in settings
    # this interpreter has the extra: registering now adds the server and nothing else
    again = run_cli("install", "--agent", "codex", cwd=project)
    assert again.returncode == 0 and "MCP" not in again.stderr
    assert "[mcp_servers.conkeeper]" in (project / ".codex/config.toml").read_text()


def _run_hook(project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = json.loads((project / ".codex/hooks.json").read_text())["hooks"]["SessionStart"][0][
        "hooks"
    ][0]["command"]
    payload = {
        "session_id": "s-venv",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
        "transcript_path": str(project / "t.jsonl"),
    }
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_launcher_survives_a_change_of_virtual_environment(
    project: Path, tmp_path: Path
) -> None:
    first, second = _venv(tmp_path / "venv-a"), _venv(tmp_path / "venv-b")
    assert _install_with(first, project, "--agent", "codex").returncode == 0
    installed = (project / ".codex/hooks.json").read_bytes()
    moved = _install_with(second, project, "--agent", "codex")
    assert moved.returncode == 0 and "nothing to change" in moved.stdout
    assert (project / ".codex/hooks.json").read_bytes() == installed
    shutil.rmtree(tmp_path / "venv-a")  # the environment that first installed is gone
    doctor = subprocess.run(
        [str(_launcher()), "doctor", "--json"],
        cwd=project,
        env=_bare_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert str(tmp_path / "venv-b") in checks["python"]["detail"]
    hook = _run_hook(project, _bare_env())
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr
    report = json.loads(run_cli("doctor", "--json", cwd=project).stdout)
    agent = {c["name"]: c for c in report["checks"]}["agent codex"]
    assert "last session" in agent["detail"]  # the hook really ran and recorded the session


def test_the_launcher_falls_back_to_conkeeper_on_path(project: Path, tmp_path: Path) -> None:
    python = _venv(tmp_path / "venv")
    assert _install_with(python, project, "--agent", "codex").returncode == 0
    shutil.rmtree(tmp_path / "venv")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "conkeeper").write_text('#!/bin/sh\necho "conkeeper on PATH: $*"\n')
    (tools / "conkeeper").chmod(0o755)
    found = subprocess.run(
        [str(_launcher()), "--version"],
        env=_bare_env(PATH=f"{tools}:/usr/bin:/bin"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert found.stdout.strip() == "conkeeper on PATH: --version"
    nothing = _run_hook(project, _bare_env())
    assert nothing.returncode == 0 and nothing.stdout == ""  # a hook fails open
    assert nothing.stderr.count("\n") == 1 and "conkeeper install --agent" in nothing.stderr
    other = subprocess.run(
        [str(_launcher()), "--version"],
        env=_bare_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert other.returncode == 1


@pytest.mark.parametrize("agent", ["gemini", "cursor", "claude-code"])
def test_every_agent_gets_the_launcher(project: Path, agent: str) -> None:
    proc = run_cli("install", "--agent", agent, "--scope", "project", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    changes = [c for c in json.loads(proc.stdout)["changes"] if c["what"] != "instructions"]
    assert changes
    for change in changes:
        text = Path(change["path"]).read_text()
        assert str(_launcher()) in text and sys.executable not in text


def test_doctor_knows_hooks_whose_launcher_path_holds_a_space(tmp_path: Path) -> None:
    """A data home under a folder with a space (``/Users/Jane Doe``) makes the hook command
    ``'/Users/Jane Doe/.../bin/conkeeper' hook ...``: the closing quote stood between
    ``conkeeper`` and ``hook``, and doctor said no ConKeeper hooks were installed (Claude Code)
    and Codex had none, right after ``install`` wrote them."""
    base = tmp_path / "Jane Doe"
    project = base / "proj"
    (project / ".git").mkdir(parents=True)
    (base / "home").mkdir()
    env = cli_env(HOME=str(base / "home"), CONKEEPER_HOME=str(base / "conkeeper data"))
    for args in (["--scope", "project"], ["--agent", "codex"]):
        done = run_cli("install", *args, cwd=project, env=env)
        assert done.returncode == 0, done.stderr
    command = json.loads((project / ".codex/hooks.json").read_text())["hooks"]["SessionStart"][0][
        "hooks"
    ][0]["command"]
    assert command.startswith("'") and "conkeeper data" in command  # quoted for the shell
    report = json.loads(run_cli("doctor", "--json", cwd=project, env=env).stdout)
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["hooks"]["status"] == "OK", checks["hooks"]
    assert checks["agent codex"]["detail"].startswith("Codex CLI (project: hooks, mcp)")
