"""The one progress bar of the CLI, fed by a service's ``progress(done, total)`` callback.

Services never write to the terminal (docs/architecture.md); the long-running ones (index
refresh, transcript import) take a plain callback instead, and a command passes a
:class:`ProgressBar` as that callback. The bar draws on stderr only when it is a terminal, so
piped output and tests stay clean.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

BAR_WIDTH = 30


def count_files(done: int, total: int) -> str:
    """``"3/10 files"``: the default label of a bar's position."""
    return f"{done}/{total} files"


def megabytes(done: int, total: int) -> str:
    """``"1.2/3.4 MB"``: a bar's position when the units are bytes."""
    return f"{done / 1e6:.1f}/{total / 1e6:.1f} MB"


class ProgressBar:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal.

    Call it as ``bar(done, total)``; it redraws at most ten times a second and always at the
    end. ``minimum_total`` skips work that finishes before a bar is worth drawing.
    """

    def __init__(
        self,
        label: str,
        stream: TextIO | None = None,
        *,
        position: Callable[[int, int], str] = count_files,
        minimum_total: int = 0,
        enabled: bool | None = None,
    ) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.position = position
        self.minimum_total = minimum_total
        self.enabled = bool(self.stream.isatty()) if enabled is None else enabled
        self.last = 0.0
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        """Redraw at most ten times a second, and always at the end."""
        if not self.enabled or total <= 0 or total < self.minimum_total:
            return
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        filled = BAR_WIDTH * min(done, total) // total
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.position(done, total)}")
        self.stream.flush()
        self.drawn = True
        if done >= total:
            self.finish()

    def finish(self) -> None:
        """End the bar's line so later output starts on a fresh one."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
