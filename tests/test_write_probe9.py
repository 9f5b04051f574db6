"""A ninth round on "nothing the user wrote is ever lost", from outside.

The shapes swept here: a memory folder the person made read-only. Tests run as root, where
``chmod a-w`` stops nothing, so the folder is made immutable (``chattr +i``: no file can be
created, renamed or removed in it, as for a person's read-only folder). Every case goes through
the real ``conkeeper`` command as a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import cli_env, run_cli
from test_e2e_session import set_up_project
from test_learning_probe8 import _print_session
from test_reflect_facts import NamedSession
from test_write_probe8 import _finished_or_waiting


def _chattr(flag: str, path: Path) -> bool:
    """Set or clear the immutable attribute; whether it took (a file system or a user that
    cannot set it: the case is skipped, nothing else stands in for it)."""
    if shutil.which("chattr") is None:
        return False
    done = subprocess.run(["chattr", flag, str(path)], capture_output=True, check=False)
    return done.returncode == 0


@contextmanager
def _read_only(path: Path) -> Iterator[None]:
    """``path`` immutable for the ``with`` block (cleared after, so the test folder goes)."""
    if not _chattr("+i", path):
        pytest.skip("cannot make a folder immutable here (chattr +i)")
    try:
        yield
    finally:
        _chattr("-i", path)


REF = "previous assistant message"


def _continue_to_the_end(proc: subprocess.Popen[bytes]) -> int:
    """Let a process held at a seam go on, again at each later stop there (an edit that starts
    again stops again); its exit status."""
    while True:
        os.kill(proc.pid, signal.SIGCONT)
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode


def _journal(memory: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((memory / ".history").glob("*.json"))]


def test_an_entry_placed_in_a_read_only_folder_is_one_line_and_nothing_half_written(
    project: Path,
) -> None:
    """An entry placed under its heading (a rewrite, not an append) in a folder the person made
    read-only failed with ``remember failed: PermissionError ... .conkeeper-tmp`` (the temporary
    file the rename needs could not be created), the look of a crash. It is now one line that
    names the folder, with nothing written and no journal entry left behind."""
    memory = project / ".claude" / "memory"
    assert run_cli("init", cwd=project).returncode == 0
    assert run_cli("remember", "Use pnpm, not npm, for installs", cwd=project).returncode == 0
    before = {p.name: p.read_bytes() for p in memory.iterdir() if p.is_file()}
    entries = len(_journal(memory))
    with _read_only(memory):
        done = run_cli("remember", "Prefer pathlib over os.path in new code", cwd=project)
    assert done.returncode == 1, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "read-only" in lines[0] and str(memory) in lines[0], lines[0]
    assert "PermissionError" not in lines[0] and "conkeeper-tmp" not in lines[0], lines[0]
    assert {p.name: p.read_bytes() for p in memory.iterdir() if p.is_file()} == before
    assert len(_journal(memory)) == entries
    assert not list(memory.glob("*.conkeeper-tmp"))


def test_forget_session_with_a_read_only_retro_forgets_nothing_until_it_can_finish(
    tmp_path: Path,
) -> None:
    """``forget session`` deleted the session's rows first and then took its lines out of the
    queue and retro files: a retro the person had made read-only failed the command after the
    rows were gone (``forget failed: WriteError``), and the person's words stayed quoted in it
    with no session left to forget again. The files are now changed first: a file that cannot
    be changed is one line, nothing is forgotten, and the same command finishes once the file
    is writable."""
    kept = NamedSession(tmp_path, "sess-kept-0001")
    set_up_project(kept)
    s = NamedSession(tmp_path, "sess-forget-1", project=kept.project)
    _print_session(s)
    memory = s.project / ".claude" / "memory"
    assert run_cli("reflect", "--write", cwd=s.project, env=s.env).returncode == 0
    queue, retro = memory / "corrections-queue.md", next((memory / "sessions").glob("*-retro.md"))
    assert "logger" in retro.read_text() and "logger" in queue.read_text()
    with _read_only(retro):
        forgot = run_cli("forget", "session", "sess-forget-1", "--yes", cwd=s.project)
        assert forgot.returncode == 1, forgot
        lines = forgot.stderr.strip().splitlines()
        assert len(lines) == 1 and "read-only" in lines[0], forgot.stderr
        assert "WriteError" not in lines[0], lines[0]
    assert "logger" in retro.read_text()
    forgot = run_cli("forget", "session", "sess-forget-1", "--yes", "--json", cwd=s.project)
    assert forgot.returncode == 0, forgot.stderr
    assert json.loads(forgot.stdout)["sessions"] == 1
    for path in (queue, retro):
        assert "logger" not in path.read_text(encoding="utf-8"), path.read_text()


def test_a_reject_held_at_its_rename_keeps_an_editor_save_and_a_hook_line(project: Path) -> None:
    """``corrections reject`` held right before its rename; meanwhile the person saves the
    queue from their editor (a new file renamed over it, their own note added) and a hook
    queues a correction. The item alone leaves; the note and the hook's line stay."""
    memory = project / ".claude" / "memory"
    assert run_cli("init", cwd=project).returncode == 0
    queue = memory / "corrections-queue.md"
    with open(queue, "a", encoding="utf-8") as handle:
        for n, said in enumerate(("use the logger, not print", "run ruff before committing")):
            handle.write(f'- **2026-11-01 10:00:0{n}** | correction | "{said}" | ref: {REF}\n')
    listed = json.loads(run_cli("corrections", "list", "--json", cwd=project).stdout)
    first = next(i["id"] for i in listed["items"] if "logger" in i["text"])
    reject = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "corrections", "reject", first],
        cwd=project,
        env=cli_env(CONKEEPER_STOP_AT="renaming"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, status = os.waitpid(reject.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    saved = queue.with_name(".corrections-queue.md.swp")
    saved.write_bytes(queue.read_bytes() + b"- my own note: ask Dana about ruff\n")
    saved.replace(queue)
    prompt = "no, don't use print statements for debugging, use the logging module instead"
    hook = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "hook", "UserPromptSubmit"],
        cwd=project,
        env=cli_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    payload = {
        "session_id": "s-q",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    assert hook.stdin is not None
    hook.stdin.write(json.dumps(payload).encode())
    hook.stdin.close()
    _finished_or_waiting(hook)
    assert _continue_to_the_end(reject) == 0, reject.stderr.read() if reject.stderr else ""
    hook.wait(timeout=120)
    assert hook.returncode == 0
    text = queue.read_text(encoding="utf-8")
    assert "use the logger, not print" not in text, text
    assert "run ruff before committing" in text, text
    assert "- my own note: ask Dana about ruff\n" in text, text
    assert text.count("use the logging module") == 1, text


def test_consolidate_stopped_by_a_persons_edit_names_the_file_it_already_merged(
    project: Path,
) -> None:
    """``consolidate --apply`` merges file by file. Held before its first rename while the
    person reworded the copy it was to remove in the second file, it merged the first file
    and then said "nothing was written": the person believed no file had changed. The line now
    names the file already merged and how to take it back; the reworded line stays."""
    memory = project / ".claude" / "memory"
    ruff, mypy = "- Always run ruff before committing code.\n", ", and mypy too.\n"
    (memory / "patterns.md").write_text(
        f"# Patterns\n\n{ruff}- Use pathlib for file paths in new modules.\n{ruff}"
    )
    night = "- The staging database resets every night at 2am.\n"
    (memory / "gotchas.md").write_text(
        f"# Gotchas\n\n{night}- Tests need the redis container running first.\n{night}"
    )
    assert "gotchas.md" in run_cli("consolidate", cwd=project).stdout
    applying = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "consolidate", "--apply"],
        cwd=project,
        env=cli_env(CONKEEPER_STOP_AT="renaming"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, status = os.waitpid(applying.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    patterns = memory / "patterns.md"
    reworded = patterns.read_text().rsplit(ruff, 1)[0] + ruff.rstrip(".\n") + mypy
    patterns.write_text(reworded)
    assert _continue_to_the_end(applying) == 1
    assert applying.stderr is not None
    lines = applying.stderr.read().decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert "nothing was written" not in lines[0], lines[0]
    assert "gotchas.md" in lines[0] and "undo" in lines[0], lines[0]
    assert patterns.read_text() == reworded
    assert (memory / "gotchas.md").read_text().count(night) == 1


def test_corrections_apply_says_when_the_person_reworded_the_queued_line_meanwhile(
    project: Path,
) -> None:
    """``corrections apply`` held while writing the rule; the person rewords the queued line
    meanwhile. Their line stayed (right) but the command said only "Applied", and the person
    believed the queue was done with it. It now says, in one line, that the line was left."""
    memory = project / ".claude" / "memory"
    assert run_cli("init", cwd=project).returncode == 0
    queue = memory / "corrections-queue.md"
    said = "use the logger, not print"
    with open(queue, "a", encoding="utf-8") as handle:
        handle.write(f'- **2026-11-01 10:00:00** | correction | "{said}" | ref: {REF}\n')
    listed = json.loads(run_cli("corrections", "list", "--json", cwd=project).stdout)
    args = ["corrections", "apply", listed["items"][0]["id"], "--to", "convention"]
    applying = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", *args, "--category", "convention"],
        cwd=project,
        env=cli_env(CONKEEPER_STOP_AT="renaming"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, status = os.waitpid(applying.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    reworded = queue.read_text().replace(said, "use the logger in src/log.py, never print")
    queue.write_text(reworded)
    assert _continue_to_the_end(applying) == 0
    assert applying.stdout is not None
    out = applying.stdout.read().decode()
    assert out.startswith("Applied to patterns.md"), out
    assert "changed since it was read" in out and "left as it is" in out, out
    assert queue.read_text() == reworded
