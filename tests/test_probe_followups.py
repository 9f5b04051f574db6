"""What the third write and learning probes found and left open, closed through real entry
points: hooks as subprocesses with Claude Code's payloads, the CLI, the real SQLite file."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conftest import cli_env, run_cli
from test_e2e_session import set_up_project
from test_learning_probe3 import _read, _still_failing
from test_reflect_facts import FAILURE, NamedSession, _bash, _edit

# --------------------------------------------------------------------------- rows kept for later


def _payload(project: Path, event: str, **fields: object) -> str:
    return json.dumps(
        {
            "session_id": "s-waiting",
            "transcript_path": str(project / "t.jsonl"),
            "cwd": str(project),
            "hook_event_name": event,
            **fields,
        }
    )


def _db() -> Path:
    return Path(cli_env()["CONKEEPER_HOME"]) / "conkeeper.db"


@contextmanager
def _locked() -> Iterator[None]:
    """Another program holding the database's write lock (a browser, a long import)."""
    holder = sqlite3.connect(_db(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def _journal() -> str:
    """The row journal, the part rotated at the last backup (a command takes one when due)
    included: what a restore replays."""
    folder = _db().parent / "backups"
    return "".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("journal*.jsonl")))


def _hook(project: Path, event: str, **fields: object) -> None:
    done = run_cli("hook", event, stdin=_payload(project, event, **fields), cwd=project)
    assert done.returncode == 0, done.stderr


def test_a_command_shows_history_a_locked_database_kept_for_later(project: Path) -> None:
    """A prompt and a tool event kept for later were stored only by the next hook: the person
    who ran ``sessions`` or ``search`` first saw them missing. Any command that opens the
    database for writing stores them (journaled, once)."""
    _hook(project, "SessionStart", source="startup")
    with _locked():
        _hook(project, "UserPromptSubmit", prompt="rename the WAITINGPROMPT helper")
        _hook(
            project,
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "make waiting-target"},
            tool_response={"stdout": "ok", "stderr": "", "interrupted": False},
            tool_use_id="toolu_waiting",
        )
    found = run_cli("search", "WAITINGPROMPT", "--json", cwd=project)
    assert found.returncode == 0, found.stderr
    assert "WAITINGPROMPT" in found.stdout
    with sqlite3.connect(_db()) as reader:
        assert reader.execute("SELECT count(*) FROM prompts").fetchone() == (1,)
        assert reader.execute("SELECT count(*) FROM tool_events").fetchone() == (1,)
    journal = _journal()
    assert "WAITINGPROMPT" in journal and "waiting-target" in journal
    assert (_db().parent / "backups" / "pending.jsonl").read_text(encoding="utf-8") == ""


def test_a_session_ended_while_the_database_was_locked_is_ended(project: Path) -> None:
    """SessionEnd could not mark the session ended while another program held the lock: the
    session stayed 'active' for good, so the worker SessionEnd starts (`extract --session`)
    never wrote its summary. Its end is kept for later like a prompt, and stored by the next
    command: the worker's own run, here."""
    _hook(project, "SessionStart", source="startup")
    _hook(project, "UserPromptSubmit", prompt="fix the flaky test")
    with _locked():
        done = run_cli(
            "hook",
            "SessionEnd",
            stdin=_payload(project, "SessionEnd", reason="logout"),
            cwd=project,
            env=cli_env(CONKEEPER_DETACHED="0"),
        )
        assert done.returncode == 0, done.stderr
    worker = run_cli("extract", "--session", "s-waiting", "--quiet", cwd=project)
    assert worker.returncode == 0, worker.stderr
    with sqlite3.connect(_db()) as reader:
        row = reader.execute(
            "SELECT status, end_reason, ended_at FROM sessions WHERE host_session_id = ?",
            ("s-waiting",),
        ).fetchone()
        summaries = reader.execute("SELECT count(*) FROM session_summaries").fetchone()
    assert row[0] == "completed" and row[1] == "logout" and row[2]
    assert summaries == (1,)
    journal = _journal()
    assert '"end_reason":"logout"' in journal  # a later restore has it too


# --------------------------------------------------------------------------- piped test runs

PASSED = "........                                                  [100%]\n12 passed in 0.52s\n"
FAILED_SUMMARY = (
    "F.......\nFAILED tests/test_cart.py::test_discount - AssertionError: assert 1 == 2\n"
    "1 failed, 11 passed in 0.50s\n"
)


def _piped(s: NamedSession, command: str, stdout: str) -> None:
    """A Bash run Claude Code reports as a success: the pipe's last command exited 0."""
    response = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
    s.tool("Bash", {"command": command}, response)


def _working_session(tmp_path: Path, name: str) -> NamedSession:
    s = NamedSession(tmp_path, name)
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount rounding in src/cart.py")
    for _ in range(3):
        _read(s, "src/cart.py")
    _edit(s, "src/cart.py")
    return s


def test_a_piped_test_run_is_judged_by_the_runners_summary(tmp_path: Path) -> None:
    """`pytest -q 2>&1 | tail -20` exits with tail's code: a passing run so written left the
    failure before it "still failing", and a failing one read as a pass. The runner's own
    summary line in the captured output decides."""
    s = _working_session(tmp_path, "d4d4d4d4-0000-4000-8000-000000000001")
    _bash(s, "pytest -q", error=FAILURE)
    assert len(_still_failing(s)) == 1
    _edit(s, "src/cart.py")
    _piped(s, "pytest -q 2>&1 | tail -20", PASSED)
    assert _still_failing(s) == []
    _piped(s, "pytest -q 2>&1 | tail -20", FAILED_SUMMARY)  # a success to the host
    assert _still_failing(s) == [
        "Pick up `tests/test_cart.py::test_discount`, still failing when the work stopped"
    ]


def test_a_piped_test_run_without_a_summary_is_neither_passed_nor_failed(
    tmp_path: Path,
) -> None:
    """No summary line in the output: the run is not "still failing" (grep's exit 1 is not
    the tests'), and it does not settle a failure before it either: that failure is still
    open work, but not "still failing" (learnprobe5: the last run's outcome is not known)."""
    s = _working_session(tmp_path, "d4d4d4d4-0000-4000-8000-000000000002")
    _bash(s, "pytest -q | grep -q 'passed'", error="Exit code 1")
    assert _still_failing(s) == []
    _bash(s, "pytest -q", error=FAILURE)
    _piped(s, "pytest -q 2>&1 | tail -0", "")
    assert _still_failing(s) == []
    report = run_cli("reflect", "--json", cwd=s.project, env=s.env)
    (open_work,) = [r for r in json.loads(report.stdout)["recommendations"]
                    if r["kind"] == "abandoned"]  # fmt: skip
    assert "printed no result" in open_work["what"]


def test_a_pipe_under_pipefail_keeps_its_exit_code(tmp_path: Path) -> None:
    s = _working_session(tmp_path, "d4d4d4d4-0000-4000-8000-000000000003")
    _bash(s, "set -o pipefail; pytest -q 2>&1 | tail -20", error="Exit code 1\n" + PASSED)
    assert len(_still_failing(s)) == 1


# --------------------------------------------------------------------------- stale --no-cache


def _stale(project: Path, *extra: str) -> dict[int, tuple[str, str]]:
    done = run_cli("stale", "--json", *extra, cwd=project)
    assert done.returncode == 0, done.stderr
    return {f["line"]: (f["citation"], f["reason"]) for f in json.loads(done.stdout)["findings"]}


def test_stale_without_the_cache_reports_what_the_default_run_reports(project: Path) -> None:
    """Outside git the record of the cited paths a check saw is the only sign that a file now
    gone was the project's. `stale --no-cache` did not read it, so it never reported a deleted
    top-level file the default run reported; nor does a file under a folder the project no
    longer has count only when its folder is there."""
    import shutil

    (project / "docker-compose.yml").write_text("services: {}\n", "utf-8")
    (project / "infra").mkdir()
    (project / "infra" / "deploy.yml").write_text("steps: []\n", "utf-8")
    (project / ".claude" / "memory" / "patterns.md").write_text(
        "# Patterns\n\n- Local services come up from `docker-compose.yml`.\n"
        "- Deploys follow `infra/deploy.yml`.\n"
        "- Seed data is loaded from `seeds.sql`.\n",  # never there: an example, not stale
        "utf-8",
    )
    assert _stale(project, "--no-cache") == {}
    (project / "docker-compose.yml").unlink()
    shutil.rmtree(project / "infra")
    expected = {3: ("docker-compose.yml", "missing"), 4: ("infra/deploy.yml", "missing")}
    assert _stale(project, "--no-cache") == expected
    assert _stale(project) == expected
    assert _stale(project, "--no-cache") == expected


def test_in_git_a_file_git_never_tracked_seen_before_and_gone_is_missing(tmp_path: Path) -> None:
    """In a git project git's history names what it tracked; a cited file it never tracked (an
    ignored `local/` folder) that an earlier check saw is the project's too: gone with its
    folder, it is missing, by both runs."""
    import shutil

    from test_freshness_stale import T0, commit, git, write

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, ".gitignore", "local/\n")
    write(root, "src/app.py", "def main(): pass\n")
    write(
        root,
        ".claude/memory/patterns.md",
        "# Patterns\n\n- Dev secrets come from `local/dev.env`.\n- Start in `src/app.py`.\n",
    )
    commit(root, "init", T0)
    write(root, "local/dev.env", "X=1\n")
    assert _stale(root) == {}
    shutil.rmtree(root / "local")
    assert _stale(root, "--no-cache") == {3: ("local/dev.env", "missing")}
    assert _stale(root) == {3: ("local/dev.env", "missing")}


# --------------------------------------------------------------------------- tag --apply


def test_undo_takes_back_a_whole_tag_apply(project: Path) -> None:
    """``tag retro --apply`` tagging entries in two files was two undo steps: one ``undo``
    left the other file's tags in place."""
    memory = project / ".claude" / "memory"
    (memory / "patterns.md").write_bytes(
        b"# Patterns\n\n- Always use snake_case for function names in this repo.\n"
    )
    (memory / "decisions-log.md").write_bytes(
        b"# Decisions\n\n- We decided to use PostgreSQL instead of MySQL because we need "
        b"JSONB columns.\n"
    )
    before = {p: p.read_bytes() for p in (memory / "patterns.md", memory / "decisions-log.md")}
    applied = run_cli("tag", "retro", "--apply", "--json", cwd=project)
    assert applied.returncode == 0, applied.stderr
    changed = {change["path"] for change in json.loads(applied.stdout)["changes"]}
    assert changed == {str(p) for p in before}, applied.stdout
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert {p: p.read_bytes() for p in before} == before
