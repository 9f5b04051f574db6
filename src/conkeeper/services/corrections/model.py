"""The learned correction scorer (F7): a small logistic regression next to the rules.

Regex rules stop generalising: each new phrasing needs a new rule. This scorer reads the same
cleaned prose through :mod:`.features` and weighs words, typos and structure with weights
learned offline by ``tools/train_corrections_model.py`` (written to :mod:`.model_weights`, a
generated module of ``feature weight`` lines; nothing is trained or downloaded at run time).
It is stdlib-only and cheap: a dict look-up per feature of at most two short segments (head
and tail), and it is imported only when no rule flagged the prompt.

Two models: ``FLAG`` (is this a correction or friction at all?) and ``KIND`` (friction rather
than correction, for prompts no rule labelled). Thresholds per sensitivity were chosen on
cross-validated predictions, not on any single set.
"""

from __future__ import annotations

import math

from conkeeper.domain.records import FrozenRecord
from conkeeper.services.corrections import model_weights as _w
from conkeeper.services.corrections.features import segment_features

THRESHOLDS: dict[str, float] = _w.THRESHOLDS
_TABLES: dict[str, dict[str, float]] = {}


def weights(name: str) -> dict[str, float]:
    """A weight table (``"FLAG"`` or ``"KIND"``) parsed from its ``feature weight`` lines on
    first use."""
    table = _TABLES.get(name)
    if table is None:
        table = {}
        for line in getattr(_w, name).splitlines():
            feature, _, value = line.rpartition(" ")
            if feature:
                table[feature] = float(value)
        _TABLES[name] = table
    return table


class ModelScore(FrozenRecord):
    """The scorer's verdict on a prompt: ``probability`` that it is a correction or friction
    (the best segment's), ``friction`` the probability that it is friction rather than a
    correction, ``segment`` the index of the best-scoring segment."""

    __slots__ = ("friction", "probability", "segment")
    probability: float
    friction: float
    segment: int

    def __init__(self, probability: float, friction: float, segment: int) -> None:
        self._set(probability=probability, friction=friction, segment=segment)


def _sigmoid(z: float) -> float:
    if z < -30:
        return 0.0
    if z > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-z))


def linear(feats: set[str], weights: dict[str, float], bias: float) -> float:
    """The probability a logistic model with ``weights`` gives a feature set."""
    get = weights.get
    return _sigmoid(bias + sum(get(f, 0.0) for f in feats))


def score_segments(parts: list[list[str]], pasted: float = 0.0) -> ModelScore:
    """Score each segment (head, tail) on its own and keep the best one."""
    best = ModelScore(0.0, 0.0, -1)
    best_feats: set[str] = set()
    for index, segment in enumerate(parts):
        feats = segment_features(segment, pasted)
        p = linear(feats, weights("FLAG"), _w.FLAG_BIAS)
        if p > best.probability:
            best, best_feats = ModelScore(p, 0.0, index), feats
    if best.segment < 0:
        return best
    friction = linear(best_feats, weights("KIND"), _w.KIND_BIAS)
    return ModelScore(best.probability, friction, best.segment)
