"""The per-day call and token budget of the LLM extractors (spec: "held to a configured budget").

Usage is counted per local calendar day in the store's ``llm_usage`` table, so parallel workers
and separate processes share one count. Before a call the extractor asks :func:`check`; after
it, :func:`record` adds the real (or estimated) tokens. When a budget stops a call the first
time in a day, :func:`note_exhausted` logs it once; :func:`budget_status` is what
``conkeeper doctor`` and ``conkeeper extract --json`` show.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from conkeeper.domain.config import Config
from conkeeper.storage.usage import add_call, last_error_on, mark_exhausted, usage_on

EXPECTED_OUTPUT_TOKENS = 800


@dataclass(frozen=True)
class Decision:
    """Whether one more call fits today's budget, and why not when it does not."""

    allowed: bool
    reason: str = ""


def today() -> str:
    """The budget day: the local calendar date, ``YYYY-MM-DD``."""
    return time.strftime("%Y-%m-%d", time.localtime())


def usage(conn: sqlite3.Connection, day: str | None = None) -> tuple[int, int, int, int | None]:
    """``(calls, tokens, failures, exhausted_at)`` used on ``day`` (default today)."""
    return usage_on(conn, day or today())


def check(conn: sqlite3.Connection, config: Config, estimated_input_tokens: int) -> Decision:
    """May one more call of about ``estimated_input_tokens`` (plus its reply) run today?"""
    calls, tokens, _failures, _exhausted = usage(conn)
    if calls >= config.llm_daily_call_budget:
        return Decision(
            False,
            f"daily LLM call budget reached ({calls}/{config.llm_daily_call_budget} calls)",
        )
    needed = estimated_input_tokens + EXPECTED_OUTPUT_TOKENS
    if tokens + needed > config.llm_daily_token_budget:
        return Decision(
            False,
            f"daily LLM token budget reached ({tokens} used + ~{needed} needed > "
            f"{config.llm_daily_token_budget})",
        )
    return Decision(True)


def record(
    conn: sqlite3.Connection, tokens: int, *, failed: bool = False, error: str | None = None
) -> None:
    """Count one call (successful or not: a failed call still spent quota) and its tokens."""
    add_call(conn, today(), tokens, failed=failed, error=error)


def note_exhausted(conn: sqlite3.Connection, reason: str) -> bool:
    """Mark today's budget as exhausted; True only the first time (the caller says so once)."""
    _calls, _tokens, _failures, exhausted = usage(conn)
    if exhausted is not None:
        return False
    mark_exhausted(conn, today(), reason)
    from conkeeper.storage.logfile import log

    log(f"LLM extractor stopped for today: {reason}; using the local extractor", level="WARNING")
    return True


def budget_status(conn: sqlite3.Connection | None = None, config: Config | None = None) -> dict:
    """Today's LLM usage against the budgets, for ``conkeeper doctor`` and ``extract --json``.

    Both arguments are optional: the store and the current project's config are opened when
    not given. Keys: ``extractor``, ``day``, ``calls``, ``call_budget``, ``tokens``,
    ``token_budget``, ``failures``, ``exhausted``, ``last_error``, ``message``.
    """
    if config is None:
        from conkeeper.domain.config import load_config
        from conkeeper.domain.paths import locate_project

        config = load_config(locate_project(Path.cwd()).root).config
    own = conn is None
    if conn is None:
        from conkeeper.storage.store import open_store

        conn = open_store()
    try:
        calls, tokens, failures, exhausted = usage(conn)
        last_error = last_error_on(conn, today())
    finally:
        if own:
            conn.close()
    stopped = exhausted is not None or calls >= config.llm_daily_call_budget
    message = (
        f"{config.extractor}: {calls}/{config.llm_daily_call_budget} calls, "
        f"{tokens}/{config.llm_daily_token_budget} tokens today"
    )
    if config.extractor == "local":
        message = "local extractor (no LLM calls); " + message.split(": ", 1)[1]
    elif stopped:
        message += " — budget reached, using the local extractor until tomorrow"
    return {
        "extractor": config.extractor,
        "day": today(),
        "calls": calls,
        "call_budget": config.llm_daily_call_budget,
        "tokens": tokens,
        "token_budget": config.llm_daily_token_budget,
        "failures": failures,
        "exhausted": bool(stopped),
        "last_error": last_error,
        "message": message,
    }
