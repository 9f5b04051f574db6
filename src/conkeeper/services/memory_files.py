"""Memory files as a reader sees them: listed per scope, read safely, private content gone.

Front doors that show memory to a person or an agent (the viewer, the MCP server) need the same
three guarantees the index and SessionStart have: only files inside the memory folder (a symlink
that leads out is refused), nothing a ``<private>`` block, span or ``private: true`` front
matter hides, and no detected secret. This module is the one place that reads a memory file for
display, so no front door can forget one of them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from conkeeper.domain.memory import memory_file_kind
from conkeeper.domain.privacy import is_private_file, strip_private
from conkeeper.domain.secrets import redact
from conkeeper.domain.textio import MemoryFileError, is_within, read_text

SKIPPED_NAMES = frozenset({".memory-config.md"})
MAX_LISTED = 2000


class MemoryAccessError(Exception):
    """A memory file cannot be shown; the message is one line for a person."""


@dataclass(frozen=True)
class MemoryFileInfo:
    """One listed memory file: where it is, what kind it is, and when it last changed."""

    scope: str  # "project" or "global"
    relpath: str  # POSIX path inside the memory folder
    kind: str
    size: int
    mtime: float


@dataclass(frozen=True)
class MemoryDocument:
    """A memory file's displayable text (private parts and secrets already removed)."""

    info: MemoryFileInfo
    text: str
    private: bool  # the whole file is private: ``text`` is empty


def list_memory_files(memory_dir: Path, scope: str) -> list[MemoryFileInfo]:
    """Every Markdown file under ``memory_dir`` (sorted, symlinks out of the folder skipped)."""
    if not memory_dir.is_dir():
        return []
    found: list[MemoryFileInfo] = []
    for dirpath, dirnames, filenames in os.walk(memory_dir, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith(".md") or name in SKIPPED_NAMES:
                continue
            path = Path(dirpath) / name
            if not is_within(path, memory_dir):
                continue
            info = _info(memory_dir, path, scope)
            if info is not None:
                found.append(info)
            if len(found) >= MAX_LISTED:
                return found
    return found


def _info(memory_dir: Path, path: Path, scope: str) -> MemoryFileInfo | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    rel = path.relative_to(memory_dir).as_posix()
    return MemoryFileInfo(scope, rel, memory_file_kind(rel), stat.st_size, stat.st_mtime)


def resolve_memory_path(memory_dir: Path, relpath: str) -> Path:
    """The file ``relpath`` names inside ``memory_dir``, refusing anything that leads out."""
    pure = PurePosixPath(relpath.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or not relpath.strip():
        raise MemoryAccessError(f"'{relpath}' is not a path inside the memory folder")
    if pure.suffix != ".md" or pure.name in SKIPPED_NAMES:
        raise MemoryAccessError(f"'{relpath}' is not a memory file (expected a .md file)")
    path = memory_dir.joinpath(*pure.parts)
    if not path.is_file():
        raise MemoryAccessError(f"no memory file '{relpath}'")
    if not is_within(path, memory_dir):
        raise MemoryAccessError(f"'{relpath}' leads outside the memory folder; refused")
    return path


def displayable_text(raw: str) -> tuple[str, bool]:
    """``(text, private)``: ``raw`` with private content cut and secrets redacted."""
    if is_private_file(raw):
        return "", True
    return redact(strip_private(raw)), False


def read_memory_file(memory_dir: Path, relpath: str, scope: str) -> MemoryDocument:
    """Read one memory file for display; raises :class:`MemoryAccessError` with one line."""
    path = resolve_memory_path(memory_dir, relpath)
    try:
        raw = read_text(path)
    except MemoryFileError as exc:
        raise MemoryAccessError(str(exc)) from None
    info = _info(memory_dir, path, scope)
    if info is None:
        raise MemoryAccessError(f"no memory file '{relpath}'")
    text, private = displayable_text(raw)
    return MemoryDocument(info, text, private)
