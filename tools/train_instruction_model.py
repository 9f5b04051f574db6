"""Train the learned instruction scorer offline and write its weights into the package.

Why: the phrase rules in :mod:`conkeeper.domain.instructions` do not generalise to another
author's phrasing of an attack (blind set 1: 47.7% held at first, 65.7% after five rounds). A
small logistic regression over general shapes and the rules' verdicts
(:mod:`conkeeper.domain.instruction_features`) is trained here; pure Python (no numpy), seconds.

Data (``tests/data/poisoning/``): ``tuning.jsonl``, ``blind.jsonl`` (blind set 1, now seen) and
``probe1.jsonl`` (60 lines the scorer's author wrote fresh after blind2's first run, without
reading blind2; the detector held 22/32 of its poison and saved 27/28 of its benign lines before
it was trained on).
The list is explicit: ``blind2.jsonl`` and any later blind set are never read here, so they stay
unseen by the model.

Honest estimate: leave-one-set-out cross-validation over four folds: blind set 1, probe1, and
the two halves of the tuning set (the first and second half of each label's lines: later rounds
were appended). Each
fold is scored by a model trained on the other two. The rules were tuned against all of these
sets (the blind one by its counts only), so the rule features make the estimate optimistic.
:data:`TARGET_SAVED` picks the threshold: the lowest whose pooled out-of-fold benign saved rate
is at least that and whose every fold of at least :data:`MIN_FOLD_BENIGN` benign entries saves
at least :data:`MIN_FOLD_SAVED`. The blind1 fold
is scored by a model trained on one author's lines only, harder than the final model (trained
on both authors) faces.

Entries the rules hold as hidden text are left out (always held, whatever the model says). The
hidden-comment rule asks the whole detector about a comment's body, so which entries those are
depends on the weights in place: run the trainer until it reports the same figures twice (a fixed
point, reached on the second run).

Usage::

    python3 tools/train_instruction_model.py            # CV report, then write the weights
    python3 tools/train_instruction_model.py --cv-only  # CV report only
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from conkeeper.domain.instruction_model import linear, score, segment_features  # noqa: E402
from conkeeper.domain.instructions import (  # noqa: E402
    _OWN_TAG,
    _visible,
    rule_findings,
)

DATA = ROOT / "tests" / "data" / "poisoning"
WEIGHTS = ROOT / "src" / "conkeeper" / "domain" / "instruction_model_weights.py"
TRAIN_FILES = ("tuning.jsonl", "blind.jsonl", "probe1.jsonl")
FOLDS = ("tuning-a", "tuning-b", "blind1", "probe1")
TARGET_SAVED = 0.985
MIN_FOLD_SAVED = 0.975
MIN_FOLD_BENIGN = 100  # a smaller fold (probe1) is too coarse to gate on alone
EPOCHS = 12
L2 = 0.002
MIN_DF = 1
MAX_FEATURES = 2000
SEED = 20


class Example:
    """One labelled entry with its fold and features (hidden-text entries are excluded: the
    rules always hold those)."""

    __slots__ = ("fold", "kind", "pieces", "y")

    def __init__(self, fold: str, pieces: list[set[str]], y: float, kind: str) -> None:
        self.fold, self.pieces, self.y, self.kind = fold, pieces, y, kind

    @property
    def feats(self) -> set[str]:
        """The whole entry's features (what the model is trained on)."""
        return self.pieces[0]


def load_examples() -> tuple[list[Example], dict[str, int]]:
    """Every training entry as an example; the count of entries the rules hold as hidden text
    (always held, outside the model) per label."""
    examples: list[Example] = []
    hidden = {"poison": 0, "benign": 0}
    for name in TRAIN_FILES:
        rows = [json.loads(x) for x in (DATA / name).read_text("utf-8").splitlines() if x.strip()]
        seen = {"poison": 0, "benign": 0}
        total = {label: sum(r["label"] == label for r in rows) for label in seen}
        for row in rows:
            label = row["label"]
            seen[label] += 1
            first_half = seen[label] <= total[label] // 2
            fold = {"blind.jsonl": "blind1", "probe1.jsonl": "probe1"}.get(
                name, "tuning-a" if first_half else "tuning-b"
            )
            found = rule_findings(row["text"])
            if any(f.kind == "hidden" for f in found):
                hidden[row["label"]] += 1
                continue
            visible = _visible(_OWN_TAG.sub(" ", row["text"]))
            pieces = segment_features(visible, {f.kind for f in found})
            y = 1.0 if row["label"] == "poison" else 0.0
            examples.append(Example(fold, pieces, y, row.get("kind", "?")))
    return examples, hidden


def train(examples: list[Example]) -> tuple[dict[str, float], float]:
    """Logistic regression by AdaGrad SGD over features seen in >= MIN_DF examples."""
    df: dict[str, int] = {}
    for ex in examples:
        for f in ex.feats:
            df[f] = df.get(f, 0) + 1
    vocab = {f for f, n in df.items() if n >= MIN_DF}
    rows = [([f for f in ex.feats if f in vocab], ex.y) for ex in examples]
    weights = dict.fromkeys(vocab, 0.0)
    grads = dict.fromkeys(vocab, 1e-8)
    bias, bias_grad, rate = 0.0, 1e-8, 0.3
    order = list(range(len(rows)))
    rng = random.Random(SEED)
    for _ in range(EPOCHS):
        rng.shuffle(order)
        for i in order:
            active, y = rows[i]
            err = linear(set(active), weights, bias) - y
            bias_grad += err * err
            bias -= rate * err / bias_grad**0.5
            for f in active:
                g = err + L2 * weights[f]
                grads[f] += g * g
                weights[f] -= rate * g / grads[f] ** 0.5
    kept = sorted(weights, key=lambda f: abs(weights[f]), reverse=True)[:MAX_FEATURES]
    return {f: round(weights[f], 4) for f in kept if abs(weights[f]) >= 1e-3}, round(bias, 4)


def out_of_fold(examples: list[Example]) -> list[tuple[Example, float]]:
    """Each fold scored by a model trained on the others."""
    scored = []
    for fold in FOLDS:
        weights, bias = train([ex for ex in examples if ex.fold != fold])
        scored += [(ex, score(ex.pieces, weights, bias)) for ex in examples if ex.fold == fold]
    return scored


def rates(scored: list[tuple[Example, float]], threshold: float) -> tuple[float, float]:
    """Held rate on poison and saved rate on benign at ``threshold``."""
    poison = [p for ex, p in scored if ex.y == 1.0]
    benign = [p for ex, p in scored if ex.y == 0.0]
    held = sum(p >= threshold for p in poison) / max(1, len(poison))
    saved = sum(p < threshold for p in benign) / max(1, len(benign))
    return held, saved


def choose_threshold(scored: list[tuple[Example, float]]) -> float:
    """The lowest threshold meeting the pooled and per-fold benign targets."""
    for step in range(5, 100):
        t = step / 100
        if rates(scored, t)[1] < TARGET_SAVED:
            continue
        folds = [[s for s in scored if s[0].fold == f] for f in FOLDS]
        large = [part for part in folds if sum(ex.y == 0.0 for ex, _ in part) >= MIN_FOLD_BENIGN]
        if all(rates(part, t)[1] >= MIN_FOLD_SAVED for part in large):
            return t
    return 0.99


def report(scored: list[tuple[Example, float]], threshold: float) -> None:
    """Held and saved per fold and pooled, model only (hidden text is held by the rules)."""
    for fold in (*FOLDS, "pooled"):
        part = [s for s in scored if fold == "pooled" or s[0].fold == fold]
        held, saved = rates(part, threshold)
        n_p = sum(ex.y == 1.0 for ex, _ in part)
        n_b = len(part) - n_p
        print(f"  {fold:<9} {n_p:>4} poison {n_b:>4} benign | held {held:.1%} saved {saved:.1%}")


def write_weights(weights: dict[str, float], bias: float, threshold: float, n: int) -> None:
    """Generate the weights module: one string of ``feature weight`` lines (a string constant
    compiles in no time, where a tuple of thousands of floats would cost the hook milliseconds
    when no bytecode is cached)."""
    lines = "\n".join(f"{f} {weights[f]!r}" for f in sorted(weights))
    WEIGHTS.write_text(
        '"""Weights of the learned instruction scorer (GENERATED by\n'
        "tools/train_instruction_model.py; do not edit).\n\n"
        f"Trained on {n} labelled entries (tuning, blind1, probe1); the threshold was\n"
        "chosen on leave-one-set-out cross-validation for >= 98% of benign entries saved.\n"
        '"""\n\n'
        f"THRESHOLD = {threshold!r}\nBIAS = {bias!r}\n"
        'TABLE = """\\\n' + lines + '\n"""\n',
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    """Cross-validate, choose the threshold, train on everything and write the weights."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv-only", action="store_true")
    args = parser.parse_args(argv)
    examples, hidden = load_examples()
    print(f"{len(examples)} examples; held as hidden text by the rules: {hidden}")
    scored = out_of_fold(examples)
    threshold = choose_threshold(scored)
    print(f"leave-one-set-out CV at threshold {threshold}:")
    report(scored, threshold)
    for t in (0.3, 0.4, 0.5, 0.6, 0.7):
        held, saved = rates(scored, t)
        print(f"  pooled at {t}: held {held:.1%} saved {saved:.1%}")
    if args.cv_only:
        return 0
    weights, bias = train(examples)
    write_weights(weights, bias, threshold, len(examples))
    print(f"wrote {WEIGHTS.relative_to(ROOT)} ({len(weights)} features)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
