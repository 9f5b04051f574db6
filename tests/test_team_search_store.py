"""The team store's search statements on a real PostgreSQL (pytest-postgresql).

Covers what makes a team search fast without changing what it finds: a project's size kept by
every push (each record counted once however often it is delivered), a very common word's
count taken from ``ANALYZE``'s lexeme statistics while a rarer one is counted, and the records
holding every term found first.
"""

from __future__ import annotations

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


def _size(conn: Any) -> int:
    row = conn.execute("SELECT records FROM team_projects").fetchone()
    return int(row[0])


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
    (scope,) = team_search.scopes(conn, [grant.team_id], "example.com/a/shop", queries)
    assert scope.total == 400 and scope.counts == (400, 8)  # 8 records: counted


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
    (scope,) = team_search.scopes(conn, [grant.team_id], "example.com/a/shop", queries)
    assert scope.counts == (300,)  # past the cap, read from the project's newest records


def test_a_pooled_connection_plans_the_words_statements_for_their_values(
    store: tuple[Any, Any], database_url: str
) -> None:
    """The server's connections run prepared statements on generic plans, but the statement
    that finds a search's anchors carries its values as literals: PostgreSQL still plans it for
    them, with the ids compared as bigint (btree_gin has no cross-type operators, so an integer
    literal would keep the team and project out of the search index), and it finds what a
    plain connection finds."""
    from psycopg import ClientCursor

    from conkeeper.services.search.query import build_match, term_forms
    from conkeeper.services.team import rank
    from conkeeper.storage import team_pg, team_search

    conn, grant = store
    rows = [_record(f"p{i}", f"ledger export {'drift' if i % 9 == 0 else 'batch'} {i}", i)
            for i in range(300)]  # fmt: skip
    _stored_and_analysed(conn, grant, rows)
    expected = rank.search(conn, grant.read_team_ids, "example.com/a/shop", "ledger drift", 5)
    pool = team_pg.open_pool(database_url)
    try:
        with pool.connection() as pooled:
            assert pooled.execute("SHOW plan_cache_mode").fetchone() == ("force_generic_plan",)
            got = rank.search(pooled, grant.read_team_ids, "example.com/a/shop", "ledger drift", 5)
            terms = [term_forms(t) for t in build_match("ledger drift").terms]
            queries = team_search.term_queries(pooled, terms)
            (scope,) = team_search.scopes(pooled, [grant.team_id], "example.com/a/shop", queries)
            params = team_search._probe_params(queries, (0, 1), scope)
            params.update(kinds=["observation"], anchors=20, window=3, cap=500)
            with ClientCursor(pooled) as cursor:
                plan = cursor.execute("EXPLAIN " + team_search.anchors_sql((0, 1)), params)
                text = "\n".join(str(r[0]) for r in plan.fetchall())
    finally:
        pool.close()
    assert [h.uid for h in got] == [h.uid for h in expected] and got
    # planned for the values (the words are in the plan), the ids compared as bigint
    assert "'''ledger'' & ''drift'''::tsquery" in text
    assert "team_id = '1'::bigint" in text and "project_id = '1'::bigint" in text
