"""Observations, session summaries and prompts in ``conkeeper search``: which flags reach them,
how each hit is labelled (Markdown and JSON), filters, and privacy on the way out."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import run_cli
from conkeeper.domain.observations import Observation, Summary, normalize_observation
from conkeeper.domain.paths import locate_project
from conkeeper.storage.observations import (
    insert_observation,
    save_summary,
    session_info,
)
from conkeeper.storage.store import ensure_project, now_ms, open_store

DAY_MS = 86_400_000


def _session(conn: sqlite3.Connection, project_id: int, host_id: str, started: int) -> int:
    cur = conn.execute(
        "INSERT INTO sessions(host_session_id, project_id, started_at, status) "
        "VALUES (?, ?, ?, 'completed')",
        (host_id, project_id, started),
    )
    return int(cur.lastrowid or 0)


def _observe(conn: sqlite3.Connection, session: int, project: int, when: int, **fields) -> int:  # type: ignore[no-untyped-def]
    obs = normalize_observation(Observation(**fields))
    assert obs is not None
    new = insert_observation(conn, session, project, obs, "local", when)
    assert new is not None
    return new


def _raw_observation(
    conn: sqlite3.Connection, session: int, project: int, title: str, fact: str
) -> int:
    """A row written without the capture-time cleaning, to prove output is cleaned again."""
    cur = conn.execute(
        "INSERT INTO observations(session_id, project_id, type, title, facts, content_hash, "
        "created_at) VALUES (?, ?, 'discovery', ?, ?, ?, ?)",
        (session, project, title, json.dumps([fact]), f"raw-{title}", now_ms()),
    )
    return int(cur.lastrowid or 0)


@pytest.fixture
def shop(tmp_path: Path) -> dict[str, object]:
    """A project with one memory file and a session record in the store."""
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "patterns.md").write_text(
        "# Patterns\n\n## Pricing\nApply the discount before tax.\n", encoding="utf-8"
    )
    conn = open_store()
    project = ensure_project(conn, locate_project(root))
    now = now_ms()
    session = _session(conn, project, "host-1", now - DAY_MS)
    old_session = _session(conn, project, "host-0", now - 90 * DAY_MS)
    ids = {
        "bugfix": _observe(
            conn,
            session,
            project,
            now - DAY_MS,
            type="bugfix",
            title="Apply discount before tax in cart",
            subtitle="Totals were wrong for discounted carts",
            facts=["cart.py: discount now applied before tax", "Regression test added"],
            concepts=["pricing"],
            files=["src/cart.py"],
        ),
        "decision": _observe(
            conn,
            session,
            project,
            now - DAY_MS,
            type="decision",
            title="Keep discount rules in one module",
            facts=["pricing rules live in discounts.py"],
        ),
        "old": _observe(
            conn,
            old_session,
            project,
            now - 90 * DAY_MS,
            type="discovery",
            title="Legacy discount table found",
            facts=["the legacy discount table is unused"],
        ),
    }
    save_summary(
        conn,
        session_info(conn, session),
        Summary(request="fix the cart discount", completed="Discount order fixed and tested"),
        "local",
        now - DAY_MS,
    )
    conn.execute(
        "INSERT INTO prompts(session_id, prompt_number, text, created_at) VALUES (?, 1, ?, ?)",
        (session, "why is the discount applied after tax?", now - DAY_MS),
    )
    conn.close()
    return {"root": root, "ids": ids, "session": session, "project": project}


def search(root: Path, *args: str) -> str:
    proc = run_cli("search", *args, cwd=root)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def search_json(root: Path, *args: str) -> dict:  # type: ignore[type-arg]
    return json.loads(search(root, "--json", *args))


def test_plain_search_stays_with_memory_files(shop: dict) -> None:  # type: ignore[type-arg]
    data = search_json(shop["root"], "discount")
    assert {r["source"] for r in data["results"]} == {"memory"}
    assert data["records"] == {}


def test_sessions_adds_labelled_observations_summaries_and_prompts(shop: dict) -> None:  # type: ignore[type-arg]
    root, ids, session = shop["root"], shop["ids"], shop["session"]
    out = search(root, "--sessions", "discount")
    assert f"### observation #{ids['bugfix']} (bugfix) — Apply discount before tax in cart\n" in out
    assert f"**session #{session}, " in out
    assert "cart.py: discount now applied before tax" in out  # the fact that matched
    assert f"### summary of session #{session} — fix the cart discount\n" in out
    assert f"### prompt 1 of session #{session}\n" in out
    assert "### .claude/memory/patterns.md\n**Line 4:** Apply the discount before tax." in out
    assert out.rstrip().endswith(
        "Found 6 matches across 1 file, 3 observations, 1 session summary and 1 prompt."
    )
    data = search_json(root, "--sessions", "discount")
    by_source: dict[str, list[dict]] = {}  # type: ignore[type-arg]
    for result in data["results"]:
        by_source.setdefault(result["source"], []).append(result)
    assert set(by_source) == {"memory", "observation", "summary", "prompt"}
    assert data["records"] == {"observation": 3, "summary": 1, "prompt": 1}
    bugfix = next(r for r in by_source["observation"] if r["ref"] == f"obs:{ids['bugfix']}")
    assert bugfix["label"].startswith(f"observation #{ids['bugfix']} (bugfix)")
    assert bugfix["categories"] == ["bugfix"] and bugfix["time_ms"] > 0
    assert by_source["summary"][0]["ref"] == f"summary:{session}"
    assert by_source["prompt"][0]["ref"] == f"prompt:{session}:1"


def test_observations_flag_leaves_memory_files_out(shop: dict) -> None:  # type: ignore[type-arg]
    data = search_json(shop["root"], "--observations", "discount")
    assert {r["source"] for r in data["results"]} == {"observation", "summary", "prompt"}
    assert data["files"] == 0
    only = search_json(shop["root"], "--kind", "observation", "discount")
    assert {r["source"] for r in only["results"]} == {"observation"}
    out = search(shop["root"], "--observations", "xylophone")
    assert out == (
        'No results found for "xylophone" in observations, session summaries and prompts.\n'
    )


def test_filters_apply_to_records(shop: dict) -> None:  # type: ignore[type-arg]
    root, ids = shop["root"], shop["ids"]
    typed = search_json(root, "--observations", "--category", "bugfix", "discount")
    assert [r["ref"] for r in typed["results"]] == [f"obs:{ids['bugfix']}"]
    concept = search_json(root, "--observations", "--category", "pricing", "discount")
    assert [r["ref"] for r in concept["results"]] == [f"obs:{ids['bugfix']}"]
    tagged = search_json(root, "--observations", "--tag", "pricing", "discount")
    assert tagged["results"] == []
    recent = search_json(root, "--observations", "--since", "30d", "discount")
    refs = {r["ref"] for r in recent["results"]}
    assert f"obs:{ids['old']}" not in refs and f"obs:{ids['bugfix']}" in refs
    every = search_json(root, "--observations", "discount")
    assert f"obs:{ids['old']}" in {r["ref"] for r in every["results"]}


def test_records_of_other_projects_only_with_all_projects(shop: dict, tmp_path: Path) -> None:  # type: ignore[type-arg]
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    assert search_json(other, "--observations", "discount")["results"] == []
    wide = search_json(other, "--observations", "--all-projects", "discount")
    assert wide["results"] and all(r["project"] == "shop" for r in wide["results"])
    out = search(other, "--observations", "--all-projects", "discount")
    assert f"**session #{shop['session']} (shop), " in out


def test_record_text_is_cleaned_again_on_the_way_out(shop: dict) -> None:  # type: ignore[type-arg]
    conn = open_store()
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    kept = _raw_observation(
        conn,
        shop["session"],
        shop["project"],
        "Kumquat deploy notes",
        f"kumquat token {secret} and <private>kumquat vault code 7781</private> done",
    )
    hidden = _raw_observation(
        conn, shop["session"], shop["project"], "<private>kumquat launch codes</private>", "x"
    )
    conn.close()
    for args in (("--observations",), ("--observations", "--json")):
        out = search(shop["root"], *args, "kumquat")
        assert secret not in out and "7781" not in out and "launch codes" not in out
        assert f"obs:{kept}" in out or f"#{kept}" in out
        assert f"obs:{hidden}" not in out and f"#{hidden} " not in out
    assert "[REDACTED:" in search(shop["root"], "--observations", "kumquat")
