"""Uninstall removes exactly what install added (issue 19 item 4), through the real CLI.

A matrix of realistic existing files for every agent (no file, the user's file, CRLF line
endings, Latin-1 bytes, user content added after install) must come back byte for byte; an
unpaired marker is refused with nothing changed; a symlinked config is never replaced by a copy;
Claude Code goes through the same path (no ``{}`` and no ``.bak`` left behind).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.test_agent_install import USER_FILES as AGENT_FILES
from tests.test_agent_install import _dirs, _snapshot

from conftest import cli_env, run_cli

AGENTS = ("claude-code", "codex", "gemini", "cursor", "copilot", "windsurf", "cline", "zed")

# The user's own files, as they might really look (odd spacing on purpose): every other agent's
# as in test_agent_install, plus Claude Code's settings.
USER_FILES = {
    ".claude/settings.json": '{\n  "permissions": {\n    "allow": ["Bash(ls:*)"]\n  },\n'
    '  "hooks": {\n    "Notification": [\n      {"hooks": [{"type": "command", "command":'
    ' "notify-send hi"}]}\n    ]\n  }\n}\n',
    **AGENT_FILES,
}


LATIN1 = {
    "tabs": "tabulations à l'école",
    "GitHub": "Thème é",
    "docs-mcp": "docs-mcp-café",
    "notify-send": "notifié",
    "make test": "make test (déjà)",
}


def _encode(text: str, variant: str) -> bytes:
    if variant == "crlf":
        return text.replace("\n", "\r\n").encode("utf-8")
    if variant == "latin1":  # accents as single Latin-1 bytes (invalid UTF-8)
        for word, accented in LATIN1.items():
            text = text.replace(word, accented)
        return text.encode("latin-1")
    return text.encode("utf-8")


def _make(root: Path, variant: str) -> Path:
    (root / ".git").mkdir(parents=True)
    if variant == "none":
        return root
    for rel, text in USER_FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_encode(text, variant))
    os.chmod(root / ".clinerules/hooks/PreToolUse", 0o755)
    return root


def _cli(root: Path, agent: str, *extra: str) -> dict:
    scope = ("--scope", "project") if agent == "claude-code" else ()
    proc = run_cli("install", "--agent", agent, *scope, "--json", *extra, cwd=root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("variant", ["none", "plain", "crlf", "latin1"])
@pytest.mark.parametrize("agent", AGENTS)
def test_round_trip_is_byte_exact(tmp_path: Path, agent: str, variant: str) -> None:
    root = _make(tmp_path / "p", variant)
    before, dirs = _snapshot(root), _dirs(root)
    assert _cli(root, agent)["changed"]
    installed = _snapshot(root)
    for rel, data in before.items():
        if rel in installed and variant == "latin1" and b"\xe9" in data:
            assert b"\xe9" in installed[rel] and "\ufffd".encode() not in installed[rel]
        if variant == "crlf" and rel in installed and installed[rel] != data:
            assert b"\n" not in installed[rel].replace(b"\r\n", b"")  # no bare LF inserted
    assert not _cli(root, agent)["changed"] and _snapshot(root) == installed
    assert _cli(root, agent, "--uninstall")["changed"]
    assert _snapshot(root) == before
    assert _dirs(root) == dirs


# Files each agent edits in place (not created whole), with a line of the user's to add after
# install: uninstall must keep that line and remove only ConKeeper's bytes.
USER_LATER = {
    "claude-code": (".claude/settings.json", b'  "model": "opus",\n', 1),
    "codex": (".codex/config.toml", b'\n[profiles.mine]\nmodel = "o3"\n', -1),
    "gemini": (".gemini/settings.json", b'    "vimMode": true,\n', 1),
    "copilot": (".github/copilot-instructions.md", b"\nAlways run the linter.\n", -1),
    "zed": ("AGENTS.md", b"\nNever push on Fridays.\n", -1),
}


def _add_line(data: bytes, line: bytes, where: int) -> bytes:
    if where == -1:
        return data + line
    lines = data.splitlines(keepends=True)
    return b"".join([*lines[:where], line, *lines[where:]])


@pytest.mark.parametrize("agent", sorted(USER_LATER))
def test_uninstall_keeps_what_the_user_changed_since(tmp_path: Path, agent: str) -> None:
    root = _make(tmp_path / "p", "plain")
    rel, line, where = USER_LATER[agent]
    if agent == "zed":
        (root / ".github/copilot-instructions.md").unlink()  # Zed would pick that one first
    original = (root / rel).read_bytes()
    _cli(root, agent)
    path = root / rel
    path.write_bytes(_add_line(path.read_bytes(), line, where))
    _cli(root, agent, "--uninstall")
    assert path.read_bytes() == _add_line(original, line, where)


def test_user_hook_added_inside_conkeepers_event_survives(tmp_path: Path) -> None:
    root = _make(tmp_path / "p", "plain")
    path = root / ".gemini/settings.json"
    _cli(root, "gemini")
    data = json.loads(path.read_text())
    assert "SessionStart" not in json.loads(USER_FILES[".gemini/settings.json"])["hooks"]
    text = path.read_text()
    mine = '{"hooks": [{"type": "command", "command": "./hello.sh"}]}, '
    text = text.replace('"SessionStart": [', '"SessionStart": [' + mine, 1)
    path.write_text(text)
    assert json.loads(text)["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "./hello.sh"
    _cli(root, "gemini", "--uninstall")
    after = json.loads(path.read_text())
    assert after["hooks"]["SessionStart"] == [
        {"hooks": [{"type": "command", "command": "./hello.sh"}]}
    ]
    assert "conkeeper" not in path.read_text()
    assert after["theme"] == "GitHub" and after["mcpServers"] == {"docs": {"command": "docs-mcp"}}
    assert path.read_text().startswith('{\n    "theme": "GitHub",\n    "mcpServers": {"docs":')
    assert data["hooks"]["BeforeTool"][0]["hooks"][0]["command"] == "./lint.sh"


def test_gemini_settings_come_back_without_empty_keys(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".gemini").mkdir(parents=True)
    (root / ".git").mkdir()
    original = b'{\n\t"theme": "Dracula",\n\t"general": {"vimMode": true}\n}\n'
    (root / ".gemini/settings.json").write_bytes(original)
    _cli(root, "gemini")
    installed = (root / ".gemini/settings.json").read_bytes()
    assert b'\n\t"hooks": {\n\t\t"SessionStart"' in installed  # the file's own tab indent
    # a change elsewhere forces the span path rather than the recorded bytes
    changed = installed.replace(b'"Dracula"', b'"Nord"')
    (root / ".gemini/settings.json").write_bytes(changed)
    _cli(root, "gemini", "--uninstall")
    assert (root / ".gemini/settings.json").read_bytes() == original.replace(
        b'"Dracula"', b'"Nord"'
    )


@pytest.mark.parametrize(
    ("agent", "rel", "marker"),
    [
        (
            "codex",
            ".codex/config.toml",
            "# >>> conkeeper (managed by 'conkeeper install --agent codex') >>>",
        ),
        (
            "copilot",
            ".github/copilot-instructions.md",
            "<!-- conkeeper:start (managed by 'conkeeper install'; edits here are replaced) -->",
        ),
    ],
)
def test_a_lone_start_marker_is_refused_and_nothing_changes(
    tmp_path: Path, agent: str, rel: str, marker: str
) -> None:
    root = _make(tmp_path / "p", "plain")
    path = root / rel
    path.write_text(f'model = "o4"\n\n{marker}\n[profiles.mine]\nmodel = "o3"\n')
    before = _snapshot(root)
    for extra in ((), ("--uninstall",)):
        scope = ()
        proc = run_cli("install", "--agent", agent, *scope, *extra, cwd=root)
        assert proc.returncode == 1 and "has no end marker" in proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert _snapshot(root) == before


@pytest.mark.parametrize(
    ("agent", "rel", "end"),
    [
        ("codex", ".codex/config.toml", b"# <<< conkeeper <<<\n"),
        ("copilot", ".github/copilot-instructions.md", b"<!-- conkeeper:end -->\n"),
    ],
)
def test_end_marker_deleted_by_hand_then_uninstall_refuses(
    tmp_path: Path, agent: str, rel: str, end: bytes
) -> None:
    root = _make(tmp_path / "p", "plain")
    _cli(root, agent)
    path = root / rel
    path.write_bytes(path.read_bytes().replace(end, b"") + b"\n[profiles.mine]\nmodel = 'o3'\n")
    before = _snapshot(root)
    proc = run_cli("install", "--agent", agent, "--uninstall", cwd=root)
    assert proc.returncode == 1 and "no end marker" in proc.stderr
    assert _snapshot(root) == before and b"[profiles.mine]" in path.read_bytes()


def _dotfiles(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = _make(tmp_path / "p", "plain")
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "codex-config.toml"
    target.write_bytes(b'model = "o4-mini"\n[env]\nGITHUB_TOKEN = "ghp_' + b"x" * 36 + b'"\n')
    link = root / ".codex/config.toml"
    link.unlink()
    link.symlink_to(target)
    return root, link, target


def test_a_symlinked_config_is_refused_without_the_flag(tmp_path: Path) -> None:
    root, link, target = _dotfiles(tmp_path)
    before, original = _snapshot(root), target.read_bytes()
    proc = run_cli("install", "--agent", "codex", cwd=root)
    assert proc.returncode == 1 and "is a symlink" in proc.stderr
    assert "--follow-symlinks" in proc.stderr and proc.stderr.count("\n") == 1
    assert link.is_symlink() and target.read_bytes() == original and _snapshot(root) == before


def test_follow_symlinks_edits_through_the_link_and_back(tmp_path: Path) -> None:
    root, link, target = _dotfiles(tmp_path)
    original = target.read_bytes()
    _cli(root, "codex", "--follow-symlinks")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert b"[mcp_servers.conkeeper]" in target.read_bytes()
    assert not any(
        p.name.startswith("config.toml") and not p.is_symlink()
        for p in link.parent.iterdir()
        if p != link
    )
    proc = run_cli("install", "--agent", "codex", "--uninstall", cwd=root)
    assert proc.returncode == 1 and "--follow-symlinks" in proc.stderr  # refused, nothing lost
    _cli(root, "codex", "--uninstall", "--follow-symlinks")
    assert link.is_symlink() and target.read_bytes() == original


def test_install_writes_are_journaled_for_undo(tmp_path: Path) -> None:
    root = _make(tmp_path / "p", "plain")
    original = (root / ".codex/config.toml").read_bytes()
    _cli(root, "codex")
    proc = run_cli("history", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    entries = [e for e in json.loads(proc.stdout) if "install --agent codex" in e["command"]]
    config = [e for e in entries if any(f.endswith("config.toml") for f in e["files"])]
    assert config, entries
    undo = run_cli("undo", config[0]["id"], cwd=root)
    assert undo.returncode == 0, undo.stderr
    assert (root / ".codex/config.toml").read_bytes() == original


def test_claude_code_goes_through_the_same_path(tmp_path: Path) -> None:
    root = _make(tmp_path / "p", "plain")
    home = Path(cli_env()["HOME"])
    user = home / ".claude/settings.json"
    user.parent.mkdir(parents=True)
    original = b'{"theme": "dark",\n "hooks": {}}\n'
    user.write_bytes(original)
    report = _cli(root, "claude-code", "--scope", "user")
    assert report["agent"] == "claude-code" and report["changes"][0]["what"] == "hooks"
    assert b'"theme": "dark"' in user.read_bytes()
    proc = run_cli("install", "--uninstall", cwd=root)  # no --agent: Claude Code, user scope
    assert proc.returncode == 0, proc.stderr
    assert user.read_bytes() == original
    assert sorted(p.name for p in user.parent.iterdir()) == ["settings.json"]


ZED_DEFAULT = b"""// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "ui_font_size": 16, // bigger
  /* the theme follows the system */
  "theme": {
    "mode": "system",
    "dark": "One Dark",
  },
}
"""


def test_json_with_comments_is_edited_in_place_and_given_back(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    (root / ".zed").mkdir()
    path = root / ".zed/settings.json"
    path.write_bytes(ZED_DEFAULT)
    _cli(root, "zed")
    installed = path.read_bytes()
    assert installed.startswith(ZED_DEFAULT[: ZED_DEFAULT.index(b"  },")])
    assert (
        b'"context_servers": {' in installed and b"/* the theme follows the system */" in installed
    )
    _cli(root, "zed", "--uninstall")
    assert path.read_bytes() == ZED_DEFAULT
    # the user changed a value meanwhile: only ConKeeper's member goes, the comments stay
    _cli(root, "zed")
    path.write_bytes(path.read_bytes().replace(b'"ui_font_size": 16', b'"ui_font_size": 18'))
    _cli(root, "zed", "--uninstall")
    assert path.read_bytes() == ZED_DEFAULT.replace(b'"ui_font_size": 16', b'"ui_font_size": 18')


def test_a_symlinked_config_folder_keeps_its_link(tmp_path: Path) -> None:
    root = _make(tmp_path / "p", "plain")
    dotfiles = tmp_path / "dotfiles" / "codex"
    dotfiles.parent.mkdir()
    (root / ".codex").rename(dotfiles)
    (root / ".codex").symlink_to(dotfiles)
    before = {p.name: p.read_bytes() for p in dotfiles.iterdir()}
    _cli(root, "codex")
    assert (root / ".codex").is_symlink() and b"conkeeper" in (
        dotfiles / "config.toml"
    ).read_bytes()
    _cli(root, "codex", "--uninstall")
    assert (root / ".codex").is_symlink()
    assert {p.name: p.read_bytes() for p in dotfiles.iterdir()} == before


def test_a_conkeeper_file_the_user_edited_is_left_in_place(tmp_path: Path) -> None:
    root = _make(tmp_path / "p", "none")
    _cli(root, "cursor")
    rule = root / ".cursor/rules/conkeeper.mdc"
    edited = rule.read_bytes() + b"- Also: never run migrations by hand.\n"
    rule.write_bytes(edited)
    proc = run_cli("install", "--agent", "cursor", "--uninstall", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "changed since ConKeeper wrote it; left as it is" in proc.stderr
    assert rule.read_bytes() == edited  # the user's line is not lost
    assert not (root / ".cursor/hooks.json").exists()  # the rest is removed


def test_an_empty_event_list_of_the_users_stays_after_a_structural_uninstall(
    tmp_path: Path,
) -> None:
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    (root / ".gemini").mkdir()
    path = root / ".gemini/settings.json"
    path.write_bytes(b'{\n  "hooks": {\n    "SessionStart": []\n  },\n  "mcpServers": {}\n}\n')
    _cli(root, "gemini")
    installed = path.read_text()
    # the user adds a hook of their own inside ConKeeper's SessionStart group list
    mine = '{"hooks": [{"type": "command", "command": "./hi.sh"}]},\n      '
    path.write_text(
        installed.replace('"SessionStart": [\n      ', '"SessionStart": [\n      ' + mine, 1)
    )
    _cli(root, "gemini", "--uninstall")
    data = json.loads(path.read_text())
    assert data == {
        "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./hi.sh"}]}]},
        "mcpServers": {},
    }
    path.write_bytes(b'{\n  "hooks": {\n    "SessionStart": []\n  },\n  "mcpServers": {}\n}\n')
    _cli(root, "gemini")
    path.write_text(path.read_text().replace('"BeforeAgent": [', '"BeforeAgent": [ ', 1))
    _cli(root, "gemini", "--uninstall")
    assert json.loads(path.read_text()) == {"hooks": {"SessionStart": []}, "mcpServers": {}}
