"""Leave-one-author-out selection for the consolidation detector
(:mod:`conkeeper.services.upkeep.freshness.relations`).

Why it exists: thresholds tuned on pairs one person wrote fit that person's phrasing; the figure
that predicts a new author's pairs is the one measured on an author the choice never saw. Each
author's labelled pairs are held out in turn: the thresholds (a small grid over
:class:`~conkeeper.services.upkeep.freshness.relations.Limits`) are chosen on the other authors'
pairs, then the held-out author is measured once with them. Printed per held-out author:
duplicate and contradiction precision and recall and wrong merges (a pair not labelled duplicate
proposed as a duplicate: ``--apply`` would delete a rule). ``--choose`` prints the thresholds
chosen on every author together (the ones to ship in ``relations.LIMITS``).

Authors (only these files are read; a ``blind_pairs<N>.jsonl`` with N >= 20 never is):
author 1 ``tuning_pairs.jsonl``, author 2 ``blind_pairs.jsonl``, author 3 ``train_pairs2.jsonl``,
author 4 ``blind_pairs2.jsonl`` (measured once blind, ``FIRST_BLIND_PAIRS2.md``, seen since),
author 5 ``train_pairs3.jsonl`` (measured once before its text was read, ``FIRST_TRAIN3.md``),
author 6 ``blind_pairs3.jsonl`` (measured once blind, ``FIRST_BLIND_PAIRS3.md``, seen since),
author 7 ``train_pairs4.jsonl`` (measured once before its text was read, ``FIRST_TRAIN4.md``),
author 8 ``blind_pairs4.jsonl`` (measured once blind, ``FIRST_BLIND_PAIRS4.md``, seen since; the
shipped limits were chosen before it joined), author 9 ``train_pairs5.jsonl`` (measured once
before its text was read, ``FIRST_TRAIN5.md``), author 10 ``blind_pairs5.jsonl`` (measured once
blind, ``FIRST_BLIND_PAIRS5.md``, seen since; round 7's limits are chosen with it), author 11
``blind_pairs6.jsonl`` (measured once blind, ``FIRST_BLIND_PAIRS6.md``, seen since; round 8's
limits are chosen with it), author 12 ``blind_pairs7.jsonl`` (measured once blind,
``FIRST_BLIND_PAIRS7.md``, seen since; round 9's rules were written with it), author 13
``blind_pairs8.jsonl`` (measured once blind, ``FIRST_BLIND_PAIRS8.md``, seen since; round 10's
rules were written with it), author 14 ``blind_pairs9.jsonl`` (measured once blind,
``FIRST_BLIND_PAIRS9.md``, seen since; round 11's rules were written with it), author 15
``blind_pairs10.jsonl`` (measured once blind, ``FIRST_BLIND_PAIRS10.md``, seen since; round
12's rules were written with it), author 16 ``blind_pairs11.jsonl`` (measured once blind,
``FIRST_BLIND_PAIRS11.md``, seen since; round 13's rules were written with it), author 17
``blind_pairs12.jsonl`` (measured once blind, ``FIRST_BLIND_PAIRS12.md``, seen since; round
15's rules were written with it), author 18 ``blind_pairs13.jsonl`` (measured once blind,
``FIRST_BLIND_PAIRS13.md``, seen since; round 16's rules were written with it), author 19
``blind_pairs14.jsonl`` and author 20 ``blind_pairs15.jsonl`` (each measured once blind,
``FIRST_BLIND_PAIRS14.md`` and ``FIRST_BLIND_PAIRS15.md``, read for round 19's mends), author 21
``train_pairs6.jsonl`` (measured once before its text was read, ``FIRST_TRAIN6.md``), authors
22 and 23 ``train_pairs7.jsonl`` and ``train_pairs8.jsonl`` (the same, ``FIRST_TRAIN7.md`` and
``FIRST_TRAIN8.md``), authors 24 and 25 ``blind_pairs16.jsonl`` and ``blind_pairs17.jsonl``
(each measured once blind, ``FIRST_BLIND_PAIRS16.md`` and ``FIRST_BLIND_PAIRS17.md``, mended
by class in round 23, seen since), author 26 ``train_pairs9.jsonl`` (measured once before its
text was read, ``FIRST_TRAIN9.md``), authors 27 and 28 ``blind_pairs18.jsonl`` and
``blind_pairs19.jsonl`` (each measured once blind, ``FIRST_BLIND_PAIRS18.md`` and
``FIRST_BLIND_PAIRS19.md``, mended by class in round 25, seen since), author 29
``train_pairs10.jsonl`` (measured once before its text was read, ``FIRST_TRAIN10.md``).

The objective ranks a wrong merge far below anything else (it costs 20 correct proposals, and
is counted again at limits ``--margin`` looser on the thresholds that delete), then counts
correct proposals minus wrong ones (a wrong contradiction costs a person a look, a wrong
duplicate 1.5; a wrong merge costs a rule). On a tie the limits closest to the shipped ones
win.

The **all-pairs check** (``--all-pairs``): the labelled pairs show only the pairs someone
wrote down, while a real memory folder holds every pair of its entries. Each author's bullets
(every distinct side of every pair) are written into one memory file and run through the real
planner (:func:`~conkeeper.services.upkeep.freshness.consolidate.find`); every duplicate it
proposes is a merge ``--apply`` would make. Counted per author: right merges (a pair labelled
duplicate, or two bullets joined by a chain of such pairs), *labelled wrong merges* (a pair
labelled anything but duplicate), *cross-pair merges* (two bullets no label joins: from
different labelled pairs; the pair-level figures cannot see them, and each is a rule deleted
unless the author happened to write one rule twice, which ``--show`` lists for a look), and the
contradictions proposed across pairs (a person's look each, for precision).

Round 8 (eleven authors), shipped limits: no labelled or implied wrong merge on any author;
merges no label judges 307 -> 319 (the new ones read: the same rule, with more detail, save a
few re-pairings); contradictions over the eleven files 4,221 -> 2,966 (across pairs 3,639 ->
2,401; a sample of the ones gone read false: notes that merely mention two rival tools, two
values of different settings, a change note about something else). Two rules that looked safe
on the labelled pairs were dropped on this check alone: a merge of entries naming the same
specific identifiers at similarity 0.5 ("`robot_description`" package notes, a `tenant_id`
column against a `tenant_id` index rule) and a contained detail of two subjects ("Run tests
with `cargo test`" inside a note about `cargo nextest`).

Round 9 (twelve authors, tuning: the rules were written while reading all twelve; thresholds
held out as above): a note that a named thing is gone against an entry using it
(``retired_conflict``), a reason that makes no exception for a merge (``reason_merge``) and a
two-subject prohibition contained in a longer one; held out, duplicate recall mean .565 ->
.570 (worst .338 -> .350), contradiction precision .826 -> .830 (worst .755 -> .771), recall
.677 -> .688 (worst .567 -> .583), no wrong merge on any author before or after, none labelled
or implied in the all-pairs check (its merges over the twelve files: right 429 -> 447, no label
judges 308 -> 298; contradictions 3,291 -> 3,289). Tried and left out: letting a reason-only
entry through the full conflict check (3 contradictions more, 6 wrong ones), containment of
any two-subject entry (2 wrong merges: "Money is always `Decimal`" inside a rounding rule), no
value conflict between entries each naming a thing the other does not (5 right contradictions
lost for 3 wrong ones; code spans only: 1 for 1), places read per clause for contained detail
(no change).

Round 10 (thirteen authors, blind pairs 8 the thirteenth; tuning: the rules were written while
reading all thirteen, thresholds held out as above): bounds and ranges said in words, rates of
requests in one unit, spelled-out sizes, "auto" as automatic, "can ... at most" a limit; two
code spans given as the value of one setting (``named_values``); a switch said off of a subject
negates it; a merge ruled out when each entry states a value the other does not (or a value
for one environment against the general rule). Held out, against main a9fbcff over the same
thirteen authors: duplicate recall mean .569 -> .572 (worst .350 -> .350), contradiction
precision .827 -> .831 (worst .771 -> .787), recall .678 -> .691 (worst .567 -> .600), no wrong
merge on any author before or after. All-pairs check (shipped limits, thirteen files): right
merges 477 -> 480, no labelled or implied wrong merge, no label judges 311 -> 309 (a new merge
of "between 3 and 12 pods" with "min 3, max 20" seen here and closed by the guard above),
contradictions 3,458 -> 3,471 (across pairs 2,816 -> 2,820). Tried and left out: identifiers
in capitals read by their words (`MLLP_PORT`: +3 labelled proposals, but a token note and a
token-expiry note merged at the margin's similarity, so four folds chose a stricter duplicate
threshold: held-out duplicate recall .572 -> .560), a permission naming four subjects the
prohibition does not (+2 labelled contradictions, 2 false ones across pairs), words joined by
a slash read apart (5 right, 5 wrong), "static"/"client-side" as antonyms ("static analysis"),
a comma ending what a verbal negation governs (1 right lost, 1 wrong gone), a different scope
or environment on each side ruling a merge out (10 labelled duplicates lost). ``--choose``
over thirteen prefers ``firm_polarity`` off by one point of the objective (+7 right, +13 wrong
contradictions); the shipped value stays on.

Round 11 (ck/kdet10, fourteen authors, blind pairs 9 the fourteenth; tuning: rules written
reading author 14's misses and those of all fourteen, thresholds held out as above; per-author
table in ``bench/consolidate_quality.py``): held out, against main 20fd338 over the same
fourteen authors, duplicate recall mean .559 -> .578 (worst .350 -> .362), contradiction
precision .822 -> .834 (worst .702 -> .745), recall .681 -> .704 (worst .550 -> .583), no
wrong merge on any author before or after; ``--choose`` over fourteen gives the shipped
limits. All-pairs check (shipped limits, fourteen files): no labelled or implied wrong merge,
no label judges 316 -> 312, right merges 503 -> 519, contradictions 3,703 -> 3,740 (across
pairs 3,008 -> 3,027). Probes written for the round's rules (pairs of no author) found three
merges that would delete a rule, mended before shipping: two this round's rules had made ("Old
logs are not deleted" with "... deleted after 30 days": a negation and the rejection word it
governs now cancel out; "the 2025 cohort" with "the 2024 cohort": an event's year keeps two
rules apart) and one main already made ("generated asynchronously" with "generated
synchronously": a variant of an antonym now flips as it does).

Round 12 (ck/kdet11, fifteen authors, blind pairs 10 the fifteenth; tuning: rules written
reading author 15's misses and the all-pairs merges of all fifteen; per-author table in
``bench/consolidate_quality.py``): held out, against main 16c8018 over the same fifteen
authors, duplicate recall mean .555 -> .577 (worst .300 -> .362), contradiction precision
.829 -> .843 (worst .745 -> .766), recall .704 -> .710 (worst .583 -> .600), wrong merges 1
(author 15) -> 0; ``--choose`` over fifteen gives the shipped limits once ``supersede_clause``
is fixed on (:data:`FIXED`). All-pairs check (shipped limits, fifteen files): no labelled or
implied wrong merge before or after; merges no label judges 333 -> 316, 13 of those gone two
facts about the same plain names (a merge on names alone now needs the shorter entry to add
fewer than three words of its own when the names hold no identifier and no value), a value
for one environment against the same value stated for none, or choices for two jobs; right
merges 542 -> 551; contradictions 4,046 -> 4,030.

Round 13 (ck/kdet12, sixteen authors, blind pairs 11 the sixteenth; tuning: rules and words
written reading author 16's misses; per-author table in ``bench/consolidate_quality.py``): held
out, against main 69ac7f1 over the same sixteen authors, duplicate recall mean .582 -> .581
(worst .350 -> .350), contradiction precision .837 -> .848 (worst .723 -> .783), recall .701
-> .715 (worst .567 -> .600), wrong merges 2 (author 16) -> 0; ``--choose`` over sixteen gives
the shipped limits (the fold holding out author 1 chose duplicate similarity 0.7: no wrong
merge there). All-pairs check (shipped limits, sixteen files): labelled wrong merges 2 -> 0,
no label judges 330 -> 327, right merges 591 -> 589, contradictions 4,323 -> 4,331 (across
pairs 3,512 -> 3,512).

Round 14 (ck/kdet13, sixteen authors): ``--misses`` added, the labelled duplicates the shipped
limits miss by kind and cause (:func:`miss_cause`: 453 of 1,059 before the round, 451 after);
function words and a glossary of common engineering words of six other languages; held out,
against main b79f78c, duplicate recall mean .581 -> .583 (worst .350 -> .350), contradiction
precision .848 -> .849, recall .715 -> .716, wrong merges 0 -> 0; ``--choose`` gives the
shipped limits. All-pairs check (shipped limits, sixteen files): wrong merges 0, no label
judges 327 -> 327, right merges 589 -> 591, contradictions 4,331 -> 4,338 (across pairs 3,512
-> 3,518). Per-author table in ``bench/consolidate_quality.py``.

Round 15 (ck/kdet14, seventeen authors, blind pairs 12 the seventeenth): a rule for every
member of a class is never merged with one member named by a name or by a word of its own
before the class noun, however much detail it adds (blind pairs 12's one wrong deletion).
Held out, against main aa83bbf over the same seventeen authors: authors 1-16 unchanged, author
17 duplicate precision .968 -> 1.000, wrong merges 1 -> 0; ``--choose`` gives the shipped
limits. All-pairs check (shipped limits, seventeen files): wrong merges 1 -> 0, every other
count unchanged (no label judges 353, right merges 620, contradictions 4,579). Then a negation
inside a condition governs the condition's words only: held out, author 10 duplicate recall
.533 -> .550, nothing else changed; all pairs: right merges 620 -> 621, contradictions 4,579 ->
4,575, no new merge.

Round 16 (ck/kdet15, eighteen authors, blind pairs 13 the eighteenth): an entry opening with
a code identifier and a rule with a universal that never names it are never merged (blind
pairs 13's wrong deletion); two entries opening with one noun narrowed by names of their own
are no contradiction, two full names narrowing one noun rule a merge out; entries whose
values all agree merge at ``number_similarity`` (grid 0.5, 0.55, 0.6, off; 0.6 chosen).
Held out, against main 418bbdb: duplicate recall mean .573 -> .575, contradiction precision
.853 -> .855, recall .716 -> .716, wrong merges 1 (author 18) -> 0; all pairs: wrong merges 0,
right merges 653 -> 657, no label judges 379 -> 380, contradictions 4,929 -> 4,902. Per-author
figures in ``bench/consolidate_quality.py``.

Round 17 (ck/kdet16, eighteen authors, no new set): scoped twins (the same words in the same
order but one slot, each side's word naming a scope or narrowing one noun after an article:
"The web player ..." / "The TV player ...") are never merged and, in the subject, no
contradiction; after the verb they are one subject with two values ("the Standard tier" /
"the Premium tier"). Held out, against main 52eb397: duplicate recall mean .575 -> .576,
contradiction precision .855 -> .857 (8 -> 7 authors below .85), recall .716 -> .716, wrong
merges 0 -> 0; ``--choose`` gives the shipped limits. All pairs: wrong merges 0, right merges
657 -> 658, no label judges 380 -> 380, contradictions 4,902 -> 4,897.

Round 18 (ck/kdet17, eighteen authors, no new set): two entries the same but for one slot
whose words are values (a name, a word with a digit, a level, size or colour word; a compound
name one word; no short form of each other) are never merged and, after the verb, a
contradiction ("INFO against DEBUG"). Held out, against main 3ea289b: every author's row and
every fold's choice identical (duplicate recall mean .576, contradiction precision .857,
recall .716, wrong merges 0); all pairs unchanged (wrong merges 0, right 652, no label judges
367, contradictions 4,826).

Round 20 (ck/kdet19, twenty-one authors: blind pairs 14 and 15 and training pairs 6 joined):
train_pairs6's two wrong merges mended by class (a failed thing as the object of a negated
verb, a code span naming a member after a quantified class noun), two years opening two
entries are two periods, Russian and Swedish durations. Held out, against main 6a97ff9 over
the same twenty-one authors: every fold's choice identical; duplicate precision mean .997 ->
1.000, recall .576 -> .576 (worst .350), contradiction precision .849 -> .854 (worst .750 ->
.783), recall .705 -> .707 (worst .400 -> .433), wrong merges 2 (author 21) -> 0. All pairs:
wrong merges 1 -> 0, no label judges 389 -> 389, right merges 755 -> 755, contradictions
5,624 -> 5,622. Per-author table in ``bench/consolidate_quality.py``.

Round 21 (ck/kdet20, duplicate recall): frequencies, percentiles, severities and a few short
names in one form, a bracketed "(only)", a short rule inside a clause an aside parts. Held out
against main c883c8f: every fold's choice identical; duplicate recall mean .576 -> .584 (worst
.350, author 3), precision 1.000; contradiction precision .854 -> .855, recall .707; wrong
merges 0 -> 0. All pairs: wrong merges 0 -> 0, no label judges 389 -> 390, right merges 755 ->
765, contradictions 5,622 -> 5,619.

Round 22 (ck/kdet21, twenty-three authors: training pairs 7 and 8 as authors 22 and 23, after
``FIRST_TRAIN7.md`` and ``FIRST_TRAIN8.md``): five wrong merges closed by class and a negation
guard (a merge never drops the only negation; ``anchor_complement`` and ``kept_facts`` fixed on,
:data:`FIXED`). Held out against main f782f19: every fold's choice identical; wrong merges 5 ->
0, duplicate recall mean .576 -> .572 (worst .350), contradiction precision .849, recall .699
-> .702. All pairs: wrong merges 4 -> 0, right merges 823 -> 816. Broader containment guards
measured and left out (``bench/consolidate_quality.py``, round 22).

Round 24 (ck/kdet23, twenty-six authors: blind pairs 16 and 17 and training pairs 9 joined as
authors 24-26): train_pairs9's wrong merge (two tools in Finnish case endings) and three merges
its all-pairs check showed closed by class. Held out against main 8cec46f: every fold's choice
identical; wrong merges 1 -> 0 (author 26), duplicate recall mean .5646 -> .5665 (worst .350).
All pairs: wrong merges 1 -> 0, right merges 903 -> 906, no label judges 522 -> 519,
contradictions 7,063 -> 7,071. Per-author figures in ``bench/consolidate_quality.py``.

Round 26 (ck/kdet25, twenty-nine authors: blind pairs 18 and 19 and training pairs 10 joined as
authors 27-29): number and unit forms, currencies, a technical-word table
(``freshness/synonyms.py``) and a shared product with every value alike. Held out against main
ca50aae over the same twenty-nine authors: every fold's choice identical; duplicate recall mean
.5550 -> .5596 (worst .350, author 3), precision 1.000; contradiction precision .8442 -> .8469,
recall .6964; wrong merges 0 -> 0. All pairs: wrong merges 0 -> 0, right merges 982 -> 990, no
label judges 638 -> 639, contradictions 7,862 -> 7,817. Per-author figures and the misses by
class in ``bench/consolidate_quality.py``.
Round 27 (ck/kdet26, twenty-nine authors after merging round 26): opposite ways of doing one
thing (automatic / manual, UTC / local time, shown / hidden, required / optional) between
entries sharing a subject, a switch in the grid (``opposite_ways``). Held out with the other
limits at their shipped values (the full grid did not finish on the shared machine): every fold
chooses it on; contradiction precision mean .8469 -> .8483, recall .6963 -> .7025, duplicate
figures and wrong merges (0) unchanged. All pairs: wrong merges 0 -> 0, right merges
990 -> 990, contradictions 7,817 -> 7,830. Per-author figures in ``bench/consolidate_quality.py``.

Usage: ``python tools/consolidate_cv.py [--choose] [--current] [--all-pairs] [--show]
[--misses] [--margin STEP]`` (``--misses``: the duplicate error analysis under the shipped
limits, no selection; ``--current``: the shipped limits on each author, no selection; with
``--all-pairs``, the check under the shipped limits, or, in the held-out run, under each fold's
chosen limits). A full run takes about a minute, the all-pairs check about five seconds an
author: every grid point is measured once on every author (thresholds chosen on every fold of
an earlier run are fixed, :data:`FIXED`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from conkeeper.services.upkeep.freshness import consolidate, relations  # noqa: E402

DATA = ROOT / "tests" / "data" / "consolidate"
AUTHORS = {
    "author1": DATA / "tuning_pairs.jsonl",
    "author2": DATA / "blind_pairs.jsonl",
    "author3": DATA / "train_pairs2.jsonl",
    "author4": DATA / "blind_pairs2.jsonl",  # measured once blind (FIRST_BLIND_PAIRS2.md)
    "author5": DATA / "train_pairs3.jsonl",  # measured once before reading (FIRST_TRAIN3.md)
    "author6": DATA / "blind_pairs3.jsonl",  # measured once blind (FIRST_BLIND_PAIRS3.md)
    "author7": DATA / "train_pairs4.jsonl",  # measured once before reading (FIRST_TRAIN4.md)
    "author8": DATA / "blind_pairs4.jsonl",  # measured once blind (FIRST_BLIND_PAIRS4.md)
    "author9": DATA / "train_pairs5.jsonl",  # measured once before reading (FIRST_TRAIN5.md)
    "author10": DATA / "blind_pairs5.jsonl",  # measured once blind (FIRST_BLIND_PAIRS5.md)
    "author11": DATA / "blind_pairs6.jsonl",  # measured once blind (FIRST_BLIND_PAIRS6.md)
    "author12": DATA / "blind_pairs7.jsonl",  # measured once blind (FIRST_BLIND_PAIRS7.md)
    "author13": DATA / "blind_pairs8.jsonl",  # measured once blind (FIRST_BLIND_PAIRS8.md)
    "author14": DATA / "blind_pairs9.jsonl",  # measured once blind (FIRST_BLIND_PAIRS9.md)
    "author15": DATA / "blind_pairs10.jsonl",  # measured once blind (FIRST_BLIND_PAIRS10.md)
    "author16": DATA / "blind_pairs11.jsonl",  # measured once blind (FIRST_BLIND_PAIRS11.md)
    "author17": DATA / "blind_pairs12.jsonl",  # measured once blind (FIRST_BLIND_PAIRS12.md)
    "author18": DATA / "blind_pairs13.jsonl",  # measured once blind (FIRST_BLIND_PAIRS13.md)
    "author19": DATA / "blind_pairs14.jsonl",  # measured once blind (FIRST_BLIND_PAIRS14.md)
    "author20": DATA / "blind_pairs15.jsonl",  # measured once blind (FIRST_BLIND_PAIRS15.md)
    "author21": DATA / "train_pairs6.jsonl",  # measured once before reading (FIRST_TRAIN6.md)
    "author22": DATA / "train_pairs7.jsonl",  # measured once before reading (FIRST_TRAIN7.md)
    "author23": DATA / "train_pairs8.jsonl",  # measured once before reading (FIRST_TRAIN8.md)
    "author24": DATA / "blind_pairs16.jsonl",  # measured once blind (FIRST_BLIND_PAIRS16.md)
    "author25": DATA / "blind_pairs17.jsonl",  # measured once blind (FIRST_BLIND_PAIRS17.md)
    "author26": DATA / "train_pairs9.jsonl",  # measured once before reading (FIRST_TRAIN9.md)
    "author27": DATA / "blind_pairs18.jsonl",  # measured once blind (FIRST_BLIND_PAIRS18.md)
    "author28": DATA / "blind_pairs19.jsonl",  # measured once blind (FIRST_BLIND_PAIRS19.md)
    "author29": DATA / "train_pairs10.jsonl",  # measured once before reading (FIRST_TRAIN10.md)
}
KINDS = (relations.DUPLICATE, relations.CONTRADICTION)
WRONG_MERGE_COST = 20.0
STEP = 0.05
GRID: dict[str, tuple[float | bool | int, ...]] = {
    "duplicate_similarity": (0.65, 0.7, 0.72, 0.75),
    "firm_polarity": (False, True),
    "value_subject": (False, True),
    "value_shared": (1, 2),
    "number_similarity": (0.5, 0.55, 0.6, 1.01),
    "opposite_ways": (False, True),  # round 27: a rule, chosen per fold (see the docstring)
}
# Fixed: chosen on every fold of an earlier run over the grid values in brackets.
FIXED = {
    # round 7's "before" run (main dae9373, ten authors): each chosen on all ten folds
    "duplicate_unshared": 5.0,  # (3.0, 5.0)
    "anchor_similarity": 0.3,  # (0.3, 0.4, 0.5, 1.01)
    "polarity_containment": 0.5,  # (0.5, 0.6)
    "value_containment": 0.3,  # (0.3, 0.5)
    "value_similarity": 0.6,  # (0.5, 0.6, 1.01)
    "supersede_containment": 0.0,  # (0.0, 1.01): every fold of rounds 5 and 6
    "bare_values": True,  # (False, True): every fold of rounds 5 and 6
    "scoped_merge": True,  # (False, True): every fold of rounds 5 and 6
    # (False, True): a sign of conflict like a negation, not a threshold; as a free switch it
    # was left off in the one fold whose training authors never needed it, and that fold's
    # held-out author (6) had a rule merged away at similarity 0.72 (round 6)
    "exception_merge": True,
    "duplicate_containment": 1.01,  # (0.8, 0.9, 1.01)
    "choice_shared_weight": 0.4,  # (0.4, 0.9)
    "reject_shared_weight": 0.0,  # (0.0, 0.4, 0.9)
    "qualifier_scope": False,  # (False, True)
    "scoped_polarity": True,  # (False, True)
    "exception_guard": True,  # (False, True)
    "head_match": True,  # (False, True)
    "named_subjects": True,  # (False, True)
    # round 8 (eleven authors): each chosen on all twelve folds of this branch's first runs
    "contained_detail": True,  # (False, True)
    "permission_conflict": True,  # (False, True)
    "choice_subject": True,  # (False, True)
    "choice_alone": 4,  # (3, 4)
    # round 9: rules, not thresholds, on in every fold (written reading all twelve authors)
    "retired_conflict": True,
    "reason_merge": True,
    # round 10: a rule, not a threshold, on in every fold (written reading all thirteen)
    "named_values": True,
    # round 12 (fifteen authors): the labelled pairs prefer it off by one point (+2 right, +1
    # wrong contradiction), but off, the all-pairs check shows 449 more cross-pair
    # contradictions (change notes about something else); fixed on, as shipped since round 8
    "supersede_clause": True,
    # round 22 (twenty-three authors): rules measured on every author with the shipped limits,
    # not thresholds (see bench/consolidate_quality.py's round 22 record)
    "anchor_complement": True,
    "kept_facts": "g",
}


def load(path: Path) -> list[tuple[relations.Reading, relations.Reading, str]]:
    """One author's pairs, each entry read once (as ``consolidate`` reads it: a bullet)."""
    pairs = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                pairs.append((relations.read(row["a"]), relations.read(row["b"]), row["label"]))
    return pairs


def predict(a: relations.Reading, b: relations.Reading, limits: relations.Limits) -> str:
    """What ``consolidate`` proposes for the pair (the candidate filter, then the relation)."""
    if not relations.comparable(a, b):
        return "none"
    relation = relations.relate_readings(a, b, limits)
    return relation.kind if relation else "none"


def figures(pairs: list, limits: relations.Limits) -> dict[str, float]:
    """Precision, recall, counts and wrong merges of one author's pairs under ``limits``."""
    hits = dict.fromkeys(KINDS, 0)
    predicted = dict.fromkeys(KINDS, 0)
    labelled = dict.fromkeys(KINDS, 0)
    wrong_merges = 0
    for a, b, label in pairs:
        got = predict(a, b, limits)
        if label in labelled:
            labelled[label] += 1
        if got in predicted:
            predicted[got] += 1
            hits[got] += got == label
        wrong_merges += got == relations.DUPLICATE and label != relations.DUPLICATE
    out: dict[str, float] = {"wrong_merges": wrong_merges}
    for kind in KINDS:
        out[f"{kind}_hits"] = hits[kind]
        out[f"{kind}_predicted"] = predicted[kind]
        out[f"{kind}_labelled"] = labelled[kind]
        out[f"{kind}_precision"] = hits[kind] / predicted[kind] if predicted[kind] else 1.0
        out[f"{kind}_recall"] = hits[kind] / labelled[kind] if labelled[kind] else 0.0
    return out


def objective(results: list[dict[str, float]]) -> float:
    """Correct proposals minus wrong ones, a wrong merge costing :data:`WRONG_MERGE_COST`."""
    total = 0.0
    for r in results:
        for kind in KINDS:
            wrong = r[f"{kind}_predicted"] - r[f"{kind}_hits"]
            total += r[f"{kind}_hits"] - (1.5 if kind == relations.DUPLICATE else 1.0) * wrong
        total -= WRONG_MERGE_COST * r["wrong_merges"]
    return total


def grid() -> list[relations.Limits]:
    """Every combination of :data:`GRID`."""
    keys = list(GRID)
    return [
        relations.LIMITS.replace(**FIXED, **dict(zip(keys, values, strict=True)))
        for values in itertools.product(*(GRID[k] for k in keys))
    ]


def loosened(limits: relations.Limits, step: float = STEP) -> relations.Limits:
    """The limits ``step`` looser on the thresholds that delete (duplicates)."""
    return limits.replace(
        duplicate_similarity=limits.duplicate_similarity - step,
        duplicate_containment=limits.duplicate_containment - step,
        value_similarity=limits.value_similarity - step,
        anchor_similarity=limits.anchor_similarity - step,
        number_similarity=limits.number_similarity - step,
    )


def table(
    data: dict[str, list], step: float = STEP
) -> list[tuple[relations.Limits, dict[str, dict[str, float]]]]:
    """Every grid point's figures on every author (and its wrong merges one step looser,
    ``loose_wrong_merges``), computed once so each held-out fold only sums."""
    rows = []
    for limits in grid():
        per = {}
        for name, pairs in data.items():
            result = figures(pairs, limits)
            result["loose_wrong_merges"] = figures(pairs, loosened(limits, step))["wrong_merges"]
            per[name] = result
        rows.append((limits, per))
    return rows


def choose(rows: list, names: list[str]) -> relations.Limits:
    """The grid point with the best :func:`objective` over the authors ``names``; a wrong
    merge one step looser counts as one (a margin on the threshold that deletes)."""

    def value(row: tuple) -> tuple[float, int]:
        results = [row[1][name] for name in names]
        margin = sum(r["loose_wrong_merges"] for r in results)
        return objective(results) - WRONG_MERGE_COST * margin, _kept(row[0])

    return max(rows, key=value)[0]


def _kept(limits: relations.Limits) -> int:
    """How many thresholds ``limits`` shares with the shipped ones: on a tie of the
    objective the shipped value stays (a tie is no evidence for a change)."""
    return sum(
        getattr(limits, k) == getattr(relations.LIMITS, k) for k in relations.Limits.__slots__
    )


def line(name: str, r: dict[str, float]) -> str:
    """One printed row."""
    return (
        f"{name:9} dup P {r['duplicate_precision']:.3f} R {r['duplicate_recall']:.3f} "
        f"({r['duplicate_hits']}/{r['duplicate_predicted']}/{r['duplicate_labelled']})  "
        f"contra P {r['contradiction_precision']:.3f} R {r['contradiction_recall']:.3f} "
        f"({r['contradiction_hits']}/{r['contradiction_predicted']}/"
        f"{r['contradiction_labelled']})  wrong merges {r['wrong_merges']}"
    )


class Bullets:
    """One author's file: every distinct side of every labelled pair, the labels given to
    each pair of them, and the groups of bullets joined by a chain of duplicate labels."""

    def __init__(self, path: Path) -> None:
        self.texts: list[str] = []
        self.labels: dict[frozenset[int], set[str]] = {}
        number: dict[str, int] = {}
        with path.open(encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
        for row in rows:
            ids = []
            for side in ("a", "b"):
                text = row[side].strip()
                if text not in number:
                    number[text] = len(self.texts)
                    self.texts.append(text)
                ids.append(number[text])
            self.labels.setdefault(frozenset(ids), set()).add(row["label"])
        self.group = list(range(len(self.texts)))
        for ids, labels in self.labels.items():
            if relations.DUPLICATE in labels and len(ids) == 2:
                first, second = (self._root(i) for i in ids)
                self.group[first] = second

    def _root(self, bullet: int) -> int:
        while self.group[bullet] != bullet:
            bullet = self.group[bullet]
        return bullet

    def write(self, memory_dir: Path) -> list[tuple[int, int]]:
        """The bullets as one memory file, a blank line apart; each bullet's line span."""
        lines = ["# Notes", ""]
        spans = []
        for text in self.texts:
            start = len(lines) + 1
            lines.extend((text if text.startswith(("- ", "* ")) else "- " + text).splitlines())
            spans.append((start, len(lines)))
            lines.append("")
        (memory_dir / "patterns.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return spans

    def verdict(self, first: int, second: int) -> str:
        """How a merge of two bullets reads against the labels: right (labelled duplicate, or
        joined by a chain of duplicates), labelled wrong, implied wrong (a bullet said to be
        the same as one, and another the same as the other, were labelled apart), or
        unlabelled (no label joins the two)."""
        labels = self.labels.get(frozenset((first, second)))
        if labels is not None and relations.DUPLICATE not in labels:
            return "labelled_wrong_merges"
        if labels is not None or self._root(first) == self._root(second):
            return "right_merges"
        kin_a, kin_b = self._kin(first), self._kin(second)
        if any(
            relations.DUPLICATE not in self.labels.get(frozenset((x, y)), {relations.DUPLICATE})
            for x in kin_a
            for y in kin_b
        ):
            return "implied_wrong_merges"
        return "unlabelled_merges"

    def _kin(self, bullet: int) -> list[int]:
        """The bullets joined to ``bullet`` by a chain of duplicate labels (itself included)."""
        root = self._root(bullet)
        return [n for n in range(len(self.texts)) if self._root(n) == root]


def all_pairs(
    path: Path, limits: relations.Limits, shown: list[str] | None = None
) -> dict[str, int]:
    """The all-pairs check of one author (see the module docstring): the planner over every
    bullet of the author's file, its merges judged against the labels. ``shown`` collects the
    wrong merges (and cross-pair contradictions) as text for a look."""
    bullets = Bullets(path)
    with tempfile.TemporaryDirectory() as folder:
        spans = bullets.write(Path(folder))
        result, _ = consolidate.find(Path(folder), limits)
    counts = dict.fromkeys(
        (
            "right_merges",
            "labelled_wrong_merges",
            "implied_wrong_merges",
            "unlabelled_merges",
            "contradictions",
            "cross_pair_contradictions",
        ),
        0,
    )
    for proposal in result.proposals:
        first, second = (
            next(n for n, (start, end) in enumerate(spans) if start <= side.line <= end)
            for side in proposal.sides
        )
        if first == second:
            continue  # two parts of one bullet: not a pair of the author's
        if proposal.kind == relations.DUPLICATE:
            key = bullets.verdict(first, second)
        else:
            counts["contradictions"] += 1
            cross = frozenset((first, second)) not in bullets.labels
            key = "cross_pair_contradictions" if cross else ""
        if key:
            counts[key] += 1
        if shown is not None and key not in ("", "right_merges"):
            shown.append(f"  {key}: {bullets.texts[first]!r}\n    <> {bullets.texts[second]!r}")
    return counts


def all_pairs_line(name: str, counts: dict[str, int]) -> str:
    """One printed row of the all-pairs check."""
    wrong = counts["labelled_wrong_merges"] + counts["implied_wrong_merges"]
    return (
        f"{name:9} all pairs: wrong merges {wrong} (labelled {counts['labelled_wrong_merges']},"
        f" implied {counts['implied_wrong_merges']}), unlabelled merges "
        f"{counts['unlabelled_merges']}, right merges {counts['right_merges']}, "
        f"contradictions {counts['contradictions']} "
        f"(cross-pair {counts['cross_pair_contradictions']})"
    )


def report_all_pairs(name: str, limits: relations.Limits, show: bool) -> None:
    """Print one author's all-pairs check (and with ``show``, what it counted as wrong)."""
    shown: list[str] | None = [] if show else None
    print(all_pairs_line(name, all_pairs(AUTHORS[name], limits, shown)))
    for text in shown or []:
        print(text)


MISS_CAUSES = (
    "not compared",
    "read as a contradiction",
    "a sign of conflict",
    "too few words shared",
)


def miss_cause(a: relations.Reading, b: relations.Reading, limits: relations.Limits) -> str:
    """Why a labelled duplicate gets no merge under ``limits``: the candidate filter never
    compares the pair, the detector reads a contradiction, a sign of conflict (a negation, a
    different value, a guard) rules the merge out, or the words shared fall short of the
    similarity (the pair merges once the similarity and unshared limits are lifted)."""
    if not relations.comparable(a, b):
        return MISS_CAUSES[0]
    if predict(a, b, limits) == relations.CONTRADICTION:
        return MISS_CAUSES[1]
    lifted = limits.replace(duplicate_similarity=0.0, duplicate_unshared=1e9)
    return MISS_CAUSES[3] if predict(a, b, lifted) == relations.DUPLICATE else MISS_CAUSES[2]


def misses(path: Path, limits: relations.Limits) -> dict[str, dict[str, int]]:
    """One author's labelled duplicates by kind: how many there are, how many get no merge
    under ``limits``, and those misses by :func:`miss_cause` (the error analysis of a round)."""
    out: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    for row in rows:
        if row["label"] != relations.DUPLICATE:
            continue
        counts = out.setdefault(row.get("kind") or "-", dict.fromkeys(("pairs", *MISS_CAUSES), 0))
        counts["pairs"] += 1
        a, b = relations.read(row["a"]), relations.read(row["b"])
        if predict(a, b, limits) != relations.DUPLICATE:
            counts[miss_cause(a, b, limits)] += 1
    return out


def report_misses(names: list[str], limits: relations.Limits) -> None:
    """Print the labelled duplicates missed over ``names`` by kind and cause."""
    total: dict[str, dict[str, int]] = {}
    for name in names:
        for kind, counts in misses(AUTHORS[name], limits).items():
            into = total.setdefault(kind, dict.fromkeys(counts, 0))
            for key, count in counts.items():
                into[key] += count
    print(f"{'kind':16} missed/pairs  " + "  ".join(MISS_CAUSES))
    for kind, counts in sorted(total.items(), key=lambda item: -item[1]["pairs"]):
        missed = sum(counts[c] for c in MISS_CAUSES)
        causes = "  ".join(f"{counts[c]:>{len(c)}}" for c in MISS_CAUSES)
        print(f"{kind:16} {missed:>6}/{counts['pairs']:<6} {causes}")


def main(argv: list[str] | None = None) -> int:
    """Held-out figures per author (or the shipped limits' figures, or the final choice)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--choose", action="store_true", help="choose on every author")
    parser.add_argument("--current", action="store_true", help="shipped limits, no selection")
    parser.add_argument("--margin", type=float, default=STEP, help="looser step also checked")
    parser.add_argument("--all-pairs", action="store_true", help="every pair of each file too")
    parser.add_argument("--show", action="store_true", help="list the all-pairs wrong merges")
    parser.add_argument("--misses", action="store_true", help="duplicates missed, by kind")
    args = parser.parse_args(argv)
    if args.misses:
        report_misses([name for name, path in AUTHORS.items() if path.exists()], relations.LIMITS)
        return 0
    data = {name: load(path) for name, path in AUTHORS.items() if path.exists()}
    if args.current:
        for name, pairs in data.items():
            print(line(name, figures(pairs, relations.LIMITS)))
            if args.all_pairs:
                report_all_pairs(name, relations.LIMITS, args.show)
        return 0
    rows = table(data, args.margin)
    if args.choose:
        print(choose(rows, list(data)))
        return 0
    for held in data:
        limits = choose(rows, [name for name in data if name != held])
        print(line(held, figures(data[held], limits)), " chosen:", limits)
        if args.all_pairs:
            report_all_pairs(held, limits, args.show)
    print("chosen on every author:", choose(rows, list(data)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
