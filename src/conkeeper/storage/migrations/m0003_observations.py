"""Schema 3: structured observations, session summaries and their full-text indexes.

Observations follow seed 004 (type, title, subtitle, facts, narrative, concepts, files,
prompt_number) and add what a shared, long-lived store needs: the owning session and project,
a per-project content hash that suppresses duplicates, and the extractor that produced the row.
Concepts and files are also exploded into small lookup tables (kept by triggers) so the
by-concept and by-file retrieval levels use an index instead of scanning JSON text. FTS5 tables
(external content, kept in sync by triggers) cover observations, summaries and prompts.
"""

from __future__ import annotations

import sqlite3

from conkeeper.storage.migrations import run_script

VERSION = 3
DESCRIPTION = "observations, session_summaries, FTS over observations/summaries/prompts"

TABLES = """
CREATE TABLE observations (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id     INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    project_id     INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    prompt_number  INTEGER NOT NULL DEFAULT 0,
    type           TEXT NOT NULL
                   CHECK (type IN ('decision', 'bugfix', 'feature', 'refactor', 'discovery')),
    title          TEXT NOT NULL,
    subtitle       TEXT NOT NULL DEFAULT '',
    facts          TEXT NOT NULL DEFAULT '[]',     -- JSON array of strings
    narrative      TEXT NOT NULL DEFAULT '',
    concepts       TEXT NOT NULL DEFAULT '[]',     -- JSON array of strings
    files          TEXT NOT NULL DEFAULT '[]',     -- JSON array, project-relative paths
    content_hash   TEXT NOT NULL,
    extractor      TEXT NOT NULL DEFAULT 'local',
    created_at     INTEGER NOT NULL,
    UNIQUE (project_id, content_hash)
);
CREATE INDEX idx_observations_session ON observations(session_id, id);
CREATE INDEX idx_observations_type ON observations(project_id, type, created_at DESC);
CREATE INDEX idx_observations_prompt ON observations(session_id, prompt_number);
CREATE INDEX idx_observations_project_created ON observations(project_id, created_at DESC, id);
CREATE INDEX idx_observations_created ON observations(created_at DESC, id);

CREATE TABLE observation_concepts (
    observation_id  INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
    concept         TEXT NOT NULL,
    PRIMARY KEY (concept, observation_id)
) WITHOUT ROWID;

CREATE TABLE observation_files (
    observation_id  INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
    path            TEXT NOT NULL,
    basename        TEXT NOT NULL,
    PRIMARY KEY (path, observation_id)
) WITHOUT ROWID;
CREATE INDEX idx_observation_files_basename ON observation_files(basename);
CREATE INDEX idx_observation_files_obs ON observation_files(observation_id);
CREATE INDEX idx_observation_concepts_obs ON observation_concepts(observation_id);

CREATE TABLE session_summaries (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id     INTEGER NOT NULL UNIQUE REFERENCES sessions(id) ON DELETE CASCADE,
    project_id     INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    request        TEXT NOT NULL DEFAULT '',
    investigated   TEXT NOT NULL DEFAULT '',
    learned        TEXT NOT NULL DEFAULT '',
    completed      TEXT NOT NULL DEFAULT '',
    next_steps     TEXT NOT NULL DEFAULT '',
    files_read     TEXT NOT NULL DEFAULT '[]',     -- JSON array
    files_edited   TEXT NOT NULL DEFAULT '[]',     -- JSON array
    notes          TEXT NOT NULL DEFAULT '',
    extractor      TEXT NOT NULL DEFAULT 'local',
    created_at     INTEGER NOT NULL
);
CREATE INDEX idx_session_summaries_project ON session_summaries(project_id, created_at DESC);

-- How far extraction got in each session, so 'extract --all-pending' and per-turn LLM runs
-- only look at what is new.
CREATE TABLE extraction_progress (
    session_id         INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    extractor          TEXT NOT NULL,
    last_event_id      INTEGER NOT NULL DEFAULT 0,
    last_prompt_number INTEGER NOT NULL DEFAULT 0,
    summarized         INTEGER NOT NULL DEFAULT 0,
    updated_at         INTEGER NOT NULL
);

-- Per-day LLM extractor usage, for the configured call and token budgets.
CREATE TABLE llm_usage (
    day              TEXT PRIMARY KEY,            -- YYYY-MM-DD, local time
    calls            INTEGER NOT NULL DEFAULT 0,
    tokens           INTEGER NOT NULL DEFAULT 0,
    failures         INTEGER NOT NULL DEFAULT 0,
    exhausted_at     INTEGER,                     -- set once when a budget stopped a call
    last_error       TEXT
);

-- Transcripts already imported, so a re-run skips unchanged files quickly.
CREATE TABLE imported_transcripts (
    path         TEXT PRIMARY KEY,
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    session_id   INTEGER REFERENCES sessions(id) ON DELETE CASCADE,
    lines        INTEGER NOT NULL DEFAULT 0,
    damaged      INTEGER NOT NULL DEFAULT 0,
    imported_at  INTEGER NOT NULL
);
"""

_INSERT_LOOKUPS = """
    INSERT OR IGNORE INTO observation_concepts(observation_id, concept)
        SELECT new.id, lower(value)
        FROM json_each(CASE WHEN json_valid(new.concepts) THEN new.concepts ELSE '[]' END)
        WHERE type = 'text';
    INSERT OR IGNORE INTO observation_files(observation_id, path, basename)
        SELECT new.id, value, substr(value, length(rtrim(value, replace(value, '/', ''))) + 1)
        FROM json_each(CASE WHEN json_valid(new.files) THEN new.files ELSE '[]' END)
        WHERE type = 'text';"""

LOOKUP_TRIGGERS = f"""
CREATE TRIGGER observations_lookup_ai AFTER INSERT ON observations BEGIN{_INSERT_LOOKUPS}
END;
CREATE TRIGGER observations_lookup_au AFTER UPDATE OF concepts, files ON observations BEGIN
    DELETE FROM observation_concepts WHERE observation_id = old.id;
    DELETE FROM observation_files WHERE observation_id = old.id;{_INSERT_LOOKUPS}
END;
"""


def external_fts(table: str, columns: tuple[str, ...], update_of: str = "") -> str:
    """An FTS5 index over ``table``'s ``columns`` (external content) and the three triggers
    that keep it in step on insert, delete and update (``update_of``: ``OF col, ...``)."""
    fts = f"{table}_fts"
    cols = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    insert = f"INSERT INTO {fts}(rowid, {cols}) VALUES (new.id, {new});"
    delete = f"INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.id, {old});"
    return f"""
CREATE VIRTUAL TABLE {fts} USING fts5(
    {cols}, content='{table}', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} BEGIN {insert} END;
CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} BEGIN {delete} END;
CREATE TRIGGER {fts}_au AFTER UPDATE {update_of} ON {table} BEGIN {delete} {insert} END;
"""


SUMMARY_COLUMNS = (
    "request", "investigated", "learned", "completed", "next_steps", "notes", "files_read",
    "files_edited",
)  # fmt: skip

FTS = (
    external_fts("observations", ("title", "subtitle", "facts", "narrative", "concepts", "files"))
    + external_fts("session_summaries", SUMMARY_COLUMNS)
    + external_fts("prompts", ("text",), update_of="OF text")
    + "INSERT INTO prompts_fts(prompts_fts) VALUES ('rebuild');\n"
)


def apply(conn: sqlite3.Connection) -> None:
    """Create the observation tables, their lookup tables, FTS indexes and sync triggers."""
    run_script(conn, TABLES)
    run_script(conn, LOOKUP_TRIGGERS)
    run_script(conn, FTS)
