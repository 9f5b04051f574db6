"""Shared CLI output conventions: ``--json`` payloads on stdout, one-line errors on stderr.

Every command prints data through :func:`emit_json` or plain text, and reports failure by
raising :class:`CliError`; ``main`` turns that into one ``conkeeper: ...`` line and an exit code.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from conkeeper.domain.tokens import estimate_tokens
from conkeeper.storage.driver import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CliError",
    "date_flag",
    "emit_json",
    "error_line",
    "estimate_tokens",
    "is_utf8",
    "notice",
    "opened_store",
    "warn",
]


class CliError(Exception):
    """A failure a person should read: one line saying what is wrong and what to do."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def date_flag(flag: str, value: str, *, end: bool = False) -> int:
    """A ``--since``/``--until`` value as Unix ms through the one date parser
    (:mod:`conkeeper.domain.dates`; ``end`` for an upper bound); a bad value is one line."""
    from conkeeper.domain.dates import DateError, parse_when

    try:
        return parse_when(value, end=end)
    except DateError as exc:
        raise CliError(f"{flag} {exc}", 2) from None


def emit_json(payload: Any) -> None:
    """Print ``payload`` as JSON on stdout (UTF-8, stable key order as given; ``\\u`` escapes
    where stdout's encoding is not UTF-8, so the JSON stays valid and the text whole)."""
    import json  # only here: a Markdown search does not load the JSON module

    text = json.dumps(payload, ensure_ascii=not is_utf8(sys.stdout), indent=2, default=str)
    sys.stdout.write(text + "\n")


def is_utf8(stream: object) -> bool:
    """Whether ``stream`` encodes text as UTF-8 (not under ``LC_ALL=C PYTHONUTF8=0`` or a
    Latin-1 locale)."""
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name == "utf-8"
    except LookupError:
        return False


def warn(message: str) -> None:
    """Print a one-line warning on stderr, cleaned whole by the privacy module."""
    from conkeeper.domain.messages import clean_message

    sys.stderr.write(f"conkeeper: warning: {clean_message(message)}\n")


def notice(message: str) -> None:
    """Print a one-line notice (``conkeeper: …``) on stderr, cleaned whole by privacy."""
    from conkeeper.domain.messages import clean_message

    sys.stderr.write(f"conkeeper: {clean_message(message)}\n")


def editor_notice(path: str | os.PathLike[str], what: str = "this change") -> None:
    """Warn when a running vim or emacs holds the file just written open
    (:func:`conkeeper.domain.editors.open_in_editor`): its save would write its own copy back
    over the file, dropping ``what``, so the person reloads the file there first."""
    from conkeeper.domain.editors import open_in_editor

    editor = open_in_editor(path)
    if editor is None:
        return
    reload = ":e" if editor == "vim" else "M-x revert-buffer"
    notice(
        f"warning: {os.path.basename(path)} is open in {editor}; reload it there ({reload}) before "
        f"saving, or the save writes its copy over the file and drops {what}"
    )


def error_line(exc: BaseException, command: str | None = None) -> str:
    """The one line a person reads for a failed command, cleaned whole by privacy.

    A :class:`CliError` (``command`` unset) says what is wrong and what to do; any other
    exception was unexpected: it is logged and named, with the log as the place to look. A
    full disk is named as the cause either way, since the log cannot be written then.
    """
    from conkeeper.domain.messages import disk_full_message, failure_message

    full = disk_full_message(exc)
    if full is not None:
        return f"conkeeper: {full}"
    if command is None:
        return f"conkeeper: {failure_message(exc)}"
    from conkeeper.storage.logfile import log_exception

    log_exception(f"command '{command}' crashed")
    return (
        f"conkeeper: {command} failed: {type(exc).__name__}: {failure_message(exc)} "
        "(details in the ConKeeper log; run 'conkeeper doctor')"
    )


@contextlib.contextmanager
def opened_store(*, reading: bool = False) -> Iterator[sqlite3.Connection]:
    """The user's database for one command (``services.workspace.project_store``); a store
    problem becomes a CliError, so the person reads one line. A damaged database is restored
    first, with one line on stderr saying what was restored; after a command that succeeded, a
    backup is taken when one is due. ``reading``: a command that only shows history reads a
    database it cannot write (a full disk), with one line saying why."""
    from conkeeper.services.workspace import backup_if_due, project_store
    from conkeeper.storage.store import StoreError

    try:
        with project_store(reading=reading, on_notice=notice) as conn:
            yield conn
    except StoreError as exc:
        raise CliError(str(exc)) from None
    problem = backup_if_due()
    if problem is not None:
        from conkeeper.storage.logfile import log

        log(problem, level="WARNING")
