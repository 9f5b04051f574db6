"""A seventh round on "nothing the user wrote is ever lost", from outside.

The shapes swept here: writes that create a file killed before they finish, the temporary files
killed journal and install-record rewrites leave behind, and what re-install and undo of an
install do to a person's own keys and to the folders install made. Every case goes through the
real ``conkeeper`` command as a subprocess; a kill happens at an exact point of the write path
(``CONKEEPER_KILL_AT``), never after a sleep.
"""

from __future__ import annotations

import signal
from pathlib import Path

from conftest import cli_env, run_cli


def _memory(project: Path) -> Path:
    return project / ".claude" / "memory"


# --------------------------------------------------------------------------- created files


def test_a_file_creation_killed_before_its_rename_leaves_no_empty_file(project: Path) -> None:
    """``decisions new`` killed after writing its temporary file and before renaming it left
    ``ADR-001-use-pathlib.md`` empty for good (the file was created empty first, then replaced):
    the next run wrote ``ADR-002`` beside it. The file is created whole or not at all."""
    args = ("decisions", "new", "Use pathlib", "--decision", "We use pathlib")
    killed = run_cli(*args, cwd=project, env=cli_env(CONKEEPER_KILL_AT="renaming"))
    assert killed.returncode == -signal.SIGKILL
    decisions = _memory(project) / "decisions"
    assert list(decisions.glob("ADR-*.md")) == []
    again = run_cli(*args, cwd=project)
    assert again.returncode == 0, again.stderr
    [adr] = list(decisions.glob("ADR-*.md"))
    assert adr.name == "ADR-001-use-pathlib.md"
    assert b"We use pathlib" in adr.read_bytes()
    assert list(decisions.glob(".*.conkeeper-tmp")) == []


# --------------------------------------------------------------------------- permissions


def test_an_import_killed_after_creating_a_private_file_never_leaves_it_readable(
    project: Path, tmp_path: Path
) -> None:
    """``import jsonl`` created a memory file with the default permissions and only then
    ``os.chmod``-ed it to the export's, outside the write path: killed in between, a file the
    export kept ``0600`` stayed readable by everyone, and a second import found it identical
    and never fixed it (the chmod also followed whatever the path named by then). The mode is
    set on the new file before it has its name."""
    import base64
    import hashlib
    import json
    import stat

    data = b"# Private\n\n- staging DB host is db-7.internal\n"
    record = {
        "kind": "memory_file",
        "scope": "project",
        "path": "private.md",
        "data": base64.b64encode(data).decode(),
        "sha256": hashlib.sha256(data).hexdigest(),
        "mode": 0o600,
        "project": "/elsewhere/app",
        "root": "/elsewhere/app",
    }
    backup = tmp_path / "backup.jsonl"
    backup.write_text(json.dumps(record) + "\n", "utf-8")
    args = ("import", "jsonl", str(backup), "--no-progress")
    killed = run_cli(*args, cwd=project, env=cli_env(CONKEEPER_KILL_AT="written"))
    assert killed.returncode == -signal.SIGKILL
    restored = _memory(project) / "private.md"
    assert restored.read_bytes() == data
    assert stat.S_IMODE(restored.stat().st_mode) == 0o600


# --------------------------------------------------------------------------- temporary files


def test_a_journal_entry_rewrite_killed_before_its_rename_leaves_no_temporary_file(
    project: Path,
) -> None:
    """``remember`` killed while completing its journal entry (the entry rewritten to a
    temporary file, not renamed yet) left ``.000001.json.PID.tmp`` in ``.history`` for good.
    The change stays undoable from the pending entry, and the next write sweeps the file."""
    patterns = _memory(project) / "patterns.md"
    before = b"# Patterns\r\n\r\n- caf\xe9 stays Latin-1\r\n"
    patterns.write_bytes(before)
    killed = run_cli(
        "remember",
        "--source",
        "user",
        "Prefer pathlib over os.path",
        cwd=project,
        env=cli_env(CONKEEPER_KILL_AT="rewriting"),
    )
    assert killed.returncode == -signal.SIGKILL
    history = _memory(project) / ".history"
    assert [p.name for p in history.iterdir() if p.name.endswith("tmp")] != []
    saved = run_cli("remember", "--source", "user", "Run ruff before commits", cwd=project)
    assert saved.returncode == 0, saved.stderr
    assert [p.name for p in history.iterdir() if p.name.endswith("tmp")] == []
    for _ in range(2):
        undone = run_cli("undo", cwd=project)
        assert undone.returncode == 0, undone.stderr
    assert patterns.read_bytes() == before


def test_an_install_record_killed_before_its_rename_is_swept(project: Path) -> None:
    """``install`` killed after writing its record's temporary file left
    ``<data home>/installs/.KEY.PID.tmp`` for good (uninstall removed the record beside it).
    The next install or uninstall sweeps it."""
    killed = run_cli(
        "install", "--agent", "cursor", cwd=project, env=cli_env(CONKEEPER_KILL_AT="record")
    )
    assert killed.returncode == -signal.SIGKILL
    installs = Path(cli_env()["CONKEEPER_HOME"]) / "installs"
    assert [p.name for p in installs.iterdir() if p.name.startswith(".")] != []
    removed = run_cli("install", "--agent", "cursor", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert [p.name for p in installs.iterdir() if p.name.startswith(".")] == []


# --------------------------------------------------------------------------- a person's keys

MY_SERVERS = b'{\n  "mcpServers": {\n    "mine": { "command": "my-server" }\n  }\n}\n'


def test_a_reinstall_keeps_the_env_a_person_added_to_conkeepers_json_entry(
    project: Path,
) -> None:
    """The person added an ``env`` to ``mcpServers.conkeeper`` in ``.cursor/mcp.json``; running
    ``install`` again (an upgrade) rewrote the entry without it, with only a warning that it
    "went with ConKeeper's entry". A re-install keeps the person's keys; uninstall still takes
    the entry whole, names the key, and gives the person's file back."""
    import json

    config = project / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_bytes(MY_SERVERS)
    installed = run_cli("install", "--agent", "cursor", cwd=project)
    assert installed.returncode == 0, installed.stderr
    data = json.loads(config.read_bytes())
    data["mcpServers"]["conkeeper"]["env"] = {"CONKEEPER_HOME": "/srv/ck"}
    config.write_bytes(json.dumps(data, indent=2).encode() + b"\n")
    again = run_cli("install", "--agent", "cursor", cwd=project)
    assert again.returncode == 0, again.stderr
    entry = json.loads(config.read_bytes())["mcpServers"]["conkeeper"]
    assert entry["env"] == {"CONKEEPER_HOME": "/srv/ck"}
    assert "went with" not in again.stdout + again.stderr
    removed = run_cli("install", "--agent", "cursor", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert json.loads(config.read_bytes()) == json.loads(MY_SERVERS)
    assert "your own env" in removed.stdout + removed.stderr


# --------------------------------------------------------------------------- undo of an install


def test_undo_of_an_install_removes_its_folders_and_records(project: Path) -> None:
    """``undo`` of ``install --agent cursor`` removed the three files it created but left the
    ``.cursor`` and ``.cursor/rules`` folders and the three install records (a later doctor or
    install read them as ConKeeper's). Undone, the install leaves what uninstall leaves."""
    installed = run_cli("install", "--agent", "cursor", cwd=project)
    assert installed.returncode == 0, installed.stderr
    installs = Path(cli_env()["CONKEEPER_HOME"]) / "installs"
    assert list(installs.glob("*.json")) != []
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert not (project / ".cursor").exists()
    assert list(installs.glob("*.json")) == []


# --------------------------------------------------------------------------- messages


def test_a_clinerules_file_is_named_as_the_file_in_the_way(project: Path) -> None:
    """Cline's older rules are one ``.clinerules`` file; installing for Cline, which puts its
    hooks in ``.clinerules/hooks/``, said ``.clinerules/hooks/TaskStart: cannot be read (Not a
    directory)``. It names the file in the way and what to do, and changes nothing."""
    rules = project / ".clinerules"
    rules.write_bytes(b"Always use tabs.\r\n")
    refused = run_cli("install", "--agent", "cline", cwd=project)
    assert refused.returncode == 1
    said = refused.stderr.strip()
    assert said.startswith(f"conkeeper: {rules}: is a file, where ConKeeper needs a folder"), said
    assert "Not a directory" not in said and "\n" not in said
    assert rules.read_bytes() == b"Always use tabs.\r\n"


# --------------------------------------------------------------------------- interrupted writes


def test_an_interrupted_rewrite_that_never_landed_does_not_block_undo_after_a_persons_edit(
    project: Path,
) -> None:
    """``consolidate --apply`` killed after its pending entry and before its rename changed
    nothing; the person then added a line. ``undo`` took the file's change for the interrupted
    write's, picked it, and refused with a diff, so the ``remember`` before it could not be
    undone. The interrupted write is known not to have landed; ``undo`` takes back the
    ``remember`` and keeps the person's line."""
    patterns = _memory(project) / "patterns.md"
    original = (
        b"# Patterns\n\n- Run ruff before every commit\n- Keep functions short\n"
        b"- Run ruff before every commit.\n"
    )
    patterns.write_bytes(original)
    saved = run_cli("remember", "--source", "user", "Prefer pathlib over os.path", cwd=project)
    assert saved.returncode == 0, saved.stderr
    preview = run_cli("consolidate", cwd=project)
    assert preview.returncode == 0, preview.stderr
    killed = run_cli(
        "consolidate", "--apply", cwd=project, env=cli_env(CONKEEPER_KILL_AT="pending")
    )
    assert killed.returncode == -signal.SIGKILL
    with patterns.open("ab") as handle:
        handle.write(b"- my own note\n")
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert "remember" in undone.stdout
    assert patterns.read_bytes() == original + b"- my own note\n"


def test_an_undo_killed_before_its_rename_leaves_the_write_undoable_after_a_persons_line(
    project: Path,
) -> None:
    """``undo`` killed after its pending entry and before its rename reverted nothing; the
    person then added a line. ``history`` listed the ``remember`` as undone (the file had
    changed, so the undo counted as made) and ``undo`` said there was nothing to undo, with the
    entry still in the file. The write stays undoable, and undoing it keeps the person's line."""
    patterns = _memory(project) / "patterns.md"
    original = b"# Patterns\n\n- Keep functions short\n"
    patterns.write_bytes(original)
    saved = run_cli("remember", "--source", "user", "Prefer pathlib over os.path", cwd=project)
    assert saved.returncode == 0, saved.stderr
    killed = run_cli("undo", cwd=project, env=cli_env(CONKEEPER_KILL_AT="renaming"))
    assert killed.returncode == -signal.SIGKILL
    with patterns.open("ab") as handle:
        handle.write(b"- my own note\n")
    listed = run_cli("history", cwd=project)
    assert "(undone)" not in listed.stdout, listed.stdout
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert patterns.read_bytes() == original + b"- my own note\n"
