"""Team server schema, tokens and access: a real PostgreSQL started by pytest-postgresql.

Covers the contract's ``conkeeper server init`` (twice is fine), ``server token --json`` and
``--revoke``, migration from an empty database and from the previous version (v1), and that
``/healthz`` alone answers without a token while wrong and revoked tokens are refused.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import pytest
from tests.conftest import run_cli
from tests.team_support import TeamServer, database_url, issue_token, pg_proc, team_server

__all__ = ["database_url", "pg_proc", "team_server"]  # fixtures used by name


def test_init_creates_the_schema_and_twice_is_fine(database_url: str) -> None:
    import psycopg

    first = run_cli("server", "init", "--database", database_url, "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {
        "schema_version": 10,
        "applied": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    }
    again = run_cli("server", "init", "--database", database_url, "--json")
    assert json.loads(again.stdout) == {"schema_version": 10, "applied": []}
    with psycopg.connect(database_url) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY 1")]
        indexes = dict(
            conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s", ("team_records",)
            ).fetchall()
        )
        functions = [r[0] for r in conn.execute("SELECT proname FROM pg_proc WHERE proname = "
                                                "'team_search'")]  # fmt: skip
        tombstones = [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = "
            "'team_tombstones' ORDER BY ordinal_position")]  # fmt: skip
    assert versions == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert tombstones == ["team_id", "uid", "author_id", "deleted_at", "received_at"]  # v9
    assert functions == ["team_search"]  # version 5: the search as one function (6, 8 replaced it)
    assert "team_records_search" not in indexes  # version 3 replaced it
    assert "team_records_scope_search" not in indexes  # version 7 replaced it
    assert "gin (project_id, search)" in indexes["team_records_project_search"].lower()


def test_migrates_from_the_previous_versions_keeping_tokens_and_records(
    database_url: str,
) -> None:
    from conkeeper.services.team import rank
    from conkeeper.services.team.hub import token_hash
    from conkeeper.storage import team_pg

    with team_pg.connect(database_url) as conn:
        assert team_pg.migrate(conn, target=1) == [1]
        assert team_pg.schema_version(conn) == 1
        team_pg.create_token(conn, "ann", "core", token_hash("ckt_old-token"))
        assert team_pg.migrate(conn, target=2) == [2]
        grant = team_pg.token_grant(conn, token_hash("ckt_old-token"))
        assert grant is not None
        _push_as_version_3(conn, grant.team_id, grant.user_id, "u1", "flaky payment retry")
        assert team_pg.migrate(conn, target=3) == [3]
        _push_as_version_3(conn, grant.team_id, grant.user_id, "u2", "payment webhook signature")
        conn.commit()
        assert team_pg.migrate(conn, target=4) == [4]
        conn.commit()
    done = run_cli("server", "init", "--database", database_url, "--json")
    assert json.loads(done.stdout) == {"schema_version": 10, "applied": [5, 6, 7, 8, 9, 10]}
    with team_pg.connect(database_url) as conn:
        grant = team_pg.token_grant(conn, token_hash("ckt_old-token"))
        assert grant is not None and grant.user_name == "ann" and grant.team_name == "core"
        sizes = conn.execute("SELECT project_key, records FROM team_projects").fetchall()
        hits = rank.search(conn, grant.read_team_ids, "example.com/a/shop", "payment", 5)
    assert sizes == [("example.com/a/shop", 2)]  # version 4 counted what versions 2-3 stored
    assert sorted(h.uid for h in hits) == ["u1", "u2"]


def test_version_6_replaces_the_search_function_of_a_version_5_database(
    database_url: str,
) -> None:
    """A database the previous release left at version 5 (its own ``team_search``, here a
    stand-in that refuses every call) gets this release's function from version 6 alone, and
    finds its records with it."""
    from conkeeper.services.team import hub
    from conkeeper.services.team.hub import token_hash
    from conkeeper.storage import team_pg
    from conkeeper.storage.team_pg import TeamRecord

    with team_pg.connect(database_url) as conn:
        assert team_pg.migrate(conn, target=5) == [1, 2, 3, 4, 5]
        team_pg.create_token(conn, "ann", "core", token_hash("ckt_five"))
        grant = team_pg.token_grant(conn, token_hash("ckt_five"))
        assert grant is not None
        _push_as_version_8(conn, grant, "example.com/a/shop", [
            TeamRecord("r1", "observation", "bugfix", "payment retry storm", "", (), "", (), (), 1),
            TeamRecord("r2", "observation", "bugfix", "lunch menu", "", (), "", (), (), 2),
        ])  # fmt: skip
        conn.execute(_REFUSING_SEARCH)
        conn.commit()
    done = run_cli("server", "init", "--database", database_url, "--json")
    assert json.loads(done.stdout) == {"schema_version": 10, "applied": [6, 7, 8, 9, 10]}
    with team_pg.connect(database_url) as conn:
        conn.autocommit = True
        found = hub.search_by_token(conn, "ckt_five", "example.com/a/shop", "payment", 5)
    assert found is not None and [h["uid"] for h in json.loads(found)] == ["r1"]


def test_version_7_moves_the_search_index_to_project_and_words_keeping_the_records(
    database_url: str,
) -> None:
    """A database the previous release left at version 6 gets the search index over
    (project, words) from version 7 alone; its records are found as before, and only in the
    searching user's teams (the team is no longer in the index, the project id implies it)."""
    from conkeeper.services.team import hub
    from conkeeper.services.team.hub import token_hash
    from conkeeper.storage import team_pg
    from conkeeper.storage.team_pg import TeamRecord

    def record(uid: str, title: str, at: int) -> TeamRecord:
        return TeamRecord(uid, "observation", "bugfix", title, "", (), "", (), (), at)

    with team_pg.connect(database_url) as conn:
        assert team_pg.migrate(conn, target=6) == [1, 2, 3, 4, 5, 6]
        team_pg.create_token(conn, "ann", "core", token_hash("ckt_six"))
        team_pg.create_token(conn, "bob", "other", token_hash("ckt_other"))
        for token, uid in (("ckt_six", "r1"), ("ckt_other", "x1")):
            grant = team_pg.token_grant(conn, token_hash(token))
            assert grant is not None
            _push_as_version_8(
                conn,
                grant,
                "example.com/a/shop",
                [record(uid, "payment retry storm", 1), record(uid + "b", "lunch menu", 2)],
            )
        conn.commit()
    done = run_cli("server", "init", "--database", database_url, "--json")
    assert json.loads(done.stdout) == {"schema_version": 10, "applied": [7, 8, 9, 10]}
    with team_pg.connect(database_url) as conn:
        conn.autocommit = True
        indexes = [
            r[0]
            for r in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'team_records' ORDER BY 1"
            )
        ]
        found = hub.search_by_token(conn, "ckt_six", "example.com/a/shop", "payment", 5)
        other = hub.search_by_token(conn, "ckt_other", "example.com/a/shop", "payment", 5)
    assert indexes == ["team_records_pkey", "team_records_project_search", "team_records_recent"]
    assert found is not None and [h["uid"] for h in json.loads(found)] == ["r1"]
    assert other is not None and [h["uid"] for h in json.loads(other)] == ["x1"]


def test_version_8_replaces_the_search_function_of_a_version_7_database(
    database_url: str,
) -> None:
    """A database the previous release left at version 7 (its own ``team_search``, here a
    stand-in that refuses every call) gets this release's function from version 8 alone: its
    records are found, ranked, and read back whole (the new function reads the winners by the
    row versions its own statements found)."""
    from conkeeper.services.team import hub, rank
    from conkeeper.services.team.hub import token_hash
    from conkeeper.storage import team_pg
    from conkeeper.storage.team_pg import TeamRecord

    with team_pg.connect(database_url) as conn:
        assert team_pg.migrate(conn, target=7) == [1, 2, 3, 4, 5, 6, 7]
        team_pg.create_token(conn, "ann", "core", token_hash("ckt_seven"))
        grant = team_pg.token_grant(conn, token_hash("ckt_seven"))
        assert grant is not None
        _push_as_version_8(conn, grant, "example.com/a/shop", [
            TeamRecord("r1", "observation", "bugfix", "payment retry storm", "jitter", ("backoff",),
                       "the payment provider throttles", (), (), 1),
            TeamRecord("r2", "observation", "bugfix", "lunch menu", "", (), "", (), (), 2),
            TeamRecord("r3", "observation", "bugfix", "payment receipts", "", (), "", (), (), 3),
        ])  # fmt: skip
        conn.execute(_REFUSING_SEARCH)
        conn.commit()
    done = run_cli("server", "init", "--database", database_url, "--json")
    assert json.loads(done.stdout) == {"schema_version": 10, "applied": [8, 9, 10]}
    with team_pg.connect(database_url) as conn:
        conn.autocommit = True
        page = hub.search_by_token(conn, "ckt_seven", "example.com/a/shop", "payment retry", 5)
        rows = rank.search(conn, grant.read_team_ids, "example.com/a/shop", "payment retry", 5)
    assert page is not None and [h["uid"] for h in json.loads(page)] == ["r1", "r3"]
    assert [h.uid for h in rows] == ["r1", "r3"] and rows[0].facts == ("backoff",)
    assert rows[0].narrative == "the payment provider throttles" and rows[0].author == "ann"
    assert rows[0].project_key == "example.com/a/shop" and rows[0].score > rows[1].score > 0


def test_version_9_adds_tombstones_to_a_version_8_database_keeping_its_records(
    database_url: str,
) -> None:
    """A database the previous release left at version 8 gets the tombstones from version 9
    alone: its records stay and are found; a deletion by their author removes one (the
    project's size follows) and keeps a copy pushed again as old as the deletion out, and a
    teammate's deletion of the other removes nothing."""
    from conkeeper.services.team import rank
    from conkeeper.services.team.hub import token_hash
    from conkeeper.storage import team_pg
    from conkeeper.storage.team_pg import TeamRecord

    def record(uid: str, title: str, at: int) -> TeamRecord:
        return TeamRecord(uid, "observation", "bugfix", title, "", (), "", (), (), at)

    with team_pg.connect(database_url) as conn:
        assert team_pg.migrate(conn, target=8) == [1, 2, 3, 4, 5, 6, 7, 8]
        team_pg.create_token(conn, "ann", "core", token_hash("ckt_eight"))
        team_pg.create_token(conn, "bob", "core", token_hash("ckt_bob"))
        ann = team_pg.token_grant(conn, token_hash("ckt_eight"))
        bob = team_pg.token_grant(conn, token_hash("ckt_bob"))
        assert ann is not None and bob is not None
        shop = "example.com/a/shop"
        _push_as_version_8(
            conn, ann, shop, [record("r1", "payment retry storm", 1), record("r2", "payment", 2)]
        )
        conn.commit()
    done = run_cli("server", "init", "--database", database_url, "--json")
    assert json.loads(done.stdout) == {"schema_version": 10, "applied": [9, 10]}
    with team_pg.connect(database_url) as conn:
        conn.autocommit = True
        found = [h.uid for h in rank.search(conn, ann.read_team_ids, shop, "payment", 5)]
        assert sorted(found) == ["r1", "r2"]
        assert team_pg.delete_records(conn, bob, shop, [("r2", 10)]) == 0  # not bob's
        assert team_pg.delete_records(conn, ann, shop, [("r1", 10)]) == 1
        assert team_pg.delete_records(conn, ann, shop, [("r1", 10)]) == 0  # twice: no change
        assert team_pg.upsert_records(conn, ann, shop, [record("r1", "payment again", 5)])
        assert team_pg.count_records(conn, ann.read_team_ids, shop) == 1
        left = [h.uid for h in rank.search(conn, ann.read_team_ids, shop, "payment", 5)]
    assert left == ["r2"]


# The previous release's function, as far as this test cares: present, and not this release's.
_REFUSING_SEARCH = """
CREATE OR REPLACE FUNCTION team_search(
    teams bigint[], key text, terms text[], shares float8[], kinds text[],
    anchors integer, walk integer, top_n integer, cap integer, sample integer, ranked integer,
    formula float8[], token bytea
) RETURNS TABLE (
    uid text, kind text, type text, title text, subtitle text, facts jsonb,
    narrative text, author text, created_at bigint, project_key text, score float8
) LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    RAISE EXCEPTION 'the version 5 stand-in';
END
$fn$
"""


def _push_as_version_3(conn: Any, team_id: int, user_id: int, uid: str, title: str) -> None:
    """Store a record as the servers of schema versions 2 and 3 did (no project size)."""
    project = conn.execute(
        "INSERT INTO team_projects(team_id, project_key) VALUES (%s, 'example.com/a/shop') "
        "ON CONFLICT (team_id, project_key) DO UPDATE SET project_key = excluded.project_key "
        "RETURNING id",
        (team_id,),
    ).fetchone()[0]
    conn.execute(
        "INSERT INTO team_records (team_id, uid, project_id, author_id, kind, title, created_at,"
        " search) VALUES (%s, %s, %s, %s, 'observation', %s, 1, to_tsvector('english', %s))",
        (team_id, uid, project, user_id, title, title),
    )


def _push_as_version_8(conn: Any, grant: Any, key: str, records: list[Any]) -> None:
    """Store records as the servers of schema versions 4 to 8 did (no tombstones yet): the
    weighted vector and the project's size."""
    project = conn.execute(
        "INSERT INTO team_projects(team_id, project_key) VALUES (%s, %s) "
        "ON CONFLICT (team_id, project_key) DO UPDATE SET project_key = excluded.project_key "
        "RETURNING id",
        (grant.team_id, key),
    ).fetchone()[0]
    for r in records:
        conn.execute(
            "INSERT INTO team_records (team_id, uid, project_id, author_id, kind, type, title, "
            "subtitle, facts, narrative, created_at, search) VALUES (%s, %s, %s, %s, %s, %s, %s, "
            "%s, %s, %s, %s, setweight(to_tsvector('english', %s), 'A') || "
            "setweight(to_tsvector('english', %s), 'B') || "
            "setweight(to_tsvector('english', %s), 'C'))",
            (grant.team_id, r.uid, project, grant.user_id, r.kind, r.type, r.title, r.subtitle,
             json.dumps(list(r.facts)), r.narrative, r.created_at, r.title,
             " ".join((r.subtitle, *r.facts)), r.narrative),
        )  # fmt: skip
    conn.execute(
        "UPDATE team_projects SET records = records + %s WHERE id = %s", (len(records), project)
    )


def test_serving_an_old_schema_is_refused_in_one_line(database_url: str) -> None:
    from conkeeper.storage import team_pg

    with team_pg.connect(database_url) as conn:
        team_pg.migrate(conn, target=1)
    done = run_cli("server", "--database", database_url, "--port", "0")
    assert done.returncode == 1
    assert "conkeeper server init" in done.stderr and "Traceback" not in done.stderr


def test_tokens_are_stored_hashed_and_revocable(team_server: TeamServer) -> None:
    import psycopg

    token = issue_token(team_server.database, "ann", "core")
    assert token.startswith("ckt_") and len(token) > 40
    with psycopg.connect(team_server.database) as conn:
        stored = [bytes(r[0]) for r in conn.execute("SELECT token_hash FROM tokens")]
    assert len(stored) == 1 and token.encode() not in stored[0] and len(stored[0]) == 32
    assert get(team_server.url, "/api/v1/whoami", token) == (200, {"user": "ann", "team": "core"})
    revoked = run_cli(
        "server", "token", "--database", team_server.database, "--revoke", token, "--json"
    )
    assert revoked.returncode == 0 and json.loads(revoked.stdout) == {"revoked": True}
    assert get(team_server.url, "/api/v1/whoami", token)[0] == 401
    twice = run_cli("server", "token", "--database", team_server.database, "--revoke", token)
    assert twice.returncode == 1 and "nothing was revoked" in twice.stderr


@pytest.mark.parametrize(
    "path",
    ["/api/v1/whoami", "/api/v1/search?project=x&q=a", "/api/v1/recent?project=x", "/mcp"],
)
def test_only_healthz_answers_without_a_valid_token(team_server: TeamServer, path: str) -> None:
    assert get(team_server.url, "/healthz", None)[0] == 200
    for token in (None, "wrong", "ckt_" + "x" * 43):
        assert get(team_server.url, path, token)[0] == 401
    push = post(team_server.url, "/api/v1/push", "wrong", {"project": "p", "records": []})
    assert push[0] == 401


def test_user_and_team_names_are_checked(database_url: str) -> None:
    run_cli("server", "init", "--database", database_url)
    done = run_cli("server", "token", "--database", database_url, "--user", " ", "--team", "t")
    assert done.returncode == 2 and "--user" in done.stderr
    missing = run_cli("server", "token", "--database", database_url, "--user", "ann")
    assert missing.returncode == 2 and "--team" in missing.stderr


def get(url: str, path: str, token: str | None) -> tuple[int, object]:
    """GET with an optional bearer token: (status, JSON or None)."""
    request = urllib.request.Request(url + path)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Accept", "application/json, text/event-stream")
    return _send(request)


def post(url: str, path: str, token: str | None, body: object) -> tuple[int, object]:
    """POST JSON with an optional bearer token: (status, JSON or None)."""
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    return _send(request)


def _send(request: urllib.request.Request) -> tuple[int, object]:
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, None


def test_search_ranks_by_weighted_fields_and_by_the_terms_held(database_url: str) -> None:
    from conkeeper.services.team.rank import search
    from conkeeper.storage import team_pg
    from conkeeper.storage.team_pg import TeamRecord

    def record(uid: str, title: str = "", subtitle: str = "", narrative: str = "") -> TeamRecord:
        return TeamRecord(uid, "observation", "bugfix", title, subtitle, (), narrative, (), (), 1)

    with team_pg.connect(database_url) as conn:
        team_pg.migrate(conn)
        team_pg.create_token(conn, "ann", "core", b"h" * 32)
        grant = team_pg.token_grant(conn, b"h" * 32)
        assert grant is not None
        team_pg.upsert_records(
            conn,
            grant,
            "p",
            [
                record("in-narrative", "Other work", narrative="the refund queue stalls"),
                record("in-title", "Refund queue stalls under load"),
                record("in-subtitle", "Worker pool", subtitle="refund queue stalls at night"),
                record("only-refund", "Refund rules for coupons"),
            ],
        )
        both = search(conn, grant.read_team_ids, "p", "refund queue stalls", 3)
        assert [h.uid for h in both] == ["in-title", "in-subtitle", "in-narrative"]
        assert all(h.author == "ann" for h in both)
        wider = search(conn, grant.read_team_ids, "p", "refund coupons", 10)
        assert wider[0].uid == "only-refund" and len(wider) == 4  # every term first, then any
        hostile_queries = ("'; DROP TABLE team_records; --", "a & b | !c", ":*", "\\", "''", "!!")
        odd_terms = ('"refund queue"*', "refu*", "not no never", '"unclosed', "buy OR x")
        for hostile in (*hostile_queries, *odd_terms):
            search(conn, grant.read_team_ids, "p", hostile, 5)
        assert search(conn, grant.read_team_ids, "other", "refund", 5) == []
        assert search(conn, (999,), "p", "refund", 5) == []
        team_pg.upsert_records(conn, grant, "p", [record("in-title", "Refund queue fixed")])
        assert team_pg.count_records(conn, grant.read_team_ids, "p") == 4  # upsert, not insert


CONVERSATION = (  # one author's records in order: the answer follows its question
    "John: I tried a new yoga pose at the studio today",
    "Tim: Did you see the game last night?",
    "John: Yes, what a finish in overtime",
    "Tim: I am reading a fantasy novel about dragons",
    "John: My yoga teacher showed us a balance pose",
    "Tim: My sister visited us in Boston",
    "John: Cooking pasta for dinner tonight",
    "Tim: How long do you usually hold that pose?",
    "John: I typically hold it for 30-60 seconds, it builds strength",
    "Tim: Nice, I will try that next week",
    "John: Here is a photo of a yoga pose on the beach",
    "Tim: The weather in Boston is cold",
    "John: I bought a new yoga mat for the pose practice",
)


def test_the_server_finds_the_answer_next_to_its_question(team_server: TeamServer) -> None:
    """The answer holds few of the question's words; the record before it (the question)
    holds most. Ranked as the local search ranks lines (a share of the neighbour's cover),
    the answer is in the top three; ranked by the words each record holds alone (the old
    ranking), records about yoga poses filled them."""
    token = issue_token(team_server.database, "ann", "core")
    records = [
        {"uid": f"t{i}", "kind": "observation", "type": "discovery", "title": text,
         "created_at": 1_700_000_000_000 + i}
        for i, text in enumerate(CONVERSATION)
    ]  # fmt: skip
    status, pushed = post(
        team_server.url, "/api/v1/push", token, {"project": "p", "records": records}
    )
    assert status == 200 and pushed == {"accepted": len(records), "refused": []}
    query = urllib.parse.urlencode(
        {"project": "p", "q": "How long does John hold the yoga pose?", "limit": 3}
    )
    status, found = get(team_server.url, f"/api/v1/search?{query}", token)
    assert status == 200 and isinstance(found, dict)
    uids = [hit["uid"] for hit in found["results"]]
    assert uids[:2] == ["t7", "t8"]  # the question, then its answer
    assert found["results"][0]["score"] >= found["results"][1]["score"] > 0


def test_one_push_carrying_a_uid_twice_stores_its_last_copy(database_url: str) -> None:
    from conkeeper.services.team.rank import search
    from conkeeper.storage import team_pg
    from conkeeper.storage.team_pg import TeamRecord

    def record(uid: str, title: str, facts: tuple[str, ...] = ()) -> TeamRecord:
        return TeamRecord(uid, "observation", "bugfix", title, "", facts, "", ("c",), ("f",), 1)

    with team_pg.connect(database_url) as conn:
        team_pg.migrate(conn)
        team_pg.create_token(conn, "bo", "ops", b"d" * 32)
        grant = team_pg.token_grant(conn, b"d" * 32)
        assert grant is not None
        batch = [record("a", "first draft"), record("b", "tab\tand \\N"), record("a", "final")]
        assert team_pg.upsert_records(conn, grant, "p", batch).records == 3
        team_pg.upsert_records(conn, grant, "p", batch)  # delivered again: same effect
        assert team_pg.record_uids(conn, grant.team_id, "p") == ["a", "b"]
        hits = search(conn, grant.read_team_ids, "p", "final", 5)
        assert [h.uid for h in hits] == ["a"]
        assert search(conn, grant.read_team_ids, "p", "draft", 5) == []
        odd = search(conn, grant.read_team_ids, "p", "tab", 5)
        assert odd[0].title == "tab\tand \\N"  # COPY escapes carried through
        team_pg.upsert_records(conn, grant, "p", [record("b", "tab", ('fact "quoted"',))])
        again = search(conn, grant.read_team_ids, "p", "tab", 5)
        assert again[0].facts == ('fact "quoted"',)


def test_several_workers_serve_stop_gracefully_and_die_with_a_killed_supervisor(
    database_url: str,
) -> None:
    import socket
    import subprocess
    import sys

    from tests.conftest import cli_env
    from tests.team_support import wait_healthy

    assert run_cli("server", "init", "--database", database_url).returncode == 0
    token = issue_token(database_url, "wes", "web")

    def start(port: int) -> tuple[subprocess.Popen[str], int]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "conkeeper", "server", "--database", database_url,
             "--port", str(port), "--workers", "2"],
            env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "team server at" in line, proc.stderr.read() if proc.stderr else ""
        port = int(line.rsplit(":", 1)[1])
        wait_healthy(f"http://127.0.0.1:{port}")
        return proc, port

    proc, port = start(0)
    for _ in range(4):  # whichever worker answers, the token is checked
        assert get(f"http://127.0.0.1:{port}", "/api/v1/whoami", token)[0] == 200
        assert get(f"http://127.0.0.1:{port}", "/api/v1/whoami", "wrong")[0] == 401
    proc.kill()  # SIGKILL of the supervisor: its workers go with it, the port is free
    proc.wait(timeout=30)
    proc, port = start(port)
    proc.terminate()  # SIGTERM: graceful, status 0
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    with pytest.raises(OSError):  # nothing listens after the graceful stop
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def test_each_worker_keeps_at_most_its_pool_size_of_connections(database_url: str) -> None:
    """``--pool-size`` bounds every worker's connections however many requests arrive at once
    (each waits for a connection in the server), and a size out of range is refused in one
    line."""
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    import psycopg
    from tests.conftest import cli_env
    from tests.team_support import wait_healthy

    from conkeeper.storage.team_pg import APPLICATION_NAME

    refused = run_cli("server", "--database", database_url, "--pool-size", "0")
    assert refused.returncode == 2 and "--pool-size 0" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert run_cli("server", "init", "--database", database_url).returncode == 0
    token = issue_token(database_url, "pat", "pool")
    proc = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "server", "--database", database_url,
         "--port", "0", "--workers", "2", "--pool-size", "1"],
        env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "team server at" in line, proc.stderr.read() if proc.stderr else ""
        url = line.rsplit(" ", 1)[1].strip()
        wait_healthy(url)
        query = "/api/v1/search?" + urllib.parse.urlencode({"project": "p", "q": "retry"})
        with ThreadPoolExecutor(max_workers=16) as pool:
            answers = list(pool.map(lambda _i: get(url, query, token)[0], range(64)))
        assert answers == [200] * 64
        with psycopg.connect(database_url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                (APPLICATION_NAME,),
            ).fetchone()
        assert row is not None and 1 <= row[0] <= 2  # one per worker at most
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
