"""A real, throwaway PostgreSQL for the team-memory tests, and helpers around the team server.

The cluster is started by pytest-postgresql's ``postgresql_proc`` factory (initdb in a temp
folder, a free port on 127.0.0.1, stopped at the end of the session). PostgreSQL refuses to run
as root, so under root the factory's ``executable`` is ``support/pg_ctl_as_postgres.sh``, which
runs Debian's ``pg_ctl`` as the ``postgres`` user. Without PostgreSQL binaries (or the
``server`` extra) the tests skip with the reason; with ``CONKEEPER_REQUIRE_PG=1`` (set by
``.ci/run``) they fail instead, so CI cannot silently skip them.
"""

from __future__ import annotations

import glob
import importlib.util
import itertools
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import cli_env

HERE = Path(__file__).resolve().parent
WRAPPER = HERE / "support" / "pg_ctl_as_postgres.sh"
REQUIRE_ENV = "CONKEEPER_REQUIRE_PG"
NEEDED = ("psycopg", "psycopg_pool", "pytest_postgresql", "starlette", "uvicorn", "mcp")


def _pg_bin(name: str) -> str | None:
    """A PostgreSQL program: on PATH, else the newest of Debian's /usr/lib/postgresql/*/bin."""
    found = shutil.which(name)
    if found:
        return found
    candidates = glob.glob(f"/usr/lib/postgresql/*/bin/{name}")
    candidates.sort(key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return candidates[-1] if candidates else None


def _missing() -> str | None:
    for module in NEEDED:
        if importlib.util.find_spec(module) is None:
            return f"the '{module}' package is not installed (pip install -e '.[dev]')"
    if _pg_bin("pg_ctl") is None:
        return "PostgreSQL binaries (pg_ctl) are absent; apt-get install postgresql"
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root needs runuser to start PostgreSQL as another user"
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root needs the 'postgres' system user to start PostgreSQL"
    return None


MISSING = _missing()
PG_CTL = _pg_bin("pg_ctl")
PG_DUMP = _pg_bin("pg_dump")


def _executable() -> str:
    assert PG_CTL is not None
    if os.geteuid() != 0:
        return PG_CTL
    os.environ["CONKEEPER_REAL_PG_CTL"] = PG_CTL
    os.environ["CONKEEPER_PG_TMP"] = tempfile.gettempdir()
    return str(WRAPPER)


if MISSING is None:
    from pytest_postgresql import factories

    pg_proc = factories.postgresql_proc(
        executable=_executable(),
        host="127.0.0.1",
        port=None,  # a free port
        unixsocketdir=tempfile.gettempdir(),
    )
else:

    @pytest.fixture(scope="session")
    def pg_proc() -> None:
        """Stands in for the cluster when PostgreSQL cannot run here."""
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but the team tests cannot run: {MISSING}")
        pytest.skip(f"team memory tests need PostgreSQL: {MISSING}")


_numbers = itertools.count(1)


@pytest.fixture
def database_url(pg_proc: Any) -> Iterator[str]:
    """A fresh, empty database on the session's cluster; dropped afterwards."""
    import psycopg

    base = f"postgresql://{pg_proc.user}@{pg_proc.host}:{pg_proc.port}"
    name = f"ck_team_{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield f"{base}/{name}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class TeamServer:
    """``conkeeper server`` as a subprocess on a free port; restartable on the same port."""

    def __init__(self, database: str, *extra: str) -> None:
        self.database = database
        self.extra = extra  # more flags for ``conkeeper server`` (``--workers 1``)
        self.port = 0
        self.proc: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> TeamServer:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "conkeeper", "server", "--database", self.database,
             "--host", "127.0.0.1", "--port", str(self.port), *self.extra],
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("ConKeeper team server at http://127.0.0.1:"), (
            line + self.proc.stderr.read()  # type: ignore[union-attr]
        )
        self.port = int(line.rsplit(":", 1)[1])
        wait_healthy(self.url)
        return self

    def kill(self) -> None:
        """SIGKILL: no graceful shutdown at all."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=30)

    def stop(self) -> str:
        """SIGTERM (graceful); returns stderr."""
        if self.proc is None or self.proc.poll() is not None:
            return ""
        self.proc.terminate()
        _out, err = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0, err  # graceful: requests finished, pool closed
        return err


def wait_healthy(url: str) -> None:
    """``GET /healthz`` answers 200 without a token (the server listens before it prints its
    address, so the request waits in the backlog until uvicorn serves it)."""
    with urllib.request.urlopen(url + "/healthz", timeout=60) as response:
        assert response.status == 200


@pytest.fixture
def team_server(database_url: str) -> Iterator[TeamServer]:
    """An initialised database and a running server on it."""
    from tests.conftest import run_cli

    done = run_cli("server", "init", "--database", database_url)
    assert done.returncode == 0, done.stderr
    server = TeamServer(database_url).start()
    yield server
    err = server.stop()
    assert "Traceback" not in err, err


def issue_token(database: str, user: str, team: str) -> str:
    """A token through the real CLI (``--json`` contract)."""
    import json

    from tests.conftest import run_cli

    done = run_cli(
        "server", "token", "--database", database, "--user", user, "--team", team, "--json"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) == {"token"}
    return str(data["token"])


def pg_dump(database: str) -> str:
    """The whole database as SQL text."""
    assert PG_DUMP is not None
    done = subprocess.run(
        [PG_DUMP, "--no-owner", database], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
