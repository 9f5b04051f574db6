"""Where a new curated entry goes in a memory file: under the heading that fits its category.

A person reads ``patterns.md`` by its headings, so a convention appended after the template's
last heading (``## Gotchas``) would be filed as a gotcha. :func:`place_entry` puts an entry at
the end of the first section whose heading fits its category (the templates' headings and the
usual names people give them; a few headings in other languages, matched only as whole titles
whose meaning is certain) and appends it at the end of the file, as before, when none fits.

It works on the file's bytes, so whatever it does not concern (CRLF, a BOM, bytes that are not
UTF-8, a concurrent writer's lines carried over by :mod:`conkeeper.domain.safewrite`) is kept:
the only change is the entry's bytes, inserted at one offset.
"""

from __future__ import annotations

import re

from conkeeper.domain.memory import SectionSpan, section_spans
from conkeeper.domain.safewrite import line_break

# Heading titles (compared by :func:`_normal`) that fit each memory category, in preference
# order: the first one the file has wins, and the first section carrying that title.
HEADINGS: dict[str, tuple[str, ...]] = {
    "convention": (
        "code conventions",
        "coding conventions",
        "conventions",
        "code style",
        "style guide",
        "konventionen",  # de
        "code-konventionen",  # de
        "conventions de code",  # fr
        "convenciones",  # es
        "convenzioni",  # it
    ),
    "pattern": (
        "architecture patterns",
        "patterns",
        "design patterns",
        "recurring solutions",
        "entwurfsmuster",  # de
        "architekturmuster",  # de
    ),
    "bugfix": ("gotchas", "error handling", "pitfalls", "fallstricke", "pièges"),
    "learning": ("gotchas", "lessons learned", "learnings", "error handling", "pitfalls"),
    "decision": ("recent decisions", "decisions", "key decisions"),
}
# A convention or pattern about tests goes under a testing heading first.
TESTING_HEADINGS = ("testing", "tests")
_TESTING_RE = re.compile(
    r"\b(?:tests?|testing|tested|test suites?|unit tests?|pytest|unittest|fixtures?)\b",
    re.IGNORECASE,
)
_NOT_TITLE = re.compile(r"[^\w\s-]")


def fitting_titles(category: str, text: str) -> tuple[str, ...]:
    """The heading titles an entry of ``category`` reading ``text`` belongs under, best first."""
    titles = HEADINGS.get(category, ())
    if category in ("convention", "pattern") and _TESTING_RE.search(text):
        return TESTING_HEADINGS + titles
    return titles


def insertion_line(text: str, category: str, entry: str) -> int | None:
    """The 1-based line after which the entry goes, or ``None`` when no heading fits."""
    spans = _candidates(section_spans(text))
    for wanted in fitting_titles(category, entry):
        for span in spans:
            if _normal(span.title) == wanted:
                return span.last
    return None


def place_entry(current: bytes, data: bytes, category: str, entry: str) -> tuple[bytes, int]:
    """``current`` with ``data`` (whole lines) inserted where an entry of ``category`` reading
    ``entry`` belongs, and the offset it was inserted at. Without a fitting heading it is
    appended, after a line break when the file lacks a final one."""
    text = current.decode("utf-8", "surrogateescape")  # one char per non-UTF-8 byte, same lines
    after = insertion_line(text, category, entry)
    offset = len(current) if after is None else _line_end(current, after)
    head = current[:offset]
    if head and not head.endswith((b"\n", b"\r")):
        head += line_break(current)
    if _ends_in_html_block(head):
        head += line_break(current)
    return head + data + current[offset:], len(head)


def _ends_in_html_block(head: bytes) -> bool:
    """Whether the line before the entry is an HTML tag line (``</details>``, ``<div>``): an
    HTML block runs on to the next blank line, so a bullet right after it would be shown as
    raw text, not as an entry (found placing a convention after a person's folded
    ``<details>`` section); a blank line goes between. A comment line (ConKeeper's tags)
    ends its own block."""
    last = head.rstrip(b"\r\n").rsplit(b"\n", 1)[-1].strip()
    return len(last) > 1 and last[:1] == b"<" and (last[1:2].isalpha() or last[1:2] == b"/")


def _candidates(spans: list[SectionSpan]) -> list[SectionSpan]:
    """The sections an entry may go under: not the file's title (its one level-1 heading, when
    it opens the file and sections follow), whose section is the whole file."""
    titles = [span for span in spans if span.level == 1]
    if len(spans) > 1 and len(titles) == 1 and spans[0] is titles[0]:
        return spans[1:]
    return spans


def _line_end(data: bytes, line: int) -> int:
    """The offset just after 1-based ``line`` and its line break (the parser's numbering: lines
    end at LF, CRLF or a lone CR, ``domain.lines``); the end of ``data`` when that line is its
    last."""
    return sum(len(text) for text in data.splitlines(keepends=True)[:line])


def _normal(title: str) -> str:
    """A heading title as compared: case, punctuation (a trailing colon, an emoji, numbering
    dots) and spacing ignored."""
    words = _NOT_TITLE.sub(" ", title.casefold()).split()
    while words and words[0].isdigit():
        words.pop(0)
    return " ".join(words).strip(" -")
