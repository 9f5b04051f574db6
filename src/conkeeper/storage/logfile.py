"""ConKeeper's own log file: where hook failures and warnings go instead of the agent's stdout.

Lines are appended under a lock to ``<data home>/logs/conkeeper.log``; the file is rotated once
it passes a size limit so it never grows without bound. Logging never raises.
"""

from __future__ import annotations

import contextlib
import os
import time

from conkeeper.domain.paths import log_dir
from conkeeper.domain.textio import append_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

LOG_NAME = "conkeeper.log"
MAX_LOG_BYTES = 2 * 1024 * 1024


def log(message: str, *, level: str = "INFO", env: Mapping[str, str] | None = None) -> None:
    """Append one timestamped line (multi-line messages are indented) to the log file."""
    with contextlib.suppress(Exception):
        directory = log_dir(env)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / LOG_NAME
        with contextlib.suppress(OSError):
            if path.stat().st_size > MAX_LOG_BYTES:
                os.replace(path, directory / (LOG_NAME + ".1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        body = message.rstrip("\n").replace("\n", "\n    ")
        append_text(path, f"{stamp} {level} [{os.getpid()}] {body}\n")


def log_exception(context: str, *, env: Mapping[str, str] | None = None) -> None:
    """Log the exception being handled, with its traceback, under ``context``."""
    import traceback

    log(f"{context}\n{traceback.format_exc()}", level="ERROR", env=env)
