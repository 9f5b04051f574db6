"""Train the learned correction scorer offline and write its weights into the package.

Why: the regex rules stopped generalising (each new phrasing needed a rule); a small logistic
regression over words and structural cues
(:mod:`conkeeper.services.analysis.corrections.features`) catches phrasings nobody wrote a rule for.
Pure Python (no numpy): the data is about 1,200 prompts and training takes seconds.

Data (``tests/data/corrections/``): ``corpus.jsonl``, ``blind.jsonl`` .. ``blind6.jsonl``,
``train_extra.jsonl`` and ``train_extra2.jsonl`` (hard negatives: praise with "again"/"still",
"don't ..." inside a request for new work, the user's own mistakes, questions, quotes, logs).
The list is explicit: any later blind set (``blind7.jsonl`` ...) is never read here, so it
stays unseen by the model.

Honest estimate: leave-one-set-out cross-validation. Each of blind sets 1-6 and two halves of
the corpus (its original ``-`` split, and every later split) is held out in turn; a model
trained on everything else (plus the ``train_extra`` files) scores it. Today's rules were tuned on
every one of these sets, so "rules + model" on them is optimistic; the honest column combines
the out-of-fold model with the rules *as they were when each blind set was first measured*
(sources taken with ``git archive`` from the commit that added the set, see
:data:`FIRST_MEASUREMENT`). The per-sensitivity model thresholds are the lowest whose pooled
precision meets :data:`MIN_PRECISION` on that honest estimate and on every fold with today's
rules. Left optimistic: the thresholds are chosen on the same pooled data they are reported on,
and the corpus holds prompts written after each blind set's misses were seen.

Usage::

    python3 tools/train_corrections_model.py            # CV report, then write the weights
    python3 tools/train_corrections_model.py --cv-only  # CV report only
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from conkeeper.services.analysis.corrections.detection import detect  # noqa: E402
from conkeeper.services.analysis.corrections.features import (  # noqa: E402
    prompt_segments,
    segment_features,
)
from conkeeper.services.analysis.corrections.model import linear  # noqa: E402

DATA = ROOT / "tests" / "data" / "corrections"
TRAIN_FILES = {
    "corpus": "corpus.jsonl",
    "blind1": "blind.jsonl",
    "blind2": "blind2.jsonl",
    "blind3": "blind3.jsonl",
    "blind4": "blind4.jsonl",
    "blind5": "blind5.jsonl",
    "blind6": "blind6.jsonl",
    "extra": "train_extra.jsonl",
    "extra2": "train_extra2.jsonl",
    "extra3": "train_extra3.jsonl",
    "blind7": "blind7.jsonl",
    "blind8": "blind8.jsonl",
}
CV_FOLDS = (
    "blind1",
    "blind2",
    "blind3",
    "blind4",
    "blind5",
    "blind6",
    "blind7",
    "blind8",
    "extra3",
    "corpus-a",
    "corpus-b",
)
WEIGHTS = ROOT / "src" / "conkeeper" / "services" / "analysis" / "corrections" / "model_weights.py"
LEVELS = ("low", "medium", "high")
# the commit that added each blind set: its rules are the ones that set was first measured with
FIRST_MEASUREMENT = {
    "blind1": "981ae6353e939ef6cc3a9deba01d8a5f2b3ab058",
    "blind2": "65cf23f6daafdadae5400acb508fc9d12ed846b4",
    "blind3": "66cb1e603b893387595151772387f93e19f5545d",
    "blind4": "84699d6c03d74128168e582da5ab9d064988906a",
    "blind5": "5501e464df97a0be57d7c046b1673e25d81e4d42",
    "blind6": "4ca5a4f85b956fbcd4c3e2c55dd31ea54e76541e",
}
# the pooled precision each sensitivity must keep on that honest estimate (targets on unseen
# text: low >= 0.95, medium >= 0.92; a margin for the threshold being chosen on the same data).
# 0.96/0.94 were tried (thresholds 0.85/0.84): the same 9 pooled false positives at low and
# 1.5 points less recall, so the margin stays where it was
MIN_PRECISION = {"low": 0.955, "medium": 0.935, "high": 0.90}
# the pooled out-of-fold false-positive rate each sensitivity may reach (issue 20's targets on
# unseen prompts: low <= 2 %, medium <= 4 %). Chosen after blind 9's first measurement showed
# FP rates of 9.5 % / 12.8 % with the precision criterion above; set on the tuning folds only.
MAX_FP_RATE = {"low": 0.02, "medium": 0.04, "high": 0.08}
MAX_FEATURES = 1500  # CV recall is the same at 1,500, 2,500 and 4,000
MIN_DF = 4  # 2, 3, 4 and 5 were tried: 4 gave the best cross-validated recall
L2 = 0.01
EPOCHS = 15
SEED = 11


# --------------------------------------------------------------------------- data


class Example:
    """One labelled prompt: its fold, truth, feature bags (one per scored segment) and the
    rule detector's verdict at each sensitivity."""

    __slots__ = ("bags", "first", "fold", "kind", "label", "rules", "text")

    def __init__(self, fold: str, text: str, label: str | None) -> None:
        self.fold = fold
        self.text = text
        self.label = label
        parts, pasted = prompt_segments(text)
        self.bags = [segment_features(p, pasted) for p in parts] or [set()]
        self.kind = label
        self.rules = {lvl: detect(text, lvl, model=False).label is not None for lvl in LEVELS}
        self.first: dict[str, bool] | None = None


def _fold_of(name: str, row: dict[str, Any]) -> str:
    if name != "corpus":
        return name
    return "corpus-a" if str(row.get("split", "-")) == "-" else "corpus-b"


def load_examples(names: tuple[str, ...] = tuple(TRAIN_FILES)) -> list[Example]:
    """Every labelled prompt of the training files, tagged with its CV fold."""
    examples = []
    for name in names:
        path = DATA / TRAIN_FILES[name]
        if not path.exists():
            continue
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    examples.append(Example(_fold_of(name, row), str(row["text"]), row["label"]))
    return examples


# --------------------------------------------------------------------------- training


def _training_pairs(examples: list[Example], kind: bool) -> list[tuple[set[str], float]]:
    """(features, target) pairs: the flag model learns every segment of a negative and the
    union of a positive's segments; the kind model learns friction (1) vs correction (0)."""
    pairs = []
    for ex in examples:
        if kind:
            if ex.label:
                pairs.append((set().union(*ex.bags), 1.0 if ex.label == "friction" else 0.0))
        elif ex.label:
            pairs.append((set().union(*ex.bags), 1.0))
        else:
            pairs.extend((bag, 0.0) for bag in ex.bags)
    return pairs


def train(
    pairs: list[tuple[set[str], float]], l2: float | None = None, max_features: int = MAX_FEATURES
) -> tuple[dict[str, float], float]:
    """Logistic regression by AdaGrad SGD over binary features seen in >= MIN_DF examples;
    the ``max_features`` largest weights are kept."""
    df: dict[str, int] = {}
    for feats, _ in pairs:
        for f in feats:
            df[f] = df.get(f, 0) + 1
    vocab = {f for f, n in df.items() if n >= MIN_DF}
    l2 = L2 if l2 is None else l2
    rows = [([f for f in feats if f in vocab], y) for feats, y in pairs]
    weights: dict[str, float] = dict.fromkeys(vocab, 0.0)
    grads: dict[str, float] = dict.fromkeys(vocab, 1e-8)
    bias, bias_grad = 0.0, 1e-8
    rate = 0.3
    order = list(range(len(rows)))
    rng = random.Random(SEED)
    for _ in range(EPOCHS):
        rng.shuffle(order)
        for i in order:
            active, y = rows[i]
            p = linear(set(active), weights, bias)
            err = p - y
            bias_grad += err * err
            bias -= rate * err / bias_grad**0.5
            for f in active:
                g = err + l2 * weights[f]
                grads[f] += g * g
                weights[f] -= rate * g / grads[f] ** 0.5
    kept = sorted(weights, key=lambda f: abs(weights[f]), reverse=True)[:max_features]
    return {f: weights[f] for f in kept if abs(weights[f]) >= 1e-4}, bias


def fit(examples: list[Example]) -> dict[str, Any]:
    """Both models on ``examples``."""
    flag, flag_bias = train(_training_pairs(examples, kind=False))
    kind, kind_bias = train(_training_pairs(examples, kind=True), max_features=800)
    return {"flag": flag, "flag_bias": flag_bias, "kind": kind, "kind_bias": kind_bias}


def probability(model: dict[str, Any], ex: Example) -> float:
    """The model's best-segment probability for one example (as the hook scores it)."""
    weights, bias = model["flag"], model["flag_bias"]
    return max(linear(bag, weights, bias) for bag in ex.bags)


# --------------------------------------------------------------------------- evaluation


def out_of_fold(examples: list[Example]) -> list[tuple[Example, float]]:
    """Each CV fold's examples scored by a model trained without that fold."""
    scored: list[tuple[Example, float]] = []
    for fold in CV_FOLDS:
        train_set = [ex for ex in examples if ex.fold != fold]
        test_set = [ex for ex in examples if ex.fold == fold]
        model = fit(train_set)
        scored.extend((ex, probability(model, ex)) for ex in test_set)
    return scored


def first_rules(examples: list[Example]) -> bool:
    """Fill ``ex.first`` for blind sets 1-6: the rule detector's verdicts as it was when the
    set was committed, before anything was tuned on it (sources from ``git archive``).
    False when git or the history is unavailable."""
    cache = Path(tempfile.gettempdir()) / "conkeeper-first-rules"
    for fold, commit in FIRST_MEASUREMENT.items():
        part = [ex for ex in examples if ex.fold == fold]
        source = cache / commit
        try:
            if not (source / "src").is_dir():
                archive = subprocess.run(
                    ["git", "-C", str(ROOT), "archive", commit, "src"],
                    capture_output=True,
                    check=True,
                ).stdout
                source.mkdir(parents=True, exist_ok=True)
                with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                    tar.extractall(source, filter="data")
            out = subprocess.run(
                [sys.executable, "-c", _FIRST_PROBE],
                input=json.dumps([ex.text for ex in part]),
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": str(source / "src")},
                check=True,
            ).stdout
        except (OSError, subprocess.CalledProcessError, tarfile.TarError):
            return False
        for ex, flags in zip(part, json.loads(out), strict=True):
            ex.first = dict(zip(LEVELS, flags, strict=True))
    return True


_FIRST_PROBE = (
    "import json, sys\n"
    "from conkeeper.services.analysis.corrections import detect\n"
    "rows = json.load(sys.stdin)\n"
    "print(json.dumps([[detect(t, lvl).label is not None for lvl in ('low', 'medium', 'high')]"
    " for t in rows]))\n"
)


def counts(
    scored: list[tuple[Example, float]], level: str, threshold: float, rules: str = "current"
) -> dict[str, float]:
    """Precision and recall of rules-then-model at one threshold: ``rules`` is ``current``
    (today's rules, tuned on every set), ``first`` (the rules as they were when the set was
    first measured) or ``none`` (the model alone)."""
    tp = fp = fn = tn = 0
    for ex, p in scored:
        if rules == "first" and ex.first is None:
            continue
        ruled = {"current": ex.rules, "first": ex.first or {}, "none": {}}[rules]
        flagged = ruled.get(level, False) or p >= threshold
        if flagged and ex.label:
            tp += 1
        elif flagged:
            fp += 1
        elif ex.label:
            fn += 1
        else:
            tn += 1
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "fp_rate": round(fp / (fp + tn), 3) if fp + tn else 0.0,
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0,
    }


def choose_thresholds(scored: list[tuple[Example, float]], honest: bool) -> dict[str, float]:
    """Per sensitivity, the lowest model threshold whose pooled false-positive rate (today's
    rules + the out-of-fold model, every fold) stays at or below :data:`MAX_FP_RATE`, and whose
    pooled precision with the rules as first measured (when ``honest``) stays at or above
    :data:`MIN_PRECISION`."""
    chosen = {}
    for level in LEVELS:
        best = 0.99
        for step in range(99, 29, -1):
            current = counts(scored, level, step / 100, "current")
            if current["fp_rate"] > MAX_FP_RATE[level]:
                break
            if (
                honest
                and counts(scored, level, step / 100, "first")["precision"] < (MIN_PRECISION[level])
            ):
                break
            best = step / 100
        chosen[level] = best
    # a more sensitive level never needs a higher score than a less sensitive one
    chosen["medium"] = min(chosen["medium"], chosen["low"])
    chosen["high"] = min(chosen["high"], chosen["medium"])
    return chosen


def cv_table(examples: list[Example]) -> dict[str, Any]:
    """The cross-validation figures per held-out fold and pooled, at each sensitivity: the
    rules as first measured + the model (blind sets only), today's rules + the model, today's
    rules alone, and the model alone."""
    honest = first_rules(examples)
    scored = out_of_fold(examples)
    thresholds = choose_thresholds(scored, honest)
    table: dict[str, Any] = {"thresholds": thresholds, "honest": honest, "folds": {}}
    for fold in (*CV_FOLDS, "pooled"):
        part = [s for s in scored if fold == "pooled" or s[0].fold == fold]
        table["folds"][fold] = {
            level: {
                "first+model": counts(part, level, thresholds[level], "first"),
                "rules+model": counts(part, level, thresholds[level]),
                "rules": counts(part, level, 2.0),
                "model": counts(part, level, thresholds[level], "none"),
            }
            for level in LEVELS
        }
    return table


COLUMNS = ("first+model", "rules+model", "rules", "model")


def print_cv(table: dict[str, Any], out: Callable[[str], None] = print) -> None:
    """Print the CV table: precision/recall per held-out fold for each column of
    :data:`COLUMNS` at low and at medium."""
    th = table["thresholds"]
    out(
        "leave-one-set-out CV; model thresholds " + ", ".join(f"{k} {v:.2f}" for k, v in th.items())
    )
    out(
        "P/R of: first = rules as first measured + model (the honest estimate; blind sets "
        "only), comb = today's rules + model, rules = today's rules alone, model = alone"
    )
    head = "".join(f"{lvl + ': first   comb   rules   model':<46}" for lvl in LEVELS[:2])
    out(f"{'held out':<10}{'pos':>4}  {head}")
    for fold, levels in table["folds"].items():
        n = levels["low"]["rules+model"]
        cells = []
        for lvl in LEVELS[:2]:
            parts = []
            for column in COLUMNS:
                c = levels[lvl][column]
                empty = column == "first+model" and c["tp"] + c["fp"] + c["fn"] == 0
                parts.append("    -    " if empty else f"{c['precision']:.2f}/{c['recall']:.2f}")
            cells.append(" ".join(parts).ljust(46))
        out(f"{fold:<10}{n['tp'] + n['fn']:>4}  " + "".join(cells))
    pooled = table["folds"]["pooled"]
    out(
        "pooled FP rate (today's rules + out-of-fold model): "
        + ", ".join(f"{lvl} {pooled[lvl]['rules+model']['fp_rate']:.3f}" for lvl in LEVELS)
    )


# --------------------------------------------------------------------------- output


def write_weights(model: dict[str, Any], thresholds: dict[str, float], n: int) -> None:
    """Write the generated weights module: per model, its feature names (one string, a name
    a line) and its weights (a tuple of floats, one constant). Both compile and load in well
    under a millisecond even without a ``.pyc``; a dict literal of the same size took ~28 ms
    to compile."""

    def table(name: str, weights: dict[str, float]) -> str:
        items = sorted(weights.items())
        names = "".join(f"{k}\n" for k, _ in items)
        values = "".join(f"    {v:.4f},\n" for _, v in items)
        return f'{name}_FEATURES = """\\\n{names}"""\n{name}_WEIGHTS = (\n{values})\n'

    WEIGHTS.write_text(
        '"""Weights of the learned correction scorer (GENERATED by\n'
        "tools/train_corrections_model.py; do not edit).\n\n"
        f"Trained on {n} labelled prompts (corpus, blind sets 1-8, train_extra 1-3). Model\n"
        "thresholds per sensitivity were chosen on leave-one-set-out cross-validation.\n"
        '"""\n\n'
        f"THRESHOLDS: dict[str, float] = {json.dumps(thresholds)}\n"
        f"FLAG_BIAS = {model['flag_bias']:.4f}\n"
        f"KIND_BIAS = {model['kind_bias']:.4f}\n"
        + table("FLAG", model["flag"])
        + table("KIND", model["kind"]),
        encoding="utf-8",
    )


def main() -> int:
    """Cross-validate, choose thresholds, train on everything and write the weights."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv-only", action="store_true", help="report CV, write nothing")
    args = parser.parse_args()
    examples = load_examples()
    print(f"{len(examples)} training prompts")
    table = cv_table(examples)
    print_cv(table)
    if args.cv_only:
        return 0
    model = fit(examples)
    write_weights(model, table["thresholds"], len(examples))
    print(f"wrote {WEIGHTS.relative_to(ROOT)}: {len(model['flag'])} + {len(model['kind'])} weights")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
