"""The plugin launcher (``bin/conkeeper``) pays for the user's Python shims and for compiling
ConKeeper once, not on every hook call.

Run as the host runs it: ``/bin/sh bin/conkeeper-hook EVENT`` in a subprocess, with a PATH
that holds a fake pyenv-style shim (a shell script that records each call, then execs the real
interpreter). Timing is measured by ``bench/hook_bench.py``; these tests pin down the causes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _shim(folder: Path, log: Path, target: str = sys.executable) -> Path:
    """A ``python3`` shim like pyenv's: does some shell work, then execs the interpreter."""
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "python3"
    shim.write_text(f'#!/bin/sh\necho "$$" >> "{log}"\nexec "{target}" "$@"\n')
    shim.chmod(0o755)
    return shim


def _env(tmp_path: Path, path_dirs: list[Path], **extra: str) -> dict[str, str]:
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    for name in ("cat", "mkdir", "rm"):
        if not (tools / name).exists():
            (tools / name).symlink_to(shutil.which(name) or f"/bin/{name}")
    env = {
        "HOME": str(tmp_path / "home"),
        "CONKEEPER_HOME": str(tmp_path / "data"),
        "PATH": os.pathsep.join(str(p) for p in [*path_dirs, tools]),
    }
    env.update(extra)
    return env


def _hook(env: dict[str, str], project: Path, n: int, root: Path = ROOT) -> dict:
    body = {
        "session_id": "launch-1",
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": f"toolu_launch_{n}",
        "tool_input": {"command": f"echo {n}"},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
    }
    proc = subprocess.run(
        ["/bin/sh", str(root / "bin" / "conkeeper-hook"), "PostToolUse"],
        input=json.dumps(body).encode(),
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stdout + proc.stderr
    return {"stdout": proc.stdout, "stderr": proc.stderr}


def _remembered(tmp_path: Path) -> list[str]:
    return (tmp_path / "data" / "python-path").read_text(encoding="utf-8").splitlines()


def _events(tmp_path: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(tmp_path / "data" / "conkeeper.db")
    try:
        return int(conn.execute("SELECT COUNT(*) FROM tool_events").fetchone()[0])
    finally:
        conn.close()


def test_the_shim_runs_once_then_the_real_interpreter_is_called(
    tmp_path: Path, project: Path
) -> None:
    log = tmp_path / "shim.log"
    shim = _shim(tmp_path / "shims", log)
    env = _env(tmp_path, [shim.parent])
    for n in range(3):
        _hook(env, project, n)
    assert len(log.read_text().splitlines()) == 1  # only the first call paid for the shim
    assert _remembered(tmp_path) == ["", sys.executable]
    assert _events(tmp_path) == 3


def test_a_vanished_interpreter_is_found_again(tmp_path: Path, project: Path) -> None:
    log = tmp_path / "shim.log"
    shim = _shim(tmp_path / "shims", log)
    env = _env(tmp_path, [shim.parent])
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "python-path").write_text("\n" + str(tmp_path / "gone" / "python3.12"))
    _hook(env, project, 1)
    _hook(env, project, 2)
    assert len(log.read_text().splitlines()) == 1
    assert _remembered(tmp_path) == ["", sys.executable]
    assert _events(tmp_path) == 2


def test_a_remembered_interpreter_now_too_old_is_replaced(tmp_path: Path, project: Path) -> None:
    old = tmp_path / "old" / "python3.9"
    old.parent.mkdir()
    old.write_text("#!/bin/sh\nexit 86\n")  # what the version check does on Python 3.9
    old.chmod(0o755)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "python-path").write_text(f"\n{old}\n")
    shim = _shim(tmp_path / "shims", tmp_path / "shim.log")
    _hook(_env(tmp_path, [shim.parent]), project, 1)
    assert _remembered(tmp_path) == ["", sys.executable]
    assert _events(tmp_path) == 1


def test_changing_conkeeper_python_is_obeyed_at_once(tmp_path: Path, project: Path) -> None:
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    first = _shim(tmp_path / "first", first_log)
    second = _shim(tmp_path / "second", second_log)
    env = _env(tmp_path, [first.parent])
    _hook(env, project, 1)
    env["CONKEEPER_PYTHON"] = str(second)
    _hook(env, project, 2)
    _hook(env, project, 3)
    assert len(first_log.read_text().splitlines()) == 1
    assert len(second_log.read_text().splitlines()) == 1
    assert _remembered(tmp_path) == [str(second), sys.executable]


def _plugin_copy(tmp_path: Path) -> Path:
    plugin = tmp_path / "plugin"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "src", plugin / "src", ignore=skip)
    shutil.copytree(ROOT / "bin", plugin / "bin", ignore=skip)
    return plugin


def _pyc_files(folder: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*.pyc")} if folder.exists() else {}


def test_without_bytecode_writing_the_cache_lives_in_the_data_home(
    tmp_path: Path, project: Path
) -> None:
    plugin = _plugin_copy(tmp_path)
    shim = _shim(tmp_path / "shims", tmp_path / "shim.log")
    env = _env(tmp_path, [shim.parent], PYTHONDONTWRITEBYTECODE="1")
    _hook(env, project, 1, plugin)
    cache = tmp_path / "data" / "pycache"
    first = _pyc_files(cache)
    assert any(p.name.startswith("on_tool.") for p in first)  # ConKeeper's own modules
    assert _pyc_files(plugin / "src") == {}  # the plugin folder is never written
    # The interpreter's own start-up modules are cached there too, not compiled on every call.
    assert any(p.name.startswith("utf_8.") and p.parent.name == "encodings" for p in first)
    _hook(env, project, 2, plugin)
    assert _pyc_files(cache) == first  # the second call compiled nothing: it ran from bytecode


def test_the_users_no_bytecode_setting_reaches_the_processes_conkeeper_starts(
    tmp_path: Path, project: Path
) -> None:
    """The launcher empties PYTHONDONTWRITEBYTECODE for the interpreter it starts (so start-up
    modules are cached), then puts the user's value back before ConKeeper's code runs."""
    plugin = _plugin_copy(tmp_path)
    probe = (
        "import os\n\n"
        "def main(argv):\n"
        "    print(os.environ.get('PYTHONDONTWRITEBYTECODE'))\n"
        "    print('CONKEEPER_SAVED_NO_BYTECODE' in os.environ)\n"
        "    return 0\n"
    )
    (plugin / "src" / "conkeeper" / "cli" / "main.py").write_text(probe)
    shim = _shim(tmp_path / "shims", tmp_path / "shim.log")
    env = _env(tmp_path, [shim.parent], PYTHONDONTWRITEBYTECODE="yes")
    proc = subprocess.run(
        ["/bin/sh", str(plugin / "bin" / "conkeeper"), "search", "x"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["yes", "False"]


def test_with_bytecode_allowed_no_separate_cache_is_used(tmp_path: Path, project: Path) -> None:
    plugin = _plugin_copy(tmp_path)
    shim = _shim(tmp_path / "shims", tmp_path / "shim.log")
    _hook(_env(tmp_path, [shim.parent]), project, 1, plugin)
    assert not (tmp_path / "data" / "pycache").exists()
    assert any(p.name.startswith("on_tool.") for p in _pyc_files(plugin / "src"))


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can write a read-only folder"
)
def test_a_read_only_plugin_folder_keeps_bytecode_in_the_data_home(
    tmp_path: Path, project: Path
) -> None:
    plugin = _plugin_copy(tmp_path)
    folders = [p for p in (plugin / "src").rglob("*") if p.is_dir()] + [plugin / "src"]
    for folder in folders:
        folder.chmod(0o555)
    try:
        shim = _shim(tmp_path / "shims", tmp_path / "shim.log")
        _hook(_env(tmp_path, [shim.parent]), project, 1, plugin)
        assert any(p.name.startswith("on_tool.") for p in _pyc_files(tmp_path / "data/pycache"))
    finally:
        for folder in folders:
            folder.chmod(0o755)
