"""Shared helpers of the consolidate class tests: a memory file holding two entries, the kinds
``conkeeper consolidate --json`` proposes for it, and ``--apply`` leaving both lines.

Why it exists: each consolidate round pins the classes it closes in its own test file through the
real CLI; the scaffolding is the same in every one of them, so it lives here once."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli


def one_file(tmp_path: Path, first: str, second: str) -> Path:
    """A fresh memory folder holding both entries in one file, as a person keeps notes."""
    memory = tmp_path / ".claude" / "memory"
    memory.mkdir(parents=True)
    path = memory / "conventions.md"
    path.write_text(f"# Conventions\n\n- {first}\n- {second}\n", encoding="utf-8")
    return path


def proposals(tmp_path: Path) -> list[dict[str, object]]:
    """What ``conkeeper consolidate --json`` proposes for the folder."""
    result = run_cli("consolidate", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)["proposals"]
    assert isinstance(found, list)
    return found


def kinds(tmp_path: Path) -> list[object]:
    """The kinds ``conkeeper consolidate --json`` proposes for the folder."""
    return [p["kind"] for p in proposals(tmp_path)]


def apply_keeps_both(tmp_path: Path, path: Path, first: str, second: str) -> None:
    """``consolidate --apply`` leaves both lines in the file."""
    result = run_cli("consolidate", "--apply", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    assert first in text
    assert second in text
