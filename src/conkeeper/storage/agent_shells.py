"""When agents' shell commands ran: the spans a detached child of one may have started in.

Why it exists: a command an agent's shell starts is told from the person's by its parents
(:mod:`conkeeper.services.agent_process`), but a command that left them (``setsid``, ``nohup``
after its shell exited, a double fork) has init or a session manager above it and no agent
variable left. What still tells it apart is when it was started: inside an agent's shell
command. The hooks note each shell command's start (PreToolUse) and end (PostToolUse) in one
file for all projects, ``<data home>/state/agent-shells``; a line is ``start|end MS KEY``.

Standard library only: the hook path writes here.
"""

from __future__ import annotations

import fcntl
import os

from conkeeper.domain.paths import state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

FILE = "agent-shells"
MAX_BYTES = 256 * 1024  # past this the older half is let go (days of shell commands)
OPEN_MS = 6 * 3600 * 1000  # a start without an end (a crash, a killed hook) counts this long


def note(edge: str, key: str, stamp_ms: int, env: Mapping[str, str] | None = None) -> None:
    """Append ``start`` or ``end`` of the shell command ``key`` (session and tool use id).

    The append holds a shared ``flock`` on the file it writes to, and checks that the path
    still names it: a trim (exclusive) never renames away a file a line is being added to."""
    path = _path(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = f"{edge} {stamp_ms} {key.replace(' ', '_').replace(chr(10), '_')}\n".encode()
    while True:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            if not _names(path, fd):
                continue
            os.write(fd, line)
            size = os.fstat(fd).st_size
            break
        finally:
            os.close(fd)
    if size > MAX_BYTES:
        _trim(path)


def windows(
    now_ms: int, env: Mapping[str, str] | None = None, *, running: bool = True
) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of the agents' shell commands noted, in ms; one still
    running (or never ended) lasts until ``now_ms``, at most :data:`OPEN_MS` (left out when
    not ``running``: its own end will account for what it did)."""
    try:
        with open(_path(env), "rb") as handle:
            data = handle.read(MAX_BYTES * 2)
    except OSError:
        return []
    starts: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for raw in data.decode("utf-8", "replace").splitlines():
        parts = raw.split(" ", 2)
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        edge, stamp, key = parts[0], int(parts[1]), parts[2]
        if edge == "start":
            starts[key] = stamp
        elif edge == "end" and key in starts:
            spans.append((starts.pop(key), stamp))
    if running:
        spans.extend((start, min(now_ms, start + OPEN_MS)) for start in starts.values())
    return spans


def _trim(path: Path) -> None:
    """Keep the newer half of the file (whole lines), written whole or not at all, under an
    exclusive ``flock`` on it: no line another hook appends meanwhile is lost, and of two
    trims at once the second finds the file already renamed over and leaves it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if not _names(path, fd) or os.fstat(fd).st_size <= MAX_BYTES:
            return
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read()
        from conkeeper.domain.safewrite import seam

        seam("shells-trim")
        half = data[len(data) // 2 :]
        temporary = path.with_name(f".{FILE}.tmp")
        temporary.write_bytes(half[half.find(b"\n") + 1 :])
        os.replace(temporary, path)
    finally:
        os.close(fd)


def _names(path: Path, fd: int) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (a trim renames a new one over)."""
    try:
        named = os.stat(path)
    except OSError:
        return False
    opened = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _path(env: Mapping[str, str] | None) -> Path:
    return state_dir(env) / FILE
