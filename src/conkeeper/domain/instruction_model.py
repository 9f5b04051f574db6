"""The learned instruction scorer: a hashed logistic regression next to the phrase rules.

Why it exists: rules written against one author's phrasing of an attack held about half of
another author's (issue 20). This scorer weighs words, word stems in or out of a negation's
scope, character n-grams of other scripts and general shapes (an action such as running remote
code, sending data or weakening a safeguard, met by an object such as a secret, a check or an
unknown host, inside a steering frame) and the rules' own verdicts, through
:mod:`conkeeper.domain.instruction_features`. An entry's score is the highest of the whole
entry's, each of its lines' (or sentences') and that of any encoded text it hides, decoded (a
poisoned line buried among honest ones is judged on its own). The weights are learned offline by
``tools/train_instruction_model.py`` and written to :mod:`.instruction_model_weights` (a
generated module: a fixed table of 8-bit weights, zlib compressed; nothing is trained or
downloaded at run time). :data:`THRESHOLD` was chosen on leave-one-author-out scores (each
author's entries scored by a model trained on the others). Since round 18 the verdict
(:func:`verdict`) may also hold a note this probability leaves under its own bar: when the word
and character n-gram scorers' probabilities (:mod:`conkeeper.domain.instruction_chars`) mixed in
log-odds reach :data:`MIX_THRESHOLD`. Since round 22 a single note's word probability has its
own bar in the verdict, :data:`WORD_BAR`, chosen with the mix's weight, the mix's bar and the
part bar together on held-out scores (each group of authors scored by members trained on the
others); each reading is moved in log-odds so that its bar lands on :data:`THRESHOLD`, the one
bar every caller compares with. The mix never saves what the word scorer holds at
:data:`WORD_BAR`: a character scorer sure of "benign" cannot veto the word scorer's confident
"order". :data:`THRESHOLD` is the word probability's own bar (the word scorer alone, held out,
at the same benign cost): the readings of notes joined together (a run of lines, the halves of
a split order: ``find_instructions(text, joined=True)``) compare the word probability with it,
and the lower bars for text no person vouched for (a copied note, an HTML comment's body) read
the plain mix (:func:`mixed`).

Cost: standard library only; the table is decoded on first use (the module is imported by
:func:`conkeeper.domain.instructions.find_instructions` only when it runs), then one list index
per feature.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence

from conkeeper.domain import instruction_chars_weights as _c
from conkeeper.domain import instruction_model_weights as _w
from conkeeper.domain import instruction_part_bar as _p
from conkeeper.domain.instruction_features import entry_pieces, part_pieces

THRESHOLD: float = _w.THRESHOLD  # the word probability's own bar; every reading lands on it
WORD_BAR: float = _c.WORD_BAR  # the verdict's bar on a single note's word probability (round 22)
MIX: float = _c.MIX  # the character scorer's share of the mixed log-odds
MIX_THRESHOLD: float = _c.THRESHOLD  # the mixed probability's own bar
PART_THRESHOLD: float = _p.PART_THRESHOLD  # the bar of a note's parts read alone (round 20)
UNVOUCHED_BAR: float = _c.UNVOUCHED_BAR  # the plain mix's bar for text no person vouched for
_TABLE: list[array[int]] = []


def weights() -> array[int]:
    """The quantised weight table (:data:`instruction_features.BUCKETS` 8-bit integers, times
    the module's ``SCALE``), decoded on first use from the generated module."""
    if not _TABLE:
        import binascii
        import zlib

        table = array("b")
        table.frombytes(zlib.decompress(binascii.a2b_base64(_w.TABLE)))
        _TABLE.append(table)
    return _TABLE[0]


def linear(hashes: Sequence[int], table: Sequence[float], bias: float, scale: float) -> float:
    """The probability a logistic model with weights ``table * scale`` gives hashed features."""
    z = bias + scale * sum([table[h] for h in hashes])
    if z < -30:
        return 0.0
    if z > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-z))


def probability(text: str, rule_kinds: set[str] | frozenset[str] = frozenset()) -> float:
    """How likely ``text`` (visible text) is a poisoning attempt, given the kinds the rules
    found in it (see :func:`score`)."""
    return score(entry_pieces(text, rule_kinds), weights(), _w.BIAS, _w.SCALE)


def score(
    pieces: list[list[int]], table: Sequence[float], bias: float, scale: float = 1.0
) -> float:
    """The entry's probability: the highest of the whole entry's and each sentence's."""
    return max(linear(hashes, table, bias, scale) for hashes in pieces)


def mixed(word: float, char: float, weight: float = MIX) -> float:
    """Two probabilities mixed in log-odds: ``(1 - weight)`` of the word scorer's, ``weight``
    of the character scorer's (each clipped away from 0 and 1; 1.0, hidden text, stays 1.0).
    The trainer's held-out report mixes with this same function."""
    if word >= 1.0:
        return 1.0
    z = (1 - weight) * _logit(word) + weight * _logit(char)
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _logit(p: float) -> float:
    """The log-odds of ``p``, clipped away from 0 and 1."""
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def moved(p: float, bar: float) -> float:
    """``p`` moved in log-odds so that ``bar`` lands on :data:`THRESHOLD` (1.0, hidden text,
    stays 1.0): at or above :data:`THRESHOLD` exactly when ``p`` is at or above ``bar``, so
    every reading of the verdict is compared with one bar."""
    if p >= 1.0:
        return 1.0
    z = _logit(p) + _logit(THRESHOLD) - _logit(bar)
    out = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
    if p >= bar:
        return max(out, THRESHOLD)
    return min(out, math.nextafter(THRESHOLD, 0.0))


def held_either(word: float, char: float) -> float:
    """The probability :data:`THRESHOLD` is compared with: the word probability moved so that
    :data:`WORD_BAR` lands on :data:`THRESHOLD`, or the mixed probability moved so that
    :data:`MIX_THRESHOLD` does, whichever is higher. So a note is held when the word scorer
    reaches :data:`WORD_BAR` or the mix reaches its own bar; the mix only ever adds holds. The
    trainer's held-out report reads the same bars."""
    if word >= 1.0:
        return 1.0
    return max(moved(word, WORD_BAR), moved(mixed(word, char), MIX_THRESHOLD))


def verdict(text: str, word: float) -> float:
    """:func:`held_either` for ``text``, given ``word``, this scorer's :func:`probability` of
    it (the character scorer reads ``text`` only when the word scorer leaves it under
    :data:`WORD_BAR`)."""
    alone = moved(word, WORD_BAR)
    if alone >= THRESHOLD:
        return alone
    from conkeeper.domain import instruction_chars

    return held_either(word, instruction_chars.probability(text))


def part_verdict(text: str, rule_kinds: set[str] | frozenset[str]) -> float:
    """The highest word probability of ``text``'s parts read alone
    (:func:`conkeeper.domain.instruction_features.parts`, each with the whole note's rule
    kinds), moved in log-odds so that :data:`PART_THRESHOLD` lands on :data:`THRESHOLD`
    (0.0 for a note with no parts, one sentence without a soft boundary, or when the bar is
    1.0: parts never hold). Padding an
    order with honest sentences dilutes the whole note's reading, not its parts'."""
    if PART_THRESHOLD >= 1.0:
        return 0.0
    pieces = part_pieces(text, rule_kinds)
    if not pieces:
        return 0.0
    return moved(score(pieces, weights(), _w.BIAS, _w.SCALE), PART_THRESHOLD)
