"""Schema 7: when each session summary was stored here, the team outbox's position for them.

Why: the team outbox took summaries past a mark on ``created_at``, the summary's own date. An
imported backup (``import jsonl``) or a journal replayed after a restore brings summaries with
their old dates, older than the mark, so they were never shared although the project shares
(observations and prompts go by id, so theirs were). ``summary_stored`` keeps a stamp per
summary, written by triggers whenever a summary is inserted or its content changes, whatever
writes it: the store's clock, but always after every earlier stamp (``max(now, newest + 1)``:
a stamp from a bad clock in the future cannot hide the next summaries, and no two share one,
so a batch cut between two never loses one). Existing summaries get their ``created_at``, so a
mark the sync kept on it stays right and nothing is pushed twice.

The stamps live in a table of their own: an update of ``session_summaries`` from its own
insert trigger would run the full-text index's update trigger before its insert trigger.
"""

from __future__ import annotations

import sqlite3

from conkeeper.storage.migrations import run_script
from conkeeper.storage.migrations.m0003_observations import SUMMARY_COLUMNS

VERSION = 7
DESCRIPTION = "when each session summary was stored (the team outbox's position), by triggers"

_NEXT = """max(
        CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        coalesce((SELECT max(stored_at) FROM summary_stored), 0) + 1
    )"""
# Plain statements: a trigger's own conflict clause gives way to the firing statement's (the
# summaries' upsert), so ``INSERT OR REPLACE`` here would fail on an existing stamp.
_STAMP_NEW = f"""
    DELETE FROM summary_stored WHERE summary_id = new.id;
    INSERT INTO summary_stored(summary_id, stored_at) VALUES (new.id, {_NEXT});
"""
_STAMP_AGAIN = f"""
    UPDATE summary_stored SET stored_at = {_NEXT} WHERE summary_id = new.id;
    INSERT INTO summary_stored(summary_id, stored_at) SELECT new.id, {_NEXT}
    WHERE NOT EXISTS (SELECT 1 FROM summary_stored WHERE summary_id = new.id);
"""

SQL = f"""
CREATE TABLE summary_stored (
    summary_id  INTEGER PRIMARY KEY REFERENCES session_summaries(id) ON DELETE CASCADE,
    stored_at   INTEGER NOT NULL
);
INSERT INTO summary_stored(summary_id, stored_at) SELECT id, created_at FROM session_summaries;
CREATE INDEX idx_summary_stored_at ON summary_stored(stored_at);
CREATE TRIGGER summary_stored_ai AFTER INSERT ON session_summaries BEGIN{_STAMP_NEW}END;
CREATE TRIGGER summary_stored_au
AFTER UPDATE OF {", ".join((*SUMMARY_COLUMNS, "created_at"))} ON session_summaries
BEGIN{_STAMP_AGAIN}END;
"""


def apply(conn: sqlite3.Connection) -> None:
    """Create the stamps (existing summaries stamped with their ``created_at``) and triggers."""
    run_script(conn, SQL)
