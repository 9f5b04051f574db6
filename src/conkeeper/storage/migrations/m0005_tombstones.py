"""Schema 5: tombstones, so that what a person forgot stays forgotten.

Why: ``forget`` deletes rows, but the same session can be read again from its Claude Code
transcript (``import transcripts``), from an older export (``import jsonl``), from the backup or
from the row journal a damaged database is restored with. A tombstone keeps the natural key of
what was forgotten (never its text) and every one of those paths checks it before inserting.

``kind`` is ``project`` (every session of the project that started before ``forgotten_at``),
``session`` (one host session of a project) or ``observation`` (one content hash of a project).
"""

from __future__ import annotations

import sqlite3

from conkeeper.storage.migrations import run_script

VERSION = 5
DESCRIPTION = "tombstones of forgotten projects, sessions and observations"

SQL = """
CREATE TABLE tombstones (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('project', 'session', 'observation')),
    project       TEXT NOT NULL,            -- project identity
    key           TEXT NOT NULL DEFAULT '', -- host session id or content hash ('' for a project)
    forgotten_at  INTEGER NOT NULL,
    UNIQUE (kind, project, key)
);
"""


def apply(conn: sqlite3.Connection) -> None:
    """Create the tombstones table."""
    run_script(conn, SQL)
