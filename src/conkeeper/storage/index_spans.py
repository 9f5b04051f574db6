"""The label spans of a search-index row: which lines of a chunk each category and tag covers.

Why it exists: a search shows a hit's categories and filters lines by label, so it must read the
spans of every candidate row. They are stored as plain text a split can read — one span per
line, ``start<TAB>end<TAB>categories<TAB>tags``, names separated by spaces — rather than JSON,
whose decoder (with ``re``) would cost every search a few milliseconds of start-up. Category
and tag names are ``[a-z][a-z0-9-]*`` (:mod:`conkeeper.domain.categories`), so they never hold
a tab, a space or a line break.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Span = tuple[int, int, tuple[str, ...], tuple[str, ...]]  # start, end, categories, tags


def encode_spans(spans: Iterable[tuple[int, int, Sequence[str], Sequence[str]]]) -> str:
    """The column text for ``spans`` (``""`` for none)."""
    return "\n".join(
        f"{start}\t{end}\t{' '.join(cats)}\t{' '.join(tags)}" for start, end, cats, tags in spans
    )


def decode_spans(text: str) -> list[Span]:
    """The spans of a column written by :func:`encode_spans`."""
    out: list[Span] = []
    for line in text.split("\n") if text else ():
        start, end, cats, tags = line.split("\t")
        out.append((int(start), int(end), tuple(cats.split()), tuple(tags.split())))
    return out
