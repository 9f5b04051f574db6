"""``conkeeper mcp``: serve ConKeeper's memory to MCP clients (stdio, or ``--http``).

The front door only checks that the ``mcp`` extra is installed (one clear line if not), picks the
project (``--project``, else the host's ``CLAUDE_PROJECT_DIR``, else the working directory) and
hands over to :mod:`conkeeper.mcp.server`. Over stdio nothing but protocol goes to stdout; with
``--http`` the server prints its URL and bearer token, then serves until interrupted.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from conkeeper.cli.output import CliError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--http``, ``--port`` and ``--project``."""
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve streamable HTTP on 127.0.0.1 with a bearer token it prints (default: stdio)",
    )
    parser.add_argument(
        "--port", type=int, default=0, help="HTTP port (default: a free one, printed at start)"
    )
    parser.add_argument(
        "--project",
        type=Path,
        default=None,
        metavar="DIR",
        help="the project whose memory to serve (default: $CLAUDE_PROJECT_DIR when the host "
        "sets it, else the current directory)",
    )


def _host_project_dir() -> Path | None:
    """The project the host says it launched the server for: Claude Code sets
    ``CLAUDE_PROJECT_DIR`` for stdio MCP servers, whose working directory may be elsewhere."""
    value = os.environ.get("CLAUDE_PROJECT_DIR", "").strip()
    return Path(value) if value else None


def run(args: argparse.Namespace) -> int:
    """Start the server; returns when the client disconnects or on Ctrl-C."""
    from conkeeper.mcp import McpUnavailable, serve

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port {args.port}: expected a port number from 0 to 65535", 2)
    project = (args.project or _host_project_dir() or Path.cwd()).expanduser()
    if not project.is_dir():
        raise CliError(f"--project {project}: no such folder", 2)
    try:
        serve(project.resolve(), http=args.http, port=args.port)
    except McpUnavailable as exc:
        raise CliError(str(exc)) from None
    return 0
