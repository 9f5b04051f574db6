"""Lines an agent wrote straight into a memory file with its own edit tools.

Why it exists: ``remember`` holds instruction-shaped text for review, but an agent (or a page
it read) can skip ``remember`` and write ``patterns.md`` with its Write or Edit tool. Untagged
lines read as the user's own, so the next SessionStart would inject them. The PostToolUse hook
records a short key of every line such an edit wrote (:func:`record`); SessionStart leaves out
recorded lines that read like instructions, and ``conkeeper review`` lists them, to keep
(:func:`approve`) or to remove from the file.

Where: ``<memory folder>/.review/agent-edits`` (one ``KEY<TAB>FILE`` line per written line,
appended) and ``agent-edits-approved`` (keys the user kept), in the review folder, which its own
``.gitignore`` keeps out of git. A key is a hash of the line with its whitespace collapsed, so a
line the user edits by hand is theirs again.

Cost: the hook path (standard library only; only on an agent's edit inside the memory folder).
"""

from __future__ import annotations

import os
from pathlib import Path

REVIEW_DIR = ".review"
RECORDED = "agent-edits"
APPROVED = "agent-edits-approved"
IGNORE = "# ConKeeper's review queue: held memory entries, never committed\n*\n"
MAX_SIDECAR_BYTES = 1024 * 1024  # a larger sidecar is read only this far (the oldest keys)


def line_key(line: str) -> str:
    """The key of one line: its text with whitespace collapsed, hashed (16 hex digits)."""
    import hashlib

    return hashlib.sha256(" ".join(line.split()).encode("utf-8", "replace")).hexdigest()[:16]


def record(memory_dir: Path, relative: str, written: str) -> int:
    """Append the keys of the non-blank lines of ``written`` (what an agent's edit put into
    ``relative``); returns how many. Errors propagate: the hook fails open around it."""
    keys = {line_key(line) for line in written.splitlines() if line.strip()}
    if not keys:
        return 0
    folder = review_folder(memory_dir)
    rel = relative.replace("\t", " ").replace("\n", " ")
    data = "".join(f"{key}\t{rel}\n" for key in sorted(keys)).encode("utf-8", "replace")
    _append(folder / RECORDED, data)
    return len(keys)


def approve(memory_dir: Path, line: str) -> None:
    """Mark ``line`` as kept by the user: SessionStart injects it from now on."""
    _append(review_folder(memory_dir) / APPROVED, f"{line_key(line)}\n".encode())


def held_keys(memory_dir: Path) -> frozenset[str]:
    """The keys recorded for ``memory_dir`` and not approved (empty when none were)."""
    folder = memory_dir / REVIEW_DIR
    recorded = _keys(folder / RECORDED)
    if not recorded:
        return frozenset()
    return frozenset(recorded - _keys(folder / APPROVED))


def _keys(path: Path) -> set[str]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return set()
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_SIDECAR_BYTES)
    return {line.split(b"\t", 1)[0].decode("ascii", "replace") for line in data.splitlines()}


def review_folder(memory_dir: Path) -> Path:
    """The review folder of ``memory_dir``, created with the ``.gitignore`` that keeps it out
    of git; :class:`OSError` when it is a symlink (never written through)."""
    folder = memory_dir / REVIEW_DIR
    if folder.is_symlink():
        raise OSError(f"{folder}: is a symlink; ConKeeper will not write through it")
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        _append(ignore, IGNORE.encode())
    return folder


def _append(path: Path, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
