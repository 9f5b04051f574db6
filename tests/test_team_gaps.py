"""Team memory's gaps the last probe left open, closed through the real entry points.

Each test is written from the contract (issue 21, ``docs/team.md``) against a real PostgreSQL
(pytest-postgresql) and the server as a subprocess: ``conkeeper`` subprocesses in separate
data homes, the MCP SDK's clients, and raw HTTP.
"""

from __future__ import annotations

import json
import subprocess
import sys
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


# --------------------------------------------------------------------------- joining


def test_a_token_can_join_without_showing_in_the_process_list(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """``team join URL --token TOKEN`` put the token in the process list, where every user of
    the machine can read it (``ps``, ``/proc/PID/cmdline``), and in shell history. A token
    read from standard input, a file or ``$CONKEEPER_TEAM_TOKEN`` never is; ``--token`` still
    works."""
    ann, bob, cid = (Machine(tmp_path, name) for name in ("ann", "bob", "cid"))
    token = issue_token(team_server.database, "ann", "core")
    joining = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "team", "join", team_server.url, "--token-file", "-"],
        cwd=ann.root, env=ann.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    # the process waits for its standard input: what the process list shows of it now
    command_line = Path(f"/proc/{joining.pid}/cmdline").read_bytes().decode()
    out, err = joining.communicate(token + "\n", timeout=120)
    assert joining.returncode == 0, err
    assert "--token-file" in command_line and token not in command_line
    assert f"joined {team_server.url} as ann (team core)" in out

    token_file = tmp_path / "bob.token"
    token_file.write_text(issue_token(team_server.database, "bob", "core") + "\n")
    done = bob.cli("team", "join", team_server.url, "--token-file", str(token_file), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["user"] == "bob"

    cid.env["CONKEEPER_TEAM_TOKEN"] = issue_token(team_server.database, "cid", "core")
    done = cid.cli("team", "join", team_server.url)
    assert done.returncode == 0, done.stderr
    for machine, name in ((ann, "ann"), (bob, "bob"), (cid, "cid")):
        status = json.loads(machine.cli("team", "status", "--json").stdout)
        assert status["reachable"] is True and status["user"] == name

    both = ann.cli("team", "join", team_server.url, "--token", token, "--token-file", "-")
    assert both.returncode == 2 and "not both" in both.stderr
    missing = ann.cli("team", "join", team_server.url, "--token-file", str(tmp_path / "none"))
    assert missing.returncode == 2 and "cannot read the token" in missing.stderr
    assert token not in missing.stderr + both.stderr
