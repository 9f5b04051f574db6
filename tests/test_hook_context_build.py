"""SessionStart context: budget, hard cap, privacy, template trimming, database parts."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_cli
from conkeeper.domain.config import Config
from conkeeper.domain.memory import template_text
from conkeeper.domain.paths import locate_project
from conkeeper.domain.privacy import CONTEXT_MARKER_TAG
from conkeeper.services import context as ctxmod
from conkeeper.services.context import (
    MAX_CONTEXT_CHARS,
    SEARCH_REMINDER,
    SessionInfo,
    build_session_context,
    clean_memory_text,
)
from conkeeper.storage.store import ensure_project, open_store


def make_project(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    root = tmp_path / "proj"
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    (root / ".git").mkdir()
    for rel, text in (files or {}).items():
        path = memory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def build(root: Path, config: Config | None = None, conn=None, info=None) -> str:
    return build_session_context(
        locate_project(root), config or Config(), conn, info or SessionInfo()
    )


def test_templates_alone_inject_nothing_but_the_reminder(tmp_path: Path) -> None:
    names = {
        "active-context.md": "active-context.md",
        "progress.md": "progress.md",
        "patterns.md": "patterns.md",
        "product-context.md": "product-context.md",
        "glossary.md": "glossary.md",
        "decisions/INDEX.md": "decisions-index.md",
    }
    root = make_project(tmp_path, {rel: template_text(t) for rel, t in names.items()})
    text = build(root)
    assert text.startswith(f"<{CONTEXT_MARKER_TAG}>") and text.endswith(f"</{CONTEXT_MARKER_TAG}>")
    assert SEARCH_REMINDER in text
    assert "<!--" not in text and "## Current Focus" not in text
    assert "project memory)" not in text  # no file section at all


def test_active_context_first_private_content_never_injected(tmp_path: Path) -> None:
    root = make_project(
        tmp_path,
        {
            "patterns.md": "# Patterns\n\n## Naming\n- snake_case for methods\n",
            "active-context.md": (
                "# Active Context\n\n## Current Focus\n- wiring the hook runner\n"
                "<private>\nCUSTOMER-ACME-SECRET\n</private>\n\n## Blockers\n"
            ),
            "glossary.md": "---\nprivate: true\n---\n# Glossary\n- PRIVATE-TERM means x\n",
        },
    )
    text = build(root)
    assert text.index("active-context.md") < text.index("patterns.md")
    assert "wiring the hook runner" in text and "snake_case for methods" in text
    assert "CUSTOMER-ACME-SECRET" not in text
    assert "PRIVATE-TERM" not in text and "glossary.md" not in text
    assert "## Blockers" not in text  # empty template section trimmed


def test_global_preferences_are_included(tmp_path: Path, isolated_home: Path) -> None:
    root = make_project(tmp_path, {"active-context.md": "## Current Focus\n- x\n"})
    glob = isolated_home / ".claude" / "memory"
    glob.mkdir(parents=True)
    (glob / "preferences.md").write_text("# Preferences\n## Tools\n- prefer ripgrep\n")
    assert "prefer ripgrep" in build(root)


@pytest.mark.parametrize("preset", ["economy", "light", "standard", "detailed"])
def test_budget_and_hard_cap(tmp_path: Path, preset: str) -> None:
    big = "\n".join(f"- item {i} " + "x" * 80 for i in range(400))
    root = make_project(
        tmp_path,
        {
            "active-context.md": "## Current Focus\n" + big,
            "patterns.md": "## Naming\n" + big,
            "progress.md": "## Done\n" + big,
        },
    )
    text = build(root, Config(token_budget=preset))
    budget = min(MAX_CONTEXT_CHARS, {"economy": 1000, "light": 2000}.get(preset, 4000) * 4)
    assert len(text) <= budget
    assert ctxmod.TRUNCATED_NOTE in text
    assert SEARCH_REMINDER in text and text.endswith(f"</{CONTEXT_MARKER_TAG}>")


def test_auto_load_false_injects_only_the_reminder(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"active-context.md": "## Current Focus\n- secret-ish focus\n"})
    text = build(root, Config(auto_load=False))
    assert SEARCH_REMINDER in text and "secret-ish focus" not in text
    assert len(text) < 400


def test_missing_memory_folder_gives_init_hint(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    root.mkdir()
    text = build(root)
    assert "/memory-init" in text and SEARCH_REMINDER in text


def test_open_corrections_are_counted(tmp_path: Path) -> None:
    queue = (
        "# Corrections Queue\n<!-- Auto-populated by ConKeeper UserPromptSubmit hook -->\n\n"
        '- **2026-02-09 14:32:15** | correction | "no, use snake_case" | ref: previous\n'
        '- **2026-02-09 14:35:02** | friction | "that didn\'t work" | ref: previous\n'
        "- not a queue line\n"
    )
    root = make_project(tmp_path, {"corrections-queue.md": queue})
    assert "2 correction(s) wait" in build(root)


def test_observation_logs_are_never_injected(tmp_path: Path) -> None:
    root = make_project(
        tmp_path,
        {"sessions/2026-01-01-observations.md": "- **10:00:00** | `Bash` | OBS-LINE | success\n"},
    )
    assert "OBS-LINE" not in build(root)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}


def _insert_observation(conn: sqlite3.Connection, session: int, project: int, i: int) -> None:
    cols = _columns(conn, "observations")
    row = {
        "session_id": session,
        "project_id": project,
        "type": "bugfix",
        "title": f"fixed flaky test {i}",
        "content_hash": f"h{i}",
        "created_at": 1_700_000_000_000 + i,
    }
    row = {k: v for k, v in row.items() if k in cols}
    conn.execute(
        f"INSERT INTO observations({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        list(row.values()),
    )


def _insert_summary(conn: sqlite3.Connection, session: int, project: int) -> None:
    cols = _columns(conn, "session_summaries")
    row = {
        "session_id": session,
        "project_id": project,
        "request": "make hooks fast",
        "completed": "runner and capture",
        "next_steps": "benchmark SessionStart",
        "created_at": 1_700_000_000_000,
    }
    row = {k: v for k, v in row.items() if k in cols}
    conn.execute(
        f"INSERT INTO session_summaries({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        list(row.values()),
    )


def test_database_parts_when_tables_exist(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"active-context.md": "## Current Focus\n- x\n"})
    conn = open_store()
    project = ensure_project(conn, locate_project(root))
    conn.execute(
        "INSERT INTO sessions(host_session_id, project_id, started_at) VALUES ('old', ?, 1)",
        (project,),
    )
    session = conn.execute("SELECT id FROM sessions").fetchone()[0]
    for i in range(20):  # open_store migrated: the observation tables exist
        _insert_observation(conn, session, project, i)
    _insert_summary(conn, session, project)
    info = SessionInfo(host_session_id="new", project_id=project)
    text = build(root, conn=conn, info=info)
    assert "fixed flaky test 19" in text and "fixed flaky test 4" not in text
    assert "[bugfix]" in text
    assert "Next steps: benchmark SessionStart" in text


def test_database_parts_are_guarded_without_tables(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"active-context.md": "## Current Focus\n- x\n"})
    conn = sqlite3.connect(":memory:")  # no tables at all
    problems: list[str] = []
    text = build_session_context(
        locate_project(root), Config(), conn, SessionInfo(project_id=1), problems=problems
    )
    assert "Current Focus" in text


def test_handoff_comes_first(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"active-context.md": "## Current Focus\n- x\n"})
    text = build(root, info=SessionInfo(handoff="HANDOFF-BODY"))
    assert text.index("HANDOFF-BODY") < text.index("active-context.md")


_line = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs",),
        blacklist_characters="`~\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029",
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(before=st.lists(_line, max_size=6), after=st.lists(_line, max_size=6))
def test_private_block_never_survives_cleaning(before: list[str], after: list[str]) -> None:
    secret = "ZQXSECRETZQX"
    text = "\n".join([*before, "<private>", f"- {secret}", "</private>", *after]) + "\n"
    assert secret not in clean_memory_text(text)


def test_session_start_hook_output_is_valid_json(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"active-context.md": "## Current Focus\n- hooking\n"})
    payload = {
        "session_id": "abc",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    result = run_cli("hook", "SessionStart", stdin=json.dumps(payload))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert "hooking" in out["additionalContext"]
    conn = open_store()
    assert (
        conn.execute("SELECT COUNT(*) FROM sessions WHERE host_session_id='abc'").fetchone()[0] == 1
    )
