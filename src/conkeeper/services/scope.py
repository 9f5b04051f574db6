"""Which project a request is about: the one holding a working directory, or every project.

Why it exists: every front door that reads the session record (the CLI's retrieval commands, the
MCP server, later the viewer) must scope its queries the same way — the project found from the
working directory, known to the store or not — without importing another front door. The
foundations work moves the CLI's copy of this into ``services/workspace.py``; the two are meant
to be unified there.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from conkeeper.domain.paths import locate_project
from conkeeper.storage.store import find_project

NO_ROWS = -1  # a project id no row has: a project the store has never seen shows nothing


@dataclass(frozen=True)
class ProjectScope:
    """``project_id`` for queries (``None``: every project) and a label people read."""

    project_id: int | None
    label: str


def project_scope(conn: sqlite3.Connection, cwd: Path, all_projects: bool = False) -> ProjectScope:
    """The scope for ``cwd``'s project, or every project when ``all_projects``."""
    if all_projects:
        return ProjectScope(None, "all projects")
    location = locate_project(cwd)
    found = find_project(conn, location.identity)
    return ProjectScope(NO_ROWS if found is None else found, location.name)
