"""An eighth round on "nothing the user wrote is ever lost", from outside.

The shapes swept here: two hooks racing on the span file of agents' shell commands, and the
leads round 7 left open. Every case goes through the real ``conkeeper`` command as a
subprocess; a writer is killed (``CONKEEPER_KILL_AT``) or held (``CONKEEPER_STOP_AT``, a
``SIGSTOP`` the test answers with ``SIGCONT``) at an exact point of the write path, never
raced after a sleep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import cli_env, run_cli


def _bash_hook(root: Path, session: str, **env: str) -> subprocess.Popen[bytes]:
    """Claude Code's PreToolUse hook for an agent's Bash command, started and left running."""
    payload = {
        "session_id": session,
        "transcript_path": str(root.parent / f"{session}.jsonl"),
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": f"toolu_{session}",
        "tool_input": {"command": "ls", "description": "list"},
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "hook", "PreToolUse"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=root,
        env=cli_env(**env),
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(payload).encode())
    proc.stdin.close()
    return proc


def _waits_on_a_lock(pid: int) -> bool:
    """Whether process ``pid`` is queued for a ``flock`` (``/proc/locks`` lists waiters)."""
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields and str(pid) in fields:
            return True
    return False


def _finished_or_waiting(proc: subprocess.Popen[bytes]) -> None:
    """Return once ``proc`` has exited or is queued behind a lock (never after a fixed sleep)."""
    while not _waits_on_a_lock(proc.pid):
        try:
            proc.wait(timeout=0.02)
            return
        except subprocess.TimeoutExpired:
            continue


# --------------------------------------------------------------------------- agent shells


def test_a_shell_span_noted_while_another_hook_trims_the_file_is_kept(project: Path) -> None:
    """Past 256 KB the hook that noted a shell command's start rewrote the span file with its
    newer half: another hook's line appended between that hook's read and its rename was gone,
    and a detached child of that agent command could pass for the person's. Appends and the
    trim now share a lock on the file; the trim keeps every line it did not cut."""
    shells = Path(os.environ["CONKEEPER_HOME"]) / "state" / "agent-shells"
    shells.parent.mkdir(parents=True)
    old = b"".join(b"start %d old:%06d\nend %d old:%06d\n" % (i, i, i + 1, i) for i in range(9000))
    shells.write_bytes(old[: 256 * 1024 - 10].rsplit(b"\n", 1)[0] + b"\n")
    trimming = _bash_hook(project, "s-trim", CONKEEPER_STOP_AT="shells-trim")
    _, status = os.waitpid(trimming.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    racing = _bash_hook(project, "s-race")
    _finished_or_waiting(racing)
    os.kill(trimming.pid, signal.SIGCONT)
    assert trimming.wait(timeout=60) == 0, trimming.stderr.read() if trimming.stderr else ""
    assert racing.wait(timeout=60) == 0, racing.stderr.read() if racing.stderr else ""
    kept = shells.read_bytes()
    assert len(kept) < 200 * 1024
    assert b" s-race:toolu_s-race\n" in kept
    assert b" s-trim:toolu_s-trim\n" in kept
    assert list(shells.parent.glob(".agent-shells*")) == []


# --------------------------------------------------------------------------- agent configs


def _zed_settings(project: Path, servers: str) -> Path:
    """A project's Zed ``settings.json`` (JSON with comments) with the person's ``servers``."""
    settings = project / ".zed" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(
        b'// my zed settings\n{\n  "theme": "One Dark", // keep\n  "context_servers": {\n'
        + servers.encode()
        + b"\n  }\n}\n"
    )
    return settings


def test_install_never_splits_a_line_the_person_ended_with_a_comment(project: Path) -> None:
    """Installing into a Zed ``settings.json`` whose last server line ended in the person's
    comment (``"mine": {...} // my own server``) put ConKeeper's entry between the value and the
    comment: the person's line was split and their comment trailed ConKeeper's entry. The entry
    now goes after that line (a comma added after the value); uninstall gives the bytes back."""
    settings = _zed_settings(project, '    "mine": { "command": "x" } // my own server')
    original = settings.read_bytes()
    done = run_cli("install", "--agent", "zed", cwd=project)
    assert done.returncode == 0, done.stderr
    lines = settings.read_text().splitlines()
    assert '    "mine": { "command": "x" }, // my own server' in lines
    after = lines[lines.index('    "mine": { "command": "x" }, // my own server') + 1]
    assert after == '    "conkeeper": {'
    assert json.loads("\n".join(ln.split(" //")[0] for ln in lines[1:]))["context_servers"]
    removed = run_cli("install", "--agent", "zed", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert settings.read_bytes() == original


def test_uninstall_keeps_the_comment_on_the_line_before_conkeepers_entry(project: Path) -> None:
    """After install the person commented their own server's line (``"mine": {...}, // why``)
    and added a key to ConKeeper's entry, so uninstall cut the entry out by position: the
    separator in front of it went too, and with it the person's comment. It stays, on its
    line; only the comma that belonged to the removed entry goes."""
    settings = _zed_settings(project, '    "mine": { "command": "x" }')
    done = run_cli("install", "--agent", "zed", cwd=project)
    assert done.returncode == 0, done.stderr
    text = settings.read_text()
    assert '    "mine": { "command": "x" },\n    "conkeeper": {' in text
    text = text.replace('"x" },\n', '"x" }, // my own server\n').replace(
        '"mcp"\n      ]', '"mcp"\n      ],\n      "env": { "A": "1" }'
    )
    settings.write_text(text)
    removed = run_cli("install", "--agent", "zed", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert settings.read_bytes() == (
        b'// my zed settings\n{\n  "theme": "One Dark", // keep\n  "context_servers": {\n'
        b'    "mine": { "command": "x" } // my own server\n  }\n}\n'
    )


def test_uninstall_names_the_keys_the_person_set_in_conkeepers_toml_table(project: Path) -> None:
    """A person set ``env`` in ConKeeper's ``[mcp_servers.conkeeper]`` table of
    ``.codex/config.toml``; uninstall took it with the table (by design: left behind it would
    land in the table above) without a word, and, when they had also added a table of their
    own in the block, told them "your lines inside ConKeeper's block were kept". Now the key
    is named, never its value, with the way back, and ``undo`` brings it back."""
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_bytes(b'model = "o3"\n\n[mcp_servers.mine]\ncommand = "x"\n')
    done = run_cli("install", "--agent", "codex", cwd=project)
    assert done.returncode == 0, done.stderr
    edited = config.read_text().replace(
        'args = ["mcp"]\n', 'args = ["mcp"]\nenv = { TOKEN = "tok-123" }  # mine\n'
    )
    config.write_text(edited)
    removed = run_cli("install", "--agent", "codex", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert "env" not in config.read_text()
    assert "your own env in ConKeeper's table went with it" in removed.stderr
    assert "conkeeper undo" in removed.stderr and "tok-123" not in removed.stderr
    back = run_cli("undo", cwd=project)
    assert back.returncode == 0, back.stderr
    assert config.read_text() == edited


def test_uninstall_gives_back_the_trailing_commas_of_a_gemini_settings_file(
    project: Path,
) -> None:
    """``.gemini/settings.json`` with CRLF, a BOM, comments and trailing commas: ConKeeper's
    entries went in after the person's last, commented lines; after the person added a key to
    ConKeeper's entry (so uninstall cut by position), their trailing commas (``"mine": {...},
    // my server``) were gone. The file comes back as it was, with their own change."""
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    original = (
        b'\xef\xbb\xbf{\r\n  "theme": "x", // t\r\n  "mcpServers": {\r\n'
        b'    "mine": {"command": "m"}, // my server\r\n  },\r\n  "hooks": {\r\n'
        b'    "SessionStart": [ // mine\r\n'
        b'      {"hooks": [{"type": "command", "command": "echo hi"}]}, // hi\r\n'
        b"    ],\r\n  },\r\n}\r\n"
    )
    settings.write_bytes(original)
    done = run_cli("install", "--agent", "gemini", cwd=project)
    assert done.returncode == 0, done.stderr
    edited = settings.read_bytes().replace(
        b'"mcp"\r\n      ]', b'"mcp"\r\n      ],\r\n      "env": {"A": "1"}'
    )
    settings.write_bytes(edited.replace(b'"theme": "x"', b'"theme": "y"'))
    removed = run_cli("install", "--agent", "gemini", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert settings.read_bytes() == original.replace(b'"theme": "x"', b'"theme": "y"')


# --------------------------------------------------------------------------- placement


def test_an_entry_placed_after_a_persons_html_block_is_not_swallowed_by_it(
    project: Path,
) -> None:
    """The person's Code Conventions section ended with a folded ``<details>`` block; a new
    convention went right after its ``</details>`` line, and since an HTML block runs on to the
    next blank line, every Markdown view showed the bullet as raw text inside it. A blank line
    now goes between; the person's bytes are all still there, in order."""
    patterns = project / ".claude" / "memory" / "patterns.md"
    original = (
        b"# Patterns\n\n## Code Conventions\n- use tabs\n\n<details>\n"
        b"<summary>Older conventions</summary>\n\n- use 2 spaces\n\n</details>\n\n"
        b"## Gotchas\n- g1\n"
    )
    patterns.write_bytes(original)
    done = run_cli(
        "remember", "Always use pathlib for file paths", "--category", "convention", cwd=project
    )
    assert done.returncode == 0, done.stderr
    now = patterns.read_bytes()
    assert b"</details>\n\n- Always use pathlib for file paths\n" in now
    start = now.index(b"- Always use pathlib")
    assert now[: start - 1] + now[now.index(b"\n## Gotchas") :] == original


# --------------------------------------------------------------------------- journal


def test_a_journal_folder_made_by_a_killed_write_is_still_git_ignored(project: Path) -> None:
    """``remember`` killed just after making the memory folder's ``.history/`` left it without
    its ``.gitignore`` (a full disk left it empty), and it was written only when the folder was
    made: every later entry, the bytes before and after of each write, went unignored into the
    folder people commit. The next write puts the ``.gitignore`` back, whole."""
    args = ("remember", "Always use pathlib for paths", "--category", "convention")
    killed = run_cli(*args, cwd=project, env=cli_env(CONKEEPER_KILL_AT="journal-folder"))
    assert killed.returncode == -signal.SIGKILL
    history = project / ".claude" / "memory" / ".history"
    assert history.is_dir() and not (history / ".gitignore").exists()
    done = run_cli(*args, cwd=project)
    assert done.returncode == 0, done.stderr
    assert (history / ".gitignore").read_text().splitlines()[-1] == "*"
    assert [p.name for p in history.iterdir() if p.name.endswith(".tmp")] == []
    (history / ".gitignore").write_bytes(b"")  # what a full disk left
    again = run_cli("remember", "Never deploy on Fridays", "--category", "learning", cwd=project)
    assert again.returncode == 0, again.stderr
    assert (history / ".gitignore").read_text().splitlines()[-1] == "*"


def test_uninstall_keeps_a_comment_between_members_on_one_line(project: Path) -> None:
    """A settings file written on one line (``{"mine": 1, /* why */ "conkeeper": {...}}``) lost
    the person's comment with ConKeeper's entry on uninstall (the multi-line case was fixed
    above); it stays, whether ConKeeper's entry was last or between two of theirs."""
    settings = _zed_settings(project, '    "mine": { "command": "x" }')
    done = run_cli("install", "--agent", "zed", cwd=project)
    assert done.returncode == 0, done.stderr
    lines = settings.read_text().splitlines()
    ours = json.loads("\n".join(ln.split(" //")[0] for ln in lines[1:]))["context_servers"]
    entry = json.dumps(ours["conkeeper"])
    for tail, expected in (
        ("}}", b'{"context_servers": {"mine": {"command": "x"} /* why */ }}\n'),
        (
            ', "other": 2}}',
            b'{"context_servers": {"mine": {"command": "x"}, /* why */ "other": 2}}\n',
        ),
    ):
        settings.write_text(
            '{"context_servers": {"mine": {"command": "x"}, /* why */ "conkeeper": '
            + entry
            + tail
            + "\n"
        )
        removed = run_cli("install", "--agent", "zed", "--uninstall", cwd=project)
        assert removed.returncode == 0, removed.stderr
        assert settings.read_bytes() == expected
        again = run_cli("install", "--agent", "zed", cwd=project)
        assert again.returncode == 0, again.stderr


def test_reinstall_keeps_the_keys_the_person_set_in_conkeepers_toml_table(project: Path) -> None:
    """Re-installing for Codex dropped the ``env`` the person had set in ConKeeper's
    ``[mcp_servers.conkeeper]`` table, with only a warning (the JSON hosts keep theirs in
    the new entry). It stays, after ConKeeper's keys; a key ConKeeper sets is ConKeeper's."""
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_bytes(b'model = "o3"\n\n[mcp_servers.mine]\ncommand = "x"\n')
    done = run_cli("install", "--agent", "codex", cwd=project)
    assert done.returncode == 0, done.stderr
    installed = config.read_text()
    command = next(
        ln for ln in installed.splitlines() if ln.startswith("command = ") and '"x"' not in ln
    )
    edited = installed.replace(  # the person's key, after every key ConKeeper sets
        "# <<< conkeeper <<<", 'env = { TOKEN = "tok-123" }  # mine\n# <<< conkeeper <<<', 1
    )
    config.write_text(edited.replace(command, 'command = "/old/launcher"'))
    again = run_cli("install", "--agent", "codex", cwd=project)
    assert again.returncode == 0, again.stderr
    assert "went with it" not in again.stderr
    assert config.read_text() == edited


def _strays(memory: Path) -> list[str]:
    return sorted(p.name for p in memory.rglob(".*.conkeeper-tmp"))


def test_a_stray_second_name_of_a_new_file_goes_at_the_next_write_anywhere(project: Path) -> None:
    """``decisions new`` killed between linking its new ADR to its name and removing the
    temporary name left a dot-file hard link in ``decisions/`` until the next write in that
    folder; a write anywhere in the memory folder now sweeps it, and ``doctor`` names and
    removes one it finds."""
    memory = project / ".claude" / "memory"
    args = ("decisions", "new", "Use Postgres", "--decision", "We will use Postgres")
    killed = run_cli(*args, cwd=project, env=cli_env(CONKEEPER_KILL_AT="written"))
    assert killed.returncode == -signal.SIGKILL
    assert len(_strays(memory)) == 1
    done = run_cli(
        "remember", "Always use pathlib for paths", "--category", "convention", cwd=project
    )
    assert done.returncode == 0, done.stderr
    assert _strays(memory) == []
    args = ("decisions", "new", "Use Redis", "--decision", "We will use Redis")
    killed = run_cli(*args, cwd=project, env=cli_env(CONKEEPER_KILL_AT="written"))
    assert killed.returncode == -signal.SIGKILL
    [stray] = _strays(memory)
    doctor = run_cli("doctor", cwd=project)
    assert stray in doctor.stdout and "removed" in doctor.stdout, doctor.stdout
    assert _strays(memory) == []
