"""The learned correction scorer (F7): a small logistic regression next to the rules.

Regex rules stop generalising: each new phrasing needs a new rule. This scorer reads the same
cleaned prose through :mod:`.features` and weighs words, typos and structure with weights
learned offline by ``tools/train_corrections_model.py`` (written to :mod:`.model_weights`, a
generated module of ``feature weight`` lines; nothing is trained or downloaded at run time).
It is stdlib-only and cheap: a dict look-up per feature of at most two short segments (head
and tail), and it is imported only when no rule flagged the prompt, or when a rule match is
to be checked against it (a sensitivity whose veto, in :mod:`.model_params`, is above zero).

Two models: ``FLAG`` (is this a correction or friction at all?) and ``KIND`` (friction rather
than correction, for prompts no rule labelled). Thresholds and vetoes per sensitivity were
chosen by leave-one-author-out cross-validation, never on the author they are tested on.
"""

from __future__ import annotations

import math

from conkeeper.domain.records import FrozenRecord
from conkeeper.services.analysis.corrections import model_weights as _w
from conkeeper.services.analysis.corrections.features import segment_features
from conkeeper.services.analysis.corrections.model_params import RULE_VETO, THRESHOLDS

__all__ = ["RULE_VETO", "THRESHOLDS", "ModelScore", "friction", "linear", "score_segments"]
_TABLES: dict[str, dict[str, float]] = {}


def weights(name: str) -> dict[str, float]:
    """A weight table (``"FLAG"`` or ``"KIND"``) built on first use from the generated
    module's feature names and weights (two strings, one entry a line: string constants
    compile and load far faster than a tuple of floats when no ``.pyc`` is cached)."""
    table = _TABLES.get(name)
    if table is None:
        names = getattr(_w, name + "_FEATURES").split()
        values = map(float, getattr(_w, name + "_WEIGHTS").split())
        table = _TABLES[name] = dict(zip(names, values, strict=True))
    return table


class ModelScore(FrozenRecord):
    """The scorer's verdict on a prompt: ``probability`` that it is a correction or friction
    (the best segment's), ``friction`` the probability that it is friction rather than a
    correction (when computed), ``segment`` the index of the best-scoring segment (-1: none)."""

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
    """Score each segment (head, tail) on its own and keep the best one; ``friction`` is
    left at 0.0 (see :func:`friction`)."""
    best = ModelScore(0.0, 0.0, -1)
    for index, segment in enumerate(parts):
        p = linear(segment_features(segment, pasted), weights("FLAG"), _w.FLAG_BIAS)
        if p > best.probability:
            best = ModelScore(p, 0.0, index)
    return best


def friction(segment: list[str], pasted: float = 0.0) -> float:
    """The probability that a flagged segment is friction rather than a correction."""
    return linear(segment_features(segment, pasted), weights("KIND"), _w.KIND_BIAS)
