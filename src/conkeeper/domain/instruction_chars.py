"""Character n-gram pieces of a note: the features of the second, character-level scorer.

Why it exists: the word scorer (:mod:`conkeeper.domain.instruction_features`) weighs whole
words, stems and hand-made shapes; an author who inflects, misspells or writes in a language
the glossary reads thinly slips between them. Character 3- to 5-grams of the visible,
lower-cased note (look-alike letters folded, words the bilingual glossary knows put into
English) share weight across inflections and spellings (``disabl`` in "disable", "disabling",
"désactiver" read as "disable"). Round 14's numpy stand-in held about two points more with
such a scorer mixed into the word scorer's log-odds (``HELD_OUT_AUTHORS.md``); round 15
measures it with the real trainer (``tools/train_instruction_model.py --chars``).

Cost: standard library only; each line (or sentence) is hashed once and the whole note's piece
is the union of its lines' grams (grams spanning two lines are dropped), so a note is read once.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from conkeeper.domain.instruction_features import MAX_CHARS, segments
from conkeeper.domain.lazy_re import LazyPattern

if TYPE_CHECKING:
    import re

CHAR_BUCKETS = 1 << 18
SIZES = (3, 4, 5)
_WORD = LazyPattern(r"\w+")
_SPACE = LazyPattern(r"\s+")


def normalised(text: str) -> str:
    """``text`` lower-cased, look-alike letters folded to Latin, each word the glossary knows
    replaced by its English word(s) (a negation the form carries is kept as "not")."""
    from conkeeper.domain.instruction_features import _fold
    from conkeeper.domain.instruction_glossary import translated

    def english(match: re.Match[str]) -> str:
        word = _fold(match.group())
        meaning = translated([word], [False])
        if not meaning:
            return word
        return " ".join(("not " if scope else "") + w for w, scope in meaning)

    return _SPACE.compiled.sub(" ", _WORD.compiled.sub(english, text.lower())).strip()


def grams(piece: str) -> set[int]:
    """The hashed character 3-, 4- and 5-grams of one normalised piece (padded with spaces,
    so a word's first and last letters make grams of their own)."""
    padded = " " + piece + " "
    mask = CHAR_BUCKETS - 1
    crc = zlib.crc32
    data = padded.encode("utf-8", "surrogatepass")
    if len(data) != len(padded):  # not ASCII: slice characters, not bytes
        return {
            crc(padded[i : i + n].encode("utf-8", "surrogatepass"), n) & mask
            for n in SIZES
            for i in range(len(padded) - n + 1)
        }
    return {crc(data[i : i + n], n) & mask for n in SIZES for i in range(len(data) - n + 1)}


def char_pieces(text: str) -> list[list[int]]:
    """The hashed grams of each piece :func:`instruction_features.segments` scores apart: the
    whole note (the union of its lines' grams), then each line or sentence."""
    parts = segments(text[:MAX_CHARS])
    if len(parts) == 1:
        return [sorted(grams(normalised(parts[0])))]
    lines = [grams(normalised(part)) for part in parts[1:]]
    whole: set[int] = set().union(*lines)
    return [sorted(whole), *(sorted(line) for line in lines)]
