"""Whether a person has a file open in an editor that will save its own copy over it.

ConKeeper writes a person's memory file while vim or emacs may hold it open: the editor's
buffer does not have ConKeeper's change, and a save writes the buffer back, dropping it (both
editors warn at that save that the file changed on disk, and a "yes" loses the entry). The
editors leave a sign beside the file while it is open: vim its swap file (``.NAME.swp``, with
the editing process's id at byte 24), emacs its lock (``.#NAME``, a symlink to
``user@host.PID:...``). A command that wrote the file names the editor, so the person reloads
the file there first.
"""

from __future__ import annotations

import os

_VIM_SWAPS = (".swp", ".swo", ".swn")
_VIM_PID_AT = 24  # block 0: id (2), version (10), page size, mtime, inode (4 each), then the pid


def open_in_editor(path: str | os.PathLike[str]) -> str | None:
    """``"vim"`` or ``"emacs"`` when a running editor holds ``path`` open (its swap file or
    lock beside it names a live process on this host), else ``None``. A swap or lock left by
    an editor that died, or by another host, does not count."""
    folder, name = os.path.split(os.fspath(path))
    for suffix in _VIM_SWAPS:
        if _vim_alive(os.path.join(folder, f".{name}{suffix}")):
            return "vim"
    return "emacs" if _emacs_alive(os.path.join(folder, f".#{name}")) else None


def _vim_alive(swap: str) -> bool:
    try:
        with open(swap, "rb") as handle:
            head = handle.read(_VIM_PID_AT + 4 + 40 + 40)
    except OSError:
        return False
    if len(head) < _VIM_PID_AT + 4 or not head.startswith(b"b0"):
        return False
    if _other_host(head[_VIM_PID_AT + 4 + 40 :]):
        return False
    return _alive(int.from_bytes(head[_VIM_PID_AT : _VIM_PID_AT + 4], "little"))


def _emacs_alive(lock: str) -> bool:
    try:
        owner = os.readlink(lock)
    except OSError:
        return False
    user_host, _, rest = owner.partition(".")
    host = user_host.partition("@")[2]
    if host and _other_host(host.encode()):
        return False
    pid = rest.partition(":")[0]
    return pid.isdigit() and _alive(int(pid))


def _other_host(field: bytes) -> bool:
    """Whether a host name recorded by an editor (NUL-padded) is another machine's."""
    recorded = field.split(b"\x00", 1)[0].decode("utf-8", "replace")
    if not recorded or not hasattr(os, "uname"):
        return False
    here = os.uname().nodename
    return recorded.split(".")[0] != here.split(".")[0]


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True
