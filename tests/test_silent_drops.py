"""Nothing dropped without a word (issue 19 item 6): a memory file with invalid UTF-8 is read
with its bad bytes replaced and named, and files skipped for size or permissions are named, in
SessionStart's ``systemMessage``, ``conkeeper doctor`` and ``conkeeper search`` (Markdown and
``--json``), all through the real entry points. Notes pass the privacy module (a secret in a
folder name is redacted from the ``systemMessage``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
ACTIVE = b"# Active Context\n\n## Current Focus\n- Shipping the caf\xe9 billing export\n"
BIG_LIMIT = 8 * 1024 * 1024  # the read limit of search (and of every reader)
START_LIMIT = 512 * 1024  # SessionStart's limit for the files it injects


def _project(base: Path, name: str = "shop") -> Path:
    root = base / name
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "memory").mkdir(parents=True)
    return root


def _session_start(root: Path) -> dict[str, Any]:
    payload = {
        "session_id": "drops-1",
        "transcript_path": str(root.parent / "t.jsonl"),
        "cwd": str(root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    proc = run_cli("hook", "SessionStart", stdin=json.dumps(payload))
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def _doctor_line(root: Path, name: str = "project memory") -> str:
    proc = run_cli("doctor", cwd=root)
    return next(line for line in proc.stdout.splitlines() if f"  {name}:" in line)


def test_invalid_utf8_in_active_context_is_loaded_and_named_everywhere(tmp_path: Path) -> None:
    root = _project(tmp_path)
    path = root / ".claude" / "memory" / "active-context.md"
    path.write_bytes(ACTIVE)
    before = path.read_bytes()

    out = _session_start(root)
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "Shipping the caf\ufffd billing export" in context  # loaded, bad byte replaced
    assert str(path) in out["systemMessage"] and "not valid UTF-8" in out["systemMessage"]

    line = _doctor_line(root)
    assert line.startswith("WARN") and "active-context.md" in line and "UTF-8" in line

    found = run_cli("search", "billing", cwd=root)
    assert found.returncode == 0, found.stderr
    assert "**Line 4:**" in found.stdout  # searched, not skipped
    assert "(not read whole: .claude/memory/active-context.md: not valid UTF-8" in found.stdout
    data = json.loads(run_cli("search", "billing", "--json", cwd=root).stdout)
    assert data["unread_files"][0]["path"] == ".claude/memory/active-context.md"
    assert "not valid UTF-8" in data["unread_files"][0]["note"]
    assert any("active-context.md" in n for n in data["notices"])
    nothing = run_cli("search", "zebrafish", cwd=root)
    assert "No results found" in nothing.stdout and "active-context.md" in nothing.stdout
    assert path.read_bytes() == before  # reading never rewrites the file


def test_oversized_files_are_named_not_dropped(tmp_path: Path) -> None:
    root = _project(tmp_path)
    memory = root / ".claude" / "memory"
    (memory / "patterns.md").write_text(
        "# Patterns\n- token refresh rotates\n" + "- filler line\n" * (START_LIMIT // 14 + 10),
        encoding="utf-8",
    )
    (memory / "decisions").mkdir()
    huge = memory / "decisions" / "ADR-001-huge.md"
    huge.write_text("# ADR-001: Huge\n" + "token refresh log\n" * (BIG_LIMIT // 18 + 10))

    message = _session_start(root)["systemMessage"]
    assert "patterns.md" in message and "limit" in message  # over SessionStart's limit

    line = _doctor_line(root)
    assert line.startswith("WARN")
    assert "patterns.md" in line and "ADR-001-huge.md" in line

    found = run_cli("search", "token", "refresh", cwd=root)
    assert "patterns.md" in found.stdout  # under the search limit: searched
    assert "(not read whole: .claude/memory/decisions/ADR-001-huge.md:" in found.stdout
    data = json.loads(run_cli("search", "token", "--json", cwd=root).stdout)
    assert [u["path"] for u in data["unread_files"]] == [".claude/memory/decisions/ADR-001-huge.md"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file whatever its permissions")
def test_unreadable_files_are_named(tmp_path: Path) -> None:
    root = _project(tmp_path)
    path = root / ".claude" / "memory" / "active-context.md"
    path.write_text("# Active Context\n- secret plans\n", encoding="utf-8")
    path.chmod(0)
    try:
        assert "permission denied" in _session_start(root)["systemMessage"]
        assert "active-context.md" in _doctor_line(root)
        data = json.loads(run_cli("search", "plans", "--json", cwd=root).stdout)
        assert "permission" in data["unread_files"][0]["note"]
    finally:
        path.chmod(0o644)


def test_a_symlink_out_of_the_folder_is_named_at_session_start(tmp_path: Path) -> None:
    root = _project(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n- not memory\n", encoding="utf-8")
    (root / ".claude" / "memory" / "active-context.md").symlink_to(outside)
    out = _session_start(root)
    assert "not memory" not in out["hookSpecificOutput"]["additionalContext"]
    assert "symlink leading outside" in out["systemMessage"]


def test_the_session_start_note_passes_privacy(tmp_path: Path) -> None:
    """The note quotes a path; a token in a folder name is redacted from it."""
    root = _project(tmp_path, f"work {SECRET} shop")
    (root / ".claude" / "memory" / "active-context.md").write_bytes(ACTIVE)
    message = _session_start(root)["systemMessage"]
    assert "not valid UTF-8" in message
    assert SECRET not in message and SECRET[4:] not in message
    assert "[REDACTED:" in message


def test_clean_memory_raises_no_note(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / ".claude" / "memory" / "active-context.md").write_text(
        "# Active Context\n- all fine\n", encoding="utf-8"
    )
    out = _session_start(root)
    assert "systemMessage" not in out
    assert _doctor_line(root).startswith("OK")
    data = json.loads(run_cli("search", "fine", "--json", cwd=root).stdout)
    assert data["unread_files"] == []


def test_mcp_search_names_an_unread_file(tmp_path: Path) -> None:
    from conkeeper.mcp import tools

    root = _project(tmp_path)
    (root / ".claude" / "memory" / "active-context.md").write_bytes(ACTIVE)
    answer = tools.search(root, "billing")
    assert answer["hits"], answer
    assert any("not read whole: .claude/memory/active-context.md" in n for n in answer["notices"])


def test_a_dangling_symlink_in_the_memory_folder_is_named_by_search(tmp_path: Path) -> None:
    root = _project(tmp_path)
    memory = root / ".claude" / "memory"
    (memory / "patterns.md").write_text("# Patterns\n- token refresh rotates\n", encoding="utf-8")
    (memory / "notes.md").symlink_to("moved-away.md")
    found = run_cli("search", "token", cwd=root)
    assert found.returncode == 0, found.stderr
    assert "notes.md: a symlink to a file that does not exist" in found.stdout
