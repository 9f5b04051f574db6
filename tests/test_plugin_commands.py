"""Every slash command or CLI command that ConKeeper's hooks and skills tell someone to run
exists in the plugin, and each name has exactly one source (a skill is its own command)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conkeeper.cli.main import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "conkeeper"
SLASH = re.compile(r"(?:^|[\s`(\"'])/([a-z]+(?:-[a-z]+)+)\b")
CLI = re.compile(r"`conkeeper ([a-z][a-z-]*)")


def _strings(paths: list[Path]) -> list[tuple[Path, str]]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.append((path, node.value))
    return found


def _plugin_commands() -> set[str]:
    names = {p.parent.name for p in (ROOT / "skills").glob("*/SKILL.md")}
    names |= {p.stem for p in (ROOT / "commands").glob("*.md")}
    return names


def _hook_side_sources() -> list[Path]:
    """The hooks and every service module whose text can reach a hook's output."""
    return sorted((SRC / "hooks").glob("*.py")) + sorted((SRC / "services").rglob("*.py"))


def test_every_slash_command_in_hook_output_exists() -> None:
    available = _plugin_commands()
    named = {
        (path.relative_to(ROOT).as_posix(), name)
        for path, text in _strings(_hook_side_sources())
        for name in SLASH.findall(text)
    }
    assert ("src/conkeeper/hooks/on_stop.py", "memory-reflect") in named
    missing = sorted((where, name) for where, name in named if name not in available)
    assert missing == []


def test_every_cli_command_named_in_hook_output_exists() -> None:
    named = {name for _p, text in _strings(_hook_side_sources()) for name in CLI.findall(text)}
    assert named, "the hooks name no CLI command: the pattern is stale"
    assert sorted(named - set(COMMANDS)) == []


def test_skills_reference_only_existing_commands_and_skills() -> None:
    available = _plugin_commands()
    for skill in (ROOT / "skills").glob("*/SKILL.md"):
        text = skill.read_text(encoding="utf-8")
        for name in SLASH.findall(text):
            assert name in available, f"{skill.parent.name}: unknown /{name}"
        for name in re.findall(r'bin/conkeeper" ([a-z][a-z-]*)', text):
            assert name in COMMANDS, f"{skill.parent.name}: unknown command {name!r}"


def test_one_source_per_command_name() -> None:
    skills = {p.parent.name for p in (ROOT / "skills").glob("*/SKILL.md")}
    commands = {p.stem for p in (ROOT / "commands").glob("*.md")}
    assert skills & commands == set()
    assert "memory-reflect" in skills and "memory-sync" in skills
