"""Which project a request is about, and the database opened for it.

Every front door (the CLI, the MCP server, the viewer, other agents' adapters) answers the same
two questions before it calls a service: "which project is this?" and "give me the store". They
are answered here once, so "the current project" means the same thing through every door:
the work tree around the working directory (``domain.paths.locate_project``), linked git
worktrees sharing one identity, scoped to the store's row for that identity.

Errors stay typed: opening the store raises :class:`conkeeper.storage.store.StoreError` (a
one-line message); the CLI turns it into one ``conkeeper: ...`` line, a hook fails open.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from conkeeper.domain.paths import ProjectLocation, locate_project
from conkeeper.storage.store import (
    DamagedStore,
    UnwritableStore,
    find_project,
    open_for_reading,
    open_store,
)

ALL_PROJECTS_LABEL = "all projects"
# A project id no row has: the filter for a project the store has never seen.
NO_PROJECT = -1


def current_project(cwd: Path | None = None) -> ProjectLocation:
    """The project around ``cwd`` (default: the process's working directory)."""
    return locate_project(cwd if cwd is not None else Path.cwd())


@dataclass(frozen=True)
class ProjectScope:
    """What a query is scoped to: one project, or every project ConKeeper knows."""

    location: ProjectLocation | None  # None: every project
    project_id: int | None  # the store's row; None for every project or an unseen one
    label: str  # how to name the scope to a person ("myapp", "all projects")

    @property
    def all_projects(self) -> bool:
        """Whether the scope is every project."""
        return self.location is None

    @property
    def known(self) -> bool:
        """Whether the store has seen this project (every project always counts as known)."""
        return self.all_projects or self.project_id is not None

    @property
    def row_filter(self) -> int | None:
        """The ``project_id`` to filter rows by: ``None`` for every project, and
        :data:`NO_PROJECT` (which matches no row) for a project the store never saw."""
        if self.all_projects:
            return None
        return self.project_id if self.project_id is not None else NO_PROJECT


def project_scope(
    conn: sqlite3.Connection,
    *,
    all_projects: bool = False,
    cwd: Path | None = None,
    location: ProjectLocation | None = None,
) -> ProjectScope:
    """The scope of a request: every project, or one project with its store row (``location``
    when the front door already knows it, else the project around ``cwd``)."""
    if all_projects:
        return ProjectScope(None, None, ALL_PROJECTS_LABEL)
    where = location if location is not None else current_project(cwd)
    return ProjectScope(where, find_project(conn, where.identity), where.name)


@contextlib.contextmanager
def project_store(
    path: Path | None = None,
    *,
    readonly: bool = False,
    reading: bool = False,
    on_notice: Callable[[str], None] | None = None,
) -> Iterator[sqlite3.Connection]:
    """The user's database (migrated unless ``readonly``) for one request, closed afterwards.

    A damaged database is restored first (:func:`open_or_restore`); ``on_notice`` receives the
    one line saying what was restored. ``reading``: the request only reads, so a database that
    cannot be written (a full disk, a read-only file) is opened as it is, ``on_notice`` told
    why. Raises ``StoreError`` with a one-line message when it cannot be opened.
    """
    try:
        conn = open_or_restore(path, readonly=readonly, on_notice=on_notice)
    except UnwritableStore as exc:
        if not reading:
            raise
        conn = open_for_reading(path)
        if on_notice is not None:
            on_notice(f"{exc}; showing the history as stored (nothing new is kept)")
    try:
        yield conn
    finally:
        conn.close()


def open_or_restore(
    path: Path | None = None,
    *,
    readonly: bool = False,
    on_notice: Callable[[str], None] | None = None,
) -> sqlite3.Connection:
    """Open the store; when its file is damaged, restore it from the backup, the row journal and
    what salvage still reads (``storage.recovery``), tell ``on_notice`` (and the log) what was
    restored and what was lost, and open the result."""
    try:
        return _with_waiting_rows(open_store(path, readonly=readonly), path, readonly)
    except DamagedStore:
        from conkeeper.domain.paths import db_path
        from conkeeper.storage.logfile import log
        from conkeeper.storage.recovery import recover

        target = path or db_path()
        notice = recover(target, _shown(target))
        if notice is not None:
            log(notice, level="WARNING")
            if on_notice is not None:
                on_notice(notice)
        return _with_waiting_rows(open_store(path, readonly=readonly), path, readonly)


def _with_waiting_rows(
    conn: sqlite3.Connection, path: Path | None, readonly: bool
) -> sqlite3.Connection:
    """``conn`` after storing the history hooks kept for later (``storage.pending``: the
    database was locked or damaged when they ran), so every command shows it."""
    if not readonly:
        from conkeeper.domain.paths import db_path
        from conkeeper.storage.pending import store_waiting

        store_waiting(conn, str(path or db_path()))
    return conn


def _shown(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home + "/") else text


def backup_if_due(path: Path | None = None) -> str | None:
    """Take a backup of the store when one is due (``storage.recovery.backup_due``): called
    after a command and by the worker SessionEnd starts, never inside a hook's wait. Returns
    a problem to log, or ``None``."""
    from conkeeper.domain.paths import db_path
    from conkeeper.storage.recovery import backup_due, make_backup
    from conkeeper.storage.store import StoreError

    target = path or db_path()
    if not backup_due(target):
        return None
    try:
        make_backup(target, only_if_due=True)  # asked again under the backup lock
    except (StoreError, OSError, sqlite3.DatabaseError) as exc:  # a full disk: the command
        return f"backup skipped: {exc}"  # it follows still succeeded
    return None
