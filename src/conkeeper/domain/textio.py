"""Safe reading and writing of the user's memory files.

Reading for a write refuses what is not a memory file (binary, invalid UTF-8, oversized) with
one clear message; reading to show or search (:func:`read_text_lenient`) replaces invalid UTF-8
and names the file in a note, so nothing is dropped without a word. Writing is atomic (temp
file + rename), keeps the file's permissions, never writes through a symlink that leads outside
the memory root, and never replaces a file that changed on disk since it was read. Appends take
an exclusive lock so parallel hooks never interleave.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any, BinaryIO

MAX_MEMORY_FILE_BYTES = 8 * 1024 * 1024

try:  # POSIX advisory locks; Windows falls back to msvcrt below.
    import fcntl
except ImportError:  # pragma: no cover - exercised on Windows only
    fcntl = None  # type: ignore[assignment]  # mypy types the module as always importable


class MemoryFileError(Exception):
    """A memory file cannot be read or written; the message is one line meant for a person."""


class MemoryFileMissing(MemoryFileError):
    """The memory file does not exist (a normal case for optional files)."""


class ConcurrentEditError(MemoryFileError):
    """The file changed on disk after it was read; writing now would clobber a human edit."""


def decode_text(data: bytes, path: Path | str = "<data>") -> str:
    """Decode memory-file bytes, rejecting binary content and invalid UTF-8 with a clear error."""
    if b"\x00" in data[:8192]:
        raise MemoryFileError(f"{path}: looks like a binary file, not Markdown; skipped")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MemoryFileError(
            f"{path}: not valid UTF-8 (byte {exc.start}); re-save it as UTF-8"
        ) from None


def decode_lenient(data: bytes, path: Path | str = "<data>") -> tuple[str, str | None]:
    """Decode memory-file bytes for reading (search, SessionStart, doctor): invalid UTF-8 is
    read with each bad byte replaced by U+FFFD, and the one-line note returned with the text
    says so, naming the file (``None`` when the bytes were valid). Binary content still
    raises :class:`MemoryFileError`. Never used to write a file back: the bytes would be lost."""
    if b"\x00" in data[:8192]:
        raise MemoryFileError(f"{path}: looks like a binary file, not Markdown; skipped")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8-sig", errors="replace")
        return text, (
            f"{path}: not valid UTF-8 (first bad byte at offset {exc.start}); read with "
            "the bad bytes shown as \ufffd, re-save it as UTF-8"
        )


def read_text(path: Path, max_bytes: int = MAX_MEMORY_FILE_BYTES) -> str:
    """Read a memory file as text, or raise :class:`MemoryFileError` saying why it cannot be."""
    return decode_text(_read_bytes(path, max_bytes), path)


def read_text_lenient(path: Path, max_bytes: int = MAX_MEMORY_FILE_BYTES) -> tuple[str, str | None]:
    """Read a memory file for showing or searching it: ``(text, note)`` where invalid UTF-8 is
    replaced and named in ``note`` (:func:`decode_lenient`). A file that cannot be read at all
    (missing, too large, no permission, binary) raises :class:`MemoryFileError`; a missing one
    raises :class:`MemoryFileMissing`, which callers usually pass over without a word."""
    return decode_lenient(_read_bytes(path, max_bytes), path)


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
            # a FIFO would block the reader (a hook) forever; a socket or device is no file
            raise MemoryFileError(f"{path}: not a regular file (a FIFO, socket or device); skipped")
        size = info.st_size
        if size > max_bytes:
            raise MemoryFileError(
                f"{path}: {size} bytes is larger than the {max_bytes}-byte limit; skipped"
            )
        return path.read_bytes()
    except MemoryFileError:
        raise
    except IsADirectoryError:
        raise MemoryFileError(f"{path}: is a directory, expected a file") from None
    except FileNotFoundError:
        if path.is_symlink():  # a dangling link is something the user made: name it
            raise MemoryFileError(
                f"{path}: a symlink to a file that does not exist; skipped"
            ) from None
        raise MemoryFileMissing(f"{path}: no such file") from None
    except PermissionError:
        raise MemoryFileError(f"{path}: permission denied; check the file's permissions") from None
    except OSError as exc:
        raise MemoryFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def open_regular(path: Path | str) -> BinaryIO:
    """Open ``path`` for reading bytes, raising :class:`OSError` unless it is a regular file.

    Why: a FIFO put where a transcript or settings file belongs would block ``open`` (and the
    hook waiting on it) until someone opened its other end; ``O_NONBLOCK`` makes the open
    return at once and the mode check turns it away."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{os.fspath(path)}: not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def is_within(path: Path, root: Path) -> bool:
    """True when ``path`` (after resolving symlinks) lies inside ``root``; a symlink loop
    (``RuntimeError`` before Python 3.13, ``OSError`` after) lies nowhere."""
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def check_memory_root(root: Path) -> None:
    """Raise when the memory root exists but is not a directory."""
    if root.exists() and not root.is_dir():
        raise MemoryFileError(
            f"{root}: the memory root is a file, not a folder; move it aside and run "
            "'conkeeper init'"
        )


def _check_target(path: Path, root: Path) -> None:
    check_memory_root(root)
    if path.is_symlink() or any(p.is_symlink() for p in path.parents if is_within(p, root)):
        if not is_within(path, root):
            raise MemoryFileError(
                f"{path}: is a symlink leading outside {root}; refusing to write through it"
            )
    elif not is_within(path.parent, root) and path.parent.exists():
        raise MemoryFileError(f"{path}: is outside the memory root {root}; refusing to write")
    if path.exists() and path.is_dir():
        raise MemoryFileError(f"{path}: is a directory, expected a file")


def file_stamp(path: Path) -> tuple[int, int] | None:
    """``(size, mtime_ns)`` of a file, or ``None`` when it does not exist."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def atomic_write(
    path: Path,
    text: str,
    *,
    root: Path,
    expected_stamp: tuple[int, int] | bool | None = False,
) -> None:
    """Replace ``path`` with ``text``, inside the memory ``root`` — the old whole-file write,
    kept for the modules still moving to :mod:`conkeeper.domain.safewrite` (new code edits the
    bytes it concerns through that module instead).

    It runs through the write path all the same: under the shared lock, journaled (``conkeeper
    undo``), carrying over what a person appends meanwhile. The real file behind an in-root
    symlink is replaced, keeping the link; permissions are preserved. When ``expected_stamp``
    is given (a value from :func:`file_stamp`, ``None`` meaning "must not exist yet"), the write
    is refused with :class:`ConcurrentEditError` if the file changed since (checked under the
    lock).
    """
    from conkeeper.domain import safewrite

    _check_target(path, root)
    target = path.resolve() if path.is_symlink() else path
    changed = ConcurrentEditError(
        f"{path}: changed on disk while ConKeeper was editing it; nothing was written, "
        "run the command again"
    )
    if expected_stamp is None and os.path.lexists(target):
        raise changed
    data = text.encode("utf-8", "surrogateescape")

    def replace(current: bytes) -> bytes:
        if expected_stamp is None and current:
            raise changed
        if expected_stamp not in (None, False) and file_stamp(target) != expected_stamp:
            raise changed
        return data

    safewrite.edit_file(
        target,
        replace,
        command="write",
        source="user-cli",
        root=root,
        follow_symlink=True,
        journal=safewrite.journal_dir_for(target),
    )


@contextlib.contextmanager
def locked(handle: IO[Any]) -> Iterator[None]:
    """Hold an exclusive advisory lock on an open file for the duration of the block."""
    fileno = handle.fileno()
    if fcntl is not None:
        fcntl.flock(fileno, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fileno, fcntl.LOCK_UN)
    else:  # pragma: no cover - Windows
        import msvcrt

        msvcrt.locking(fileno, msvcrt.LK_LOCK, 1)
        try:
            yield
        finally:
            msvcrt.locking(fileno, msvcrt.LK_UNLCK, 1)


def append_text(path: Path, text: str, *, header: str = "", root: Path | None = None) -> None:
    """Append ``text`` to ``path`` under an exclusive lock, writing ``header`` first when the file
    is new or empty. Safe for many processes appending to one file at once."""
    if root is not None:
        _check_target(path, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8", newline="") as handle, locked(handle):
        if header and handle.tell() == 0 and path.stat().st_size == 0:
            handle.write(header)
        handle.write(text)
        handle.flush()
