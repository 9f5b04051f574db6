"""The session record searched one project at a time inside FTS5 (schema 4): a project's search
scores only its own rows, a number never matches a project id, and a schema-3 store keeps every
row findable after the migration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from conkeeper.domain.observations import Observation, Summary, normalize_observation
from conkeeper.domain.paths import locate_project
from conkeeper.storage import record_query as rq
from conkeeper.storage.observations import insert_observation, save_summary, session_info
from conkeeper.storage.store import connect, ensure_project, migrate, now_ms, open_store


def _project(conn: sqlite3.Connection, root: Path) -> int:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    return ensure_project(conn, locate_project(root))


def _session(conn: sqlite3.Connection, project: int, host: str) -> int:
    cur = conn.execute(
        "INSERT INTO sessions(host_session_id, project_id, started_at, status) "
        "VALUES (?, ?, ?, 'completed')",
        (host, project, now_ms()),
    )
    return int(cur.lastrowid or 0)


def _observe(conn: sqlite3.Connection, session: int, project: int, title: str, fact: str) -> int:
    obs = normalize_observation(Observation(type="discovery", title=title, facts=[fact]))
    assert obs is not None
    new = insert_observation(conn, session, project, obs, "local", now_ms())
    assert new is not None
    return new


def _ids(rows: list[tuple[sqlite3.Row, float]]) -> list[int]:
    return [int(r["rid_"]) for r, _score in rows]


def _word(n: int) -> str:
    """A distinct word without digits (a digit could match a project id, the point of a test)."""
    return chr(97 + n % 26) + chr(97 + n // 26) + "x"


def _two_projects(conn: sqlite3.Connection, tmp: Path) -> tuple[int, int, int, list[int]]:
    """Project A with one weak match of "cache", project B with many strong ones."""
    a, b = _project(conn, tmp / "a"), _project(conn, tmp / "b")
    sa, sb = _session(conn, a, "ha"), _session(conn, b, "hb")
    mine = _observe(conn, sa, a, "Notes on the build", "the cache is warmed on start")
    theirs = [
        _observe(conn, sb, b, f"Cache cache cache {_word(n)}", "cache cache cache")
        for n in range(60)
    ]
    return a, b, mine, theirs


def test_a_project_search_scores_only_its_own_rows(tmp_path: Path) -> None:
    conn = open_store()
    a, _b, mine, theirs = _two_projects(conn, tmp_path)
    ranked = rq.ranked_records(
        conn, rq.OBSERVATIONS, match='"cache"', now_ms=now_ms(), fetch=5, project_id=a
    )
    assert _ids(ranked) == [mine]
    everyone = rq.ranked_records(
        conn, rq.OBSERVATIONS, match='"cache"', now_ms=now_ms(), fetch=100, project_id=None
    )
    assert set(_ids(everyone)) == {mine, *theirs}
    # The FTS query itself is scoped: FTS5 hands back project A's match and nothing else.
    scoped = rq.scoped_match(rq.OBSERVATIONS, '"cache"', a)
    rows = conn.execute(
        "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ?", (scoped,)
    ).fetchall()
    assert [r[0] for r in rows] == [mine]


def test_a_number_in_the_query_never_matches_a_project_id(tmp_path: Path) -> None:
    conn = open_store()
    a, b, _mine, _theirs = _two_projects(conn, tmp_path)
    for project in (a, b):
        for project_id in (a, b, None):
            ranked = rq.ranked_records(
                conn,
                rq.OBSERVATIONS,
                match=f'"{project}"',
                now_ms=now_ms(),
                fetch=5,
                project_id=project_id,
            )
            assert ranked == []


def test_summaries_are_scoped_by_project_too(tmp_path: Path) -> None:
    conn = open_store()
    a, b = _project(conn, tmp_path / "a"), _project(conn, tmp_path / "b")
    for project, host in ((a, "ha"), (b, "hb")):
        session = _session(conn, project, host)
        info = session_info(conn, session)
        assert info is not None
        save_summary(conn, info, Summary(request=f"tune the cache of {host}"), "local")
    ranked = rq.ranked_records(
        conn, rq.SUMMARIES, match='"cache"', now_ms=now_ms(), fetch=5, project_id=b
    )
    assert [r["request"] for r, _s in ranked] == ["tune the cache of hb"]


def test_a_schema_3_store_keeps_its_rows_findable_by_project(tmp_path: Path) -> None:
    path = tmp_path / "v3.db"
    conn = connect(path)
    migrate(conn, target=3)
    a, _b, mine, theirs = _two_projects(conn, tmp_path)
    conn.close()
    conn = open_store(path)
    columns = [r[1] for r in conn.execute("PRAGMA table_info(observations_fts)")]
    assert columns[-1] == "project_id"
    ranked = rq.ranked_records(
        conn, rq.OBSERVATIONS, match='"cache"', now_ms=now_ms(), fetch=5, project_id=a
    )
    assert _ids(ranked) == [mine]
    # The rebuilt index follows later edits and deletions through its triggers.
    conn.execute("DELETE FROM observations WHERE id = ?", (theirs[0],))
    conn.execute("UPDATE observations SET title = 'Cache warmed' WHERE id = ?", (mine,))
    ranked = rq.ranked_records(
        conn, rq.OBSERVATIONS, match='"warmed"', now_ms=now_ms(), fetch=5, project_id=a
    )
    assert _ids(ranked) == [mine]
    left = conn.execute(
        "SELECT count(*) FROM observations_fts WHERE observations_fts MATCH ?",
        (rq.scoped_match(rq.OBSERVATIONS, '"cache"', None),),
    ).fetchone()[0]
    assert left == 1 + len(theirs) - 1
