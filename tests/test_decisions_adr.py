"""ADR numbering and index regeneration, through ``conkeeper decisions`` and queue routing."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from conkeeper.domain.memory import parse_entries
from conkeeper.services.analysis.corrections import QUEUE_HEADER, format_queue_line


def _project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", "--no", cwd=root).returncode == 0
    return root, root / ".claude" / "memory"


def test_new_adrs_are_numbered_tagged_and_indexed(tmp_path: Path) -> None:
    root, memory = _project(tmp_path)
    (memory / "decisions" / "ADR-007-older.md").write_text(
        "# ADR-007: Older choice\n\n- **Status:** superseded\n- **Date:** 2026-01-02\n"
    )
    proc = run_cli(
        "decisions", "new", "Use SQLite | FTS5 for search", "--decision",
        "We will index memory in SQLite FTS5.", "--context", "grep was slow.", "--json", cwd=root,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    path = memory / json.loads(proc.stdout)["path"]
    assert path.name == "ADR-008-use-sqlite-fts5-for-search.md"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# ADR-008: Use SQLite | FTS5 for search\n<!-- @category: decision -->")
    assert "- **Status:** accepted" in text
    assert "## Decision\n\nWe will index memory in SQLite FTS5." in text
    assert "## Context\n\ngrep was slow." in text
    assert parse_entries(text)[0].categories == ("decision",)
    index = (memory / "decisions" / "INDEX.md").read_text(encoding="utf-8")
    assert "| [ADR-007](ADR-007-older.md) | Older choice | superseded | 2026-01-02 |" in index
    assert "| [ADR-008](ADR-008-use-sqlite-fts5-for-search.md) | Use SQLite / FTS5" in index
    assert index.index("ADR-007") < index.index("ADR-008")


def test_a_queued_decision_becomes_an_adr(tmp_path: Path) -> None:
    root, memory = _project(tmp_path)
    line = format_queue_line("correction", "no, keep sessions in SQLite not JSON", when=1.7e9)
    (memory / "corrections-queue.md").write_text(QUEUE_HEADER + line, encoding="utf-8")
    proc = run_cli(
        "corrections", "apply", "4", "--to", "adr", "--title", "Sessions live in SQLite",
        "--text", "We will keep session records in SQLite, not JSON files.", cwd=root,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "decisions/ADR-001-sessions-live-in-sqlite.md" in proc.stdout
    assert "ADR-001" in (memory / "decisions" / "INDEX.md").read_text(encoding="utf-8")
    assert (memory / "corrections-queue.md").read_text(encoding="utf-8") == QUEUE_HEADER


def test_index_without_memory_is_one_clear_error(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    (bare / ".git").mkdir(parents=True)
    proc = run_cli("decisions", "index", cwd=bare)
    assert proc.returncode != 0 and "conkeeper init" in proc.stderr
    assert "Traceback" not in proc.stderr
