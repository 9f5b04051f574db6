"""Category tags: their grammar, the two category sets, editing tags, and a keyword classifier.

A tag is an HTML comment alone on its line, right after the heading or bullet it qualifies::

    ## Use SQLite for the search index
    <!-- @category: decision -->
    <!-- @tag: storage -->

Comments are invisible in rendered Markdown and ``grep '@category: decision'`` finds them, which
is why the seeds chose this form. A line is a tag line only when, after stripping whitespace, it
is exactly one such comment; a tag mentioned inside prose or inside a larger comment is not a tag.

The classifier is deliberately simple and explainable (weighted keywords and phrases), and it
says "unsure" rather than guess, so callers ask the person instead of mislabelling their notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from conkeeper.domain.lines import break_of, common_break, split_keeping_breaks

MEMORY_CATEGORIES: tuple[str, ...] = ("decision", "pattern", "bugfix", "convention", "learning")
RETRO_CATEGORIES: tuple[str, ...] = ("efficiency", "quality", "ux", "knowledge", "architecture")
CATEGORY_SETS: dict[str, tuple[str, ...]] = {
    "memory": MEMORY_CATEGORIES,
    "retro": RETRO_CATEGORIES,
    "any": MEMORY_CATEGORIES + RETRO_CATEGORIES,
}

NAME_PATTERN = r"[a-z][a-z0-9-]*"
NAME_RE = re.compile(rf"\A{NAME_PATTERN}\Z")
# Inner whitespace is tolerated when reading; names are matched case-insensitively and
# normalised to lower case. Writing always uses the canonical form of format_tag().
_TAG_LINE_RE = re.compile(
    r"\A<!--[ \t]*@(category|tag)[ \t]*:[ \t]*([A-Za-z][A-Za-z0-9-]*)[ \t]*-->\Z"
)
_MAX_TAG_LINE = 200  # a tag line is short; longer lines are never tags (keeps parsing linear)

SURE_THRESHOLD = 0.6

TagKind = Literal["category", "tag"]
CategorySet = Literal["memory", "retro", "any"]


@dataclass(frozen=True)
class TagRef:
    """One parsed tag line: a ``category`` from a known set or a freeform ``tag``."""

    kind: TagKind
    name: str


@dataclass(frozen=True)
class Classification:
    """The classifier's verdict: a category (``None`` when unsure), its confidence in [0, 1],
    whether the caller should ask a person, and the raw score of every category."""

    category: str | None
    confidence: float
    unsure: bool
    scores: dict[str, float] = field(default_factory=dict)
    best_guess: str | None = None


def parse_tag_line(line: str) -> TagRef | None:
    """The tag on ``line`` when the whole line (whitespace aside) is one tag comment."""
    if len(line) > _MAX_TAG_LINE:
        return None
    match = _TAG_LINE_RE.match(line.strip())
    if match is None:
        return None
    kind: TagKind = "category" if match.group(1) == "category" else "tag"
    return TagRef(kind, match.group(2).lower())


def format_tag(kind: TagKind, name: str) -> str:
    """The canonical tag line (no line ending) for ``kind`` and a valid ``name``."""
    if kind not in ("category", "tag"):
        raise ValueError(f"unknown tag kind {kind!r} (expected 'category' or 'tag')")
    validate_name(name)
    return f"<!-- @{kind}: {name} -->"


def validate_name(name: str) -> str:
    """Return ``name`` if it fits the tag grammar ``[a-z][a-z0-9-]*``, else raise ``ValueError``."""
    if not NAME_RE.match(name):
        raise ValueError(
            f"invalid tag name {name!r}: use lower-case letters, digits and '-', "
            "starting with a letter"
        )
    return name


def validate_category(name: str, category_set: CategorySet = "memory") -> str:
    """Return ``name`` when it is a category of ``category_set``; otherwise raise ``ValueError``
    naming the allowed values, so a typo never becomes a category nobody searches for."""
    allowed = CATEGORY_SETS.get(category_set)
    if allowed is None:
        raise ValueError(f"unknown category set {category_set!r} (expected memory, retro or any)")
    validate_name(name)
    if name not in allowed:
        raise ValueError(f"unknown category {name!r}; expected one of: {', '.join(allowed)}")
    return name


# --- editing tags -----------------------------------------------------------------------------


def add_tag(text: str, line: int, kind: TagKind, name: str) -> str:
    """Return ``text`` with a tag line added to the entry whose heading or bullet is on ``line``.

    The tag goes after the entry's existing tag lines (for a bullet, after its continuation
    lines), uses the file's line ending, and is not added twice. Everything else is unchanged,
    byte for byte. ``ValueError`` when ``line`` is not a heading or top-level bullet.
    """
    from conkeeper.domain import memory

    tag_line = format_tag(kind, name)
    node = memory.find_node(text, line)
    if any(ref == TagRef(kind, name) for _, ref in node.own_tags):
        return text
    return insert_line_after(text, node.insert_after, tag_line)


def insert_line_after(text: str, after: int, new_line: str) -> str:
    """Insert ``new_line`` after 1-based line ``after`` (0 = at the top), using the line ending
    of the surrounding lines; every other byte of ``text`` is kept. Lines end at LF, CRLF or
    a lone CR (``domain.lines``), as the parser numbers them."""
    if not text:
        if after != 0:
            raise ValueError(f"line {after} is outside the file (0 lines)")
        return new_line
    lines = split_keeping_breaks(text)
    if after < 0 or after > len(lines):
        raise ValueError(f"line {after} is outside the file ({len(lines)} lines)")
    neighbour = break_of(lines[max(after, 1) - 1])
    if after == len(lines) and not neighbour:  # after the last line, which has no line ending
        return text + common_break(text) + new_line
    lines.insert(after, new_line + (neighbour or common_break(text)))
    return "".join(lines)


def remove_tag(text: str, line: int, kind: TagKind, name: str) -> str:
    """Return ``text`` without the entry's ``kind``/``name`` tag lines (unchanged if absent)."""
    from conkeeper.domain import memory

    node = memory.find_node(text, line)
    doomed = {lineno for lineno, ref in node.own_tags if ref == TagRef(kind, name.lower())}
    if not doomed:
        return text
    lines = split_keeping_breaks(text)
    kept = [ln for i, ln in enumerate(lines, start=1) if i not in doomed]
    if len(lines) in doomed and kept and not break_of(lines[-1]):
        # The removed tag was the last line, unterminated: drop the break it was attached to.
        kept[-1] = kept[-1].removesuffix(break_of(kept[-1]))
    return "".join(kept)


# --- the classifier ---------------------------------------------------------------------------

# (pattern, weight). Patterns are regex fragments matched at word starts; a trailing "\w*"
# makes a stem. Strong, unambiguous signals weigh 2; suggestive words weigh 1.
_MEMORY_KEYWORDS: dict[str, tuple[tuple[str, float], ...]] = {
    "decision": (
        (r"decid\w*", 2),
        (r"decision\w*", 2),
        (r"chose\b|chosen\b|choos\w*", 2),
        (r"selected\b", 2),
        (r"opted\b|opt for\b", 2),
        (r"went with\b|go with\b|going with\b", 2),
        (r"settled on\b", 2),
        (r"adopt\w*", 1.5),
        (r"picked\b", 1.5),
        (r"in favou?r of\b", 1.5),
        (r"instead of\b|rather than\b", 1),
        (r"trade-?offs?\b|rationale\b|alternatives?\b", 1),
        (r"adr\b|adr-\d+", 2),
        (r"we will use\b|we'll use\b|switch(?:ed)? to\b|migrat\w*", 1),
        (r"rejected\b|approved\b|agreed\b", 1),
    ),
    "pattern": (
        (r"patterns?\b", 2),
        (r"idioms?\b|idiomatic\b", 2),
        (r"approach\w*", 1),
        (r"reusable\b|helpers?\b|wrappers?\b|recipes?\b|templates?\b", 1),
        (r"we use\b|we wrap\b|the way we\b", 1),
        (r"typically\b|usually\b|whenever\b|each time\b|every time\b", 1),
        (r"strateg\w*", 1),
        (r"abstraction\w*|decorators?\b|middleware\b|factory\b|registry\b", 1),
        (r"structure[sd]?\b|layout\b|organi[sz]e[sd]?\b", 0.5),
    ),
    "convention": (
        (r"conventions?\b|conventional\b", 2),
        (r"naming\b|snake_case\b|camel_?case\b|kebab-case\b|pascal_?case\b", 1.5),
        (r"style\b|style guide\b|formatt\w*|indent\w*|line length\b", 1.5),
        (r"always\b", 1),
        (r"never\b", 1),
        (r"must\b|must not\b|mustn't\b", 0.75),
        (r"should\b|shouldn't\b|do not\b|don't\b", 0.5),
        (r"prefer\w*", 1),
        (r"lint\w*|ruff\b|eslint\b|prettier\b|black\b", 1),
        (r"rules?\b|required\b|mandatory\b|consistent\w*", 0.5),
        (r"commit messages?\b", 1.5),
        (r"prefix\w*|suffix\w*", 1),
    ),
    "bugfix": (
        (r"fix\w*", 2),
        (r"bugs?\b|buggy\b", 2),
        (r"resolv\w*", 1.5),
        (r"crash\w*|regressions?\b|broken\b|breaks\b", 1.5),
        (r"root cause\b|workaround\w*|hotfix\w*|patch(?:ed)?\b", 1.5),
        (r"errors?\b|exceptions?\b|traceback\b|stack trace\b|segfault\w*", 1),
        (r"fail\w*|flak\w*|race condition\b|off-by-one\b|deadlock\w*|leak\w*", 1),
        (r"issue #?\d+|#\d+\b", 1),
    ),
    "learning": (
        (r"learn\w*", 2),
        (r"discover\w*", 2),
        (r"til\b|today i learned\b", 3),
        (r"turns? out\b|turned out\b", 2),
        (r"reali[sz]\w*|found out\b|figured out\b", 1.5),
        (r"gotchas?\b|surpris\w*|unexpected\w*|counter-?intuitive\b", 1.5),
        (r"apparently\b|noticed\b|insight\w*|lessons?\b", 1),
        (r"note that\b|good to know\b|it seems\b|undocumented\b", 1),
    ),
}

_RETRO_KEYWORDS: dict[str, tuple[tuple[str, float], ...]] = {
    "efficiency": (
        (r"slow\w*|faster\b|speed\w*|quick\w*|latency\b|performance\b", 2),
        (r"retr(?:y|ies|ied|ying)\b|repeated\w*|redundant\w*|duplicat\w*", 2),
        (r"wasted?\b|overhead\b|time-?consuming\b|took too long\b|round-?trips?\b", 2),
        (r"cach\w*|parallel\w*|batch\w*|shortcut\w*|automat\w*", 1),
        (r"tokens?\b|loops?\b|again\b|efficien\w*", 1),
        (r"(?:two|three|four|five|several|many|multiple|\d+) times\b", 1.5),
    ),
    "quality": (
        (r"tests?\b|testing\b|tested\b|unit tests?\b", 1.5),
        (r"bugs?\b|regressions?\b|defects?\b", 2),
        (r"lint\w*|coverage\b|flak\w*|type[- ]check\w*|mypy\b|ruff\b", 2),
        (r"review\w*|correct\w*|assert\w*|validat\w*|edge cases?\b", 1),
        (r"broke\w*|fail\w*|quality\b", 1),
    ),
    "ux": (
        (r"confus\w*|unclear\b|ux\b|usability\b|friction\b", 2),
        (r"messages?\b|wording\b|prompts?\b|output\b|feedback\b", 1),
        (r"users?\b|person\b|human\b|readab\w*|discoverab\w*|intuitive\b", 1),
        (r"annoy\w*|frustrat\w*|noisy\b|verbose\b", 1.5),
        (r"hard to\b", 0.5),
    ),
    "knowledge": (
        (r"docs?\b|documentation\b|documented\b|readme\b|glossary\b", 2),
        (r"learn\w*|unknown\b|unfamiliar\b|didn't know\b|did not know\b", 2),
        (r"research\w*|understand\w*|context\b|onboard\w*|knowledge\b", 1),
        (r"explain\w*|missing information\b|look(?:ed)? up\b|reference\b", 1),
    ),
    "architecture": (
        (r"modules?\b|modular\w*|layers?\b|layering\b", 2),
        (r"design\w*|coupl\w*|decoupl\w*|cohesion\b|boundar\w*", 2),
        (r"architect\w*|dependenc\w*|interfaces?\b|abstraction\w*|separation\b", 1.5),
        (r"refactor\w*|structure\w*|components?\b|services?\b|schema\b", 1),
    ),
}


def _compile(
    table: dict[str, tuple[tuple[str, float], ...]],
) -> tuple[re.Pattern[str], list[tuple[str, float]]]:
    """One alternation for a whole category set, so classifying is one linear pass."""
    parts: list[str] = []
    meta: list[tuple[str, float]] = []
    for category, rules in table.items():
        for pattern, weight in rules:
            parts.append(f"(?P<g{len(meta)}>{pattern})")
            meta.append((category, weight))
    return re.compile(r"(?<![\w-])(?:" + "|".join(parts) + ")"), meta


_COMPILED = {"memory": _compile(_MEMORY_KEYWORDS), "retro": _compile(_RETRO_KEYWORDS)}


def score(text: str, category_set: CategorySet = "memory") -> dict[str, float]:
    """Weighted keyword evidence for every category of ``category_set``. Each rule counts at
    most once, so a long entry that repeats one word does not drown out the rest."""
    sets = ("memory", "retro") if category_set == "any" else (category_set,)
    scores: dict[str, float] = {}
    lowered = text.lower()
    for name in sets:
        if name not in _COMPILED:
            raise ValueError(f"unknown category set {name!r} (expected memory, retro or any)")
        regex, meta = _COMPILED[name]
        seen: set[int] = set()
        for category, _ in meta:
            scores.setdefault(category, 0.0)
        for match in regex.finditer(lowered):
            index = int((match.lastgroup or "_0")[1:])  # every alternative is a named group
            if index not in seen:
                seen.add(index)
                category, weight = meta[index]
                scores[category] += weight
    return scores


def classify(
    text: str, category_set: CategorySet = "memory", threshold: float = SURE_THRESHOLD
) -> Classification:
    """Propose a category for ``text`` with a confidence, or say it is unsure.

    Confidence is the winner's share of all the evidence plus one unit of doubt,
    ``best / (best + runner_up + 1)``: one strong keyword alone gives 0.67, a single weak word
    0.5, and conflicting evidence little. Below ``threshold`` (or on a tie) the result is
    ``unsure`` with ``category=None``, and the best guess is kept for the caller to offer.
    """
    scores = score(text, category_set)
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    if not ranked or ranked[0][1] <= 0:
        return Classification(None, 0.0, True, scores, None)
    best, best_score = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0.0
    confidence = round(best_score / (best_score + second + 1.0), 3)
    tie = best_score == second
    guess = None if tie else best
    if tie or confidence < threshold:
        return Classification(None, confidence, True, scores, guess)
    return Classification(best, confidence, False, scores, best)
