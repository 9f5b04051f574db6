"""What memory already knows, so the analysis core never re-proposes a known convention.

Known items are the visible (privacy-stripped) bullets of ``patterns.md``, the entries of
``decisions/``, every earlier retro's backlog, approved and declined items, (through those
files) every correction routed before, and the lines of the instruction files the agent already
loads in every session (the project's ``CLAUDE.md``, ``AGENTS.md``..., the user's
``~/.claude/CLAUDE.md``): a rule stated there is not proposed again. :func:`match` says
whether a proposal's text is already covered and where. Used by reflection and by corrections
routing alike.
"""

from __future__ import annotations

import re
from pathlib import Path

from conkeeper.domain.records import FrozenRecord
from conkeeper.services.analysis.reflection.themes import content_words

MAX_FILES = 200


class KnownItem(FrozenRecord):
    """One known piece of memory: the file it lives in (relative to the memory folder) and its
    text."""

    __slots__ = ("source", "text", "words")
    source: str
    text: str
    words: frozenset[str]

    def __init__(self, source: str, text: str) -> None:
        self._set(source=source, text=text, words=content_words(text))


def _visible(path: Path) -> str:
    from conkeeper.domain.privacy import strip_private
    from conkeeper.domain.textio import MemoryFileError, read_text

    try:
        return strip_private(read_text(path))
    except (MemoryFileError, OSError):
        return ""


def bullets(text: str) -> list[str]:
    """The bullet texts of a Markdown file (checkbox markers dropped)."""
    items = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("- ", "* ")) and not stripped.startswith("<!--"):
            body = stripped[2:].removeprefix("[ ] ").removeprefix("[x] ").strip()
            if body:
                items.append(body)
    return items


# The instruction files a host loads in every session: at the project's top, in its .claude
# folder, and the user's own (shown as ``~/...``).
PROJECT_INSTRUCTIONS = (
    "CLAUDE.md",
    "CLAUDE.local.md",
    "AGENTS.md",
    "GEMINI.md",
    ".claude/CLAUDE.md",
)
HOME_INSTRUCTIONS = (".claude/CLAUDE.md", ".codex/AGENTS.md", ".gemini/GEMINI.md")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_MARKER = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")


def instruction_lines(text: str) -> list[str]:
    """The statements of an instruction file: each line of prose, bullet or numbered item
    (markers dropped), leaving out headings, comments and fenced code."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        body = _MARKER.sub("", line.strip()).strip()
        if body and not fenced and not body.startswith(("#", "<!--", "@")):
            lines.append(body)
    return lines


def _instructions(memory_dir: Path) -> list[KnownItem]:
    """The lines of the instruction files the agent loads besides memory: the project's, when
    ``memory_dir`` is a project's ``.claude/memory``, and the user's own."""
    from conkeeper.domain.paths import home_dir

    home = home_dir()
    found: list[tuple[str, Path]] = []
    root = memory_dir.parent.parent
    if memory_dir.parent.name == ".claude" and root != home:
        found += [(name, root / name) for name in PROJECT_INSTRUCTIONS]
    found += [(f"~/{name}", home / name) for name in HOME_INSTRUCTIONS]
    return [
        KnownItem(shown, line)
        for shown, path in found
        if path.is_file()
        for line in instruction_lines(_visible(path))
    ]


def load_known(memory_dir: Path, *, exclude_retro: str | None = None) -> list[KnownItem]:
    """Everything memory already holds that a proposal could duplicate.

    ``exclude_retro`` names a retro file (``sessions/…-retro.md``) to leave out: the one being
    written now, whose own backlog must not hide its own findings.
    """
    items: list[KnownItem] = []
    for name in ("patterns.md", "product-context.md", "glossary.md"):
        items += [KnownItem(name, b) for b in bullets(_visible(memory_dir / name))]
    decisions = memory_dir / "decisions"
    if decisions.is_dir():
        for path in sorted(decisions.glob("*.md"))[:MAX_FILES]:
            if path.name == "INDEX.md":
                continue
            text = _visible(path)
            if text.strip():
                items.append(KnownItem(f"decisions/{path.name}", text))
    sessions = memory_dir / "sessions"
    if sessions.is_dir():
        for path in sorted(sessions.glob("*-retro.md"))[-MAX_FILES:]:
            relative = f"sessions/{path.name}"
            if relative != exclude_retro:
                items += [KnownItem(relative, b) for b in bullets(_visible(path))]
    return items + _instructions(memory_dir)


def match(text: str, known: list[KnownItem]) -> KnownItem | None:
    """The known item that already covers ``text``: most of its content words (at least two,
    or all when it has fewer) appear in one known item."""
    words = content_words(text)
    best: KnownItem | None = None
    best_share = 0.0
    for item in known:
        share = _covered_share(words, item)
        if share > best_share:
            best, best_share = item, share
    return best


def covers(words: frozenset[str], item: KnownItem) -> bool:
    """Whether ``item`` holds most of ``words`` (a text's :func:`content_words`: the test
    :func:`match` uses)."""
    return _covered_share(words, item) > 0.0


def _covered_share(words: frozenset[str] | set[str], item: KnownItem) -> float:
    """The share of ``words`` in ``item`` when it is at least half and at least two words (all
    when there are fewer), else 0."""
    if not words:
        return 0.0
    shared = len(words & item.words)
    share = shared / len(words)
    return share if shared >= min(2, len(words)) and share >= 0.5 else 0.0


def contradicted(rule: str, known: list[KnownItem]) -> KnownItem | None:
    """The rule already in memory that ``rule`` says the opposite of ("Use float for prices,
    not Decimal." against "Money is always `Decimal`, never float."), as ``consolidate`` reads
    a pair (:func:`relations.relate`), asked only of the memory files' and instruction files'
    lines that share a content word with it; retros are proposals, not rules. Sharing words
    made such a rule "already in memory", and approving one wrote both."""
    from conkeeper.services.upkeep.freshness.relations import read, relate_readings

    words = content_words(rule)
    reading = None
    for item in known:
        if item.source.startswith("sessions/") or item.source == "this retro":
            continue
        if not words & item.words:
            continue
        reading = reading or read(rule)
        relation = relate_readings(reading, read(item.text))
        if relation is not None and relation.kind == "contradiction":
            return item
    return None
