"""``conkeeper consolidate``: duplicates and contradictions proposed as a diff; nothing changes
without ``--apply``; ``--apply`` writes atomically and never clobbers a concurrent edit."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli
from conkeeper.domain.textio import MemoryFileError
from conkeeper.services.upkeep.freshness import consolidate

PATTERNS = """# Patterns

## Code Conventions
- Wrap every outbound HTTP call in with_retry with three attempts and exponential backoff.
<!-- @category: convention -->
- Always run the formatter before committing changes to the parser module.
- Keep functions short and give every public module a docstring.
"""
ADR = """# ADR-001: Retries

## Decision
- Wrap every outbound HTTP call in with_retry, three attempts, exponential backoff.
"""
ACTIVE = """# Active Context

## Recent Decisions
- Never run the formatter before committing changes to the parser module.
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    memory = root / ".claude" / "memory"
    (memory / "decisions").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (memory / "patterns.md").write_text(PATTERNS, encoding="utf-8")
    (memory / "decisions" / "ADR-001-retries.md").write_text(ADR, encoding="utf-8")
    active = memory / "active-context.md"
    active.write_text(ACTIVE, encoding="utf-8")
    old = os.stat(active).st_mtime - 3600
    for path in (memory / "patterns.md", memory / "decisions" / "ADR-001-retries.md"):
        os.utime(path, (old, old))  # the "never" statement is the newer one
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "start",
        ],
        check=True,
    )
    return root


def test_proposals_are_a_diff_and_nothing_changes(repo: Path) -> None:
    before = (repo / ".claude/memory/patterns.md").read_text(encoding="utf-8")
    result = run_cli("consolidate", "--json", cwd=repo)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    kinds = {p["kind"]: p for p in data["proposals"]}
    assert kinds["duplicate"]["keep"] == "decisions/ADR-001-retries.md:4"
    assert kinds["duplicate"]["remove"] == "patterns.md:4"
    assert kinds["contradiction"]["keep"] == "active-context.md:4"
    assert kinds["contradiction"]["remove"] == "patterns.md:6"
    assert "--- a/.claude/memory/patterns.md" in data["diff"]
    assert "-<!-- @category: convention -->" in data["diff"]  # the tag goes with its entry
    assert data["applied"] == []
    assert (repo / ".claude/memory/patterns.md").read_text(encoding="utf-8") == before


def test_apply_writes_the_reviewed_change(repo: Path) -> None:
    result = run_cli("consolidate", "--apply", cwd=repo)
    assert result.returncode == 0 and "Applied: 1 file(s) changed." in result.stdout
    text = (repo / ".claude/memory/patterns.md").read_text(encoding="utf-8")
    assert "with_retry" not in text and "Always run the formatter" not in text
    assert "- Keep functions short" in text
    again = run_cli("consolidate", cwd=repo)
    assert "No duplicate or contradictory entries found." in again.stdout


def test_apply_never_clobbers_a_concurrent_edit(repo: Path) -> None:
    memory = repo / ".claude" / "memory"
    proposal = consolidate.plan(repo, memory)
    assert proposal.new_text
    edited = PATTERNS + "- A line the user added meanwhile.\n"
    (memory / "patterns.md").write_text(edited, encoding="utf-8")
    with pytest.raises(MemoryFileError, match="changed on disk"):
        consolidate.apply(proposal, memory)
    assert (memory / "patterns.md").read_text(encoding="utf-8") == edited


def test_private_entries_are_never_proposed(repo: Path) -> None:
    memory = repo / ".claude" / "memory"
    (memory / "secret.md").write_text(
        "---\nprivate: true\n---\n- Wrap every outbound HTTP call in with_retry, three "
        "attempts, exponential backoff.\n",
        encoding="utf-8",
    )
    data = json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)
    assert all("secret.md" not in p["keep"] + p["remove"] for p in data["proposals"])


def test_diff_never_shows_private_lines(repo: Path) -> None:
    memory = repo / ".claude" / "memory"
    text = PATTERNS.replace(
        "- Keep functions short",
        "<private>\nThe staging password is hunter2-staging.\n</private>\n- Keep functions short",
    )
    (memory / "patterns.md").write_text(text, encoding="utf-8")
    data = json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)
    assert data["proposals"] and "hunter2" not in data["diff"]
    assert run_cli("consolidate", "--apply", cwd=repo).returncode == 0
    assert "hunter2-staging" in (memory / "patterns.md").read_text(encoding="utf-8")
