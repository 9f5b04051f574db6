"""Schema 1: projects, host sessions, prompts and captured tool events."""

from __future__ import annotations

import sqlite3

from conkeeper.storage.migrations import run_script

VERSION = 1
DESCRIPTION = "projects, sessions, prompts, tool_events"

SQL = """
CREATE TABLE projects (
    id            INTEGER PRIMARY KEY,
    identity      TEXT NOT NULL UNIQUE,   -- main work-tree root; shared by linked worktrees
    root          TEXT NOT NULL,          -- last root seen (a worktree may differ from identity)
    name          TEXT NOT NULL,
    created_at    INTEGER NOT NULL,       -- Unix ms, like every *_at column
    last_seen_at  INTEGER NOT NULL
);

CREATE TABLE sessions (
    id               INTEGER PRIMARY KEY,
    host_session_id  TEXT NOT NULL,           -- the host's session_id (sanitised)
    project_id       INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    host             TEXT NOT NULL DEFAULT 'claude-code',
    title            TEXT,                    -- first prompt (redacted), set once
    subtitle         TEXT,
    started_at       INTEGER NOT NULL,
    ended_at         INTEGER,
    status           TEXT NOT NULL DEFAULT 'active'
                     CHECK (status IN ('active', 'completed', 'abandoned', 'imported')),
    end_reason       TEXT,
    transcript_path  TEXT,
    UNIQUE (project_id, host_session_id)
);
CREATE INDEX idx_sessions_project_started ON sessions(project_id, started_at DESC);

CREATE TABLE prompts (
    id             INTEGER PRIMARY KEY,
    session_id     INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    prompt_number  INTEGER NOT NULL,          -- 1-based within the session
    text           TEXT NOT NULL,             -- privacy-cleaned and redacted
    created_at     INTEGER NOT NULL,
    UNIQUE (session_id, prompt_number)
);

CREATE TABLE tool_events (
    id             INTEGER PRIMARY KEY,
    session_id     INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    prompt_number  INTEGER NOT NULL DEFAULT 0,
    tool_use_id    TEXT NOT NULL,             -- host id; synthesised when the host sends none
    tool_name      TEXT NOT NULL,
    action         TEXT NOT NULL,             -- read | write | execute | search | web | other
    paths          TEXT NOT NULL DEFAULT '[]',  -- JSON array, project-relative where possible
    input_summary  TEXT NOT NULL DEFAULT '',  -- redacted, truncated
    status         TEXT NOT NULL CHECK (status IN ('success', 'failure', 'interrupted')),
    error          TEXT,                      -- redacted, truncated failure message
    exit_code      INTEGER,
    duration_ms    INTEGER,
    created_at     INTEGER NOT NULL,
    UNIQUE (session_id, tool_use_id)
);
CREATE INDEX idx_tool_events_session_prompt ON tool_events(session_id, prompt_number);
CREATE INDEX idx_tool_events_created ON tool_events(created_at);
"""


def apply(conn: sqlite3.Connection) -> None:
    """Create the core tables."""
    run_script(conn, SQL)
