"""Schema 6: the team outbox's deletions, so that what leaves this store leaves the team too.

Why: the team outbox is derived from the rows themselves (a mark per kind,
``storage.team_outbox``), and a deleted row is no longer there to derive anything from: an
observation or a whole session a person forgot stayed searchable by teammates. Triggers queue
the natural key of every observation, session summary and prompt deleted from a project a team
sync has pushed (``team_shared``), whatever deletes it: ``forget``, a re-extraction dropping a
stale observation, tombstones applied after a restore. The sync sends them (the server keeps a
tombstone) and removes them once the server acknowledged them. The queue holds keys (content
hashes, host session ids, prompt numbers), never text.

A summary or prompt only ever goes with its session (or project): the session's trigger runs
before the delete, while its rows and project are still there; the project's trigger queues
everything of a project deleted whole (its sessions' and observations' own triggers then find
no project and queue nothing twice). Hooks never delete rows, so they pay nothing for this.
A prompt's queued key keeps its row id too: prompts' ids are not ``AUTOINCREMENT``, so the
next prompt may take the id of one deleted from the top, and the sync then moves the prompts'
mark back below it (else that prompt would never be pushed).

``team_shared`` starts with every project of a data home that has synced before (its
``team/marks.json`` exists): any of them may have been pushed. The next sync keeps only the
projects whose rows it pushed, and drops the queued keys of the others.
"""

from __future__ import annotations

import os
import sqlite3

from conkeeper.storage.migrations import run_script

VERSION = 6
DESCRIPTION = "team outbox deletions: keys of rows deleted from projects shared with a team"

_NOW_MS = "CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)"
_COLUMNS = "team_deletions(project, kind, key, number, row_id, deleted_at)"

SQL = f"""
CREATE TABLE team_shared (
    identity    TEXT PRIMARY KEY          -- a project identity whose rows a team sync pushed
);
CREATE TABLE team_deletions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project     TEXT NOT NULL,            -- project identity
    kind        TEXT NOT NULL CHECK (kind IN ('observation', 'summary', 'prompt')),
    key         TEXT NOT NULL,            -- content hash, or the host session id
    number      INTEGER NOT NULL DEFAULT 0,  -- a prompt's number in its session
    row_id      INTEGER NOT NULL DEFAULT 0,  -- a prompt's id (the next prompt may take it)
    deleted_at  INTEGER NOT NULL
);
CREATE INDEX idx_team_deletions_project ON team_deletions(project, id);

CREATE TRIGGER team_outbox_project_gone BEFORE DELETE ON projects
WHEN old.identity IN (SELECT identity FROM team_shared)
BEGIN
    INSERT INTO {_COLUMNS}
    SELECT old.identity, 'observation', content_hash, 0, 0, {_NOW_MS}
    FROM observations WHERE project_id = old.id;
    INSERT INTO {_COLUMNS}
    SELECT old.identity, 'summary', se.host_session_id, 0, 0, {_NOW_MS}
    FROM session_summaries s JOIN sessions se ON se.id = s.session_id
    WHERE se.project_id = old.id;
    INSERT INTO {_COLUMNS}
    SELECT old.identity, 'prompt', se.host_session_id, p.prompt_number, p.id, {_NOW_MS}
    FROM prompts p JOIN sessions se ON se.id = p.session_id WHERE se.project_id = old.id;
END;

CREATE TRIGGER team_outbox_session_gone BEFORE DELETE ON sessions
WHEN (SELECT identity FROM projects WHERE id = old.project_id) IN (SELECT identity FROM team_shared)
BEGIN
    INSERT INTO {_COLUMNS}
    SELECT p.identity, 'summary', old.host_session_id, 0, 0, {_NOW_MS}
    FROM projects p WHERE p.id = old.project_id
    AND EXISTS (SELECT 1 FROM session_summaries WHERE session_id = old.id);
    INSERT INTO {_COLUMNS}
    SELECT p.identity, 'prompt', old.host_session_id, pr.prompt_number, pr.id, {_NOW_MS}
    FROM prompts pr JOIN projects p ON p.id = old.project_id WHERE pr.session_id = old.id;
END;

CREATE TRIGGER team_outbox_observation_gone AFTER DELETE ON observations
WHEN (SELECT identity FROM projects WHERE id = old.project_id) IN (SELECT identity FROM team_shared)
BEGIN
    INSERT INTO {_COLUMNS}
    SELECT identity, 'observation', old.content_hash, 0, 0, {_NOW_MS}
    FROM projects WHERE id = old.project_id;
END;
"""


def apply(conn: sqlite3.Connection) -> None:
    """Create the queue, its triggers and the shared projects (every project, when this data
    home has synced with a team before)."""
    run_script(conn, SQL)
    if _synced_before(conn):
        conn.execute("INSERT OR IGNORE INTO team_shared(identity) SELECT identity FROM projects")


def _synced_before(conn: sqlite3.Connection) -> bool:
    """Whether the data home of this database holds team sync marks (``team/marks.json``
    beside the database file, as ``services.team.sync`` writes them)."""
    for _seq, name, file in conn.execute("PRAGMA database_list").fetchall():
        if name == "main" and file:
            return os.path.isfile(os.path.join(os.path.dirname(file), "team", "marks.json"))
    return False
