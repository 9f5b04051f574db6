"""The session history survives damage to the database file.

The promise, measured through the real entry points: hooks run as subprocesses record sessions
(SessionStart, prompts, tool uses, SessionEnd), the SessionEnd worker's steps (``extract``, then
the backup) run as the CLI, more sessions follow, then the database file is damaged the two
commonest ways (cut to half its size; garbage over its first 4 KB). The next command restores it,
says so in one line, and every session that ended before the damage is still there with its
prompts, tool events, observations and summary. ``forget`` reaches the backup and the journal,
and what was forgotten never comes back (import, restore).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from conftest import cli_env, run_cli
from conkeeper.domain.paths import db_path

ENV = {"CONKEEPER_DETACHED": "0"}  # the test runs the SessionEnd worker's steps itself


def hook(event: str, project: Path, session: str, **fields: Any) -> None:
    """One hook, as Claude Code runs it: a subprocess with the payload on stdin."""
    payload = {
        "session_id": session,
        "transcript_path": str(project.parent / f"{session}.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    result = run_cli("hook", event, stdin=json.dumps(payload), env=cli_env(**ENV))
    assert result.returncode == 0, result.stderr


def a_session(project: Path, session: str, topic: str) -> None:
    """A short real session: start, two prompts with tool uses (an edit, a test run, a
    commit), end; then the worker's steps: extract (observations and summary)."""
    hook("SessionStart", project, session, source="startup")
    hook("UserPromptSubmit", project, session, prompt=f"fix the {topic} rounding bug in cart.py")
    hook(
        "PostToolUse",
        project,
        session,
        tool_name="Edit",
        tool_input={
            "file_path": str(project / "src" / f"{topic}.py"),
            "old_string": "round(x)",
            "new_string": "round(x, 2)",
        },
        tool_response={"filePath": str(project / "src" / f"{topic}.py")},
        tool_use_id=f"{session}-edit",
    )
    hook(
        "PostToolUse",
        project,
        session,
        tool_name="Bash",
        tool_input={"command": f"pytest tests/test_{topic}.py -q"},
        tool_response={"stdout": "3 passed", "stderr": "", "interrupted": False},
        tool_use_id=f"{session}-test",
    )
    hook("UserPromptSubmit", project, session, prompt="good, commit it")
    hook(
        "PostToolUse",
        project,
        session,
        tool_name="Bash",
        tool_input={"command": f'git commit -am "Fix {topic} rounding"'},
        tool_response={"stdout": "[main 1a2b3c4] Fix", "stderr": "", "interrupted": False},
        tool_use_id=f"{session}-commit",
    )
    hook("SessionEnd", project, session, reason="prompt_input_exit")
    result = run_cli("extract", "--session", session, "--quiet", cwd=project, env=cli_env(**ENV))
    assert result.returncode == 0, result.stderr


def history(path: Path) -> dict[str, Any]:
    """Every ended session with what hangs off it, by natural keys (row ids may change)."""
    conn = sqlite3.connect(path)
    try:
        out: dict[str, Any] = {}
        for sid, host_id, status, ended, title in conn.execute(
            "SELECT id, host_session_id, status, ended_at, title FROM sessions "
            "WHERE status = 'completed' ORDER BY host_session_id"
        ).fetchall():
            out[host_id] = {
                "session": (status, ended, title),
                "prompts": conn.execute(
                    "SELECT prompt_number, text FROM prompts WHERE session_id = ? ORDER BY 1",
                    (sid,),
                ).fetchall(),
                "tool_events": conn.execute(
                    "SELECT tool_use_id, status, input_summary FROM tool_events "
                    "WHERE session_id = ? ORDER BY 1",
                    (sid,),
                ).fetchall(),
                "observations": conn.execute(
                    "SELECT content_hash, title, narrative FROM observations "
                    "WHERE session_id = ? ORDER BY 1",
                    (sid,),
                ).fetchall(),
                "summary": conn.execute(
                    "SELECT request, completed, next_steps FROM session_summaries "
                    "WHERE session_id = ?",
                    (sid,),
                ).fetchall(),
            }
        return out
    finally:
        conn.close()


def settle(path: Path) -> None:
    """Fold the WAL into the file, as SQLite does when the last connection closes."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def truncate_to_half(path: Path) -> None:
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.truncate(size // 2)


def garbage_over_header(path: Path) -> None:
    with path.open("r+b") as handle:
        handle.write(os.urandom(4096))


DAMAGE = {"truncated-to-half": truncate_to_half, "garbage-over-header": garbage_over_header}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("with_backup", [True, False], ids=["backup+journal", "journal-only"])
def test_every_ended_session_survives_damage(project: Path, damage: str, with_backup: bool) -> None:
    a_session(project, "sess-before-backup", "discount")
    if with_backup:
        result = run_cli("backup", cwd=project, env=cli_env(**ENV))
        assert result.returncode == 0, result.stderr
        assert "backup" in result.stdout.lower()
    a_session(project, "sess-after-backup", "shipping")
    a_session(project, "sess-last", "tax")
    path = db_path()
    settle(path)
    before = history(path)
    assert set(before) == {"sess-before-backup", "sess-after-backup", "sess-last"}
    for found in before.values():
        assert found["prompts"] and found["tool_events"] and found["observations"]
        assert found["summary"]

    DAMAGE[damage](path)
    result = run_cli("sessions", "--json", cwd=project, env=cli_env(**ENV))

    assert result.returncode == 0, result.stderr
    notices = [line for line in result.stderr.splitlines() if "damaged" in line]
    assert len(notices) == 1, result.stderr
    notice = notices[0]
    assert ("restored the backup of" in notice) == with_backup
    assert "replayed" in notice
    if with_backup:
        assert "every recorded session was kept" in notice
    else:  # honest: without a backup, only the journal's span is certain
        assert "there was no backup yet: every write since" in notice
    assert "index --rebuild" not in result.stderr
    assert history(path) == before
    listed = {s["host_session_id"] for s in json.loads(result.stdout)["sessions"]}
    assert set(before) <= listed
    assert list(path.parent.glob("conkeeper.db.damaged-*"))  # the damaged file is kept

    again = run_cli("sessions", cwd=project, env=cli_env(**ENV))
    assert again.returncode == 0 and "damaged" not in again.stderr


def test_a_hook_fails_open_on_a_damaged_database_and_the_next_command_restores(
    project: Path,
) -> None:
    a_session(project, "sess-1", "discount")
    path = db_path()
    settle(path)
    before = history(path)
    truncate_to_half(path)
    size = path.stat().st_size
    hook("UserPromptSubmit", project, "sess-2", prompt="start something new")  # exits 0
    assert path.stat().st_size == size  # nothing was written into the broken file
    result = run_cli("sessions", cwd=project, env=cli_env(**ENV))
    assert result.returncode == 0 and "was damaged" in result.stderr
    assert history(path) == before


def test_without_backup_or_journal_the_notice_says_what_is_lost(project: Path) -> None:
    a_session(project, "sess-1", "discount")
    folder = db_path().parent / "backups"
    for file in folder.glob("journal*"):
        file.unlink()
    settle(db_path())
    garbage_over_header(db_path())
    result = run_cli("sessions", cwd=project, env=cli_env(**ENV))
    assert result.returncode == 0
    line = next(x for x in result.stderr.splitlines() if "damaged" in x)
    assert "is lost" in line and "conkeeper export" in line


def test_backup_is_taken_by_the_next_command_only_when_due(project: Path) -> None:
    a_session(project, "sess-1", "discount")
    backup = db_path().parent / "backups" / "conkeeper-backup.db"
    assert not backup.exists()  # hooks never back up
    assert run_cli("sessions", cwd=project, env=cli_env(**ENV)).returncode == 0
    assert backup.exists()  # rows were journaled and there was no backup: due
    journal = db_path().parent / "backups" / "journal.jsonl"
    assert not journal.exists()  # rotated: its rows are in the backup
    stamp = backup.stat().st_mtime_ns
    a_session(project, "sess-2", "tax")
    assert run_cli("sessions", cwd=project, env=cli_env(**ENV)).returncode == 0
    assert backup.stat().st_mtime_ns == stamp  # the last one is recent: not due yet
    assert journal.stat().st_size > 0


def test_forget_reaches_backup_and_journal_and_stays_forgotten(project: Path) -> None:
    a_session(project, "sess-keep", "discount")
    a_session(project, "sess-forget", "zanzibarword")
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    hook("UserPromptSubmit", project, "sess-forget", prompt="zanzibarword once more")
    hook("SessionEnd", project, "sess-forget", reason="other")
    path = db_path()
    conn = sqlite3.connect(path)
    (sid,) = conn.execute(
        "SELECT id FROM sessions WHERE host_session_id = 'sess-forget'"
    ).fetchone()
    conn.close()
    export = project.parent / "before-forget.jsonl"
    assert run_cli("export", "-o", str(export), cwd=project).returncode == 0

    result = run_cli("forget", "session", str(sid), "--yes", cwd=project, env=cli_env(**ENV))
    assert result.returncode == 0, result.stderr

    folder = path.parent / "backups"
    for file in folder.iterdir():
        if file.is_file():
            assert b"zanzibarword" not in file.read_bytes(), file.name
    # an old export does not bring it back
    imported = run_cli("import", "jsonl", str(export), "--json", cwd=project)
    assert imported.returncode == 0 and json.loads(imported.stdout)["forgotten"] > 0
    conn = sqlite3.connect(path)
    assert conn.execute(
        "SELECT COUNT(*) FROM sessions WHERE host_session_id = 'sess-forget'"
    ).fetchone() == (0,)
    assert (
        conn.execute("SELECT COUNT(*) FROM prompts WHERE text LIKE '%zanzibarword%'").fetchone()[0]
        == 0
    )
    conn.close()
    # nor a restore from backup and journal
    settle(path)
    truncate_to_half(path)
    restored = run_cli("sessions", "--json", cwd=project, env=cli_env(**ENV))
    assert restored.returncode == 0 and "was damaged" in restored.stderr
    names = {s["host_session_id"] for s in json.loads(restored.stdout)["sessions"]}
    assert "sess-keep" in names and "sess-forget" not in names


def test_doctor_restores_a_damaged_database_and_names_the_backup(project: Path) -> None:
    a_session(project, "sess-1", "discount")
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    healthy = run_cli("doctor", cwd=project, env=cli_env(**ENV))
    assert "conkeeper-backup.db from" in healthy.stdout, healthy.stdout
    before = history(db_path())
    settle(db_path())
    garbage_over_header(db_path())
    result = run_cli("doctor", cwd=project, env=cli_env(**ENV))
    assert "was damaged" in result.stdout and "restored the backup of" in result.stdout
    assert "index --rebuild" not in result.stdout + result.stderr
    assert history(db_path()) == before


def test_session_start_on_a_damaged_database_tells_the_person(project: Path) -> None:
    a_session(project, "sess-1", "discount")
    settle(db_path())
    garbage_over_header(db_path())
    payload = {
        "session_id": "sess-2",
        "transcript_path": str(project.parent / "sess-2.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    result = run_cli("hook", "SessionStart", stdin=json.dumps(payload), env=cli_env(**ENV))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert "damaged" in out["systemMessage"] and "conkeeper doctor" in out["systemMessage"]
    assert "additionalContext" in out["hookSpecificOutput"]  # memory still loads
    # the worker the hook would start restores; doctor then says what it restored
    worker = run_cli("backup", "--if-due", cwd=project, env=cli_env(**ENV))
    assert worker.returncode == 0 and "was damaged" in worker.stderr
    doctor = run_cli("doctor", cwd=project, env=cli_env(**ENV))
    assert "lately the database" in doctor.stdout and "was damaged" in doctor.stdout


def test_a_restore_under_way_is_not_restored_a_second_time(tmp_path: Path) -> None:
    """A process that saw the empty file another process's restore had just created waits for
    the restore lock; once that restore is done the file is whole, and it must leave it alone."""
    import fcntl
    import threading

    from conkeeper.storage import recovery

    target = tmp_path / "conkeeper.db"
    good = sqlite3.connect(tmp_path / "good.db")
    good.execute("CREATE TABLE t (x)")
    good.execute("INSERT INTO t VALUES (1)")
    good.commit()
    good.close()
    target.write_bytes(b"")  # the restore under way has just created it
    folder = recovery.backup_folder(target)
    folder.mkdir(parents=True, exist_ok=True)
    held = os.open(folder / ".restore.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)  # ... and holds the lock
    answers: list[str | None] = []
    waiter = threading.Thread(target=lambda: answers.append(recovery.recover(target)))
    waiter.start()
    lock_inode = os.stat(folder / ".restore.lock").st_ino
    for _ in range(100_000):  # until the waiter is blocked on the lock (/proc/locks shows it)
        waiting = Path("/proc/locks").read_text()
        if any("->" in line and f":{lock_inode} " in line for line in waiting.splitlines()):
            break
    with open(target, "r+b") as same_file:  # the restore finishes into the same file
        same_file.write((tmp_path / "good.db").read_bytes())
    os.close(held)
    waiter.join(timeout=60)
    assert answers == [None]
    assert not list(tmp_path.glob("conkeeper.db.damaged-*"))


def _waits_on_a_lock(pid: int) -> bool:
    """Whether process ``pid`` is queued for a ``flock`` (``/proc/locks`` lists waiters)."""
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields and str(pid) in fields:
            return True
    return False


def test_two_backups_at_once_both_succeed_and_leave_a_sound_backup(project: Path) -> None:
    """``conkeeper backup`` run while SessionEnd's worker was backing up failed ("disk I/O
    error"): both wrote the same temporary copy, the second deleting the first's under it.
    Every backup writer now takes the backup folder's lock; the second waits, then backs up."""
    import signal
    import subprocess
    import sys

    a_session(project, "sess-1", "discount")
    first = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "backup"],
        cwd=project,
        env=cli_env(**ENV, CONKEEPER_STOP_AT="backup-copied"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, status = os.waitpid(first.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    second = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "backup"],
        cwd=project,
        env=cli_env(**ENV),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    while not _waits_on_a_lock(second.pid):
        try:
            second.wait(timeout=0.02)
            break
        except subprocess.TimeoutExpired:
            continue
    os.kill(first.pid, signal.SIGCONT)
    out_1, err_1 = first.communicate(timeout=60)
    out_2, err_2 = second.communicate(timeout=60)
    assert first.returncode == 0, err_1.decode()
    assert second.returncode == 0, err_2.decode()
    assert b"Backed up" in out_1 and b"Backed up" in out_2
    folder = db_path().parent / "backups"
    assert not (folder / "conkeeper-backup.db.tmp").exists()
    from conkeeper.storage.recovery import structure_check

    with sqlite3.connect(folder / "conkeeper-backup.db") as conn:
        assert structure_check(conn) is None
        assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
