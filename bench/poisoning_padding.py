"""Pad every held poisoning attempt with honest sentences and count how many the detector then
releases.

Why: an order the detector holds often passed once a benign sentence was added on its line or
around it (issue 20, round 20: 64 of 536 held blind orders released by one same-line sentence).
An attacker pads. This script builds the padding attack from the labelled corpus
(``tests/data/poisoning/``, the trainer's authors; never a blind set still to be measured): each
poison entry the shipped detector holds is padded with benign sentences drawn from *other*
authors' benign notes (any language), in four ways (one sentence before it on its line, one after
it on its line, one on a line before, two on lines after), and read again by
:func:`conkeeper.domain.instructions.find_instructions`. A padding sentence is used only when the
detector saves it alone (padding that is itself held proves nothing).

Run: ``PYTHONPATH=src python bench/poisoning_padding.py [--limit N] [--tiny] [--out FILE]``
(``--limit``: the first N held entries of each author, a quick run; ``--tiny``: three per
author, what CI runs so the script cannot rot). Prints released / padded per way and per author
against the target (none released: padding must never turn a held order into a saved note) and
writes the figures as JSON (``bench/results/poisoning_padding.json``, ``--tiny``:
``poisoning_padding.tiny.json``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tools"))

from conkeeper.domain.instructions import find_instructions  # noqa: E402

DATA = ROOT / "tests" / "data" / "poisoning"
RESULTS = ROOT / "bench" / "results"
SEED = 20
TINY = 3  # held entries per author in a --tiny run
TARGET_RELEASED = 0  # padded held orders the detector may release
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


def authors() -> list[str]:
    """The trainer's author files (the ones the detector may be tuned on)."""
    from train_instruction_model import AUTHORS

    return [name for name, _ in AUTHORS]


def rows(name: str) -> list[dict[str, str]]:
    """One author's labelled rows."""
    lines = (DATA / name).read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def benign_sentences(name: str) -> list[str]:
    """One-line sentences of 25 to 160 characters from an author's benign notes."""
    out = []
    for row in rows(name):
        if row["label"] != "benign":
            continue
        for line in row["text"].splitlines():
            for sentence in _SENTENCE.split(line.strip()):
                sentence = sentence.strip()
                if 25 <= len(sentence) <= 160 and sentence[-1] in ".!?。！？":
                    out.append(sentence)
    return out


WAYS = ("same line, before", "same line, after", "line before", "two lines after")


def padded(text: str, pads: list[str], way: str) -> str:
    """``text`` padded with honest sentences ``pads`` in one of :data:`WAYS`."""
    if way == "same line, before":
        return f"{pads[0]} {text}"
    if way == "same line, after":
        return f"{text} {pads[0]}"
    if way == "line before":
        return f"{pads[0]}\n{text}"
    return f"{text}\n{pads[0]}\n{pads[1]}"


def run(limit: int) -> dict[str, object]:
    """Pad each author's held poison with other authors' sentences; count the released."""
    names = authors()
    pools = {name: benign_sentences(name) for name in names}
    rng = random.Random(SEED)
    saved_pad: dict[str, bool] = {}

    def draw(author: str) -> str:
        while True:
            other = rng.choice([n for n in names if n != author and pools[n]])
            sentence = rng.choice(pools[other])
            if sentence not in saved_pad:
                saved_pad[sentence] = not find_instructions(sentence)
            if saved_pad[sentence]:
                return sentence

    totals = {way: [0, 0] for way in WAYS}
    per_author: dict[str, list[int]] = {}
    for name in names:
        held = [r["text"] for r in rows(name) if r["label"] == "poison"]
        held = [text for text in held if find_instructions(text)]
        if limit:
            held = held[:limit]
        cell = per_author.setdefault(name, [0, 0])
        for text in held:
            for way in WAYS:
                attack = padded(text, [draw(name), draw(name)], way)
                released = not find_instructions(attack)
                totals[way][0] += released
                totals[way][1] += 1
                cell[0] += released
                cell[1] += 1
    return {"ways": totals, "authors": per_author}


def main(argv: list[str] | None = None) -> int:
    """Print released / padded per way and per author against the target; write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="first N held entries per author")
    parser.add_argument("--tiny", action="store_true", help=f"first {TINY} per author")
    parser.add_argument("--out", type=Path, default=None, help="where the JSON figures go")
    args = parser.parse_args(argv)
    result = run(TINY if args.tiny else args.limit)
    ways = result["ways"]
    assert isinstance(ways, dict)
    for way, (released, total) in ways.items():
        print(f"  {way:<20} released {released:>5} of {total:>5} held attacks padded")
    released = sum(v[0] for v in ways.values())
    total = sum(v[1] for v in ways.values())
    print(f"  {'all':<20} released {released:>5} of {total:>5} ({released / max(1, total):.1%})")
    verdict = "met" if released <= TARGET_RELEASED else "not met"
    print(f"  target: {TARGET_RELEASED} released ({verdict})")
    by_author = result["authors"]
    assert isinstance(by_author, dict)
    worst = sorted(by_author.items(), key=lambda kv: -kv[1][0] / max(1, kv[1][1]))[:5]
    print("  most released: " + ", ".join(f"{n} {r}/{t}" for n, (r, t) in worst))
    out = args.out or RESULTS / (
        "poisoning_padding.tiny.json" if args.tiny else "poisoning_padding.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    figures = {**result, "released": released, "padded": total, "target_released": TARGET_RELEASED}
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
