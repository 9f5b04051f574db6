"""ConKeeper's team server (extra ``server``): team memory over HTTP and MCP, on PostgreSQL.

Why it exists: a team (or one user with several machines) shares observations and summaries
through one server: a JSON API the sync client and ``search --team`` use, and the official MCP
SDK's streamable HTTP transport so any MCP client can search the team memory directly. Every
endpoint but ``GET /healthz`` needs a token. The dependencies (psycopg, psycopg-pool,
Starlette, uvicorn, mcp) are imported only past :func:`missing_dependency`.
"""

from __future__ import annotations

import importlib.util

REQUIRED = ("psycopg", "psycopg_pool", "starlette", "uvicorn", "mcp.server.mcpserver")
MISSING = (
    "the team server needs the 'server' extra ({module} is missing); install it with: "
    "pip install 'conkeeper[server]'"
)


class ServerUnavailable(Exception):
    """The server cannot start (an extra is missing, the port is taken, the database is not
    ready); one line for a person."""


def missing_dependency() -> str | None:
    """The first module of the ``server`` extra this interpreter lacks, or ``None``."""
    for module in REQUIRED:
        try:
            if importlib.util.find_spec(module) is None:
                return module
        except (ImportError, ValueError):
            return module
    return None


def serve(
    database: str,
    host: str,
    port: int,
    workers: int = 1,
    pool_size: int | None = None,
    statement_timeout_s: float | None = None,
) -> None:
    """Serve until SIGTERM or Ctrl-C (graceful: open requests finish, the pool closes), in
    ``workers`` processes sharing one listening socket, each with ``pool_size`` database
    connections at most (``team_pg.POOL_SIZE`` when None), each statement cancelled after
    ``statement_timeout_s`` (``team_pg.STATEMENT_TIMEOUT_S`` when None)."""
    module = missing_dependency()
    if module is not None:
        raise ServerUnavailable(MISSING.format(module=module))
    from conkeeper.server.app import run
    from conkeeper.storage.team_pg import STATEMENT_TIMEOUT_S

    run(database, host, port, workers, pool_size, statement_timeout_s or STATEMENT_TIMEOUT_S)
