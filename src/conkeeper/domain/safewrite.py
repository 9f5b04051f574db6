"""The one write path for files a person owns: memory files, agent configs, the corrections queue.

Why it exists: a person edits these files too (their editor, ``echo ... >>``), hooks append to
them, and several ConKeeper commands may change one file at once. Every ConKeeper writer goes
through here, so that:

* **One lock.** Every writer takes an exclusive ``flock`` on the target file itself and checks,
  once it holds it, that the path still names the inode it locked (a writer that replaced the
  file meanwhile makes it try again). Old appenders that lock the file (``textio.append_text``)
  share the same lock, and no extra lock file appears beside the user's files.
* **Edits, never re-renders.** :func:`edit_file` reads the current bytes under the lock and hands
  them to an edit function that changes only the bytes it concerns (:func:`append_edit`,
  :func:`replace_span`, :func:`insert_after_line`, :func:`remove_line`). Work is on bytes, so
  bytes that are not UTF-8 are carried through untouched.
* **Nothing appended is lost.** The old file stays open while the new one is written; anything a
  person appended to it (which takes no lock) before or just after the rename is carried over to
  the new file, whole lines before the rename and the rest after it (a read can see half of a
  line being appended), and an in-place change or a replaced file makes the edit start again.
* **Appends are appends.** :func:`append_file` is an ``O_APPEND`` write under the lock, no rename.
* **A read limit.** No write may push a file past :data:`textio.MAX_MEMORY_FILE_BYTES`, the size
  readers accept: a file that grew past it would silently drop out of context and search.
* **A journal and undo.** Every write records its before and after bytes (an append: offset and
  bytes), the command, who asked (``source``) and when, in a bounded journal beside the files:
  ``<memory folder>/.history/`` (git-ignored by its own ``.gitignore``) for memory files, and
  ``<data home>/history/`` for anything else (agent configs). Never in the database: the bytes may
  hold private blocks. :func:`undo` restores the bytes of one write when nothing changed them
  since, or refuses with a unified diff and changes nothing; an undo is journaled too.

Standard library only and cheap to import: the hooks append through here.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import time

from conkeeper.domain.textio import MAX_MEMORY_FILE_BYTES, MemoryFileError, is_within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path
    from typing import Any

    Edit = Callable[[bytes], bytes]
    # (path, check(current) -> conflict diff or None, restore(current) -> bytes or None to
    # remove, content to recreate when the write removed the file)
    UndoPlan = tuple[
        str, Callable[[bytes | None], str | None], Callable[[bytes], bytes | None], bytes | None
    ]

try:  # POSIX advisory locks; Windows falls back to msvcrt below.
    import fcntl
except ImportError:  # pragma: no cover - exercised on Windows only
    fcntl = None  # type: ignore[assignment]  # mypy types the module as always importable

HISTORY_DIR = ".history"  # inside a memory folder
CONFIG_HISTORY_DIR = "history"  # inside the data home
MAX_ENTRIES = 200  # entries of every other writer kept per journal
MAX_APPEND_ENTRIES = 200  # hooks' compact append entries (log lines) kept per journal, apart
MAX_JOURNAL_BYTES = 64 * 1024 * 1024  # whole-file entries, oldest pruned past this
_APPEND_SUFFIX = ".a.json"
_ENTRY_SUFFIX = ".json"
_ATTEMPTS = 20
_JOURNAL_SLACK = 64 * 1024  # room a journal needs beyond its entry's bytes


class WriteError(MemoryFileError):
    """A write was refused or failed; the message is one line meant for a person."""


class AlreadyExists(WriteError):
    """:func:`create_file` found the file there already (it is never overwritten)."""


class EditConflict(WriteError):
    """The bytes an edit concerns are not in the file as expected (changed meanwhile)."""


class UndoConflict(WriteError):
    """An undo would overwrite a later change; ``diff`` shows it and nothing was changed."""

    def __init__(self, message: str, diff: str) -> None:
        super().__init__(message)
        self.diff = diff


class WriteResult:
    """What one write did: the file, the journal entry recording it, and what was carried over.

    ``entry_id`` is ``None`` when nothing changed (an edit returning the same bytes), or in the
    rare case the journal, checked before the write, failed while the entry was written;
    ``carried`` holds bytes another
    writer appended during the edit, kept after the edit's own bytes.
    """

    __slots__ = ("after", "before", "carried", "changed", "entry_id", "path")

    def __init__(
        self,
        path: str,
        entry_id: int | None,
        before: bytes | None,
        after: bytes,
        carried: bytes = b"",
        changed: bool = True,
    ) -> None:
        self.path = path
        self.entry_id = entry_id
        self.before = before
        self.after = after
        self.carried = carried
        self.changed = changed

    def __repr__(self) -> str:
        return f"WriteResult({self.path!r}, entry_id={self.entry_id}, changed={self.changed})"


# --------------------------------------------------------------------------- edit helpers


def append_edit(data: bytes) -> Edit:
    """An edit adding ``data`` at the end, after a line break if the file lacks a final one."""

    def edit(current: bytes) -> bytes:
        if current and not current.endswith((b"\n", b"\r")):
            return current + line_break(current) + data
        return current + data

    return edit


def replace_span(old: bytes, new: bytes) -> Edit:
    """An edit replacing the exact bytes ``old`` by ``new``; refuses (:class:`EditConflict`)
    when ``old`` is no longer in the file exactly once."""
    if not old:
        raise ValueError("replace_span needs the bytes to replace")

    def edit(current: bytes) -> bytes:
        count = current.count(old)
        if count != 1:
            where = "no longer in the file" if count == 0 else f"in the file {count} times"
            raise EditConflict(f"the text to change is {where}; nothing was written")
        return current.replace(old, new, 1)

    return edit


def insert_after_line(line: int, data: bytes, expected: bytes | None = None) -> Edit:
    """An edit inserting ``data`` after line ``line`` (1-based; 0 inserts at the top). With
    ``expected``, refuses unless that line still holds exactly those bytes (without its break)."""

    def edit(current: bytes) -> bytes:
        lines = current.splitlines(keepends=True)
        if line < 0 or line > len(lines):
            raise EditConflict(f"the file has no line {line} any more; nothing was written")
        if expected is not None and (line == 0 or lines[line - 1].rstrip(b"\r\n") != expected):
            raise EditConflict(f"line {line} changed meanwhile; nothing was written")
        head = b"".join(lines[:line])
        if head and not head.endswith((b"\n", b"\r")):
            head += line_break(current)
        return head + data + b"".join(lines[line:])

    return edit


def remove_line(expected: bytes, near: int | None = None) -> Edit:
    """An edit removing one line equal to ``expected`` (compared without its line break): the
    one nearest line ``near`` (1-based) when there are several. Nothing happens when no such line
    is left (someone removed it already)."""
    want = expected.rstrip(b"\r\n")

    def edit(current: bytes) -> bytes:
        lines = current.splitlines(keepends=True)
        found = [i for i, text in enumerate(lines) if text.rstrip(b"\r\n") == want]
        if not found:
            return current
        target = near - 1 if near is not None else found[0]
        index = min(found, key=lambda i: (abs(i - target), i))
        return b"".join(lines[:index] + lines[index + 1 :])

    return edit


def text_edit(change: Callable[[str], str]) -> Edit:
    """An edit made by a text function that keeps every character it does not concern (such as
    :func:`conkeeper.domain.categories.insert_line_after`): the bytes are decoded with
    ``surrogateescape`` (bytes that are not UTF-8 come back unchanged) and a UTF-8 BOM is set
    aside while ``change`` runs."""

    def edit(current: bytes) -> bytes:
        bom = b"\xef\xbb\xbf" if current.startswith(b"\xef\xbb\xbf") else b""
        text = current[len(bom) :].decode("utf-8", "surrogateescape")
        return bom + change(text).encode("utf-8", "surrogateescape")

    return edit


def line_break(current: bytes) -> bytes:
    """The file's own line break: the one most of its lines end with (CRLF, LF or a lone CR,
    an old Mac file's; CRLF, then LF on a tie), LF for a file with none. An LF file holding
    one pasted CRLF line stays an LF file."""
    crlf = current.count(b"\r\n")
    if not crlf and b"\r" not in current:
        return b"\n"
    counts = {b"\r\n": crlf, b"\n": current.count(b"\n") - crlf, b"\r": current.count(b"\r") - crlf}
    return max(counts, key=lambda brk: counts[brk])


# --------------------------------------------------------------------------- locking


def _lock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
    else:  # pragma: no cover - Windows
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)


def _same_file(fd: int, target: str) -> bool:
    try:
        now = os.stat(target)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (now.st_ino, now.st_dev) == (held.st_ino, held.st_dev)


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOT_REGULAR = "{target}: not a regular file (a FIFO, socket or device); nothing written"


def _open_locked(target: str, flags: int, mode: int = 0o644) -> int:
    """Open ``target`` and hold the exclusive lock on the inode the path names once locked."""
    for _ in range(1000):
        # O_NONBLOCK: a FIFO put where a memory file belongs must not hang a hook on open
        try:
            fd = os.open(target, flags | getattr(os, "O_CLOEXEC", 0) | _NONBLOCK, mode)
        except OSError as exc:
            if exc.errno == errno_codes().ENXIO:  # a FIFO nobody reads, opened for writing
                raise WriteError(_NOT_REGULAR.format(target=target)) from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise WriteError(_NOT_REGULAR.format(target=target))
            _lock(fd)
            if _same_file(fd, target):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # replaced or removed while we waited: lock the file the path names now
    raise WriteError(f"{target}: kept being replaced while ConKeeper waited for it; try again")


def _read_from(fd: int, offset: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _append_whole(fd: int, data: bytes, reader: int | None = None) -> None:
    """Append ``data`` through ``fd`` (``O_APPEND``) whole or not at all: a write that fails
    part way (a full disk, a file size limit) takes back the part it wrote, when it is still
    the file's end, so no half entry is left in a person's file, unjournaled and glued to the
    next line they append. ``reader``: a readable descriptor of the same file (default
    ``fd``)."""
    written = 0
    try:
        while written < len(data):
            written += os.write(fd, data[written:])
    except OSError:
        if written:
            with contextlib.suppress(OSError):
                _take_back(fd, reader if reader is not None else fd, data[:written])
        raise


def _follow_replacement(fd: int, target: str, written: bytes) -> None:
    """After an append: when a person's editor saved the file by renaming a new one over it
    while the lock was held (editors take no lock), the lines went to a file no path names any
    more; add those the new file lacks to it."""
    if not _same_file(fd, target):
        _append_missing(target, [line for line in written.splitlines() if line.strip()])


def _take_back(fd: int, reader: int, part: bytes) -> None:
    """Cut ``part`` off the end of the file when it is what the file ends with."""
    size = os.fstat(reader).st_size
    if size >= len(part) and os.pread(reader, len(part), size - len(part)) == part:
        os.ftruncate(fd, size - len(part))


# --------------------------------------------------------------------------- targets


def _resolve_target(path: Path | str, root: Path | str | None, follow_symlink: bool) -> str:
    """The file to write (absolute): ``path`` itself, or what an allowed symlink points to."""
    text = os.path.abspath(os.fspath(path))
    if root is not None:
        root_text = os.fspath(root)
        if os.path.exists(root_text) and not os.path.isdir(root_text):
            raise WriteError(
                f"{root_text}: the memory root is a file, not a folder; move it aside and run "
                "'conkeeper init'"
            )
    if os.path.islink(text):
        real = os.path.realpath(text)
        inside = root is not None and _within(real, root)
        if not (follow_symlink or inside):
            where = f" leading outside {os.fspath(root)}" if root is not None else ""
            raise WriteError(
                f"{text}: is a symlink{where}; refusing to replace it with a copy or write "
                "through it (ask to write through the link explicitly)"
            )
        text = real
    elif root is not None and not follow_symlink:
        parent = os.path.dirname(os.path.abspath(text))
        if os.path.exists(parent) and not _within(parent, root):
            raise WriteError(f"{text}: is outside the memory root {os.fspath(root)}; refusing")
    if os.path.isdir(text):
        raise WriteError(f"{text}: is a directory, expected a file")
    return text


def _within(path: str, root: Path | str) -> bool:
    from pathlib import Path

    return is_within(Path(path), Path(os.fspath(root)))


def check_room(target: Path | str, size: int, limit: int = MAX_MEMORY_FILE_BYTES) -> None:
    """Refuse (:class:`WriteError`) a change that would make ``target`` ``size`` bytes, past
    the read limit: what every write checks, also for an edit to call first, before costly
    work on a file it could never add to (a 20 MB file took ``remember`` 15 s to refuse)."""
    _check_limit(os.fspath(target), size, limit)


def _check_limit(target: str, size: int, limit: int) -> None:
    if size > limit:
        raise WriteError(
            f"{target}: this change would make the file {size} bytes, past the {limit}-byte "
            "limit ConKeeper reads; nothing was written (split the file or shorten the entry)"
        )


# --------------------------------------------------------------------------- writes


def edit_file(
    path: Path | str,
    edit: Edit,
    *,
    command: str,
    source: str,
    root: Path | str | None = None,
    follow_symlink: bool = False,
    limit: int = MAX_MEMORY_FILE_BYTES,
    journal: Path | str | None = None,
    mode: int | None = None,
) -> WriteResult:
    """Change ``path`` by ``edit(current_bytes) -> new_bytes`` under the shared lock, atomically.

    A missing file is edited from ``b""`` and created. The new bytes go to a temporary file
    beside it (fsync'd, the old file's permissions), which replaces the old one by rename; bytes
    another writer appended to the old file meanwhile are carried over; an old file changed in
    place or replaced meanwhile makes the edit start again from the new bytes. ``root`` is the
    memory folder (symlinks leading out of it refused; journal in its ``.history``). ``mode``:
    the permissions of a file this write creates (set before it appears under its name; an
    existing file keeps its own). Raises :class:`WriteError` (or :class:`EditConflict` from the
    edit) with nothing written.
    """
    target = _resolve_target(path, root, follow_symlink)
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    folder = journal_folder(target, root, journal)
    sweep_temps(os.path.dirname(os.path.abspath(target)))
    if root is not None:
        sweep_tree(root)
    rescued: list[bytes] = []  # lines of a person's rename-saves this edit had to put back
    intent = _Intent(folder, command, source, target)
    for _ in range(_ATTEMPTS):
        outcome = _try_edit(target, edit, limit, rescued, intent, mode)
        if outcome is None:
            continue
        if rescued:
            _rescue_lines(target, rescued)
        before, after, carried, changed, appended_at = outcome
        entry_id = intent.complete(before, after, appended_at) if changed else None
        return WriteResult(target, entry_id, before, after, carried, changed)
    raise WriteError(f"{target}: kept changing while ConKeeper edited it; run the command again")


def _try_edit(
    target: str,
    edit: Edit,
    limit: int,
    rescued: list[bytes],
    intent: _Intent,
    mode: int | None = None,
) -> tuple[bytes | None, bytes, bytes, bool, int | None] | None:
    """One attempt: ``(before, after, carried, changed, appended_at)``, or ``None`` when the
    file changed under us (try again). ``appended_at`` is the offset when the edit only added
    bytes at the end, written as an append (no rename: nothing a person appends can be lost)."""
    created = False
    try:
        fd = _open_locked(target, os.O_RDONLY)
    except FileNotFoundError:
        with contextlib.suppress(_CannotLink):
            return _create_whole(target, edit, limit, intent, mode)
        try:
            fd = os.open(target, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            return None
        _lock(fd)
        if not _same_file(fd, target):
            os.close(fd)
            return None
        created = True
        if mode is not None:
            os.fchmod(fd, mode)
    try:
        if not created:
            _check_writable(fd, target)
        current = _read_from(fd, 0)
        _refuse_binary(target, current[:_BINARY_HEAD])
        try:
            new = edit(current)
        except BaseException:
            if created and not current:
                _unlink_if_same(fd, target)
            raise
        if new == current:
            if created:
                _unlink_if_same(fd, target)
                return (None, b"", b"", False, None)
            return (current, current, b"", False, None)
        if len(new) > len(current):  # a shrinking edit of an oversized file stays possible
            _check_limit(target, len(new), limit)
        if current and new.startswith(current):
            now = _append_tail(fd, target, current, new[len(current) :], limit, intent)
            if now is None:
                return None
            return now
        if not created and _in_place(os.fstat(fd)):
            return _edit_in_place(fd, target, current, new, intent)
        # A file this edit created is held open for writing by this very process, so no lease
        # could ever be had on it: nobody else had it open to wait for.
        try:
            carried = _replace(fd, target, current, new, limit, rescued, intent, created)
        except _KeepInPlace:
            return _edit_in_place(fd, target, current, new, intent)
        if carried is None:
            return None
        before = None if created else current + carried
        return (before, new + carried, carried, True, None)
    finally:
        os.close(fd)


class _KeepInPlace(Exception):
    """The temporary file cannot be given the old file's owner or extended attributes: the
    file is written in place instead (its inode, and all it carries, kept)."""


def _in_place(held: os.stat_result) -> bool:
    """Whether a whole-file write must keep the file's inode and write into it, as vim's
    ``backupcopy=auto`` does: a hard link the person made on purpose (a rename would leave the
    other name on the old bytes, the two silently apart from then on), or a file of another
    owner this process cannot give a new file to (it would change hands)."""
    if held.st_nlink > 1:
        return True
    uid = os.geteuid() if hasattr(os, "geteuid") else held.st_uid
    return uid != 0 and held.st_uid != uid


def _keep_identity(fd: int, out: int, held: os.stat_result) -> None:
    """Give the temporary file ``out`` the old file's owner, group and extended attributes (a
    POSIX ACL, an SELinux label, a person's ``user.*`` tags): a rename otherwise leaves a root
    run's edit owned by root and drops them. :class:`_KeepInPlace` when one cannot be given."""
    own = os.fstat(out)
    try:
        if (own.st_uid, own.st_gid) != (held.st_uid, held.st_gid):
            os.fchown(out, held.st_uid, held.st_gid)
        names = os.listxattr(fd) if hasattr(os, "listxattr") else []
    except OSError as exc:
        if exc.errno in (errno_codes().ENOTSUP, errno_codes().EOPNOTSUPP):
            return  # a file system with no extended attributes: nothing to keep
        raise _KeepInPlace from None
    for name in names:
        try:
            os.setxattr(out, name, os.getxattr(fd, name))
        except OSError:
            raise _KeepInPlace from None


def _edit_in_place(
    fd: int, target: str, current: bytes, new: bytes, intent: _Intent
) -> tuple[bytes | None, bytes, bytes, bool, int | None] | None:
    """Write ``new`` into the locked file itself (from the first byte that differs, then cut
    to length, fsync'd) rather than renaming a new file over it (:func:`_in_place`). The
    journal entry is stored, pending, first: a kill mid-write leaves an entry ``undo``
    restores the old bytes from. ``None`` (start again) when the file changed meanwhile."""
    try:
        out = os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | _NONBLOCK)
    except PermissionError:
        raise WriteError(f"{target}: not writable by this user; nothing was written") from None
    try:
        if not _same_file(out, target) or os.fstat(out).st_ino != os.fstat(fd).st_ino:
            return None
        intent.pending(current, new)
        seam("in-place")
        # Checked last: a change made through another name (or by an editor writing in place)
        # since the read makes the edit start again. Design limit: one made in the few
        # microseconds between this check and the write below is overwritten (no file system
        # offers a compare-and-write; a rename-save is not at risk, it makes a new inode).
        if os.pread(fd, len(current) + 1, 0) != current:
            intent.abandon()
            return None
        done = _common_prefix(current, new)
        while done < len(new):
            done += os.pwrite(out, new[done:], done)
        if len(new) < len(current):
            os.ftruncate(out, len(new))
        os.fsync(out)
        return (current, new, b"", True, None)
    finally:
        os.close(out)


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many leading bytes ``a`` and ``b`` share (compared 64 KB at a time, then byte by
    byte in the block that differs)."""
    size, at, step = min(len(a), len(b)), 0, 65536
    while at < size and a[at : at + step] == b[at : at + step]:
        at += step
    at = min(at, size)
    while at < size and a[at] == b[at]:
        at += 1
    return at


class _CannotLink(OSError):
    """The file system cannot hard-link: the file is created empty, then replaced."""


def _create_whole(
    target: str, edit: Edit, limit: int, intent: _Intent, mode: int | None = None
) -> tuple[bytes | None, bytes, bytes, bool, int | None] | None:
    """Create a missing ``target`` whole: ``edit(b"")`` goes to a locked temporary file that is
    hard-linked to the path (which fails when someone created it meanwhile: ``None``, start
    again), so the path never names an empty file. Found killing ``decisions new`` before its
    rename: the file was created empty first, stayed empty for good, and the next run wrote
    ``ADR-002`` beside an empty ``ADR-001``. :class:`_CannotLink` where links are not supported.
    ``mode``: the new file's permissions, set before it has its name (a private file restored
    by an import is never readable by others, not even for a moment)."""
    new = edit(b"")
    if not new:
        return (None, b"", b"", False, None)
    _check_limit(target, len(new), limit)
    tmp = _temp_name(target)
    out = _open_temp(tmp, target, 0o644)
    try:
        _lock(out)  # held until this write is done: a writer that opens the new file waits
        _write_all(out, new)
        if mode is not None:
            os.fchmod(out, mode)
        os.fsync(out)
        intent.pending(None, new)
        seam("renaming")
        try:
            os.link(tmp, target)
        except FileExistsError:
            intent.abandon()
            return None
        except OSError as exc:
            intent.abandon()
            raise _CannotLink(exc.errno, exc.strerror) from None
        seam("written")
        return (None, new, b"", True, None)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        os.close(out)


_BINARY_HEAD = 8192  # how much of a file is looked at for NUL bytes, as the readers do
_UTF16_32_BOMS = (b"\xff\xfe", b"\xfe\xff")  # also the start of UTF-32 LE's BOM


def _refuse_binary(target: str, head: bytes) -> None:
    """Refuse (:class:`WriteError`, nothing written) a file whose first bytes hold a NUL or a
    UTF-16/UTF-32 byte order mark: every reader skips it as "not Markdown", and UTF-8 lines
    added to it would be garbage in the person's editor. Found appending an entry to a
    memory file a Windows editor saved as UTF-16: "Saved", and the file no longer decoded."""
    if head.startswith(_UTF16_32_BOMS):
        raise WriteError(
            f"{target}: is UTF-16 or UTF-32 text, not UTF-8; re-save it as UTF-8. Nothing was "
            "written"
        )
    if b"\x00" in head:
        raise WriteError(
            f"{target}: holds NUL bytes (a binary file, or text not saved as UTF-8); nothing "
            "was written"
        )


def _check_writable(fd: int, target: str) -> None:
    """Refuse a file the person made read-only (no write bit, or none for this user): the
    rename that replaces it needs only the folder's permission, so without this check a
    ``chmod a-w`` was ignored (and the file changed owner). Found attacking ``tag`` from
    outside."""
    mode = os.fstat(fd).st_mode
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(target, os.W_OK):
        raise WriteError(
            f"{target}: is read-only; nothing was written (make it writable to let ConKeeper "
            "change it)"
        )


def _append_tail(
    fd: int, target: str, current: bytes, tail: bytes, limit: int, intent: _Intent
) -> tuple[bytes | None, bytes, bytes, bool, int | None] | None:
    """Append ``tail`` (what an edit added at the end of ``current``) to the locked file, after
    anything a person appended since it was read (a line break between when their text lacks
    one); ``None`` (nothing written) when the file was changed in place or replaced."""
    out = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    try:
        same = os.fstat(out)
        held = os.fstat(fd)
        if (same.st_ino, same.st_dev) != (held.st_ino, held.st_dev):
            return None
        now = current
        if held.st_size != len(current):
            if _last_line_grew(fd, current):  # the edit's tail was made for a shorter line
                return None
            now = _read_from(fd, 0)
            if not now.startswith(current) or _last_line_grew(fd, now):
                return None  # changed in place, or read while a line was half written
            if not now.endswith((b"\n", b"\r")):
                tail = line_break(now) + tail
        _check_limit(target, len(now) + len(tail), limit)
        intent.pending(now, now + tail, len(now))
        try:
            _append_whole(out, tail, fd)
        except BaseException:
            intent.abandon()
            raise
        seam("written")
        _follow_replacement(fd, target, tail)
        return (now, now + tail, now[len(current) :], True, len(now))
    finally:
        os.close(out)


def _unlink_if_same(fd: int, target: str) -> None:
    if _same_file(fd, target) and os.fstat(fd).st_size == 0:
        os.unlink(target)


def _replace(
    fd: int,
    target: str,
    current: bytes,
    new: bytes,
    limit: int,
    rescued: list[bytes],
    intent: _Intent,
    created: bool = False,
) -> bytes | None:
    """Write ``new`` over ``target`` (locked through ``fd``, read as ``current``); return the
    bytes carried over from concurrent appends, or ``None`` when the old file was changed in
    place or replaced (nothing written; the lines of a person's save that raced the rename are
    added to ``rescued``). The journal entry is stored, pending, before the rename. A file this
    edit ``created`` is held open for writing by this very process, so no lease could ever be
    had on it (nobody else had it open to wait for)."""
    held = os.fstat(fd)
    _renameat2()  # looked up now (ctypes takes ms), not between the last check and the rename
    tmp = _temp_name(target)
    out = _open_temp(tmp, target, 0o600)
    try:
        _lock(out)  # the new inode is ours until the old one's waiters see it
        _write_all(out, new)
        seen = len(current)
        carried = b""
        while True:  # carry over the lines a person appended to the old file meanwhile
            tail = _whole_lines(_read_from(fd, seen))
            if not tail:
                break
            _check_limit(target, len(new) + len(carried) + len(tail), limit)
            _write_all(out, tail)
            carried += tail
            seen += len(tail)
        _keep_identity(fd, out, held)
        os.fchmod(out, held.st_mode & 0o7777)  # after fchown, which clears set-id bits
        os.fsync(out)
        tail = _whole_lines(_read_from(fd, seen))  # appended while the new file was flushed
        if tail:
            _check_limit(target, len(new) + len(carried) + len(tail), limit)
            _write_all(out, tail)
            carried += tail
            seen += len(tail)
            os.fsync(out)
        intent.pending(None if created else current + carried, new + carried)
        # Checked last, right before the rename: a person's editor that saved by renaming its
        # own file over this one meanwhile must not be overwritten, and a last line read while
        # a person was still writing it must be read whole (either way the edit starts again).
        if (
            os.pread(fd, len(current), 0) != current
            or not _same_file(fd, target)
            or _last_line_grew(fd, current)
        ):
            intent.abandon()
            os.close(out)
            os.unlink(tmp)
            return None
        seam("renaming")
        if not _swap_in(tmp, target, fd, out, current + b"\n" + new, rescued):
            intent.abandon()
            os.close(out)
            return None
        seam("written")
        if _hand_back(fd, target, out, held, current + carried, new + carried):
            intent.abandon()  # the person's text is back in place: the edit starts again on it
            os.close(out)
            return None
        late = _drain_old(fd, seen, not created)  # through a handle opened before the rename
        if _rewritten_in_place(fd, current + carried, current + b"\n" + new, rescued):
            late = b""  # what lies past ``seen`` is the end of their new text, not an append
        if late:  # O_APPEND: a person may be appending to the new file by now
            if fcntl is not None:
                fcntl.fcntl(out, fcntl.F_SETFL, fcntl.fcntl(out, fcntl.F_GETFL) | os.O_APPEND)
            else:  # pragma: no cover - Windows
                os.lseek(out, 0, os.SEEK_END)
            _write_all(out, late)
            carried += late
            os.fsync(out)
        os.close(out)
        return carried
    except BaseException as exc:
        if not os.path.exists(tmp):
            with contextlib.suppress(OSError):
                os.close(out)
            raise
        intent.abandon()  # the temp file still there: the rename never happened
        _discard_temp(tmp, out)
        if _read_only(exc):  # the folder was made read-only since the temp file was made
            raise _read_only_folder(target) from None
        raise


def _hand_back(
    fd: int, target: str, out: int, held: os.stat_result, read: bytes, written: bytes
) -> bool:
    """Put back, in place of this edit's file, the text a person saved in place (truncate, then
    write) into the file this edit just replaced, through a handle opened before the rename;
    whether it was put back (the edit then starts again on it, so the result is the person's
    text with this edit's change, their lines where they wrote them).

    Why: their text went to the file the rename replaced. Adding the lines it lacks at the end
    of this edit's file breaks any file whose lines are not a list: a JSON member after the
    closing brace, a TOML key under ConKeeper's own table. Only a whole save is put back (it
    ends with a line break), and only while this edit's file is in place as written (locked by
    this process; anything else and the lines are rescued as before)."""
    if os.pread(fd, len(read), 0) == read:
        return False  # not rewritten in place (an append, or nothing)
    saved = _read_from(fd, 0)
    if not saved.endswith((b"\n", b"\r")) or saved == read:
        return False
    if not _same_file(out, target) or _read_path(target) != written:
        return False
    tmp = _temp_name(target)
    back = _open_temp(tmp, target, 0o600)
    try:
        _write_all(back, saved)
        _keep_identity(fd, back, held)
        os.fchmod(back, held.st_mode & 0o7777)
        os.fsync(back)
    except _KeepInPlace:  # no file like the person's can be made: their lines are rescued
        _discard_temp(tmp, back)
        return False
    except BaseException:
        _discard_temp(tmp, back)
        raise
    os.close(back)
    if not _same_file(out, target):
        os.unlink(tmp)
        return False
    os.replace(tmp, target)
    return True


def _rewritten_in_place(fd: int, read: bytes, known: bytes, rescued: list[bytes]) -> bool:
    """Whether the replaced file no longer starts with the bytes this edit read (and carried):
    a person's save that rewrote it in place (truncate, then write: ``>``, many editors) through
    a handle opened just before the rename. Their text went to the file this edit replaced, so
    its lines this edit neither read nor wrote go to ``rescued`` (the edit makes sure the file
    holds them once it is done); the bytes past the old length are the tail of that text, never
    an append to carry over."""
    if os.pread(fd, len(read), 0) == read:
        return False
    for line in _added_lines(_read_from(fd, 0), known):
        if line.strip() and line not in rescued:
            rescued.append(line)
    return True


def _whole_lines(data: bytes) -> bytes:
    """``data`` up to its last line feed: the lines a person finished appending.

    A read racing a person's append can see part of it (the file's size moves page by page
    while a write is copied in). Carrying such a fragment to the new file before the rename
    would let the person's next line, appended to the new file, land in the middle of the torn
    one; the rest is carried after the rename instead, once it is whole (:func:`_drain_old`)."""
    end = data.rfind(b"\n")
    return data[: end + 1] if end >= 0 else b""


def _last_line_grew(fd: int, current: bytes) -> bool:
    """Whether bytes were appended to a file whose read ended inside a line: they continue that
    line, which the edit may have moved, so the edit starts again from whole bytes."""
    if not current or current.endswith((b"\n", b"\r")):
        return False
    return os.fstat(fd).st_size > len(current)


_RENAME_EXCHANGE = 2  # renameat2(2) flag (Linux)
_AT_FDCWD = -100
_RENAMEAT2: list[Any] = []  # [function or None], looked up once


def _renameat2() -> Any:
    if not _RENAMEAT2:
        found = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                libc = ctypes.CDLL(None, use_errno=True)
                found = getattr(libc, "renameat2", None)
            except (OSError, AttributeError):  # pragma: no cover - no glibc
                found = None
        _RENAMEAT2.append(found)
    return _RENAMEAT2[0]


def _swap_in(tmp: str, target: str, fd: int, out: int, known: bytes, rescued: list[bytes]) -> bool:
    """Put ``tmp`` (open as ``out``) in place of ``target`` (locked as ``fd``); ``False``, with
    ``tmp`` removed and the person's file back in place, when ``target`` no longer names the
    locked file.

    A person's editor saving by rename takes no lock, so it may replace ``target`` between the
    last check and the rename. On Linux the two names are exchanged atomically
    (``RENAME_EXCHANGE``) and the file that comes out is checked: if it is not the one locked
    and read, it is the person's new save and is swapped back. For that short moment this
    edit's bytes were in place, and the person's editor may have read them and save again
    from them, without the lines of its first save. So the lines the person's saves added
    (those neither read nor written here, ``known``) go to ``rescued``, which the edit makes
    sure the file holds once it is done; a short pause lets such a save land first.
    Elsewhere a plain rename."""
    exchange = _renameat2()
    if exchange is None:
        os.replace(tmp, target)
        return True
    if exchange(_AT_FDCWD, os.fsencode(tmp), _AT_FDCWD, os.fsencode(target), _RENAME_EXCHANGE):
        import ctypes

        errno_value = ctypes.get_errno()
        if errno_value in (errno_codes().EINVAL, errno_codes().ENOSYS, errno_codes().EXDEV):
            os.replace(tmp, target)  # a file system without exchange
            return True
        if errno_value == errno_codes().ENOENT:  # the person removed it: start again
            os.unlink(tmp)
            return False
        raise OSError(errno_value, os.strerror(errno_value), target)
    if _same_file(fd, tmp):  # what came out is the file we locked and read: done
        os.unlink(tmp)
        return True
    # A person's save came out: put it back at once. What comes out now is this edit's file,
    # or a second save the person's editor made from it meanwhile.
    if exchange(_AT_FDCWD, os.fsencode(tmp), _AT_FDCWD, os.fsencode(target), _RENAME_EXCHANGE):
        return False  # the person removed or renamed the file themselves: their choice stands
    saved = _read_path(target)
    if not _same_file(out, tmp):
        saved += b"\n" + _read_path(tmp)
    for line in _added_lines(saved, known):
        if line.strip() and line not in rescued:
            rescued.append(line)
    with contextlib.suppress(OSError):
        os.unlink(tmp)
    time.sleep(0.02)  # the person's editor is saving right now: let that save land first
    return False


def _read_path(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _added_lines(saved: bytes, base: bytes) -> list[bytes]:
    """The lines of ``saved`` that ``base`` does not hold (as many times as they are extra)."""
    have: dict[bytes, int] = {}
    for line in base.splitlines():
        have[line] = have.get(line, 0) + 1
    added: list[bytes] = []
    for line in saved.splitlines():
        if have.get(line, 0) > 0:
            have[line] -= 1
        else:
            added.append(line)
    return added


RESCUE_CHECKS = (0.0, 0.05, 0.25)  # seconds after the edit the rescued lines are checked


def _rescue_lines(target: str, lines: list[bytes]) -> None:
    """Make sure ``target`` holds the lines of a person's save this edit had to swap back, now
    and twice more shortly after: their editor may have read this edit's file in the moment it
    was in place and save from it later, without those lines (only after such a collision)."""
    for delay in RESCUE_CHECKS:
        time.sleep(delay)
        _append_missing(target, lines)


def _append_missing(target: str, lines: list[bytes]) -> None:
    """Append to ``target`` whichever of ``lines`` it lacks, until the file the path names holds
    them all (a person's editor may replace it again meanwhile; bounded)."""
    for _ in range(100):
        try:
            handle = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except FileNotFoundError:
            return
        try:
            current = _read_from(handle, 0)
            missing = _added_lines(b"\n".join(lines), current)
            if not missing:
                return
            brk = line_break(current)
            lead = b"" if not current or current.endswith((b"\n", b"\r")) else brk
            _append_whole(handle, lead + brk.join(missing) + brk)
            if _same_file(handle, target):
                return
        finally:
            os.close(handle)


def errno_codes() -> Any:
    """The ``errno`` module, imported when first needed."""
    import errno

    return errno


DRAIN_SECONDS = 5.0  # the longest an edit waits for a person's open handle on the old file


def _drain_old(fd: int, seen: int, wait: bool = True) -> bytes:
    """Bytes written to the replaced file after offset ``seen``, waiting (bounded) until no
    other process holds it open, so a person's ``>>`` that opened it just before the rename and
    writes just after is carried over too.

    "Nobody else holds it open for writing" is asked of the kernel with a read lease (Linux
    ``F_SETLEASE``, refused while any handle can write to the file, released at once): a
    person's script that keeps its ``open(path, 'a')`` across seconds of writes is waited for
    (up to :data:`DRAIN_SECONDS`), a reader such as ``tail -f`` is not. Where leases are not
    available, or the file has other names, the bytes written so far are taken once.
    """
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)  # writers queued on the old file move to the new one
    late = b""
    setlease = getattr(fcntl, "F_SETLEASE", None)
    if not wait or setlease is None or os.fstat(fd).st_nlink != 0:
        return _read_from(fd, seen)
    deadline = time.monotonic() + DRAIN_SECONDS
    while True:
        chunk = _read_from(fd, seen + len(late))
        late += chunk
        try:
            fcntl.fcntl(fd, setlease, fcntl.F_RDLCK)
        except OSError as exc:
            import errno

            if exc.errno not in (errno.EAGAIN, errno.EBUSY) or time.monotonic() > deadline:
                return late + _read_from(fd, seen + len(late))
            time.sleep(0.002)  # a person's handle is still open: let their write land
            continue
        fcntl.fcntl(fd, setlease, fcntl.F_UNLCK)
        return late + _read_from(fd, seen + len(late))


_TEMP_COUNTER = [0]
TEMP_SUFFIX = ".conkeeper-tmp"


def _open_temp(tmp: str, target: str, mode: int) -> int:
    """Create the temporary file a whole-file write goes through, beside ``target``. A folder
    the person made read-only (or a read-only file system) refuses it: one line naming the
    folder, nothing written, before any journal entry is stored. Found probing a read-only
    memory folder: an entry placed under its heading failed as ``remember failed:
    PermissionError ... .conkeeper-tmp``, the look of a crash."""
    try:
        return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    except OSError as exc:
        if not _read_only(exc):
            raise
        raise _read_only_folder(target) from None


def _read_only(exc: BaseException) -> bool:
    """Whether ``exc`` is a folder (or file system) refusing a change: no permission, or
    read-only."""
    codes = errno_codes()
    return isinstance(exc, OSError) and exc.errno in (codes.EACCES, codes.EPERM, codes.EROFS)


def _read_only_folder(target: str) -> WriteError:
    """The one line for a memory folder that refuses a write: it names the folder and says
    nothing was written."""
    return WriteError(
        f"{os.path.dirname(os.path.abspath(target))}: the folder is read-only; nothing was "
        f"written to {os.path.basename(target)} (make the folder writable to let ConKeeper "
        "change it)"
    )


def _discard_temp(tmp: str, out: int) -> None:
    """Remove the temporary file of a write that never reached its rename, then close it. In
    a folder made read-only meanwhile no file can be removed: its bytes go (emptied through
    the handle still open), and the empty file, ConKeeper's temporary name, is swept by the
    next write once the folder is writable again (:func:`sweep_temps`). Found by write probe
    9: the failed removal was raised in place of the rename's refusal, a crash's look."""
    try:
        os.unlink(tmp)
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(out, 0)
    with contextlib.suppress(OSError):
        os.close(out)


def _temp_name(target: str) -> str:
    _TEMP_COUNTER[0] += 1
    folder, name = os.path.split(target)
    return os.path.join(folder, f".{name}.{os.getpid()}.{_TEMP_COUNTER[0]}{TEMP_SUFFIX}")


def sweep_temps(folder: str) -> list[str]:
    """Remove the temporary files (``.NAME.PID.N.conkeeper-tmp``) that writers killed before
    their rename left in ``folder``; the names removed. Only ConKeeper's own name, only when
    the process that made it is gone and nobody holds its lock (a writer locks its temporary
    file until it is renamed): its bytes never replaced the person's file, so nothing of theirs
    goes with it. Found killing ``remember`` mid-rename: the file stayed in the memory folder
    and was committed with it."""
    try:
        names = [n for n in os.listdir(folder) if n.startswith(".") and n.endswith(TEMP_SUFFIX)]
    except OSError:
        return []
    return _sweep_names(folder, names)


def sweep_tree(root: Path | str) -> list[str]:
    """:func:`sweep_temps` over ``root`` and every folder below it (dot-folders such as
    ``.history`` left out, symlinked folders not followed); the paths removed. A write killed
    between linking a new file to its name and removing the temporary name leaves a second
    name of the new file (``decisions/.ADR-001-….conkeeper-tmp``): any later write in the
    memory folder, and ``doctor``, take it away, not only a write in that folder."""
    removed: list[str] = []
    for folder, dirs, _files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        removed.extend(os.path.join(folder, name) for name in sweep_temps(folder))
    return removed


def _sweep_names(folder: str, names: list[str]) -> list[str]:
    """:func:`sweep_temps` over ``names`` (already listed, filtered or not)."""
    removed = []
    for name in names:
        if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
            continue
        parts = name[: -len(TEMP_SUFFIX)].rsplit(".", 2)
        if len(parts) != 3 or not (parts[1].isdigit() and parts[2].isdigit()):
            continue
        if _alive(int(parts[1])) or not _unlink_unlocked(os.path.join(folder, name)):
            continue
        removed.append(name)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def _unlink_unlocked(path: str) -> bool:
    """Remove ``path`` (a regular file, never followed) when no process holds its lock."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if not _same_file(fd, path):
            return False
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def append_file(
    path: Path | str,
    data: bytes,
    *,
    command: str,
    source: str,
    header: bytes = b"",
    root: Path | str | None = None,
    follow_symlink: bool = False,
    limit: int = MAX_MEMORY_FILE_BYTES,
    journal: Path | str | None = None,
) -> WriteResult:
    """Append ``data`` to ``path`` with one ``O_APPEND`` write under the shared lock (no
    rename), writing ``header`` first when the file is missing or empty. Journaled compactly
    (offset and bytes), so the hook's per-line append stays cheap. ``WriteResult.before`` is
    ``None`` and ``after`` the bytes written."""
    target = _resolve_target(path, root, follow_symlink)
    folder = journal_folder(target, root, journal, len(header) + len(data))
    try:
        fd = _open_locked(target, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        fd = _open_locked(target, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    try:
        offset = os.fstat(fd).st_size
        if offset:
            _refuse_binary(target, os.pread(fd, _BINARY_HEAD, 0))
        payload = header + data if offset == 0 else _break_before(fd, offset) + data
        _check_limit(target, offset + len(payload), limit)
        intent = _Intent(folder, command, source, target)
        intent.pending(None, payload, offset)
        try:
            _append_whole(fd, payload)
        except BaseException:
            intent.abandon()
            raise
        seam("written")
        _follow_replacement(fd, target, payload)
        entry_id = intent.complete(None, payload, offset)
    finally:
        os.close(fd)
    return WriteResult(target, entry_id, None, payload)


def _break_before(fd: int, size: int) -> bytes:
    """The line break to put first when the file's last line has none (a note the person typed
    without one): glued on, their line was changed and a hook's queue line could no longer be
    read. Found attacking the hooks' appends from outside; the read is of the last 4 KiB."""
    tail = os.pread(fd, min(size, 4096), size - min(size, 4096))
    return b"" if tail.endswith((b"\n", b"\r")) else line_break(tail)


def create_file(
    path: Path | str,
    data: bytes,
    *,
    command: str,
    source: str,
    root: Path | str | None = None,
    limit: int = MAX_MEMORY_FILE_BYTES,
    journal: Path | str | None = None,
    mode: int | None = None,
) -> WriteResult:
    """Create ``path`` holding ``data`` (with permissions ``mode`` when given); refuses
    (:class:`WriteError`) when it exists, so an existing file is never overwritten silently. An
    empty file that exists counts as existing."""
    target = _resolve_target(path, root, False)
    if os.path.lexists(target):
        raise AlreadyExists(f"{target}: already exists; ConKeeper does not overwrite it")

    def edit(current: bytes) -> bytes:
        if current:
            raise AlreadyExists(f"{target}: was created meanwhile; ConKeeper does not overwrite it")
        return data

    return edit_file(
        target,
        edit,
        command=command,
        source=source,
        root=root,
        limit=limit,
        journal=journal,
        mode=mode,
    )


def delete_file(
    path: Path | str,
    expected: bytes,
    *,
    command: str,
    source: str,
    root: Path | str | None = None,
    journal: Path | str | None = None,
) -> WriteResult:
    """Remove ``path`` under the lock, only while it holds exactly ``expected`` (journaled, so
    undo brings it back); refuses with :class:`EditConflict` otherwise."""
    target = _resolve_target(path, root, False)
    folder = journal_folder(target, root, journal)
    fd = _open_locked(target, os.O_RDONLY)
    try:
        current = _read_from(fd, 0)
        if current != expected:
            raise EditConflict(f"{target}: changed meanwhile; nothing was removed")
        intent = _Intent(folder, command, source, target)
        intent.pending(current, None)
        try:
            os.unlink(target)
        except BaseException:
            intent.abandon()
            raise
        seam("written")
        entry_id = intent.complete(current, None)
    finally:
        os.close(fd)
    return WriteResult(target, entry_id, current, b"")


# --------------------------------------------------------------------------- the journal


def journal_dir_for(
    target: Path | str, root: Path | str | None = None, journal: Path | str | None = None
) -> str:
    """Where writes to ``target`` are journaled: ``journal`` when given, else ``.history`` in
    the ``.claude/memory`` folder holding the file (project or global), else in ``root`` (a
    memory folder elsewhere), else the data home's ``history`` folder (agent configs)."""
    if journal is not None:
        return os.fspath(journal)
    probe = os.path.dirname(os.path.abspath(os.fspath(target)))
    while True:
        parent = os.path.dirname(probe)
        if os.path.basename(probe) == "memory" and os.path.basename(parent) == ".claude":
            return os.path.join(probe, HISTORY_DIR)
        if parent == probe:
            break
        probe = parent
    if root is not None:
        return os.path.join(os.fspath(root), HISTORY_DIR)
    return config_journal_dir()


def journal_folder(
    target: str, root: Path | str | None, journal: Path | str | None, adding: int = 0
) -> str:
    """The journal a write to ``target`` is recorded in, checked before anything is written.

    A change the journal cannot record could never be undone, so a journal that is damaged
    (a file where its folder belongs), not writable or on a disk without room for the entry is
    replaced by the data home's journal (``conkeeper history`` lists it, ids with ``c``); when
    that one cannot take the entry either, :class:`WriteError` refuses the write in one line.
    An explicit ``journal`` (an undo, recorded where the write it reverts is) has no stand-in.
    """
    folder = journal_dir_for(target, root, journal)
    need = _JOURNAL_SLACK + 3 * (_size(target) + adding)  # before and after, base64, JSON
    problem = _journal_problem(folder, need)
    if problem is None:
        return folder
    stand_in = config_journal_dir()
    if journal is None and stand_in != folder and _journal_problem(stand_in, need) is None:
        return stand_in
    raise WriteError(
        f"{target}: ConKeeper's write journal {folder} {problem}, so the change could not be "
        "undone; nothing was written"
    )


def _journal_problem(folder: str, need: int) -> str | None:
    """Why ``folder`` cannot take a journal entry of about ``need`` bytes, or ``None``."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        return "is not a folder"
    try:
        _prepare(folder)
        if not os.access(folder, os.W_OK | os.X_OK):
            return "is not writable"
        room = os.statvfs(folder)
    except OSError as exc:
        return f"cannot be used ({exc.strerror or type(exc).__name__})"
    free = room.f_bavail * room.f_frsize
    if free < need:
        return f"has no room for the entry ({free} bytes free)"
    if _file_size_cap() < need - _JOURNAL_SLACK:
        return "cannot take an entry that large (the process's file size limit)"
    return None


def _file_size_cap() -> float:
    """The largest file this process may write (``ulimit -f``), or infinity."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return float("inf")
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return float("inf") if soft == resource.RLIM_INFINITY else float(soft)


def config_journal_dir() -> str:
    """The data home's journal, for files outside any memory folder (agent configs)."""
    from conkeeper.domain.paths import data_folder

    return os.path.join(data_folder(), CONFIG_HISTORY_DIR)


def memory_journal_dir(memory_dir: Path | str) -> str:
    """The journal of a memory folder."""
    return os.path.join(os.fspath(memory_dir), HISTORY_DIR)


_IGNORE_ALL = b"# ConKeeper's write journal (may hold private text): never commit\n*\n"


def _prepare(folder: str) -> None:
    """Make the journal folder and its ``.gitignore`` (``*``: entries hold the bytes before and
    after, private text included). The ``.gitignore`` is checked on every entry, not only when
    the folder is made, and written whole (a temporary file renamed): a full disk left it empty
    and a kill left none, and the journal a memory folder is committed with went into git."""
    if not os.path.isdir(folder):
        os.makedirs(folder, mode=0o700, exist_ok=True)
        seam("journal-folder")
    ignore = os.path.join(folder, ".gitignore")
    try:
        if os.lstat(ignore).st_size:
            return
    except FileNotFoundError:
        pass
    temporary = f"{ignore}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(_IGNORE_ALL)
        os.replace(temporary, ignore)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _b64(data: bytes | None) -> str | None:
    if data is None:
        return None
    import binascii

    return binascii.b2a_base64(data, newline=False).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    if text is None:
        return None
    import binascii

    return binascii.a2b_base64(text)


def _entry_ids(names: list[str]) -> list[tuple[int, str]]:
    found = []
    for name in names:
        head = name.split(".", 1)[0]
        if head.isdigit() and name.endswith(_ENTRY_SUFFIX):
            found.append((int(head), name))
    found.sort()
    return found


def _store(folder: str, record: dict[str, Any], suffix: str, cap: int) -> int | None:
    """Write one journal entry under the next free id, prune that kind past ``cap``; the id, or
    ``None`` when the journal cannot be written (the write it records stands)."""
    try:
        _prepare(folder)
        names = os.listdir(folder)
        _sweep_names(folder, names)  # rewrites of entries killed before their rename
        if _keyed_paths(record):
            _rekey_once(folder, names)
        ids = _entry_ids(names)
        next_id = ids[-1][0] + 1 if ids else 1
        for _ in range(100):
            record["id"] = next_id
            name = os.path.join(folder, f"{next_id:06d}{suffix}")
            try:
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            except FileExistsError:
                next_id += 1
                continue
            try:
                _write_all(fd, _dump(folder, record))
            finally:
                os.close(fd)
            _prune(folder, [n for _, n in ids], suffix, cap)
            return next_id
    except OSError:
        return None
    return None


def _prune(folder: str, names: list[str], suffix: str, cap: int) -> None:
    """Drop the oldest entries of one kind past ``cap`` (whole-file entries also past
    :data:`MAX_JOURNAL_BYTES` in all, the newest always kept). ``names`` excludes the new one."""
    appends = suffix == _APPEND_SUFFIX
    kind = [n for n in names if n.endswith(_APPEND_SUFFIX) == appends]
    excess = max(len(kind) + 1 - cap, 0)
    drop = kind[:excess]
    if not appends:
        keep = kind[excess:]
        sizes = [_size(os.path.join(folder, name)) for name in keep]
        total = sum(sizes)
        for name, size in zip(keep, sizes, strict=True):
            if total <= MAX_JOURNAL_BYTES:
                break
            drop.append(name)
            total -= size
    for name in drop:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, name))


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _whole_record(
    command: str, source: str, target: str, before: bytes | None, after: bytes | None
) -> dict[str, Any]:
    """The journal record of a whole-file write (``after`` ``None``: the file was removed)."""
    return {
        "id": 0,
        "time": time.time(),
        "command": command,
        "source": source,
        "files": [{"path": target, "op": "write", "before": _b64(before), "after": _b64(after)}],
    }


_GROUP: list[str] = []  # the group of the command now writing (see write_group)
# The write an undo now running reverts: its entries say so from the start (a mark added after
# the write was lost when the undo was killed or the disk was full, and the write undone again)
_UNDOING: list[str] = []


@contextlib.contextmanager
def write_group() -> Iterator[None]:
    """Journal every write made inside the ``with`` block as one group, which ``undo`` takes
    back whole: ``init`` creating six files or ``corrections apply`` adding a rule and dequeuing
    it is one step for the person who typed it. Nested blocks join the outer group."""
    if _GROUP:
        yield
        return
    _GROUP.append(f"{os.getpid()}-{time.time_ns()}")
    try:
        yield
    finally:
        _GROUP.clear()


def _append_record(
    command: str, source: str, target: str, offset: int, payload: bytes
) -> dict[str, Any]:
    """The journal record of an append: where it was written and its bytes."""
    return {
        "id": 0,
        "time": time.time(),
        "command": command,
        "source": source,
        "files": [{"path": target, "op": "append", "offset": offset, "data": _b64(payload)}],
    }


class _Intent:
    """The journal entry of one write, stored before the file is changed and marked pending,
    then completed once the change is made: a process killed between the two (SIGKILL, power
    cut) leaves an entry ``history`` lists and ``undo`` restores from, never a change with no
    entry. Found killing ``remember`` between its write and the journal store."""

    def __init__(self, folder: str, command: str, source: str, target: str) -> None:
        self.folder = folder
        self.command = command
        self.source = source
        self.target = target
        self.id: int | None = None
        self.name = ""

    def _record(
        self, before: bytes | None, after: bytes | None, appended_at: int | None
    ) -> tuple[dict[str, Any], str, int]:
        if appended_at is not None:  # journaled as an append: undo cuts exactly those bytes
            payload = (after or b"")[appended_at:] if before is not None else after or b""
            record = _append_record(self.command, self.source, self.target, appended_at, payload)
        else:
            record = _whole_record(self.command, self.source, self.target, before, after)
        if _GROUP:
            record["group"] = _GROUP[0]
        if _UNDOING:
            record["undoes"] = _UNDOING[0]
        if appended_at is not None and self.source == "hook":  # log lines pruned apart
            return record, _APPEND_SUFFIX, MAX_APPEND_ENTRIES
        return record, _ENTRY_SUFFIX, MAX_ENTRIES

    def pending(
        self, before: bytes | None, after: bytes | None, appended_at: int | None = None
    ) -> None:
        """Store (or restate, on a retry) the entry before the file is changed; a journal that
        cannot take it refuses the write (:class:`WriteError`, nothing written)."""
        record, suffix, cap = self._record(before, after, appended_at)
        record["pending"] = True
        if self.id is not None and _rewrite(self.name, record, self.id):
            return
        stored = _store(self.folder, record, suffix, cap)
        if stored is None:
            raise WriteError(
                f"{self.target}: ConKeeper's write journal {self.folder} could not store the "
                "entry, so the change could not be undone; nothing was written"
            )
        self.id = stored
        self.name = os.path.join(self.folder, f"{stored:06d}{suffix}")
        seam("pending")

    def complete(
        self, before: bytes | None, after: bytes | None, appended_at: int | None = None
    ) -> int | None:
        """Restate the entry with what was written (bytes a person appended meanwhile carried
        over), no longer pending; its id. Left pending (still undoable) if that fails."""
        if self.id is None:
            return None
        record, _, _ = self._record(before, after, appended_at)
        _rewrite(self.name, record, self.id)
        return self.id

    def abandon(self) -> None:
        """Drop the pending entry of a change that was not made (the edit starts again)."""
        if self.id is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.name)
            self.id = None


def _rewrite(name: str, record: dict[str, Any], entry_id: int) -> bool:
    """Replace journal entry ``name`` by ``record`` atomically (a temporary file renamed over
    it: a reader or a kill sees the old entry or the new one, whole)."""
    record["id"] = entry_id
    tmp = _temp_name(name)  # swept by the next entry stored when this process is killed
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            _write_all(fd, _dump(os.path.dirname(name), record))
        finally:
            os.close(fd)
        seam("rewriting")
        os.replace(tmp, name)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True


def seam(point: str) -> None:
    """Kill this process at ``point`` when ``CONKEEPER_KILL_AT`` names it, or stop it there
    (``SIGSTOP``, until the test sends ``SIGCONT``) when ``CONKEEPER_STOP_AT`` does: how the
    tests prove that a SIGKILL between a write and its journal's completion loses no undo, and
    that a writer racing one held at that point loses nothing (no sleeps)."""
    kill = os.environ.get("CONKEEPER_KILL_AT") == point
    if kill or os.environ.get("CONKEEPER_STOP_AT") == point:
        import signal

        os.kill(os.getpid(), signal.SIGKILL if kill else signal.SIGSTOP)


class JournalEntry:
    """One journaled write: ``id``, ``time`` (Unix seconds), ``command``, ``source``, ``files``
    (the raw per-file records), ``undoes`` (the id an undo entry reverted), ``group`` (shared by
    the writes of one command, see :func:`write_group`) and its journal."""

    __slots__ = (
        "batch",
        "command",
        "files",
        "group",
        "id",
        "journal",
        "pending",
        "source",
        "time",
        "undoes",
    )

    def __init__(self, journal: str, raw: dict[str, Any]) -> None:
        self.journal = journal
        self.id = int(raw["id"])
        self.time = float(raw.get("time", 0.0))
        self.command = str(raw.get("command", ""))
        self.source = str(raw.get("source", ""))
        self.files: list[dict[str, Any]] = list(raw.get("files", []))
        undoes = raw.get("undoes")
        self.undoes = None if undoes is None else str(undoes)
        self.group = str(raw.get("group") or "")
        self.pending = bool(raw.get("pending"))  # stored before a write that never completed
        self.batch: list[JournalEntry] = [self]  # after undo: every entry undone with this one

    @property
    def paths(self) -> list[str]:
        """The files this write changed."""
        return [str(f.get("path", "")) for f in self.files]

    def written_bytes(self, path: str) -> bytes:
        """What this write put into ``path``: the bytes appended, or after a whole-file write
        the lines it added (every line when it created the file; empty when it did not touch
        ``path``). Lets a reader say which write brought a line in (``consolidate`` dates
        uncommitted entries this way): a tag added elsewhere in the file did not write the
        lines around it."""
        for record in self.files:
            if str(record.get("path", "")) != path:
                continue
            if record.get("op") == "append":
                return _unb64(record.get("data")) or b""
            after = _unb64(record.get("after")) or b""
            before = _unb64(record.get("before"))
            if before is None:
                return after
            kept = set(before.splitlines())
            return b"\n".join(line for line in after.splitlines() if line not in kept)
        return b""


_KEYED = "\x00"  # a path written as NUL, digest, NUL, redacted folder, rest (see _dump)
_KEYED_MARK = b'"path":"\\u0000'  # how such a path begins in an entry's bytes


def _dump(folder: str, record: dict[str, Any]) -> bytes:
    """A journal entry's bytes. A file whose path has a folder named after a credential (a
    project folder named after a token) is written as that folder's digest and redacted form,
    then the rest of its path; a file itself named after one (``memory/ghp_….md``) has its name
    written the same way: an entry never stores the token. :func:`_parse` puts the live folder
    back (found among the folders holding the journal or the working directory) and the live
    name (found in its folder by digest), so ``history`` and ``undo`` work as before; elsewhere,
    or for a file gone since, the entry shows the redacted path."""
    if _keyed_paths(record):
        record = {**record, "files": [_keyed_file(f) for f in record["files"]]}
    return json.dumps(record, separators=(",", ":")).encode("utf-8")


def _keyed_paths(record: dict[str, Any]) -> bool:
    """Whether a file of ``record`` has a folder or a name of its own named after a credential
    (still in clear: a name already keyed is not asked about again)."""
    files = record.get("files")
    return isinstance(files, list) and any(
        isinstance(f, dict) and _needs_key(str(f.get("path", ""))) for f in files
    )


def _needs_key(path: str) -> bool:
    """Whether ``path`` (as stored or about to be) holds a credential :func:`_keyed_file`
    would take out: in a folder, or in its own name."""
    if path.startswith(_KEYED):
        return len(path.split(_KEYED)) == 4 and _name_keyed(path)
    return bool(_keyed_cut(path)) or _name_keyed(path)


def _name_keyed(path: str) -> bool:
    """Whether the file's own name (after the last ``/``) is named after a credential."""
    from conkeeper.domain.messages import clean_path, may_hold_token

    name = path[path.rfind("/") + 1 :]
    return may_hold_token(name) and clean_path(name) != name


# a journal whose older entries were rewritten by _rekey_once (``.rekeyed``: folders only,
# written by an earlier version; this one keys the files' own names too)
_REKEYED = ".rekeyed-names"


def _rekey_once(folder: str, names: list[str]) -> None:
    """Entries an earlier version wrote with such a folder or file name in clear, rewritten as
    :func:`_dump` writes them; once per journal (a mark file), and only in a journal that
    records such a path: an ordinary journal is never read here."""
    if _REKEYED in names:
        return
    for entry_id, name in _entry_ids(names):
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError, ValueError):
            with open(path, "rb") as handle:
                data = handle.read()
            record = json.loads(data.decode("utf-8"))
            if isinstance(record, dict) and _keyed_paths(record):
                _rewrite(path, record, entry_id)
    with contextlib.suppress(OSError):
        os.close(os.open(os.path.join(folder, _REKEYED), os.O_WRONLY | os.O_CREAT, 0o600))


def _keyed_cut(path: str) -> int:
    """Where the last folder of ``path`` named after a credential ends (0: none). The file's
    own name is not a folder: :func:`_name_keyed` asks about it."""
    from conkeeper.domain.messages import clean_path, may_hold_token

    if not may_hold_token(path):
        return 0
    known = _known_key(path)
    if known is not None:
        return known[0]
    end, start = 0, 0
    while (slash := path.find("/", start)) >= 0:
        name = path[start:slash]
        if name and clean_path(name) != name:
            end = slash
        start = slash + 1
    return end


_KNOWN_FOLDERS: dict[str, tuple[int, str]] = {}


def folder_key(folder: str) -> tuple[int, str]:
    """How the journal keys files under ``folder``: where its last name holding a credential
    ends (0: none) and ``folder`` up to there, redacted. Scans every name (the secrets rules
    compiled): a caller that keeps the answer gives it back through :func:`known_folder`."""
    from conkeeper.domain.messages import clean_path

    cut = _keyed_cut(folder + "/")
    return cut, clean_path(folder[:cut]) if cut else ""


def known_folder(folder: str, cut: int, shown: str) -> None:
    """Give the journal :func:`folder_key`'s answer for ``folder`` (a project root the hooks
    decided before and remembered, ``storage.identity_cache``): a file under it whose own
    folders below it look like no credential is keyed without scanning again."""
    _KNOWN_FOLDERS[folder] = (cut, shown)


def _known_key(path: str) -> tuple[int, str] | None:
    """:func:`folder_key`'s answer given for a folder holding ``path``, when the folders
    between them look like no credential."""
    from conkeeper.domain.messages import may_hold_token

    for folder, key in _KNOWN_FOLDERS.items():
        if path.startswith(folder + "/"):
            between = path[len(folder) : path.rfind("/")]
            if not may_hold_token(between):
                return key
    return None


def _keyed_file(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with its path keyed: ``NUL digest NUL redacted folder NUL rest`` for a folder
    named after a credential, and, when the file's own name is one, ``NUL digest NUL redacted
    name`` after the rest of its folders (the folder's two fields empty when no folder is)."""
    path = str(item.get("path", ""))
    if path.startswith(_KEYED):  # keyed by an earlier version: its folder only
        if not _needs_key(path):
            return item
        return {**item, "path": _keyed_name(path)}
    cut = _keyed_cut(path)
    if cut:
        from conkeeper.domain.messages import clean_path

        known = _known_key(path)
        shown = known[1] if known is not None and known[0] == cut else clean_path(path[:cut])
        path = f"{_KEYED}{_digest(path[:cut])}{_KEYED}{shown}{_KEYED}{path[cut:]}"
    elif _name_keyed(path):
        path = f"{_KEYED}{_KEYED}{_KEYED}{path}"
    else:
        return item
    return {**item, "path": _keyed_name(path) if _name_keyed(path) else path}


def _keyed_name(keyed: str) -> str:
    """A keyed path whose last field ends in a file name named after a credential, with that
    name written as its digest and redacted form."""
    from conkeeper.domain.messages import clean_path

    start = max(keyed.rfind("/"), keyed.rfind(_KEYED)) + 1
    name = keyed[start:]
    return f"{keyed[:start]}{_KEYED}{_digest(name)}{_KEYED}{clean_path(name)}"


def _digest(folder: str) -> str:
    import _sha256  # hashlib.sha256's C module, without hashlib's imports (the hook path)

    return str(_sha256.sha256(folder.encode("utf-8", "surrogateescape")).hexdigest())[:32]


def _parse(folder: str, data: bytes) -> Any:
    """A journal entry read back (see :func:`_dump`)."""
    record = json.loads(data.decode("utf-8"))
    if _KEYED_MARK in data and isinstance(record, dict) and isinstance(record.get("files"), list):
        for item in record["files"]:
            if isinstance(item, dict) and str(item.get("path", "")).startswith(_KEYED):
                item["path"] = _live_path(folder, str(item["path"]))
    return record


def _live_path(folder: str, keyed: str) -> str:
    """The live path of a keyed journal path: its folder found by digest among the folders
    holding ``folder`` or the working directory, its name (when keyed) among that folder's
    files; else the redacted path it carries."""
    fields = keyed[1:].split(_KEYED)
    if len(fields) != 5:
        return _live_folder(folder, keyed)
    digest, shown, rest, name_digest, shown_name = fields
    base = _live_folder(folder, f"{_KEYED}{digest}{_KEYED}{shown}{_KEYED}") if digest else ""
    where = base + rest
    with contextlib.suppress(OSError):
        for name in os.listdir(where or "."):
            if _digest(name) == name_digest:
                return where + name
    return where + shown_name


def _live_folder(folder: str, keyed: str) -> str:
    """The live path of a path keyed by its folder alone (see :func:`_live_path`): among the
    folders holding ``folder`` or the working directory, else along its redacted form (a
    folder inside the project, such as ``libs/ghp_…/`` holding a ``CLAUDE.md``)."""
    digest, _, rest = keyed[1:].partition(_KEYED)
    shown, _, rest = rest.partition(_KEYED)
    with contextlib.suppress(OSError):
        for start in (os.path.abspath(folder), os.getcwd()):
            candidate = start
            while candidate not in ("/", ""):
                if _digest(candidate) == digest:
                    return candidate + rest
                candidate = os.path.dirname(candidate)
    found = _along_shown(shown, digest)
    return (found if found is not None else shown) + rest


def _along_shown(shown: str, digest: str) -> str | None:
    """The folder whose digest is ``digest``, found by walking ``shown`` (its redacted form)
    from the root: a plain name is taken as it is, a redacted one matched against the names
    the folder above holds that redact to it. ``None`` when none is found."""
    from conkeeper.domain.messages import clean_path

    paths = [""]
    for name in shown.split("/")[1:] if shown.startswith("/") else []:
        if "[REDACTED:" not in name:
            paths = [f"{path}/{name}" for path in paths]
            continue
        found = []
        for path in paths[:8]:  # a few candidates at most: names redacting alike are rare
            with contextlib.suppress(OSError):
                found += [f"{path}/{n}" for n in os.listdir(path or "/") if clean_path(n) == name]
        paths = found
    return next((path for path in paths if _digest(path) == digest), None)


def read_journal(folder: Path | str) -> list[JournalEntry]:
    """Every entry of a journal folder, oldest first (unreadable entries skipped)."""
    text = os.fspath(folder)
    try:
        names = os.listdir(text)
    except OSError:
        return []
    entries = []
    for _, name in _entry_ids(names):
        try:
            with open(os.path.join(text, name), "rb") as handle:
                entries.append(JournalEntry(text, _parse(text, handle.read())))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return entries


# --------------------------------------------------------------------------- undo


def undo(
    folder: Path | str,
    entry_id: int | None = None,
    *,
    source: str = "user-cli",
) -> JournalEntry:
    """Restore the bytes from before journal entry ``entry_id`` of ``folder`` (default:
    :func:`newest_undoable`); returns the entry undone.

    Every file must still hold that write's after-bytes (an append: its bytes where they were
    written); otherwise :class:`UndoConflict` carries a unified diff and nothing is changed. The
    undo is itself journaled, and an entry is never undone twice.
    """
    with _undo_lock(os.fspath(folder)):  # two undos at once take back two different writes
        return _undo_locked(folder, entry_id, source)


@contextlib.contextmanager
def _undo_lock(folder: str) -> Iterator[None]:
    """Hold the journal folder's lock while an undo picks its write, applies and records it."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    except OSError:  # no journal (nothing to undo), or no folder to lock on this system
        yield
        return
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _undo_locked(folder: Path | str, entry_id: int | None, source: str) -> JournalEntry:
    """:func:`undo` once the journal is held: the write is chosen from the journal as it is."""
    entries = read_journal(folder)
    undone = undone_ids(entries)
    if entry_id is None:
        newest = newest_undoable(entries)
        if newest is None:
            raise WriteError("nothing to undo: the journal holds no write that is not undone")
        entry = newest
    else:
        found = [e for e in entries if e.id == entry_id]
        if not found:
            raise WriteError(f"no write {entry_id} in the journal; see 'conkeeper history'")
        entry = found[0]
        if str(entry.id) in undone:
            raise WriteError(f"write {entry_id} was already undone")
        if entry.pending and not was_made(entry):
            raise WriteError(
                f"write {entry_id} was interrupted before it changed its file; nothing to undo"
            )
    batch = _batch(entries, entry, undone)
    checked: set[str] = set()
    for member in batch:  # the newest write of each file is checked before any is changed
        for path, check, _, _ in map(_undo_plan, member.files):
            if path in checked:
                continue
            checked.add(path)
            current = _current(path)
            problem = check(current)
            if problem is not None:
                raise _gone(member, path) if current is None else _conflict(member, path, problem)
    for member in batch:
        for plan in map(_undo_plan, member.files):
            _apply_undo(member, plan, source, os.fspath(folder))
    entry.batch = batch
    return entry


def _batch(
    entries: list[JournalEntry], entry: JournalEntry, undone: set[str]
) -> list[JournalEntry]:
    """``entry`` and the other writes of its group not undone yet, newest first."""
    if not entry.group:
        return [entry]
    members = [
        e
        for e in entries
        if e.group == entry.group and e.undoes is None and str(e.id) not in undone
    ]
    return sorted(members, key=lambda e: (e.time, e.id), reverse=True)


def was_made(entry: JournalEntry) -> bool:
    """Whether the write of a pending entry (its process killed mid-write) reached its file:
    the file no longer holds the bytes from before (an append: its bytes are there)."""
    for record in entry.files:
        current = _current(str(record.get("path", "")))
        if record.get("op") == "append":
            data = _unb64(record.get("data")) or b""
            offset = int(record.get("offset", 0))
            if current is not None and _appended_at(current, offset, data) is not None:
                return True
        elif _whole_made(_unb64(record.get("before")), _unb64(record.get("after")), current):
            return True
    return False


def _whole_made(before: bytes | None, after: bytes | None, current: bytes | None) -> bool:
    """Whether a whole-file write (``before`` -> ``after``) reached a file now ``current``: the
    lines it added are there or the lines it removed are gone. A file changed since is no
    proof (found killing ``consolidate --apply`` and ``undo`` before their rename: the person's
    next line made the write count as made, so a plain ``undo`` refused with a diff, or took
    the write an interrupted undo never reverted for undone). When the lines cannot tell (a
    write that changed no whole line), it counts as made: ``undo`` then checks the bytes."""
    if current == before or (before is None and current == b""):  # b"": an older empty create
        return False
    if current is None or before is None or after is None or current == after:
        return True
    old, new, now = (_line_counts(data) for data in (before, after, current))
    signs = [now.get(line, 0) >= count for line, count in new.items() if count > old.get(line, 0)]
    signs += [now.get(line, 0) < count for line, count in old.items() if count > new.get(line, 0)]
    return not signs or any(signs)  # mixed: made, and undo checks the bytes


def _line_counts(data: bytes) -> dict[bytes, int]:
    counts: dict[bytes, int] = {}
    for line in data.splitlines():
        counts[line] = counts.get(line, 0) + 1
    return counts


def undone_ids(entries: list[JournalEntry]) -> set[str]:
    """The ids of the writes an undo took back: an undo killed before it changed the file
    (its entry left pending) took back nothing, and the write stays undoable."""
    return {e.undoes for e in entries if e.undoes is not None and (not e.pending or was_made(e))}


def newest_undoable(entries: list[JournalEntry]) -> JournalEntry | None:
    """The write a plain ``undo`` reverts: the newest one that is neither an undo, undone
    already, nor a hook's log line (those are undone by id only)."""
    undone = undone_ids(entries)
    candidates = [
        e for e in entries if e.undoes is None and str(e.id) not in undone and e.source != "hook"
    ]
    candidates.sort(key=lambda e: (e.time, e.id), reverse=True)
    # a write killed before it changed its file has nothing to take back
    return next((e for e in candidates if not e.pending or was_made(e)), None)


def _undo_plan(record: dict[str, Any]) -> UndoPlan:
    """``(path, check, restore, recreate)``: ``check(current)`` is ``None`` or a conflict diff,
    ``restore(current)`` the bytes to write back (``None``: remove the file); ``recreate`` is
    the content to bring back when the write removed the file."""
    path = str(record["path"])
    if record.get("op") == "append":
        offset = int(record["offset"])
        data = _unb64(record["data"]) or b""

        def check_append(current: bytes | None) -> str | None:
            if current is not None and _appended_at(current, offset, data) is not None:
                return None
            now = b"" if current is None else current[offset : offset + len(data)]
            return _diff(path, data, now, f"appended at byte {offset}", "there now")

        def restore_append(current: bytes) -> bytes | None:
            at = _appended_at(current, offset, data)
            start = offset if at is None else at
            rest = current[:start] + current[start + len(_as_found(current, start, data)) :]
            return None if start == 0 and not rest else rest

        return path, check_append, restore_append, None
    before = _unb64(record.get("before"))
    after = _unb64(record.get("after"))

    def check_write(current: bytes | None) -> str | None:
        if current == after:
            return None
        if current is None and after is not None:
            return _diff(path, after, b"", "after the write", "now: the file was removed")
        if _revert_apart(before, after, current) is not None:
            return None
        return _diff(path, after or b"", current or b"", "after the write", "now")

    def restore_write(current: bytes) -> bytes | None:
        if current == after:
            return before
        return _revert_apart(before, after, current)

    return path, check_write, restore_write, before if after is None else None


def _appended_at(current: bytes, offset: int, data: bytes) -> int | None:
    """Where the bytes an append wrote are in ``current``: at ``offset``, or, when a person
    added or removed lines above them since, wherever they start a line and occur once (whole
    lines of the write, untouched: taking them back loses nothing of the later change); the
    same lines with the other line break (LF / CRLF) count, for a file the person converted
    since; ``None`` when they are gone, changed or ambiguous."""
    if current[offset : offset + len(data)] == data and not (
        data.startswith(b"\n") and current[offset - 1 : offset] == b"\r"  # inside a CRLF
    ):
        return offset
    for form in _break_forms(data):
        if not form.endswith(b"\n"):
            continue
        starts = [at for at in _occurrences(current, form) if at == 0 or current[at - 1] == 10]
        if len(starts) == 1:
            return starts[0]
    return None


def _occurrences(data: bytes, part: bytes) -> Iterator[int]:
    """Every offset where ``part`` starts in ``data`` (overlapping ones too)."""
    at = data.find(part)
    while at >= 0:
        yield at
        at = data.find(part, at + 1)


def _break_forms(data: bytes) -> list[bytes]:
    """``data`` as written, then with its lines ending in CRLF, then in LF (each only when it
    differs): the forms a person's conversion of the whole file may have left it in."""
    lf = data.replace(b"\r\n", b"\n")
    forms = [data]
    for form in (lf.replace(b"\n", b"\r\n"), lf):
        if form not in forms:
            forms.append(form)
    return forms


def _as_found(current: bytes, start: int, data: bytes) -> bytes:
    """The form of ``data`` (:func:`_break_forms`) that stands at ``start`` in ``current``."""
    for form in _break_forms(data):
        if current[start : start + len(form)] == form:
            return form
    return data


def _revert_apart(before: bytes | None, after: bytes | None, current: bytes | None) -> bytes | None:
    """``current`` with one write (``before`` -> ``after``) taken back, when every change made
    since (``after`` -> ``current``) lies on other lines, at least one unchanged line apart from
    the write's own; ``None`` when they touch (a conflict: the caller refuses and shows a diff).

    Lets ``undo`` revert an older write after later writes (an entry remembered at the end, a
    line the person added elsewhere) without undoing or losing them. Lines are compared
    without their breaks, so a file the person converted to CRLF (or back) since is no
    conflict: the lines brought back take the break the file has there now."""
    if before is None or after is None or current is None:
        return None
    import difflib

    old = after.splitlines(keepends=True)
    now = current.splitlines(keepends=True)
    back = before.splitlines(keepends=True)
    undo = [
        (i1, i2, back[j1:j2])
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
            None, old, back, autojunk=False
        ).get_opcodes()
        if tag != "equal"
    ]
    later = difflib.SequenceMatcher(None, _bare(old), _bare(now), autojunk=False).get_opcodes()
    changed = [(i1, i2) for tag, i1, i2, _, _ in later if tag != "equal"]
    hunks = sorted([(i1, i2, "undo") for i1, i2, _ in undo] + [(*c, "later") for c in changed])
    reach = {"undo": -1, "later": -1}  # the furthest line each side's hunks reached so far
    for i1, i2, side in hunks:
        # touching or overlapping the other side's change: never guess
        if i1 <= reach["later" if side == "undo" else "undo"]:
            return None
        reach[side] = max(reach[side], i2)
    merged: list[bytes] = []
    pos = 0
    for i1, i2, lines_in in undo:
        j1 = next(b1 + i1 - a1 for tag, a1, a2, b1, _ in later if tag == "equal" and a1 <= i1 <= a2)
        merged.extend(now[pos:j1])
        merged.extend(_rebroken(lines_in, old, now, i1, j1))
        pos = j1 + i2 - i1
    merged.extend(now[pos:])
    return b"".join(merged)


def _bare(lines: list[bytes]) -> list[bytes]:
    return [line.rstrip(b"\r\n") for line in lines]


def _rebroken(
    lines: list[bytes], old: list[bytes], now: list[bytes], i: int, j: int
) -> list[bytes]:
    """``lines`` (brought back at line ``i`` of ``old``, ``j`` of ``now``) with the break the
    file has there now when the person changed it there since (LF to CRLF or back)."""

    def brk(line: bytes) -> bytes:
        return line[len(line.rstrip(b"\r\n")) :]

    near_old = old[i - 1] if i > 0 else (old[i] if i < len(old) else b"")
    near_now = now[j - 1] if j > 0 else (now[j] if j < len(now) else b"")
    was, wants = brk(near_old), brk(near_now)
    if not was or not wants or was == wants:
        return lines
    return [line[: len(line.rstrip(b"\r\n"))] + wants if brk(line) else line for line in lines]


def _current(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:  # found attacking undo from outside: was a raw traceback line
        raise WriteError(
            f"{path}: is a folder now, not the file this write changed; nothing was undone"
        ) from None
    except PermissionError:
        raise WriteError(
            f"{path}: cannot be read (permission denied); nothing was undone"
        ) from None


def _conflict(entry: JournalEntry, path: str, diff: str) -> UndoConflict:
    return UndoConflict(
        f"{path}: changed since write {entry.id} ({entry.command}); nothing was undone", diff
    )


def _gone(entry: JournalEntry, path: str) -> WriteError:
    """The file a write changed is no longer there: the person removed or renamed it. A diff
    of the whole file as "removed" (what this said before) read like a change to review, when
    the one thing to know is that the file is gone. Found by write probe 9."""
    from conkeeper.domain.messages import clean_path

    return WriteError(
        f"{clean_path(path)}: is gone (removed or renamed since write {entry.id}, "
        f"{entry.command}); nothing was undone"
    )


def _apply_undo(
    entry: JournalEntry,
    plan: UndoPlan,
    source: str,
    folder: str,
) -> None:
    _UNDOING.append(str(entry.id))
    try:
        _revert(entry, plan, source, folder)
    finally:
        _UNDOING.clear()


def _revert(entry: JournalEntry, plan: UndoPlan, source: str, folder: str) -> None:
    path, check, restore, recreate = plan
    command = f"undo {entry.id}"
    if recreate is not None:  # the write removed the file: bring it back, never over a new one
        create_file(path, recreate, command=command, source=source, journal=folder)
        return
    state: dict[str, bytes | None] = {}

    def edit(now: bytes) -> bytes:
        conflict = check(now)
        if conflict is not None:
            raise _conflict(entry, path, conflict)
        state["new"] = restore(now)
        return now if state["new"] is None else state["new"]

    result = edit_file(
        path, edit, command=command, source=source, follow_symlink=True, journal=folder
    )
    if state.get("new") is None:  # the write created the file: remove it again
        delete_file(path, result.after, command=command, source=source, journal=folder)


def _diff(path: str, expected: bytes, now: bytes, left: str, right: str) -> str:
    """A unified diff of two versions, private lines blanked and secrets redacted on both
    sides first (the diff is shown to a person and may end up in a terminal log)."""
    import difflib

    from conkeeper.domain.privacy import blank_private
    from conkeeper.domain.secrets import redact

    def shown(data: bytes) -> list[str]:
        text = data.decode("utf-8", "replace")
        return redact(blank_private(text)).splitlines(keepends=True)

    lines = difflib.unified_diff(
        shown(expected), shown(now), f"{path} ({left})", f"{path} ({right})"
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
