"""Nothing dropped without a word, tried by an outside tester on every memory file kind.

A non-UTF-8 byte in ``patterns.md``, an ADR, a session note or the global ``preferences.md``; a
file exactly at the size limit and one byte over; a directory, a FIFO and a broken symlink where a
memory file is expected. Each must be named (SessionStart ``systemMessage``, ``doctor``,
``search`` and ``search --json``) and nothing may crash, through the real entry points.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from test_silent_drops import _project, _session_start

START_LIMIT = 512 * 1024


def _doctor(root: Path) -> str:
    proc = run_cli("doctor", cwd=root)
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc.stdout


def _search_json(root: Path, *terms: str) -> dict[str, Any]:
    proc = run_cli("search", *terms, "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


KINDS = {
    "patterns": ("patterns.md", "# Patterns\n\n- Use the caf\xe9 wharfbird ledger for billing\n"),
    "adr": (
        "decisions/ADR-001-ledger.md",
        "# ADR-001: Ledger\n\n## Decision\nWe keep the caf\xe9 wharfbird ledger.\n",
    ),
    "session": (
        "sessions/2026-01-02-ledger.md",
        "# Session 2026-01-02\n\n- Worked on the caf\xe9 wharfbird ledger\n",
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_invalid_utf8_in_each_project_memory_kind_is_named(tmp_path: Path, kind: str) -> None:
    root = _project(tmp_path)
    rel, text = KINDS[kind]
    path = root / ".claude" / "memory" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("latin-1"))
    before = path.read_bytes()

    out = _session_start(root)
    if kind == "patterns":  # SessionStart injects patterns.md, not ADRs or session notes
        assert path.name in out.get("systemMessage", ""), out
        assert "UTF-8" in out["systemMessage"]
    assert "Traceback" not in json.dumps(out)
    assert path.name in _doctor(root)
    scope = ("--sessions", "--all-time") if kind == "session" else ()
    found = run_cli("search", "wharfbird", *scope, cwd=root)
    assert found.returncode == 0, found.stderr
    assert path.name in found.stdout and "UTF-8" in found.stdout
    data = _search_json(root, "wharfbird", *scope)
    assert any(u["path"].endswith(path.name) for u in data["unread_files"]), data
    assert path.read_bytes() == before


def test_invalid_utf8_in_global_preferences_is_named(tmp_path: Path) -> None:
    root = _project(tmp_path)
    prefs = tmp_path / "home" / ".claude" / "memory" / "preferences.md"
    prefs.parent.mkdir(parents=True, exist_ok=True)
    prefs.write_bytes("# Preferences\n\n- Prefer the caf\xe9 wharfbird style\n".encode("latin-1"))
    out = _session_start(root)
    assert "preferences.md" in out.get("systemMessage", ""), out
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "wharfbird" in context  # loaded, bad byte replaced
    assert "preferences.md" in _doctor(root)


def test_a_file_exactly_at_the_session_start_limit_loads_one_byte_over_is_named(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    memory = root / ".claude" / "memory"
    head = "# Patterns\n\n- atlimitmarker rule\n"
    body = head + "x" * (START_LIMIT - len(head) - 1) + "\n"
    assert len(body.encode()) == START_LIMIT
    (memory / "patterns.md").write_text(body, encoding="utf-8")
    out = _session_start(root)
    assert "patterns.md" not in out.get("systemMessage", "")
    (memory / "patterns.md").write_text(body + "y", encoding="utf-8")
    out = _session_start(root)
    assert "patterns.md" in out.get("systemMessage", ""), out


def test_odd_things_named_like_memory_files_do_not_crash(tmp_path: Path) -> None:
    root = _project(tmp_path)
    memory = root / ".claude" / "memory"
    (memory / "patterns.md").mkdir()  # a directory named like a memory file
    os.mkfifo(memory / "active-context.md")  # a FIFO: reading it would hang forever
    (memory / "glossary.md").symlink_to(memory / "nowhere.md")  # a broken symlink
    (memory / "decisions").mkdir()
    (memory / "decisions" / "ADR-002-fifo.md").symlink_to(tmp_path / "gone.md")
    out = _session_start(root)
    message = out.get("systemMessage", "")
    assert "active-context.md" in message, out
    assert "glossary.md" in message, out
    doctor = _doctor(root)
    assert "active-context.md" in doctor and "glossary.md" in doctor
    data = _search_json(root, "anything")
    unread = {u["path"] for u in data["unread_files"]}
    assert any(p.endswith("active-context.md") for p in unread), data
    # not yet: search's index scan passes over a dangling symlink without a word (see report)


def test_search_never_echoes_a_private_span_or_secret_from_its_own_arguments(
    tmp_path: Path,
) -> None:
    """The no-results sentence and ``--json`` echo the query and the filters: they are messages
    and pass privacy whole (issue 19 item 7)."""
    root = _project(tmp_path)
    secret = "ghp_" + "Zq8vN3kLm5Xp2Rt7Yw4Bc6Df9Gh1Jk0LmNoP"
    runs = [
        ("<private>zebrasecret</private> ledger",),
        ("--category", "<private>zebrasecret</private>", "ledger"),
        ("--tag", "<private>zebrasecret</private>", "ledger"),
        (f"ledger {secret}",),
    ]
    for args in runs:
        for extra in ((), ("--json",)):
            proc = run_cli("search", *args, *extra, cwd=root)
            shown = proc.stdout + proc.stderr
            assert "zebrasecret" not in shown, (args, shown)
            assert secret not in shown, (args, shown)
