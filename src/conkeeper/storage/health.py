"""What ``conkeeper doctor`` asks SQLite itself: whether FTS5 is built in, and which journal
mode a database runs in. The checks' wording and advice live in ``services.upkeep.doctor``."""

from __future__ import annotations

import sqlite3


def fts5_available() -> bool:
    """Whether this Python's SQLite can create an FTS5 table (search depends on it)."""
    try:
        conn = sqlite3.connect(":memory:")
        try:
            conn.execute("CREATE VIRTUAL TABLE probe USING fts5(body)")
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return True


def journal_mode(conn: sqlite3.Connection) -> str:
    """The database's journal mode (``wal`` once ConKeeper opened it)."""
    return str(conn.execute("PRAGMA journal_mode").fetchone()[0])
