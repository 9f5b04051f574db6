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
from bisect import bisect_left
from collections.abc import Iterator

from conkeeper.domain.records import FrozenRecord
from conkeeper.services.analysis.corrections import model_weights as _w
from conkeeper.services.analysis.corrections.features import segment_bags, segment_features
from conkeeper.services.analysis.corrections.model_params import RULE_VETO, THRESHOLDS

__all__ = [
    "RULE_VETO",
    "THRESHOLDS",
    "ModelScore",
    "WeightTable",
    "friction",
    "linear",
    "score_segments",
]
_TABLES: dict[str, WeightTable] = {}
VALUE_WIDTH = 8  # a weight is written "+01.2345": sign, two digits, four decimals, then "\n"


class WeightTable:
    """A generated weight table read in place: the feature names (sorted, one a line) are split
    once, a weight (fixed width, one a line) is parsed only when its feature is looked up.
    Issue 20 round 9: with every feature kept (~7,000) a dict built up front cost ~2.5 ms of the
    hook's first ``detect()``; a prompt looks up under a hundred names."""

    __slots__ = ("_names", "_values")

    def __init__(self, names: str, values: str) -> None:
        self._names = names.split()
        self._values = values

    def _index(self, name: str) -> int:
        """The line of ``name`` (-1: the model has no weight for it)."""
        names = self._names
        i = bisect_left(names, name)
        return i if i < len(names) and names[i] == name else -1

    def get(self, name: str, default: float = 0.0) -> float:
        """The weight of ``name`` (``default`` when the model has none)."""
        i = self._index(name)
        if i < 0:
            return default
        start = i * (VALUE_WIDTH + 1)
        return float(self._values[start : start + VALUE_WIDTH])

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._index(name) >= 0

    def __len__(self) -> int:
        return len(self._names)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)


def weights(name: str) -> WeightTable:
    """A weight table (``"FLAG"`` or ``"KIND"``) from the generated module's two strings,
    built on first use."""
    table = _TABLES.get(name)
    if table is None:
        table = _TABLES[name] = WeightTable(
            getattr(_w, name + "_FEATURES"), getattr(_w, name + "_WEIGHTS")
        )
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


def linear(feats: set[str], weights: dict[str, float] | WeightTable, bias: float) -> float:
    """The probability a logistic model with ``weights`` gives a feature set."""
    get = weights.get
    return _sigmoid(bias + sum(get(f, 0.0) for f in feats))


def score_segments(
    parts: list[list[str]], pasted: float = 0.0, after_paste: bool = False
) -> ModelScore:
    """Score each segment (head, tail) on its own and keep the best one; ``friction`` is
    left at 0.0 (see :func:`friction`). ``after_paste``: the last segment is the prose written
    after a paste (:func:`.features.tail_after_paste`)."""
    best = ModelScore(0.0, 0.0, -1)
    for index, feats in enumerate(segment_bags(parts, pasted, after_paste)):
        p = linear(feats, weights("FLAG"), _w.FLAG_BIAS)
        if p > best.probability:
            best = ModelScore(p, 0.0, index)
    return best


def friction(segment: list[str], pasted: float = 0.0, after_paste: bool = False) -> float:
    """The probability that a flagged segment is friction rather than a correction."""
    feats = segment_features(segment, pasted, after_paste)
    return linear(feats, weights("KIND"), _w.KIND_BIAS)
