"""The index: entries with line spans, headings and labels; incremental refresh by stamp and
hash; deleted, renamed and unreadable files; rebuild; damaged or unwritable databases."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_cli
from conkeeper.domain.paths import locate_project
from conkeeper.services.search.engine import SearchRequest, search
from conkeeper.storage import index as idx
from conkeeper.storage.index_spans import decode_spans, encode_spans
from conkeeper.storage.store import StoreError

NOTES = """---
owner: me
---
# Notes

## Database choice
<!-- @category: decision -->
<!-- @tag: storage -->
We picked SQLite with WAL.

## Fixes
- Fixed the parse_config crash
  <!-- @category: bugfix -->
- Unrelated bullet about parseConfig
"""


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "memory").mkdir(parents=True)
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def refresh(root: Path, db: Path) -> tuple[idx.IndexStore, idx.RefreshStats]:
    store = idx.open_index_store(db)
    stats = idx.refresh_root(store.conn, idx.project_root(store.conn, locate_project(root)))
    return store, stats


def rows(store: idx.IndexStore) -> list[sqlite3.Row]:
    return store.conn.execute(
        "SELECT f.rel_path, e.line_start, e.line_end, e.heading_path, e.categories, e.tags, "
        "e.spans, x.body, x.terms FROM index_entries e JOIN index_files f ON f.id = e.file_id "
        "JOIN index_fts x ON x.rowid = e.id ORDER BY f.rel_path, e.line_start"
    ).fetchall()


def test_sections_are_indexed_with_spans_headings_and_labels(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / ".claude/memory/notes.md", NOTES)
    store, stats = refresh(root, tmp_path / "db.sqlite")
    assert stats.added == 1 and stats.entries == 3
    got = rows(store)
    assert [(r["line_start"], r["line_end"]) for r in got] == [(4, 4), (6, 9), (11, 14)]
    assert got[1]["heading_path"] == "Notes > Database choice"
    assert got[1]["categories"] == " decision " and got[1]["tags"] == " storage "
    assert got[2]["categories"] == " bugfix "
    assert decode_spans(got[2]["spans"]) == [(12, 13, ("bugfix",), ())]
    body_lines = got[1]["body"].split("\n")
    assert body_lines[0] == "## Database choice" and body_lines[1] == ""  # tag line blanked
    assert len(body_lines) == 9 - 6 + 1
    assert "parse config" in got[2]["terms"] and "parseconfig" in got[2]["terms"]
    assert "owner" not in " ".join(r["body"] for r in got)  # front matter is not an entry


def test_identifier_forms() -> None:
    forms = idx.identifiers("call parseConfig or parse_config in src/auth/token.py; getHTTPReply")
    assert forms["parseConfig"] == ("parse config", "parseconfig")
    assert forms["parse_config"] == ("parse config", "parseconfig")
    assert forms["getHTTPReply"] == ("get http reply", "gethttpreply")
    assert "token" not in forms and "src" not in forms


def test_long_sections_are_chunked_with_exact_line_numbers(tmp_path: Path) -> None:
    root = project(tmp_path)
    lines = ["# Log"] + [f"- step {i} happened" for i in range(1, 101)]
    write(root / ".claude/memory/sessions/2020-01-01-observations.md", "\n".join(lines) + "\n")
    store, _ = refresh(root, tmp_path / "db.sqlite")
    spans = [(r["line_start"], r["line_end"]) for r in rows(store)]
    assert spans == [(1, 40), (41, 80), (81, 101)]
    body = rows(store)[1]["body"].split("\n")
    assert body[0] == "- step 40 happened"  # line 41 of the file


def test_unchanged_files_are_skipped_and_touched_files_keep_their_rows(tmp_path: Path) -> None:
    root = project(tmp_path)
    path = write(root / ".claude/memory/notes.md", NOTES)
    old = 1_600_000_000_000_000_000
    os.utime(path, ns=(old, old))
    db = tmp_path / "db.sqlite"
    store, first = refresh(root, db)
    again = idx.refresh_root(store.conn, idx.project_root(store.conn, locate_project(root)))
    assert first.added == 1 and not again.changed and again.unchanged == 1
    os.utime(path, ns=(old + 10**9, old + 10**9))  # touched, same content
    touched = idx.refresh_root(store.conn, idx.project_root(store.conn, locate_project(root)))
    assert touched.touched == 1 and touched.updated == 0 and len(rows(store)) == 3


def test_same_size_edit_in_the_same_tick_is_noticed(tmp_path: Path) -> None:
    root = project(tmp_path)
    path = write(root / ".claude/memory/a.md", "# A\nalpha words here\n")
    stamp = os.stat(path).st_mtime_ns
    store, _ = refresh(root, tmp_path / "db.sqlite")
    path.write_text("# A\nbravo words here\n", encoding="utf-8")
    os.utime(path, ns=(stamp, stamp))  # same size, same mtime: only the hash can tell
    stats = idx.refresh_root(store.conn, idx.project_root(store.conn, locate_project(root)))
    assert stats.updated == 1
    assert "bravo" in rows(store)[0]["body"]


def test_deleted_and_renamed_files_leave_the_index(tmp_path: Path) -> None:
    root = project(tmp_path)
    a = write(root / ".claude/memory/a.md", "# A\nfirst file\n")
    b = write(root / ".claude/memory/b.md", "# B\nsecond file\n")
    store, _ = refresh(root, tmp_path / "db.sqlite")
    a.unlink()
    b.rename(root / ".claude/memory/c.md")
    stats = idx.refresh_root(store.conn, idx.project_root(store.conn, locate_project(root)))
    assert stats.removed == 2 and stats.added == 1
    assert [r["rel_path"] for r in rows(store)] == ["c.md"]
    fts = store.conn.execute("SELECT count(*) FROM index_fts").fetchone()[0]
    assert fts == 1  # the trigger removed the FTS rows of deleted entries


def test_binary_unreadable_and_hidden_files(tmp_path: Path) -> None:
    root = project(tmp_path)
    mem = root / ".claude/memory"
    (mem / "blob.md").write_bytes(b"\x00\x01binary\x00")
    (mem / "latin.md").write_bytes("caf\xe9".encode("latin-1"))
    write(mem / ".memory-config.md", "---\ntoken_budget: light\n---\n")
    write(mem / "notes.txt", "not markdown")
    write(mem / "ok.md", "# Ok\nfine\n")
    store, stats = refresh(root, tmp_path / "db.sqlite")
    assert stats.scanned == 3 and stats.skipped == 1
    status = idx.index_status(store.conn)[0]
    notes = dict(status.skipped)
    assert "binary" in notes["blob.md"] and "latin.md" not in notes
    unread = {rel: note for _root, rel, _kind, note in idx.unread_files(store.conn, [1])}
    assert "binary" in unread["blob.md"]
    assert "not valid UTF-8" in unread["latin.md"]  # indexed with U+FFFD, and named
    proc = run_cli("index", "--status", cwd=root)
    assert proc.returncode == 0
    assert "blob.md" in proc.stdout and "binary" in proc.stdout and "1 skipped" in proc.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read anything")
def test_unreadable_file_is_skipped_with_a_note(tmp_path: Path) -> None:
    root = project(tmp_path)
    path = write(root / ".claude/memory/secret.md", "# S\nx\n")
    path.chmod(0)
    store, stats = refresh(root, tmp_path / "db.sqlite")
    assert stats.skipped == 1
    assert "permission" in dict(idx.index_status(store.conn)[0].skipped)["secret.md"]


def test_symlink_outside_the_memory_folder_is_not_indexed(tmp_path: Path) -> None:
    root = project(tmp_path)
    outside = write(tmp_path / "elsewhere.md", "# Out\noutside secret\n")
    (root / ".claude/memory/link.md").symlink_to(outside)
    write(root / ".claude/memory/in.md", "# In\ninside\n")
    store, _ = refresh(root, tmp_path / "db.sqlite")
    assert [r["rel_path"] for r in rows(store)] == ["in.md"]


def test_rebuild_reindexes_everything(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / ".claude/memory/notes.md", NOTES)
    assert run_cli("index", cwd=root).returncode == 0
    proc = run_cli("index", "--rebuild", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["refresh"]["added"] == 1 and payload["refresh"]["entries"] == 3
    assert payload["schema"] >= 2
    kinds = {r["kind"] for r in payload["roots"]}
    assert kinds == {"project", "global"}


def test_index_command_reports_counts(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / ".claude/memory/notes.md", NOTES)
    proc = run_cli("index", cwd=root)
    assert proc.returncode == 0
    assert "1 added" in proc.stdout and "3 entries" in proc.stdout
    assert proc.stderr == ""  # no progress bar when stderr is not a terminal


def test_progress_bar_draws_only_on_a_terminal() -> None:
    import io

    from conkeeper.cli.cmd_index import ProgressBar

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        bar = ProgressBar("indexing", stream)
        for done in range(1, 501):
            bar(done, 500)
    assert "500/500 files" in tty.getvalue() and tty.getvalue().endswith("\n")
    assert pipe.getvalue() == ""


def test_corrupt_database_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / ".claude/memory/notes.md", NOTES)
    data = Path(os.environ["CONKEEPER_HOME"])
    data.mkdir(parents=True, exist_ok=True)
    (data / "conkeeper.db").write_bytes(b"garbage" * 1000)
    proc = run_cli("search", "SQLite", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "Found 1 match across 1 file." in proc.stdout
    assert "damaged" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
    assert list(data.glob("conkeeper.db.damaged-*"))
    again = run_cli("search", "SQLite", cwd=root)
    assert again.stderr == "" and "Found 1 match" in again.stdout


def test_newer_database_search_falls_back_to_memory_with_notice(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / ".claude/memory/notes.md", NOTES)
    data = Path(os.environ["CONKEEPER_HOME"])
    data.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(data / "conkeeper.db")
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    proc = run_cli("search", "SQLite", cwd=root)
    assert proc.returncode == 0 and "Found 1 match" in proc.stdout
    assert "newer ConKeeper" in proc.stderr and "in-memory" in proc.stderr
    index = run_cli("index", cwd=root)
    assert index.returncode != 0 and "newer ConKeeper" in index.stderr
    assert "Traceback" not in index.stderr


def test_unwritable_database_search_falls_back_to_memory(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / ".claude/memory/notes.md", NOTES)
    db = tmp_path / "ro.db"
    idx.open_index_store(db).conn.close()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
    conn.row_factory = sqlite3.Row
    store = idx.IndexStore(conn, db)
    response = search(SearchRequest(query="SQLite", cwd=root), store)
    assert len(response.hits) == 1
    assert any("read-only" in n and "in-memory" in n for n in response.notices)


def test_locked_database_search_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONKEEPER_BUSY_TIMEOUT_MS", "30")
    root = project(tmp_path)
    write(root / ".claude/memory/notes.md", NOTES)
    db = tmp_path / "locked.db"
    idx.open_index_store(db).conn.close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        response = search(
            SearchRequest(query="SQLite", cwd=root), idx.open_index_store(db, fallback=True)
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(response.hits) == 1
    assert any("busy" in n for n in response.notices)


def test_open_index_store_without_fallback_raises_store_error(tmp_path: Path) -> None:
    db = tmp_path / "newer.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        idx.open_index_store(db)


def test_project_folder_moving_starts_afresh(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / ".claude/memory/a.md", "# A\nmoved text\n")
    db = tmp_path / "db.sqlite"
    store, _ = refresh(root, db)
    moved = tmp_path / "moved"
    root.rename(moved)
    location = locate_project(moved)
    stats = idx.refresh_root(store.conn, idx.project_root(store.conn, location))
    assert stats.added == 1
    hits = search(SearchRequest(query="moved", cwd=moved), store).hits
    assert [h.path for h in hits] == [".claude/memory/a.md"]


def _aged(folder: Path) -> None:
    """Every file an hour old: outside the racy window, so the fingerprint alone is trusted."""
    stamp = 1_700_000_000_000_000_000
    for path in folder.rglob("*.md"):
        os.utime(path, ns=(stamp, stamp))


def _bodies(store: idx.IndexStore) -> dict[str, str]:
    return {r["rel_path"]: r["body"] for r in rows(store)}


def _stored_fingerprint(store: idx.IndexStore) -> str:
    return store.conn.execute("SELECT fingerprint FROM index_roots").fetchone()[0]


def test_every_kind_of_change_beats_the_no_change_fingerprint(tmp_path: Path) -> None:
    root = project(tmp_path)
    memory = root / ".claude" / "memory"
    write(memory / "a.md", "# A\nalpha\n")
    write(memory / "b.md", "# B\nbravo bravo\n")
    write(memory / "sub" / "c.md", "# C\ncharlie\n")
    _aged(memory)
    db = tmp_path / "db.sqlite"
    store, _ = refresh(root, db)

    def again() -> idx.RefreshStats:
        stats = idx.refresh_root(store.conn, idx.project_root(store.conn, locate_project(root)))
        assert _stored_fingerprint(store) == idx.walk_root(memory).fingerprint(2**62)
        return stats

    assert not again().changed  # nothing changed: the fingerprint matches
    (memory / "a.md").write_text("# A\nalpha edited\n", encoding="utf-8")  # edit in place
    _aged(memory)  # same mtime as before: only the size tells
    assert again().updated == 1 and "edited" in _bodies(store)["a.md"]
    write(memory / "sub" / "deeper" / "d.md", "# D\ndelta\n")  # new file in a new folder
    _aged(memory)
    assert again().added == 1 and "sub/deeper/d.md" in _bodies(store)
    (memory / "sub" / "c.md").unlink()  # deleted
    assert again().removed == 1 and "sub/c.md" not in _bodies(store)
    (memory / "sub").rename(memory / "moved")  # a renamed folder renames its files
    stats = again()
    assert stats.removed == 1 and stats.added == 1 and "moved/deeper/d.md" in _bodies(store)
    # Two files swap names: same names, same sizes and stamps overall, paired differently.
    (memory / "a.md").rename(memory / "tmp.md")
    (memory / "b.md").rename(memory / "a.md")
    (memory / "tmp.md").rename(memory / "b.md")
    assert again().changed
    assert "bravo" in _bodies(store)["a.md"] and "alpha" in _bodies(store)["b.md"]
    assert not again().changed


LABEL = st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True)
SPAN = st.tuples(
    st.integers(1, 10**6),
    st.integers(1, 10**6),
    st.lists(LABEL, max_size=3).map(tuple),
    st.lists(LABEL, max_size=3).map(tuple),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(SPAN, max_size=5))
def test_label_spans_read_back_as_written(
    spans: list[tuple[int, int, tuple[str, ...], tuple[str, ...]]],
) -> None:
    assert decode_spans(encode_spans(spans)) == spans
