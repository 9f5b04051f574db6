"""A member whose token was revoked stops seeing the team at SessionStart, against a real
PostgreSQL, the real CLI and a real SessionStart hook.

SessionStart never asks the server: it shows the "from your team" block the last sync cached.
When the server refuses the token (``team sync``, which SessionEnd starts, or ``team status``),
every cached block is dropped, and ``team status`` says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli, session_start_context
from tests.team_support import TeamServer, database_url, issue_token, pg_proc, team_server
from tests.test_team_sync import HTTPS_ORIGIN, Machine

__all__ = ["database_url", "pg_proc", "team_server"]  # fixtures used by name

TEAM_TAG = "<conkeeper-team>"


def shared_and_cached(tmp_path: Path, server: TeamServer) -> tuple[Machine, str]:
    """ann's decision pushed, and cached for bob's SessionStart; bob and his token."""
    ann, bob = Machine(tmp_path, "ann"), Machine(tmp_path, "bob", HTTPS_ORIGIN)
    token = issue_token(server.database, "bob", "core")
    ann.join(server, issue_token(server.database, "ann", "core"))
    bob.join(server, token)
    for machine in (ann, bob):
        machine.opt_in()
    ann.seed(["Flaky payment test needs a frozen clock"])
    bob.seed(["Bob's own fix stays out of his team block"])  # bob's project is on record
    ann.sync()
    bob.sync()
    assert "Flaky payment test" in context_of(bob)
    revoked = run_cli("server", "token", "--database", server.database, "--revoke", token)
    assert revoked.returncode == 0, revoked.stderr
    return bob, token


def context_of(machine: Machine) -> str:
    return session_start_context(machine.root, CONKEEPER_HOME=str(machine.home))


def test_a_sync_refused_the_token_drops_the_cached_team_block(
    tmp_path: Path, team_server: TeamServer
) -> None:
    bob, _token = shared_and_cached(tmp_path, team_server)
    done = bob.cli("team", "sync")
    assert done.returncode == 1 and "refused the token" in done.stderr
    assert "teammates' block" in done.stderr  # said where a person reads it
    context = context_of(bob)
    assert TEAM_TAG not in context and "Flaky payment test" not in context
    status = bob.cli("team", "status")
    assert "refused the token" in status.stdout
    assert "cached teammates' block was dropped" in status.stdout

    # a new token brings it back with the next sync
    bob.join(team_server, issue_token(team_server.database, "bob", "core"))
    assert bob.sync()["pending"] == 0
    assert "Flaky payment test" in context_of(bob)


def test_team_status_finding_the_token_refused_drops_the_block_and_says_so(
    tmp_path: Path, team_server: TeamServer
) -> None:
    bob, _token = shared_and_cached(tmp_path, team_server)
    status = bob.cli("team", "status", "--json")
    assert status.returncode == 0, status.stderr
    data = json.loads(status.stdout)
    assert data["reachable"] is False and "refused the token" in data["error"]
    assert data["team_block"] == "dropped"
    assert TEAM_TAG not in context_of(bob)


def test_the_worker_session_end_starts_drops_it_too(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """SessionEnd's detached worker (run here with its own arguments, in the foreground) is
    what finds the refusal when the member runs nothing by hand."""
    bob, _token = shared_and_cached(tmp_path, team_server)
    args = ("extract", "--session", "bob-session", "--quiet", "--backup-if-due", "--team-sync")
    done = bob.cli(*args)
    assert done.returncode == 0, done.stderr  # a detached worker logs, it never fails
    assert TEAM_TAG not in context_of(bob)
    log = (bob.home / "logs").glob("*.log")
    assert any("refused the token" in path.read_text(encoding="utf-8") for path in log)
