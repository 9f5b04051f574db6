"""Shared fixtures: every test runs with HOME and CONKEEPER_HOME inside its own temp folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Property tests judge what is generated, never how fast: a loaded or slower machine drew one
# input in 1.4 s and failed a test on hypothesis's speed check, not on ConKeeper. Tests that
# name their own health checks add ``too_slow`` themselves.
settings.register_profile("conkeeper", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("conkeeper")

SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HOME, CONKEEPER_HOME and XDG_DATA_HOME at temp folders for in-process code, and
    drop the agent variables the suite may have been started under."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CONKEEPER_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    from conkeeper.services.remember import AGENT_ENV_VARS

    for key in list(os.environ):
        ours = key.startswith("CONKEEPER_") and key != "CONKEEPER_HOME"
        if key.startswith("CLAUDE") or ours or key in AGENT_ENV_VARS:
            monkeypatch.delenv(key, raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with an (empty) memory folder; test files may override it."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "memory").mkdir(parents=True)
    return root


def load_script(relative: str) -> Any:
    """A repository script (``bench/x.py``, ``tools/y.py``: not a package) as a module, so a
    test can call its functions."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for a ``conkeeper`` subprocess: the test's HOME/data plus ``extra``.

    ``isolated_home`` already pointed HOME and CONKEEPER_HOME at the test's folders and removed
    the host's CLAUDE* variables, so this is all a hook subprocess needs.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH", "")]))
    env.update(extra)
    return env


def run_cli(
    *args: str, cwd: Path | None = None, stdin: bytes | str = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m conkeeper ARGS`` and capture text output."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", *args],
        input=data,
        cwd=cwd,
        env=env or cli_env(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", errors="replace"),
        proc.stderr.decode("utf-8", errors="replace"),
    )


def agent_remember(project: Path, text: str) -> dict[str, object]:
    """What ``remember --json`` answers an agent (Claude Code's environment) saving ``text`` as
    a convention: the poisoning probes' one way in through the real CLI."""
    done = run_cli("remember", text, "--category", "convention", "--json", cwd=project,
                   env=cli_env(CLAUDECODE="1"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def submit_prompt(root: Path, text: str, session: str = "s-1") -> subprocess.CompletedProcess[str]:
    """One prompt through a real UserPromptSubmit hook subprocess (Claude Code's payload)."""
    payload = {
        "session_id": session,
        "transcript_path": str(root / "t.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }
    return run_cli("hook", "UserPromptSubmit", stdin=json.dumps(payload))


def session_start_context(
    root: Path, source: str = "startup", session: str = "s-1", **env: str
) -> str:
    """The context a real SessionStart hook subprocess injects for ``root`` (Claude Code's
    payload shape), asserting the hook succeeded."""
    payload = {
        "session_id": session,
        "transcript_path": str(root.parent / f"{session}.jsonl"),
        "cwd": str(root),
        "hook_event_name": "SessionStart",
        "source": source,
    }
    result = run_cli("hook", "SessionStart", stdin=json.dumps(payload), env=cli_env(**env))
    assert result.returncode == 0, result.stderr
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])
