"""Which transcript files were imported, so an unchanged file is skipped on the next import
(``imported_transcripts``: path, size, mtime, session, line counts)."""

from __future__ import annotations

import sqlite3

from conkeeper.storage.store import now_ms


def import_stamp(conn: sqlite3.Connection, path: str) -> tuple[int, int] | None:
    """``(size, mtime_ns)`` of ``path`` when it was last imported, or ``None``."""
    row = conn.execute(
        "SELECT size, mtime_ns FROM imported_transcripts WHERE path = ?", (path,)
    ).fetchone()
    return None if row is None else (int(row[0]), int(row[1]))


def record_import(
    conn: sqlite3.Connection,
    path: str,
    size: int,
    mtime_ns: int,
    session_id: int,
    lines: int,
    damaged: int,
) -> None:
    """Remember that ``path`` (at this size and mtime) was imported into ``session_id``."""
    conn.execute(
        "INSERT INTO imported_transcripts(path, size, mtime_ns, session_id, lines, damaged, "
        "imported_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
        "size = excluded.size, mtime_ns = excluded.mtime_ns, "
        "session_id = excluded.session_id, lines = excluded.lines, "
        "damaged = excluded.damaged, imported_at = excluded.imported_at",
        (path, size, mtime_ns, session_id, lines, damaged, now_ms()),
    )
