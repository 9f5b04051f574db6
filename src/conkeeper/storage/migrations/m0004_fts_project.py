"""Schema 4: the project id inside the observation and summary FTS indexes.

Why: a search of one project's session record asked the FTS table for the best matches of all
projects and then dropped the other projects' rows; for a frequent word in a store shared by
several projects, that meant scoring every match of every project (or, when the project's own
rows were few among the best, ranking every match with a join). With a ``project_id`` column in
the index, ``{text columns} : (query) AND project_id : "7"`` lets FTS5 intersect the two posting
lists itself, so only the project's own matches are scored. Queries restrict themselves to the
text columns, so a search for "7" never matches a project id, and the column's BM25 weight is 0.

The tables are external-content indexes over ``observations`` and ``session_summaries``, which
already hold ``project_id``; this drops and recreates them (and their triggers) with the extra
column and rebuilds them from the rows. Prompts carry no project id of their own (their session
does) and keep their index.
"""

from __future__ import annotations

import sqlite3

from conkeeper.storage.migrations import run_script
from conkeeper.storage.migrations.m0003_observations import SUMMARY_COLUMNS, external_fts

VERSION = 4
DESCRIPTION = "project id in the observation and summary FTS indexes (scoped ranking)"

OBSERVATION_COLUMNS = ("title", "subtitle", "facts", "narrative", "concepts", "files")


def _recreate(table: str, columns: tuple[str, ...]) -> str:
    fts = f"{table}_fts"
    drop = "".join(f"DROP TRIGGER IF EXISTS {fts}_{suffix};\n" for suffix in ("ai", "ad", "au"))
    return (
        drop
        + f"DROP TABLE IF EXISTS {fts};\n"
        + external_fts(table, (*columns, "project_id"))
        + f"INSERT INTO {fts}({fts}) VALUES ('rebuild');\n"
    )


def apply(conn: sqlite3.Connection) -> None:
    """Recreate the two FTS indexes with a ``project_id`` column and fill them."""
    run_script(conn, _recreate("observations", OBSERVATION_COLUMNS))
    run_script(conn, _recreate("session_summaries", SUMMARY_COLUMNS))
