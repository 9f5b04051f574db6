"""Per-session hook state: locked read-modify-write, damage tolerance, pruning, sync records."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

from conkeeper.domain.paths import locate_project
from conkeeper.domain.session_id import sanitize_session_id
from conkeeper.hooks.payload import parse_payload
from conkeeper.hooks.runner import HookResult, canonical_event, cap_text, render
from conkeeper.services.capture import reminders
from conkeeper.storage.state import (
    SessionState,
    latest_session_state,
    prune_old_state,
    record_sync,
)


def _bump(args: tuple[str, str, int]) -> None:
    identity, home, times = args
    os.environ["CONKEEPER_HOME"] = home
    state = SessionState(identity, "s")
    for _ in range(times):
        state.update(lambda d: d.__setitem__("n", d.get("n", 0) + 1))


def test_parallel_updates_never_lose_a_count(tmp_path: Path) -> None:
    home = os.environ["CONKEEPER_HOME"]
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(_bump, [("/p", home, 50)] * 4)
    assert SessionState("/p", "s").read()["n"] == 200


def test_damaged_state_file_starts_afresh(tmp_path: Path) -> None:
    state = SessionState("/p", "s")
    state.path.parent.mkdir(parents=True)
    state.path.write_bytes(b"{not json")
    assert state.read() == {}
    assert state.update(lambda d: d.setdefault("k", 1)) == 1
    assert state.read() == {"k": 1}


def test_a_state_that_shrinks_leaves_no_old_tail(tmp_path: Path) -> None:
    """The file is written over, then cut to its new length: a shorter state must not keep the
    longer one's last bytes (the file would read as damaged and start afresh)."""
    state = SessionState("/p", "s")
    state.update(lambda d: d.update(big="x" * 500, n=1))
    state.update(lambda d: d.pop("big"))
    assert state.path.read_bytes() == b'{"n":1}'
    assert state.read() == {"n": 1}


def test_prune_removes_only_old_files(tmp_path: Path) -> None:
    old, new = SessionState("/a", "old"), SessionState("/b", "new")
    old.update(lambda d: None)
    new.update(lambda d: None)
    stamp = time.time() - 20 * 86400
    os.utime(old.path, (stamp, stamp))
    assert prune_old_state() == 1
    assert not old.path.exists() and not old.path.parent.exists()
    assert new.path.exists()


def test_record_sync_targets_the_latest_session(tmp_path: Path) -> None:
    location = locate_project(tmp_path)
    assert record_sync(location) is None
    first, second = SessionState(location.identity, "a"), SessionState(location.identity, "b")
    first.update(lambda d: d.update(tool_count_since_save=3))
    second.update(lambda d: d.update(tool_count_since_save=4))
    stamp = time.time() - 100
    os.utime(first.path, (stamp, stamp))
    assert latest_session_state(location.identity).session_id == "b"
    record_sync(location, save_only=True)
    assert second.read()["tool_count_since_save"] == 0 and "last_sync_at" not in second.read()
    record_sync(location, "a")
    assert first.read()["tool_count_since_save"] == 0 and first.read()["last_sync_at"] > 0


def test_reminder_counter_resets_and_zero_disables() -> None:
    data: dict = {}
    fired = [reminders.tick(data, 3) for _ in range(7)]
    assert fired == [None, None, 3, None, None, 3, None]
    off: dict = {}
    assert [reminders.tick(off, 0) for _ in range(10)] == [None] * 10 and off == {}


def test_payload_parsing_is_type_safe() -> None:
    p = parse_payload({"session_id": 7, "cwd": ["x"], "tool_input": "str", "is_interrupt": "true"})
    assert p.session_id == "7" and p.cwd is None and p.tool_input == {} and p.is_interrupt
    assert sanitize_session_id("") == "unknown" and sanitize_session_id(None) == "unknown"
    assert sanitize_session_id("a/../b" * 40) == ("a_.._b" * 40)[:128]
    assert sanitize_session_id("..") == "__"


def test_render_follows_the_host_contract() -> None:
    out, err, code = render("PostToolUse", HookResult(additional_context="x" * 20000))
    assert code == 0 and err == ""
    assert len(__import__("json").loads(out)["hookSpecificOutput"]["additionalContext"]) == 9000
    assert render("SessionEnd", HookResult(block_reason="no"))[2] == 0
    assert render("Stop", HookResult(block_reason="sync first")) == ("", "sync first\n", 2)
    assert render("PostToolUse", HookResult(plain_stdout="hi")) == ("", "", 0)
    assert render("SessionStart", HookResult(plain_stdout="hi"))[0] == "hi\n"
    stop = __import__("json").loads(render("Stop", HookResult(additional_context="c"))[0])
    assert stop == {"systemMessage": "c"}
    assert render("UserPromptSubmit", None) == ("", "", 0)
    assert canonical_event("session-end") == "SessionEnd" and canonical_event("x") is None
    assert cap_text("abc", 10) == "abc"
