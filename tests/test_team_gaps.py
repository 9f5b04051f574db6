"""Team memory's gaps the last probe left open, closed through the real entry points.

Each test is written from the contract (issue 21, ``docs/team.md``) against a real PostgreSQL
(pytest-postgresql) and the server as a subprocess: ``conkeeper`` subprocesses in separate
data homes, the MCP SDK's clients, and raw HTTP.
"""

from __future__ import annotations

from pathlib import Path

from tests.team_support import TeamServer, database_url, issue_token, pg_proc, team_server
from tests.test_team_sync import HTTPS_ORIGIN, PROJECT_KEY, Machine, team_hits

__all__ = ["database_url", "pg_proc", "team_server"]  # fixtures used by name


# --------------------------------------------------------------------------- identity


def test_an_ssh_url_with_a_colon_path_is_the_same_project(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """``ssh://git@github.com:acme/shop.git`` (an ssh URL whose path follows a colon, as in the
    scp form) gave no project key: the clone shared nothing, and its teammates never saw its
    work. It is ``github.com/acme/shop`` like every other spelling."""
    ann = Machine(tmp_path, "ann", "ssh://git@github.com:acme/shop.git")
    bob = Machine(tmp_path, "bob", HTTPS_ORIGIN)
    for machine in (ann, bob):
        machine.join(team_server, issue_token(team_server.database, machine.name, "core"))
        machine.opt_in()
    ann.seed(["Flaky payment test needs a frozen clock"])
    assert ann.sync() == {"pushed": 1, "pending": 0}
    found = bob.search("flaky", "payment")
    assert [h["author"] for h in team_hits(found)] == ["ann"]
    assert found["team"]["project"] == PROJECT_KEY
