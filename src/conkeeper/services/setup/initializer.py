"""Create a memory folder from the templates, safely and repeatably.

``conkeeper init`` is the first thing a person runs, often again later "just in case", and
sometimes in a folder that already holds years of notes. So creating the layout must never
overwrite or touch an existing file (even one created a moment ago by someone else: files are
created with an exclusive link, not a check-then-write), must be idempotent, and must report
exactly what it created and what it left alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from conkeeper.domain.memory import MEMORY_LAYOUT, Scope, template_text
from conkeeper.domain.paths import MEMORY_SUBFOLDER
from conkeeper.domain.textio import (
    MemoryFileError,
    check_memory_root,
    is_within,
    read_text_lenient,
)

OBSERVATIONS_IGNORE = f"{MEMORY_SUBFOLDER}/sessions/*-observations.md"
LAST_SYNC_IGNORE = f"{MEMORY_SUBFOLDER}/.last-sync"
TEMP_IGNORE = f"{MEMORY_SUBFOLDER}/**/.*.conkeeper-tmp"
# What ``init --gitignore`` keeps out of git: files ConKeeper writes for this clone alone.
GITIGNORE_ENTRIES: dict[str, str] = {
    TEMP_IGNORE: "# a ConKeeper write killed before its rename (removed by the next write)",
    OBSERVATIONS_IGNORE: "# ConKeeper observation logs (tool-use history; may mention local paths)",
    LAST_SYNC_IGNORE: "# ConKeeper's last memory sync in this clone (time and commit)",
}


@dataclass
class InitResult:
    """What ``init`` did to one memory root: paths (relative, "/"-separated) it created and the
    ones that already existed, plus anything a person should know."""

    memory_dir: Path
    scope: Scope
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def create_layout(memory_dir: Path, scope: Scope = "project") -> InitResult:
    """Create every missing folder and file of the ``scope`` layout under ``memory_dir``.

    Existing files are never opened for writing. Raises ``MemoryFileError`` (one line) when the
    memory root is a file, a parent cannot be created, or the folder is not writable.
    """
    from conkeeper.domain.safewrite import write_group

    result = InitResult(memory_dir, scope)
    _ensure_root(memory_dir)
    with write_group():  # one init is one step for undo, however many files it created
        for item in MEMORY_LAYOUT[scope]:
            rel = item.path.rstrip("/")
            target = memory_dir / rel
            if item.is_dir:
                _ensure_dir(target, memory_dir, rel, result)
            else:
                _ensure_file(target, memory_dir, rel, template_text(item.template or ""), result)
    return result


def _ensure_root(memory_dir: Path) -> None:
    check_memory_root(memory_dir)
    for parent in reversed(memory_dir.parents):
        if parent.exists() and not parent.is_dir():
            raise MemoryFileError(
                f"{parent}: is a file, so the memory folder {memory_dir} cannot be created"
            )
    try:
        memory_dir.mkdir(parents=True, exist_ok=True)
    except PermissionError:
        raise MemoryFileError(f"{memory_dir}: permission denied; cannot create it") from None
    except OSError as exc:
        raise MemoryFileError(f"{memory_dir}: cannot be created ({exc.strerror or exc})") from None
    if not os.access(memory_dir, os.W_OK | os.X_OK):
        raise MemoryFileError(f"{memory_dir}: is not writable; check its permissions")


def _ensure_dir(target: Path, root: Path, rel: str, result: InitResult) -> None:
    if target.is_symlink() and not is_within(target, root):
        result.warnings.append(
            f"{rel}/: is a symlink leading outside the memory folder; left alone"
        )
        result.existing.append(rel + "/")
        return
    if target.is_dir():
        result.existing.append(rel + "/")
        return
    if target.exists() or target.is_symlink():
        raise MemoryFileError(f"{target}: exists but is not a folder; move it aside and re-run")
    try:
        target.mkdir(parents=True)
    except FileExistsError:
        result.existing.append(rel + "/")
        return
    except OSError as exc:
        raise MemoryFileError(f"{target}: cannot be created ({exc.strerror or exc})") from None
    result.created.append(rel + "/")


def _ensure_file(target: Path, root: Path, rel: str, text: str, result: InitResult) -> None:
    if target.exists() or target.is_symlink():  # a dangling symlink counts as existing too
        result.existing.append(rel)
        if target.is_symlink() and not is_within(target, root):
            result.warnings.append(f"{rel}: is a symlink leading outside the memory folder")
        return
    if not is_within(target.parent, root):
        raise MemoryFileError(f"{target}: its folder leads outside {root}; refusing to write")
    if create_exclusive(target, text):
        result.created.append(rel)
    else:
        result.existing.append(rel)


def create_exclusive(path: Path, text: str, source: str = "user-cli") -> bool:
    """Create a new file through the write path; return ``False`` (and write nothing) if it
    already exists, even if it appeared a moment ago: a file is never clobbered, and the
    creation is journaled (``conkeeper undo``)."""
    from conkeeper.domain.safewrite import AlreadyExists, create_file

    try:
        create_file(path, text.encode(), command="init", source=source, root=path.parent)
    except AlreadyExists:
        return False
    except PermissionError:
        raise MemoryFileError(f"{path.parent}: permission denied; cannot create files") from None
    return True


def gitignore_has_entry(project_root: Path, entry: str = OBSERVATIONS_IGNORE) -> bool:
    """True when the project's ``.gitignore`` already lists ``entry`` (leading ``/`` ignored)."""
    path = project_root / ".gitignore"
    if not path.exists():
        return False
    # git reads path names as bytes: a Latin-1 name in the person's .gitignore is theirs to keep
    # (the edit carries those bytes through), not a reason to refuse
    text, _ = read_text_lenient(path)
    wanted = entry.lstrip("/")
    return any(line.strip().lstrip("/") == wanted for line in text.splitlines())


def missing_gitignore_entries(project_root: Path) -> list[str]:
    """The entries of :data:`GITIGNORE_ENTRIES` the project's ``.gitignore`` does not list."""
    return [e for e in GITIGNORE_ENTRIES if not gitignore_has_entry(project_root, e)]


def add_gitignore_entry(project_root: Path, entry: str = OBSERVATIONS_IGNORE) -> bool:
    """Append ``entry`` to ``<project_root>/.gitignore`` once; ``False`` when already present.

    The rest of the file is kept byte for byte, including its line endings; a ``.gitignore``
    that is a symlink leading outside the project is refused.
    """
    from conkeeper.domain.paths import project_memory_dir
    from conkeeper.domain.safewrite import edit_file, line_break, memory_journal_dir

    path = project_root / ".gitignore"
    if gitignore_has_entry(project_root, entry):
        return False
    comment = GITIGNORE_ENTRIES.get(entry, "# ConKeeper")

    def add(current: bytes) -> bytes:
        eol = line_break(current)
        if entry.encode() in [line.strip() for line in current.splitlines()]:
            return current  # added meanwhile
        head = current if not current or current.endswith(b"\n") else current + eol
        return head + comment.encode() + eol + entry.encode() + eol

    journal = memory_journal_dir(project_memory_dir(project_root))
    try:
        edit_file(
            path,
            add,
            command="init --gitignore",
            source="user-cli",
            root=project_root,
            journal=journal,
        )
    except PermissionError:
        raise MemoryFileError(f"{path}: permission denied; cannot update it") from None
    return True
