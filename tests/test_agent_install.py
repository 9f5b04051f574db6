"""``conkeeper install --agent NAME`` for every non-Claude agent, through the real CLI.

A scratch project full of the user's own configuration: install adds ConKeeper's entries and
keeps the user's, a second install changes nothing, ``--dry-run`` writes nothing, and uninstall
leaves every file byte-identical to what the user had (created files and folders removed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import cli_env, run_cli

AGENTS = ("codex", "gemini", "cursor", "copilot", "windsurf", "cline", "zed")

# The user's own files, in formats each agent documents (odd spacing on purpose: uninstall
# must give back these exact bytes, not a reformatted copy).
USER_FILES = {
    ".codex/hooks.json": '{"hooks": {"Stop": [{"hooks": [{"type": "command",'
    ' "command": "notify-send done"}]}]}}\n',
    ".codex/config.toml": 'model = "o4-mini"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n',
    ".gemini/settings.json": '{\n    "theme": "GitHub",\n    "mcpServers": {"docs": {"command":'
    ' "docs-mcp"}},\n    "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks":'
    ' [{"type": "command", "command": "./lint.sh"}]}]}\n}\n',
    ".cursor/hooks.json": '{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]}}',
    ".cursor/mcp.json": '{"mcpServers": {"docs": {"command": "docs-mcp"}}}',
    ".github/copilot-instructions.md": "# House rules\n\nUse tabs.",
    ".vscode/mcp.json": '{"servers": {"docs": {"type": "stdio", "command": "docs-mcp"}}}\n',
    ".windsurf/hooks.json": '{"hooks": {"pre_run_command": [{"command": "./guard.sh"}]}}\n',
    ".clinerules/hooks/PreToolUse": "#!/bin/sh\necho '{\"cancel\": false}'\n",
    ".zed/settings.json": '{"tab_size": 4, "context_servers": {"docs": {"command": "docs-mcp",'
    ' "args": []}}}\n',
    "AGENTS.md": "# Agents\n\nRun make test before committing.\n",
}


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def _dirs(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir()}


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    root = tmp_path / "scratch"
    (root / ".git").mkdir(parents=True)
    for rel, text in USER_FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    os.chmod(root / ".clinerules/hooks/PreToolUse", 0o755)
    return root


def _install(root: Path, agent: str, *extra: str) -> dict:
    proc = run_cli("install", "--agent", agent, "--json", *extra, cwd=root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("agent", AGENTS)
def test_install_reinstall_uninstall_leaves_user_files_byte_identical(
    scratch: Path, agent: str
) -> None:
    before, dirs = _snapshot(scratch), _dirs(scratch)
    first = _install(scratch, agent)
    assert first["changed"] and first["agent"] == agent
    installed = _snapshot(scratch)
    for rel, data in before.items():  # the user's entries are all still there
        if rel.endswith(".json") and rel in installed:
            mine, now = json.loads(data), json.loads(installed[rel])
            for key, value in mine.items():
                if isinstance(value, dict):
                    for name, entry in value.items():
                        assert now[key][name] == entry or (
                            isinstance(entry, list) and all(e in now[key][name] for e in entry)
                        )
                else:
                    assert now[key] == value
        elif rel.endswith(".md") or rel.endswith(".toml"):
            assert installed[rel].startswith(data.rstrip(b"\n"))
        else:
            assert installed[rel] == data
    second = _install(scratch, agent)
    assert not second["changed"] and _snapshot(scratch) == installed
    removed = _install(scratch, agent, "--uninstall")
    assert removed["changed"]
    assert _snapshot(scratch) == before
    assert _dirs(scratch) == dirs
    again = _install(scratch, agent, "--uninstall")
    assert not again["changed"]


@pytest.mark.parametrize("agent", AGENTS)
def test_install_into_an_empty_project_and_back(project: Path, agent: str) -> None:
    before, dirs = _snapshot(project), _dirs(project)
    _install(project, agent)
    assert _snapshot(project) != before
    _install(project, agent, "--uninstall")
    assert _snapshot(project) == before and _dirs(project) == dirs


def test_dry_run_shows_the_diff_and_writes_nothing(scratch: Path) -> None:
    before = _snapshot(scratch)
    proc = run_cli("install", "--agent", "gemini", "--dry-run", cwd=scratch)
    assert proc.returncode == 0, proc.stderr
    assert "would update" in proc.stdout and "+++ " in proc.stdout
    assert '"BeforeAgent"' in proc.stdout and "dry run: nothing written" in proc.stdout
    assert _snapshot(scratch) == before


def test_what_each_agent_gets(scratch: Path) -> None:
    for agent in AGENTS:
        _install(scratch, agent)
    gemini = json.loads((scratch / ".gemini/settings.json").read_text())
    launcher = str(Path(cli_env()["CONKEEPER_HOME"]) / "bin" / "conkeeper")
    assert gemini["mcpServers"]["conkeeper"] == {"command": launcher, "args": ["mcp"]}
    start = gemini["hooks"]["SessionStart"][0]["hooks"][0]
    assert start["command"].endswith("hook --host gemini SessionStart")
    assert start["timeout"] == 10000  # Gemini counts milliseconds
    assert gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"] == "./lint.sh"
    codex = json.loads((scratch / ".codex/hooks.json").read_text())
    assert codex["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] == 10  # seconds
    assert len(codex["hooks"]["Stop"]) == 2
    toml = (scratch / ".codex/config.toml").read_text()
    assert "[mcp_servers.conkeeper]" in toml and "[mcp_servers.docs]" in toml
    tomllib = pytest.importorskip("tomllib")
    assert tomllib.loads(toml)["mcp_servers"]["conkeeper"]["args"][-1] == "mcp"
    cursor = json.loads((scratch / ".cursor/hooks.json").read_text())
    assert cursor["version"] == 1 and cursor["hooks"]["afterFileEdit"] == [{"command": "./fmt.sh"}]
    assert "alwaysApply: true" in (scratch / ".cursor/rules/conkeeper.mdc").read_text()
    copilot = json.loads((scratch / ".github/hooks/conkeeper.json").read_text())
    assert copilot["hooks"]["postToolUse"][0]["timeoutSec"] == 10
    assert "hook --host copilot postToolUse" in copilot["hooks"]["postToolUse"][0]["bash"]
    instructions = (scratch / ".github/copilot-instructions.md").read_text()
    assert instructions.startswith("# House rules\n\nUse tabs.\n\n<!-- conkeeper:start")
    assert "trigger: always_on" in (scratch / ".windsurf/rules/conkeeper.md").read_text()
    script = scratch / ".clinerules/hooks/TaskStart"
    assert os.access(script, os.X_OK) and "--host cline TaskStart" in script.read_text()
    zed = json.loads((scratch / ".zed/settings.json").read_text())
    assert set(zed["context_servers"]) == {"docs", "conkeeper"} and zed["tab_size"] == 4
    # Zed reads the project's first rules file: with no .rules, that is the Copilot file here,
    # which already carries the snippet once (Zed's install changed nothing there).
    assert instructions.count("conkeeper:start") == 1


def test_user_entries_named_conkeeper_and_broken_files_are_left_alone(scratch: Path) -> None:
    mcp = scratch / ".cursor/mcp.json"
    mcp.write_text('{"mcpServers": {"conkeeper": {"command": "my-own-conkeeper"}}}')
    proc = run_cli("install", "--agent", "cursor", cwd=scratch)
    assert proc.returncode == 0 and "your own entry; left alone" in proc.stderr
    assert json.loads(mcp.read_text())["mcpServers"]["conkeeper"]["command"] == "my-own-conkeeper"
    settings = scratch / ".gemini/settings.json"
    settings.write_text('{\n  "theme": "x",,\n}\n')
    before = _snapshot(scratch)
    proc = run_cli("install", "--agent", "gemini", cwd=scratch)
    assert proc.returncode != 0 and "is not valid JSON" in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert _snapshot(scratch) == before


def test_user_scope_writes_into_home(scratch: Path, tmp_path: Path) -> None:
    home = Path(cli_env()["HOME"])
    proc = run_cli("install", "--agent", "windsurf", "--scope", "user", cwd=scratch)
    assert proc.returncode == 0, proc.stderr
    assert (home / ".codeium/windsurf/hooks.json").is_file()
    config = json.loads((home / ".codeium/windsurf/mcp_config.json").read_text())
    assert "conkeeper" in config["mcpServers"]
    run_cli("install", "--agent", "windsurf", "--scope", "user", "--uninstall", cwd=scratch)
    assert not (home / ".codeium").exists()


def test_unknown_agent_is_one_clear_line(scratch: Path) -> None:
    proc = run_cli("install", "--agent", "vim", cwd=scratch)
    assert proc.returncode != 0 and "unknown agent 'vim'" in proc.stderr
    assert "Traceback" not in proc.stderr
