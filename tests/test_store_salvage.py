"""Nothing is lost: a damaged database is moved aside and every row SQLite can still read is
salvaged into the new one, and the user is told how many rows, per table.

The damage is real: pages of a populated database file are overwritten with random bytes, then
the real ``conkeeper index`` entry point runs (it finds the file damaged and moves it aside).
"""

from __future__ import annotations

import random
import re
import sqlite3
from pathlib import Path

import pytest

from conftest import run_cli
from conkeeper.domain.paths import db_path
from conkeeper.storage.store import open_store, salvage, salvage_summary

PROMPTS = 600
EVENTS = 600


def _populate(path: Path) -> None:
    """A database with one project, three sessions and many prompts and tool events (many pages
    each), written through the store's own connection and migrations."""
    conn = open_store(path)
    conn.execute(
        "INSERT INTO projects(id, identity, root, name, created_at, last_seen_at) "
        "VALUES (1, '/p', '/p', 'p', 1, 1)"
    )
    for sid in (1, 2, 3):
        conn.execute(
            "INSERT INTO sessions(id, host_session_id, project_id, started_at) VALUES (?, ?, 1, 1)",
            (sid, f"s{sid}"),
        )
    conn.execute("BEGIN")
    for n in range(1, PROMPTS + 1):
        conn.execute(
            "INSERT INTO prompts(id, session_id, prompt_number, text, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (n, n % 3 + 1, n, f"zebraword prompt {n} " + "lorem ipsum " * 20, n),
        )
    for n in range(1, EVENTS + 1):
        conn.execute(
            "INSERT INTO tool_events(id, session_id, tool_use_id, tool_name, action, "
            "input_summary, status, created_at) VALUES (?, ?, ?, 'Bash', 'execute', ?, "
            "'success', ?)",
            (n, n % 3 + 1, f"tu{n}", f"make target-{n} " + "x" * 150, n),
        )
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _pages(path: Path, sql: str) -> list[int]:
    conn = sqlite3.connect(path)
    try:
        return [int(r[0]) for r in conn.execute(sql).fetchall()]
    finally:
        conn.close()


def _leaf_pages(path: Path, table: str) -> list[int]:
    """The table's leaf pages, from SQLite's ``dbstat`` table (compiled into CPython's usual
    SQLite builds; without it there is no honest way to aim the damage, so the test skips)."""
    try:
        _pages(path, "SELECT count(*) FROM dbstat")
    except sqlite3.OperationalError:
        pytest.skip("this SQLite build has no dbstat table")
    return _pages(
        path,
        f"SELECT pageno FROM dbstat WHERE name = '{table}' AND pagetype = 'leaf' ORDER BY pageno",
    )


def _overwrite(path: Path, pages: list[int]) -> None:
    """Fill whole pages with random bytes, as a bad disk or a torn copy would."""
    conn = sqlite3.connect(path)
    size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    conn.close()
    rng = random.Random(5)
    with path.open("r+b") as fh:
        for page in pages:
            fh.seek((page - 1) * size)
            fh.write(bytes(rng.randrange(256) for _ in range(size)))


def _count(path: Path, table: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def test_damaged_database_is_salvaged_through_the_cli(project: Path) -> None:
    memory = project / ".claude" / "memory" / "notes.md"
    memory.write_text("# Notes\n\n- the deploy runs on fridays\n", encoding="utf-8")
    before = memory.read_bytes()
    path = db_path()
    _populate(path)
    prompt_leaves = _leaf_pages(path, "prompts")
    event_leaves = _leaf_pages(path, "tool_events")
    assert len(prompt_leaves) > 10 and len(event_leaves) > 10
    roots = _pages(path, "SELECT rootpage FROM sqlite_master WHERE name = 'index_roots'")
    middle_prompt = prompt_leaves[len(prompt_leaves) // 2]
    middle_event = event_leaves[len(event_leaves) // 3]
    _overwrite(path, [*roots, middle_prompt, middle_event])

    result = run_cli("index", cwd=project)

    assert result.returncode == 0, result.stderr
    notices = [line for line in result.stderr.splitlines() if "damaged" in line]
    assert len(notices) == 1, result.stderr
    found = re.search(r"recovered ([\d,]+) rows \(([^)]*)\)", notices[0])
    assert found, notices[0]
    per_table = {
        name: int(n.replace(",", "")) for name, n in re.findall(r"(\w+) ([\d,]+)", found.group(2))
    }
    prompts, events = _count(path, "prompts"), _count(path, "tool_events")
    assert per_table["prompts"] == prompts and per_table["tool_events"] == events
    assert per_table["projects"] == 1 and per_table["sessions"] == 3
    # Only the rows on the one damaged leaf of each table are lost.
    per_leaf = PROMPTS // len(prompt_leaves) + 2
    assert PROMPTS - per_leaf <= prompts < PROMPTS
    assert EVENTS - (EVENTS // len(event_leaves) + 2) <= events < EVENTS
    # Rows after the damaged page are back too, and searchable (their FTS rows are rebuilt).
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM prompts WHERE id = ?", (PROMPTS,)).fetchone()[0]
    hits = conn.execute(
        "SELECT count(*) FROM prompts_fts WHERE prompts_fts MATCH 'zebraword'"
    ).fetchone()[0]
    conn.close()
    assert hits == prompts
    assert memory.read_bytes() == before
    assert list(path.parent.glob(path.name + ".damaged-*"))
    search = run_cli("search", "fridays", cwd=project)
    assert search.returncode == 0 and "fridays" in search.stdout


def test_unreadable_header_says_nothing_could_be_recovered(project: Path) -> None:
    path = db_path()
    _populate(path)
    _overwrite(path, [1])
    result = run_cli("index", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "no rows could be recovered" in result.stderr
    assert _count(path, "prompts") == 0


def test_salvage_of_an_intact_file_copies_every_row(tmp_path: Path) -> None:
    source, target = tmp_path / "old.db", tmp_path / "new.db"
    _populate(source)
    counts = salvage(source, target)
    assert counts == {"projects": 1, "sessions": 3, "prompts": PROMPTS, "tool_events": EVENTS}
    assert _count(target, "prompts") == PROMPTS


def test_salvage_of_a_file_that_is_not_a_database_recovers_nothing(tmp_path: Path) -> None:
    source, target = tmp_path / "junk.db", tmp_path / "new.db"
    source.write_bytes(b"this is not sqlite" * 100)
    assert salvage(source, target) == {}
    assert salvage_summary({}) == "no rows could be recovered"
    assert salvage_summary({"prompts": 1}) == "recovered 1 row (prompts 1)"
    assert salvage_summary({"a": 1000, "b": 2}) == "recovered 1,002 rows (a 1,000, b 2)"


def test_rows_between_two_damaged_pages_are_read_one_by_one(tmp_path: Path) -> None:
    source, target = tmp_path / "old.db", tmp_path / "new.db"
    _populate(source)
    leaves = _leaf_pages(source, "prompts")
    first, second = leaves[len(leaves) // 3], leaves[2 * len(leaves) // 3]
    _overwrite(source, [first, second])
    counts = salvage(source, target)
    per_leaf = PROMPTS // len(leaves) + 2
    assert PROMPTS - 2 * per_leaf <= counts["prompts"] < PROMPTS
    assert counts["tool_events"] == EVENTS
    conn = sqlite3.connect(target)
    ids = {int(r[0]) for r in conn.execute("SELECT id FROM prompts")}
    conn.close()
    assert PROMPTS // 2 in ids  # between the two damaged pages
    assert {1, PROMPTS} <= ids
