"""Precision and recall of the correction/friction detector at each sensitivity.

Two labelled sets (``{"text", "label"[, "split"]}``; label ``correction``, ``friction`` or
``null``), reported apart:

* the tuning corpus ``tests/data/corrections/corpus.jsonl``: every prompt the rules were written
  or tuned against (splits ``dev``, ``holdout``, ``holdout2``, ``tune-2026-11``); its figures
  are optimistic by construction;
* six blind sets, each written and committed before it was first measured and never used to
  write a rule directly. After its first measurement each set's misses guided a tuning round
  (new tuning prompts of the same classes went into the corpus), so every set's later figures
  are optimistic; the FIRST measurement of each is the honest estimate for unseen prompts.
  Precision/recall, low then medium:

  ===  =====================  ==============================  ==========================
  set  original detector      first measurement (unseen)      after the following round
  ===  =====================  ==============================  ==========================
  1    .885/.469  .906/.592   (the original detector)         see the printed table
  2    .909/.417  .857/.500   1.000/.583  .941/.667           see the printed table
  3    .889/.348  .900/.391   .968/.652  .969/.674            see the printed table
  4    .950/.404  .909/.426   .966/.596  .966/.596            see the printed table
  5    1.000/.400 .917/.489   .968/.667  .914/.711            see the printed table
  6    .941/.364  .909/.455   1.000/.568  .966/.636           see the printed table
  ===  =====================  ==============================  ==========================

It runs :func:`conkeeper.services.corrections.detect` at low, medium and high, prints a table
per set (and per split of the tuning corpus), and writes ``bench/results/corrections_quality.json``.

A prediction counts as a true positive when the corpus says the prompt is a correction or
friction and the detector flags it (any label); ``label accuracy`` is the share of true
positives that also got the right label. ``--errors`` lists the misclassified prompts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from conkeeper.services.corrections import detect  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "corrections" / "corpus.jsonl"
BLIND = ROOT / "tests" / "data" / "corrections" / "blind.jsonl"
BLIND2 = ROOT / "tests" / "data" / "corrections" / "blind2.jsonl"
BLIND3 = ROOT / "tests" / "data" / "corrections" / "blind3.jsonl"
BLIND4 = ROOT / "tests" / "data" / "corrections" / "blind4.jsonl"
BLIND5 = ROOT / "tests" / "data" / "corrections" / "blind5.jsonl"
BLIND6 = ROOT / "tests" / "data" / "corrections" / "blind6.jsonl"
RESULTS = ROOT / "bench" / "results" / "corrections_quality.json"


def load_corpus(path: Path = CORPUS) -> list[dict[str, object]]:
    """The labelled prompts."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def evaluate(rows: list[dict[str, object]], level: str) -> dict[str, object]:
    """Counts, precision, recall and label accuracy at one sensitivity level."""
    tp = fp = fn = tn = right_label = 0
    errors = []
    for row in rows:
        truth = row["label"]
        found = detect(str(row["text"]), level)
        if truth and found.label:
            tp += 1
            right_label += found.label == truth
            if found.label != truth:
                errors.append(("label", truth, found, row["text"]))
        elif found.label:
            fp += 1
            errors.append(("false+", truth, found, row["text"]))
        elif truth:
            fn += 1
            errors.append(("missed", truth, found, row["text"]))
        else:
            tn += 1
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {
        "level": level,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "label_accuracy": round(right_label / tp, 3) if tp else 1.0,
        "errors": errors,
    }


def _report(name: str, rows: list[dict[str, object]], show_errors: bool) -> dict[str, object]:
    """Print one set's table (per split when it has several) and return its figures."""
    positives = sum(1 for r in rows if r["label"])
    print(
        f"{name}: {len(rows)} prompts, {positives} corrections/friction, "
        f"{len(rows) - positives} negatives"
    )
    print(f"{'level':<8}{'precision':>10}{'recall':>8}{'label acc':>11}{'tp':>5}{'fp':>5}{'fn':>5}")
    splits = sorted({str(r.get("split", "-")) for r in rows})
    if len(splits) > 1:
        for split in splits:
            part = [r for r in rows if str(r.get("split", "-")) == split]
            cells = []
            for level in ("low", "medium", "high"):
                r = evaluate(part, level)
                cells.append(f"{level} P={r['precision']:.2f} R={r['recall']:.2f}")
            print(f"  split {split:<13} ({len(part):>3}): " + "  ".join(cells))
    levels = []
    for level in ("low", "medium", "high"):
        r = evaluate(rows, level)
        print(
            f"{level:<8}{r['precision']:>10.3f}{r['recall']:>8.3f}{r['label_accuracy']:>11.3f}"
            f"{r['tp']:>5}{r['fp']:>5}{r['fn']:>5}"
        )
        if show_errors:
            for kind, truth, found, text in r["errors"]:
                short = " ".join(str(text).split())[-90:]
                print(
                    f"   {kind:<7} truth={truth!s:<10} got={found.label!s:<10} "
                    f"{found.confidence:.2f} {found.pattern:<22} {short}"
                )
        levels.append({k: v for k, v in r.items() if k != "errors"})
    return {"size": len(rows), "positives": positives, "levels": levels}


def main() -> int:
    """Print the tuning and blind tables (and optionally the errors); write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", action="store_true", help="list misclassified prompts")
    args = parser.parse_args()
    tuning = _report("tuning corpus", load_corpus(CORPUS), args.errors)
    print()
    blind = _report("blind set 1 (seen while tuning)", load_corpus(BLIND), args.errors)
    print()
    blind2 = _report("blind set 2 (seen while tuning)", load_corpus(BLIND2), args.errors)
    print()
    blind3 = _report("blind set 3 (seen while tuning)", load_corpus(BLIND3), args.errors)
    print()
    blind4 = _report("blind set 4 (seen while tuning)", load_corpus(BLIND4), args.errors)
    print()
    blind5 = _report("blind set 5 (seen while tuning)", load_corpus(BLIND5), args.errors)
    print()
    blind6 = _report("blind set 6 (seen while tuning)", load_corpus(BLIND6), args.errors)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    figures = {
        "tuning": tuning,
        "blind": blind,
        "blind2": blind2,
        "blind3": blind3,
        "blind4": blind4,
        "blind5": blind5,
        "blind6": blind6,
    }
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
