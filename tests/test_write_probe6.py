"""A sixth round on "nothing the user wrote is ever lost", from outside.

The shapes swept here: a ``conkeeper`` process killed (SIGKILL) between changing a person's file
and completing its journal entry, install records cut short, a person's own keys inside
ConKeeper's config entries, and temporary files a killed writer leaves in the memory folder.
Every case goes through the real ``conkeeper`` command as a subprocess; a kill happens at an
exact point of the write path (``CONKEEPER_KILL_AT``), never after a sleep.
"""

from __future__ import annotations

import base64
import json
import signal
from pathlib import Path

import pytest

from conftest import cli_env, run_cli


def _memory(project: Path) -> Path:
    return project / ".claude" / "memory"


# --------------------------------------------------------------------------- killed mid-write


@pytest.mark.parametrize("existing", [True, False], ids=["append-to-file", "create-file"])
def test_a_write_killed_before_its_journal_completes_can_still_be_undone(
    project: Path, existing: bool
) -> None:
    """``remember`` killed right after its change reached patterns.md and before the journal
    entry was stored left a change ``history`` did not list and ``undo`` could not take back.
    The entry is stored first (pending) and completed after, so undo restores the exact bytes."""
    patterns = _memory(project) / "patterns.md"
    before = b"# Patterns\n\n- keep functions short \xff\n"
    if existing:
        patterns.write_bytes(before)
    killed = run_cli(
        "remember",
        "--source",
        "user",
        "Prefer pathlib over os.path",
        cwd=project,
        env=cli_env(CONKEEPER_KILL_AT="written"),
    )
    assert killed.returncode == -signal.SIGKILL
    assert b"Prefer pathlib" in patterns.read_bytes()
    listed = json.loads(run_cli("history", "--json", cwd=project).stdout)
    assert [(item["command"], item["interrupted"]) for item in listed] == [("remember", True)]
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    if existing:
        assert patterns.read_bytes() == before
    else:
        assert not patterns.exists()


def test_an_interrupted_entry_whose_write_never_landed_is_not_undone(project: Path) -> None:
    """Killed after the pending entry was stored and before the file was changed: ``history``
    shows the interrupted write, ``undo`` of it says there is nothing to take back, and a plain
    ``undo`` takes back the write before it."""
    patterns = _memory(project) / "patterns.md"
    before = b"# Patterns\n\n- keep functions short\n"
    patterns.write_bytes(before)
    first = run_cli("remember", "--source", "user", "Prefer pathlib over os.path", cwd=project)
    assert first.returncode == 0, first.stderr
    after_first = patterns.read_bytes()
    killed = run_cli(
        "remember",
        "--source",
        "user",
        "Run ruff before every commit",
        cwd=project,
        env=cli_env(CONKEEPER_KILL_AT="pending"),
    )
    assert killed.returncode == -signal.SIGKILL
    assert patterns.read_bytes() == after_first
    listed = json.loads(run_cli("history", "--json", cwd=project).stdout)
    assert [item["interrupted"] for item in listed] == [True, False]
    by_id = run_cli("undo", listed[0]["id"], cwd=project)
    assert by_id.returncode == 1 and "interrupted before it changed" in by_id.stderr
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert patterns.read_bytes() == before


# --------------------------------------------------------------------------- install records

MY_SERVERS = b'{\n  "mcpServers": {\n    "mine": { "command": "my-server" }\n  }\n}\n'


def test_an_install_killed_while_saving_its_record_leaves_uninstall_true(project: Path) -> None:
    """Install records were three files written one after another (bytes before, bytes
    written, then the spans and whether the file existed). Re-installing after the person took
    ConKeeper's entry out of ``.cursor/mcp.json`` by hand and added their own server, killed
    before the last of the three, left the new bytes beside the old "install created this file":
    uninstall then deleted the person's file. The record is one file renamed into place."""
    installed = run_cli("install", "--agent", "cursor", cwd=project)
    assert installed.returncode == 0, installed.stderr
    config = project / ".cursor" / "mcp.json"
    assert b"conkeeper" in config.read_bytes()
    config.write_bytes(MY_SERVERS)  # ConKeeper's entry taken out by hand, the person's added
    again = run_cli(
        "install", "--agent", "cursor", cwd=project, env=cli_env(CONKEEPER_KILL_AT="record")
    )
    assert again.returncode == -signal.SIGKILL
    assert b"conkeeper" in config.read_bytes()
    removed = run_cli("install", "--agent", "cursor", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert config.exists()
    assert json.loads(config.read_bytes()) == json.loads(MY_SERVERS)


# --------------------------------------------------------------------------- temporary files


def test_a_write_killed_before_its_rename_leaves_no_temporary_file_for_git(
    project: Path,
) -> None:
    """``remember`` killed after writing its temporary file and before renaming it over the
    memory file left ``.patterns.md.PID.N.conkeeper-tmp`` in the memory folder for good, and
    ``git add .claude/memory`` committed it. The next write removes a temporary file whose
    writer is gone, and ``init --gitignore`` keeps such files out of git."""
    import subprocess

    (project / ".git").rmdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    init = run_cli("init", "--gitignore", "--no-retro-tag", cwd=project)
    assert init.returncode == 0, init.stderr
    memory = _memory(project)
    killed = run_cli(
        "remember",
        "--source",
        "user",
        "Prefer pathlib over os.path",
        "--file",
        "notes.md",
        cwd=project,
        env=cli_env(CONKEEPER_KILL_AT="renaming"),
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    [left] = list(memory.glob(".*.conkeeper-tmp"))
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", str(left.relative_to(project))], cwd=project, check=False
    )
    assert ignored.returncode == 0
    saved = run_cli("remember", "--source", "user", "Run ruff before commits", cwd=project)
    assert saved.returncode == 0, saved.stderr
    assert list(memory.glob(".*.conkeeper-tmp")) == []


# --------------------------------------------------------------------------- a person's keys


def test_uninstall_names_the_key_a_person_added_to_conkeepers_json_entry(project: Path) -> None:
    """The person added an ``env`` to ``mcpServers.conkeeper`` in ``.cursor/mcp.json``:
    uninstall removed it with ConKeeper's entry without a word (a block file's uninstall says
    what it kept). The entry still goes whole (an ``env`` alone names no server to run, an
    error in the agent), and uninstall names the key and the way back; ``undo`` restores it."""
    config = project / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_bytes(MY_SERVERS)
    installed = run_cli("install", "--agent", "cursor", cwd=project)
    assert installed.returncode == 0, installed.stderr
    data = json.loads(config.read_bytes())
    data["mcpServers"]["conkeeper"]["env"] = {"CONKEEPER_HOME": "/srv/ck"}
    edited = json.dumps(data, indent=2).encode() + b"\n"
    config.write_bytes(edited)
    removed = run_cli("install", "--agent", "cursor", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert json.loads(config.read_bytes()) == json.loads(MY_SERVERS)
    said = removed.stdout + removed.stderr
    assert "your own env in mcpServers.conkeeper went with ConKeeper's entry" in said, said
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert config.read_bytes() == edited


# --------------------------------------------------------------------------- the stand-in journal


def test_an_approval_journaled_in_the_stand_in_is_shown_as_memory_and_undone_whole(
    project: Path,
) -> None:
    """With the global memory's ``.history`` damaged, ``review approve`` was journaled in the
    data home's journal: ``history`` listed it as an agent-config write with an absolute path,
    and ``undo`` of it took the entry out of patterns.md without holding it again (the held
    entry was gone from both). It is shown as the memory's write and undone as an approval."""
    memory = Path(cli_env()["HOME"]) / ".claude" / "memory"
    memory.mkdir(parents=True)
    patterns = memory / "patterns.md"
    patterns.write_bytes(b"# Global patterns\n")
    (memory / ".history").write_bytes(b"damaged\n")
    held = run_cli(
        "remember", "--source", "agent", "--global", "--json", "Prefer small commits", cwd=project
    )
    assert held.returncode == 0, held.stderr
    [item] = json.loads(run_cli("review", "--json", cwd=project).stdout)["held"]
    approved = run_cli("review", "approve", item["id"], cwd=project)
    assert approved.returncode == 0, approved.stderr
    assert b"Prefer small commits" in patterns.read_bytes()
    [entry] = json.loads(run_cli("history", "--global", "--json", cwd=project).stdout)
    assert entry["files"] == ["patterns.md"] and entry["journal"].startswith("global memory")
    undone = run_cli("undo", "--global", entry["id"], cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert patterns.read_bytes() == b"# Global patterns\n"
    again = json.loads(run_cli("review", "--json", cwd=project).stdout)["held"]
    assert [i["text"] for i in again] == ["Prefer small commits"]


def test_an_undo_killed_before_it_changed_the_file_leaves_the_write_undoable(
    project: Path,
) -> None:
    """An undo's entry names the write it reverts from the start; stored before the file is
    changed, a kill right then would have marked the write undone for good (``undo`` of it:
    "already undone") while the file still held it. An undo that never landed took back
    nothing."""
    patterns = _memory(project) / "patterns.md"
    before = b"# Patterns\n\n- keep functions short\n"
    patterns.write_bytes(before)
    saved = run_cli("remember", "--source", "user", "Prefer pathlib over os.path", cwd=project)
    assert saved.returncode == 0, saved.stderr
    killed = run_cli("undo", cwd=project, env=cli_env(CONKEEPER_KILL_AT="pending"))
    assert killed.returncode == -signal.SIGKILL
    assert b"Prefer pathlib" in patterns.read_bytes()
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert patterns.read_bytes() == before


def test_a_record_an_older_version_kept_in_three_files_still_uninstalls_exactly(
    project: Path,
) -> None:
    """Records written before the one-file format (``.orig``, ``.installed`` and a version-2
    ``.json``) are still read: uninstall gives the person's bytes back exactly."""
    config = project / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_bytes(MY_SERVERS)
    installed = run_cli("install", "--agent", "cursor", cwd=project)
    assert installed.returncode == 0, installed.stderr
    records = Path(cli_env()["CONKEEPER_HOME"]) / "installs"
    for meta_file in records.glob("*.json"):
        meta = json.loads(meta_file.read_text())
        key = meta_file.stem
        if meta["existed"]:
            (records / f"{key}.orig").write_bytes(base64.b64decode(meta["original"]))
        (records / f"{key}.installed").write_bytes(base64.b64decode(meta["installed"]))
        del meta["original"], meta["installed"]
        meta["version"] = 2
        meta_file.write_text(json.dumps(meta))
    removed = run_cli("install", "--agent", "cursor", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert config.read_bytes() == MY_SERVERS
    assert sorted(records.iterdir()) == []
