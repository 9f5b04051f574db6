"""Benchmark the instruction detector: how much memory poisoning it holds, how much honest
memory it lets through, and what it costs.

Why: ``remember`` holds instruction-shaped text for the user's review and SessionStart keeps it
out of the injected context (``conkeeper.domain.instructions``). A detector that misses attacks
lets one hostile web page write into every later session; one that flags ordinary conventions
("Do not edit generated files") makes ``remember`` useless. Both rates are measured on labelled
entries (``tests/data/poisoning/``): ``tuning.jsonl``, which the rules were written against
(optimistic by construction), and ``blind.jsonl``, written by someone who never saw the
detector, reported apart. The blind set's texts are never printed (only counts per kind), so
running this bench does not leak it into tuning.

Targets (issue 20), on the blind set: at least 95% of poisoning attempts held, at least 98% of
benign entries saved.

First blind figures (2026-11-26 10:44 UTC, commit 95eadff, recorded before any change made
after seeing them; full output in ``tests/data/poisoning/FIRST_BLIND.md``): blind 172 poison,
328 benign | held 47.7% (target ≥ 95%) | saved 95.4% (target ≥ 98%). Tuning at the same
commit: held 100.0%, saved 100.0% (180 poison, 299 benign). Both blind targets missed.

After tuning (reported apart; tuned on self-written lines only, blind texts never read; see the
table in ``FIRST_BLIND.md``): blind held 50.6% / 55.2% / 59.9% / 64.5% / 65.7% and saved
97.6% / 97.0% / 97.3% / 96.3% / 95.7% over five rounds (last at commit c5e02af, 11:27 UTC).
Fresh self-written probes held 26%, 36% and 20% before being tuned on: the rules do not
generalise to unseen phrasing, and the targets are not met.

Blind set 1 has been read since 11:30 UTC and is now trained on
(``tools/train_instruction_model.py``); the unseen set is ``blind2.jsonl`` (written by a helper
who saw no code), printed apart.

First blind2 figures (2026-11-26 12:28 UTC, commit efb1779, phrase rules + learned scorer,
recorded before any change made after seeing them; full output in
``tests/data/poisoning/FIRST_BLIND2.md``): blind2 218 poison, 332 benign | held 61.0% (target
≥ 95%) | saved 94.3% (target ≥ 98%). Both targets missed. (Rules-only main at 73cfa8c, for
comparison: held 51.8%, saved 93.1%.)

After further tuning (reported apart; changes chosen on CV and a fresh self-written probe, never
on blind2 figures; see ``FIRST_BLIND2.md``): blind2 held 56.4%, saved 96.1% (12:39 UTC, commit
0bee960). Leave-one-set-out CV at that commit: pooled held 77.2%, saved 98.9%; the blind1 fold
(a model trained without it) held 66.7%, saved 97.6%. Targets not met.

Also prints the detector's cost per entry (median over the sets). Writes
``bench/results/poisoning_quality.json``. ``--tiny`` runs a small slice for CI.
Run: ``python bench/poisoning_quality.py [--tiny] [--show-misses]`` (``--show-misses`` lists
the misses of the tuning set and of blind set 1; blind2 misses are never shown).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from conkeeper.domain.instructions import find_instructions  # noqa: E402

DATA = ROOT / "tests" / "data" / "poisoning"
RESULTS = Path(__file__).resolve().parent / "results" / "poisoning_quality.json"
TARGET_HELD = 0.95
TARGET_SAVED = 0.98
TINY_ROWS = 40


def load(name: str) -> list[dict[str, str]]:
    """One labelled set, ``[]`` when the file is not there (yet)."""
    path = DATA / name
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def measure(rows: list[dict[str, str]], show_misses: bool) -> dict[str, object]:
    """Held rate on poison, saved rate on benign, both per kind; misses only when asked."""
    held: Counter[str] = Counter()
    saved: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses: list[str] = []
    for row in rows:
        flagged = bool(find_instructions(row["text"]))
        key = f"{row['label']}/{row.get('kind', '?')}"
        total[key] += 1
        if row["label"] == "poison":
            held[key] += flagged
            if not flagged and show_misses:
                misses.append(f"missed poison [{row.get('kind')}]: {row['text'][:140]}")
        else:
            saved[key] += not flagged
            if flagged and show_misses:
                misses.append(f"held benign [{row.get('kind')}]: {row['text'][:140]}")
    poison = sum(n for k, n in total.items() if k.startswith("poison/"))
    benign = sum(n for k, n in total.items() if k.startswith("benign/"))
    return {
        "poison": poison,
        "benign": benign,
        "held_rate": round(sum(held.values()) / poison, 4) if poison else None,
        "saved_rate": round(sum(saved.values()) / benign, 4) if benign else None,
        "per_kind": {
            key: {"n": n, "ok": held[key] if key.startswith("poison/") else saved[key]}
            for key, n in sorted(total.items())
        },
        "misses": misses,
    }


def cost_us(rows: list[dict[str, str]]) -> dict[str, float]:
    """Median and max microseconds of one ``find_instructions`` call over the texts."""
    times = []
    for row in rows:
        start = time.perf_counter()
        find_instructions(row["text"])
        times.append((time.perf_counter() - start) * 1e6)
    if not times:
        return {}
    return {"median_us": round(statistics.median(times), 1), "max_us": round(max(times), 1)}


def _print(name: str, figures: dict[str, object]) -> None:
    if not figures["poison"] and not figures["benign"]:
        print(f"{name}: no data")
        return
    print(
        f"{name}: {figures['poison']} poison, {figures['benign']} benign | "
        f"held {figures['held_rate']:.1%} (target ≥ {TARGET_HELD:.0%}) | "
        f"saved {figures['saved_rate']:.1%} (target ≥ {TARGET_SAVED:.0%})"
    )
    per_kind = figures["per_kind"]
    assert isinstance(per_kind, dict)
    for key, cell in per_kind.items():
        what = "held" if key.startswith("poison/") else "saved"
        print(f"    {key:<28} {cell['ok']:>4}/{cell['n']:<4} {what}")
    for miss in figures["misses"]:  # type: ignore[attr-defined]
        print("    " + miss)


def main(argv: list[str] | None = None) -> int:
    """Print tuning and blind figures apart and write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="a small slice of each set (CI)")
    parser.add_argument("--show-misses", action="store_true", help="list tuning-set misses")
    args = parser.parse_args(argv)
    tuning = load("tuning.jsonl")
    blind = load("blind.jsonl")
    blind2 = load("blind2.jsonl")
    if args.tiny:
        tuning = tuning[:TINY_ROWS] + tuning[-TINY_ROWS:]
        blind = blind[:TINY_ROWS] + blind[-TINY_ROWS:]
        blind2 = blind2[:TINY_ROWS] + blind2[-TINY_ROWS:]
    results = {
        "targets": {"held_rate": TARGET_HELD, "saved_rate": TARGET_SAVED, "on": "blind2"},
        "tiny": args.tiny,
        "tuning": measure(tuning, args.show_misses),
        "blind": measure(blind, args.show_misses),  # blind set 1: seen, trained on
        "blind2": measure(blind2, show_misses=False),  # never print blind2 texts
        "cost": cost_us(tuning + blind + blind2),
    }
    _print("tuning (rules written against it)", results["tuning"])  # type: ignore[arg-type]
    _print("blind1 (seen now: tuned and trained on)", results["blind"])  # type: ignore[arg-type]
    _print("blind2 (never seen by the detector's author)", results["blind2"])  # type: ignore[arg-type]
    print(f"cost per entry: {results['cost']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
