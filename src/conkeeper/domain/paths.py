"""Where things live: project roots, memory roots and ConKeeper's data home.

Every other module asks this one rather than building paths itself, so that linked git
worktrees resolve to one project identity and ``CONKEEPER_HOME`` / XDG are honoured everywhere.
Only the standard library and no subprocesses: this runs on the hook path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from conkeeper.domain.records import FrozenRecord

PROJECT_MEMORY_SUBDIR = Path(".claude") / "memory"
DB_FILENAME = "conkeeper.db"


class ProjectLocation(FrozenRecord):
    """A project as ConKeeper sees it: its work-tree root, stable identity and memory folder."""

    __slots__ = ("identity", "memory_dir", "root")
    root: Path
    identity: str
    memory_dir: Path

    def __init__(self, root: Path, identity: str, memory_dir: Path) -> None:
        self._set(root=root, identity=identity, memory_dir=memory_dir)

    @property
    def name(self) -> str:
        """A short display name: the last component of the identity path."""
        return Path(self.identity).name or self.identity


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's home, from ``HOME`` when set (tests and sandboxes rely on this)."""
    value = _env(env).get("HOME")
    return Path(value) if value else Path.home()


def data_home(env: Mapping[str, str] | None = None) -> Path:
    """ConKeeper's data folder: ``CONKEEPER_HOME``, else ``$XDG_DATA_HOME/conkeeper``, else
    ``~/.local/share/conkeeper``."""
    e = _env(env)
    if e.get("CONKEEPER_HOME"):
        return Path(e["CONKEEPER_HOME"]).expanduser()
    if e.get("XDG_DATA_HOME"):
        return Path(e["XDG_DATA_HOME"]).expanduser() / "conkeeper"
    return home_dir(e) / ".local" / "share" / "conkeeper"


def db_path(env: Mapping[str, str] | None = None) -> Path:
    """The user's single SQLite database."""
    return data_home(env) / DB_FILENAME


def log_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where ConKeeper writes its own log files (hook failures land here, never on stdout)."""
    return data_home(env) / "logs"


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """Per-session hook state (counters, flags, pending handoffs)."""
    return data_home(env) / "state"


def global_memory_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's global memory folder, ``~/.claude/memory``."""
    return home_dir(env) / PROJECT_MEMORY_SUBDIR


def project_memory_dir(root: Path) -> Path:
    """A project's memory folder, ``<root>/.claude/memory``."""
    return root / PROJECT_MEMORY_SUBDIR


def _git_marker(directory: Path) -> Path | None:
    marker = directory / ".git"
    try:
        if marker.is_dir() or marker.is_file():
            return marker
    except OSError:
        return None
    return None


def find_project_root(start: Path) -> Path:
    """The git work-tree root containing ``start``; ``start`` itself outside git.

    A ``.git`` file (linked worktree or submodule) marks a work-tree root just like a folder.
    """
    try:
        here = start.expanduser().resolve()
    except OSError:
        return start
    for candidate in (here, *here.parents):
        if _git_marker(candidate) is not None:
            return candidate
    return here


def _read_gitdir_pointer(git_file: Path) -> Path | None:
    try:
        first = git_file.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = Path(first.split(":", 1)[1].strip())
    if not target.is_absolute():
        target = git_file.parent / target
    return target.resolve()


def _common_dir(gitdir: Path) -> Path:
    """The repository's common git dir for a worktree's private git dir (``commondir`` file)."""
    pointer = gitdir / "commondir"
    try:
        rel = pointer.read_text(encoding="utf-8").strip()
    except OSError:
        return gitdir
    common = Path(rel)
    if not common.is_absolute():
        common = gitdir / common
    return common.resolve()


def project_identity(root: Path) -> str:
    """A stable identity for the project at ``root``.

    Linked worktrees (``.git`` is a file pointing into ``<main>/.git/worktrees/<name>``) resolve to
    the main work tree, so every worktree of one repository shares one identity. Anything else is
    identified by its resolved root path.
    """
    marker = _git_marker(root)
    if marker is not None and marker.is_file():
        gitdir = _read_gitdir_pointer(marker)
        if gitdir is not None:
            common = _common_dir(gitdir)
            if common.name == ".git":
                return str(common.parent)
            return str(common)
    try:
        return str(root.resolve())
    except OSError:
        return str(root)


def locate_project(start: Path | str) -> ProjectLocation:
    """Resolve a working directory (a hook's ``cwd``, the CLI's cwd) to its project."""
    root = find_project_root(Path(start))
    return ProjectLocation(
        root=root, identity=project_identity(root), memory_dir=project_memory_dir(root)
    )
