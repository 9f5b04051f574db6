"""More ways the database file gets damaged, tried by an outside tester through real entry points.

The promise of issue 19 item 5 is that every session that ended before the damage is still there
after the next command. ``test_history_damage.py`` measures the two commonest kinds of damage; these
are the others a disk, a copy or a crash produce: a file cut at other points (a third, three
quarters, zero bytes, not at a page boundary), garbage over middle pages, garbage over the header
while a WAL with committed rows was never folded in, a damaged backup, damage twice in a row, a
hook or the MCP server as the first caller, and damage after ``forget``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from conftest import cli_env, run_cli
from conkeeper.domain.paths import db_path
from test_history_damage import ENV, a_session, garbage_over_header, history, settle


def cut_to(fraction: float):  # type: ignore[no-untyped-def]
    def damage(path: Path) -> None:
        with path.open("r+b") as handle:
            handle.truncate(int(path.stat().st_size * fraction))

    return damage


def cut_off_page(path: Path) -> None:
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 2 + 123)


def garbage_in_the_middle(path: Path) -> None:
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.seek(size // 3 - (size // 3) % 4096)
        handle.write(os.urandom(size // 3))


VARIANTS = {
    "cut-to-a-third": cut_to(1 / 3),
    "cut-to-three-quarters": cut_to(3 / 4),
    "cut-to-zero-bytes": cut_to(0),
    "cut-off-a-page-boundary": cut_off_page,
    "garbage-in-middle-pages": garbage_in_the_middle,
}


def three_sessions(project: Path, *, backup: bool = True) -> dict:  # type: ignore[type-arg]
    a_session(project, "sess-a", "discount")
    if backup:
        assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    a_session(project, "sess-b", "shipping")
    a_session(project, "sess-c", "tax")
    settle(db_path())
    before = history(db_path())
    assert set(before) == {"sess-a", "sess-b", "sess-c"}
    return before


def sessions_listed(project: Path) -> tuple[set[str], str]:
    result = run_cli("sessions", "--json", cwd=project, env=cli_env(**ENV))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return {s["host_session_id"] for s in json.loads(result.stdout)["sessions"]}, result.stderr


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("backup", [True, False], ids=["backup", "journal-only"])
def test_every_ended_session_survives_other_damage(
    project: Path, variant: str, backup: bool
) -> None:
    before = three_sessions(project, backup=backup)
    VARIANTS[variant](db_path())
    names, stderr = sessions_listed(project)
    assert "damaged" in stderr, stderr
    assert set(before) <= names
    assert history(db_path()) == before
    again = run_cli("sessions", cwd=project, env=cli_env(**ENV))
    assert again.returncode == 0 and "damaged" not in again.stderr


def test_garbage_over_the_header_with_committed_rows_still_in_the_wal(project: Path) -> None:
    """A crash leaves ``conkeeper.db-wal`` holding committed rows never folded into the file;
    then the file's header is overwritten. The WAL's rows are in the journal, so nothing is lost."""
    a_session(project, "sess-a", "discount")
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    settle(db_path())
    path = db_path()
    holder = sqlite3.connect(path)  # keeps the WAL from being folded in when the hooks exit
    holder.execute("SELECT COUNT(*) FROM sessions").fetchone()
    a_session(project, "sess-b", "shipping")
    wal = Path(str(path) + "-wal")
    assert wal.exists() and wal.stat().st_size > 0
    snapshot = path.parent / "snap"
    snapshot.mkdir()
    shutil.copy2(path, snapshot / "db")
    shutil.copy2(wal, snapshot / "wal")
    probe = sqlite3.connect(snapshot / "db")  # what is expected: the rows the WAL holds too
    shutil.copy2(snapshot / "wal", str(snapshot / "db") + "-wal")
    probe.close()
    holder.close()
    before = history(snapshot / "db")
    assert set(before) == {"sess-a", "sess-b"}
    shutil.copy2(snapshot / "db", path)  # the crash: the file and its WAL as they were
    shutil.copy2(snapshot / "wal", wal)
    garbage_over_header(path)
    names, stderr = sessions_listed(project)
    assert "damaged" in stderr
    assert {"sess-a", "sess-b"} <= names
    assert history(path) == before


def test_a_damaged_backup_too_keeps_every_session_from_the_journals(project: Path) -> None:
    before = three_sessions(project)
    backup = db_path().parent / "backups" / "conkeeper-backup.db"
    garbage_over_header(backup)
    garbage_over_header(db_path())
    names, stderr = sessions_listed(project)
    assert "backup was damaged too" in stderr, stderr
    assert set(before) <= names
    assert history(db_path()) == before


def test_damage_twice_in_a_row(project: Path) -> None:
    before = three_sessions(project)
    cut_to(0.5)(db_path())
    names, _ = sessions_listed(project)
    assert set(before) <= names
    a_session(project, "sess-d", "vat")
    settle(db_path())
    before = history(db_path())
    garbage_over_header(db_path())
    names, stderr = sessions_listed(project)
    assert "damaged" in stderr
    assert set(before) <= names
    assert history(db_path()) == before
    assert len(list(db_path().parent.glob("conkeeper.db.damaged-*"))) >= 2


def test_a_damaged_copy_from_the_same_second_is_never_replaced(project: Path) -> None:
    """The copy a restore moves aside was named by the second alone: on a machine fast enough
    to find the file damaged twice within one second, the second restore replaced the first
    one's copy (and its WAL). Earlier copies are planted here under every name the next minute
    could give; each is kept as it was, and the new one gets a name of its own."""
    a_session(project, "sess-a", "discount")
    settle(db_path())
    start = time.time()
    planted: dict[Path, bytes] = {}
    for offset in range(60):
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(start + offset))
        for extra in ("", "-wal"):
            path = db_path().with_name(f"{db_path().name}.damaged-{stamp}{extra}")
            path.write_bytes(f"an earlier damaged copy, {offset}{extra}".encode())
            planted[path] = path.read_bytes()
    garbage_over_header(db_path())
    names, stderr = sessions_listed(project)
    assert "damaged" in stderr and "sess-a" in names
    assert {path: path.read_bytes() for path in planted} == planted
    copies = set(db_path().parent.glob("conkeeper.db.damaged-*")) - set(planted)
    assert copies and all(b"earlier" not in path.read_bytes()[:40] for path in copies)


@pytest.mark.parametrize("event", ["SessionStart", "PostToolUse", "SessionEnd"])
def test_a_hook_first_on_damage_exits_quickly_and_makes_nothing_worse(
    project: Path, event: str
) -> None:
    before = three_sessions(project)
    garbage_over_header(db_path())
    fields: dict[str, object] = {
        "SessionStart": {"source": "startup"},
        "PostToolUse": {
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_response": {"stdout": "a", "stderr": "", "interrupted": False},
            "tool_use_id": "t-1",
        },
        "SessionEnd": {"reason": "other"},
    }[event]
    started = time.perf_counter()
    payload = {
        "session_id": "sess-new",
        "transcript_path": str(project.parent / "sess-new.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    result = run_cli("hook", event, stdin=json.dumps(payload), env=cli_env(**ENV))
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout
    assert elapsed < 20  # fail open, no long wait on a damaged file
    if result.stdout.strip():
        json.loads(result.stdout)
    names, _ = sessions_listed(project)
    assert set(before) <= names
    assert {k: v for k, v in history(db_path()).items() if k in before} == before


def test_forgotten_session_stays_gone_through_damage_of_every_kind(project: Path) -> None:
    a_session(project, "sess-keep", "discount")
    a_session(project, "sess-forget", "zanzibarword")
    assert run_cli("backup", cwd=project, env=cli_env(**ENV)).returncode == 0
    a_session(project, "sess-later", "tax")
    conn = sqlite3.connect(db_path())
    (sid,) = conn.execute(
        "SELECT id FROM sessions WHERE host_session_id = 'sess-forget'"
    ).fetchone()
    conn.close()
    result = run_cli("forget", "session", str(sid), "--yes", cwd=project, env=cli_env(**ENV))
    assert result.returncode == 0, result.stderr
    for damage in (cut_to(0), garbage_in_the_middle, garbage_over_header):
        settle(db_path())
        damage(db_path())
        names, _ = sessions_listed(project)
        assert {"sess-keep", "sess-later"} <= names
        assert "sess-forget" not in names
        conn = sqlite3.connect(db_path())
        hits = conn.execute(
            "SELECT COUNT(*) FROM prompts WHERE text LIKE '%zanzibarword%'"
        ).fetchone()[0]
        conn.close()
        assert hits == 0


def test_mcp_first_caller_on_a_damaged_database(project: Path) -> None:
    pytest.importorskip("mcp.server.mcpserver")
    import asyncio

    from mcp import Client, StdioServerParameters  # type: ignore[attr-defined]

    before = three_sessions(project)
    garbage_over_header(db_path())

    async def call() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "conkeeper", "mcp"],
            env=cli_env(**ENV),
            cwd=str(project),
        )
        texts: list[str] = []
        async with Client(params) as client:  # type: ignore[call-arg]
            for tool, args in (("search", {"query": "rounding"}), ("timeline", {})):
                try:
                    result = await client.call_tool(tool, args)
                    texts.extend(getattr(c, "text", "") for c in result.content)
                except Exception as exc:
                    texts.append(str(exc))
        return texts

    texts = asyncio.run(call())
    assert not any("Traceback" in t for t in texts), texts
    names, _ = sessions_listed(project)
    assert set(before) <= names
    assert history(db_path()) == before
