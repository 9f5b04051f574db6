"""The defects write probe 9 found and left, closed one by one, each through its real entry point
(the ``conkeeper`` command as a subprocess, the viewer over HTTP)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlencode

import pytest

from conftest import cli_env, run_cli

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_viewer_security import csrf_token, login, request
from test_write_probe9 import _journal, _read_only
from viewer_support import Viewer, running_viewer

REF = "previous assistant message"
SAID = "use the logger, not print"


def _queue_one(project: Path) -> Path:
    """An initialised project whose corrections queue holds one item; the queue's path."""
    assert run_cli("init", cwd=project).returncode == 0
    queue = project / ".claude" / "memory" / "corrections-queue.md"
    with open(queue, "a", encoding="utf-8") as handle:
        handle.write(f'- **2026-11-01 10:00:00** | correction | "{SAID}" | ref: {REF}\n')
    return queue


def _editor_save(path: Path, text: str) -> None:
    """Save ``text`` as an editor does: a file beside it renamed over it."""
    beside = path.with_name(path.name + ".swp")
    beside.write_text(text, encoding="utf-8")
    os.replace(beside, path)


def _post_while_held(v: Viewer, path: str, body: str, cookie: str, meanwhile: object) -> str:
    """POST ``body`` to a viewer started with ``CONKEEPER_STOP_AT``: wait until it stops at the
    seam, run ``meanwhile`` (a person's edit), let it go on; the redirect's location."""
    answer: dict[str, str] = {}

    def send() -> None:
        answer["location"] = request(v, path, method="POST", cookie=cookie, body=body)[1].get(
            "location", ""
        )

    sender = threading.Thread(target=send)
    sender.start()
    _, status = os.waitpid(v.proc.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    assert callable(meanwhile)
    meanwhile()
    while sender.is_alive():
        os.kill(v.proc.pid, signal.SIGCONT)
        sender.join(timeout=0.5)
        if sender.is_alive():  # stopped again at a later rename: wait for it, go on
            os.waitpid(v.proc.pid, os.WUNTRACED | os.WNOHANG)
    return answer["location"]


def test_the_viewer_says_when_the_person_reworded_the_queued_line_meanwhile(
    project: Path,
) -> None:
    """A reject from the viewer held at its rename; the person's editor saves the queued line
    reworded meanwhile. Their line stays, and the viewer said "Rejected:" as if the item were
    gone. It now says, in one line, that the line changed and was left as it is."""
    queue = _queue_one(project)
    with running_viewer(project, CONKEEPER_STOP_AT="renaming") as v:
        cookie = login(v)
        line = next(n for n, t in enumerate(queue.read_text().splitlines(), 1) if SAID in t)
        body = urlencode({"csrf": csrf_token(v, cookie), "line": str(line)})
        reworded = queue.read_text().replace(SAID, "use the logger in src/log.py, never print")
        location = _post_while_held(
            v, "/queue/reject", body, cookie, lambda: _editor_save(queue, reworded)
        )
        shown = request(v, location, cookie=cookie)[2]
    assert "changed since it was read" in shown and "left as it is" in shown, shown
    assert "Rejected:" not in shown
    assert queue.read_text() == reworded


@pytest.mark.parametrize("how", ["renamed", "removed"])
def test_undo_of_a_file_renamed_or_removed_since_says_so_in_one_line_without_a_diff(
    project: Path, how: str
) -> None:
    """``undo`` of a write whose file the person renamed or removed since refused (right) but
    printed the whole file as a "removed" diff. It now says in one line that the file is gone
    and nothing was undone, and prints no diff; the renamed file is untouched."""
    memory = project / ".claude" / "memory"
    assert run_cli("init", cwd=project).returncode == 0
    rule = "Run the linter before every commit"
    made = run_cli("remember", rule, "--file", "notes.md", "--source", "user", cwd=project)
    assert made.returncode == 0, made.stderr
    notes = memory / "notes.md"
    kept = notes.read_text()
    if how == "renamed":
        notes.rename(memory / "team-notes.md")
    else:
        notes.unlink()
    proc = run_cli("undo", cwd=project)
    assert proc.returncode == 1
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "notes.md" in proc.stderr and "nothing was undone" in proc.stderr, proc.stderr
    assert "removed or renamed" in proc.stderr and rule not in proc.stderr, proc.stderr
    assert not notes.exists()
    if how == "renamed":
        assert (memory / "team-notes.md").read_text() == kept


def test_a_folder_made_read_only_before_the_rename_is_one_line_and_nothing_is_left(
    project: Path,
) -> None:
    """``corrections reject`` held once its new queue sits in a temporary file; the person makes
    the memory folder read-only meanwhile. The rename's refusal read like a crash. It is now one
    line naming the folder: the queue as it was, no journal entry pending, the temporary file
    emptied (removed by the next write, once the folder is writable)."""
    queue = _queue_one(project)
    memory = queue.parent
    before = queue.read_bytes()
    listed = json.loads(run_cli("corrections", "list", "--json", cwd=project).stdout)
    rejecting = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "corrections", "reject", listed["items"][0]["id"]],
        cwd=project,
        env=cli_env(CONKEEPER_STOP_AT="renaming"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status = os.waitpid(rejecting.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    with _read_only(memory):
        os.kill(rejecting.pid, signal.SIGCONT)
        _, err = rejecting.communicate()
        assert rejecting.returncode == 1, err
        assert len(err.splitlines()) == 1, err
        assert "read-only" in err and "nothing was written" in err, err
        assert "Traceback" not in err and "Errno" not in err, err
        # no file can be removed from an immutable folder: the temporary file holds nothing
        assert [p.stat().st_size for p in memory.glob("*.conkeeper-tmp")] in ([], [0])
    assert queue.read_bytes() == before
    assert not any(e.get("pending") for e in _journal(memory)), _journal(memory)
    again = run_cli("corrections", "reject", listed["items"][0]["id"], cwd=project)
    assert again.returncode == 0, again.stderr
    assert not list(memory.glob("*.conkeeper-tmp"))  # swept by the next write


def test_a_line_number_is_refused_once_the_queue_moved_since_the_listing(project: Path) -> None:
    """``corrections reject N`` acted on whatever sat on line N: after another item above it
    left the queue since ``corrections list``, that was the next item, rejected unseen. A
    number is now refused in one line when the item on that line is not the one listed there,
    naming the id form that never moves; the id still works, and so does a fresh listing."""
    queue = _queue_one(project)
    with open(queue, "a", encoding="utf-8") as handle:
        handle.write(f'- **2026-11-01 10:05:00** | friction | "tests are slow" | ref: {REF}\n')
    listed = json.loads(run_cli("corrections", "list", "--json", cwd=project).stdout)["items"]
    first, second = listed
    assert run_cli("corrections", "reject", first["id"], cwd=project).returncode == 0
    before = queue.read_text()
    moved = run_cli("corrections", "reject", str(first["line"]), cwd=project)  # "slow" is there
    assert moved.returncode == 1 and len(moved.stderr.splitlines()) == 1, moved.stderr
    assert "changed since" in moved.stderr and "q..." in moved.stderr, moved.stderr
    assert queue.read_text() == before
    empty = run_cli("corrections", "reject", str(second["line"]), cwd=project)  # nothing there
    assert empty.returncode == 1 and "no queued item" in empty.stderr, empty.stderr
    assert queue.read_text() == before
    relisted = json.loads(run_cli("corrections", "list", "--json", cwd=project).stdout)["items"]
    done = run_cli("corrections", "reject", str(relisted[0]["line"]), "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["item"]["text"] == "tests are slow"


def test_a_save_in_place_racing_the_rename_keeps_the_persons_lines_and_adds_no_fragment(
    project: Path,
) -> None:
    """``remember`` held right before its rename; the person saves ``patterns.md`` in place
    (truncate, then write, through a handle opened before the rename) with a reworded line and a
    new one. Their text went to the file the rename replaced, and the bytes past the old length
    (the tail of their text) were carried over as if appended: their edit was gone and the file
    ended in a torn fragment. Their lines are now put back and nothing torn is carried."""
    assert run_cli("init", cwd=project).returncode == 0
    patterns = project / ".claude" / "memory" / "patterns.md"
    head = "# Patterns\n\n## Conventions\n\n"
    gotchas = "\n## Gotchas\n\n- CI is flaky on Fridays\n"
    patterns.write_text(head + "- keep functions short\n" + gotchas, encoding="utf-8")
    remembering = subprocess.Popen(  # placed under Conventions: the file is rewritten whole
        [sys.executable, "-m", "conkeeper", "remember", "use uv", "--category", "convention"],
        cwd=project,
        env=cli_env(CONKEEPER_STOP_AT="renaming"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status = os.waitpid(remembering.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    mine = (
        head + "- keep functions short and named for what they do\n- log with structlog\n" + gotchas
    )
    with open(patterns, "w", encoding="utf-8") as handle:  # in place, opened before the rename
        os.kill(remembering.pid, signal.SIGCONT)
        handle.write(mine)
    while True:  # the edit starts again on their text (write probe 11), and stops there again
        _, status = os.waitpid(remembering.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            break
        os.kill(remembering.pid, signal.SIGCONT)
    remembering.returncode = os.waitstatus_to_exitcode(status)
    assert remembering.stderr is not None
    err = remembering.stderr.read()
    assert remembering.returncode == 0, err
    text = patterns.read_text(encoding="utf-8")
    assert "- keep functions short and named for what they do" in text, text
    assert "- log with structlog" in text, text
    assert "- use uv" in text, text
    assert all(line.startswith(("#", "- ", "<!--")) or not line for line in text.splitlines()), text
