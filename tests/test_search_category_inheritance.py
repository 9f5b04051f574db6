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
