"""The one write path (``domain.safewrite``): byte edits under one lock, carried-over appends,
non-UTF-8 bytes kept, the read limit, the journal and undo."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conkeeper.domain import safewrite
from conkeeper.domain.safewrite import (
    EditConflict,
    UndoConflict,
    WriteError,
    append_edit,
    append_file,
    create_file,
    edit_file,
    insert_after_line,
    read_journal,
    remove_line,
    replace_span,
    undo,
)

W = {"command": "test", "source": "user-cli"}


def _memory(tmp_path: Path) -> Path:
    memory = tmp_path / "p" / ".claude" / "memory"
    memory.mkdir(parents=True)
    return memory


# --------------------------------------------------------------------------- edit helpers

lines_st = st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")))


@given(lines_st, st.binary(min_size=1, max_size=40))
def test_append_edit_keeps_every_byte_and_adds_a_break_only_when_missing(
    lines: list[bytes], data: bytes
) -> None:
    current = b"\n".join(lines)
    new = append_edit(data)(current)
    assert new.startswith(current) and new.endswith(data)
    assert len(new) - len(current) - len(data) == (1 if current and current[-1:] != b"\n" else 0)


@given(st.binary(max_size=200), st.binary(min_size=1, max_size=20), st.binary(max_size=20))
def test_replace_span_changes_exactly_one_occurrence_or_refuses(
    current: bytes, old: bytes, new: bytes
) -> None:
    edit = replace_span(old, new)
    if current.count(old) != 1:
        with pytest.raises(EditConflict):
            edit(current)
        return
    at = current.index(old)
    assert edit(current) == current[:at] + new + current[at + len(old) :]


@given(lines_st, st.integers(min_value=0, max_value=12), st.binary(max_size=30))
def test_insert_after_line_keeps_the_lines_around_it(
    lines: list[bytes], line: int, data: bytes
) -> None:
    current = b"".join(x + b"\n" for x in lines)
    if line > len(lines):
        with pytest.raises(EditConflict):
            insert_after_line(line, data)(current)
        return
    new = insert_after_line(line, data)(current)
    head = b"".join(x + b"\n" for x in lines[:line])
    assert new == head + data + current[len(head) :]


@given(lines_st, st.integers(min_value=1, max_value=12))
def test_remove_line_removes_one_line_and_nothing_else(lines: list[bytes], near: int) -> None:
    current = b"".join(x + b"\r\n" for x in lines)
    target = lines[(near - 1) % len(lines)] if lines else b"absent"
    new = remove_line(target, near)(current)
    if target not in lines:
        assert new == current
        return
    remaining = new.split(b"\r\n")[:-1]
    assert len(remaining) == len(lines) - 1
    assert sorted([*remaining, target]) == sorted(lines)


@given(st.binary(max_size=300), st.binary(min_size=1, max_size=40))
def test_non_utf8_bytes_are_carried_through_an_edit(tmp_path_factory, body: bytes, data: bytes):  # type: ignore[no-untyped-def]
    memory = tmp_path_factory.mktemp("m") / ".claude" / "memory"
    memory.mkdir(parents=True)
    path = memory / "patterns.md"
    path.write_bytes(body)
    if b"\x00" in body[:8192] or body.startswith((b"\xff\xfe", b"\xfe\xff")):
        with pytest.raises(WriteError):  # UTF-16 or binary: refused, never written into
            edit_file(path, append_edit(data), root=memory, **W)
        assert path.read_bytes() == body
        return
    result = edit_file(path, append_edit(data), root=memory, **W)
    assert path.read_bytes() == result.after
    assert path.read_bytes()[: len(body)] == body


# --------------------------------------------------------------------------- writes


def test_edit_preserves_permissions_and_leaves_no_temp_file(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    path = memory / "patterns.md"
    path.write_bytes(b"caf\xe9\n")
    path.chmod(0o600)
    edit_file(path, append_edit(b"- new\n"), root=memory, **W)
    assert path.read_bytes() == b"caf\xe9\n- new\n"
    assert path.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in memory.iterdir()) == [".history", "patterns.md"]
    assert (memory / ".history" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_bytes_a_person_appends_during_an_edit_are_carried_over(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    path = memory / "patterns.md"
    path.write_bytes(b"# Patterns\n")

    def edit(current: bytes) -> bytes:
        with open(path, "ab") as person:  # no lock, like an editor or `>>`
            person.write(b"- typed by a person\n")
        return current + b"- from conkeeper\n"

    result = edit_file(path, edit, root=memory, **W)  # an addition at the end: an append
    assert path.read_bytes() == b"# Patterns\n- typed by a person\n- from conkeeper\n"
    assert result.carried == b"- typed by a person\n"

    def change(current: bytes) -> bytes:  # a change in the middle: a new file and a rename
        with open(path, "ab") as person:
            person.write(b"- typed again\n")
        return current.replace(b"# Patterns", b"# Rules")

    result = edit_file(path, change, root=memory, **W)
    assert path.read_bytes() == (b"# Rules\n- typed by a person\n- from conkeeper\n- typed again\n")
    assert result.carried == b"- typed again\n"


def test_a_file_replaced_during_an_edit_makes_the_edit_start_again(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    path = memory / "patterns.md"
    path.write_bytes(b"old\n")
    seen: list[bytes] = []

    def edit(current: bytes) -> bytes:
        seen.append(current)
        if len(seen) == 1:  # an editor saves by writing a new file and renaming it
            (memory / "swap").write_bytes(b"saved by the editor\n")
            os.replace(memory / "swap", path)
        return current + b"- entry\n"

    edit_file(path, edit, root=memory, **W)
    assert seen == [b"old\n", b"saved by the editor\n"]
    assert path.read_bytes() == b"saved by the editor\n- entry\n"


def test_symlinks_are_never_replaced_by_a_copy(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "config.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_bytes(b"token = 'x'\n")
    link = tmp_path / "config.toml"
    link.symlink_to(dotfiles)
    with pytest.raises(WriteError, match="symlink"):
        edit_file(link, append_edit(b"[mcp]\n"), **W)
    assert link.is_symlink() and dotfiles.read_bytes() == b"token = 'x'\n"
    edit_file(link, append_edit(b"[mcp]\n"), follow_symlink=True, **W)
    assert link.is_symlink() and dotfiles.read_bytes() == b"token = 'x'\n[mcp]\n"


def test_symlink_leading_out_of_the_memory_folder_is_refused(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("mine")
    (memory / "evil.md").symlink_to(outside)
    with pytest.raises(WriteError, match="symlink"):
        append_file(memory / "evil.md", b"x", root=memory, **W)
    assert outside.read_text() == "mine"


def test_create_never_overwrites(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    create_file(memory / "new.md", b"one", root=memory, **W)
    with pytest.raises(WriteError, match="already exists"):
        create_file(memory / "new.md", b"two", root=memory, **W)
    assert (memory / "new.md").read_bytes() == b"one"


def test_no_write_pushes_a_file_past_the_read_limit(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    path = memory / "patterns.md"
    path.write_bytes(b"x" * 90)
    with pytest.raises(WriteError, match="100-byte limit"):
        edit_file(path, append_edit(b"y" * 20), root=memory, limit=100, **W)
    with pytest.raises(WriteError, match="limit"):
        append_file(path, b"y" * 20, root=memory, limit=100, **W)
    assert path.read_bytes() == b"x" * 90
    assert read_journal(memory / ".history") == []


def test_append_writes_the_header_once_and_journals_compactly(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    log = memory / "sessions" / "2026-01-01-observations.md"
    for n in range(3):
        append_file(log, b"- line %d\n" % n, header=b"# Log\n", root=memory, **W)
    assert log.read_bytes() == b"# Log\n- line 0\n- line 1\n- line 2\n"
    entries = read_journal(memory / ".history")
    assert [(e.files[0]["op"], e.files[0]["offset"]) for e in entries] == [
        ("append", 0),
        ("append", 15),
        ("append", 24),
    ]


def _append_lines(path: str, start: int, count: int) -> None:
    for n in range(start, start + count):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"- person {n}\n")


def test_nothing_a_concurrent_person_appends_is_lost(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    path = memory / "patterns.md"
    path.write_text("# Patterns\n")
    ctx = multiprocessing.get_context("spawn")
    person = ctx.Process(target=_append_lines, args=(str(path), 0, 3000))
    person.start()
    n = 0
    while person.is_alive() or n < 50:
        edit_file(path, append_edit(b"- tool %d\n" % n), root=memory, **W)
        n += 1
    person.join()
    lines = path.read_text().splitlines()
    assert sorted(x for x in lines if x.startswith("- person")) == sorted(
        f"- person {i}" for i in range(3000)
    )
    assert len([x for x in lines if x.startswith("- tool")]) == n


# --------------------------------------------------------------------------- journal and undo


def test_journal_records_before_after_command_and_source(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    path = memory / "patterns.md"
    path.write_bytes(b"a\n")
    result = edit_file(
        path, replace_span(b"a", b"b"), root=memory, command="remember", source="agent-mcp"
    )
    (entry,) = read_journal(memory / ".history")
    assert (entry.id, entry.command, entry.source, entry.paths) == (
        result.entry_id,
        "remember",
        "agent-mcp",
        [str(path)],
    )
    raw = json.loads((memory / ".history" / f"{entry.id:06d}.json").read_text())
    assert safewrite._unb64(raw["files"][0]["before"]) == b"a\n"
    assert safewrite._unb64(raw["files"][0]["after"]) == b"b\n"


def test_files_outside_a_memory_folder_journal_in_the_data_home(tmp_path: Path) -> None:
    config = tmp_path / "home" / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_bytes(b"model = 'x'\n")
    edit_file(
        config, append_edit(b"[mcp_servers.conkeeper]\n"), command="install", source="user-cli"
    )
    journal = Path(os.environ["CONKEEPER_HOME"]) / "history"
    assert [e.command for e in read_journal(journal)] == ["install"]
    assert not (config.parent / ".history").exists()


def test_journal_is_bounded_and_hook_lines_never_crowd_out_other_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(safewrite, "MAX_ENTRIES", 5)
    monkeypatch.setattr(safewrite, "MAX_APPEND_ENTRIES", 3)
    memory = _memory(tmp_path)
    for n in range(12):
        edit_file(memory / "a.md", append_edit(b"%d\n" % n), root=memory, **W)
        append_file(memory / "b.md", b"%d\n" % n, root=memory, command="log", source="hook")
    entries = read_journal(memory / ".history")
    assert [e.source for e in entries].count("hook") == 3
    assert [e.source for e in entries].count("user-cli") == 5
    assert max(e.id for e in entries) == 24


def test_undo_restores_byte_for_byte_and_is_journaled(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    path = memory / "patterns.md"
    original = b"# P\r\n- caf\xe9\r\n<private>\r\nsecret\r\n</private>\r\n"
    path.write_bytes(original)
    first = edit_file(path, replace_span(b"- caf\xe9", b"- changed"), root=memory, **W)
    edit_file(path, append_edit(b"- more\r\n"), root=memory, **W)
    undone = undo(memory / ".history")  # the newest first
    assert undone.id == first.entry_id + 1
    undo(memory / ".history")
    assert path.read_bytes() == original
    entries = read_journal(memory / ".history")
    assert [e.undoes for e in entries] == [None, None, str(first.entry_id + 1), str(first.entry_id)]
    with pytest.raises(WriteError, match="nothing to undo"):
        undo(memory / ".history")
    with pytest.raises(WriteError, match="already undone"):
        undo(memory / ".history", first.entry_id)


def test_undo_refuses_with_a_diff_and_changes_nothing_on_a_later_change(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    path = memory / "patterns.md"
    path.write_bytes(b"- one\n")
    result = edit_file(path, replace_span(b"- one", b"- two"), root=memory, **W)
    path.write_bytes(b"- three, by hand\n")
    with pytest.raises(UndoConflict) as info:
        undo(memory / ".history", result.entry_id)
    assert "-- two" in info.value.diff and "+- three, by hand" in info.value.diff
    assert path.read_bytes() == b"- three, by hand\n"
    assert len(read_journal(memory / ".history")) == 1


def test_undo_of_an_append_cuts_exactly_those_bytes(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    queue = memory / "corrections-queue.md"
    append_file(queue, b"- a\n", header=b"# Q\n", root=memory, **W)
    middle = append_file(queue, b"- b\n", root=memory, **W)
    append_file(queue, b"- c\n", root=memory, **W)
    with open(queue, "ab") as person:
        person.write(b"- by hand\n")
    undo(memory / ".history", middle.entry_id)
    assert queue.read_bytes() == b"# Q\n- a\n- c\n- by hand\n"
    first = read_journal(memory / ".history")[0]
    queue.write_bytes(b"# Q\n- A\n")
    with pytest.raises(UndoConflict):
        undo(memory / ".history", first.id)
    assert queue.read_bytes() == b"# Q\n- A\n"


def test_undo_of_a_creation_removes_the_file_and_undo_of_that_brings_it_back(
    tmp_path: Path,
) -> None:
    memory = _memory(tmp_path)
    created = create_file(memory / "decisions" / "ADR-001-x.md", b"# ADR\n", root=memory, **W)
    undo(memory / ".history", created.entry_id)
    assert not (memory / "decisions" / "ADR-001-x.md").exists()
    removal = read_journal(memory / ".history")[-1]
    undo(memory / ".history", removal.id)
    assert (memory / "decisions" / "ADR-001-x.md").read_bytes() == b"# ADR\n"


def test_nothing_a_person_appends_is_lost_while_lines_are_removed(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    path = memory / "corrections-queue.md"
    path.write_text("# Queue\n" + "".join(f"- old {i}\n" for i in range(400)))
    ctx = multiprocessing.get_context("spawn")
    person = ctx.Process(target=_append_lines, args=(str(path), 0, 2000))
    person.start()
    removed = 0
    while person.is_alive() or removed < 50:  # every removal writes a new file and renames it
        if removed < 400:
            edit_file(path, remove_line(b"- old %d" % removed), root=memory, **W)
        else:
            edit_file(path, replace_span(b"# Queue", b"# Queue"), root=memory, **W)
        removed += 1
    person.join()
    lines = path.read_text().splitlines()
    assert sorted(x for x in lines if x.startswith("- person")) == sorted(
        f"- person {i}" for i in range(2000)
    )
    assert len([x for x in lines if x.startswith("- old")]) == 400 - min(removed, 400)


def test_files_in_subfolders_of_a_memory_folder_share_its_journal(tmp_path: Path) -> None:
    memory = _memory(tmp_path)
    adr = memory / "decisions" / "ADR-001-x.md"
    create_file(adr, b"# ADR\n", root=adr.parent, **W)  # a caller naming the subfolder as root
    assert [e.paths for e in read_journal(memory / ".history")] == [[str(adr)]]
    assert not (memory / "decisions" / ".history").exists()


def test_a_write_through_a_handle_opened_before_the_rename_is_carried_over(tmp_path: Path) -> None:
    import threading

    memory = _memory(tmp_path)
    path = memory / "corrections-queue.md"
    path.write_bytes(b"# Queue\n- one\n- two\n")
    old_inode = path.stat().st_ino
    handles: list[object] = []

    def late_writer() -> None:  # writes once the rename happened, through its old handle
        while True:
            try:
                if path.stat().st_ino != old_inode:
                    break
            except FileNotFoundError:
                continue
        handle = handles[0]
        handle.write(b"- typed just after the rename\n")  # type: ignore[attr-defined]
        handle.close()  # type: ignore[attr-defined]

    def edit(current: bytes) -> bytes:
        handles.append(open(path, "ab"))  # noqa: SIM115 - a person's editor opens the file now
        threading.Thread(target=late_writer).start()
        return remove_line(b"- one")(current)

    result = edit_file(path, edit, root=memory, **W)
    assert path.read_bytes() == b"# Queue\n- two\n- typed just after the rename\n"
    assert result.carried == b"- typed just after the rename\n"


@pytest.mark.skipif(not hasattr(__import__("fcntl"), "F_SETLEASE"), reason="Linux leases")
def test_a_line_read_half_written_is_never_split_by_the_next_append(tmp_path: Path) -> None:
    """CI found two lines lost in 2,000: a read racing a person's append saw half their line
    (the size moves page by page while a write is copied in), the half went to the new file, and
    the person's next line, appended to the new file, landed inside it."""
    import threading

    memory = _memory(tmp_path)
    path = memory / "corrections-queue.md"
    path.write_bytes(b"# Queue\n- old 0\n")
    old_inode = path.stat().st_ino
    handles: list[object] = []

    def person() -> None:  # once the new file is in place: one new line, then the rest of 17
        while True:
            try:
                if path.stat().st_ino != old_inode:
                    break
            except FileNotFoundError:
                continue
        with open(path, "ab") as other:
            other.write(b"- person 18\n")
        handle = handles[0]
        handle.write(b"7\n")  # type: ignore[attr-defined]
        handle.close()  # type: ignore[attr-defined]

    def edit(current: bytes) -> bytes:  # the first half of a line lands while ConKeeper edits
        handle = open(path, "ab", buffering=0)  # noqa: SIM115 - closed by the person thread
        handle.write(b"- person 1")
        handles.append(handle)
        threading.Thread(target=person).start()
        return remove_line(b"- old 0")(current)

    edit_file(path, edit, root=memory, **W)
    assert sorted(path.read_bytes().splitlines()) == [b"# Queue", b"- person 17", b"- person 18"]


def test_the_old_whole_file_write_is_locked_and_journaled_too(tmp_path: Path) -> None:
    from conkeeper.domain.textio import ConcurrentEditError, atomic_write, file_stamp

    memory = _memory(tmp_path)
    path = memory / "sessions" / "2026-01-01-retro.md"
    path.parent.mkdir()
    path.write_bytes(b"# Retro\n")
    stamp = file_stamp(path)
    atomic_write(path, "# Retro\n- approved\n", root=memory, expected_stamp=stamp)
    (entry,) = read_journal(memory / ".history")
    undo(memory / ".history", entry.id)
    assert path.read_bytes() == b"# Retro\n"
    with pytest.raises(ConcurrentEditError):
        atomic_write(path, "stale", root=memory, expected_stamp=stamp)
    assert path.read_bytes() == b"# Retro\n"


@given(
    st.lists(st.integers(0, 10**6), min_size=1, max_size=30, unique=True),
    st.integers(0, 30),
    st.integers(0, 31),
)
def test_undo_of_an_older_write_never_corrupts_later_changes(
    numbers: list[int], at: int, later_at: int
) -> None:
    """Undoing an older write after a later one: either the write alone is taken back (the
    later change kept) or nothing is merged (a refusal); never a mix. Far apart, it merges."""
    lines = [b"- rule %d\n" % n for n in numbers]
    at, later_at = at % (len(lines) + 1), later_at % (len(lines) + 2)
    before = b"".join(lines)
    after_lines = [*lines[:at], b"<!-- @category: convention -->\n", *lines[at:]]
    current_lines = [*after_lines[:later_at], b"- a person's line\n", *after_lines[later_at:]]
    merged = safewrite._revert_apart(before, b"".join(after_lines), b"".join(current_lines))
    expected = b"".join(line for line in current_lines if not line.startswith(b"<!--"))
    if merged is not None:
        assert merged == expected
    if abs(later_at - at) >= 3:
        assert merged == expected


def test_creating_a_file_never_waits_on_its_own_handle(tmp_path: Path) -> None:
    """The lease wait after a rename is for a person's open handle; a file the edit itself
    created is held for writing by the edit alone, so waiting would only ever run out the clock
    (``conkeeper init`` took 50 s). With the wait made an hour long, creation still returns."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from conkeeper.domain import safewrite\n"
        "safewrite.DRAIN_SECONDS = 3600.0\n"
        "target = sys.argv[1]\n"
        "safewrite.create_file(target, b'# Patterns\\n', command='init', source='user-cli',"
        " root=sys.argv[2])\n"
    )
    memory = tmp_path / "memory"
    memory.mkdir()
    target = memory / "patterns.md"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    done = subprocess.run(
        [sys.executable, "-c", script, str(target), str(memory)],
        env=env,
        timeout=60,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == b"# Patterns\n"


@pytest.mark.skipif(safewrite._renameat2() is None, reason="renameat2 is Linux-only")
def test_a_rename_save_racing_the_swap_is_put_back_and_its_lines_kept(tmp_path: Path) -> None:
    """The person's editor renames its save over the file between ConKeeper's last check and
    its exchange: the save comes out, is put back in place, and its lines are remembered so the
    edit can make sure the file still holds them once it is done."""
    path = tmp_path / "patterns.md"
    path.write_bytes(b"# Patterns\n- one\n")
    fd = os.open(path, os.O_RDONLY)
    ours = tmp_path / ".patterns.md.ours"
    ours.write_bytes(b"# Patterns\n- one <!-- @category: convention -->\n")
    out = os.open(ours, os.O_RDONLY)
    saved = tmp_path / "patterns.md~"
    saved.write_bytes(b"# Patterns\n- one\n- typed by the person\n")
    os.replace(saved, path)  # the person's save lands after the check
    rescued: list[bytes] = []
    try:
        known = b"# Patterns\n- one\n" + b"\n" + ours.read_bytes()
        assert not safewrite._swap_in(str(ours), str(path), fd, out, known, rescued)
    finally:
        os.close(fd)
        os.close(out)
    assert path.read_bytes() == b"# Patterns\n- one\n- typed by the person\n"
    assert not ours.exists()
    assert rescued == [b"- typed by the person"]
    safewrite._rescue_lines(str(path), [b"- typed by the person", b"- lost by a second save"])
    assert path.read_bytes().endswith(b"- typed by the person\n- lost by a second save\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_where_a_memory_file_belongs_is_refused_without_blocking(tmp_path: Path) -> None:
    """A FIFO would block the open of a writer (a hook) until someone opened its other end."""
    fifo = tmp_path / "corrections-queue.md"
    os.mkfifo(fifo)
    with pytest.raises(WriteError, match="not a regular file"):
        safewrite.append_file(fifo, b"- one\n", command="test", source="test")
    with pytest.raises(WriteError, match="not a regular file"):
        safewrite.edit_file(fifo, safewrite.append_edit(b"- two\n"), command="test", source="t")
