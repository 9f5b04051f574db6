"""ConKeeper's MCP server (extra ``mcp``): memory tools and resources for any MCP client.

Why it exists: agents other than Claude Code's hooks — and Claude Code itself, through the
plugin — reach the same memory through the Model Context Protocol. The SDK is an optional
dependency, so importing this package costs nothing; :func:`sdk_missing` tells the front door
whether the extra is installed before it imports :mod:`conkeeper.mcp.server`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

SDK_MISSING = (
    "the MCP server needs the 'mcp' package (version 2) for this Python; install it with: "
    "{python} -m pip install 'mcp>=2.3,<3'  (or: pip install 'conkeeper[mcp]')"
)


def sdk_missing() -> bool:
    """True when the official MCP SDK cannot be imported by this interpreter."""
    try:
        return importlib.util.find_spec("mcp.server.mcpserver") is None
    except (ImportError, ValueError):
        return True


class McpUnavailable(Exception):
    """The server cannot start (the SDK is missing, the port is taken); one line for a person."""


def serve(project_dir: Path, *, http: bool = False, port: int = 0) -> None:
    """Serve ``project_dir``'s memory over stdio, or streamable HTTP on 127.0.0.1 with ``http``.

    The one entry point ``conkeeper mcp`` calls: the SDK is imported only past this check.
    """
    if sdk_missing():
        import sys

        raise McpUnavailable(SDK_MISSING.format(python=Path(sys.executable).name))
    from conkeeper.mcp.server import serve_http, serve_stdio

    if http:
        serve_http(project_dir, port)
    else:
        serve_stdio(project_dir)
