"""Team sync of a project whose folder is named after a credential (a digest identity).

Such a project is stored as ``redacted-<digest>`` beside a redacted root
(``tests/test_privacy_identity.py``): its live folder is known only to a process started in
it. ``team sync`` read each project's folder from the database, so the redacted root failed
the folder check and the project was silently never pushed. These tests run the real CLI, the
real hooks and a real team server on a throwaway PostgreSQL: the project is pushed when the
sync runs from it, a sync elsewhere says in one line why it left it out, and the marks and the
"from your team" cache an earlier version wrote under the folder's path are moved to the
digest (no token left in any byte of the data home).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import run_cli
from tests.team_support import TeamServer, database_url, issue_token, pg_proc, team_server
from tests.test_privacy_identity import (
    GITHUB,
    STRIPE,
    every_byte,
    leaks,
    previous_code,
    token_folder,
)
from tests.test_team_sync import HTTPS_ORIGIN, SSH_ORIGIN, Machine, git, team_hits

from conkeeper.domain.paths import identity_of, live_identity_of
from conkeeper.storage.team_files import cache_file

__all__ = ["database_url", "pg_proc", "team_server"]  # fixtures used by name


def token_machine(tmp_path: Path, name: str) -> Machine:
    """A machine whose clone lives in a folder named after five vendors' tokens."""
    machine = Machine(tmp_path, name, SSH_ORIGIN)
    machine.root = token_folder(tmp_path / f"{name}-work")
    git(machine.root, "remote", "add", "origin", SSH_ORIGIN)
    (machine.root.parents[5] / f"chat-{STRIPE}.jsonl").write_text("")
    return machine


def sync_from(machine: Machine, cwd: Path) -> tuple[dict[str, int], str]:
    """``team sync --json`` run in ``cwd``: its counts and what it said on stderr."""
    done = machine.cli("team", "sync", "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def test_a_digest_project_is_pushed_from_its_folder_and_named_when_left_out(
    tmp_path: Path, team_server: TeamServer
) -> None:
    ann, bob = token_machine(tmp_path, "ann"), Machine(tmp_path, "bob", HTTPS_ORIGIN)
    for machine in (ann, bob):
        machine.join(team_server, issue_token(team_server.database, machine.name, "core"))
        machine.opt_in()
    assert ann.seed(["Flaky payment test needs a frozen clock"]) == 1
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    counts, said = sync_from(ann, elsewhere)
    assert counts == {"pushed": 0, "pending": 0}
    lines = [line for line in said.splitlines() if "[REDACTED:github-token]" in line]
    assert len(lines) == 1 and "team sync" in lines[0], said
    assert sync_from(ann, ann.root)[0] == {"pushed": 1, "pending": 0}
    assert [h["author"] for h in team_hits(bob.search("flaky", "payment"))] == ["ann"]
    assert sync_from(ann, ann.root)[0] == {"pushed": 0, "pending": 0}  # its mark holds
    status = json.loads(ann.cli("team", "status", "--json").stdout)
    assert status["projects"] == ["github.com/acme/shop"] and status["pending"] == 0
    bob.seed(["Invoice rounding uses banker's rounding"])
    assert bob.sync()["pushed"] == 1
    sync_from(ann, ann.root)  # caches the teammates' block for SessionStart
    assert "Invoice rounding" in hook_in(ann, "SessionStart", source="startup")
    written = every_byte(ann.home)
    assert leaks({str(p.relative_to(tmp_path)): b for p, b in written.items()}) == []


def test_the_session_end_sync_pushes_a_digest_project(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """The detached worker SessionEnd starts runs in the project's folder: it pushes it."""
    ann = token_machine(tmp_path, "ann")
    ann.join(team_server, issue_token(team_server.database, "ann", "core"))
    ann.opt_in()
    ann.seed(["Retry the webhook on 502"])
    done = ann.cli("extract", "--team-sync", "--quiet")
    assert done.returncode == 0, done.stderr
    status = json.loads(ann.cli("team", "status", "--json").stdout)
    assert status["pending"] == 0 and status["server_records"] == 1


def test_marks_and_team_cache_of_the_previous_code_move_to_the_digest(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """The previous code named the project by its folder's path in ``team/marks.json`` and in
    the cached teammates' block's file name; this version moves both to the digest: nothing is
    pushed twice, SessionStart still shows the block, and no token is left on disk."""
    old = previous_code(tmp_path)
    ann, bob = token_machine(tmp_path, "ann"), Machine(tmp_path, "bob", HTTPS_ORIGIN)
    for machine in (ann, bob):
        machine.join(team_server, issue_token(team_server.database, machine.name, "core"))
        machine.opt_in()
    bob.seed(["Invoice rounding uses banker's rounding"])
    assert bob.sync()["pushed"] == 1
    previous = {**ann.env, "PYTHONPATH": str(old)}
    a_session_in(ann, old)
    pushed = run_cli("team", "sync", "--json", cwd=ann.root, env=previous)
    assert pushed.returncode == 0, pushed.stderr
    assert json.loads(pushed.stdout)["pushed"] >= 1
    assert GITHUB.encode() in (ann.home / "team" / "marks.json").read_bytes()  # as it was
    path_named = Path(cache_file(str(ann.home), live_identity_of(str(ann.root))))
    assert path_named.is_file()  # the cache named after the folder's path, as it was
    counts, _said = sync_from(ann, ann.root)
    assert counts == {"pushed": 0, "pending": 0}  # the marks moved: nothing sent again
    assert not path_named.exists()
    assert Path(cache_file(str(ann.home), identity_of(str(ann.root)))).is_file()
    start = hook_in(ann, "SessionStart", source="startup")
    assert "Invoice rounding" in start
    written = every_byte(ann.home)
    named = {str(p.relative_to(tmp_path)): str(p).encode() for p in written}
    assert leaks(named) == []
    assert leaks({str(p.relative_to(tmp_path)): b for p, b in written.items()}) == []


def a_session_in(machine: Machine, src: Path) -> None:
    """A short session of the machine's own data home, run by the code in ``src``."""
    env = {**machine.env, "CONKEEPER_DETACHED": "0", "PYTHONPATH": str(src)}
    for event, fields in (
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "no, use pnpm not npm, always pnpm"}),
        ("SessionEnd", {"reason": "exit"}),
    ):
        hook_in(machine, event, env=env, **fields)
    done = run_cli("extract", cwd=machine.root, env={**machine.env, "PYTHONPATH": str(src)})
    assert done.returncode == 0, done.stderr


def hook_in(
    machine: Machine, event: str, env: dict[str, str] | None = None, **fields: object
) -> str:
    """One hook event in the machine's data home, its folder as ``cwd``."""
    payload = {"session_id": "s1", "transcript_path": "", "cwd": str(machine.root),
               "hook_event_name": event, **fields}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "hook", event],
        input=json.dumps(payload).encode(),
        env=env or {**machine.env, "CONKEEPER_DETACHED": "0"},
        capture_output=True,
        timeout=60,
        check=False,
    )
    out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    assert "Traceback" not in out, out
    return out
