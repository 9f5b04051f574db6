"""Regular expressions compiled on first use instead of at import.

A hook process handles one event and exits, so a pattern compiled at import time is paid for
by every hook, whether or not the event ever needs it (the secret detectors alone compiled about
70 patterns, ~15 ms, for a ``ls`` command). :class:`LazyPattern` has the methods of a compiled
pattern that ConKeeper uses and compiles itself the first time one is called.
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class LazyPattern:
    """A :class:`re.Pattern` compiled the first time it is used."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    @property
    def groupindex(self) -> dict[str, int]:
        """Named groups, as :attr:`re.Pattern.groupindex`."""
        return dict(self.compiled.groupindex)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """As :meth:`re.Pattern.search`."""
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """As :meth:`re.Pattern.match`."""
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        """As :meth:`re.Pattern.fullmatch`."""
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        """As :meth:`re.Pattern.finditer`."""
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[object]:
        """As :meth:`re.Pattern.findall`."""
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        """As :meth:`re.Pattern.sub`."""
        return self.compiled.sub(repl, string, count)

    def subn(
        self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0
    ) -> tuple[str, int]:
        """As :meth:`re.Pattern.subn`."""
        return self.compiled.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | None]:
        """As :meth:`re.Pattern.split`."""
        return self.compiled.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"LazyPattern({self.source!r}, {self.flags!r})"
