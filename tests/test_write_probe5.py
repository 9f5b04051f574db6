"""A fifth round on "nothing the user wrote is ever lost", from outside.

The shapes swept here: a write whose journal entry cannot be stored (a damaged journal, a file
size limit), two ``undo`` runs at once, and host installs on configs full of a person's own
lines. Every case goes through the real ``conkeeper`` command as a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import cli_env, run_cli


def _memory(project: Path) -> Path:
    return project / ".claude" / "memory"


# --------------------------------------------------------------------------- the journal first


def test_a_damaged_journal_gets_a_stand_in_so_undo_still_restores_the_file(
    project: Path,
) -> None:
    """With the memory journal damaged (a file where the ``.history`` folder belongs),
    ``remember`` changed patterns.md and stored no journal entry: ``history`` said "No journaled
    writes yet" and ``undo`` said there was nothing to undo. The entry goes to the data home's
    journal instead, and ``undo`` restores the exact bytes."""
    patterns = _memory(project) / "patterns.md"
    before = b"# Patterns\n\n- keep functions short\n"
    patterns.write_bytes(before)
    (_memory(project) / ".history").write_bytes(b"damaged\n")
    saved = run_cli("remember", "--source", "user", "Prefer pathlib over os.path", cwd=project)
    assert saved.returncode == 0, saved.stderr
    assert b"Prefer pathlib" in patterns.read_bytes()
    listed = json.loads(run_cli("history", "--json", cwd=project).stdout)
    assert [item["command"] for item in listed] == ["remember"]
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert patterns.read_bytes() == before


def test_a_write_no_journal_can_record_is_refused_in_one_line(project: Path) -> None:
    """Both journals damaged: the write is refused with one line naming the journal, and the
    person's file is left exactly as it was (never a change ``undo`` cannot take back)."""
    patterns = _memory(project) / "patterns.md"
    before = b"# Patterns\n\n- keep functions short\n"
    patterns.write_bytes(before)
    (_memory(project) / ".history").write_bytes(b"damaged\n")
    data_home = Path(cli_env()["CONKEEPER_HOME"])
    data_home.mkdir(parents=True, exist_ok=True)
    (data_home / "history").write_bytes(b"damaged too\n")
    proc = run_cli("remember", "--source", "user", "Prefer pathlib over os.path", cwd=project)
    assert proc.returncode == 1
    assert patterns.read_bytes() == before
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and ".history is not a folder" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def _limited(size: int):  # type: ignore[no-untyped-def]
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return cap


def test_a_change_whose_journal_entry_the_disk_cannot_hold_is_not_made(project: Path) -> None:
    """Under a file size limit the memory file's change fit but its journal entry (before and
    after bytes) did not: ``remember`` changed progress.md and said so, with no entry, so
    ``undo`` could not take it back. The change is refused before anything is written."""
    progress = _memory(project) / "progress.md"
    before = ("# Progress\n\n" + "".join(f"- step {n} done\n" for n in range(2000))).encode()
    progress.write_bytes(before)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "conkeeper",
            "remember",
            "--source",
            "user",
            "--file",
            "progress.md",
            "Release 2.1 shipped",
        ],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        timeout=120,
        preexec_fn=_limited(len(before) + 4096),
    )
    assert proc.returncode == 1, proc.stderr
    assert progress.read_bytes() == before
    assert b"file size limit" in proc.stderr
    assert os.listdir(_memory(project)).count("progress.md") == 1


# --------------------------------------------------------------------------- two undos at once


def test_two_undos_at_once_take_back_two_different_writes(project: Path) -> None:
    """Two ``conkeeper undo`` runs at once both chose the newest write; the second to act found
    it taken back already and refused with a diff that read as a later change by someone else
    ("changed since write 2"), while the write under it stayed. Each undo chooses its write
    under the journal's lock: the two take back the two newest writes, each saying which."""
    from test_write_probe4 import cli_process

    patterns = _memory(project) / "patterns.md"
    before = b"# Patterns\n\n- keep functions short\n"
    patterns.write_bytes(before)
    for rule in ("Rule A: tabs in Makefiles", "Rule B: spaces in Python"):
        saved = run_cli("remember", "--source", "user", rule, cwd=project)
        assert saved.returncode == 0, saved.stderr
    first = cli_process(project, "undo", pause="conkeeper.domain.safewrite.undo")
    assert first.wait_for("paused") == "paused"  # it has read the journal and chosen
    second = run_cli("undo", cwd=project)
    assert second.returncode == 0, second.stderr
    code, out, err = first.finish()
    assert code == 0, err
    said = sorted(line.split(" (")[0] for line in (second.stdout.strip(), out.strip()))
    assert said == ["Undid write 1", "Undid write 2"]
    assert patterns.read_bytes() == before
