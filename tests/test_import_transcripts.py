"""``conkeeper import transcripts`` on realistic and damaged Claude Code JSONL transcripts."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import run_cli

from conkeeper.services.observations.transcripts import import_file, parse_transcript
from conkeeper.storage.store import open_store

FIXTURE = next((Path(__file__).parent / "data" / "transcripts").glob("*.jsonl"))


def setup_transcripts(tmp_path: Path) -> tuple[Path, Path]:
    """A git project and a transcripts folder whose fixture points at it."""
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    folder = tmp_path / "home" / ".claude" / "projects" / "-tmp-shop"
    folder.mkdir(parents=True)
    text = FIXTURE.read_text(encoding="utf-8").replace("__CWD__", str(project))
    (folder / FIXTURE.name).write_text(text, encoding="utf-8")
    return project, folder


def db(tmp_path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(tmp_path / "data" / "conkeeper.db")
    conn.row_factory = sqlite3.Row
    return conn


def test_import_builds_sessions_prompts_events_and_observations(tmp_path: Path) -> None:
    project, _folder = setup_transcripts(tmp_path)
    proc = run_cli("import", "transcripts", "--json", cwd=project)  # default folder under HOME
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["imported"] == 1 and report["private_prompts"] == 1
    assert report["damaged_lines"] == 2 and report["details"][0]["damaged_lines"] == [14, 31]
    assert report["unknown_types"] == 1
    conn = db(tmp_path)
    session = conn.execute("SELECT * FROM sessions").fetchone()
    assert session["status"] == "imported" and session["host_session_id"] == FIXTURE.stem
    assert session["title"].startswith("The cart total is wrong")
    assert session["subtitle"] == "Fix discount calculation in cart"
    prompts = [tuple(r) for r in conn.execute("SELECT prompt_number, text FROM prompts")]
    assert [n for n, _ in prompts] == [1, 3]  # prompt 2 was private: counted, never stored
    assert "[REDACTED:" in prompts[1][1] and "ghp_" not in prompts[1][1]
    events = {r["tool_use_id"]: r for r in conn.execute("SELECT * FROM tool_events")}
    assert "toolu_07" not in events and "toolu_side" not in events  # private turn, sidechain
    assert events["toolu_03"]["status"] == "failure" and events["toolu_03"]["exit_code"] == 1
    assert events["toolu_05"]["status"] == "success"
    assert events["toolu_09"]["status"] == "interrupted"
    assert json.loads(events["toolu_01"]["paths"]) == ["src/shop/cart.py"]
    everything = json.dumps([dict(r) for r in conn.execute("SELECT * FROM prompts")])
    assert "hunter2" not in everything
    types = {r[0] for r in conn.execute("SELECT type FROM observations")}
    assert "bugfix" in types
    summary = conn.execute("SELECT * FROM session_summaries").fetchone()
    assert summary is not None and "cart" in summary["files_edited"]


def test_reimport_is_idempotent(tmp_path: Path) -> None:
    project, folder = setup_transcripts(tmp_path)
    assert run_cli("import", "transcripts", str(folder), cwd=project).returncode == 0
    conn = db(tmp_path)
    tables = ("sessions", "prompts", "tool_events", "observations", "session_summaries")
    before = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
    again = json.loads(run_cli("import", "transcripts", str(folder), "--json", cwd=project).stdout)
    assert again["unchanged"] == 1 and again["imported"] == 0
    forced = run_cli("import", "transcripts", str(folder), "--force", "--json", cwd=project)
    forced_report = json.loads(forced.stdout)
    assert forced_report["imported"] == 0 and forced_report["known"] == 1  # nothing new
    text = run_cli("import", "transcripts", str(folder), "--force", cwd=project).stdout
    assert text.startswith("Imported 0 new sessions") and "1 already recorded" in text
    after = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
    assert after == before


def test_huge_outputs_and_binary_are_tolerated(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    path = tmp_path / "huge.jsonl"
    base = {"cwd": str(project), "sessionId": "huge", "timestamp": "2025-06-01T10:00:00Z"}
    lines = [
        {**base, "type": "user", "message": {"role": "user", "content": "run the build"}},
        {**base, "type": "assistant", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]}},
        {**base, "type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
             "content": "Exit code 2\n" + "error: x\n" * 600_000}]}},
    ]  # fmt: skip
    with open(path, "wb") as out:
        for line in lines:
            out.write(json.dumps(line).encode() + b"\n")
        out.write(b'{"type": "user", "message": {"content": "\xff\xfe\x00 binary"}}\n')
        out.write(bytes(range(256)) + b"\n")
    conn = open_store()
    report = import_file(conn, path)
    assert report.status == "imported" and report.tool_events == 1
    assert report.damaged == [5, 6]  # raw bytes with a newline inside: two broken lines
    prompt = conn.execute("SELECT text FROM prompts WHERE prompt_number = 2").fetchone()
    assert prompt is not None and "binary" in prompt[0]
    error = conn.execute("SELECT error FROM tool_events").fetchone()[0]
    assert len(error) <= 200


def test_unreadable_inputs_are_reported_not_fatal(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"type": "summary", "summary": "nothing"}\n')
    conn = open_store()
    assert import_file(conn, empty).status == "empty"
    assert import_file(conn, tmp_path / "missing.jsonl").status == "failed"
    proc = run_cli("import", "transcripts", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert proc.returncode == 1 and "no such file" in proc.stderr


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.one_of(st.binary(max_size=80), st.sampled_from([
    b'{"type": "user", "message": {"content": "fix it"}, "cwd": "/tmp/x"}',
    b'{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "a"}]}}',
    b'{"type": "user", "message": {"content": [{"type": "tool_result"}]}}',
    b'{"type": "assistant", "message": null}', b'[]', b'{"type": 5}', b'{"message": {}}',
])), max_size=12))  # fmt: skip
def test_parser_never_raises(tmp_path_factory, chunks: list[bytes]) -> None:
    path = tmp_path_factory.mktemp("t") / "s.jsonl"
    data = b"\n".join(chunks)
    path.write_bytes(data)
    parsed = parse_transcript(path)
    assert parsed.lines == data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    assert set(parsed.damaged) <= set(range(1, parsed.lines + 1))


def test_a_session_captured_live_is_not_reported_as_imported(tmp_path: Path) -> None:
    """Issue 22: the transcript of a session the hooks already recorded adds rows to it, and the
    report says so instead of "Imported 1 sessions"."""
    project, folder = setup_transcripts(tmp_path)
    payload = {
        "session_id": FIXTURE.stem,
        "transcript_path": str(folder / FIXTURE.name),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    assert run_cli("hook", "SessionStart", stdin=json.dumps(payload)).returncode == 0
    report = json.loads(run_cli("import", "transcripts", str(folder), "--json").stdout)
    assert report["imported"] == 0 and report["updated"] == 1 and report["prompts"] > 0


def test_a_forgotten_session_never_comes_back_through_import(tmp_path: Path) -> None:
    """Issue 19: ``forget session ID --yes`` then ``import transcripts`` (even ``--force``)."""
    project, folder = setup_transcripts(tmp_path)
    assert run_cli("import", "transcripts", str(folder), cwd=project).returncode == 0
    (session_id,) = db(tmp_path).execute("SELECT id FROM sessions").fetchone()
    forgot = run_cli("forget", "session", str(session_id), "--yes", cwd=project)
    assert forgot.returncode == 0, forgot.stderr
    for extra in ([], ["--force"]):
        again = run_cli("import", "transcripts", str(folder), "--json", *extra, cwd=project)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["forgotten"] == 1
        conn = db(tmp_path)
        for table in ("sessions", "prompts", "tool_events", "observations"):
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table
        conn.close()
