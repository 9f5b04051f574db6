"""The decoded view of a text, where a secret written in another form reads plainly.

A credential can reach ConKeeper spelled so that no pattern of :mod:`conkeeper.domain.secrets`
matches it, though any program or person reading it sees the credential: a zero-width space or
soft hyphen inside it, fullwidth letters (``ｇｈｐ＿…``), URL encoding (``token%3Dghp_…``) or
JSON's ``\\u`` escapes (``\\u0067hp_…``). :func:`decoded` gives the text with those forms undone
(format characters dropped, each other non-ASCII character in its NFKC form, ``%XX`` and
``\\uXXXX`` of a printable ASCII character, tab or line break decoded), and maps every span
of it back to the original, so the detector can scan the view and cut the original text where
the secret is.

Cheap on the hook path: an ASCII text without ``%`` or ``\\u`` has no view (no regex runs, and
``unicodedata`` is imported only for non-ASCII text).
"""

from __future__ import annotations

import bisect

from conkeeper.domain.lazy_re import LazyPattern

__all__ = ["View", "decoded"]

_ENCODED_RE = LazyPattern(r"%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|[^\x00-\x7f]+")
# For tags (``tags=True``) the view also reads HTML's ``&lt;`` / ``&gt;`` and their numeric
# forms, and folds characters drawn like ``<``, ``>`` or a letter of ``private`` into it.
_TAG_ENCODED_RE = LazyPattern(
    r"%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|[^\x00-\x7f]+|&(?:lt|gt|#0*6[02]|#[xX]0*3[cCeE]);"
)
# Escapes alone, for a text whose non-ASCII characters need no decoding (the common case).
_ESCAPE_RE = LazyPattern(r"%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}")
_TAG_ESCAPE_RE = LazyPattern(
    r"%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|&(?:lt|gt|#0*6[02]|#[xX]0*3[cCeE]);"
)
# Format characters (Unicode category Cf) a text may hide inside a word: soft hyphen,
# zero-width and directional marks, word joiners, isolates, BOM, interlinear and tag characters.
_FORMAT_RE = LazyPattern(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb\U000e0001\U000e0020-\U000e007f]"
)
_ENTITIES = {"lt": "<", "gt": ">", "60": "<", "62": ">", "3c": "<", "3e": ">"}
_LOOKALIKES = str.maketrans(
    "\u2329\u232a\u3008\u3009\u27e8\u27e9\u2039\u203a\u02c2\u02c3\u276e\u276f"
    "\u0440\u0420\u0456\u0406\u0430\u0410\u0442\u0422\u0435\u0415\u03bd\u03a1\u0391"
    "\u03a4\u0395\u0399\u03b9",
    "<><><><><><>pPiIaAtTeEvPATEIi",
)
_LOOKALIKE_RE = LazyPattern("[" + "".join(chr(c) for c in _LOOKALIKES) + "]")


class View:
    """A decoded text and, per piece of it, the original span it came from."""

    __slots__ = ("_changes", "_copy", "_length", "_orig", "_orig_end", "_parts", "_view", "text")

    def __init__(self) -> None:
        self.text = ""  # set by :meth:`finish`
        self._parts: list[str] = []
        self._length = 0
        self._changes: list[int] = []  # view positions where decoding changed something
        self._view: list[int] = []  # where each piece starts in the view
        self._orig: list[int] = []  # where it starts in the original
        self._orig_end: list[int] = []  # where it ends in the original
        self._copy: list[bool] = []  # copied one to one (else decoded from the original span)

    def add(self, piece: str, orig_start: int, orig_end: int, copy: bool) -> None:
        """Append ``piece``, read from ``original[orig_start:orig_end]``."""
        if not copy:
            self._changes.append(self._length)
        if not piece:
            return
        self._view.append(self._length)
        self._orig.append(orig_start)
        self._orig_end.append(orig_end)
        self._copy.append(copy)
        self._parts.append(piece)
        self._length += len(piece)

    def finish(self) -> View:
        """The view with its text joined."""
        self.text = "".join(self._parts)
        return self

    def windows(self, width: int) -> list[tuple[int, int]]:
        """Disjoint spans of the view holding every change and ``width`` characters on each
        side, widened to whole lines: a secret the view shows and the original hides crosses
        a change, so only these need scanning."""
        spans: list[tuple[int, int]] = []
        text = self.text
        for pos in self._changes:
            if spans and pos + width <= spans[-1][1]:
                continue  # already inside the last span, with its margin
            lo = text.rfind("\n", 0, max(0, pos - width)) + 1
            hi = text.find("\n", min(len(text), pos + width))
            hi = len(text) if hi < 0 else hi
            if spans and lo <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(hi, spans[-1][1]))
            else:
                spans.append((lo, hi))
        return spans

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span that ``text[start:end]`` (``end > start``) was read from."""
        return self._position(start, False), self._position(end - 1, True)

    def _position(self, pos: int, after: bool) -> int:
        i = bisect.bisect_right(self._view, pos) - 1
        if self._copy[i]:
            return self._orig[i] + pos - self._view[i] + (1 if after else 0)
        return self._orig_end[i] if after else self._orig[i]


def may_differ(text: str, *, tags: bool = False) -> bool:
    """Whether ``text`` could have a view different from itself (a few substring tests)."""
    return not text.isascii() or "%" in text or "\\u" in text or (tags and "&" in text)


def decoded(text: str, *, tags: bool = False) -> View | None:
    """The decoded view of ``text``, or ``None`` when decoding changes nothing. ``tags``: the
    view a private tag is looked for in (also HTML entities of ``<`` and ``>``, and the
    characters drawn like them or like a letter of ``private`` folded into them)."""
    if not may_differ(text, tags=tags):
        return None
    if _unicode_plain(text, tags):
        pattern = _TAG_ESCAPE_RE if tags else _ESCAPE_RE
    else:
        pattern = _TAG_ENCODED_RE if tags else _ENCODED_RE
    view = View()
    pos = 0
    for m in pattern.finditer(text):
        pieces = _decode(m.group(0), m.start(), tags)
        if pieces is None:
            continue
        view.add(text[pos : m.start()], pos, m.start(), True)
        for piece, start, end in pieces:
            view.add(piece, start, end, piece == text[start:end])
        pos = m.end()
    if not pos:
        return None
    view.add(text[pos:], pos, len(text), True)
    return view.finish()


def _unicode_plain(text: str, tags: bool) -> bool:
    """Whether no non-ASCII character of ``text`` needs decoding (whole-text tests in C: the
    common text with accents, dashes or emoji is not walked run by run)."""
    if text.isascii():
        return True
    import unicodedata

    if not unicodedata.is_normalized("NFKC", text) or _FORMAT_RE.search(text):
        return False
    return not tags or _LOOKALIKE_RE.search(text) is None


def _decode(token: str, at: int, tags: bool) -> list[tuple[str, int, int]] | None:
    """An encoded form (one escape, or a run of non-ASCII characters starting at ``at``) as
    ``(piece, start, end)`` pieces of the view, or ``None`` when it stands for itself (a byte
    or code point outside ASCII keeps its escape; text NFKC keeps and holding no format
    character stays as it is)."""
    if token[0] == "&":
        return [(_ENTITIES[token[1:-1].lower().lstrip("#x0")], at, at + len(token))]
    if token[0] in "%\\":
        code = int(token[1:] if token[0] == "%" else token[2:], 16)
        plain = 0x20 <= code < 0x7F or code in (0x09, 0x0A, 0x0D)
        return [(chr(code), at, at + len(token))] if plain else None
    import unicodedata  # only for non-ASCII text

    source = token.translate(_LOOKALIKES) if tags else token
    if (
        source == token
        and unicodedata.is_normalized("NFKC", token)
        and not any(unicodedata.category(c) == "Cf" for c in token)
    ):
        return None
    return [
        ("" if unicodedata.category(c) == "Cf" else unicodedata.normalize("NFKC", c), i, i + 1)
        for i, c in enumerate(source, at)
    ]
