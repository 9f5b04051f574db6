"""``conkeeper mcp`` without the SDK, and the plugin's registration of the server. These run
whether or not the ``mcp`` extra is installed (the client tests are in test_mcp_server.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import cli_env, run_cli

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "bin" / "conkeeper"


def test_missing_sdk_is_one_clear_line(project: Path) -> None:
    # ``python -S`` leaves site-packages (and the SDK) out: what a user without the extra sees.
    proc = subprocess.run(
        [sys.executable, "-S", "-m", "conkeeper", "mcp"],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "pip install" in proc.stderr and "mcp" in proc.stderr


def test_plugin_registers_the_server_with_its_launcher() -> None:
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    server = plugin["mcpServers"]["conkeeper"]
    assert server == {"command": "${CLAUDE_PLUGIN_ROOT}/bin/conkeeper", "args": ["mcp"]}
    assert os.access(LAUNCHER, os.X_OK)
    assert run_cli("mcp", "--help").returncode == 0


def test_bad_options_are_refused_before_starting(tmp_path: Path) -> None:
    missing = run_cli("mcp", "--project", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    assert missing.stderr.count("\n") == 1
    assert run_cli("mcp", "--port", "70000").returncode == 2
