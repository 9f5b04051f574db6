"""The Claude Code plugin as a user installs it: manifests, hooks.json, skills, commands and the
Python-finding launchers."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conkeeper.domain.frontmatter import parse_front_matter
from conkeeper.services.setup.install import HOOK_SPECS, plugin_hooks_document

ROOT = Path(__file__).resolve().parents[1]
SKILLS = (
    "memory-init",
    "memory-search",
    "memory-sync",
    "memory-config",
    "session-handoff",
    "memory-reflect",
    "memory-insights",
)


def test_manifests_are_valid_and_agree() -> None:
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert plugin["name"] == "conkeeper" and plugin["description"]
    assert market["name"] == "conkeeper" and market["owner"]["name"]
    entry = next(p for p in market["plugins"] if p["name"] == "conkeeper")
    assert entry["source"] == "./"  # the repository root is the plugin root
    from conkeeper import __version__

    assert plugin["version"] == entry["version"] == __version__


def test_hooks_json_is_generated_from_the_one_spec() -> None:
    on_disk = json.loads((ROOT / "hooks" / "hooks.json").read_text())
    assert on_disk == plugin_hooks_document()
    events = set(on_disk["hooks"])
    assert events == {s.event for s in HOOK_SPECS}
    assert {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"} <= events
    assert {"PreCompact", "Stop", "SessionEnd"} <= events
    for groups in on_disk["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                assert hook["type"] == "command"
                assert hook["command"].startswith('"${CLAUDE_PLUGIN_ROOT}/bin/conkeeper-hook" ')
                assert 0 < hook["timeout"] <= 10


@pytest.mark.parametrize("name", SKILLS)
def test_skill_front_matter_and_body(name: str) -> None:
    text = (ROOT / "skills" / name / "SKILL.md").read_text(encoding="utf-8")
    front = parse_front_matter(text)
    assert front.present and front.closed
    assert front.values["name"] == name
    assert len(front.values["description"]) > 40
    assert '"${CLAUDE_PLUGIN_ROOT}/bin/conkeeper"' in text
    assert "private" in text.lower()
    # one source per name: a skill is also its slash command, so no commands/<name>.md
    assert not (ROOT / "commands" / f"{name}.md").exists()


def test_skill_commands_exist_in_the_cli() -> None:
    from conkeeper.cli.main import COMMANDS

    for name in SKILLS:
        text = (ROOT / "skills" / name / "SKILL.md").read_text(encoding="utf-8")
        for line in text.splitlines():
            marker = '"${CLAUDE_PLUGIN_ROOT}/bin/conkeeper" '
            if marker in line:
                command = re.match(r"[a-z-]+", line.split(marker, 1)[1]).group(0)  # type: ignore[union-attr]
                assert command in COMMANDS, f"{name}: unknown command {command!r}"


def _launcher_env(tmp_path: Path, path_dirs: list[Path]) -> dict[str, str]:
    env = {
        "HOME": str(tmp_path / "home"),
        "CONKEEPER_HOME": str(tmp_path / "data"),
        "PATH": os.pathsep.join(str(p) for p in path_dirs),
    }
    return env


def _tool_dir(tmp_path: Path) -> Path:
    """A PATH folder with the few tools the launcher needs but no Python."""
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    for name in ("cat", "mkdir", "rm"):
        found = shutil.which(name)
        assert found
        (tools / name).symlink_to(found)
    return tools


def test_launcher_runs_a_hook_with_the_users_python(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".claude" / "memory").mkdir(parents=True)
    py_dir = tmp_path / "py"
    py_dir.mkdir()
    (py_dir / "python3").symlink_to(sys.executable)
    env = _launcher_env(tmp_path, [py_dir, _tool_dir(tmp_path)])
    env["CLAUDE_PLUGIN_ROOT"] = str(ROOT)
    body = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}
    proc = subprocess.run(
        ["/bin/sh", str(ROOT / "bin" / "conkeeper-hook"), "SessionStart"],
        input=json.dumps(body).encode(),
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "conkeeper-memory" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_launcher_without_a_suitable_python_says_so_once(tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    fake = old / "python3"  # behaves like Python 3.8 running the version check: exit 86
    fake.write_text("#!/bin/sh\nexit 86\n")
    fake.chmod(0o755)
    env = _launcher_env(tmp_path, [old, _tool_dir(tmp_path)])
    outputs = []
    for _ in range(2):
        proc = subprocess.run(
            ["/bin/sh", str(ROOT / "bin" / "conkeeper-hook"), "PostToolUse"],
            input=b'{"session_id": "s"}',
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0
        outputs.append(proc.stdout.decode())
    assert "Python 3.10 or newer" in json.loads(outputs[0])["systemMessage"]
    assert outputs[1] == ""  # once
    cli = subprocess.run(
        ["/bin/sh", str(ROOT / "bin" / "conkeeper"), "doctor"],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert cli.returncode == 1 and b"Python 3.10 or newer" in cli.stderr


def test_launcher_honours_conkeeper_python(tmp_path: Path) -> None:
    env = _launcher_env(tmp_path, [_tool_dir(tmp_path)])
    env["CONKEEPER_PYTHON"] = sys.executable
    proc = subprocess.run(
        ["/bin/sh", str(ROOT / "bin" / "conkeeper"), "--version"],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.startswith(b"conkeeper ")


def test_launchers_are_executable_posix_sh() -> None:
    for name in ("conkeeper", "conkeeper-hook"):
        path = ROOT / "bin" / name
        assert os.access(path, os.X_OK)
        assert path.read_text().startswith("#!/bin/sh\n")
        assert subprocess.run(["/bin/sh", "-n", str(path)], check=False).returncode == 0
