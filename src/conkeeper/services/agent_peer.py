"""Whether the process at the other end of a loopback TCP connection is an agent's.

Why it exists: the person's own ``conkeeper viewer`` approves held entries and applies queued
corrections for whoever holds its session cookie. An agent with a shell reads what the person's
account can read: the one-time sign-in link on the command line of the browser
``webbrowser.open`` started, or in the person's terminal (``tmux capture-pane``). With it, a
``curl`` signed in and approved the order the agent's own note had been held for. The viewer
cannot tell a browser from ``curl`` by what they send; it can by who sent it. On Linux the
connection's client end is a socket in ``/proc/net/tcp`` (or ``tcp6``) whose inode some process
holds open (``/proc/PID/fd``); that process and its parents are read as
:func:`conkeeper.services.agent_process.process_marker` reads a command's own.

The trade: a process whose open files cannot be read (another user's, or one that made itself
not dumpable) hides which one holds the socket; then any such process of an agent's counts, so
the person's browser keeps working unless an agent started it. A connection whose sending end
no process holds any more (its sender wrote the request and closed the socket at once, leaving
nobody to look at) or that is gone from the tables counts as an agent's: a browser waits for
the answer. Without ``/proc`` nothing is found and the viewer's started-by rule alone applies.
"""

from __future__ import annotations

import os

from conkeeper.services.agent_process import process_marker


def peer_marker(client: tuple[str, int], server: tuple[str, int]) -> str | None:
    """Why the process that opened the connection from ``client`` to ``server`` (both
    ``(host, port)`` as the server saw them) counts as an agent's, else ``None``."""
    inodes = _client_sockets(client[1], server[1])
    if inodes is None:
        return None
    held = inodes - {"0"}
    holders, unreadable = _holders(held) if held else ([], [])
    if not holders and not unreadable:
        return (
            f"the process that sent the request from port {client[1]} closed its connection "
            "before the viewer could see which one it was (a browser waits for the answer)"
        )
    for pid in holders or unreadable:
        found = process_marker(pid)
        if found is not None:
            return f"the request came from process {pid}, and {found}"
    return None


def _client_sockets(client_port: int, server_port: int) -> set[str] | None:
    """Inodes of the sockets whose local port is ``client_port`` and remote ``server_port``
    (``0`` for one no process holds any more), or ``None`` when no table could be read."""
    found: set[str] | None = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii", errors="replace") as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        found = found if found is not None else set()
        for line in lines:
            fields = line.split()
            ports = (_port(fields[1]), _port(fields[2])) if len(fields) > 9 else ()
            if ports == (client_port, server_port):
                found.add(fields[9])
    return found


def _port(address: str) -> int:
    """The port of a ``/proc/net/tcp`` address (``0100007F:1F90``)."""
    try:
        return int(address.rpartition(":")[2], 16)
    except ValueError:
        return -1


def _holders(inodes: set[str]) -> tuple[list[int], list[int]]:
    """Processes holding one of ``inodes`` open, and processes whose open files could not be
    read (one of them may hold it), this process left out."""
    wanted = {f"socket:[{inode}]" for inode in inodes}
    holders: list[int] = []
    unreadable: list[int] = []
    own = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == own:
            continue
        try:
            links = os.listdir(f"/proc/{name}/fd")
        except PermissionError:
            unreadable.append(int(name))
            continue
        except OSError:
            continue
        if any(_link(f"/proc/{name}/fd/{fd}") in wanted for fd in links):
            holders.append(int(name))
    return holders, unreadable


def _link(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""
