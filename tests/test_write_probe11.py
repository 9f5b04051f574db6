"""An eleventh round on "nothing the user wrote is ever lost", from outside.

A person edits a file while ConKeeper writes it (every way editors save, placed between
ConKeeper's read and write by the ``CONKEEPER_STOP_AT`` seam), and the database and data home
are damaged (a torn WAL, a full disk). Every case goes through the real ``conkeeper`` command or
hook as a subprocess.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import cli_env, run_cli
from conkeeper.domain import safewrite
from conkeeper.domain.paths import data_home, db_path
from conkeeper.domain.safewrite import edit_file, undo
from conkeeper.storage.recovery import backup_path as recovery_backup
from test_history_damage import ENV, a_session


def _file_size_limit(size: int) -> None:
    """Run in the child before ``exec``: no file may grow past ``size`` bytes (a full disk, as
    far as every write is concerned; Python ignores the ``SIGXFSZ`` that goes with it)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def test_doctor_on_a_full_disk_leaves_no_probe_file_and_names_the_cause(project: Path) -> None:
    """``doctor`` checks the data home by writing a probe file; on a full disk the write failed
    after the file was made, so every run left a ``.doctor-probe-PID`` behind, and the advice
    was to fix the folder's permissions. The probe goes whatever happens, and the fix line
    names the full disk (here a file-size limit, which fails writes the same way)."""
    done = subprocess.run(
        [sys.executable, "-m", "conkeeper", "doctor"],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: _file_size_limit(1),
    )
    home = data_home()
    assert not [p.name for p in home.iterdir() if p.name.startswith(".doctor-probe")]
    line = next(x for x in done.stdout.splitlines() if x.startswith("FAIL  data home"))
    fix = done.stdout.splitlines()[done.stdout.splitlines().index(line) + 1]
    assert "permissions" not in fix, done.stdout
    assert "ulimit" in fix, done.stdout


def _holder(db: Path) -> subprocess.Popen[bytes]:
    """A process holding a read transaction open on ``db``, as a session killed mid-read
    does: no checkpoint can fold the WAL into the file past it, so later sessions live in the
    WAL alone. It says ``ready`` once it holds the snapshot and waits on stdin."""
    code = (
        "import sqlite3, sys\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "c.execute('BEGIN'); c.execute('SELECT COUNT(*) FROM sessions').fetchall()\n"
        "print('ready', flush=True); sys.stdin.read()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    return proc


def _listed(project: Path) -> set[str]:
    done = run_cli("sessions", "--json", cwd=project, env=cli_env(**ENV))
    assert done.returncode == 0, done.stderr
    return {s["host_session_id"] for s in json.loads(done.stdout)["sessions"]}


def test_a_session_a_torn_wal_lost_is_put_back_from_the_row_journal_by_the_next_backup(
    project: Path,
) -> None:
    """Sessions written while a killed process's snapshot kept the WAL from being folded in
    lived in the WAL alone; a power cut tore its last frames, and SQLite silently drops every
    frame from the tear on. The file is sound, so no restore ran: the lost session was in the
    row journal, but ``backup`` rotated the journal away (the second backup deleted it) and
    the session was gone for good. A backup now first puts back, from the journal, every
    session the database lacks, and says so."""
    a_session(project, "sess-a", "discount")
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    db = db_path()
    holder = _holder(db)
    wal = Path(f"{db}-wal")
    try:
        a_session(project, "sess-b", "shipping")
        torn_at = wal.stat().st_size + 100  # the first frame of the next session, cut short
        a_session(project, "sess-c", "tax")
    finally:
        holder.kill()
        holder.wait()
    with wal.open("r+b") as handle:
        handle.truncate(torn_at)
    assert _listed(project) == {"sess-a", "sess-b"}  # the tear, as SQLite reads it
    first = run_cli("backup", cwd=project, env=cli_env(**ENV))
    assert first.returncode == 0, first.stderr
    assert "put back 1 session(s)" in first.stdout, first.stdout
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    assert _listed(project) == {"sess-a", "sess-b", "sess-c"}
    conn = sqlite3.connect(db)
    try:
        prompts = conn.execute(
            "SELECT p.text FROM prompts p JOIN sessions s ON s.id = p.session_id "
            "WHERE s.host_session_id = 'sess-c' ORDER BY p.prompt_number"
        ).fetchall()
    finally:
        conn.close()
    assert prompts == [("fix the tax rounding bug in cart.py",), ("good, commit it",)]


def test_a_deleted_database_never_replaces_the_backup_that_holds_the_history(
    project: Path,
) -> None:
    """The person deleted the database (or a clean-up tool did, or it went while a hook ran);
    the next hook made a new, empty one, sound as far as SQLite can tell. The next backup then
    copied that file over the backup that held every older session, and they were gone. A
    backup now notices a database missing sessions its backup holds, restores (backup, row
    journal, and what the new file holds) and says so in one line."""
    a_session(project, "sess-a", "discount")
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    a_session(project, "sess-b", "shipping")
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    a_session(project, "sess-c", "tax")
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    for name in ("", "-wal", "-shm"):
        Path(f"{db_path()}{name}").unlink(missing_ok=True)
    a_session(project, "sess-d", "refund")
    assert _listed(project) == {"sess-d"}
    doctor = run_cli("doctor", cwd=project, env=cli_env(**ENV)).stdout
    assert "lacks 3 session(s) its backup holds" in doctor, doctor
    done = run_cli("backup", cwd=project, env=cli_env(**ENV))
    assert done.returncode == 0, done.stderr
    assert "lacked 3 session(s) its backup holds" in done.stdout, done.stdout
    assert _listed(project) == {"sess-a", "sess-b", "sess-c", "sess-d"}
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    conn = sqlite3.connect(recovery_backup(db_path()))
    try:
        kept = {row[0] for row in conn.execute("SELECT host_session_id FROM sessions")}
    finally:
        conn.close()
    assert kept == {"sess-a", "sess-b", "sess-c", "sess-d"}


def _stopped(args: list[str], cwd: Path, point: str) -> subprocess.Popen[str]:
    """``conkeeper ARGS`` run until ``CONKEEPER_STOP_AT=point`` stops it (SIGSTOP)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", *args],
        cwd=cwd,
        env=cli_env(CONKEEPER_STOP_AT=point),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status = os.waitpid(proc.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    return proc


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """Let a stopped command run to its end; its exit code and stderr."""
    os.kill(proc.pid, signal.SIGCONT)
    _, status = os.waitpid(proc.pid, os.WUNTRACED)
    while os.WIFSTOPPED(status):  # the same seam reached again by a retry
        os.kill(proc.pid, signal.SIGCONT)
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
    assert proc.stderr is not None
    return os.waitstatus_to_exitcode(status), proc.stderr.read()


def _save_in_place(path: Path, data: bytes) -> None:
    """An editor's save in place: the file truncated, then written, through the same inode."""
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(data)


SETTINGS = b'{\n  "theme": "Dark"\n}\n'


def test_a_settings_file_saved_in_place_as_install_renames_stays_valid_json(
    project: Path,
) -> None:
    """``install --agent gemini`` held right before its rename; the person's editor had the
    settings open and saved them in place, a key added at the top. Their text went to the file
    the rename replaced, and the line ConKeeper put back landed after the closing brace: the
    settings were no longer JSON (Gemini CLI would not start), and ``undo`` left them so. The
    person's text is now put back and the install starts again on it (here refused in one
    line: the bytes it planned against changed), so the file is what the person saved."""
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(SETTINGS)
    install = _stopped(["install", "--agent", "gemini"], project, "renaming")
    theirs = b'{\n  "personKey": 1,\n  "theme": "Dark"\n}\n'
    _save_in_place(path, theirs)
    code, err = _finish(install)
    json.loads(path.read_bytes())
    if code == 0:
        assert b'"personKey": 1' in path.read_bytes()
        assert b"conkeeper" in path.read_bytes()
    else:
        assert len(err.strip().splitlines()) == 1, err
        assert path.read_bytes() == theirs
    assert run_cli("install", "--agent", "gemini", cwd=project).returncode == 0
    done = json.loads(path.read_bytes())
    assert done["personKey"] == 1 and "hooks" in done


def test_a_memory_file_saved_in_place_as_tag_add_renames_keeps_the_line_where_written(
    project: Path,
) -> None:
    """``tag add`` held right before its rename; the person saved ``patterns.md`` in place with
    a new bullet under Notes. It went to the end of the file instead (under the last heading),
    out of its section. The tag is now added to the person's text, their line where they wrote
    it, and ``undo`` gives exactly what they saved."""
    assert run_cli("init", "--no", cwd=project).returncode == 0
    path = project / ".claude" / "memory" / "patterns.md"
    path.write_bytes(b"# Patterns\n\n## Notes\n\n- Keep functions short\n\n## Later\n\n- last\n")
    tagging = _stopped(["tag", "add", str(path), "5", "convention"], project, "renaming")
    theirs = (
        b"# Patterns\n\n## Notes\n\n- Keep functions short\n- Name things well\n\n"
        b"## Later\n\n- last\n"
    )
    _save_in_place(path, theirs)
    code, err = _finish(tagging)
    assert code == 0, err
    assert path.read_bytes() == (
        b"# Patterns\n\n## Notes\n\n- Keep functions short\n<!-- @category: convention -->\n"
        b"- Name things well\n\n## Later\n\n- last\n"
    )
    assert run_cli("undo", cwd=project).returncode == 0
    assert path.read_bytes() == theirs


_LINES = st.lists(
    st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n\x00"), max_size=20),
    min_size=1,
    max_size=8,
)


@settings(max_examples=40, deadline=None)
@given(ours=_LINES, theirs=_LINES, at=st.integers(min_value=0, max_value=8))
def test_an_edit_raced_by_a_save_in_place_lands_on_the_persons_text_property(
    tmp_path_factory: pytest.TempPathFactory, ours: list[str], theirs: list[str], at: int
) -> None:
    """Whatever the person saves in place right before the rename of an edit that rewrites
    the file, the file ends as the edit applied to their text (a save that only added to the
    end reads as an append, and is carried after the edit), and undo gives their text back
    byte for byte."""
    folder = tmp_path_factory.mktemp("raced")
    path = folder / "notes.md"
    mine = "".join(f"{line}\n" for line in ours).encode()
    path.write_bytes(mine)
    saved = "".join(f"{line}\n" for line in theirs).encode()
    added = b"- ConKeeper's line\n"

    def insert(current: bytes) -> bytes:
        lines = current.splitlines(keepends=True)
        cut = min(at, len(lines) - 1)  # never after the last line: a rewrite, not an append
        return b"".join(lines[:cut]) + added + b"".join(lines[cut:])

    assume(not insert(mine).startswith(mine))

    def person_saves(point: str) -> None:
        if point == "renaming" and path.read_bytes() != saved:
            _save_in_place(path, saved)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(safewrite, "seam", person_saves)
        result = edit_file(path, insert, command="test", source="test", root=folder)
    if saved.startswith(mine):
        assert path.read_bytes() == insert(mine) + saved[len(mine) :]
    else:
        assert path.read_bytes() == insert(saved)
    assert result.before == saved
    undo(safewrite.journal_folder(str(path), folder, None))
    assert path.read_bytes() == saved
