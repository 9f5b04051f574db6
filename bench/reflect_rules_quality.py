"""Reflect's rules: does a group of the user's corrections become a rule worth writing down?

Why it exists: approving a ``reflect`` convention writes one line into ``patterns.md`` that every
later session reads. Issue 20 asks for "an imperative, self-contained statement, the evidence
quote kept in the retro file, not in the rule"; a rule that repeats the complaint ("You keep
forgetting the import, that's the second time"), names nothing ("Put it there") or misses what
the user asked for teaches the agent the wrong thing. This bench runs the function approval
uses (:func:`conkeeper.services.analysis.reflection.rules.imperative_rule`) on groups of
corrections written by someone who never saw it, and scores each group:

* a group whose prompts state a rule (``rule`` not null) is **right** when a rule comes out,
  holds every one of the group's ``keys`` (what any correct rule must name: the tool, file,
  flag or value the user typed), carries no complaint marker (:data:`COMPLAINT_MARKERS`) and
  does not open on a bare pronoun; **no rule** when the function found none (approval then
  writes nothing of the user's wording: see ``recommend._convention``); **wrong** otherwise;
* a group that only complains (``rule`` null) is right when no rule comes out.

Sets: ``tests/data/reflect/blind_rules<N>.jsonl`` (``{"texts", "keys", "rule", "kind"}`` per
line). Every set is a first measurement until it is listed in :data:`SEEN`; first measurements
are printed apart under ``FIRST MEASUREMENT`` and never tuned on before they are taken.
Targets (stated, not yet met by anything measured): right >= 90% of the rule groups, wrong
<= 5%, and every complaint-only group without a rule.

First measurements (each set measured once before anyone read it; ``FIRST_BLIND_RULES<N>.md``),
right / no rule / wrong among the groups stating a rule, and complaint-only groups without one:

====================================  ======================  ======================
set, when                             extraction before        extraction then
                                      (3b919d6; blind 5:
                                      dae9373)
====================================  ======================  ======================
blind 1, 20:46 UTC (c69528a)          .318 .553 .129  .867    .624 .259 .118  .867
blind 2, 20:50 (e93a09d, tuned on 1)  .318 .541 .141  .933    .765 .141 .094  .867
blind 3, 20:59 (c17be51, tuned 1-2)   .282 .600 .118  1.000   .894 .059 .047  1.000
blind 4, 22:24 (0188b44, same code)   .294 .624 .082  .933    .765 .106 .129  .933
blind 5, 23:15 (6eeb225, tuned 1-4)   .612 .224 .165  1.000   .612 .212 .176  1.000
====================================  ======================  ======================

Tuning figures at c17be51 (sets already seen): blind 1 .882 / .082 / .035 / .933, blind 2
.812 / .094 / .094 / 1.000.

Tuning figures after "why X? Y" is read as a rule (2026-11-26 23:15 UTC; sets 1-4 all seen, the
misses of set 4 read): blind 1 .906 / .059 / .035, blind 2 .812 / .094 / .094, blind 3 .918 /
.047 / .035, blind 4 .847 / .047 / .106 (before: .882 / .082 / .035, .812 / .094 / .094, .906 /
.059 / .035, .765 / .129 / .106); complaint-only groups unchanged. After blind 5's first
measurement, its misses read ("X please, like the rest", "minSdk 26", no file:line as a thing
to use, no "needs it" rule, bare one-word contrasts dropped): blind 5 .612 / .212 / .176 ->
.682 / .165 / .153 (tuning now), sets 1-4 unchanged.

Round 6 (2026-11-27, sets 1-5 all seen: every figure below is tuning). The scorer first: a
complaint marker is matched as a word (it was a substring: "ugh" in "through", "again" in
"against" scored five right rules of sets 2 and 4 wrong); the code before round 6, re-scored:
set 2 .835 / .094 / .071, set 4 .882 / .047 / .071, the others unchanged. ``--by-set`` leaves
one seen set out: each reading of ``rules.READINGS`` is kept for the held-out set only when it
earns its place on the other four (see :func:`by_set`), so a reading written for one writer
earns nothing when that writer is held out. The readings and the core were written after
reading all five sets: this is an upper bound on the next writer's first figure, not a
forecast of it (each new writer's first figure has been far below the tuning figures).

====================  =========================  =========================
held out              before round 6 (19c590d)   after round 6
====================  =========================  =========================
blind 1               .906 .059 .035  .933       .953 .024 .024  1.000
blind 2               .835 .094 .071  1.000      .953 .035 .012  1.000
blind 3               .918 .047 .035  1.000      .965 .024 .012  1.000
blind 4               .882 .047 .071  .933       .953 .012 .035  1.000
blind 5               .671 .176 .153  1.000      .753 .129 .118  1.000
mean                  .842 .085 .073  .973       .915 .045 .040  1.000
worst                 .671 .176 .153  .933       .753 .129 .118  1.000
====================  =========================  =========================

Every reading in use, per set (tuning): blind 1 .965 / .012 / .024, blind 2 .965 / .035 /
.000, blind 3 1.000 / .000 / .000, blind 4 .953 / .012 / .035, blind 5 .812 / .106 / .082;
complaint-only 1.000 on each. Blind 5 stays the worst: its writer names the fix without a
verb ("int64 grams", "child theme") or in another language, and most of its remaining wrong
rules are rules about a nearby thing ("Use the proto message." where the key is protobuf).

``--tiny`` scores the first 10 groups of each set (a CI smoke run) and writes
``bench/results/reflect_rules_quality.tiny.json``; the full run writes
``bench/results/reflect_rules_quality.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from conkeeper.services.analysis.reflection.rules import (  # noqa: E402
    READINGS,
    imperative_rule,
)

DATA = ROOT / "tests" / "data" / "reflect"
RESULTS = ROOT / "bench" / "results"
SEEN = frozenset({f"blind_rules{n}" for n in range(1, 7)})  # FIRST_BLIND_RULES*.md
TARGETS = {"right_min": 0.90, "wrong_max": 0.05, "complaint_only_right_min": 1.0}
TINY_GROUPS = 10
COMPLAINT_MARKERS = (
    "again",
    "keep forgetting",
    "you keep",
    "you forgot",
    "told you",
    "i said",
    "second time",
    "third time",
    "seriously",
    "why did you",
    "why are you",
    "how many times",
    "ugh",
    "come on",
    "wtf",
)
_BARE_PRONOUN = re.compile(r"^(?:it|that|this|them|those|these)\b", re.IGNORECASE)


def _says(marker: str, text: str) -> bool:
    """Whether ``text`` holds ``marker`` as words ("ugh" is not in "through", "again" not in
    "against")."""
    return re.search(r"\b" + re.escape(marker) + r"\b", text) is not None


def verdict(group: dict[str, Any], rule: str | None) -> str:
    """``right``, ``no rule`` or ``wrong`` for one group and the rule drawn from it."""
    if group.get("rule") is None:
        return "right" if rule is None else "wrong"
    if rule is None:
        return "no rule"
    lowered = rule.lower()
    expected = str(group["rule"]).lower()
    if not all(str(key).lower() in lowered for key in group.get("keys", [])):
        return "wrong"
    if any(_says(m, lowered) and not _says(m, expected) for m in COMPLAINT_MARKERS):
        return "wrong"
    return "wrong" if _BARE_PRONOUN.match(rule) else "right"


def score(groups: list[dict[str, Any]], leave_out: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The figures of one set: shares of right / no rule / wrong among the rule groups, the
    complaint-only groups' share without a rule, per kind, and the wrong rules themselves.
    ``leave_out``: readings the extraction does without (``--by-set``)."""
    ruled = [g for g in groups if g.get("rule") is not None]
    bare = [g for g in groups if g.get("rule") is None]
    outcomes: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    mistakes = []
    bare_right = 0
    for group in groups:
        got = imperative_rule([str(t) for t in group["texts"]], leave_out=leave_out)
        seen = verdict(group, got)
        by_kind.setdefault(str(group.get("kind", "?")), Counter())[seen] += 1
        if group.get("rule") is None:
            bare_right += seen == "right"
        else:
            outcomes[seen] += 1
        if seen != "right":
            mistakes.append({"texts": group["texts"], "expected": group.get("rule"), "got": got})
    n = max(len(ruled), 1)
    return {
        "groups": len(groups),
        "rule_groups": len(ruled),
        "right": round(outcomes["right"] / n, 3),
        "no_rule": round(outcomes["no rule"] / n, 3),
        "wrong": round(outcomes["wrong"] / n, 3),
        "complaint_only": len(bare),
        "complaint_only_right": round(bare_right / max(len(bare), 1), 3),
        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "mistakes": mistakes,
    }


def _print(name: str, figures: dict[str, Any], first: bool) -> None:
    head = "FIRST MEASUREMENT" if first else "seen set"
    print(f"== {name} ({head}): {figures['groups']} groups, {figures['rule_groups']} with a rule")
    print(f"{'right':>8} {'no rule':>8} {'wrong':>8} {'complaint-only right':>22}")
    print(
        f"{figures['right']:8.3f} {figures['no_rule']:8.3f} {figures['wrong']:8.3f} "
        f"{figures['complaint_only_right']:22.3f}"
    )
    for kind, counts in figures["by_kind"].items():
        print(f"  {kind:<22} {json.dumps(counts)}")
    print(
        f"targets: right >= {TARGETS['right_min']:.2f}, wrong <= {TARGETS['wrong_max']:.2f}, "
        f"complaint-only right >= {TARGETS['complaint_only_right_min']:.2f}"
    )


# What one group's outcome is worth when choosing readings: a wrong rule costs more than no rule
_WORTH = {("rule", "right"): 1, ("rule", "no rule"): 0, ("rule", "wrong"): -2}
_WORTH |= {("bare", "right"): 0, ("bare", "wrong"): -2}


def _worth(group: dict[str, Any], outcome: str) -> int:
    return _WORTH[("bare" if group.get("rule") is None else "rule", outcome)]


def _set_worth(groups: list[dict[str, Any]], leave_out: frozenset[str]) -> int:
    return sum(
        _worth(g, verdict(g, imperative_rule([str(t) for t in g["texts"]], leave_out=leave_out)))
        for g in groups
    )


def by_set(sets: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Leave one set out: each reading of :data:`READINGS` is kept for the held-out set only
    when it earns its place on the other sets' groups, then the held-out set is scored with the
    readings kept. A reading earns its place when it never hurts among all the others (leaving
    it out loses at least what it saves, a wrong rule counting -2, a right one +1) and helps
    either among them or alone (added to none of the others): a reading another one duplicates
    still counts. The figure that stands for the next writer's first measurement."""
    names = sorted(sets)
    every = frozenset(READINGS)
    worth: dict[tuple[str, str, str], int] = {}
    for name in names:
        for reading in ("", *READINGS):
            worth[(name, "all", reading)] = _set_worth(sets[name], frozenset({reading} - {""}))
            worth[(name, "alone", reading)] = _set_worth(sets[name], every - {reading})
    folds: dict[str, Any] = {}
    for held in names:
        train = [n for n in names if n != held]
        dropped = []
        for reading in READINGS:
            among = sum(worth[(n, "all", "")] - worth[(n, "all", reading)] for n in train)
            alone = sum(worth[(n, "alone", reading)] - worth[(n, "alone", "")] for n in train)
            if among < 0 or (among == 0 and alone <= 0):
                dropped.append(reading)
        figures = score(sets[held], frozenset(dropped))
        folds[held] = {k: v for k, v in figures.items() if k != "mistakes"} | {"left_out": dropped}
    keys = ("right", "no_rule", "wrong", "complaint_only_right")
    mean = {k: round(sum(folds[n][k] for n in names) / len(names), 3) for k in keys}
    worst = {
        k: (max if k in ("no_rule", "wrong") else min)(folds[n][k] for n in names) for k in keys
    }
    return {"folds": folds, "mean": mean, "worst": worst}


def _print_by_set(result: dict[str, Any]) -> None:
    print("== leave one set out (readings chosen on the other sets)")
    print(f"{'held out':<14} {'right':>6} {'no rule':>8} {'wrong':>6} {'compl.':>7}  left out")
    for name, fold in result["folds"].items():
        print(
            f"{name:<14} {fold['right']:6.3f} {fold['no_rule']:8.3f} {fold['wrong']:6.3f} "
            f"{fold['complaint_only_right']:7.3f}  {', '.join(fold['left_out']) or '-'}"
        )
    for label in ("mean", "worst"):
        row = result[label]
        print(
            f"{label:<14} {row['right']:6.3f} {row['no_rule']:8.3f} {row['wrong']:6.3f} "
            f"{row['complaint_only_right']:7.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    """Score every set, print a table per set and write the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="first 10 groups of each set")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--show-mistakes", action="store_true")
    parser.add_argument(
        "--by-set", action="store_true", help="leave one seen set out: readings chosen on the rest"
    )
    args = parser.parse_args(argv)
    if args.by_set:
        seen = {
            p.stem: [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x]
            for p in sorted(DATA.glob("blind_rules*.jsonl"))
            if p.stem in SEEN
        }
        result = by_set({k: v[:TINY_GROUPS] if args.tiny else v for k, v in seen.items()})
        _print_by_set(result)
        name = "reflect_rules_quality.by_set" + (".tiny" if args.tiny else "")
        out = args.out or RESULTS / f"{name}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        return 0
    report: dict[str, Any] = {"tiny": args.tiny, "targets": TARGETS, "sets": {}}
    for path in sorted(DATA.glob("blind_rules*.jsonl")):
        groups = [
            json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line
        ]
        if args.tiny:
            groups = groups[:TINY_GROUPS]
        figures = score(groups)
        first = path.stem not in SEEN
        _print(path.stem, figures, first)
        if args.show_mistakes:
            for m in figures["mistakes"]:
                print("   ", json.dumps(m, ensure_ascii=False))
        report["sets"][path.stem] = {**figures, "first_measurement": first}
    name = "reflect_rules_quality" + (".tiny" if args.tiny else "")
    out = args.out or RESULTS / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
