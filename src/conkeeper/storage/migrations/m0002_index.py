"""Schema 2: the search index over memory files (project memory, global memory, session files).

The index is derived data: every row can be rebuilt from the Markdown files, and only text that
passed the privacy module (``blank_private``) is ever inserted. Three levels:

* ``index_roots``   one memory folder: a project's ``.claude/memory`` or the global one;
* ``index_files``   one Markdown file under a root, with the stamp (size, mtime, sha256) that
                    makes re-indexing incremental;
* ``index_entries`` one section (or a chunk of a long one) with its line span, heading path,
                    categories and tags; its ``id`` is the rowid of ``index_fts``.

``index_fts`` holds the searchable text: the heading, the body (the entry's lines, tag lines
blanked, so line numbers map 1:1 to the file) and ``terms`` (identifier parts and whole forms,
categories, tags). Deleting an entry deletes its FTS row through a trigger, so removing a file
or a root cascades all the way down.
"""

from __future__ import annotations

import sqlite3

from conkeeper.storage.migrations import run_script

VERSION = 2
DESCRIPTION = "search index: index_roots, index_files, index_entries, index_fts (FTS5)"

SQL = """
CREATE TABLE index_roots (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER REFERENCES projects(id) ON DELETE CASCADE,  -- NULL for the global root
    kind        TEXT NOT NULL CHECK (kind IN ('project', 'global')),
    path        TEXT NOT NULL,              -- absolute memory folder
    checked_at  INTEGER NOT NULL DEFAULT 0, -- Unix ms of the last change written
    fingerprint TEXT                        -- hash of every (path, size, mtime) at the last
                                            -- refresh; NULL forces a file-by-file check
);
CREATE UNIQUE INDEX idx_index_roots_project ON index_roots(project_id) WHERE kind = 'project';
CREATE UNIQUE INDEX idx_index_roots_global ON index_roots(kind) WHERE kind = 'global';

CREATE TABLE index_files (
    id          INTEGER PRIMARY KEY,
    root_id     INTEGER NOT NULL REFERENCES index_roots(id) ON DELETE CASCADE,
    rel_path    TEXT NOT NULL,              -- POSIX path below the root
    kind        TEXT NOT NULL CHECK (kind IN ('memory', 'session', 'global')),
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    sha256      TEXT NOT NULL,
    file_time   INTEGER NOT NULL,           -- Unix ms: the date in the file name, else mtime
    status      TEXT NOT NULL CHECK (status IN ('ok', 'private', 'skipped')),
    note        TEXT,                       -- why a file was skipped
    entries     INTEGER NOT NULL DEFAULT 0,
    indexed_at  INTEGER NOT NULL,
    UNIQUE (root_id, rel_path)
);

CREATE TABLE index_entries (
    id            INTEGER PRIMARY KEY,      -- = index_fts.rowid
    file_id       INTEGER NOT NULL REFERENCES index_files(id) ON DELETE CASCADE,
    line_start    INTEGER NOT NULL,         -- 1-based, inclusive, in the original file
    line_end      INTEGER NOT NULL,
    heading_path  TEXT NOT NULL DEFAULT '', -- headings joined with ' > '
    categories    TEXT NOT NULL DEFAULT '', -- ' a b ' (space padded, for LIKE '% a %')
    tags          TEXT NOT NULL DEFAULT '',
    spans         TEXT NOT NULL DEFAULT ''  -- JSON [[start, end, [categories], [tags]], ...]
);
CREATE INDEX idx_index_entries_file ON index_entries(file_id);

CREATE VIRTUAL TABLE index_fts USING fts5(
    heading, body, terms,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER index_entries_delete AFTER DELETE ON index_entries BEGIN
    DELETE FROM index_fts WHERE rowid = old.id;
END;
"""


def apply(conn: sqlite3.Connection) -> None:
    """Create the index tables, the FTS5 table and the trigger that keeps them in step."""
    run_script(conn, SQL)
