"""Issue 19 from the outside: a tester's attacks on the write path through real entry points.

A person's editor that saves by renaming its own file over the memory file, a script that keeps
``open(path, 'a')`` across seconds of writes, undo after mixed writes on awkward bytes (CRLF,
Latin-1, a BOM, no final line break), undo of an older write after later ones, every writer
journaled, a symlink leading out of the memory folder, and bytes that are not UTF-8 through
``tag`` and ``consolidate``. ConKeeper runs as CLI subprocesses (``python -m conkeeper``) and
as the MCP ``remember`` tool (what the stdio and HTTP servers call). No sleeps for timing: the
person's loops are bounded by counts and paced by waiting on an event.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

from conftest import run_cli
from conkeeper.mcp.tools import remember

LATIN1 = b"\xef\xbb\xbf# Patterns\r\n\r\n- caf\xe9 au lait before standup\r\n- stay calm"


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=project)


def _history(project: Path) -> list[dict[str, Any]]:
    proc = _cli(project, "history", "--json")
    assert proc.returncode == 0, proc.stderr
    return list(json.loads(proc.stdout))


def _queue_items(memory: Path, words: list[str]) -> None:
    from conkeeper.services.analysis.corrections.queue import append_to_queue

    for word in words:
        append_to_queue(memory, "correction", f"use the {word} logger", when=1_700_000_000.0)


def _line_of(path: Path, needle: bytes) -> int:
    return next(n for n, line in enumerate(path.read_bytes().splitlines(), 1) if needle in line)


# --------------------------------------------------------------------------- concurrent people


def _rename_saver(paths: list[str], stop: Any, count: Any) -> None:
    """An editor saving by rename (vim/VS Code style): read, write ``file~``, rename it over."""
    n = 0
    while n < 50 or not stop.is_set():
        target = paths[n % len(paths)]
        with open(target, "rb") as handle:
            data = handle.read()
        if data and not data.endswith(b"\n"):
            data += b"\n"
        temp = f"{target}~"
        with open(temp, "wb") as handle:
            handle.write(data + f"- saved by the editor {n}\n".encode())
        os.replace(temp, target)
        n += 1
        stop.wait(0.001)  # a person's pace, not a timing
    count.value = n


def test_an_editor_saving_by_rename_is_never_overwritten(project: Path) -> None:
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    patterns.write_bytes(b"# Patterns\n\n" + b"".join(b"- rule %d zq\n" % n for n in range(8)))
    words = [f"zqw{n}" for n in range(4)]
    _queue_items(memory, words)
    queue = memory / "corrections-queue.md"
    ctx = multiprocessing.get_context("spawn")
    stop, count = ctx.Event(), ctx.Value("i", 0)
    editor = ctx.Process(target=_rename_saver, args=([str(patterns), str(queue)], stop, count))
    editor.start()
    try:
        for n, word in enumerate(words):
            _cli(project, "corrections", "reject", str(_line_of(queue, word.encode())))
            _cli(project, "tag", "add", str(patterns), str(n + 3), "convention")
    finally:
        stop.set()
        editor.join(60)
    text = patterns.read_bytes() + queue.read_bytes()
    lost = [n for n in range(count.value) if b"- saved by the editor %d\n" % n not in text]
    assert lost == []


def _held_appender(path: str, lines: int, started: Any, count: Any) -> None:
    """A script keeping one ``open(path, 'a')`` across all its writes (flushing each)."""
    pace = threading.Event()
    with open(path, "a", encoding="utf-8") as handle:
        for n in range(lines):
            handle.write(f"- held handle line {n}\n")
            handle.flush()
            started.set()
            pace.wait(0.002)  # a person's pace, not a timing
            count.value = n + 1


def test_a_handle_held_open_across_seconds_of_writes_loses_nothing(project: Path) -> None:
    memory = project / ".claude" / "memory"
    words = [f"zqh{n}" for n in range(3)]
    _queue_items(memory, words)
    queue = memory / "corrections-queue.md"
    ctx = multiprocessing.get_context("spawn")
    started, count = ctx.Event(), ctx.Value("i", 0)
    person = ctx.Process(target=_held_appender, args=(str(queue), 800, started, count))
    person.start()
    try:
        assert started.wait(60)
        for word in words:
            proc = _cli(project, "corrections", "reject", str(_line_of(queue, word.encode())))
            assert proc.returncode == 0, proc.stderr
    finally:
        person.join(120)
    data = queue.read_bytes()
    assert count.value == 800
    lost = [n for n in range(800) if b"- held handle line %d\n" % n not in data]
    assert lost == []
    assert all(word.encode() not in data for word in words)


# --------------------------------------------------------------------------- undo


def test_undo_restores_awkward_bytes_byte_for_byte_after_mixed_writes(project: Path) -> None:
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    patterns.write_bytes(LATIN1)  # BOM, CRLF, Latin-1, no final line break
    _queue_items(memory, ["zqundo"])
    queue_before = (memory / "corrections-queue.md").read_bytes()
    remember(project, "Run the zqalpha linter before every commit", "convention", "patterns.md")
    tag = _cli(project, "tag", "add", str(patterns), "3", "knowledge")
    assert tag.returncode == 0, tag.stderr
    line = _line_of(memory / "corrections-queue.md", b"zqundo")
    applied = _cli(
        project, "corrections", "apply", str(line), "--to", "patterns.md",
        "--category", "convention", "--text", "Use the zqundo logger",
    )  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    after = patterns.read_bytes()
    assert b"caf\xe9" in after and after.startswith(b"\xef\xbb\xbf") and b"\r\n" in after
    assert b"\xef\xbf\xbd" not in after  # never a U+FFFD in place of the accent
    for _ in range(3):  # the apply with its dequeue (one step), the tag, the remember
        proc = _cli(project, "undo")
        assert proc.returncode == 0, proc.stderr
    assert patterns.read_bytes() == LATIN1
    assert (memory / "corrections-queue.md").read_bytes() == queue_before
    assert _cli(project, "undo", "2").stderr.strip().endswith("already undone")


def test_undo_of_a_creation_removes_the_file_and_refuses_once_the_person_removed_it(
    project: Path,
) -> None:
    memory = project / ".claude" / "memory"
    remember(project, "Name the zqbeta queues after their owner", "convention", "glossary.md")
    glossary = memory / "glossary.md"
    assert glossary.exists()
    proc = _cli(project, "undo", "--json")
    assert proc.returncode == 0, proc.stderr
    assert not glossary.exists()
    remember(project, "Name the zqgamma queues after their team", "convention", "glossary.md")
    glossary.unlink()  # the person deletes it
    newest = _history(project)[0]
    refused = _cli(project, "undo", newest["id"])
    assert refused.returncode == 1
    assert "removed" in refused.stderr and "nothing was undone" in refused.stderr
    assert not glossary.exists()


def test_undo_of_an_older_write_keeps_later_writes_on_other_lines(project: Path) -> None:
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    original = b"# Patterns\n\n- zqone rule\n- zqtwo rule\n- zqthree rule\n"
    patterns.write_bytes(original)
    assert _cli(project, "tag", "add", str(patterns), "3", "convention").returncode == 0
    tag_id = _history(project)[0]["id"]
    remember(project, "Keep the zqfour cache small", "learning", "patterns.md")
    with open(patterns, "ab") as person:
        person.write(b"- a line the person typed\n")
    proc = _cli(project, "undo", tag_id)
    assert proc.returncode == 0, proc.stderr
    now = patterns.read_bytes()
    assert now.startswith(original) and b"@category: convention -->\n- zqtwo" not in now
    assert b"Keep the zqfour cache small" in now and now.endswith(b"- a line the person typed\n")

    assert _cli(project, "tag", "add", str(patterns), "4", "convention").returncode == 0
    conflicting = patterns.read_bytes().replace(b"- zqtwo rule", b"- zqtwo rule, by hand")
    patterns.write_bytes(conflicting)
    refused = _cli(project, "undo")
    assert refused.returncode == 1 and "nothing was undone" in refused.stderr
    assert patterns.read_bytes() == conflicting


# --------------------------------------------------------------------------- the journal


def test_every_memory_writer_is_journaled_and_the_journal_stays_out_of_git(
    project: Path, tmp_path: Path
) -> None:
    import shutil

    import pytest

    memory = project / ".claude" / "memory"
    shutil.rmtree(project / ".git")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert _cli(project, "init").returncode == 0
    seen = len(_history(project))
    assert seen >= 5 and all(e["command"] == "init" for e in _history(project))

    def journaled(command: str) -> None:
        nonlocal seen
        entries = _history(project)
        assert len(entries) > seen, f"{command} wrote without a journal entry"
        assert entries[0]["command"].startswith(command)
        assert set(entries[0]) >= {"id", "time", "command", "files"}
        assert isinstance(entries[0]["files"], list) and entries[0]["files"]
        seen = len(entries)

    remember(project, "Prefer zqdelta fixtures over mocks", "convention", "patterns.md")
    journaled("remember")
    patterns = memory / "patterns.md"
    line = _line_of(patterns, b"zqdelta")
    assert _cli(project, "tag", "add", str(patterns), str(line), "knowledge").returncode == 0
    journaled("tag add")
    assert _cli(project, "config", "set", "reflect_depth", "thorough").returncode == 0
    journaled("config set")
    proc = _cli(project, "decisions", "new", "Use zqsqlite", "--decision", "We will use it")
    assert proc.returncode == 0, proc.stderr
    journaled("decisions")
    with open(patterns, "ab") as person:
        person.write(b"- Always run zqruff before commit\n- Always run zqruff before commit.\n")
    assert _cli(project, "consolidate", "--apply").returncode == 0
    journaled("consolidate")
    _queue_items(memory, ["zqepsilon", "zqzeta"])
    seen = len(_history(project))
    queue = memory / "corrections-queue.md"
    rejected = _cli(project, "corrections", "reject", str(_line_of(queue, b"zqepsilon")))
    assert rejected.returncode == 0, rejected.stderr
    journaled("corrections")
    line = _line_of(queue, b"zqzeta")
    applied = _cli(
        project, "corrections", "apply", str(line), "--to", "patterns.md",
        "--category", "convention", "--text", "Use zqzeta",
    )  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    journaled("corrections")

    history = memory / ".history"
    entry = sorted(history.glob("*.json"))[0]
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", str(entry)], cwd=project, check=False, capture_output=True
    )
    assert ignored.returncode == 0, "the journal must be git-ignored"
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=project, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert ".history" not in status
    data_home = tmp_path / "data"
    for path in data_home.rglob("*") if data_home.exists() else []:
        if path.is_file():  # the journal's bytes never land in the database or the data home
            assert b"zqdelta" not in path.read_bytes(), path


def test_the_journal_stays_bounded(project: Path) -> None:
    from conkeeper.domain.safewrite import MAX_ENTRIES

    memory = project / ".claude" / "memory"
    for n in range(MAX_ENTRIES + 15):
        remember(project, f"Keep rule zqbound{n} zq{n * 7} zqx{n}", "learning", f"f{n % 3}.md")
    names = [p for p in (memory / ".history").glob("*.json")]
    assert len(names) <= MAX_ENTRIES
    assert len(_history(project)) <= MAX_ENTRIES


# --------------------------------------------------------------------------- awkward files


def test_a_symlink_leading_out_of_the_memory_folder_is_never_replaced(
    project: Path, tmp_path: Path
) -> None:
    dotfile = tmp_path / "dotfiles" / "patterns.md"
    dotfile.parent.mkdir()
    dotfile.write_bytes(b"# Mine\n- zqlink first rule\n- zqlink second rule\n")
    link = project / ".claude" / "memory" / "patterns.md"
    link.symlink_to(dotfile)
    error = None
    try:
        remember(project, "Keep the zqomega rule", "learning", "patterns.md")
    except Exception as exc:  # the MCP tool's one-sentence error
        error = str(exc)
    assert error is not None and "symlink" in error
    tagged = _cli(project, "tag", "add", str(link), "2", "convention")
    assert tagged.returncode == 1 and "symlink" in tagged.stderr
    _cli(project, "consolidate", "--apply")
    assert link.is_symlink() and os.readlink(link) == str(dotfile)
    assert dotfile.read_bytes() == b"# Mine\n- zqlink first rule\n- zqlink second rule\n"


def test_bytes_that_are_not_utf8_go_through_tag_and_consolidate(project: Path) -> None:
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    body = (
        b"# Patterns\n\n- Use tabs in zqmake files caf\xe9\n"
        b"- Prefer zqpnpm over npm na\xefve\n- Prefer zqpnpm over npm na\xefve.\n"
    )
    patterns.write_bytes(body)
    tagged = _cli(project, "tag", "add", str(patterns), "3", "convention")
    assert tagged.returncode == 0, tagged.stderr
    assert patterns.read_bytes() == body.replace(
        b"caf\xe9\n", b"caf\xe9\n<!-- @category: convention -->\n"
    )
    assert _cli(project, "tag", "remove", str(patterns), "3", "convention").returncode == 0
    assert patterns.read_bytes() == body
    merged = _cli(project, "consolidate", "--apply")
    assert merged.returncode == 0, merged.stderr
    assert patterns.read_bytes() == body.replace(b"- Prefer zqpnpm over npm na\xefve.\n", b"")
    assert _cli(project, "undo").returncode == 0
    assert patterns.read_bytes() == body


def test_consolidate_dates_an_entry_by_the_write_that_brought_it_in(project: Path) -> None:
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    patterns.write_bytes(
        b"# Patterns\n\n- Always run zqlint before commit\n- Never run zqlint before commit\n"
        b"- A zqother rule\n"
    )
    assert _cli(project, "tag", "add", str(patterns), "5", "convention").returncode == 0
    shown = _cli(project, "consolidate", "--json")
    assert shown.returncode == 0, shown.stderr
    assert "by 'tag add" not in shown.stdout  # the tag write did not write those entries
