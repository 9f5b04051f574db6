"""ConKeeper's own log file: where hook failures and warnings go instead of the agent's stdout.

Lines are appended under a lock to ``<data home>/logs/conkeeper.log``; the file is rotated once
it passes a size limit so it never grows without bound. Every message is cleaned whole by the
privacy module first (:func:`conkeeper.domain.messages.clean_message`): an exception's text or
a traceback can quote a value, a path or a line of the user's. Logging never raises.
"""

from __future__ import annotations

import contextlib
import os
import time

from conkeeper.domain.messages import clean_message
from conkeeper.domain.paths import log_dir
from conkeeper.domain.textio import append_text, locked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

LOG_NAME = "conkeeper.log"
MAX_LOG_BYTES = 2 * 1024 * 1024


def log(message: str, *, level: str = "INFO", env: Mapping[str, str] | None = None) -> None:
    """Append one timestamped line (multi-line messages are indented) to the log file, the
    message cleaned whole by the privacy module."""
    with contextlib.suppress(Exception):
        message = clean_message(message)
        directory = log_dir(env)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / LOG_NAME
        with contextlib.suppress(OSError):
            if path.stat().st_size > MAX_LOG_BYTES:
                _rotate(path)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        body = message.rstrip("\n").replace("\n", "\n    ")
        append_text(path, f"{stamp} {level} [{os.getpid()}] {body}\n")


def _rotate(path: Path) -> None:
    """Rename the log to ``conkeeper.log.1`` under its lock, when the file the path still names
    is too big: two processes that both saw it too big rotate it once (the second one renamed
    the fresh log over the ``.1`` the first had just made, and the older log was gone)."""
    with open(path, "rb") as handle, locked(handle):
        held = os.fstat(handle.fileno())
        now = os.stat(path)
        if held.st_size > MAX_LOG_BYTES and (held.st_ino, held.st_dev) == (now.st_ino, now.st_dev):
            os.replace(path, path.with_name(LOG_NAME + ".1"))


def log_exception(context: str, *, env: Mapping[str, str] | None = None) -> None:
    """Log the exception being handled, with its traceback, under ``context``; a full disk
    (or a file-size limit) is no fault of ConKeeper's and gets one line saying so."""
    import sys
    import traceback

    exc = sys.exc_info()[1]
    cause = None if exc is None else _full(exc)
    if cause is not None:
        log(f"{context}: {cause}", level="ERROR", env=env)
        return
    log(f"{context}\n{traceback.format_exc()}", level="ERROR", env=env)


def _full(exc: BaseException) -> str | None:
    """The one line for a full disk or a file-size limit behind ``exc``, else ``None``."""
    from conkeeper.domain.messages import disk_full_message

    found = disk_full_message(exc)
    if found is not None:
        return found
    seen: BaseException | None = exc
    for _ in range(8):  # a chain of causes, never a cycle followed for good
        if seen is None:
            return None
        if isinstance(seen, OSError) and seen.errno == 27:  # EFBIG
            return "a file-size limit (ulimit -f) stops every write: raise it and retry"
        if "ulimit" in str(seen) or "disk is full" in str(seen):
            return str(seen)
        seen = seen.__cause__ or seen.__context__
    return None
