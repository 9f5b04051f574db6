"""Cross-project search by path: find other projects' memory folders under configured roots.

``--all-projects`` only knows projects that have had a ConKeeper session. ``search
--cross-project`` also looks on disk: every folder up to three levels below a root listed in
``project_search_paths`` (``~/code:~/work``, ``:`` or ``,`` separated) or given on the command
line that holds a ``.claude/memory`` folder is a project, whether or not ConKeeper ever ran
there. A symlink whose target leaves its root is refused (a link under ``~/code`` must not
pull in ``/etc`` or another user's home), and hidden folders, ``node_modules`` and virtual
environments are not descended into. Found projects are registered in the store so the search
service indexes and searches them like any known project.
"""

from __future__ import annotations

import os
from pathlib import Path

from conkeeper.domain.paths import locate_project, project_memory_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Mapping

MAX_DEPTH = 3
MAX_PROJECTS = 500
SKIP_DIRS = frozenset(
    {"node_modules", "venv", ".venv", "__pycache__", "dist", "build", "target", "site-packages"}
)


OFF_VALUES = frozenset({"disabled", "off", "none", "false", "no", "[]"})
NOT_CONFIGURED = (
    "Cross-project search not configured: set project_search_paths to the folders that hold "
    "your projects (conkeeper config set project_search_paths ~/code)"
)


def parse_search_paths(value: str, env: Mapping[str, str] | None = None) -> list[Path]:
    """The roots named by a ``project_search_paths`` value (``~`` and ``$VARS`` expanded).

    Accepts ``~/code:~/work``, ``~/code, ~/work`` and the YAML list the bash ConKeeper wrote
    (``["~/code", "~/work"]``); ``disabled`` (or ``off``, ``none``) means no roots.
    """
    home = (env or os.environ).get("HOME") or os.path.expanduser("~")
    value = value.strip()
    if value.lower() in OFF_VALUES:
        return []
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    roots = []
    for part in value.replace(",", os.pathsep).split(os.pathsep):
        text = part.strip().strip("\"'").strip()
        if not text:
            continue
        if text == "~" or text.startswith("~/"):
            text = home + text[1:]
        roots.append(Path(os.path.expandvars(text)))
    return roots


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def _has_memory(folder: Path, root: Path) -> bool:
    """True when ``folder/.claude/memory`` is a folder that (resolved) stays under ``root``."""
    memory = project_memory_dir(folder)
    try:
        return memory.is_dir() and _inside(memory.resolve(), root)
    except OSError:
        return False


def discover(roots: Iterable[Path], max_depth: int = MAX_DEPTH) -> list[Path]:
    """Project folders (holding ``.claude/memory``) at depth 0 to ``max_depth`` under each
    root, sorted; symlinks leaving their root and unreadable folders are skipped."""
    found: dict[Path, None] = {}
    for root in roots:
        try:
            real_root = root.expanduser().resolve(strict=True)
        except OSError:
            continue
        if not real_root.is_dir():
            continue
        _walk(real_root, real_root, 0, max_depth, found)
        if len(found) >= MAX_PROJECTS:
            break
    return sorted(found)[:MAX_PROJECTS]


def _walk(folder: Path, root: Path, depth: int, max_depth: int, found: dict[Path, None]) -> None:
    if _has_memory(folder, root):
        found[folder] = None
    if depth >= max_depth or len(found) >= MAX_PROJECTS:
        return
    try:
        children = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for child in children:
        if child.name.startswith(".") or child.name in SKIP_DIRS:
            continue
        try:
            if not child.is_dir(follow_symlinks=True):
                continue
            path = Path(child.path)
            if child.is_symlink():
                target = path.resolve(strict=True)
                if not _inside(target, root) or target == root:
                    continue  # a link out of the root (or back to it) is refused
                path = target
        except OSError:
            continue
        _walk(path, root, depth + 1, max_depth, found)


def register(conn: sqlite3.Connection, projects: Iterable[Path]) -> int:
    """Record discovered projects in the store (so search indexes them); returns how many."""
    from conkeeper.storage.store import ensure_project, transaction

    count = 0
    with transaction(conn):
        for folder in projects:
            ensure_project(conn, locate_project(folder))
            count += 1
    return count


def search_roots(
    extra: Iterable[str], config_value: str, env: Mapping[str, str] | None
) -> list[Path]:
    """The roots to scan: those given on the command line, then the configured ones."""
    roots: list[Path] = []
    for value in [*extra, config_value]:
        roots.extend(parse_search_paths(value, env))
    return list(dict.fromkeys(roots))


def prepare_cross_project(cwd: Path, extra: Iterable[str] = ()) -> list[Path]:
    """Discover the projects under the configured roots (and ``extra``) and register them in
    the store, so an all-projects search covers them; returns the projects found. Raises
    ``ValueError`` with a one-line message when no root is configured, ``StoreError`` when the
    database cannot be opened."""
    from conkeeper.domain.config import load_config
    from conkeeper.services.workspace import project_store

    location = locate_project(cwd)
    config = load_config(location.root).config
    roots = search_roots(extra, config.project_search_paths, None)
    if not roots:
        raise ValueError(NOT_CONFIGURED)
    projects = discover(roots)
    with project_store() as conn:
        register(conn, projects)
    return projects
