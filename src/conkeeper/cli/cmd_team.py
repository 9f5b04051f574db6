"""``conkeeper team``: join a team server, push now, and show the state of the sync.

``conkeeper team join URL --token-file FILE`` (``-`` reads standard input; or ``--token TOKEN``,
or the ``CONKEEPER_TEAM_TOKEN`` environment variable) checks the token against the server and
keeps it in the data home (0600, never in a project); ``conkeeper team sync [--json]`` pushes
the pending rows of every project with ``team_sync: true`` and prints ``{"pushed": n,
"pending": m}``; ``conkeeper team status [--json]`` says who this machine is on which server
and what waits (and, when the server refuses the token, that the cached team block was
dropped).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json, opened_store, warn

TOKEN_ENV = "CONKEEPER_TEAM_TOKEN"
MAX_TOKEN_FILE = 4096  # bytes: a token is 47 characters


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``join URL --token-file F`` (or ``--token T``), ``sync``, ``status``."""
    parser.add_argument("action", choices=("join", "sync", "status"))
    parser.add_argument("url", nargs="?", help="join: the team server's URL")
    parser.add_argument(
        "--token",
        help="join: the token 'conkeeper server token' printed ('-': read it from standard "
        f"input; a token written here shows in the process list: prefer --token-file or "
        f"${TOKEN_ENV})",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="join: read the token from FILE ('-': standard input), out of the process list",
    )
    parser.add_argument("--quiet", action="store_true", help="sync: print nothing (background)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    """Dispatch to join, sync or status."""
    if args.action == "join":
        return _join(args)
    if args.action == "sync":
        return _sync(args)
    return _status(args)


def _join(args: argparse.Namespace) -> int:
    from conkeeper.services.team import client, credentials

    url = (args.url or "").strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise CliError("give the server's URL, e.g. conkeeper team join http://host:8765", 2)
    _refuse_agent()
    token = _join_token(args)
    probe = credentials.TeamCredentials(url, token, "")
    try:
        who = client.whoami(probe)
    except client.TeamServerError as exc:
        raise CliError(str(exc)) from None
    creds = credentials.save(url, token, str(who.get("team") or ""))
    if args.json:
        emit_json({"url": creds.url, "user": who.get("user"), "team": who.get("team")})
    else:
        print(f"joined {creds.url} as {who.get('user')} (team {who.get('team')})")
        print("opt a project in with: conkeeper config set team_sync true")
    return 0


def _refuse_agent() -> None:
    """Joining decides where every later sync sends the shared memory (and prompts, when
    shared) of each project with ``team_sync`` on: the user's act, as ``config set`` of such
    a key is; refused under an agent (a page it read could name a collector)."""
    from conkeeper.services.agent_process import agent_marker

    marker = agent_marker()
    if marker is not None:
        raise CliError(
            "the team server decides where your shared memory is sent, so joining one is "
            f"yours to do: this command runs under an agent ({marker}); run it in your own "
            "terminal"
        )


def _join_token(args: argparse.Namespace) -> str:
    """The token to join with: ``--token``, ``--token-file`` (``-``, or ``--token -``:
    standard input) or ``$CONKEEPER_TEAM_TOKEN``. All but a token written after ``--token``
    keep it out of the process list (any user of the machine can read another's command
    line) and out of shell history."""
    if args.token is not None and args.token_file is not None:
        raise CliError("give the token once: --token or --token-file, not both", 2)
    if args.token_file is not None or args.token == "-":
        text = _read_token_file(args.token_file or "-")
    elif args.token is not None:
        text = args.token
    else:
        text = os.environ.get(TOKEN_ENV, "")
    token = text.strip()
    if not token:
        raise CliError(
            f"give the token with --token-file FILE ('-' reads standard input), ${TOKEN_ENV} "
            "or --token TOKEN",
            2,
        )
    if any(ch.isspace() for ch in token):
        raise CliError("the token is one word ('ckt_' and 43 characters); check what was given", 2)
    return token


def _read_token_file(name: str) -> str:
    """The text of a token file, or of standard input for ``-`` (at most a few kilobytes)."""
    try:
        if name == "-":
            return sys.stdin.read(MAX_TOKEN_FILE)
        with open(name, encoding="utf-8") as handle:
            return handle.read(MAX_TOKEN_FILE)
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise CliError(f"cannot read the token from {name}: {reason}", 2) from None


def _sync(args: argparse.Namespace) -> int:
    from conkeeper.services.team import credentials, sync
    from conkeeper.services.workspace import current_project

    try:
        with opened_store() as conn:
            result = sync.sync(conn, here=current_project())
    except credentials.CredentialsError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        emit_json({"pushed": result.pushed, "pending": result.pending})
    elif not args.quiet:
        print(f"pushed {result.pushed}, pending {result.pending} ({result.projects} projects)")
    if result.refused and not args.quiet:
        warn(f"{result.refused} rows were not shared: they still held private text or a secret")
    for note in () if args.quiet else result.notes:
        warn(note)
    if result.error:
        if not args.quiet:
            warn(result.error)
            if result.blocks_dropped:
                warn(sync.BLOCKS_DROPPED)
        return 1
    return 0


def _status(args: argparse.Namespace) -> int:
    from conkeeper.domain.messages import clean_message
    from conkeeper.services.team import client, credentials, sync
    from conkeeper.services.team.identity import KeyRefused
    from conkeeper.services.team.search import current_key
    from conkeeper.services.workspace import current_project

    creds = credentials.load_optional()
    if creds is None:
        raise CliError(
            "this machine has not joined a team server; run: conkeeper team join URL --token TOKEN"
        )
    here = current_project()
    with opened_store() as conn:
        shared, notes = sync.shared_projects(conn, here)
        pending = sync.pending(conn, creds, here)
    notes.extend(s.refused for s in shared if s.refused)
    shared = [s for s in shared if not s.refused]
    try:
        key = current_key(Path.cwd())
    except KeyRefused as exc:
        key = None
        if not any(str(exc) in note for note in notes):  # named with its folder already
            notes.append(str(exc))
    url = clean_message(creds.url)
    status: dict[str, object] = {
        "url": url,
        "projects": [s.key for s in shared],
        "pending": pending,
        "project": key,
    }
    try:
        who = client.whoami(creds, key)
        status.update(user=who.get("user"), team=who.get("team"), server_records=who.get("records"))
        status["reachable"] = True
    except client.TeamServerError as exc:
        status.update(reachable=False, error=str(exc))
        if exc.status == client.TOKEN_REFUSED:
            sync.drop_team_blocks()
            status["team_block"] = "dropped"
    if args.json:
        emit_json(status)
        return 0
    print(f"server: {url} ({'reachable' if status['reachable'] else 'unreachable'})")
    if status["reachable"]:
        print(f"user: {status.get('user')}  team: {status.get('team')}")
    else:
        print(f"  {status.get('error')}")
        if status.get("team_block") == "dropped":
            print(f"  {sync.BLOCKS_DROPPED}")
    print(f"sharing projects: {', '.join(s.key for s in shared) or _none_shared(key)}")
    print(f"pending rows: {pending}")
    if key and status.get("server_records") is not None:
        print(f"this project ({key}) on the server: {status['server_records']} records")
    for note in notes:
        warn(note)
    return 0


def _none_shared(key: str | None) -> str:
    """What "no project shares" means here: this project opted in but has no session on
    record yet, or team_sync is off everywhere."""
    from conkeeper.domain.config import load_config
    from conkeeper.services.workspace import current_project

    if key and load_config(current_project(Path.cwd()).root).config.team_sync:
        return "none yet (this project opts in: its records are shared from its first session)"
    return "none (team_sync is off)"
