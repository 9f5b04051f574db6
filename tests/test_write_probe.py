"""A tester's second round on what ConKeeper writes, through real entry points only.

Each test is one attack that once failed from the outside: the person's own text around the
part ConKeeper edits (an unclosed private block at the end of a file, a hand-written row in
``decisions/INDEX.md``, Latin-1 bytes in ``.gitignore``), checked on the file's bytes.
ConKeeper runs as CLI subprocesses (``python -m conkeeper``) and as the MCP ``remember`` tool.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import run_cli
from conkeeper.mcp.tools import ToolInputError, remember


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=project)


# --------------------------------------------------------------------------- unclosed private

OPEN_PRIVATE = b"# Patterns\n\n- keep functions short\n<private>\nstaging db at 10.0.4.12\n"


def test_an_entry_is_refused_where_an_unclosed_private_block_would_hide_it(
    project: Path,
) -> None:
    """Privacy hides an unclosed block to the end of the file: an entry appended there was
    reported saved, yet never searched nor injected, and ``corrections apply`` consumed its
    queued item for nothing. Now every transport refuses it with one line, nothing written."""
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    patterns.write_bytes(OPEN_PRIVATE)
    queue = memory / "corrections-queue.md"
    queue.write_bytes(
        b"# Corrections Queue\n\n- **2023-11-14 22:13:20** | correction | "
        b'"use the loguru logger instead of print" | ref: previous assistant message\n'
    )
    before_queue = queue.read_bytes()

    said = _cli(project, "remember", "--source", "user", "--category", "convention", "use uv")
    assert said.returncode == 1
    assert "line 4 is never closed" in said.stderr
    applied = _cli(
        project, "corrections", "apply", "3", "--to", "patterns.md", "--category", "convention"
    )
    assert applied.returncode == 1
    assert "never closed" in applied.stderr
    with pytest.raises(ToolInputError, match="never closed"):
        remember(project, "Prefer pathlib over os.path", "convention", "patterns.md")

    assert patterns.read_bytes() == OPEN_PRIVATE
    assert queue.read_bytes() == before_queue  # the queued item is still there to apply


def test_a_closed_private_block_or_a_private_file_still_takes_entries(project: Path) -> None:
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    closed = OPEN_PRIVATE + b"</private>"
    patterns.write_bytes(closed)
    said = _cli(project, "remember", "--source", "user", "--category", "convention", "use uv")
    assert said.returncode == 0, said.stderr
    assert patterns.read_bytes().startswith(closed + b"\n- use uv\n")
    found = _cli(project, "search", "uv")
    assert "- use uv" in found.stdout

    glossary = memory / "glossary.md"
    glossary.write_bytes(b"---\nprivate: true\n---\n# Glossary\n")
    said = _cli(
        project,
        "remember",
        "--source",
        "user",
        "--file",
        "term",
        "--category",
        "learning",
        "ULID: a sortable id",
    )
    assert said.returncode == 0, said.stderr  # the person made the whole file private
