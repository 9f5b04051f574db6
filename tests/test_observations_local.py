"""The local extractor on replayed sessions with known outcomes, plus its command reading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conkeeper.domain.observations import ToolEvent, Turn
from conkeeper.services.observations.commands import classify_command, commit_message, move_pairs
from conkeeper.services.observations.extract import extract_session
from conkeeper.services.observations.local_extractor import extract_observations
from conkeeper.services.observations.replay import load_recording, replay
from conkeeper.storage.store import open_store

SESSIONS = sorted((Path(__file__).parent / "data" / "sessions").glob("*.json"))


def _observations(conn, session_id: int) -> list[dict]:
    rows = conn.execute(
        "SELECT * FROM observations WHERE session_id = ? ORDER BY id", (session_id,)
    ).fetchall()
    return [
        {**dict(r), **{k: json.loads(r[k]) for k in ("facts", "files", "concepts")}} for r in rows
    ]


@pytest.mark.parametrize("path", SESSIONS, ids=[p.stem for p in SESSIONS])
def test_replayed_session_captures_known_outcome(path: Path) -> None:
    recording = load_recording(path)
    expected = recording["expected"]
    conn = open_store()
    session_id = replay(conn, recording)
    result = extract_session(conn, session_id)
    observations = _observations(conn, session_id)
    assert result.added == len(observations) > 0
    files = {f for o in observations for f in o["files"]}
    assert set(expected["files"]) <= files
    assert {o["type"] for o in observations} >= set(expected["types"])
    for fix in expected["fixes"]:
        assert any(o["type"] == "bugfix" and fix["file"] in o["files"] for o in observations)
    for commit in expected["commits"]:
        assert any(commit in fact for o in observations for fact in o["facts"])
    for o in observations:
        assert 3 <= len(o["title"].split()) <= 8, o["title"]
        assert len(o["subtitle"].split()) <= 24
        assert 1 <= len(o["facts"]) <= 7
        assert all(not f.startswith("/") for f in o["files"]), "files are project-relative"
        assert o["extractor"] == "local"
    summary = conn.execute(
        "SELECT * FROM session_summaries WHERE session_id = ?", (session_id,)
    ).fetchone()
    assert summary is not None and summary["request"] and summary["completed"]
    edited = set(json.loads(summary["files_edited"]))
    assert {fix["file"] for fix in expected["fixes"]} <= edited


def test_routine_commands_alone_make_no_observation() -> None:
    conn = open_store()
    recording = {
        "project_root": "/home/dev/quiet",
        "session_id": "quiet",
        "turns": [
            {
                "prompt": "what's the state of the repo?",
                "events": [
                    {
                        "tool_name": "Bash",
                        "tool_input": {"command": "git status"},
                        "tool_response": {"stdout": "nothing to commit", "stderr": ""},
                    },
                    {
                        "tool_name": "Bash",
                        "tool_input": {"command": "ls -la"},
                        "tool_response": {"stdout": "a b c", "stderr": ""},
                    },
                    {
                        "tool_name": "Read",
                        "tool_input": {"file_path": "/home/dev/quiet/README.md"},
                        "tool_response": {"type": "text"},
                    },
                    {
                        "tool_name": "Bash",
                        "tool_input": {"command": "pip install -r req.txt"},
                        "tool_response": {"stdout": "ok", "stderr": ""},
                    },
                ],
            }
        ],
    }
    session_id = replay(conn, recording)
    extract_session(conn, session_id)
    assert _observations(conn, session_id) == []
    summary = conn.execute("SELECT completed FROM session_summaries").fetchone()
    assert summary["completed"] == "No changes were recorded."


def test_re_extraction_is_idempotent_and_keeps_ids() -> None:
    conn = open_store()
    session_id = replay(conn, load_recording(SESSIONS[0]))
    first = extract_session(conn, session_id)
    ids = [o["id"] for o in _observations(conn, session_id)]
    again = extract_session(conn, session_id)
    assert first.added > 0 and again.added == 0 and again.removed == 0
    assert [o["id"] for o in _observations(conn, session_id)] == ids


def test_pending_sessions_are_extracted_once(tmp_path: Path) -> None:
    from conkeeper.storage.observations import pending_sessions

    conn = open_store()
    ids = [replay(conn, load_recording(p)) for p in SESSIONS]
    assert pending_sessions(conn) == ids
    for session_id in ids:
        extract_session(conn, session_id)
    assert pending_sessions(conn) == []


def _event(i: int, action: str, summary: str = "", paths=(), status="success", tool="Bash"):
    return ToolEvent(i, 1, f"t{i}", tool, action, tuple(paths), summary, status, None, None, i)


def test_failure_fix_pass_across_turns_is_one_bugfix() -> None:
    turns = [
        Turn(1, "run the tests", [_event(1, "execute", "pytest -q", status="failure")]),
        Turn(
            2,
            "fix it",
            [
                _event(2, "write", paths=["src/a.py"], tool="Edit"),
                _event(3, "execute", "pytest -q"),
            ],
        ),
    ]
    found = extract_observations(turns)
    bugfixes = [o for o in found if o.type == "bugfix"]
    assert len(bugfixes) == 1 and bugfixes[0].files == ["src/a.py"]
    assert bugfixes[0].prompt_number == 2


def test_unresolved_failure_is_reported() -> None:
    turns = [Turn(1, "lint", [_event(1, "execute", "ruff check .", status="failure")])]
    found = extract_observations(turns)
    assert [o.type for o in found] == ["discovery"]
    assert found[0].title.startswith("Unresolved lint failure")


def test_related_edits_are_grouped() -> None:
    turns = [
        Turn(
            1,
            "add token refresh",
            [
                _event(1, "write", paths=["src/auth/token.py"], tool="Edit"),
                _event(2, "write", paths=["tests/test_token.py"], tool="Edit"),
                _event(3, "write", paths=["src/auth/session.py"], tool="Edit"),
                _event(4, "write", paths=["docs/changelog.md"], tool="Edit"),
            ],
        )
    ]
    groups = [o.files for o in extract_observations(turns)]
    assert sorted(map(sorted, groups)) == [
        ["docs/changelog.md"],
        ["src/auth/session.py", "src/auth/token.py", "tests/test_token.py"],
    ]


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("cd /x && python -m pytest tests -q", "test"),
        ("uv run pytest -x", "test"),
        ("npm run test -- --watch=false", "test"),
        ("go test ./...", "test"),
        ("cargo build --release", "build"),
        ("ruff check src", "lint"),
        ("git status", "routine"),
        ("git commit -m 'x'", "commit"),
        ("git mv a.py b.py", "move"),
        ("pip install -e .", "install"),
        ("ls -la", "inspect"),
        ("python scripts/gen.py", "run"),
        ("FOO=1 timeout 60 pytest", "test"),
    ],
)
def test_classify_command(command: str, kind: str) -> None:
    assert classify_command(command).kind == kind


def test_commit_messages_and_moves() -> None:
    assert commit_message('git commit -m "fix: parse dates"') == "fix: parse dates"
    assert commit_message('git commit -am "docs: ADR"') == "docs: ADR"
    assert commit_message('git commit -m "fix: cut off mid…') == "fix: cut off mid"
    heredoc = "git commit -m \"$(cat <<'EOF'\nAdd parser\n\nBody\nEOF\n)\""
    assert commit_message(heredoc) == "Add parser\n\nBody"
    assert commit_message("git commit -m \"$(cat <<'EOF'") == ""
    assert move_pairs("mv a.py b.py lib/") == [("a.py", "lib/a.py"), ("b.py", "lib/b.py")]
    assert move_pairs("git mv -f src/a.py src/b.py") == [("src/a.py", "src/b.py")]


def test_extract_cli_pending_and_by_host_id(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    from conkeeper.domain.paths import locate_project
    from conkeeper.services.observations.replay import relocate

    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    conn = open_store()
    rec = relocate(load_recording(SESSIONS[0]), locate_project(root).identity)
    replay(conn, {**rec, "session_id": "host-abc"}, end=False)
    replay(conn, {**rec, "session_id": "host-def"})
    conn.close()
    first = json.loads(run_cli("extract", "--json", cwd=root).stdout)
    assert len(first["sessions"]) == 2
    active = next(s for s in first["sessions"] if not s["summarized"])  # still active: no summary
    assert active["added"] > 0  # an active session's turns are extracted, only not summarised
    assert run_cli("extract", cwd=root).stdout.strip() == "Nothing to extract."
    proc = run_cli("extract", "--session", "host-abc", "--summary", "--json", cwd=root)
    assert json.loads(proc.stdout)["sessions"][0]["summarized"] is True
    missing = run_cli("extract", "--session", "nope", cwd=root)
    assert missing.returncode == 1 and "no session" in missing.stderr
