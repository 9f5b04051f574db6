"""The team server while its PostgreSQL is down, and after PostgreSQL restarts.

The cluster here is the test's own (pytest-postgresql, like the other team tests' cluster, but
stopped and started by the tests), the server a subprocess, the requests raw HTTP and the
real ``conkeeper team sync``. While PostgreSQL is down every request must be refused at once
(503 with ``Retry-After``, one line), the log must say so in one clean line, and the server
must serve again by itself once PostgreSQL is back; after a restart, the connections the
pools held (closed by PostgreSQL) must not fail the next requests.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import run_cli
from tests.team_support import MISSING, REQUIRE_ENV, TeamServer, _executable, issue_token
from tests.test_team_sync import PROJECT_KEY, Machine

if MISSING is None:
    from pytest_postgresql import factories

    own_cluster = factories.postgresql_proc(
        executable=_executable(), host="127.0.0.1", port=None, unixsocketdir=tempfile.gettempdir()
    )
else:

    @pytest.fixture(scope="session")
    def own_cluster() -> None:
        """Stands in for the cluster when PostgreSQL cannot run here."""
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but the team tests cannot run: {MISSING}")
        pytest.skip(f"team memory tests need PostgreSQL: {MISSING}")


# what the root wrapper needs to stop and start the cluster during a test (every test's own
# environment drops the CONKEEPER_* variables)
WRAPPER_ENV = {
    k: os.environ[k] for k in ("CONKEEPER_REAL_PG_CTL", "CONKEEPER_PG_TMP") if k in os.environ
}
QUICK_S = 5.0  # a refused request's answer, on a loaded 2-core machine (it was 15 s and a 500)


@pytest.fixture
def served(own_cluster: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, TeamServer]]:
    """A database on the test's own cluster, initialised, and a one-process server on it (so
    its log is one process's); the cluster is running again at the end whatever happened."""
    import psycopg

    for key, value in WRAPPER_ENV.items():
        monkeypatch.setenv(key, value)

    base = f"postgresql://{own_cluster.user}@{own_cluster.host}:{own_cluster.port}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS ck_outage WITH (FORCE)")
        conn.execute("CREATE DATABASE ck_outage")
    database = f"{base}/ck_outage"
    assert run_cli("server", "init", "--database", database).returncode == 0
    server = TeamServer(database, "--workers", "1").start()
    try:
        yield own_cluster, server
    finally:
        if not own_cluster.running():
            own_cluster.start()
        server.stop()


def ask(
    server: TeamServer, path: str, token: str | None, body: object = None
) -> tuple[int, dict[str, str], str, float]:
    """One request: its status, headers, body and how long it took."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url + path, data=data)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
        request.add_header("Accept", "application/json, text/event-stream")
    began = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, headers, text = response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        status, headers, text = exc.code, exc.headers, exc.read()
    named = {key.lower(): value for key, value in headers.items()}
    return status, named, text.decode("utf-8", "replace"), time.monotonic() - began


def every_route(token: str) -> list[tuple[str, object]]:
    """Each endpoint that needs the database: the JSON API and MCP."""
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probe", "version": "1"}},
    }  # fmt: skip
    record = {"uid": "u1", "kind": "observation", "type": "bugfix", "title": "Cache warmed",
              "created_at": 1_700_000_000_000}  # fmt: skip
    return [
        ("/api/v1/whoami", None),
        (f"/api/v1/search?project={PROJECT_KEY}&q=cache", None),
        (f"/api/v1/recent?project={PROJECT_KEY}", None),
        ("/api/v1/push", {"project": PROJECT_KEY, "records": [record]}),
        ("/mcp", initialize),
    ]


def test_a_database_that_is_down_gets_a_quick_503_and_the_server_recovers_by_itself(
    tmp_path: Path, served: tuple[Any, TeamServer]
) -> None:
    """With PostgreSQL down, each request waited the pool's 15 s and got a 500, with a
    traceback in the log per request (and the first ones after the stop a 500 at once from a
    closed connection); after PostgreSQL came back it went on answering 500 for minutes."""
    cluster, server = served
    token = issue_token(server.database, "ann", "core")
    ann = Machine(tmp_path, "ann")
    ann.join(server, token)
    ann.opt_in()
    ann.seed(["Flaky payment test needs a frozen clock"])
    for path, body in every_route(token):
        assert ask(server, path, token, body)[0] == 200, path

    cluster.stop()
    for _round in range(2):
        for path, body in every_route(token):
            status, headers, text, took = ask(server, path, token, body)
            assert status == 503, (path, status, text)
            assert took < QUICK_S, (path, took)
            assert headers.get("retry-after") == "5", headers
            assert json.loads(text) == {
                "error": "the team database does not answer now; try again in a few seconds"
            }
    assert ask(server, "/api/v1/whoami", None)[0] == 401  # no token: no database needed
    assert ask(server, "/healthz", None)[0] == 200  # alive, says so
    done = ann.cli("team", "sync", "--json")
    assert done.returncode == 1 and json.loads(done.stdout) == {"pushed": 0, "pending": 1}
    assert "answered 503" in done.stderr and token not in done.stderr

    cluster.start()
    deadline = time.monotonic() + 60  # it is back within seconds; a minute on a loaded machine
    while ask(server, "/api/v1/whoami", token)[0] != 200:  # the pools reconnect by themselves
        assert time.monotonic() < deadline, "the server did not recover"
    for path, body in every_route(token):
        assert ask(server, path, token, body)[0] == 200, path
    assert ann.sync() == {"pushed": 1, "pending": 0}

    log = server.stop()
    assert "Traceback" not in log and token not in log and "Exception" not in log, log
    lines = [line for line in log.splitlines() if line.strip()]
    down = [line for line in lines if "does not answer" in line]
    assert len(down) == 1 and "answering 503" in down[0], log
    assert sum("answers again" in line for line in lines) == 1, log
    assert len(lines) <= 3, log  # the shutdown's own line at most besides


def test_after_a_postgresql_restart_the_next_requests_succeed(
    served: tuple[Any, TeamServer],
) -> None:
    """After a restart, the pools still held the connections PostgreSQL had closed: the next
    request on each failed (a 500 with a traceback) before the pool replaced it."""
    cluster, server = served
    token = issue_token(server.database, "ann", "core")
    routes = every_route(token)
    with ThreadPoolExecutor(max_workers=8) as pool:  # both pools hold several connections
        warm = list(pool.map(lambda r: ask(server, r[0], token, r[1])[0], routes * 4))
    assert warm == [200] * len(warm)

    cluster.stop()
    cluster.start()  # no request while it was down: the server does not know
    cluster.wait_for_postgres()
    for path, body in routes:
        status, _headers, text, _took = ask(server, path, token, body)
        assert status == 200, (path, status, text)
    with ThreadPoolExecutor(max_workers=8) as pool:
        again = list(pool.map(lambda r: ask(server, r[0], token, r[1])[0], routes * 4))
    assert again == [200] * len(again)
    log = server.stop()
    assert "Traceback" not in log and "Error" not in log, log


def test_a_request_stuck_behind_a_lock_answers_503_after_the_statement_timeout(
    tmp_path: Path, own_cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request whose statement waited on a lock (a long migration, a stuck administrative
    transaction) held its worker thread and connection for as long as the lock was held: with
    no statement timeout the server answered nothing at all. It now answers 503 with
    ``Retry-After`` once ``--statement-timeout`` has passed, logs one clean line, and serves
    again as soon as the lock is released."""
    import psycopg

    base = f"postgresql://{own_cluster.user}@{own_cluster.host}:{own_cluster.port}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS ck_stuck WITH (FORCE)")
        conn.execute("CREATE DATABASE ck_stuck")
    database = f"{base}/ck_stuck"
    assert run_cli("server", "init", "--database", database).returncode == 0
    token = issue_token(database, "ann", "core")
    server = TeamServer(database, "--workers", "1", "--statement-timeout", "0.5").start()
    try:
        assert ask(server, "/api/v1/whoami", token)[0] == 200
        with psycopg.connect(database) as admin:
            admin.execute("LOCK TABLE tokens IN ACCESS EXCLUSIVE MODE")  # held until commit
            for path, body in every_route(token):
                status, headers, text, took = ask(server, path, token, body)
                assert status == 503, (path, status, text)
                assert headers.get("retry-after") == "5", headers
                assert took < QUICK_S, (path, took)
        for path, body in every_route(token):
            assert ask(server, path, token, body)[0] == 200, path
    finally:
        log = server.stop()
    assert "Traceback" not in log and token not in log, log
    stuck = [line for line in log.splitlines() if "took too long" in line]
    assert len(stuck) == 1 and "statement timeout" in stuck[0], log


def test_the_statement_timeout_is_checked_before_the_server_starts() -> None:
    """A timeout of zero or less would cancel nothing or everything: refused in one line."""
    done = run_cli("server", "--database", "postgresql://nobody@127.0.0.1/none",
                   "--statement-timeout", "0")  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "conkeeper: --statement-timeout 0.0: expected 0.001 to 86400 seconds"
    ], done.stderr
