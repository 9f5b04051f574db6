"""A category on a heading qualifies its subsections, so category filters find them."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli

ADR = """# ADR-001: JWT refresh token rotation
<!-- @category: decision -->

## Decision
We chose rotating refresh tokens stored in Redis with a 7-day TTL.

# Unrelated
Redis is also used for the rate limiter.
"""


def test_subsection_inherits_the_heading_category(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    decisions = root / ".claude/memory/decisions"
    decisions.mkdir(parents=True)
    (decisions / "ADR-001-jwt.md").write_text(ADR, encoding="utf-8")
    proc = run_cli("search", "--category", "decision", "redis", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "**Line 5:** We chose rotating refresh tokens stored in Redis" in proc.stdout
    assert "<!-- @category: decision -->" in proc.stdout
    assert "rate limiter" not in proc.stdout


def test_rows_of_an_older_format_are_rebuilt_once(tmp_path: Path) -> None:
    import sqlite3

    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    decisions = root / ".claude/memory/decisions"
    decisions.mkdir(parents=True)
    (decisions / "ADR-001-jwt.md").write_text(ADR, encoding="utf-8")
    assert run_cli("index", cwd=root).returncode == 0
    db = tmp_path / "data" / "conkeeper.db"
    with sqlite3.connect(db) as conn:  # as an older parser would have left it
        conn.execute("UPDATE index_entries SET categories = ''")
        conn.execute("UPDATE index_roots SET fingerprint = 'oldformatfingerprint'")
    proc = run_cli("search", "--category", "decision", "redis", cwd=root)
    assert "We chose rotating refresh tokens" in proc.stdout
