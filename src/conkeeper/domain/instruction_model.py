"""The learned instruction scorer: a small logistic regression next to the phrase rules.

Why it exists: rules written against one author's phrasing of an attack held two thirds of
another author's (issue 20). This scorer weighs general shapes (an action such as running remote
code, sending data or weakening a safeguard, met by an object such as a secret, a check or an
unknown host, inside a steering frame) and the rules' own verdicts, through
:mod:`conkeeper.domain.instruction_features`, with weights learned offline by
``tools/train_instruction_model.py`` and written to :mod:`.instruction_model_weights` (a
generated module; nothing is trained or downloaded at run time). :data:`THRESHOLD` was chosen
on leave-one-set-out cross-validated scores for at least 98% of benign entries saved.

Cost: standard library only; the weight table is built on first use (the module is imported
by :func:`conkeeper.domain.instructions.find_instructions` only when it runs), then one dict
look-up per feature.
"""

from __future__ import annotations

import math

from conkeeper.domain import instruction_model_weights as _w
from conkeeper.domain.instruction_features import entry_features, segments

THRESHOLD: float = _w.THRESHOLD
_TABLE: dict[str, float] = {}


def weights() -> dict[str, float]:
    """The weight table, built on first use from the generated module."""
    if not _TABLE:
        for line in _w.TABLE.splitlines():
            name, weight = line.split(" ")
            _TABLE[name] = float(weight)
    return _TABLE


def linear(feats: set[str], table: dict[str, float], bias: float) -> float:
    """The probability a logistic model with weights ``table`` gives a feature set."""
    get = table.get
    z = bias + sum(get(f, 0.0) for f in feats)
    if z < -30:
        return 0.0
    if z > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-z))


def probability(text: str, rule_kinds: set[str] | frozenset[str] = frozenset()) -> float:
    """How likely ``text`` (visible text) is a poisoning attempt, given the kinds the rules
    found in it (see :func:`score`)."""
    return score(segment_features(text, rule_kinds), weights(), _w.BIAS)


def segment_features(text: str, rule_kinds: set[str] | frozenset[str]) -> list[set[str]]:
    """The features of each scored piece: the whole entry (with the rules' verdict), then each
    line of a longer entry (without it: the verdict belongs to the whole)."""
    parts = segments(text)
    return [entry_features(parts[0], rule_kinds), *(entry_features(line) for line in parts[1:])]


def score(pieces: list[set[str]], table: dict[str, float], bias: float) -> float:
    """The entry's probability, or its most suspicious line's. A longer entry the rules
    flagged keeps that verdict (1.0): a poisoned line buried among honest ones drowns in the
    whole entry's words, so the scorer does not overrule the rules there."""
    if len(pieces) > 1 and "r:any" in pieces[0]:
        return 1.0
    return max(linear(feats, table, bias) for feats in pieces)
