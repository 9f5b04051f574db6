"""Schema 8: a project whose folder is named after a credential is stored by a digest.

Why: the project's identity and root were stored as their paths, so a folder named after a
token (``/home/u/ghp_.../app``) put the token in ``projects``, ``index_roots``, the row
journal, backups and the per-project state. From now on such a project is stored as
``redacted-<digest>`` beside its redacted root (``domain.paths.stored_identity`` /
``stored_path``); this step rewrites the rows earlier versions wrote, so the project's history
is found under the identity every front door now computes (tombstones already used it), and
moves its hook state and handoff folders (and the team sync's marks and cached block) to
the new key. Paths without a credential are not
touched.
"""

from __future__ import annotations

import os
import sqlite3

from conkeeper.domain.paths import stored_identity, stored_path

VERSION = 8
DESCRIPTION = "projects named after a credential: digest identity, redacted root"


def apply(conn: sqlite3.Connection) -> None:
    """Rewrite the rows that hold a credential in a project's identity or root."""
    conn.execute("PRAGMA secure_delete = ON")  # the old bytes do not stay in freed cells
    rows = conn.execute("SELECT id, identity, root, name FROM projects").fetchall()
    for project_id, identity, root, name in rows:
        new = stored_identity(identity)
        shown, named = stored_path(root), stored_path(name)
        if (new, shown, named) == (identity, root, name):
            continue
        moved = conn.execute(  # OR IGNORE: a row already under the digest is never lost
            "UPDATE OR IGNORE projects SET identity = ?, root = ?, name = ? WHERE id = ?",
            (new, shown, named, project_id),
        ).rowcount
        if new != identity and moved:
            conn.execute(
                "UPDATE OR IGNORE team_shared SET identity = ? WHERE identity = ?", (new, identity)
            )
            conn.execute("UPDATE team_deletions SET project = ? WHERE project = ?", (new, identity))
            _move_state(identity, new)
    for root_id, path in conn.execute("SELECT id, path FROM index_roots").fetchall():
        if stored_path(path) != path:
            conn.execute(
                "UPDATE index_roots SET path = ? WHERE id = ?", (stored_path(path), root_id)
            )
    _rekey_files(conn)


def _rekey_files(conn: sqlite3.Connection) -> None:
    """The user's database only (a backup being migrated has no copies of its own): its
    backup and row journal, and the list of memory folders the hooks watch."""
    from conkeeper.domain.paths import DB_FILENAME
    from conkeeper.storage import memory_folders, recovery

    db_file = recovery.database_file(conn)
    if db_file is None or os.path.basename(db_file) != DB_FILENAME:
        return
    recovery.rekey_in_copies(db_file)
    memory_folders.drop_named_after_keys()


def _move_state(old: str, new: str) -> None:
    """The hook state and handoff folders keyed by the old identity, under the new key; the
    team sync's marks and cached team block too."""
    from conkeeper.storage import team_files
    from conkeeper.storage.state import move_project_files

    move_project_files(old, new)
    team_files.move_project(old, new)
