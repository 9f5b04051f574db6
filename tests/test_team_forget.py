"""What leaves the local store leaves the team: forgotten observations, sessions and projects,
against a real PostgreSQL and the real CLI.

A deletion is queued like an upsert (the store's triggers keep the keys of deleted rows of a
project the sync pushed), delivered at least once by ``team sync`` (first, and again after a
server that was down comes back), and applied idempotently by the server, which keeps a
tombstone: a copy of the record pushed again later, as old as the deletion, stays out.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from tests.team_support import TeamServer, database_url, issue_token, pg_proc, team_server
from tests.test_team_sync import HTTPS_ORIGIN, PROJECT_KEY, Machine, hook_prompt, team_hits

__all__ = ["database_url", "pg_proc", "team_server"]  # fixtures used by name


def server_records(database: str) -> dict[str, dict[str, Any]]:
    """Every record on the server by uid: its kind, title, created_at and author."""
    import psycopg

    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT r.uid, r.kind, r.title, r.created_at, u.name "
            "FROM team_records r JOIN users u ON u.id = r.author_id"
        ).fetchall()
    return {
        str(r[0]): {"kind": r[1], "title": r[2], "created_at": int(r[3]), "author": r[4]}
        for r in rows
    }


def local_id(machine: Machine, title: str) -> int:
    """The local id of an observation (what ``conkeeper forget observation`` takes)."""
    with sqlite3.connect(machine.home / "conkeeper.db") as conn:
        row = conn.execute("SELECT id FROM observations WHERE title = ?", (title,)).fetchone()
    assert row is not None, title
    return int(row[0])


def forget(machine: Machine, *target: str) -> None:
    done = machine.cli("forget", *target, "--yes")
    assert done.returncode == 0, done.stderr


def status(machine: Machine) -> dict[str, Any]:
    done = machine.cli("team", "status", "--json")
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def creds_of(server: TeamServer, token: str) -> Any:
    from conkeeper.services.team.credentials import TeamCredentials

    return TeamCredentials(server.url, token, "x")


def two_members(tmp_path: Path, server: TeamServer) -> tuple[Machine, Machine, str]:
    """ann (who opts the project in) and bob, in one team; ann's token."""
    ann, bob = Machine(tmp_path, "ann"), Machine(tmp_path, "bob", HTTPS_ORIGIN)
    token = issue_token(server.database, "ann", "core")
    ann.join(server, token)
    bob.join(server, issue_token(server.database, "bob", "core"))
    ann.opt_in()
    return ann, bob, token


def seed_summary(machine: Machine, session: str, request: str, ago_ms: int = 0) -> None:
    """A session summary as the extractor stores it (cleaned, one per session), dated
    ``ago_ms`` before now."""
    from conkeeper.domain.observations import Summary
    from conkeeper.domain.paths import locate_project
    from conkeeper.storage.observations import save_summary, session_info
    from conkeeper.storage.sessions import ensure_session
    from conkeeper.storage.store import ensure_project, now_ms, open_store

    conn = open_store(machine.home / "conkeeper.db")
    with conn:
        project = ensure_project(conn, locate_project(machine.root))
        info = session_info(conn, ensure_session(conn, project, session))
        summary = Summary(request=request, completed="done")
        save_summary(conn, info, summary, "local", now_ms() - ago_ms)
    conn.close()


def test_a_forgotten_observation_leaves_the_team_and_a_late_copy_stays_out(
    tmp_path: Path, team_server: TeamServer
) -> None:
    ann, bob, token = two_members(tmp_path, team_server)
    ann.seed(["Flaky payment test needs a frozen clock", "Retry webhook on 502"])
    assert ann.sync() == {"pushed": 2, "pending": 0}
    assert [h["author"] for h in team_hits(bob.search("flaky", "payment"))] == ["ann"]
    ((uid, row),) = [
        item for item in server_records(team_server.database).items() if "Flaky" in item[1]["title"]
    ]

    forget(ann, "observation", str(local_id(ann, "Flaky payment test needs a frozen clock")))
    assert status(ann)["pending"] == 1  # the deletion waits for the next sync
    assert ann.sync() == {"pushed": 1, "pending": 0}
    assert team_hits(bob.search("flaky", "payment")) == []
    assert [h["title"] for h in team_hits(bob.search("webhook"))] == ["Retry webhook on 502"]
    assert status(ann)["server_records"] == 1  # the project's size follows
    assert ann.sync() == {"pushed": 0, "pending": 0}  # delivered once is enough

    # a copy pushed again as old as the deletion (a push still on its way, ann's other
    # machine) stays out; a newer record under the uid is new work and is stored
    from conkeeper.services.team import client

    late = {"uid": uid, "kind": "observation", "type": "bugfix", "created_at": row["created_at"],
            "title": "Flaky payment test needs a frozen clock"}  # fmt: skip
    assert client.push(creds_of(team_server, token), PROJECT_KEY, [late])["refused"] == []
    assert uid not in server_records(team_server.database)
    assert team_hits(bob.search("flaky", "payment")) == []
    newer = dict(late, created_at=int(time.time() * 1000), title="Flaky payment test, again")
    client.push(creds_of(team_server, token), PROJECT_KEY, [newer])
    assert server_records(team_server.database)[uid]["title"] == "Flaky payment test, again"


def test_a_forgotten_session_takes_its_prompts_summary_and_observations_off_the_server(
    tmp_path: Path, team_server: TeamServer
) -> None:
    ann, bob, _token = two_members(tmp_path, team_server)
    ann.opt_in(("team_share_prompts", "true"))
    hook_prompt(ann, "please fix the zeppelin checkout bug")  # session ann-session
    ann.seed(["Zeppelin checkout rounds twice"])  # also in ann-session
    seed_summary(ann, "ann-session", "fix the zeppelin checkout")
    ann.seed(["Zeppelin invoices stay in euros"], into="ann-other")  # kept
    assert ann.sync() == {"pushed": 4, "pending": 0}
    assert {r["kind"] for r in server_records(team_server.database).values()} == {
        "prompt", "observation", "summary"
    }  # fmt: skip

    forget(ann, "session", "ann-session")
    assert ann.sync() == {"pushed": 3, "pending": 0}
    left = server_records(team_server.database).values()
    assert [r["title"] for r in left] == ["Zeppelin invoices stay in euros"]
    assert [h["title"] for h in team_hits(bob.search("zeppelin"))] == [
        "Zeppelin invoices stay in euros"
    ]
    # the session resumed after the forget is new work: its first prompt takes the deleted
    # prompt's id (prompts reuse ids) and its uid (the server's tombstone is older), and is shared
    hook_prompt(ann, "resume the zeppelin refund work")
    assert ann.sync() == {"pushed": 1, "pending": 0}
    assert sorted(r["kind"] for r in server_records(team_server.database).values()) == [
        "observation", "prompt"
    ]  # fmt: skip
    assert [h["narrative"] for h in team_hits(bob.search("refund"))] == [
        "resume the zeppelin refund work"
    ]


def test_a_deletion_waits_while_the_server_is_down_and_arrives_after(
    tmp_path: Path, team_server: TeamServer
) -> None:
    ann, bob, _token = two_members(tmp_path, team_server)
    ann.seed(["Flaky payment test needs a frozen clock"])
    ann.sync()
    team_server.stop()
    forget(ann, "observation", str(local_id(ann, "Flaky payment test needs a frozen clock")))
    down = ann.cli("team", "sync", "--json")
    assert down.returncode == 1 and "cannot reach the team server" in down.stderr
    assert json.loads(down.stdout) == {"pushed": 0, "pending": 1}
    team_server.start()  # the same port
    assert ann.sync() == {"pushed": 1, "pending": 0}
    assert server_records(team_server.database) == {}
    assert team_hits(bob.search("flaky", "payment")) == []


def test_a_forgotten_project_leaves_and_a_teammates_records_stay(
    tmp_path: Path, team_server: TeamServer
) -> None:
    ann, bob, token = two_members(tmp_path, team_server)
    bob.opt_in()
    ann.seed(["Flaky payment test needs a frozen clock", "Retry webhook on 502"])
    bob.seed(["Flaky payment test fixed by bob"])
    ann.sync()
    bob.sync()
    bobs = [uid for uid, r in server_records(team_server.database).items() if r["author"] == "bob"]

    # a deletion names only its author's records: bob's stays, twice over (idempotent)
    from conkeeper.services.team import client

    theirs = [{"uid": bobs[0], "deleted_at": int(time.time() * 1000)}]
    for _ in range(2):
        assert client.delete(creds_of(team_server, token), PROJECT_KEY, theirs) == 1
    assert len(server_records(team_server.database)) == 3

    forget(ann, "project")
    assert ann.sync() == {"pushed": 2, "pending": 0}
    assert [r["author"] for r in server_records(team_server.database).values()] == ["bob"]
    assert [h["author"] for h in team_hits(bob.search("flaky", "payment"))] == ["bob"]
    assert status(bob)["server_records"] == 1
