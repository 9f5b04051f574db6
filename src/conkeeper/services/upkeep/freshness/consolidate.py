"""Consolidation: near-duplicate and contradictory entries across memory files, proposed as a
reviewable diff and applied only on request.

Memory grows by accretion: the same convention lands in ``patterns.md`` and in an ADR, a rule
is written once as "always" and later as "never". This module finds such pairs among the
bullets and paragraphs of the curated memory files and proposes one change per pair:

* **duplicate** — two entries whose words overlap almost entirely: the copy in the less
  authoritative file is removed (ADRs outrank ``patterns.md``, which outranks the others;
  within one rank the older file keeps it);
* **contradiction** — two entries about the same thing where one negates what the other
  affirms ("always"/"never", "use"/"don't use"): the entry in the file changed longer ago is
  removed, since the newer statement is the one the team wrote last.

:func:`plan` returns the proposals and a unified diff per file; nothing is written. :func:`apply`
writes each changed file atomically (``domain.textio.atomic_write``) and refuses a file that
changed since it was read, so a concurrent human edit is never clobbered.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from conkeeper.domain.privacy import blank_private, is_private_file
from conkeeper.domain.records import Record
from conkeeper.domain.textio import MemoryFileError, atomic_write, file_stamp, read_text
from conkeeper.services.upkeep.freshness.citations import Entry, split_entries
from conkeeper.services.upkeep.freshness.stale import memory_files

DUPLICATE_SIMILARITY = 0.75
CONTRADICTION_SIMILARITY = 0.6
MIN_WORDS = 4
NEGATIONS = frozenset(
    {"never", "not", "no", "don't", "dont", "avoid", "without", "stop", "shouldn't", "mustn't"}
)
STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "is",
        "are",
        "be",
        "it",
        "this",
        "that",
        "as",
        "by",
        "at",
        "from",
        "we",
        "our",
        "use",
        "uses",
        "used",
        "using",
        "always",
        "should",
        "must",
    ]
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_'./-]*")
_TAG_LINE = re.compile(
    r"^\s*<!--\s*(?:@(?:category|tag):\s*[a-z][a-z0-9-]*|@source:[ a-z0-9-]{1,80})\s*-->\s*$"
)


class Proposal(Record):
    """One proposed change: ``kind`` (duplicate, contradiction), the entry kept and the entry
    removed (``file:line`` and text), and why."""

    __slots__ = ("keep", "keep_text", "kind", "reason", "remove", "remove_text", "similarity")

    def __init__(
        self,
        kind: str,
        keep: str,
        keep_text: str,
        remove: str,
        remove_text: str,
        reason: str,
        similarity: float,
    ) -> None:
        self.kind = kind
        self.keep = keep
        self.keep_text = keep_text
        self.remove = remove
        self.remove_text = remove_text
        self.reason = reason
        self.similarity = similarity

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly form."""
        return {name: getattr(self, name) for name in self.__slots__}


class Plan(Record):
    """The proposals, the new text of each changed file, and the stamps read (for apply)."""

    __slots__ = ("diff", "new_text", "proposals", "stamps")

    def __init__(self) -> None:
        self.proposals: list[Proposal] = []
        self.new_text: dict[Path, str] = {}
        self.stamps: dict[Path, tuple[int, int] | None] = {}
        self.diff = ""


class _Item(Record):
    __slots__ = ("entry", "negated", "path", "rank", "rel", "words")

    def __init__(self, path: Path, rel: str, entry: Entry, rank: tuple[int, float]) -> None:
        self.path = path
        self.rel = rel
        self.entry = entry
        self.rank = rank
        tokens = _WORD.findall(" ".join(entry.lines).lower())
        self.negated = any(t in NEGATIONS or t.endswith("n't") for t in tokens)
        self.words = frozenset(t for t in tokens if t not in STOPWORDS and t not in NEGATIONS)


def _rank(rel: str, path: Path) -> tuple[int, float]:
    """Authority of a file (lower is stronger) and its age (older first within a rank)."""
    level = 0 if rel.startswith("decisions/") else 1 if rel == "patterns.md" else 2
    try:
        return level, path.stat().st_mtime
    except OSError:
        return level, 0.0


def _items(
    memory_dir: Path, stamps: dict[Path, tuple[int, int] | None]
) -> tuple[list[_Item], dict[Path, str]]:
    items: list[_Item] = []
    texts: dict[Path, str] = {}
    for path in memory_files(memory_dir):
        stamps[path] = file_stamp(path)  # before reading: an edit after this is detected
        try:
            text = read_text(path)
        except MemoryFileError:
            continue
        if is_private_file(text):
            continue
        texts[path] = text
        rel = path.relative_to(memory_dir).as_posix()
        rank = _rank(rel, path)
        for entry in split_entries(blank_private(text), every=True):
            item = _Item(path, rel, entry, rank)
            if len(item.words) >= MIN_WORDS:
                items.append(item)
    return items, texts


def _similarity(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _pairs(items: list[_Item]) -> list[tuple[float, _Item, _Item]]:
    """Candidate pairs sharing words, scored (an inverted index keeps this near-linear)."""
    index: dict[str, list[int]] = {}
    for number, item in enumerate(items):
        for word in item.words:
            index.setdefault(word, []).append(number)
    shared: dict[tuple[int, int], int] = {}
    for postings in index.values():
        if len(postings) > 50:
            continue  # a word in everything says nothing about sameness
        for i, a in enumerate(postings):
            for b in postings[i + 1 :]:
                shared[(a, b)] = shared.get((a, b), 0) + 1
    scored = []
    for (a, b), count in shared.items():
        if count >= 2:
            score = _similarity(items[a].words, items[b].words)
            if score >= CONTRADICTION_SIMILARITY:
                scored.append((score, items[a], items[b]))
    return sorted(scored, key=lambda row: -row[0])


def _where(item: _Item) -> str:
    return f"{item.rel}:{item.entry.start}"


def _text(item: _Item) -> str:
    from conkeeper.domain.secrets import redact

    return redact(" ".join(" ".join(item.entry.lines).split())[:200])


def find(
    memory_dir: Path, stamps: dict[Path, tuple[int, int] | None] | None = None
) -> tuple[list[tuple[Proposal, _Item]], dict[Path, str]]:
    """Proposals (with the entry each removes) and the texts they were computed from."""
    items, texts = _items(memory_dir, {} if stamps is None else stamps)
    removed: set[int] = set()
    found: list[tuple[Proposal, _Item]] = []
    for score, a, b in _pairs(items):
        if id(a) in removed or id(b) in removed:
            continue
        if a.negated != b.negated:
            kind = "contradiction"
            keep, drop = (a, b) if a.rank[1] >= b.rank[1] else (b, a)
            reason = "says the opposite; the entry in the file changed more recently is kept"
        elif score >= DUPLICATE_SIMILARITY:
            kind = "duplicate"
            keep, drop = (a, b) if a.rank <= b.rank else (b, a)
            reason = f"near-duplicate of {_where(keep)}"
        else:
            continue
        removed.add(id(drop))
        proposal = Proposal(
            kind, _where(keep), _text(keep), _where(drop), _text(drop), reason, round(score, 2)
        )
        found.append((proposal, drop))
    return found, texts


def _without(text: str, entries: list[Entry]) -> str:
    """``text`` without the lines of ``entries`` and the tag lines that follow each."""
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for entry in entries:
        drop.update(range(entry.start - 1, entry.end))
        after = entry.end
        while after < len(lines) and _TAG_LINE.match(lines[after]):
            drop.add(after)
            after += 1
    return "".join(line for number, line in enumerate(lines) if number not in drop)


def plan(root: Path, memory_dir: Path) -> Plan:
    """The proposals and the unified diff that would apply them (nothing is written)."""
    result = Plan()
    stamps: dict[Path, tuple[int, int] | None] = {}
    found, texts = find(memory_dir, stamps)
    by_file: dict[Path, list[Entry]] = {}
    for proposal, drop in found:
        result.proposals.append(proposal)
        by_file.setdefault(drop.path, []).append(drop.entry)
    diffs: list[str] = []
    for path, entries in sorted(by_file.items()):
        old = texts[path]
        new = _without(old, entries)
        result.new_text[path] = new
        result.stamps[path] = stamps.get(path)
        rel = _display(path, root)
        diffs.extend(  # shown with private lines blanked: the diff may reach an agent
            difflib.unified_diff(
                blank_private(old).splitlines(keepends=True),
                blank_private(new).splitlines(keepends=True),
                fromfile=f"a/{rel}",
                tofile=f"b/{rel}",
            )
        )
    from conkeeper.domain.secrets import redact

    result.diff = redact("".join(diffs))
    return result


def apply(result: Plan, memory_dir: Path) -> list[Path]:
    """Write each changed file atomically; raises ``MemoryFileError`` (one line) when a file
    was edited since the plan was made. Every stamp is checked before the first write, so a
    concurrent edit leaves all files as they were (barring an edit in the last instant, which
    ``atomic_write`` refuses for its file)."""
    from conkeeper.domain.textio import ConcurrentEditError

    for path, stamp in result.stamps.items():
        if file_stamp(path) != stamp:
            raise ConcurrentEditError(
                f"{path}: changed on disk since the proposal was made; nothing was written, "
                "run 'conkeeper consolidate' again"
            )
    written = []
    for path, text in result.new_text.items():
        atomic_write(path, text, root=memory_dir, expected_stamp=result.stamps.get(path))
        written.append(path)
    return written


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
