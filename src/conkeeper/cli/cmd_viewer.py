"""``conkeeper viewer``: a local web page for memory, sessions, retros and the corrections queue.

Thin front door: it checks the extra is installed, binds 127.0.0.1, prints the one-time URL
(with its token), opens the browser unless ``--no-open``, and serves until Ctrl-C. The pages and
their security live in :mod:`conkeeper.viewer`.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from conkeeper.cli.output import CliError

NEEDED = ("starlette", "uvicorn", "jinja2", "markdown_it")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--port`` and ``--no-open``."""
    parser.add_argument(
        "--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)"
    )
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")


def run(args: argparse.Namespace) -> int:
    """Serve the viewer for the current project until interrupted."""
    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        raise CliError(
            f"the viewer needs the 'viewer' extra ({', '.join(missing)} missing): "
            "pip install 'conkeeper[viewer]'"
        )
    if not 0 <= args.port <= 65535:
        raise CliError(f"--port {args.port} is not a port number (0 to 65535)")
    from conkeeper.domain.paths import global_memory_dir, locate_project
    from conkeeper.viewer.app import HOST, bind, create_app, serve
    from conkeeper.viewer.security import Secrets

    try:
        sock = bind(args.port)
    except OSError as exc:
        raise CliError(
            f"cannot listen on {HOST}:{args.port} ({exc.strerror}); try --port 0"
        ) from None
    port = sock.getsockname()[1]
    from conkeeper.services.agent_process import agent_marker

    keys = Secrets()
    agent = agent_marker()  # an agent reads the link too: its viewer never approves
    app = create_app(locate_project(Path.cwd()), global_memory_dir(), keys, port, agent)
    url = f"http://{HOST}:{port}/?token={keys.url_token}"
    sys.stdout.write(
        f"ConKeeper viewer: {url}\n(the link signs in one browser, once; Ctrl-C stops it)\n"
    )
    if agent is not None:
        sys.stdout.write(
            f"(started under an agent, {agent}: held entries can be dropped here, and "
            "approved only from a viewer you start in your own terminal)\n"
        )
    sys.stdout.flush()
    if not args.no_open:
        import webbrowser

        webbrowser.open(url)
    serve(app, sock)
    return 0
