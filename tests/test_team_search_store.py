"""The team store's search function on a real PostgreSQL (pytest-postgresql).

Covers what makes a team search fast without changing what it finds: a project's size kept by
every push (each record counted once however often it is delivered), a very common word's
count taken from ``ANALYZE``'s lexeme statistics while a rarer one is counted, the records
holding every term found first whichever statement reads them, the ranking computed in SQL equal
to :mod:`conkeeper.domain.ranking`'s formula, and the token checked by the search itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests.team_support import database_url, pg_proc

__all__ = ["database_url", "pg_proc"]  # fixtures used by name


def _record(uid: str, title: str, created_at: int) -> Any:
    from conkeeper.storage.team_pg import TeamRecord

    return TeamRecord(uid, "observation", "bugfix", title, "", (), "", (), (), created_at)


@pytest.fixture
def store(database_url: str) -> Iterator[tuple[Any, Any]]:
    """A migrated database, a connection and the grant of one user of one team."""
    from conkeeper.services.team.hub import token_hash
    from conkeeper.storage import team_pg, team_search

    team_search._CACHE.common_at = float("-inf")  # each test reads its own statistics
    with team_pg.connect(database_url) as conn:
        team_pg.migrate(conn)
        team_pg.create_token(conn, "ann", "core", token_hash("ckt_search"))
        grant = team_pg.token_grant(conn, token_hash("ckt_search"))
        assert grant is not None
        yield conn, grant


def _stored_and_analysed(conn: Any, grant: Any, rows: list[Any]) -> None:
    """Push ``rows`` into the test project and refresh the planner's statistics."""
    from conkeeper.storage import team_pg

    team_pg.upsert_records(conn, grant, "example.com/a/shop", rows)
    conn.commit()
    conn.execute("ANALYZE team_records")
    conn.commit()


def _uids(page: str | None) -> list[str]:
    """The uids of a JSON API page of hits (``hub.search_by_token``'s answer), in order."""
    assert page is not None
    return [hit["uid"] for hit in json.loads(page)]


def _size(conn: Any) -> int:
    row = conn.execute("SELECT records FROM team_projects").fetchone()
    return int(row[0])


def _counts(
    conn: Any, queries: list[Any], shares: list[float], key: str = "example.com/a/shop"
) -> list[int]:
    """Each term's count as the search function takes it (``team_search_counts``)."""
    from conkeeper.storage import team_search

    row = conn.execute(
        "SELECT team_search_counts(p.team_id, p.id, p.records, %s::text[]::tsquery[], %s, "
        "%s::int, %s::int) FROM team_projects p WHERE p.project_key = %s",
        ([q.text for q in queries], shares, team_search.COUNT_CAP, team_search.SAMPLE, key),
    ).fetchone()
    return [int(c) for c in row[0]]


def test_a_projects_size_counts_each_record_once(store: tuple[Any, Any]) -> None:
    from conkeeper.services.team import rank
    from conkeeper.storage import team_pg

    conn, grant = store
    first = [_record(f"u{i}", f"payment retry {i}", i) for i in range(3)]
    team_pg.upsert_records(conn, grant, "example.com/a/shop", first)
    team_pg.upsert_records(conn, grant, "example.com/a/shop", first)  # delivered again
    changed = [first[0]._replace(title="checkout timeout"), _record("u3", "refund queue", 3)]
    team_pg.upsert_records(conn, grant, "example.com/a/shop", [*changed, *changed])
    conn.commit()
    assert _size(conn) == 4 == team_pg.count_records(conn, [grant.team_id], "example.com/a/shop")
    hits = rank.search(conn, grant.read_team_ids, "example.com/a/shop", "checkout", 5)
    assert [h.uid for h in hits] == ["u0"]  # the changed copy replaced the first one


def test_a_very_common_word_is_estimated_and_a_rare_one_counted(store: tuple[Any, Any]) -> None:
    from conkeeper.services.search.query import build_match, term_forms
    from conkeeper.storage import team_search

    conn, grant = store
    rows = [_record(f"d{i}", f"deploy step {i} {'rollback' if i % 50 == 0 else 'canary'}", i)
            for i in range(400)]  # fmt: skip
    _stored_and_analysed(conn, grant, rows)
    terms = [term_forms(t) for t in build_match("deploy rollback").terms]
    queries = team_search.term_queries(conn, terms)
    common = team_search.common_lexemes(conn)
    assert common.get("deploy") == pytest.approx(1.0)
    assert team_search.estimated_share(queries[0], common) == pytest.approx(1.0)
    assert team_search.estimated_share(queries[1], common) == pytest.approx(0.02)
    assert _size(conn) == 400
    assert _counts(conn, queries, [1.0, 0.02]) == [400, 8]  # 8 records: counted


def test_the_records_holding_every_term_come_first(store: tuple[Any, Any]) -> None:
    from conkeeper.services.team import rank
    from conkeeper.storage import team_pg

    conn, grant = store
    rows = [_record(f"n{i}", f"invoice export note {i}", i) for i in range(60)]
    rows += [_record("both-old", "invoice export webhook signature", 100),
             _record("both-new", "webhook signature on invoice export", 200)]  # fmt: skip
    team_pg.upsert_records(conn, grant, "example.com/a/shop", rows)
    conn.commit()
    hits = rank.search(conn, grant.read_team_ids, "example.com/a/shop", "webhook invoice", 3)
    assert [h.uid for h in hits][:2] == ["both-new", "both-old"]
    assert "n59" in [h.uid for h in rank.search(conn, grant.read_team_ids,
                                                  "example.com/a/shop", "invoice", 3)]  # fmt: skip


def test_concurrent_pushes_of_overlapping_batches_count_each_record_once(
    store: tuple[Any, Any], database_url: str
) -> None:
    import threading

    from conkeeper.storage import team_pg

    conn, grant = store
    batches = [[_record(f"r{i}", f"queue worker {i}", i) for i in range(lo, lo + 300)]
               for lo in (0, 100, 200, 150)]  # fmt: skip

    def push(batch: list[Any]) -> None:
        with team_pg.connect(database_url) as own:
            team_pg.upsert_records(own, grant, "example.com/a/shop", batch)
            own.commit()

    threads = [threading.Thread(target=push, args=(b,)) for b in batches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _size(conn) == 500 == len(team_pg.record_uids(conn, grant.team_id, "example.com/a/shop"))


def test_a_word_common_in_one_project_only_is_still_counted_right(store: tuple[Any, Any]) -> None:
    from conkeeper.services.search.query import build_match, term_forms
    from conkeeper.storage import team_pg, team_search

    conn, grant = store
    mine = [_record(f"m{i}", f"zebra caught {i}", i) for i in range(300)]
    theirs = [_record(f"t{i}", f"horse caught {i}", i) for i in range(3000)]
    team_pg.upsert_records(conn, grant, "example.com/a/shop", mine)
    team_pg.upsert_records(conn, grant, "example.com/b/farm", theirs)
    conn.commit()
    conn.execute("ANALYZE team_records")
    terms = [term_forms(t) for t in build_match("zebra").terms]
    queries = team_search.term_queries(conn, terms)
    share = team_search.estimated_share(queries[0], team_search.common_lexemes(conn))
    assert share is not None and share * 300 < team_search.COUNT_CAP  # the table says: rare
    assert _counts(conn, queries, [share], "example.com/a/shop") == [300]  # from the newest


def test_a_pooled_connection_finds_the_newest_records_by_either_statement(
    store: tuple[Any, Any], database_url: str
) -> None:
    """The server's connections run every statement on its generic plan; the function reads a
    common set of words by walking the newest records and a rare one through the word index,
    and both find the newest records holding the words, as a plain connection does."""
    from conkeeper.services.team import rank
    from conkeeper.storage import team_pg

    conn, grant = store
    rows = [_record(f"p{i}", f"ledger export {'drift' if i % 9 == 0 else 'batch'} {i}", i)
            for i in range(300)]  # fmt: skip
    _stored_and_analysed(conn, grant, rows)
    key, teams = "example.com/a/shop", grant.read_team_ids
    pool = team_pg.open_pool(database_url)
    try:
        with pool.connection() as pooled:
            assert pooled.execute("SHOW plan_cache_mode").fetchone() == ("force_generic_plan",)
            for query in ("ledger export", "ledger drift", "drift"):
                got = rank.search(pooled, teams, key, query, 5)
                assert [h.uid for h in got] == [
                    h.uid for h in rank.search(conn, teams, key, query, 5)
                ]
    finally:
        pool.close()
    common = [h.uid for h in rank.search(conn, teams, key, "ledger export", 5)]
    rare = [h.uid for h in rank.search(conn, teams, key, "drift", 5)]
    assert common == ["p299", "p298", "p297", "p296", "p295"]  # every record holds both words
    assert rare == ["p297", "p288", "p279", "p270", "p261"]  # one in nine holds it


def test_the_ranking_in_sql_is_the_domain_formula(store: tuple[Any, Any]) -> None:
    """A question, its answer and an unrelated record by one author: the scores the search
    function returns are :mod:`conkeeper.domain.ranking`'s, computed here from the counts,
    the neighbours, the section and PostgreSQL's own ``ts_rank``."""
    import math

    from conkeeper.domain.ranking import hit_cover, hit_score, idf, line_score
    from conkeeper.services.team import rank
    from conkeeper.storage import team_pg

    conn, grant = store
    rows = [_record(f"f{i}", f"filler note {i}", i) for i in range(20)]
    rows += [_record("ask", "why does the checkout stall", 100),
             _record("answer", "the payment provider throttles checkout", 101),
             _record("after", "lunch plans", 102)]  # fmt: skip
    team_pg.upsert_records(conn, grant, "example.com/a/shop", rows)
    conn.commit()
    hits = rank.search(conn, grant.read_team_ids, "example.com/a/shop", "checkout throttles", 5)
    total = 23
    w_checkout, w_throttle = idf(2, total), idf(1, total)
    whole = 1.0  # the section around either record holds both words
    ts = dict(conn.execute(
        "SELECT uid, ts_rank(search, to_tsquery('english', 'checkout | throttles')) "
        "FROM team_records WHERE uid IN ('ask', 'answer')").fetchall())  # fmt: skip
    own = {"ask": w_checkout / (w_checkout + w_throttle), "answer": 1.0}
    neighbour = {"ask": own["answer"], "answer": own["ask"]}
    top = max(ts.values())
    expected = {
        uid: hit_score(hit_cover(line_score(own[uid], neighbour[uid], whole), whole),
                       ts[uid], top, 1)
        for uid in own
    }  # fmt: skip
    assert [h.uid for h in hits] == ["answer", "ask"]
    for hit in hits:
        assert math.isclose(hit.score, expected[hit.uid], rel_tol=1e-5)


def test_a_search_checks_its_token_in_its_own_statement(store: tuple[Any, Any]) -> None:
    """The JSON API's search sends the token's hash with the query: one round trip, and a
    token revoked a moment ago is refused by the very next search."""
    from conkeeper.services.team import hub
    from conkeeper.storage import team_pg

    conn, grant = store
    team_pg.upsert_records(conn, grant, "example.com/a/shop", [_record("s1", "stale cache", 1)])
    conn.commit()
    conn.autocommit = True  # as the server's pooled connections are
    found = hub.search_by_token(conn, "ckt_search", "example.com/a/shop", "cache", 5)
    assert _uids(found) == ["s1"]
    assert hub.search_by_token(conn, "ckt_search", "example.com/a/shop", "the", 5) == "[]"
    assert hub.search_by_token(conn, "ckt_wrong", "example.com/a/shop", "cache", 5) is None
    assert hub.search_by_token(conn, "ckt_wrong", "example.com/a/shop", "the", 5) is None
    assert team_pg.revoke_token(conn, hub.token_hash("ckt_search"))
    assert hub.search_by_token(conn, "ckt_search", "example.com/a/shop", "cache", 5) is None


def test_one_project_key_in_two_of_the_users_teams_is_searched_as_one(
    store: tuple[Any, Any],
) -> None:
    """A user in two teams that both share a project finds the records of both, ranked
    together (the search runs its counts and anchors once per team's project, then ranks
    every candidate at once); a user of one team finds only that team's."""
    from conkeeper.services.team import hub
    from conkeeper.storage import team_pg

    conn, core = store
    team_pg.create_token(conn, "ann", "infra", hub.token_hash("ckt_infra"))
    team_pg.create_token(conn, "bob", "infra", hub.token_hash("ckt_bob"))
    infra = team_pg.token_grant(conn, hub.token_hash("ckt_infra"))
    assert infra is not None and len(infra.read_team_ids) == 2
    key = "example.com/a/shop"
    team_pg.upsert_records(conn, core, key, [_record("c1", "rollout freeze friday", 1)])
    team_pg.upsert_records(conn, infra, key, [_record("i1", "rollout canary weights", 2),
                                              _record("i2", "unrelated", 3)])  # fmt: skip
    conn.commit()
    conn.autocommit = True
    ann = hub.search_by_token(conn, "ckt_search", key, "rollout", 5)
    bob = hub.search_by_token(conn, "ckt_bob", key, "rollout", 5)
    assert _uids(ann) == ["i1", "c1"]  # newest first on a tie
    assert _uids(bob) == ["i1"]


def test_the_event_loop_search_finds_what_the_threaded_one_finds(store: tuple[Any, Any]) -> None:
    """The server's JSON search runs on an asynchronous connection in its event loop, the MCP
    tools' on a pooled one in a thread: one query, one token, the same hits in the same order
    with the same scores; a wrong or revoked token is refused by both."""
    import asyncio

    import psycopg

    from conkeeper.services.team import hub
    from conkeeper.storage import team_pg

    conn, grant = store
    rows = [_record(f"n{i}", f"deploy note {i} {'rollback' if i % 3 == 0 else 'canary'}", i)
            for i in range(40)]  # fmt: skip
    _stored_and_analysed(conn, grant, rows)
    conn.autocommit = True
    url = conn.info.dsn
    key = "example.com/a/shop"

    async def in_the_loop(token: str, query: str) -> Any:
        pool = team_pg.async_pool(url, 1)
        await team_pg.open_async_pool(pool)
        try:
            async with pool.connection() as aconn:
                assert isinstance(aconn, psycopg.AsyncConnection)
                return await hub.search_by_token_async(aconn, token, key, query, 8)
        finally:
            await pool.close()

    for query in ("rollback", "deploy canary", "note rollback canary", "the"):
        threaded = hub.search_by_token(conn, "ckt_search", key, query, 8)
        looped = asyncio.run(in_the_loop("ckt_search", query))
        assert looped == threaded
    assert threaded == "[]" and looped == "[]"  # "the" is a stop word: nothing to find
    assert _uids(hub.search_by_token(conn, "ckt_search", key, "rollback", 3))
    assert asyncio.run(in_the_loop("ckt_wrong", "rollback")) is None
    assert team_pg.revoke_token(conn, hub.token_hash("ckt_search"))
    assert asyncio.run(in_the_loop("ckt_search", "rollback")) is None


def test_the_json_page_holds_what_the_rows_hold(store: tuple[Any, Any]) -> None:
    """The JSON API's hits are built by PostgreSQL (no row decoded and encoded again in the
    server): the same records in the same order as the MCP tools' rows, every field equal
    (texts with quotes, backslashes, tabs, newlines and non-ASCII letters, facts as a list),
    scores to 6 places; a search of stop words only is an empty page."""
    import math

    from conkeeper.services.team import hub
    from conkeeper.storage import team_pg
    from conkeeper.storage.team_pg import TeamRecord

    conn, grant = store
    odd = 'a "quoted" C:\\path\ttab\nnew line, café ünïcode ✓'
    rows = [TeamRecord(f"j{i}", "observation", "bugfix", f"ledger drift {i} {odd}", odd,
                       (odd, f"fact {i}"), f"narrative {odd}", (), (), 1000 + i)
            for i in range(12)]  # fmt: skip
    rows.append(_record("k1", "ledger only", 2000))
    _stored_and_analysed(conn, grant, rows)
    conn.autocommit = True
    page = hub.search_by_token(conn, "ckt_search", "example.com/a/shop", "ledger drift", 8)
    rows_path = hub.search(conn, grant, "example.com/a/shop", "ledger drift", 8)
    assert page is not None
    hits = json.loads(page)
    assert [h["uid"] for h in hits] == [h["uid"] for h in rows_path] and len(hits) == 8
    for got, want in zip(hits, rows_path, strict=True):
        assert got.keys() == want.keys()
        assert {k: v for k, v in got.items() if k != "score"} == {
            k: v for k, v in want.items() if k != "score"
        }
        assert math.isclose(got["score"], want["score"], abs_tol=1.5e-6)
    assert hits[0]["title"].endswith(odd) and hits[0]["facts"] == [odd, hits[0]["facts"][1]]
    assert team_pg.count_records(conn, grant.read_team_ids, "example.com/a/shop") == 13
    assert hub.search_by_token(conn, "ckt_search", "example.com/a/shop", "the of", 8) == "[]"
