"""Schema migrations, one module per version (``mNNNN_name.py``), applied in order by the store.

Each module exposes ``VERSION`` (consecutive from 1), ``DESCRIPTION`` and ``apply(conn)``;
``apply`` runs inside the store's transaction and must not commit. Use :func:`run_script`.
"""

from __future__ import annotations

import sqlite3


def run_script(conn: sqlite3.Connection, sql: str) -> None:
    """Execute a multi-statement SQL script inside the caller's transaction.

    ``executescript`` would commit the migration's transaction first; this splits the script
    into complete statements (comments and quoted semicolons are safe) and runs each one.
    """
    buffer = ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            conn.execute(buffer)
            buffer = ""
    if buffer.strip():
        conn.execute(buffer)
