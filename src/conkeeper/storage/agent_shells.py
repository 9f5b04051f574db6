"""When agents' shell commands ran: the spans a detached child of one may have started in.

Why it exists: a command an agent's shell starts is told from the person's by its parents
(:mod:`conkeeper.services.agent_process`), but a command that left them (``setsid``, ``nohup``
after its shell exited, a double fork) has init or a session manager above it and no agent
variable left. What still tells it apart is when it was started: inside an agent's shell
command. The hooks note each shell command's start (PreToolUse) and end (PostToolUse) in one
file for all projects, ``<data home>/state/agent-shells``; a line is ``start|end MS KEY``.

A command that left a process running (``nohup sh -c 'sleep 60; echo ... >> patterns.md' &``)
is also noted ``left``: its span lasts, for the memory looks, until a look finds no process
started inside it still running, which notes it ``closed`` at that look's time (what the
process wrote before then is the agent's, even when it has exited by the look).

Standard library only: the hook path writes here.
"""

from __future__ import annotations

import fcntl
import os

from conkeeper.domain.paths import state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    Left = tuple[str, int, int, int | None]  # key, start, end, closed (ms; None while open)
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
    starts: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for edge, stamp, key in _lines(env):
        if edge == "start":
            starts[key] = stamp
        elif edge == "end" and _paired(starts, key):
            spans.append((starts.pop(key), stamp))
    if running:
        spans.extend((start, min(now_ms, start + OPEN_MS)) for start in starts.values())
    return spans


def left_behind(now_ms: int, env: Mapping[str, str] | None = None) -> list[Left]:
    """The commands noted ``left`` (a process of theirs may still run): ``(key, start, end,
    closed)`` in ms, ``closed`` the time a look found none of its processes running (``None``
    while open; an open one lasts at most :data:`OPEN_MS`)."""
    starts: dict[str, int] = {}
    ends: dict[str, int] = {}
    left: dict[str, Left] = {}
    for edge, stamp, key in _lines(env):
        if edge == "start":
            starts[key] = stamp
        elif edge == "end" and _paired(starts, key):
            ends[key] = stamp
        elif edge == "left" and key in starts:
            left[key] = (key, starts[key], ends.get(key, stamp), None)
        elif edge == "closed" and key in left:
            left[key] = (*left[key][:3], stamp)
    return [item for item in left.values() if item[3] is not None or item[1] + OPEN_MS > now_ms]


def still_running(start_ms: int, end_ms: int, slack_ms: int = 2000) -> bool:
    """True when a process that started between ``start_ms`` and ``end_ms`` (Unix ms, give or
    take ``slack_ms``: start times rest on the boot time in whole seconds) still runs, other
    than this process and its parents; from ``/proc`` (False where there is none)."""
    boot, tick = boot_ms(), os.sysconf("SC_CLK_TCK")
    if boot is None:
        return False
    mine = _ancestors(os.getpid())
    try:
        names = os.listdir("/proc")
    except OSError:
        return False
    for name in names:
        if not name.isdigit() or int(name) in mine:
            continue
        started = _started_ms(int(name), boot, tick)
        if started is not None and start_ms - slack_ms <= started <= end_ms + slack_ms:
            return True
    return False


def _paired(starts: dict[str, int], key: str) -> bool:
    """True when the command ``key`` ends has a start; a start noted without the tool use id
    (Cursor's ``beforeShellExecution`` carries none, its ``postToolUse`` does) is the
    session's open command and is moved to ``key``."""
    if key in starts:
        return True
    bare = key.rpartition(":")[0] + ":"
    if bare == key or bare not in starts:
        return False
    starts[key] = starts.pop(bare)
    return True


def _lines(env: Mapping[str, str] | None) -> Iterator[tuple[str, int, str]]:
    """The file's lines as ``(edge, ms, key)``, oldest first (none when it cannot be read)."""
    try:
        with open(_path(env), "rb") as handle:
            data = handle.read(MAX_BYTES * 2)
    except OSError:
        return
    for raw in data.decode("utf-8", "replace").splitlines():
        parts = raw.split(" ", 2)
        if len(parts) == 3 and parts[1].isdigit():
            yield parts[0], int(parts[1]), parts[2]


def _stat_fields(pid: int) -> list[bytes]:
    """The fields of ``/proc/PID/stat`` after the program's name (empty when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read(4096).rpartition(b")")[2].split()
    except OSError:
        return []


def _started_ms(pid: int, boot: int, tick: int) -> int | None:
    fields = _stat_fields(pid)
    if len(fields) < 20 or fields[0] == b"Z":  # a zombie has exited
        return None
    return boot + int(fields[19]) * 1000 // tick


def _ancestors(pid: int) -> set[int]:
    found: set[int] = set()
    while pid > 1 and pid not in found and len(found) < 64:
        found.add(pid)
        fields = _stat_fields(pid)
        pid = int(fields[1]) if len(fields) > 1 else 0
    return found


def boot_ms() -> int | None:
    """When the system started, in Unix ms (``btime`` of ``/proc/stat``), else None: what a
    process's start time in ``/proc/PID/stat`` (ticks since boot) is counted from."""
    try:
        with open("/proc/stat", "rb") as handle:
            for line in handle:
                if line.startswith(b"btime "):
                    return int(line.split()[1]) * 1000
    except (OSError, ValueError, IndexError):
        return None
    return None


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
