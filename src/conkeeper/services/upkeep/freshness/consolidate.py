"""Consolidation: duplicate and contradictory entries across memory files, proposed for review;
duplicates merged on request, contradictions resolved only by the person's choice.

Memory grows by accretion: the same convention lands in ``patterns.md`` and in an ADR, a rule
is written once as "always float" and later as "always ``Decimal``". This module finds such
pairs among the bullets and paragraphs of the curated memory files
(:mod:`.relations` judges each pair) and proposes:

* **duplicate** — two entries saying the same thing: ``--apply`` merges them by removing the
  copy in the less authoritative file (ADRs outrank ``patterns.md``, which outranks the others;
  within one rank the person's entry outranks an agent's (``@source: agent-...``), then the
  entry with more detail stays when one is the other with more detail, else the file changed
  last keeps it: a newer copy is never the one removed), with the tag lines that belong to
  it; two entries whose words agree but whose code differs (`make migrate`, `make
  db-migrate`: each names code the other lacks) are a contradiction, for the person;
* **contradiction** — two entries that cannot both hold. Nothing decides which one is right:
  the file changed last is as likely to hold the mistake as the fix. Both entries are shown
  with their file, line and when each was written (``git blame``; for lines git does not have,
  the journaled ConKeeper write that brought them in, else the file's mtime), and one goes only
  when the person names the one to keep:
  ``conkeeper consolidate --keep FILE:LINE``. ``--apply`` never touches a contradiction.

Every removal is a byte edit of the lines concerned, made through
:mod:`conkeeper.domain.safewrite` under the shared lock: the rest of the file keeps its bytes,
a line a person appended meanwhile survives, and the write is journaled so ``conkeeper undo``
restores it. An entry that changed since the proposal was made is refused, never guessed at.
"""

from __future__ import annotations

import difflib
import os
import re
import time
from pathlib import Path
from typing import Any

from conkeeper.domain.privacy import blank_private, is_private_file
from conkeeper.domain.records import Record
from conkeeper.domain.safewrite import JournalEntry, memory_journal_dir, read_journal
from conkeeper.domain.textio import MAX_MEMORY_FILE_BYTES, MemoryFileError
from conkeeper.services.upkeep.freshness.citations import Entry, split_entries
from conkeeper.services.upkeep.freshness.relations import (
    CONTRADICTION,
    DUPLICATE,
    IN_OTHER_WORDS,
    LIMITS,
    MORE_DETAIL,
    Limits,
    Reading,
    Relation,
    comparable,
    read,
    relate_readings,
)
from conkeeper.services.upkeep.freshness.stale import memory_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

MIN_CONCEPTS = 2
MAX_POSTINGS = 150  # a concept in more entries than this says nothing about sameness
# category, tag and provenance lines belong to the entry above them
_TAG_LINE = re.compile(
    rb"^\s*<!--\s*(?:@(?:category|tag):\s*[a-z][a-z0-9-]*|@source:[ a-z0-9-]{1,80})\s*-->\s*$"
)


class ConsolidateError(MemoryFileError):
    """A ``--keep`` that names no proposed pair, or an entry changed since it was read."""


class Side(Record):
    """One entry of a proposed pair: where it is (``file:line`` relative to the memory
    folder), its text (shortened, secrets redacted) and when it was written."""

    __slots__ = ("end", "file", "key", "line", "text", "written")

    def __init__(
        self, file: str, line: int, end: int, text: str, written: str = "", key: str = ""
    ) -> None:
        self.file = file
        self.line = line
        self.end = end
        self.text = text
        self.written = written
        self.key = key  # the entry's bytes, hashed: the same entry wherever it moved

    @property
    def where(self) -> str:
        """``file:line`` as shown and as ``--keep`` takes it."""
        return f"{self.file}:{self.line}"

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly form."""
        return {
            "where": self.where,
            "file": self.file,
            "line": self.line,
            "text": self.text,
            "written": self.written,
        }


class Proposal(Record):
    """One pair: ``kind`` (duplicate, contradiction), both ``sides``, why, and how alike.
    For a duplicate, ``keep``/``remove`` name the copy kept and the copy ``--apply`` removes;
    for a contradiction both are empty until the person chooses with ``--keep``."""

    __slots__ = ("keep", "kind", "reason", "remove", "sides", "similarity")

    def __init__(
        self,
        kind: str,
        sides: tuple[Side, Side],
        reason: str,
        similarity: float,
        keep: str = "",
        remove: str = "",
    ) -> None:
        self.kind = kind
        self.sides = sides
        self.reason = reason
        self.similarity = similarity
        self.keep = keep
        self.remove = remove

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly form (``keep_text``/``remove_text`` kept for older readers)."""
        texts = {side.where: side.text for side in self.sides}
        data: dict[str, object] = {
            "kind": self.kind,
            "reason": self.reason,
            "similarity": self.similarity,
            "entries": [side.as_dict() for side in self.sides],
            "keep": self.keep or None,
            "remove": self.remove or None,
            "keep_text": texts.get(self.keep),
            "remove_text": texts.get(self.remove),
        }
        if self.kind == CONTRADICTION:
            data["resolve"] = [f"conkeeper consolidate --keep {s.where}" for s in self.sides]
        return data


class Removal(Record):
    """The lines of one entry to remove: the file, the 1-based first line and the line bytes
    (without breaks) as they were read, so a changed entry is refused rather than guessed;
    ``kept``: the other copy, the one that stays (a removal is written only while it is still
    there: removing both copies would lose the entry)."""

    __slots__ = ("kept", "kept_key", "line", "lines", "path", "where")

    def __init__(
        self,
        path: Path,
        where: str,
        line: int,
        lines: tuple[bytes, ...],
        kept: Removal | None = None,
    ) -> None:
        self.path = path
        self.where = where
        self.line = line
        self.lines = lines
        self.kept = kept
        self.kept_key = ""  # for a duplicate merge, the key of the copy kept (:func:`entry_key`)

    @property
    def key(self) -> str:
        """The removed entry's key (:func:`entry_key`)."""
        return entry_key(self.lines)


def entry_key(lines: tuple[bytes, ...]) -> str:
    """A short hash of an entry's bytes: the entry a person reviewed, found again after lines
    above it moved, and not found once it was edited."""
    from hashlib import sha1

    return sha1(b"\n".join(lines)).hexdigest()[:20]


class Plan(Record):
    """The proposals; the duplicate merges ``--apply`` would make (``merges``, with the new text
    of each changed file in ``new_text`` and their unified ``diff``); and every pair's removal
    either way (``choices``: the entry kept → the removal of the other side), for ``--keep``."""

    __slots__ = ("choices", "diff", "held", "merges", "new_text", "proposals")

    def __init__(self) -> None:
        self.proposals: list[Proposal] = []
        self.merges: list[Removal] = []
        self.held: list[Removal] = []  # merges found since the pairs were last shown
        self.new_text: dict[Path, str] = {}
        self.choices: list[tuple[Side, Removal]] = []
        self.diff = ""


# a bullet nested under an entry ("  - Never log request bodies."): a statement of its own
_CHILD = re.compile(r"^\s{2,}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")


def _own_lines(lines: tuple[str, ...]) -> tuple[str, ...]:
    """An entry's own words: its first line and continuation lines, without the bullets
    nested under it (each says something of its own: "Never log request bodies" under
    "Logging goes through structlog" is no negation of the logging rule)."""
    for index, line in enumerate(lines[1:], start=1):
        if _CHILD.match(line):
            return lines[:index]
    return lines


class _Item(Record):
    __slots__ = (
        "by_agent",
        "children",
        "entry",
        "lines",
        "path",
        "rank",
        "reading",
        "rel",
        "tags",
    )

    def __init__(
        self, path: Path, rel: str, entry: Entry, rank: tuple[int, float], raw: list[bytes]
    ) -> None:
        self.path = path
        self.rel = rel
        self.entry = entry
        self.rank = rank
        own = _own_lines(entry.lines)
        self.reading: Reading = read(" ".join(own))
        self.children = len(own) < len(entry.lines)  # removing it would remove them too
        self.lines = tuple(raw[entry.start - 1 : entry.end])
        end = entry.end  # the tag lines below it (provenance among them)
        while end < len(raw) and _TAG_LINE.match(raw[end].rstrip(b"\r")):
            end += 1
        self.tags = tuple(raw[entry.end : end])
        self.by_agent = False  # written by an agent with its own edit tools (see _items)


def _rank(rel: str, path: Path) -> tuple[int, float]:
    """Authority of a file (lower is stronger) and when it was last changed."""
    level = 0 if rel.startswith("decisions/") else 1 if rel == "patterns.md" else 2
    try:
        return level, path.stat().st_mtime
    except OSError:
        return level, 0.0


def _items(memory_dir: Path) -> tuple[list[_Item], dict[Path, str]]:
    from conkeeper.storage.agent_edits import held_keys

    items: list[_Item] = []
    texts: dict[Path, str] = {}
    agent_lines = held_keys(memory_dir)
    for path in memory_files(memory_dir):
        try:
            if path.stat().st_size > MAX_MEMORY_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        # Bytes that are not UTF-8 are replaced for reading only; removals work on the bytes.
        text = data.decode("utf-8", "replace").removeprefix("\ufeff")
        raw = data.splitlines()
        if b"\x00" in data[:8192] or len(text.splitlines()) != len(raw):
            continue  # binary, or line breaks text and bytes count differently: never guess
        if is_private_file(text):
            continue
        texts[path] = text
        rel = path.relative_to(memory_dir).as_posix()
        rank = _rank(rel, path)
        for entry in split_entries(blank_private(text), every=True):
            if entry.lines[0].lstrip().startswith("|"):
                continue  # a table's row: its cells differ by design, and it is no entry to cut
            if entry.lines[0].lstrip().startswith(("```", "~~~")):
                continue  # a fenced block on its own is an example, never the copy of a rule
            item = _Item(path, rel, entry, rank, raw)
            if len(item.reading.weights) >= MIN_CONCEPTS and len(item.lines) == len(entry.lines):
                item.by_agent = _recorded(item, agent_lines)
                items.append(item)
    return items, texts


def _candidates(items: list[_Item]) -> list[tuple[int, int]]:
    """Pairs sharing a concept (an inverted index keeps this near-linear), in file order."""
    index: dict[str, list[int]] = {}
    for number, item in enumerate(items):
        for concept in item.reading.weights:
            index.setdefault(concept, []).append(number)
    shared: dict[tuple[int, int], int] = {}
    for postings in index.values():
        if len(postings) > MAX_POSTINGS:
            continue
        for i, a in enumerate(postings):
            for b in postings[i + 1 :]:
                shared[(a, b)] = shared.get((a, b), 0) + 1
    # Two shared concepts, or one when both entries name alternatives ("float" for prices,
    # "Decimal" for money share only the topic) or a value of it ("seed 42", "seed is 1337").
    return sorted(
        pair
        for pair, count in shared.items()
        if count >= 2 or comparable(items[pair[0]].reading, items[pair[1]].reading)
    )


_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_AGENT_SOURCE = re.compile(rb"<!--\s*@source:\s*agent")


def _code(item: _Item) -> set[str]:
    """The code an entry names in backticks, spaces normalised."""
    return {" ".join(span.split()) for span in _CODE_SPAN.findall(" ".join(item.entry.lines))}


_CODE_WORD = re.compile(r"[\w@$/-]+(?:\.[\w@$/-]+)*")


def _code_words(text: str) -> set[str]:
    """The words of ``text`` as code reads them (`db-migrate`, `uv.lock` stay whole)."""
    return {w.strip(".") for w in _CODE_WORD.findall(text.lower())} - {""}


def _code_apart(a: _Item, b: _Item) -> tuple[str, str] | None:
    """A code span each entry names whose words the other entry does not have at all (`make
    migrate` against `make db-migrate`): the prose says the same, the commands do not, and
    removing either could remove the one that is right. Code the other entry spells out
    without backticks, in another order or with more around it (`pytest -x -q`, `pytest -q
    -x`) is the same code."""
    words_a = _code_words(" ".join(a.entry.lines))
    words_b = _code_words(" ".join(b.entry.lines))
    only_a = sorted(c for c in _code(a) - _code(b) if not _code_words(c) <= words_b)
    only_b = sorted(c for c in _code(b) - _code(a) if not _code_words(c) <= words_a)
    return (only_a[0], only_b[0]) if only_a and only_b else None


def _agent_written(item: _Item) -> bool:
    """Whether an agent wrote the entry: it carries an agent's provenance tag (``@source:
    agent-...``), or an agent wrote a line of it with its own edit tools and the user has not
    kept it (no tag then: it read as the person's own and outranked the person's entry)."""
    return item.by_agent or any(_AGENT_SOURCE.search(line) for line in (*item.lines, *item.tags))


def _recorded(item: _Item, agent_lines: frozenset[str]) -> bool:
    """Whether a line of ``item`` is one an agent wrote with its own tools (its key in
    ``agent_lines``: :func:`conkeeper.storage.agent_edits.held_keys`)."""
    if not agent_lines:
        return False
    from conkeeper.storage.agent_edits import line_key

    return any(line_key(line.decode("utf-8", "replace")) in agent_lines for line in item.lines)


def _side(item: _Item, shown: dict[int, str]) -> Side:
    """The entry as shown (its text shortened and redacted once, however many pairs it is in)."""
    key = id(item)
    if key not in shown:
        from conkeeper.domain.secrets import redact

        shown[key] = redact(" ".join(" ".join(item.entry.lines).split())[:200])
    return Side(item.rel, item.entry.start, item.entry.end, shown[key], key=entry_key(item.lines))


def _removal(item: _Item, kept: _Item | None = None) -> Removal:
    return Removal(
        item.path,
        f"{item.rel}:{item.entry.start}",
        item.entry.start,
        item.lines,
        None if kept is None else _removal(kept),
    )


def _keeper(first: _Item, second: _Item, relation: Relation) -> tuple[_Item, _Item]:
    """Which copy of a duplicate a merge keeps, and which it removes: the one in the more
    authoritative file, and within one rank the person's over an agent's, then the one with more
    detail when one entry is the
    other with more detail (the shorter says nothing the longer does not), else the one in
    the file changed last (a newer copy is never the one removed)."""
    if first.rank[0] != second.rank[0]:
        return (first, second) if first.rank[0] < second.rank[0] else (second, first)
    if _agent_written(first) != _agent_written(second):  # the person's words over an agent's
        return (second, first) if _agent_written(first) else (first, second)
    if relation.reason in (MORE_DETAIL, IN_OTHER_WORDS):
        detail_first, detail_second = _detail(first.reading), _detail(second.reading)
        if detail_first != detail_second:
            return (first, second) if detail_first > detail_second else (second, first)
    if first.rank[1] == second.rank[1] and _detail(second.reading) > _detail(first.reading):
        return (second, first)  # one file: the copy that says more ("CI runs it too") stays
    if _detail(first.reading) == _detail(second.reading) and _labels(first) != _labels(second):
        if _labels(second) > _labels(first):  # the copy the person categorised stays
            return (second, first)
        if _labels(first) > _labels(second):
            return (first, second)
    return (first, second) if first.rank[1] >= second.rank[1] else (second, first)


def _detail_outranked(keep: _Item, drop: _Item, relation: Relation) -> bool:
    """Whether the merge would keep the copy in the more authoritative file and remove the
    one that says more (an ADR's "Use Postgres" against the ``patterns.md`` entry with the
    version and the reason): rank chooses the copy kept, so the detail would go. Neither
    removal is safe to make unasked (an ADR is a decision record, the detail is the person's
    own), so the pair is proposed and the person chooses with ``--keep``."""
    return (
        keep.rank[0] != drop.rank[0]
        and relation.reason == MORE_DETAIL
        and _detail(drop.reading) > _detail(keep.reading)
    )


# "Except in `legacy/`, ...", "Unless ...": an entry that qualifies the one right above it
_EXCEPTION = re.compile(
    rb"^\s*[-*+]\s+(?:\*\*)?(?:except|unless|but|however|exception|apart from|other than|"
    rb"not in|only in|ausser|au\xc3\x9fer|sauf|excepto|salvo|tranne)\b",
    re.IGNORECASE,
)


def _qualified(item: _Item) -> bool:
    """Whether the entry right below ``item`` (after its tag lines and blank lines) is an
    exception to it: removing ``item`` as a duplicate would leave the exception under another
    rule, or under none."""
    try:
        raw = item.path.read_bytes().splitlines()
    except OSError:
        return False
    at = item.entry.end + len(item.tags)
    while at < len(raw) and not raw[at].strip():
        at += 1
    return at < len(raw) and bool(_EXCEPTION.match(raw[at]))


def _labels(item: _Item) -> frozenset[bytes]:
    """The category and tag lines under an entry (``<!-- @category: convention -->``): a
    person's filing of it, which a merge that removes the copy carrying them would lose."""
    return frozenset(
        b" ".join(line.split()) for line in item.tags if re.search(rb"@(?:category|tag):", line)
    )


def _detail(reading: Reading) -> float:
    """How much an entry says: the weight of its concepts and its values."""
    return sum(reading.weights.values()) + len(reading.numbers)


def find(memory_dir: Path, limits: Limits = LIMITS) -> tuple[Plan, dict[Path, str]]:
    """The proposals and removals (nothing written), and the texts they were computed from
    (``limits``: the relation's thresholds, other than the shipped ones only for the selection
    tool's all-pairs check)."""
    items, texts = _items(memory_dir)
    result = Plan()
    judged = []
    for a, b in _candidates(items):
        relation = relate_readings(items[a].reading, items[b].reading, limits)
        if relation is not None:
            judged.append((relation.kind != DUPLICATE, -relation.score, a, b, relation))
    merged: set[int] = set()
    shown: dict[int, str] = {}
    for _, _, a, b, relation in sorted(judged, key=lambda row: row[:4]):
        if a in merged or b in merged:
            continue
        first, second = items[a], items[b]
        sides = (_side(first, shown), _side(second, shown))
        proposal = Proposal(relation.kind, sides, relation.reason, relation.score)
        code = _code_apart(first, second) if relation.kind == DUPLICATE else None
        if code is not None:  # the same rule naming other code: one of them is out of date
            proposal.kind = CONTRADICTION
            proposal.reason = f"the same rule with other code: `{code[0]}` against `{code[1]}`"
        if proposal.kind == DUPLICATE:
            keep, drop = _keeper(first, second, relation)
            if drop.children:
                continue  # a merge would delete the bullets under it, which the other lacks
            if _qualified(drop):
                if _qualified(keep):
                    continue  # each copy carries an exception of its own
                keep, drop = drop, keep  # the exception below it names this copy
            if _detail_outranked(keep, drop, relation):
                proposal.reason = (
                    f"{relation.reason}; the copy with more detail, {drop.rel}:"
                    f"{drop.entry.start}, is in a less authoritative file than "
                    f"{keep.rel}:{keep.entry.start}: no automatic merge, choose with --keep"
                )
                result.proposals.append(proposal)
                result.choices.append((sides[0], _removal(second, first)))
                result.choices.append((sides[1], _removal(first, second)))
                continue
            keep_side = sides[0] if keep is first else sides[1]
            proposal.keep = keep_side.where
            proposal.remove = f"{drop.rel}:{drop.entry.start}"
            proposal.reason = f"{relation.reason} as {keep_side.where}"
            merged.add(b if drop is second else a)
            removal = _removal(drop, keep)
            removal.kept_key = keep_side.key
            result.merges.append(removal)
        result.proposals.append(proposal)
        result.choices.append((sides[0], _removal(second, first)))
        result.choices.append((sides[1], _removal(first, second)))
    return result, texts


def plan(
    root: Path, memory_dir: Path, *, dated: bool = True, reviewed: Review | None = None
) -> Plan:
    """The proposals, and the unified diff of the merges ``--apply`` would make (nothing is
    written). ``dated`` says when each entry of a pair was written (one ``git blame`` per
    entry shown). With ``reviewed`` (the pairs last shown), a merge found only since (a line
    the person added meanwhile) is held back (``held``), never made unseen."""
    result, texts = find(memory_dir)
    if reviewed is not None:
        shown = [m for m in result.merges if (m.key, m.kept_key) in reviewed.merges]
        result.held = [m for m in result.merges if m not in shown]
        result.merges = shown
    if dated and result.proposals:
        _date_sides(root, memory_dir, result.proposals)
    by_file: dict[Path, list[Removal]] = {}
    for removal in result.merges:
        by_file.setdefault(removal.path, []).append(removal)
    diffs: list[str] = []
    for path, removals in sorted(by_file.items()):
        old = texts[path]
        new = _preview(old, removals)
        result.new_text[path] = new
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


def _preview(text: str, removals: list[Removal]) -> str:
    """``text`` as the merges would leave it (the same edit as :func:`apply`, on text).

    ``text`` was read with bytes that are not UTF-8 replaced (and a BOM dropped), so the
    removals' line bytes are read the same way before they are looked for in it."""
    shown = [
        Removal(r.path, r.where, r.line, tuple(_as_read(line) for line in r.lines))
        for r in removals
    ]
    return _remove_entries(shown)(text.encode("utf-8")).decode("utf-8")


def _as_read(line: bytes) -> bytes:
    return line.decode("utf-8", "replace").removeprefix("\ufeff").encode("utf-8")


# --------------------------------------------------------------------------- writing


def _remove_entries(
    removals: list[Removal], every: list[Removal] | None = None
) -> Callable[[bytes], bytes]:
    """A safewrite edit removing each entry's lines (and the tag lines right after it): found
    where they were, or nearest to it when lines above moved; refused when they changed, and
    when the copy each one gives way to is no longer there once they are gone (a person, or
    another consolidate, removed it meanwhile: removing this one too would lose the entry).
    ``every``: all removals of the plan (a kept copy may itself give way to a third)."""
    from conkeeper.domain.safewrite import EditConflict

    def edit(current: bytes) -> bytes:
        lines = current.splitlines(keepends=True)
        for removal in sorted(removals, key=lambda r: -r.line):
            start = _locate(lines, removal)
            if start is None:
                raise EditConflict(
                    f"{removal.where} changed since it was read; {_file_of(removal)} was left "
                    "as it was, run 'conkeeper consolidate' again"
                )
            end = start + len(removal.lines)
            while end < len(lines) and _TAG_LINE.match(lines[end].rstrip(b"\r\n")):
                end += 1
            del lines[start:end]
        for removal in removals:
            kept = _final_keeper(removal, every or removals)
            if kept is not None and not _still_there(kept, removal.path, lines):
                raise EditConflict(
                    f"{kept.where}, the copy kept in place of {removal.where}, changed since "
                    f"it was read; {_file_of(removal)} was left as it was, run 'conkeeper "
                    "consolidate' again"
                )
        return b"".join(lines)

    return edit


def _file_of(removal: Removal) -> str:
    """The memory file a removal is in, as its ``where`` names it."""
    return removal.where.rpartition(":")[0] or removal.where


def _final_keeper(removal: Removal, every: list[Removal]) -> Removal | None:
    """The copy that stays in place of ``removal``: its kept copy, or, when that one is removed
    too, the copy it gives way to, and so on."""
    removed = {(r.path, r.line): r for r in every}
    kept, seen = removal.kept, set[tuple[Path, int]]()
    while kept is not None and (kept.path, kept.line) in removed.keys() - seen:
        seen.add((kept.path, kept.line))
        kept = removed[(kept.path, kept.line)].kept
    return kept


def _still_there(kept: Removal, edited: Path, lines: list[bytes]) -> bool:
    """Whether the kept copy's lines stand in ``lines`` (the edited file as it will be) or, in
    another file, in that file now."""
    if kept.path != edited:
        try:
            lines = kept.path.read_bytes().splitlines(keepends=True)
        except OSError:
            return False
    return bool(_positions(lines, kept.lines))


def _positions(lines: list[bytes], wanted: tuple[bytes, ...]) -> list[int]:
    """The 0-based indexes where ``wanted`` (line bytes, breaks ignored) stands in ``lines``."""
    want = [line.rstrip(b"\r\n") for line in wanted]
    size = len(want)
    return [
        i
        for i in range(len(lines) - size + 1)
        if [line.rstrip(b"\r\n") for line in lines[i : i + size]] == want
    ]


def _locate(lines: list[bytes], removal: Removal) -> int | None:
    """The 0-based index where the removal's lines stand, nearest to where they were read."""
    found = _positions(lines, removal.lines)
    return min(found, key=lambda i: abs(i - (removal.line - 1))) if found else None


def apply(
    result: Plan,
    memory_dir: Path,
    *,
    merge: bool = True,
    keep: list[str] | None = None,
    command: str = "consolidate",
    source: str = "user-cli",
    reviewed: Review | None = None,
) -> list[Path]:
    """Remove the duplicates' copies (``merge``) and the other side of each pair whose entry
    ``keep`` names (``FILE:LINE``), one journaled byte edit per file through
    :mod:`conkeeper.domain.safewrite`, all in one undo step. With ``reviewed`` (the pairs last
    shown to the person), ``FILE:LINE`` names an entry as it was shown, wherever lines added
    since moved it (a plan made with the same review holds only the merges shown). Raises
    :class:`ConsolidateError` (a ``--keep`` naming no proposed pair, checked before anything is
    written) or a one-line ``MemoryFileError`` when an entry changed since the plan was made
    (that file is left as it was)."""
    from conkeeper.domain.safewrite import EditConflict, edit_file, write_group

    removals = list(result.merges) if merge else []
    for choice in keep or []:
        now = reviewed.where_now(choice, result, memory_dir) if reviewed else choice
        removals.extend(chosen_removals(result, now, memory_dir))
    by_file: dict[Path, list[Removal]] = {}
    for removal in removals:
        slot = by_file.setdefault(removal.path, [])
        if all(other.line != removal.line for other in slot):
            slot.append(removal)
    written: list[Path] = []
    with write_group():  # every file of one consolidate is one undo step
        for path, items in sorted(by_file.items()):
            try:
                outcome = edit_file(
                    path,
                    _remove_entries(items, removals),
                    command=command,
                    source=source,
                    root=memory_dir,
                )
            except EditConflict as exc:
                raise EditConflict(_stopped(str(exc), written, memory_dir)) from None
            if outcome.changed:
                written.append(path)
    return written


def _stopped(conflict: str, written: list[Path], memory_dir: Path) -> str:
    """A conflict's line, with what the files merged before it already hold: saying "nothing
    was written" there left the person believing no file had changed. Found holding
    ``consolidate --apply`` at its first rename while the person reworded an entry of the
    second file."""
    if not written:
        return f"{conflict}; nothing was written"
    merged = ", ".join(_display(path, memory_dir) for path in written)
    return f"{conflict}; already merged in {merged} ('conkeeper undo' takes that back)"


class Review(Record):
    """The pairs last shown to the person (``conkeeper consolidate`` without ``--apply``): each
    entry shown (``file``, first and last line, key) and each duplicate merge shown (the keys
    of the copy removed and of the copy kept). What ``--apply`` and ``--keep`` act on: a merge
    found only since (a line the person added meanwhile) is never made unseen."""

    __slots__ = ("merges", "sides")

    def __init__(
        self, sides: list[tuple[str, int, int, str]], merges: set[tuple[str, str]]
    ) -> None:
        self.sides = sides
        self.merges = merges

    @classmethod
    def of(cls, result: Plan) -> Review:
        """The review of the pairs ``result`` shows."""
        sides = [(s.file, s.line, s.end, s.key) for p in result.proposals for s in p.sides]
        return cls(sides, {(m.key, m.kept_key) for m in result.merges})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Review | None:
        """A stored review, or ``None`` when it does not read as one."""
        try:
            sides = [(str(f), int(a), int(b), str(k)) for f, a, b, k in data["sides"]]
            merges = {(str(r), str(k)) for r, k in data["merges"]}
        except (KeyError, TypeError, ValueError):
            return None
        return cls(sides, merges)

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly form."""
        return {"sides": [list(s) for s in self.sides], "merges": sorted(map(list, self.merges))}

    def where_now(self, choice: str, result: Plan, memory_dir: Path) -> str:
        """``--keep FILE:LINE`` as the entry shown at that line is placed now."""
        file, _, line_text = choice.rpartition(":")
        if not file or not line_text.strip().isdigit():
            return choice  # chosen_removals says what is wrong with it
        rel, line = _memory_relative(file.strip(), memory_dir), int(line_text)
        keys = {k for f, a, b, k in self.sides if f == rel and a <= line <= b}
        if not keys:
            raise ConsolidateError(
                f"{rel}:{line} was not part of the pairs last shown; "
                "run 'conkeeper consolidate' to list them"
            )
        now = [s for p in result.proposals for s in p.sides if s.file == rel and s.key in keys]
        if not now:
            raise ConsolidateError(
                f"the entry shown at {rel}:{line} changed or is no longer part of a pair; "
                "run 'conkeeper consolidate' to list the pairs again"
            )
        return now[0].where


def remember_review(identity: str, result: Plan) -> None:
    """Record the pairs ``result`` shows the person, for the ``--apply``/``--keep`` after it."""
    from conkeeper.storage.state import REVIEW_FILE, write_project_record

    write_project_record(identity, REVIEW_FILE, Review.of(result).as_dict())


def last_review(identity: str) -> Review | None:
    """The pairs last shown for the project, or ``None`` when none were recorded."""
    from conkeeper.storage.state import REVIEW_FILE, read_project_record

    data = read_project_record(identity, REVIEW_FILE)
    return Review.from_dict(data) if data else None


def chosen_removals(result: Plan, choice: str, memory_dir: Path) -> list[Removal]:
    """The removals ``--keep FILE:LINE`` asks for: the other side of every pair the named entry
    is part of (any line of the entry names it)."""
    file, _, line_text = choice.rpartition(":")
    if not file or not line_text.strip().isdigit():
        raise ConsolidateError(f"--keep {choice}: expected FILE:LINE, such as patterns.md:12")
    rel = _memory_relative(file.strip(), memory_dir)
    line = int(line_text)
    found = [
        removal
        for side, removal in result.choices
        if side.file == rel and side.line <= line <= side.end
    ]
    if not found:
        raise ConsolidateError(
            f"{rel}:{line} is not part of a proposed duplicate or contradiction; "
            "run 'conkeeper consolidate' to list them"
        )
    return found


def _memory_relative(file: str, memory_dir: Path) -> str:
    """A ``--keep`` file as the proposals name it: relative to the memory folder, whether it
    was given that way, from the project root (``.claude/memory/x.md``) or absolute."""
    path = Path(file).expanduser()
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, memory_dir / path]
    for candidate in candidates:
        try:
            return candidate.resolve().relative_to(memory_dir.resolve()).as_posix()
        except (ValueError, OSError):
            continue
    return Path(file).as_posix().removeprefix("./")


# --------------------------------------------------------------------------- dating


def _date_sides(root: Path, memory_dir: Path, proposals: list[Proposal]) -> None:
    """Say when each shown entry was written: the newest commit among its lines (``git
    blame``); for lines git does not have, the ConKeeper write that brought them in (the
    journal: when and by which command) or else the file's mtime."""
    cache: dict[tuple[str, int, int], str] = {}
    journal: list[JournalEntry] | None = None
    for proposal in proposals:
        for side in proposal.sides:
            key = (side.file, side.line, side.end)
            if key not in cache:
                path = memory_dir / side.file
                written = _written(root, path, side.line, side.end)
                if "(git blame)" not in written:
                    if journal is None:
                        journal = read_journal(memory_journal_dir(memory_dir))
                    written = _journaled(journal, path, side.line) or written
                cache[key] = written
            side.written = cache[key]


def _journaled(journal: list[JournalEntry], path: Path, line: int) -> str:
    """The newest journaled ConKeeper write that put the entry's first line into ``path``, as
    "time, by COMMAND (SOURCE, journal)"; empty when none did (a person wrote it)."""
    try:
        first = path.read_bytes().splitlines()[line - 1].rstrip()
    except (OSError, IndexError):
        return ""
    if not first.strip():
        return ""
    targets = {os.path.abspath(path), os.path.realpath(path)}
    for entry in reversed(journal):
        if entry.undoes is None and any(first in entry.written_bytes(t) for t in targets):
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.time))
            return f"{when}, by '{entry.command}' ({entry.source}, ConKeeper journal)"
    return ""


def _written(root: Path, path: Path, start: int, end: int) -> str:
    from conkeeper.services.upkeep.freshness.gitrepo import run_git

    output = run_git(
        root, ["blame", "--porcelain", "-L", f"{start},{end}", "--", _display(path, root)]
    )
    modified = _mtime(path)
    if output is None:
        return f"{modified}, file modified (not in git)"
    newest: tuple[int, str, str] | None = None
    uncommitted = False
    commit = ""
    for line in output.splitlines():
        head = line.split(" ", 1)[0]
        if len(head) == 40 and all(c in "0123456789abcdef" for c in head):
            commit = head
            uncommitted = uncommitted or set(head) == {"0"}
        elif line.startswith("committer-time ") and set(commit) != {"0"}:
            when = int(line.split()[1])
            if newest is None or when > newest[0]:
                newest = (when, commit[:7], "")
    if uncommitted:
        return f"{modified}, not committed yet (file modified)"
    if newest is None:
        return f"{modified}, file modified"
    day = time.strftime("%Y-%m-%d", time.localtime(newest[0]))
    return f"{day}, commit {newest[1]} (git blame)"


def _mtime(path: Path) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    except OSError:
        return "unknown"


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
