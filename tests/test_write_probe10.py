"""A tenth round on "nothing the user wrote is ever lost", from outside.

The shapes swept here: files that mix LF and lone-CR line breaks (a note pasted from an old Mac
file into an LF file), and odd files and file systems (symlinks, hard links, BOMs, UTF-16, NUL
bytes, very large files, attributes the person set). Every case goes through the real
``conkeeper`` command as a subprocess.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import cli_env, run_cli
from conkeeper.domain.categories import insert_line_after
from conkeeper.domain.lines import split_lines
from conkeeper.domain.safewrite import edit_file, undo


def _memory(project: Path, name: str, data: bytes) -> Path:
    """``project``'s memory folder set up by ``init``, with ``name`` holding ``data``."""
    assert run_cli("init", "--no", cwd=project).returncode == 0
    path = project / ".claude" / "memory" / name
    path.write_bytes(data)
    return path


MIXED = (
    b"# Patterns\n\n## Notes\r- old note from a Mac file\r- other note\r\n"
    b"## Conventions\n\n- Use tabs for indentation\n- Keep functions short\n"
)


def test_a_tag_goes_on_the_line_search_names_in_a_file_mixing_lf_and_cr(project: Path) -> None:
    """In an LF file holding a few lines ended by a lone CR, ``search`` named the bullet "Keep
    functions short" line 9 (as Markdown and the byte edits count lines) while ``tag add``
    counted on LF alone and refused line 9 ("not a heading or a top-level bullet"): the
    parser split lines on LF only when the file had any. Every reader now counts alike."""
    path = _memory(project, "patterns.md", MIXED)
    found = run_cli("search", "functions short", cwd=project)
    assert "**Line 9:** - Keep functions short" in found.stdout, found.stdout
    done = run_cli("tag", "add", str(path), "9", "convention", cwd=project)
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == MIXED + b"<!-- @category: convention -->\n"
    undone = run_cli("tag", "remove", str(path), "9", "convention", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert path.read_bytes() == MIXED


def test_a_tag_is_added_in_a_file_with_cr_only_line_breaks(project: Path) -> None:
    """A whole file with lone-CR breaks (an old Mac file) was parsed as such since probe 9,
    but ``tag add`` still split it on LF: "line 6 is outside the file (1 lines)"."""
    data = b"# Patterns\r\r## Conventions\r\r- Use tabs for indentation\r- Keep it short\r"
    path = _memory(project, "patterns.md", data)
    done = run_cli("tag", "add", str(path), "6", "convention", cwd=project)
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == data + b"<!-- @category: convention -->\r"


def test_a_convention_goes_under_a_heading_written_after_a_lone_cr(project: Path) -> None:
    """The "Code Conventions" section of an LF file was pasted with lone-CR breaks: its heading
    line ran on to the next heading ("Code Conventions\\r\\r- Use tabs...\\r## Gotchas"), so
    ``remember`` put a convention at the end of the file, under Gotchas."""
    data = (
        b"# Patterns\n\n## Code Conventions\r\r- Use tabs for indentation\r\r"
        b"## Gotchas\n\n- The cache is per process\n"
    )
    path = _memory(project, "patterns.md", data)
    done = run_cli(
        "remember", "--source", "user", "--category", "convention",
        "Always run ruff before a commit", cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    after = path.read_bytes()
    head, _, tail = after.partition(b"## Gotchas")
    assert b"- Always run ruff before a commit" in head, after
    assert tail == b"\n\n- The cache is per process\n"
    assert after.startswith(b"# Patterns\n\n## Code Conventions\r\r- Use tabs for indentation\r")


_LINE_TEXT = st.text(st.sampled_from("ab #-\t<!>@:é\x0c\u2028"), max_size=8)
_BREAKS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def _mixed_texts(draw: st.DrawFn) -> str:
    """Texts whose lines end in any mix of LF, CRLF and lone CR, the last maybe unended."""
    lines = draw(st.lists(st.tuples(_LINE_TEXT, _BREAKS), max_size=8))
    last = draw(_LINE_TEXT)
    return "".join(text + brk for text, brk in lines) + last


@settings(max_examples=300, deadline=None)
@given(text=_mixed_texts(), data=st.data())
def test_inserting_a_line_keeps_every_other_byte_and_counts_as_the_bytes_do(
    text: str, data: st.DataObject
) -> None:
    """The parser, the tag editor and the byte edits agree on the lines of any mix of breaks:
    the parser has as many lines as ``bytes.splitlines``, and a line inserted after line N is
    line N+1 of the result, every other line's bytes (and break) unchanged."""
    raw = text.encode()
    assert len(split_lines(text)) == len(raw.splitlines())
    after = data.draw(st.integers(0, len(raw.splitlines())))
    out = insert_line_after(text, after, "<!-- @tag: x -->")
    lines = out.encode().splitlines(keepends=True)
    assert lines[after].rstrip(b"\r\n") == b"<!-- @tag: x -->"
    if after == len(lines) - 1 and raw and not raw.endswith((b"\n", b"\r")):
        assert out.encode() in (raw + brk + b"<!-- @tag: x -->" for brk in (b"\n", b"\r\n", b"\r"))
    else:
        assert b"".join(lines[:after] + lines[after + 1 :]) == raw


def test_an_entry_in_an_lf_file_with_one_pasted_crlf_line_ends_in_lf(project: Path) -> None:
    """One CRLF line pasted into an LF file made every entry ConKeeper wrote there CRLF (any
    CRLF made the file "a CRLF file"): the person's diff grew a ``^M`` per line written. The
    file's own break is now the one most of its lines end with."""
    data = (
        b"# Patterns\n\n## Gotchas\n\n- pasted from a Windows note\r\n- The cache is per process\n"
    )
    path = _memory(project, "patterns.md", data)
    done = run_cli(
        "remember", "--source", "user", "--category", "bugfix",
        "The retry loop hides the first error", cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    after = path.read_bytes()
    assert after.startswith(data)
    assert after[len(data) :].count(b"\r") == 0, after
    assert after[len(data) :].startswith(b"- The retry loop hides the first error\n")


def _hook(project: Path, event: str, **fields: object) -> subprocess.CompletedProcess[str]:
    """One hook run as the host runs it: a real-shaped payload on stdin."""
    body = {
        "session_id": "probe10",
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    return run_cli("hook", event, stdin=json.dumps(body), env=cli_env(CONKEEPER_DETACHED="0"))


def test_a_symlink_loop_in_the_memory_folder_stops_no_hook_and_no_command(project: Path) -> None:
    """A memory file that is a symlink loop (``notes.md -> notes.md``, a dotfiles link gone
    wrong) made every hook fail (``OSError: Too many levels of symbolic links``, logged, the
    agent got no memory at SessionStart and nothing was captured), and ``consolidate``,
    ``stale`` and ``doctor``'s freshness check crash with ``RuntimeError: Symlink loop``
    (Python before 3.13 raises that from ``Path.resolve``). The loop is now skipped and named
    where files are named."""
    memory = _memory(project, "patterns.md", b"# Patterns\n\n## Conventions\n\n- Use pnpm\n").parent
    (memory / "notes.md").symlink_to("notes.md")
    (memory / "decisions" / "ADR-001-loop.md").symlink_to("ADR-001-loop.md")
    started = _hook(project, "SessionStart", source="startup")
    assert started.returncode == 0 and "Use pnpm" in started.stdout, started
    tool = {"file_path": str(memory / "patterns.md"), "old_string": "a", "new_string": "b"}
    for event in ("PreToolUse", "PostToolUse"):
        done = _hook(project, event, tool_name="Edit", tool_use_id="t1", tool_input=tool,
                     tool_response={})  # fmt: skip
        assert done.returncode == 0 and done.stderr == "", done
    assert _hook(project, "UserPromptSubmit", prompt="No, use pnpm").returncode == 0
    log = Path(cli_env()["CONKEEPER_HOME"]) / "logs" / "conkeeper.log"
    assert "failed" not in (log.read_text() if log.exists() else ""), log.read_text()
    for command in (["consolidate"], ["stale"], ["doctor"]):
        out = run_cli(*command, cwd=project)
        assert "RuntimeError" not in out.stdout + out.stderr, (command, out)
        assert "crashed" not in out.stdout + out.stderr, (command, out)
    assert "notes.md: cannot be read" in run_cli("doctor", cwd=project).stdout


PATTERNS = (
    b"# Patterns\n\n## Conventions\n\n- Use tabs\n\n## Gotchas\n\n- The cache is per process\n"
)
RUFF = "Always run ruff before a commit"


def _remember(project: Path, text: str = RUFF, **env: str) -> subprocess.Popen[bytes]:
    """``remember`` placing a convention under its heading (a whole-file write, not an
    append), started and left running (a test may hold it at a seam)."""
    return subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "remember", "--source", "user",
         "--category", "convention", text],
        cwd=project, env=cli_env(**env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def test_a_hard_link_the_person_made_stays_one_file_through_an_edit_and_its_undo(
    project: Path, tmp_path: Path
) -> None:
    """``patterns.md`` hard-linked on purpose to ``~/notes/patterns.md``: an entry placed under
    its heading was written to a new file renamed over the name, so the other name kept the
    old bytes and the two drifted apart for good, silently. A file with more than one name is
    now written in place (as vim's ``backupcopy=auto`` does); ``undo`` too."""
    path = _memory(project, "patterns.md", PATTERNS)
    other = tmp_path / "notes-patterns.md"
    os.link(path, other)
    assert _remember(project).wait() == 0
    assert os.stat(path).st_ino == os.stat(other).st_ino and os.stat(path).st_nlink == 2
    assert RUFF.encode() in other.read_bytes()
    assert run_cli("undo", cwd=project).returncode == 0
    assert other.read_bytes() == PATTERNS and os.stat(other).st_nlink == 2


def test_an_in_place_edit_held_while_the_person_appends_keeps_their_line(
    project: Path, tmp_path: Path
) -> None:
    """Held at the in-place seam (journal entry stored, nothing written yet), the person
    appends a line through the other name: the edit sees the file changed, starts again from
    their bytes, and both their line and the entry are in the one file."""
    path = _memory(project, "patterns.md", PATTERNS)
    other = tmp_path / "notes-patterns.md"
    os.link(path, other)
    proc = _remember(project, CONKEEPER_STOP_AT="in-place")
    _, status = os.waitpid(proc.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status
    with other.open("ab") as handle:
        handle.write(b"- my own note: ask Dana about ruff\n")
    os.kill(proc.pid, signal.SIGCONT)  # stops again at the retry's seam: go on each time
    while True:
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            break
        os.kill(proc.pid, signal.SIGCONT)
    assert os.waitstatus_to_exitcode(status) == 0
    data = other.read_bytes()
    assert data.endswith(b"- my own note: ask Dana about ruff\n") and RUFF.encode() in data
    assert os.stat(path).st_ino == os.stat(other).st_ino


def test_an_in_place_edit_killed_before_it_writes_leaves_the_file_and_an_undoable_entry(
    project: Path, tmp_path: Path
) -> None:
    """Killed at the in-place seam: the file (both names) is untouched and the pending entry
    is one a plain ``undo`` skips (its write never landed)."""
    path = _memory(project, "patterns.md", PATTERNS)
    other = tmp_path / "notes-patterns.md"
    os.link(path, other)
    assert _remember(project, CONKEEPER_KILL_AT="in-place").wait() == -signal.SIGKILL
    assert path.read_bytes() == PATTERNS and os.stat(path).st_nlink == 2
    assert "interrupted" in run_cli("history", cwd=project).stdout


def test_an_edit_keeps_the_owner_and_extended_attributes_the_person_set(project: Path) -> None:
    """Run as root (``sudo``, a container), an edit renamed a new root-owned file over a
    person's ``patterns.md``: owner and group became root (their own file no longer writable
    by them at mode 640) and its extended attributes (a ``user.*`` tag, a POSIX ACL, an
    SELinux label) were gone. The new file now takes them before the rename."""
    if os.geteuid() != 0:
        pytest.skip("giving a file to another owner needs root")
    path = _memory(project, "patterns.md", PATTERNS)
    os.chown(path, 1234, 2345)
    path.chmod(0o640)
    try:
        os.setxattr(path, "user.origin", b"dotfiles")
    except OSError:
        pytest.skip("no user extended attributes on this file system")
    assert _remember(project).wait() == 0
    info = os.stat(path)
    assert (info.st_uid, info.st_gid, info.st_mode & 0o7777) == (1234, 2345, 0o640)
    assert os.getxattr(path, "user.origin") == b"dotfiles"
    assert RUFF.encode() in path.read_bytes()


def test_utf16_and_nul_holding_memory_files_are_refused_not_written_into(project: Path) -> None:
    """A memory file a Windows editor saved as UTF-16 (search skips it: "looks like a binary
    file") took ``remember``'s entry as UTF-8 bytes after its UTF-16 ones: "Saved", and the
    file no longer decoded in the person's editor. So did a file holding NUL bytes, and the
    prompt hook's queue line. Each is now refused in one line, the bytes left as they were."""
    utf16 = "# Patterns\n\n## Conventions\n\n- Use tabs\n".encode("utf-16")
    path = _memory(project, "patterns.md", utf16)
    done = _remember(project)
    assert done.wait() == 1
    assert done.stderr is not None
    said = done.stderr.read().decode()
    assert said.count("\n") == 1 and "UTF-16" in said and "Nothing was written" in said, said
    assert path.read_bytes() == utf16
    nul = b"# Patterns\n\n## Conventions\n\n- Use tabs\x00\x00\n"
    path.write_bytes(nul)
    assert _remember(project).wait() == 1 and path.read_bytes() == nul
    queue = path.with_name("corrections-queue.md")
    queue.write_bytes("# Corrections Queue\n".encode("utf-16"))
    prompt = "No, that's wrong. Use pnpm, not npm, for installs in this repo"
    assert _hook(project, "UserPromptSubmit", prompt=prompt).returncode == 0
    assert queue.read_bytes() == "# Corrections Queue\n".encode("utf-16")


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def test_undo_takes_a_write_back_after_the_person_converted_the_file_to_crlf(
    project: Path,
) -> None:
    """The person's editor (or ``unix2dos``, or git's ``autocrlf``) rewrote the whole file with
    CRLF after ``remember``: ``undo`` refused ("changed since write N") with a diff of every
    line, though no line but its breaks had changed. Lines are now compared without their
    breaks; the write is taken back and the file keeps CRLF. For an entry placed under its
    heading (a whole-file write) and for one added at the end (an append)."""
    path = _memory(project, "patterns.md", PATTERNS)
    assert _remember(project).wait() == 0
    path.write_bytes(_crlf(path.read_bytes()))
    done = run_cli("undo", cwd=project)
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == _crlf(PATTERNS)
    path.write_bytes(PATTERNS)
    added = run_cli(
        "remember", "--source", "user", "--category", "bugfix",
        "The retry loop hides the first error", cwd=project,
    )  # fmt: skip
    assert added.returncode == 0 and path.read_bytes() != PATTERNS
    path.write_bytes(_crlf(path.read_bytes()))
    done = run_cli("undo", cwd=project)
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == _crlf(PATTERNS)


_UNIQUE = st.lists(st.text(st.sampled_from("ab -#"), min_size=1, max_size=5), unique=True)


@settings(max_examples=200, deadline=None)
@given(lines=_UNIQUE, cuts=st.tuples(st.integers(0, 12), st.integers(0, 12)))
def test_undo_after_a_crlf_conversion_gives_the_old_lines_in_crlf(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], cuts: tuple[int, int]
) -> None:
    """Whatever distinct lines a write inserted (in the middle, or at the end: an append),
    undoing it after the whole file was converted to CRLF gives the bytes before it, in
    CRLF."""
    memory = tmp_path_factory.mktemp("memory")
    path = memory / "patterns.md"
    first, second = sorted(min(cut, len(lines)) for cut in cuts)
    encoded = [line.encode() + b"\n" for line in lines]
    before = b"".join(encoded[:first] + encoded[second:])
    after = b"".join(encoded)
    path.write_bytes(before)
    result = edit_file(path, lambda _: after, root=memory, command="t", source="user-cli")
    if not result.changed:
        return
    path.write_bytes(_crlf(after))
    undo(memory / ".history", result.entry_id)
    assert path.read_bytes() == _crlf(before)


def test_an_entry_for_a_20_mb_memory_file_is_refused_before_the_file_is_parsed(
    project: Path,
) -> None:
    """A 20 MB ``progress.md`` (300,000 log lines): ``remember`` parsed it, placed the entry,
    scanned it for duplicates and secrets, and only then refused it as past the read limit,
    15 s later (33 s under a profiler). The size is now checked first; the refusal is the
    same one line, the file untouched."""
    lines = [f"- step {n} " + "x" * 60 for n in range(300_000)]
    data = ("# Progress\n\n## Log\n\n" + "\n".join(lines) + "\n").encode()
    path = _memory(project, "progress.md", data)
    started = time.perf_counter()
    done = run_cli(
        "remember", "--source", "user", "--category", "learning", "--file", "progress.md",
        "Deployed the staging cluster today", cwd=project,
    )  # fmt: skip
    took = time.perf_counter() - started
    assert done.returncode == 1 and "past the 8388608-byte limit" in done.stderr, done.stderr
    assert path.read_bytes() == data
    assert took < 8, f"{took:.1f} s to refuse (was 15 s)"


def _vim_swap(path: Path, pid: int) -> Path:
    """The swap file vim keeps beside ``path`` while it edits it: block 0 as vim 9 writes it
    (``b0``, version, page size, mtime, inode, the editing process's id at byte 24, user,
    host), read from a real one."""
    head = b"b0" + b"VIM 9.0".ljust(10, b"\x00") + (4096).to_bytes(4, "little") + bytes(8)
    head += pid.to_bytes(4, "little") + b"root".ljust(40, b"\x00")
    head += os.uname().nodename.encode().ljust(40, b"\x00")
    swap = path.with_name(f".{path.name}.swp")
    swap.write_bytes(head.ljust(4096, b"\x00"))
    return swap


def test_a_write_to_a_file_open_in_vim_or_emacs_warns_the_person_to_reload_it(
    project: Path,
) -> None:
    """``remember`` wrote into ``patterns.md`` while the person had it open in vim: nothing
    said so, and their next ``:w`` (vim warns that the file changed; "y" writes anyway) put
    the buffer back over the file, dropping the entry. The write is made (the lock is
    ConKeeper's alone, an editor takes none) and a one-line warning names the editor and how
    to reload; an emacs lock (``.#patterns.md``) alike; a swap left by a dead editor says
    nothing."""
    path = _memory(project, "patterns.md", PATTERNS)
    swap = _vim_swap(path, os.getpid())
    done = _remember(project)
    assert done.wait() == 0 and done.stderr is not None
    said = done.stderr.read().decode()
    assert "patterns.md is open in vim; reload it there (:e)" in said, said
    assert RUFF.encode() in path.read_bytes()
    swap.unlink()
    lock = path.with_name(".#patterns.md")
    lock.symlink_to(f"me@{os.uname().nodename}.{os.getpid()}:1700000000")
    tagged = run_cli("tag", "add", str(path), "5", "convention", cwd=project)
    assert "patterns.md is open in emacs" in tagged.stderr, tagged.stderr
    lock.unlink()
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    _vim_swap(path, dead.pid)
    quiet = run_cli("tag", "add", str(path), "5", "pattern", cwd=project)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
