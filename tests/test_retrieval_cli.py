"""Progressive retrieval through the real CLI: levels 1–5, timeline, filters, scope, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import run_cli

from conkeeper.domain.paths import locate_project
from conkeeper.services.observations.extract import extract_session
from conkeeper.services.observations.replay import load_recording, relocate, replay
from conkeeper.storage.store import open_store

SESSIONS = Path(__file__).parent / "data" / "sessions"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project whose store holds two replayed, extracted sessions (and another project)."""
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    conn = open_store()
    identity = locate_project(root).identity
    for name, sid in [("bugfix_cart_discount", "s-cart"), ("feature_rate_limit", "s-rate")]:
        rec = relocate(load_recording(SESSIONS / f"{name}.json"), identity)
        rec["session_id"] = sid
        extract_session(conn, replay(conn, rec))
    other = load_recording(SESSIONS / "investigate_ci_build.json")
    extract_session(conn, replay(conn, other))
    conn.close()
    return root


def cli_json(*args: str, cwd: Path) -> dict:
    proc = run_cli(*args, "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_level1_sessions(project: Path) -> None:
    data = cli_json("sessions", cwd=project)
    assert data["level"] == 1 and data["estimated_tokens"] > 0
    titles = [s["title"] for s in data["sessions"]]
    assert len(titles) == 2  # newest first: the rate-limit session was recorded last
    assert titles[0].startswith("Add rate limiting") and titles[1].startswith("The cart total")
    assert {s["host_session_id"] for s in data["sessions"]} == {"s-cart", "s-rate"}
    everything = cli_json("sessions", "--all-projects", cwd=project)
    assert len(everything["sessions"]) == 3
    text = run_cli("sessions", cwd=project)
    assert text.returncode == 0 and "tokens)" in text.stdout.splitlines()[-1]


def test_level2_summary(project: Path) -> None:
    data = cli_json("summary", "s-cart", cwd=project)
    assert data["summary"]["files_edited"] == ["src/shop/cart.py"]
    assert "discount" in data["summary"]["request"]
    text = run_cli("summary", "s-ca", cwd=project)  # a unique prefix
    assert "Completed:" in text.stdout and "tokens)" in text.stdout


def test_level3_observations_filters(project: Path) -> None:
    everything = cli_json("observations", cwd=project)["observations"]
    assert everything and all(o["subtitle"] for o in everything)  # seed 004 level 3
    text = run_cli("observations", cwd=project).stdout
    assert everything[0]["subtitle"] in text
    short = cli_json("observations", "--no-subtitles", cwd=project)["observations"]
    assert short and all("subtitle" not in o for o in short)
    bugfixes = cli_json("observations", "--type", "bugfix", cwd=project)["observations"]
    assert bugfixes and all(o["type"] == "bugfix" for o in bugfixes)
    by_file = cli_json("observations", "--file", "src/shop/cart.py", cwd=project)
    assert by_file["observations"]
    by_name = cli_json("observations", "--file", "cart.py", cwd=project)["observations"]
    assert {o["id"] for o in by_name} == {o["id"] for o in by_file["observations"]}
    by_dir = cli_json("observations", "--file", "src/middleware", cwd=project)["observations"]
    assert by_dir and all(o["session_id"] != by_file["observations"][0]["session_id"]
                          for o in by_dir)  # fmt: skip
    by_concept = cli_json("observations", "--concept", "Testing", cwd=project)["observations"]
    assert by_concept
    in_session = cli_json("observations", "--session", "s-rate", cwd=project)["observations"]
    assert [o["prompt_number"] for o in in_session] == sorted(
        o["prompt_number"] for o in in_session
    )


def test_level4_facts_and_level5_show(project: Path) -> None:
    facts = cli_json("facts", "discount", "tax", cwd=project)["results"]
    assert facts and any("discount" in f.lower() for f in facts[0]["facts"])
    assert cli_json("facts", 'AND OR "(', cwd=project)["results"] == []  # never an FTS error
    shown = cli_json("show", str(facts[0]["id"]), "999999", cwd=project)
    assert shown["observations"][0]["narrative"] and shown["missing"] == [999999]
    assert run_cli("show", "999999", cwd=project).returncode == 1


def test_timeline(project: Path) -> None:
    items = cli_json("observations", "--session", "s-rate", cwd=project)["observations"]
    anchor = items[1]["id"]
    data = cli_json("timeline", str(anchor), "--before", "1", "--after", "1", cwd=project)
    assert [i["anchor"] for i in data["items"]] == [False, True, False]
    text = run_cli("timeline", str(anchor), cwd=project).stdout
    assert f"> #{anchor}" in text


def test_errors_are_one_line(project: Path) -> None:
    proc = run_cli("summary", "no-such-session", cwd=project)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "no session" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("observations", "--type", "nonsense", cwd=project)
    assert proc.returncode == 1 and "unknown type" in proc.stderr


def test_unknown_project_has_no_rows(tmp_path: Path) -> None:
    elsewhere = tmp_path / "empty"
    elsewhere.mkdir()
    assert cli_json("sessions", cwd=elsewhere)["sessions"] == []
    assert "No sessions" in run_cli("sessions", cwd=elsewhere).stdout
