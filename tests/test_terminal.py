"""Terminal conventions (issue 22.3) through the real CLI on a pseudo-terminal: colour and a
pager only on a terminal, never in a pipe, for ``--json`` or in a hook; ``NO_COLOR``,
``--no-color``, ``PAGER`` and ``--no-pager`` respected."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from conftest import cli_env, run_cli

ESC = "\x1b["
# A pager that marks every line it shows, so a test can tell paged output from direct output.
MARKING_PAGER = "sed 's/^/PAGED|/'"


def _memory(project: Path, lines: int = 3) -> None:
    body = "\n".join(f"- token note {n}: rotate the refresh token" for n in range(lines))
    text = f"# Notes\n<!-- @category: decision -->\n{body}\nplain context line\n"
    (project / ".claude" / "memory" / "notes.md").write_text(text, encoding="utf-8")


def on_pty(
    args: list[str], cwd: Path, rows: int = 50, stdin: bytes | None = None, **env: str
) -> str:
    """Run ``python -m conkeeper ARGS`` with stdout and stderr on a pseudo-terminal of
    ``rows`` lines; everything it showed there."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, 120, 0, 0))
    full = cli_env(**env)
    full.pop("NO_COLOR", None) if "NO_COLOR" not in env else None
    full.setdefault("TERM", "xterm")
    proc = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", *args],
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env=full,
    )
    os.close(slave)
    if stdin is not None and proc.stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.close()
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8", errors="replace").replace("\r\n", "\n")


@pytest.fixture
def notes(project: Path) -> Path:
    _memory(project)
    return project


def test_search_is_coloured_on_a_terminal(notes: Path) -> None:
    out = on_pty(["search", "refresh token"], notes, PAGER="cat")
    assert ESC in out
    assert "\x1b[1m\x1b[32mLine 3:\x1b[0m" in out  # a match: bold green, no Markdown stars
    assert "**Line" not in out


@pytest.mark.parametrize(
    ("extra", "env"), [(["--no-color"], {}), ([], {"NO_COLOR": "1"}), ([], {"TERM": "dumb"})]
)
def test_no_color_flag_and_environment_are_respected(
    notes: Path, extra: list[str], env: dict[str, str]
) -> None:
    out = on_pty([*extra, "search", "refresh token"], notes, PAGER="cat", **env)
    assert ESC not in out and "**Line 3:**" in out


def test_a_pipe_and_json_stay_plain(notes: Path) -> None:
    piped = run_cli("search", "refresh token", cwd=notes, env=cli_env(PAGER=MARKING_PAGER))
    assert ESC not in piped.stdout and "PAGED|" not in piped.stdout
    assert "**Line 3:**" in piped.stdout
    raw = on_pty(["search", "--json", "refresh token"], notes, rows=5, PAGER=MARKING_PAGER)
    assert ESC not in raw and "PAGED|" not in raw
    assert json.loads(raw)["matches"] >= 3


def test_long_output_goes_through_the_pager(project: Path) -> None:
    _memory(project, lines=30)
    paged = on_pty(["search", "refresh token"], project, rows=10, PAGER=MARKING_PAGER)
    assert "PAGED|" in paged and "Found" in paged
    direct = on_pty(
        ["--no-pager", "search", "refresh token"], project, rows=10, PAGER=MARKING_PAGER
    )
    assert "PAGED|" not in direct and "Found" in direct
    tall = on_pty(["search", "refresh token"], project, rows=200, PAGER=MARKING_PAGER)
    assert "PAGED|" not in tall  # shorter than the screen: printed as it is


def test_a_hook_on_a_terminal_is_never_coloured_or_paged(project: Path) -> None:
    _memory(project, lines=40)
    payload = {
        "session_id": "s-tty",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    out = on_pty(
        ["hook", "SessionStart"],
        project,
        rows=5,
        stdin=json.dumps(payload).encode(),
        PAGER=MARKING_PAGER,
    )
    assert ESC not in out and "PAGED|" not in out
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("<conkeeper-memory>")


def test_a_long_reindex_shows_progress_on_a_terminal_only(project: Path) -> None:
    """The first search over 2,100 new files takes about a second: a bar on the terminal."""
    folder = project / ".claude" / "memory" / "bulk"
    folder.mkdir()
    for n in range(2100):
        (folder / f"n{n}.md").write_text(f"# Note {n}\n- refresh token {n}\n", encoding="utf-8")
    out = on_pty(["search", "--limit", "1", "refresh token"], project, PAGER="cat")
    assert "indexing memory [" in out and "2100/2100 files" in out
    fresh = cli_env(CONKEEPER_HOME=str(project.parent / "other-data"))  # the same 2,100 again
    piped = run_cli("search", "--limit", "1", "refresh", cwd=project, env=fresh)
    assert piped.returncode == 0
    assert "indexing" not in piped.stderr and "[#" not in piped.stderr


def test_a_missing_pager_prints_directly(project: Path) -> None:
    _memory(project, lines=30)
    out = on_pty(["search", "refresh token"], project, rows=10, PAGER="no-such-pager-here -R")
    assert "Found" in out and "not found" not in out
