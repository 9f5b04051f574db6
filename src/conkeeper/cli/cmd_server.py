"""``conkeeper server``: run the team server, create its schema, issue and revoke tokens.

``conkeeper server init --database URL`` creates or migrates the PostgreSQL schema (twice is
fine); ``conkeeper server token --database URL --user NAME --team TEAM [--json]`` prints a new
token, creating the user and team when missing, and ``--revoke TOKEN`` revokes one;
``conkeeper server --database URL --host 127.0.0.1 --port N`` serves until SIGTERM. The
database URL may also come from ``CONKEEPER_DATABASE_URL`` (so it stays out of shell history).
"""

from __future__ import annotations

import argparse
import os

from conkeeper.cli.output import CliError, emit_json

ACTIONS = ("serve", "init", "token")
DATABASE_ENV = "CONKEEPER_DATABASE_URL"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The action (serve by default) and its flags."""
    parser.add_argument("action", nargs="?", choices=ACTIONS, default="serve")
    parser.add_argument(
        "--database",
        metavar="URL",
        default=None,
        help=f"PostgreSQL URL, e.g. postgresql://user@host/db (default: ${DATABASE_ENV})",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (serve)")
    parser.add_argument("--port", type=int, default=8765, help="port to listen on (serve)")
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="serve: worker processes sharing the port (default: the number of cores)",
    )
    parser.add_argument(
        "--pool-size",
        type=int,
        default=None,
        help="serve: PostgreSQL connections per worker process (default: 3; more when the "
        "database runs on other cores than the server)",
    )
    parser.add_argument(
        "--statement-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="serve: cancel a database statement that runs longer and answer 503 (default: 30)",
    )
    parser.add_argument("--user", help="token: the user's name (created when missing)")
    parser.add_argument("--team", help="token: the team's name (created when missing)")
    parser.add_argument("--revoke", metavar="TOKEN", help="token: revoke this token instead")
    parser.add_argument(
        "--revoke-all",
        action="store_true",
        help="token: revoke every token of --user (in --team when given) and their membership",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")


def _database(args: argparse.Namespace) -> str:
    url = args.database or os.environ.get(DATABASE_ENV, "")
    if not url.strip():
        raise CliError(f"give the database with --database URL (or set {DATABASE_ENV})", 2)
    return url


def run(args: argparse.Namespace) -> int:
    """Dispatch to init, token or serve."""
    from conkeeper.server import missing_dependency

    module = missing_dependency() if args.action == "serve" else _psycopg_missing()
    if module is not None:
        from conkeeper.server import MISSING

        raise CliError(MISSING.format(module=module))
    database = _database(args)
    if args.action == "init":
        return _init(database, args.json)
    if args.action == "token":
        return _token(database, args)
    return _serve(database, args)


def _psycopg_missing() -> str | None:
    import importlib.util

    return None if importlib.util.find_spec("psycopg") is not None else "psycopg"


def _init(database: str, as_json: bool) -> int:
    from conkeeper.services.team.hub import init_database
    from conkeeper.storage.team_pg import TeamStoreError

    try:
        applied, version = init_database(database)
    except TeamStoreError as exc:
        raise CliError(str(exc)) from None
    if as_json:
        emit_json({"schema_version": version, "applied": applied})
    elif applied:
        print(f"team database ready: schema version {version} (applied {applied})")
    else:
        print(f"team database already up to date: schema version {version}")
    return 0


def _token(database: str, args: argparse.Namespace) -> int:
    from conkeeper.services.team.hub import issue_token, revoke
    from conkeeper.storage.team_pg import TeamStoreError

    try:
        if args.revoke_all:
            return _revoke_all(database, args)
        if args.revoke is not None:
            if not revoke(database, args.revoke):
                raise CliError("no active token matches; nothing was revoked")
            if args.json:
                emit_json({"revoked": True})
            else:
                print("token revoked")
            return 0
        if not args.user or not args.team:
            raise CliError("give --user NAME and --team TEAM (or --revoke TOKEN)", 2)
        token = issue_token(database, args.user, args.team)
    except ValueError as exc:
        raise CliError(str(exc), 2) from None
    except TeamStoreError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        emit_json({"token": token})
    else:
        print(token)
    return 0


def _revoke_all(database: str, args: argparse.Namespace) -> int:
    from conkeeper.services.team.hub import revoke_user

    if not args.user:
        raise CliError("give --user NAME with --revoke-all (and --team TEAM for one team)", 2)
    count = revoke_user(database, args.user, args.team)
    where = f" in team '{args.team}'" if args.team else ""
    if count is None:
        raise CliError(f"no user '{args.user}'{where}; nothing was revoked")
    if count == 0:
        raise CliError(f"'{args.user}' has no active token{where}; nothing was revoked")
    if args.json:
        emit_json({"revoked": count})
    else:
        print(f"revoked {count} token(s) of '{args.user}'{where}")
    return 0


def _serve(database: str, args: argparse.Namespace) -> int:
    from conkeeper.server import ServerUnavailable, serve

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port {args.port}: expected a port number from 0 to 65535", 2)
    if args.workers < 0:
        raise CliError(f"--workers {args.workers}: expected 0 (one per core) or more", 2)
    if args.pool_size is not None and not 1 <= args.pool_size <= 100:
        raise CliError(f"--pool-size {args.pool_size}: expected 1 to 100 connections", 2)
    timeout = args.statement_timeout
    if timeout is not None and not 0.001 <= timeout <= 86_400:
        raise CliError(f"--statement-timeout {timeout}: expected 0.001 to 86400 seconds", 2)
    try:
        serve(
            database,
            args.host,
            args.port,
            args.workers or (os.cpu_count() or 1),
            args.pool_size,
            timeout,
        )
    except ServerUnavailable as exc:
        raise CliError(str(exc)) from None
    return 0
