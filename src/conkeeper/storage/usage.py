"""The ``llm_usage`` table: LLM extractor calls, tokens and failures counted per day.

``services.observations.budget`` decides whether one more call fits; this module only reads and
writes the counts. Each write is one short transaction of its own unless the caller already
holds one, so parallel extraction workers share one count.
"""

from __future__ import annotations

import sqlite3

from conkeeper.storage.store import now_ms, transaction


def usage_on(conn: sqlite3.Connection, day: str) -> tuple[int, int, int, int | None]:
    """``(calls, tokens, failures, exhausted_at ms or None)`` counted on ``day``."""
    row = conn.execute(
        "SELECT calls, tokens, failures, exhausted_at FROM llm_usage WHERE day = ?", (day,)
    ).fetchone()
    if row is None:
        return 0, 0, 0, None
    return int(row[0]), int(row[1]), int(row[2]), row[3]


def last_error_on(conn: sqlite3.Connection, day: str) -> str | None:
    """The last LLM error recorded on ``day``."""
    row = conn.execute("SELECT last_error FROM llm_usage WHERE day = ?", (day,)).fetchone()
    return None if row is None else row[0]


def _write(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> None:
    """One short write of its own, unless the caller already holds a transaction."""
    if conn.in_transaction:
        conn.execute(sql, params)
        return
    with transaction(conn):
        conn.execute(sql, params)


def add_call(
    conn: sqlite3.Connection, day: str, tokens: int, *, failed: bool, error: str | None
) -> None:
    """Count one call on ``day`` with its tokens (and its error, when it failed)."""
    _write(
        conn,
        "INSERT INTO llm_usage(day, calls, tokens, failures, last_error) VALUES (?, 1, ?, ?, ?) "
        "ON CONFLICT(day) DO UPDATE SET calls = calls + 1, tokens = tokens + excluded.tokens, "
        "failures = failures + excluded.failures, "
        "last_error = COALESCE(excluded.last_error, last_error)",
        (day, max(0, int(tokens)), int(failed), (error or None) and error[:300]),
    )


def mark_exhausted(conn: sqlite3.Connection, day: str, reason: str) -> None:
    """Record that ``day``'s budget ran out (the first time only) and why."""
    _write(
        conn,
        "INSERT INTO llm_usage(day, exhausted_at, last_error) VALUES (?, ?, ?) "
        "ON CONFLICT(day) DO UPDATE SET exhausted_at = COALESCE(exhausted_at, "
        "excluded.exhausted_at), last_error = excluded.last_error",
        (day, now_ms(), reason[:300]),
    )
