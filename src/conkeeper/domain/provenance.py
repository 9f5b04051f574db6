"""Who wrote a memory entry, and when: the ``<!-- @source: ... -->`` tag.

Why it exists: memory written by an agent is data with a source, never an instruction, and a
person reviewing ``patterns.md`` (or SessionStart framing it for the next agent) must be able to
tell "I wrote this" from "an agent saved this after reading a web page". Every entry ConKeeper
writes carries one compact tag line right after the entry (after its category tag), the same
grammar as ``@category`` and just as invisible in rendered Markdown::

    - Round discounts half-up to the cent
    <!-- @category: convention -->
    <!-- @source: agent-mcp 2026-11-26 approved -->

The tag travels with the entry when it is moved or copied, shows in ``git blame`` and diffs,
and needs no sidecar kept in step. An entry without a tag is the user's own writing (or predates
provenance). The memory parser, search and SessionStart skip the tag like any comment line;
SessionStart turns it into a short "(saved by an agent via MCP, 2026-11-26)" note.
"""

from __future__ import annotations

import re
import time

# source word -> how a person reads it
SOURCES: dict[str, str] = {
    "user-cli": "you, with conkeeper remember",
    "correction": "a correction you approved",
    "agent-correction": "an agent, rewording a correction of yours",
    "reflect": "a reflect finding you approved",
    "agent-mcp": "an agent via MCP remember",
    "agent-cli": "an agent via conkeeper remember",
    "import": "an import",
}
AGENT_SOURCES = frozenset({"agent-mcp", "agent-cli", "agent-correction"})
_TAG = re.compile(
    r"^\s*<!--\s*@source:\s*(?P<source>[a-z][a-z0-9-]*)\s+(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?P<approved>\s+approved)?\s*-->\s*$"
)


class Provenance:
    """One entry's source word, the date it was written (``YYYY-MM-DD``) and whether the user
    approved it after review (an agent's write that was held)."""

    __slots__ = ("approved", "date", "source")

    def __init__(self, source: str, date: str, approved: bool = False) -> None:
        self.source = source
        self.date = date
        self.approved = approved

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Provenance):
            return NotImplemented
        return (self.source, self.date, self.approved) == (other.source, other.date, other.approved)

    def __hash__(self) -> int:
        return hash((self.source, self.date, self.approved))

    def __repr__(self) -> str:
        return f"Provenance({self.source!r}, {self.date!r}, approved={self.approved})"

    @property
    def from_agent(self) -> bool:
        """True when an agent wrote the text (whether or not the user approved it since)."""
        return self.source in AGENT_SOURCES

    def tag(self) -> str:
        """The tag line (no line ending)."""
        return format_source_tag(self.source, self.date, self.approved)

    def describe(self) -> str:
        """A short phrase for a person: ``saved by an agent via MCP remember, 2026-11-26``."""
        who = SOURCES.get(self.source, self.source)
        approved = ", approved by you" if self.approved else ""
        return f"saved by {who}, {self.date}{approved}"


def today(now: float | None = None) -> str:
    """The local date as ``YYYY-MM-DD`` (``now`` in Unix seconds, default the current time)."""
    return time.strftime("%Y-%m-%d", time.localtime(now))


def format_source_tag(source: str, date: str | None = None, approved: bool = False) -> str:
    """The canonical source tag line for ``source`` (one of :data:`SOURCES`)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    when = date or today()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", when):
        raise ValueError(f"invalid date {when!r}; use YYYY-MM-DD")
    return f"<!-- @source: {source} {when}{' approved' if approved else ''} -->"


def parse_source_tag(line: str) -> Provenance | None:
    """The provenance on ``line`` when the whole line is one source tag, else ``None``."""
    if "@source" not in line or len(line) > 120:
        return None
    match = _TAG.match(line)
    if match is None:
        return None
    return Provenance(match["source"], match["date"], bool(match["approved"]))


def is_source_tag(line: str) -> bool:
    """True when ``line`` is a source tag (its content is not a memory entry)."""
    return parse_source_tag(line) is not None
