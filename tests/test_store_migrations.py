"""The store: migrations from an empty file and from every earlier version, and bad databases
(newer schema, corrupt, read-only, locked) giving one clear message instead of a traceback."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import run_cli
from conkeeper.domain.paths import locate_project
from conkeeper.storage import store
from conkeeper.storage.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    StoreError,
    connect,
    ensure_project,
    migrate,
    open_store,
    schema_version,
)


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _seed_v1(conn: sqlite3.Connection, tmp: Path) -> None:
    (tmp / "p" / ".git").mkdir(parents=True, exist_ok=True)
    pid = ensure_project(conn, locate_project(tmp / "p"))
    conn.execute(
        "INSERT INTO sessions(host_session_id, project_id, started_at) VALUES ('s1', ?, 1)", (pid,)
    )
    conn.execute(
        "INSERT INTO prompts(session_id, prompt_number, text, created_at) VALUES (1, 1, 'hi', 1)"
    )
    conn.execute(
        "INSERT INTO tool_events(session_id, tool_use_id, tool_name, action, status, created_at) "
        "VALUES (1, 't1', 'Bash', 'execute', 'success', 1)"
    )


def _check_v1(conn: sqlite3.Connection) -> None:
    assert conn.execute("SELECT count(*) FROM projects").fetchone()[0] == 1
    assert conn.execute("SELECT text FROM prompts").fetchone()[0] == "hi"
    assert conn.execute("SELECT tool_name FROM tool_events").fetchone()[0] == "Bash"


def _seed_v2(conn: sqlite3.Connection, tmp: Path) -> None:
    conn.execute("INSERT INTO index_roots(kind, path) VALUES ('global', '/g')")
    conn.execute(
        "INSERT INTO index_files(root_id, rel_path, kind, size, mtime_ns, sha256, file_time, "
        "status, indexed_at) VALUES (1, 'a.md', 'global', 1, 1, 'x', 1, 'ok', 1)"
    )
    conn.execute("INSERT INTO index_entries(id, file_id, line_start, line_end) VALUES (7, 1, 1, 2)")
    conn.execute("INSERT INTO index_fts(rowid, heading, body, terms) VALUES (7, 'h', 'kept', '')")


def _check_v2(conn: sqlite3.Connection) -> None:
    rows = conn.execute("SELECT rowid FROM index_fts WHERE index_fts MATCH 'kept'").fetchall()
    assert [r[0] for r in rows] == [7]


# What each version adds and how to prove its rows survive later migrations.
SEEDS: dict[int, tuple[Callable[[sqlite3.Connection, Path], None], Callable]] = {
    1: (_seed_v1, _check_v1),
    2: (_seed_v2, _check_v2),
}


def test_migrations_are_numbered_from_one() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))
    assert SCHEMA_VERSION >= 2


def test_empty_file_migrates_to_latest(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    conn = open_store(path)
    assert schema_version(conn) == SCHEMA_VERSION
    assert {"projects", "index_roots", "index_files", "index_entries", "index_fts"} <= _tables(conn)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


@pytest.mark.parametrize("start", range(0, SCHEMA_VERSION))
def test_every_earlier_version_migrates_forward_keeping_data(tmp_path: Path, start: int) -> None:
    path = tmp_path / f"v{start}.db"
    conn = connect(path)
    assert migrate(conn, target=start) == start
    for version in range(1, start + 1):
        if version in SEEDS:
            SEEDS[version][0](conn, tmp_path)
    conn.close()
    conn = open_store(path)
    assert schema_version(conn) == SCHEMA_VERSION
    for version in range(1, start + 1):
        if version in SEEDS:
            SEEDS[version][1](conn)


@pytest.mark.parametrize("synced", [True, False])
def test_version_6_queues_the_deletions_of_projects_a_team_sync_may_have_pushed(
    tmp_path: Path, synced: bool
) -> None:
    """A data home that synced with a team before (its ``team/marks.json``) may have pushed
    any of its projects: from version 6 on, what is deleted from them is queued for the team
    (keys only). One that never synced queues nothing."""
    if synced:
        (tmp_path / "team").mkdir()
        (tmp_path / "team" / "marks.json").write_text("{}", encoding="utf-8")
    path = tmp_path / "conkeeper.db"
    conn = connect(path)
    assert migrate(conn, target=5) == 5
    _seed_v1(conn, tmp_path)
    conn.close()
    conn = open_store(path)
    conn.execute("DELETE FROM sessions")
    queued = [tuple(r) for r in conn.execute("SELECT kind, key, number FROM team_deletions")]
    assert queued == ([("prompt", "s1", 1)] if synced else [])


def test_version_7_stamps_each_summary_when_stored_after_every_earlier_one(
    tmp_path: Path,
) -> None:
    """A summary stored before version 7 keeps its date as its stamp (a team sync's mark on
    it stays right); one stored later, with an old date of its own (an import), is stamped
    after every earlier one, and again when its content changes; the search index stays whole."""
    path = tmp_path / "stamps.db"
    conn = connect(path)
    assert migrate(conn, target=6) == 6
    _seed_v1(conn, tmp_path)
    conn.execute(
        "INSERT INTO sessions(host_session_id, project_id, started_at) VALUES ('s2', 1, 1)"
    )
    summary = (
        "INSERT INTO session_summaries(session_id, project_id, request, completed, extractor, "
        "created_at) VALUES (?, 1, ?, 'done', 'local', ?) ON CONFLICT(session_id) DO UPDATE "
        "SET request = excluded.request"
    )
    future = 4_000_000_000_000  # a bad clock's date
    conn.execute(summary, (1, "tune the quasar cache", future))
    conn.close()
    conn = open_store(path)

    def stamps() -> list[int]:
        return [int(r[0]) for r in conn.execute("SELECT stored_at FROM summary_stored ORDER BY 1")]

    assert stamps() == [future]
    conn.execute(summary, (2, "an imported summary", 5))
    assert stamps() == [future, future + 1]
    conn.execute(summary, (1, "tune the quasar cache again", 6))
    assert stamps() == [future + 1, future + 2]
    conn.execute(
        "INSERT INTO session_summaries_fts(session_summaries_fts) VALUES ('integrity-check')"
    )
    found = conn.execute(
        "SELECT rowid FROM session_summaries_fts WHERE session_summaries_fts MATCH 'quasar'"
    ).fetchall()
    assert [r[0] for r in found] == [1]


def test_migrating_twice_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "twice.db"
    open_store(path).close()
    conn = open_store(path)
    assert migrate(conn) == SCHEMA_VERSION


def test_newer_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "newer.db"
    conn = open_store(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer ConKeeper"):
        open_store(path)
    assert path.read_bytes() == before


def test_corrupt_file_gives_one_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.db"
    path.write_bytes(b"this is not sqlite at all\n" * 200)
    with pytest.raises(StoreError, match="damaged") as info:
        open_store(path)
    assert "\n" not in str(info.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_file_gives_one_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    connect(path).close()  # schema 0: opening must write the migrations
    path.chmod(0o444)
    with pytest.raises(StoreError, match=r"read-only|readonly|cannot open"):
        open_store(path)


def test_read_only_connection_cannot_write_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "ro2.db"
    open_store(path).close()
    conn = open_store(path, readonly=True)
    with pytest.raises(sqlite3.OperationalError) as info:
        conn.execute("INSERT INTO index_roots(kind, path) VALUES ('global', '/x')")
    assert "readonly" in store.describe_error(path, info.value).replace("-", "")


def test_locked_database_gives_clear_message_not_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONKEEPER_BUSY_TIMEOUT_MS", "50")
    path = tmp_path / "locked.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match=r"busy|locked"):
            open_store(path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_busy_timeout_knob_is_read_at_connect_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONKEEPER_BUSY_TIMEOUT_MS", "123")
    conn = connect(tmp_path / "k.db")
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 123
    monkeypatch.setenv("CONKEEPER_BUSY_TIMEOUT_MS", "junk")
    assert store.busy_timeout_ms() == store.BUSY_TIMEOUT_MS


def test_cli_locked_database_index_is_one_line(tmp_path: Path) -> None:
    data = Path(os.environ["CONKEEPER_HOME"])
    data.mkdir(parents=True, exist_ok=True)
    open_store(data / "conkeeper.db").close()
    holder = sqlite3.connect(data / "conkeeper.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        from conftest import cli_env

        proc = run_cli("index", cwd=tmp_path, env=cli_env(CONKEEPER_BUSY_TIMEOUT_MS="50"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "busy" in proc.stderr or "locked" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
