"""The known content of the agent-instruction files one session's hooks watch.

Why it exists: which lines of ``CLAUDE.md`` or ``AGENTS.md`` an agent's tool added is read
against what the file held at the last look between turns (SessionStart, each prompt: the
person's edits are theirs) and after each hold. The keys of each file's lines, in order, are
kept beside the session's state file rather than in it, so the state every hook reads and
rewrites stays small; the hooks read this file only when an instruction file changed.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

MAX_BYTES = 4 * 1024 * 1024  # a larger record is damaged: read as none
MAX_FILE_BYTES = 2 * 1024 * 1024  # a larger instruction file is reported, not diffed


def known_path(state_path: Path) -> Path:
    """The record beside a session's state file."""
    return state_path.with_name(f"{state_path.stem}.instructions.json")


def read_known(path: Path) -> dict[str, list[str]]:
    """Each watched file's line keys, in order (empty when there is no readable record)."""
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read(MAX_BYTES + 1))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(rel): [str(key) for key in keys] for rel, keys in data.items() if isinstance(keys, list)
    }


def write_known(path: Path, known: dict[str, list[str]]) -> None:
    """Replace the record (temporary file, then rename: a reader sees the old or the new)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(json.dumps(known, separators=(",", ":")), encoding="utf-8")
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def read_file(path: Path) -> bytes | None:
    """The bytes of a regular file not larger than :data:`MAX_FILE_BYTES`, else ``None``: how
    an instruction file is read for its known content and its hold (a FIFO or device where one
    belongs is never waited on, a huge file never diffed in a hook)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        return handle.read(MAX_FILE_BYTES + 1)
