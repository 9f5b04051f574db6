"""Consolidation quality: how well ``conkeeper consolidate`` tells duplicates and contradictions
from entries that merely share a topic, measured on labelled entry pairs.

Why it exists: a consolidation that merges two rules which say opposite things deletes one of
them, and the one deleted may be the correct rule. This bench puts each labelled pair into a
fresh memory folder (entry ``a`` in ``patterns.md``, written an hour earlier; entry ``b`` in
``active-context.md``), runs the real planner (``services.upkeep.freshness.consolidate.plan``),
and compares what it proposes with the label.

Sets (``{"a", "b", "label", "kind"}`` per line, label one of duplicate, contradiction,
compatible, unrelated), one per author:

* ``tests/data/consolidate/tuning_pairs.jsonl`` — author 1, the engineer who first tuned the
  detector (207 pairs).
* ``tests/data/consolidate/blind_pairs.jsonl`` — author 2 (220 pairs), written without seeing
  the detector; blind for its first three aggregate measurements (``FIRST_BLIND.md``), read and
  trained on since.
* ``tests/data/consolidate/train_pairs2.jsonl`` — author 3 (320 pairs), measured once whole
  before its text was read (``FIRST_TRAIN2.md``), training data since.
* ``tests/data/consolidate/blind_pairs2.jsonl`` — author 4 (240 pairs), measured once blind
  (``FIRST_BLIND_PAIRS2.md``), training data since.
* ``tests/data/consolidate/train_pairs3.jsonl`` — author 5 (320 pairs: no-shared-word
  duplicates, other-language sides, implicit and superseding contradictions), measured once
  before its text was read (``FIRST_TRAIN3.md``), training data since.
* ``tests/data/consolidate/blind_pairs3.jsonl`` — author 6 (240 pairs), measured once blind
  (``FIRST_BLIND_PAIRS3.md``: one wrong deletion, mended after the measurement), seen since.
* ``tests/data/consolidate/train_pairs4.jsonl`` — author 7 (320 pairs: an open-source Rust
  CLI, PyO3 bindings, docs, an ESP32 target; no-shared-word duplicates, implicit
  contradictions), measured once before its text was read (``FIRST_TRAIN4.md``), training data
  since.
* ``tests/data/consolidate/blind_pairs4.jsonl`` — author 8 (240 pairs: a web agency's files),
  measured once blind (``FIRST_BLIND_PAIRS4.md``: one wrong deletion, mended after the
  measurement), seen since.
* ``tests/data/consolidate/train_pairs5.jsonl`` — author 9 (320 pairs: a fintech backend in
  Java/Kotlin, Spring, Kafka, Flyway, GKE, and its mobile team), measured once before its text
  was read (``FIRST_TRAIN5.md``), training data since.
* ``tests/data/consolidate/blind_pairs5.jsonl`` — author 10 (240 pairs: a robotics company's
  files), measured once blind (``FIRST_BLIND_PAIRS5.md``: round 5 duplicate 1.000 / .350,
  contradiction .727 / .667, 0 wrong deletions), seen since.
* ``tests/data/consolidate/blind_pairs6.jsonl`` — author 11 (health-tech data platform),
  measured once blind (``FIRST_BLIND_PAIRS6.md``), seen since.
* ``tests/data/consolidate/blind_pairs7.jsonl`` — author 12 (240 pairs: a payments platform's
  files), measured once blind (``FIRST_BLIND_PAIRS7.md``: round 7 duplicate .917 / .367,
  contradiction .889 / .533, 2 wrong deletions; the previous stop's detector .917 / .367,
  .892 / .550, 2), seen since. Its two wrong merges read and mended (tuning): a label before a
  colon ("PCI DSS req. 8: ...") says little, so an entry that only names it is not its rule,
  and "(3.2.1 retired)" or "since March 2024" marks a change note: over the twelve authors at
  the shipped limits, wrong merges 2 -> 0, duplicates found 467 -> 464 (of 839).
* ``tests/data/consolidate/blind_pairs8.jsonl`` — author 13 (240 pairs: a hospital-scheduling
  SaaS's files), measured once blind (``FIRST_BLIND_PAIRS8.md``: round 8 duplicate .971 /
  .550, contradiction .825 / .550, 1 wrong deletion, mended after the measurement), training
  data since (round 10).
* ``tests/data/consolidate/blind_pairs9.jsonl`` — author 14 (240 pairs: a university
  research-computing group's files, a few bullets in German, Spanish and Japanese), measured
  once blind (``FIRST_BLIND_PAIRS9.md``: round 10's detector duplicate 1.000 / .383,
  contradiction .702 / .550, 0 wrong deletions), training data since (round 11).
* ``tests/data/consolidate/blind_pairs10.jsonl`` — author 15 (240 pairs: a fintech payments
  team's files, 49 pairs in Portuguese, Polish and Korean), measured once blind
  (``FIRST_BLIND_PAIRS10.md``: round 11 duplicate .926 / .417, contradiction .769 / .667, 2
  wrong deletions, one mended after the measurement), training data since (round 12).
* ``tests/data/consolidate/blind_pairs11.jsonl`` — author 16 (240 pairs: a media streaming
  company's platform files, 28 pairs in Spanish, German and Japanese), measured once blind
  (FIRST_BLIND_PAIRS11.md: round 12 duplicate .891 / .683, contradiction .723 / .567, 5 wrong
  deletions; the previous stop's round 11 .952 / .667, .756 / .567, 2), training data since
  (round 13).
* ``tests/data/consolidate/blind_pairs12.jsonl`` — author 17 (240 pairs: a logistics
  company's routing and warehouse team, 43 pairs in French, Italian, Chinese or Korean),
  measured once blind (FIRST_BLIND_PAIRS12.md: rounds 13-14 duplicate .968 / .500,
  contradiction .870 / .667, 1 wrong deletion, made by the previous stop's detector too),
  training data since (round 15).
* ``tests/data/consolidate/blind_pairs13.jsonl`` — author 18 (240 pairs: a hospitality
  booking platform's team, 50 pairs in or mixing Spanish, German, Japanese or Portuguese),
  measured once blind (FIRST_BLIND_PAIRS13.md: rounds 13-15 duplicate .967 / .483,
  contradiction .839 / .783, 1 wrong deletion, made by the previous stop's detector too),
  training data since (round 16).
* ``tests/data/consolidate/train_pairs6.jsonl`` — 240 pairs (a hospital software team's files,
  47 pairs in or mixing German, Spanish, Chinese, Russian or Swedish), measured once before its
  text was read (``FIRST_TRAIN6.md``: round 19 duplicate .941 / .533, contradiction .750 /
  .400, 2 wrong deletions), training data since (round 20; author 21 of the cv tool, after
  blind_pairs14 and blind_pairs15 as authors 19 and 20).
* ``tests/data/consolidate/train_pairs7.jsonl`` and ``train_pairs8.jsonl`` — authors 22 and 23
  (240 pairs each: a travel-booking team, an agritech IoT team; hard non-duplicates), measured
  once before their text was read (``FIRST_TRAIN7.md``, ``FIRST_TRAIN8.md``: 3 and 2 wrong
  deletions, mended in round 22), training data since.
* ``tests/data/consolidate/blind_pairs<N>.jsonl`` with N >= 16 — a new blind set, never read
  while tuning: found by name, run whole (never cut short by ``--tiny``) and printed apart under
  ``FIRST BLIND MEASUREMENT``; the JSON lists it in ``first_blind``. ``blind_pairs16`` and
  ``blind_pairs17`` were measured once on round 22's merged detector; round 23 mended ten of
  their wrong merges, as classes, AFTER that measurement (read from the brief only, the sets
  never opened): their later figures are tuning figures, not blind ones. Since round 24 both are
  seen (authors 24 and 25 of ``tools/consolidate_cv.py``). ``blind_pairs18`` and
  ``blind_pairs19`` were measured once on the previous stop's and round 24's detector (18: no
  wrong merge; 19: three); round 25 mended those three, as classes, AFTER that measurement (the
  pairs read from the brief only, the sets never opened): their later figures are tuning
  figures, not blind ones.
* ``tests/data/consolidate/train_pairs9.jsonl`` — author 26 (240 pairs: a news organisation's
  digital team, bullets in Italian, Polish, Arabic, Catalan and Finnish), measured once before
  its text was read (``FIRST_TRAIN9.md``: round 23 duplicate .966 / .467, contradiction .809 /
  .633, 1 wrong deletion), training data since (round 24); in ``SETS`` as ``train9``.
* ``tests/data/consolidate/blind_pairs18.jsonl`` and ``blind_pairs19.jsonl`` — two blind writers
  (a travel-booking platform; an energy utility), committed 2026-11-28 at 00:51 and 01:05 UTC
  before round 24 was merged, each measured once on the previous stop's detector (8cec46f) and
  once on round 24's (07aad88): blind18 duplicate 1.000 / .417, contradiction .808 / .700, 0
  wrong deletions, the same on both; blind19 .900 / .450, .804 / .683, 3 wrong deletions, the
  same on both (``FIRST_BLIND_PAIRS18.md``, ``FIRST_BLIND_PAIRS19.md``). Seen since.
* ``tests/data/consolidate/train_pairs10.jsonl`` — cv author 29 (240 pairs: a municipal
  permits and open-data team), measured once before its text was read (``FIRST_TRAIN10.md``:
  duplicate 1.000 / .483, contradiction .848 / .650, 0 wrong deletions); in ``SETS`` as
  ``train10``.
* ``tests/data/consolidate/blind_pairs20.jsonl`` and ``blind_pairs21.jsonl`` — two blind writers
  (an airline crew-scheduling team; a hospital EHR integration team), committed 2026-11-28 at
  03:49 and 04:02 UTC before rounds 26-27 were merged, each measured once on the previous stop's
  detector (ca50aae) and once on rounds 26-27's (5a9146b): blind20 duplicate .933 / .467,
  contradiction .822 / .617 -> .826 / .633, 1 wrong deletion on both; blind21 .964 / .450,
  .838 / .517 -> .846 / .550, 1 wrong deletion on both (``FIRST_BLIND_PAIRS20.md``,
  ``FIRST_BLIND_PAIRS21.md``). Seen since; a later ``blind_pairs22`` is the next first
  measurement.

Figures per set: precision and recall of the ``duplicate`` and ``contradiction`` proposals, and
**wrong deletions**: pairs not labelled duplicate where ``consolidate --apply`` would remove an
entry without a person choosing which one. They come in two shapes: a *wrong merge* (a
contradiction, or two compatible or unrelated entries, merged as duplicates: one rule is gone)
and an *automatic contradiction deletion* (an older detector removed one side of a
contradiction by itself, which may well have been the correct rule). Since contradictions are
resolved only by ``--keep FILE:LINE``, the second shape can no longer happen; the first is the
worst error left.

Targets (on a blind set): wrong deletions 0; contradiction precision >= 0.85 and recall
>= 0.70; duplicate precision >= 0.90 and recall >= 0.70.

History. First blind figures (author 2, 2026-11-26T10:43Z, detector of 441eeec): duplicate
P 1.000 / R 0.073, contradiction P - / R 0.000, wrong deletions 0. Round 1 (e1e2863), tuned on
author 1: author 2 duplicate 1.000 / 0.382, contradiction 0.792 / 0.345, wrong deletions 0; a
second round was worse there and was reverted (``FIRST_BLIND.md``).

Round 3 (ck/consol3): leave-one-author-out selection (``tools/consolidate_cv.py``: each author
held out in turn, every threshold and switch chosen on the other two, a wrong merge costing 20
correct proposals and counted again one step looser on the deleting thresholds). Held-out
figures, measured as this bench measures (the planner's candidate filter, then the relation):

====================  ======================  ======================  ============
held-out author       duplicate P / R         contradiction P / R     wrong merges
====================  ======================  ======================  ============
author 1, before      0.983 / 0.906 (*)       0.950 / 0.891 (*)       1
author 1, after       0.984 / 0.953           0.836 / 0.953           1 (!)
author 2, before      1.000 / 0.382           0.792 / 0.345           0
author 2, after       1.000 / 0.473           0.830 / 0.709           0
author 3, before      1.000 / 0.075           0.774 / 0.300           0
author 3, first look  1.000 / 0.062           0.651 / 0.512           0
author 3, after       1.000 / 0.138           0.712 / 0.588           0
====================  ======================  ======================  ============

"before" is the detector of main f13968b (round 1); (*) author 1 tuned that detector, so its
"before" is not held out. "author 3, first look": this branch's detector and limits chosen on
authors 1 and 2, measured once before author 3's text was read (``FIRST_TRAIN2.md``); after
that the software-domain lexicon (competing tools, aliases) was extended while reading authors
2 and 3, so every "after" row measures held-out *thresholds* but not a held-out *lexicon*.
(!) Limits chosen on authors 2 and 3 (duplicate similarity 0.7, sameness from one shared
value on) merge one of author 1's compatible pairs ("Pull requests need two approvals" / "One
of the two approvals ... must come from a code owner"); similarity 0.65 would also merge "Base
Docker images on Alpine" / "Pin Docker base images by digest". Authors 2 and 3 wrote no such
near-paraphrase hard negatives, so a wrong merge on a new author's pairs remains possible. The
limits shipped (``relations.LIMITS``: similarity 0.75, containment and same-value sameness
off) are those chosen on all three authors; with them every set has 0 wrong deletions
(2026-11-26T14:45Z, not held out: author 1 duplicate 1.000 / 0.922, contradiction 0.836 /
0.953; author 2 1.000 / 0.473, 0.820 / 0.745; author 3 1.000 / 0.138, 0.712 / 0.588). A
logistic-regression pair scorer over the same pair features, trained and thresholded under the
same protocol, did not beat the rules (held out: 5 wrong merges on author 1 and 1 on author 2,
lower duplicate and contradiction recall on every author, higher contradiction precision on
author 3 only), so none ships.

Blind pairs 2 (``blind_pairs2.jsonl``, author 4, 240 pairs, written by a helper who saw no code
and kept out of main until the run), FIRST measurement 2026-11-26T14:50Z at da70cfa
(``FIRST_BLIND_PAIRS2.md``): duplicate precision 1.000, recall 0.483; contradiction precision
0.824, recall 0.467; wrong deletions 0. Targets met: wrong deletions and duplicate precision;
not met: both recalls and contradiction precision. Since then blind pairs 2 is SEEN.

Round 4 (ck/kdet3), five authors. Tuning figures (held out by author, every threshold chosen
on the other four, ``tools/consolidate_cv.py``; the lexicon was extended while reading all
five, so these hold out thresholds, not words):

====================  ======================  ======================  ============
held-out author       duplicate P / R         contradiction P / R     wrong merges
====================  ======================  ======================  ============
author 1              1.000 / 0.953           0.816 / 0.969           0
author 2              1.000 / 0.564           0.804 / 0.745           0
author 3              1.000 / 0.263           0.740 / 0.675           0
author 4              1.000 / 0.750           0.891 / 0.683           0
author 5              1.000 / 0.362           0.810 / 0.425           0
mean (worst)          1.000 / 0.578 (0.263)   0.812 (0.740) / 0.699   0
before, mean (worst)  0.997 / 0.448 (0.138)   0.772 (0.667) / 0.626   1 (author 1)
====================  ======================  ======================  ============

"before": main 40e297a's detector and selection grid, held out the same way over the same
five authors (contradiction recall worst 0.375 before, 0.425 after).

New this round: a negation counts only where it governs a concept the other entry names
(scoped polarity), superseding notes ("moved to", "as of", "anymore") are contradictions,
a bare number conflicts with a value of one unit for the same key, months and years are
durations, entries naming the same tools, code spans and proper nouns with the same values
merge at similarity 0.3, a same-value merge needs the same values on both sides, more
competing-tool groups and paraphrase groups. Author 5's first measurement (``FIRST_TRAIN3.md``,
before its text was read, detector of this round's first half): duplicate 1.000 / 0.225,
contradiction 0.750 / 0.375, wrong deletions 0. Targets not met on held-out authors:
duplicate recall (worst 0.263), contradiction precision (4 of 5 authors below 0.85) and
recall (author 5 0.425).

Round 5 (ck/kdet4), seven authors (training pairs 4 joined as author 7 after its first
measurement, ``FIRST_TRAIN4.md``: duplicate 1.000 / 0.300, contradiction 0.577 / 0.333, wrong
deletions 0). Tuning figures, held out by author (``tools/consolidate_cv.py``, every threshold
and switch chosen on the other six; the lexicon and rules were written while reading all seven,
so these hold out thresholds, not words):

====================  ======================  ======================  ============
held-out author       duplicate P / R         contradiction P / R     wrong merges
====================  ======================  ======================  ============
author 1              1.000 / 0.938 (0.938)   0.813 (0.816) / 0.953   0
author 2              1.000 / 0.636 (0.564)   0.792 (0.782) / 0.764   0
author 3              1.000 / 0.287 (0.250)   0.770 (0.740) / 0.713   0
author 4              1.000 / 0.750 (0.733)   0.880 (0.878) / 0.733   0
author 5              1.000 / 0.475 (0.350)   0.823 (0.800) / 0.637   0
author 6              1.000 / 0.550 (0.400)   0.774 (0.688) / 0.683   0
author 7              1.000 / 0.478 (0.311)   0.818 (0.623) / 0.600   0
mean                  1.000 / 0.588 (0.507)   0.810 (0.761) / 0.726   0
====================  ======================  ======================  ============

In brackets: main 9e79bba's detector held out the same way over the same seven authors
(contradiction recall before: 0.969, 0.782, 0.675, 0.717, 0.600, 0.550, 0.422; mean 0.674).
Worst author after: duplicate recall 0.287 (author 3), contradiction precision 0.770 (author
3), recall 0.600 (author 7). New this round: entries normalised before reading
(``freshness/wording.py``: list markers, link targets, emphasis, ISO dates, signatures, times
of day, spelled-out terms as their abbreviation), an exception, a permission, a reason or a
leading "For X," refines a rule (no contradiction), an entry whose first clause says a shorter
entry is its duplicate with more detail, a tool both entries name is a shared subject for
values and superseding notes, an alternative before a negated verb is rejected, weekdays and
more competing tools, a negation blocks a merge only where it governs what the other entry
names. Targets on held-out authors still not met: duplicate recall, contradiction precision
(5 of 7 authors below 0.85), contradiction recall on authors 5, 6, 7.

Round 6 (ck/kdet5), nine authors: blind pairs 4 joined as author 8 after its first
measurement, training pairs 5 as author 9 after its own (``FIRST_TRAIN5.md``, before its text
was read, round 5's detector: duplicate 1.000 / 0.389, contradiction 0.700 / 0.544, wrong
deletions 0). Tuning figures, held out by author (``tools/consolidate_cv.py``; rules and
lexicon written while reading all nine, so these hold out thresholds, not words); in brackets
main 3b919d6's detector held out the same way over the same nine authors:

====================  ======================  ======================  ============
held-out author       duplicate P / R         contradiction P / R     wrong merges
====================  ======================  ======================  ============
author 1              1.000 / 0.969 (0.953)   0.813 (0.813) / 0.953   0 (0)
author 2              1.000 / 0.655 (0.636)   0.824 (0.792) / 0.764   0 (0)
author 3              1.000 / 0.312 (0.287)   0.786 (0.770) / 0.688   0 (0)
author 4              1.000 / 0.750 (0.750)   0.880 (0.880) / 0.733   0 (0)
author 5              1.000 / 0.487 (0.475)   0.839 (0.823) / 0.650   0 (0)
author 6              1.000 / 0.633 (0.550)   0.800 (0.774) / 0.667   0 (0)
author 7              1.000 / 0.500 (0.478)   0.857 (0.818) / 0.600   0 (0)
author 8              1.000 / 0.500 (0.367)   0.711 (0.640) / 0.533   0 (0)
author 9              1.000 / 0.478 (0.400)   0.761 (0.700) / 0.567   0 (0)
mean                  1.000 / 0.587 (0.544)   0.808 (0.779) / 0.684   0 (0)
====================  ======================  ======================  ============

Contradiction recall before: 0.953, 0.764, 0.713, 0.733, 0.637, 0.683, 0.600, 0.533, 0.544
(mean 0.684). New this round: memory sizes read as bytes on one binary scale (``512M`` had
been 512 minutes), a version and the same version with more detail are one value, "half a
second" and "twenty-four hours" are numbers, a year after "in" is no value; ", not X" rejects
X alone; a negated failure is a success; a restriction ("only") answers a negation but opposes
nothing (``firm_polarity``), "only after" is a requirement, and a restriction against a
universal ("every branch", "not only ... but") rules a merge out; a permission or exception
is never merged with a plain rule (``exception_merge``; left free in the selection it was off
in one fold, and that fold's held-out author 6 lost a rule at similarity 0.72, so it is fixed
on); a superseding note needs a subject both entries share and is no contradiction when the
other entry negates the same thing; sandbox, QA, UAT, preview and canary are environments;
more short forms and spelled-out terms. Duplicate similarity 0.72 (was 0.75) is the choice on
every author. Targets on held-out authors still not met: duplicate recall (worst 0.312),
contradiction precision (7 of 9 authors below 0.85), contradiction recall (6 of 9 below 0.70).

Round 7 (ck/kdet6), ten authors: blind pairs 5 joined as author 10 after its first
measurement; no new writer. Tuning figures, held out by author (``tools/consolidate_cv.py``;
rules and lexicon written while reading all ten, so these hold out thresholds, not words); in
brackets main dae9373's detector held out the same way over the same ten authors:

====================  ======================  ======================  ============
held-out author       duplicate P / R         contradiction P / R     wrong merges
====================  ======================  ======================  ============
author 1              1.000 / 0.969 (0.969)   0.816 (0.813) / 0.969   0 (0)
author 2              1.000 / 0.655 (0.655)   0.824 (0.824) / 0.764   0 (0)
author 3              1.000 / 0.350 (0.312)   0.786 (0.786) / 0.688   0 (0)
author 4              1.000 / 0.750 (0.750)   0.865 (0.880) / 0.750   0 (0)
author 5              1.000 / 0.500 (0.487)   0.857 (0.839) / 0.675   0 (0)
author 6              1.000 / 0.633 (0.633)   0.816 (0.800) / 0.667   0 (0)
author 7              1.000 / 0.511 (0.500)   0.833 (0.831) / 0.611   0 (0)
author 8              1.000 / 0.550 (0.500)   0.766 (0.711) / 0.600   0 (0)
author 9              1.000 / 0.511 (0.478)   0.818 (0.761) / 0.600   0 (0)
author 10             1.000 / 0.467 (0.350)   0.769 (0.727) / 0.667   0 (0)
mean                  1.000 / 0.590 (0.563)   0.815 (0.797) / 0.699   0 (0)
====================  ======================  ======================  ============

Contradiction recall before: 0.953, 0.764, 0.688, 0.733, 0.650, 0.667, 0.600, 0.533, 0.567,
0.667 (mean 0.682). New this round: initialisms of three letters or more read from any entry
("GKE", "IaC", "DMT") meet the words the other entry spells them with; "off" and "is on" are
the enabled state; times of day and daily cron schedules, rates (Hz, fps) and wildcard
versions ("3.2.x") are values; "a single" is one, "a quarter hour" 15 minutes; camelCase
identifiers are read by their words, model names in the plural ("A100s") as the model; a
one-clause entry whose words the other's first clause states is not contradicted by that
entry's detail; a rejection word rejects the alternative right before it ("Jenkins is gone",
"jest configs were removed"), not one that modifies another subject ("the Gradle daemon is
disabled"); a purpose clause ("so units can be debugged") and "can ... only" grant no
permission; short forms of general words (weekdays, ordinals, fw, ops, b4, wp). Wrong merges
of main's detector now read right: "autoscaling is enabled" / "the autoscaler is off", "4
workers" / "a single worker" and "pin loosely" / "pin exactly" are contradictions, "Use Flyway
for all schema migrations" / "Flyway migrations run in a single transaction" is no pair. In
the selection, five thresholds chosen on every fold of the "before" run are fixed, and on a
tie the shipped value stays.

Measured and not shipped: a *paraphrase band* (two plain statements with the same values,
antonyms, negation status and names merged at a similarity down to 0.4). Held out on the
labelled pairs it looked safe (duplicate recall mean 0.634, worst 0.500, no wrong merge), but
among all pairs of one author's entries, not only the labelled ones, about half of what it
added were wrong merges ("The main branch is called `main`" / "The main branch is protected").
The labelled pairs alone do not show how a rule fares against the many unlabelled pairs of a
real memory folder. Targets on held-out authors still not met: duplicate recall (mean 0.590,
worst 0.350), contradiction precision (8 of 10 authors below 0.85), contradiction recall (7 of
10 below 0.70).

Round 8 (ck/kdet7), eleven authors: blind pairs 6 joined as author 11 after its first
measurement; no new writer. ``tools/consolidate_cv.py`` gained the all-pairs check: every pair
of bullets of one author's file through the planner, each merge judged against the labels (a
pair labelled apart, or apart through a chain of duplicates, is a wrong merge; a merge no label
judges is listed for a look). Tuning figures, held out by author (rules written while reading
all eleven, so these hold out thresholds, not words); in brackets main 8037250's detector held
out the same way:

====================  ======================  ======================  ============
held-out author       duplicate P / R         contradiction P / R     wrong merges
====================  ======================  ======================  ============
author 1              1.000 / 0.969 (0.969)   0.816 (0.816) / 0.969   0 (0)
author 2              1.000 / 0.655 (0.655)   0.824 (0.824) / 0.764   0 (0)
author 3              1.000 / 0.350 (0.350)   0.812 (0.786) / 0.700   0 (0)
author 4              1.000 / 0.750 (0.750)   0.878 (0.865) / 0.717   0 (0)
author 5              1.000 / 0.500 (0.500)   0.871 (0.857) / 0.675   0 (0)
author 6              1.000 / 0.633 (0.633)   0.830 (0.816) / 0.650   0 (0)
author 7              1.000 / 0.544 (0.511)   0.846 (0.833) / 0.611   0 (0)
author 8              1.000 / 0.550 (0.550)   0.778 (0.766) / 0.583   0 (0)
author 9              1.000 / 0.511 (0.511)   0.831 (0.818) / 0.600   0 (0)
author 10             1.000 / 0.500 (0.467)   0.804 (0.769) / 0.683   0 (0)
author 11             1.000 / 0.517 (0.517)   0.766 (0.725) / 0.600   0 (0)
mean                  1.000 / 0.589 (0.583)   0.823 (0.807) / 0.687   0 (0)
====================  ======================  ======================  ============

Contradiction recall before: 0.969, 0.764, 0.688, 0.750, 0.675, 0.667, 0.611, 0.600, 0.600,
0.667, 0.617 (mean 0.692). All-pairs check, shipped limits, before -> after: wrong merges 0 -> 0
on every author; merges no label judges 307 -> 319; contradictions proposed over the eleven
whole files 4,221 -> 2,966, most of those gone being notes that merely mention two rival tools
or two values of different settings. New this round: a one-clause entry said whole in one
clause of a longer entry is its duplicate with more detail; a permission granting what the
other entry forbids is a contradiction; rival alternatives, values of one concept and change
notes need a subject the two entries share ("Terraform locks live in DynamoDB" and "Postgres
backups are kept 35 days" choose nothing between them). Measured and not shipped: a merge of
entries naming the same specific identifiers at similarity 0.5 (eight more duplicates on the
labelled pairs, no wrong one; in the all-pairs check three wrong merges among eight new); a
contained detail of two subjects (also wrong in the all-pairs check); "a scope named in one
entry only" as a sign of compatibility (on the labelled contradictions flagged by it, twice as
many true as false); the log levels as rival alternatives (four false contradictions, no gain).
Targets on held-out authors still not met: duplicate recall (mean 0.589, worst 0.350),
contradiction precision (9 of 11 authors below 0.85), contradiction recall (7 of 11 below
0.70).

Round 11 (ck/kdet10), fourteen authors: blind pairs 9 joined as author 14 after its first
measurement; no new writer. Tuning figures, held out by author (``tools/consolidate_cv.py``,
thresholds chosen on the other thirteen); in brackets main 20fd338's detector held out the
same way over the same fourteen authors. The rules were written reading author 14's misses
(counts, plural initialisms, spelled-out terms, years, exceptions in other languages, command
words, flaky/quarantine) and the misses of all fourteen (rival tools, spans, switches, idioms),
so these hold out thresholds, not words:

====================  ======================  ======================  ============
held-out author       duplicate P / R         contradiction P / R     wrong merges
====================  ======================  ======================  ============
author 1              1.000 / 0.969 (0.953)   0.816 (0.816) / 0.969   0 (0)
author 2              1.000 / 0.691 (0.673)   0.824 (0.824) / 0.764   0 (0)
author 3              1.000 / 0.362 (0.350)   0.826 (0.812) / 0.713   0 (0)
author 4              1.000 / 0.767 (0.750)   0.882 (0.878) / 0.750   0 (0)
author 5              1.000 / 0.537 (0.512)   0.887 (0.871) / 0.688   0 (0)
author 6              1.000 / 0.667 (0.633)   0.854 (0.837) / 0.683   0 (0)
author 7              1.000 / 0.544 (0.544)   0.851 (0.848) / 0.633   0 (0)
author 8              1.000 / 0.550 (0.533)   0.808 (0.796) / 0.700   0 (0)
author 9              1.000 / 0.522 (0.511)   0.843 (0.831) / 0.656   0 (0)
author 10             1.000 / 0.517 (0.500)   0.815 (0.811) / 0.733   0 (0)
author 11             1.000 / 0.533 (0.533)   0.796 (0.787) / 0.650   0 (0)
author 12             1.000 / 0.417 (0.400)   0.907 (0.878) / 0.650   0 (0)
author 13             1.000 / 0.567 (0.550)   0.820 (0.816) / 0.683   0 (0)
author 14             1.000 / 0.450 (0.383)   0.745 (0.702) / 0.583   0 (0)
mean                  1.000 / 0.578 (0.559)   0.834 (0.822) / 0.704   0 (0)
====================  ======================  ======================  ============

Contradiction recall before: 0.969, 0.764, 0.700, 0.717, 0.675, 0.683, 0.622, 0.650, 0.600,
0.717, 0.617, 0.600, 0.667, 0.550 (mean 0.681). Authors 1-13 alone (not read for the first
group of rules): duplicate recall mean 0.572 -> 0.588, contradiction precision 0.831 ->
0.841, recall 0.691 -> 0.713. All-pairs check, shipped limits, fourteen files: wrong merges 0
-> 0, merges no label judges 316 -> 312, contradictions 3,703 -> 3,740 (across pairs 3,008 ->
3,027). New this round: counts with thousands separators or a "k" are one number, initialisms
in the plural ("RSEs"), more spelled-out terms (identity provider, load balancer, high
performance computing...), a year after "the"/"our" dates an event (no value; two different
ones keep two rules apart), exceptions in German, Spanish, French, Italian and Portuguese,
words of a backticked command are no scope, rival tools of more jobs (issue trackers, JVM JSON
and HTTP clients, log shippers, schema formats, MPI libraries, docs hosting, data-quality
checks), a code span one entry writes without backticks, a database named by its kind on one
side and its engine on the other, a switch given ``true``/``false``, "stays out of git",
"in the background", "the one (DAG) with", "Java-style", "ever" (no subject), a negation and
the rejection word it governs cancel out ("not deleted" is kept), a rejection word before when
it happens ("deleted once calling is done") is a process step, and a variant of an antonym
flips as it does ("synchronously": "generated asynchronously" and "synchronously" had merged).
Measured and not shipped: change markers abroad and "UPDATE:"/"NEU:" headers (+2 labelled
contradictions, +67 across pairs, 57 of them from one note), "moved X off" (+1 right, +1
wrong, +41 across pairs), "(was X)" (+1 right, +31 across pairs, 30 from one note), upper
camelCase read by its words (1 wrong merge, 4 duplicates and 3 contradictions fewer), the
database kind added to every reading that names an engine (1 wrong merge: a Spanish
production note and a dev one), ``key=number`` spans split (1 duplicate lost), no value
conflict between entries each naming a thing the other does not (5 right, 5 false gone), the
first clause read past a bracketed aside (2 duplicates found, 4 lost), more negation words
abroad, "errors out", "a couple of", "fortnight" (no change). Targets on held-out authors
still not met: duplicate recall (mean 0.578, worst 0.362), contradiction precision (9 of 14
authors below 0.85), contradiction recall (8 of 14 below 0.70).

Round 12 (ck/kdet11), fifteen authors: blind pairs 10 joined as author 15 after its first
measurement; no new writer. Tuning figures, held out by author (``tools/consolidate_cv.py``,
thresholds chosen on the other fourteen); in brackets main 16c8018's detector held out the same
way over the same fifteen authors. Rules written reading author 15's misses and the all-pairs
merges of all fifteen, so these hold out thresholds, not words:

====================  ======================  ======================  ============
held-out author       duplicate P / R         contradiction P / R     wrong merges
====================  ======================  ======================  ============
author 1              1.000 / 0.969 (0.969)   0.816 (0.816) / 0.969   0 (0)
author 2              1.000 / 0.709 (0.691)   0.824 (0.824) / 0.764   0 (0)
author 3              1.000 / 0.362 (0.300)   0.826 (0.826) / 0.713   0 (0)
author 4              1.000 / 0.783 (0.767)   0.900 (0.882) / 0.750   0 (0)
author 5              1.000 / 0.525 (0.537)   0.887 (0.887) / 0.688   0 (0)
author 6              1.000 / 0.683 (0.667)   0.872 (0.854) / 0.683   0 (0)
author 7              1.000 / 0.522 (0.533)   0.851 (0.851) / 0.633   0 (0)
author 8              1.000 / 0.567 (0.500)   0.808 (0.808) / 0.700   0 (0)
author 9              1.000 / 0.522 (0.522)   0.866 (0.843) / 0.644   0 (0)
author 10             1.000 / 0.533 (0.517)   0.815 (0.815) / 0.733   0 (0)
author 11             1.000 / 0.533 (0.533)   0.796 (0.784) / 0.650   0 (0)
author 12             1.000 / 0.417 (0.417)   0.907 (0.907) / 0.650   0 (0)
author 13             1.000 / 0.567 (0.517)   0.824 (0.820) / 0.700   0 (0)
author 14             1.000 / 0.483 (0.450)   0.766 (0.745) / 0.600   0 (0)
author 15             1.000 / 0.483 (0.400)   0.885 (0.774) / 0.767   0 (1)
mean                  1.000 / 0.577 (0.555)   0.843 (0.829) / 0.710   0 (1)
====================  ======================  ======================  ============

Duplicate precision before: 0.960 on author 15 (its wrong merge), 1.000 elsewhere.
Contradiction recall before: 0.969, 0.764, 0.713, 0.750, 0.688, 0.683, 0.633, 0.700, 0.656,
0.733, 0.667, 0.650, 0.683, 0.583, 0.683 (mean 0.704; authors 9 and 11 lose one each to
``supersede_clause`` now fixed on, see ``tools/consolidate_cv.py``). Authors 1-14 alone:
duplicate recall mean 0.566 -> 0.584, contradiction precision 0.833 -> 0.840, recall 0.705 ->
0.705. All-pairs check, shipped limits, fifteen files: labelled or implied wrong merges 0 -> 0,
merges no label judges 333 -> 316 (13 gone were two facts merged: "Slurm accounts are created
by the portal" with "Slurm job-completion data is exported to the portal", "Kafka retention is
7 days on the staging cluster" with "Kafka retention on `payments.events` is 7 days", "Use tabs
for indentation in Python files" with "Use single quotes for strings in Python"...), right
merges 542 -> 551, contradictions 4,046 -> 4,030 (across pairs 3,288 -> 3,265). New this round:
a rule about a class of things and one named case of it ("`payments.captured_at` is a UTC
`timestamptz`" against "Timestamps are `timestamptz` in UTC": the wrong merge left from
blind_pairs10's first measurement) are never merged; "deliberately", "intentionally", "by
design" and Polish and Korean exception words make an exception, and a change still to come
("until it is retired") is no change note; words of any alphabet are words (only a-z had
been), a Korean word is read without its particles, Han characters two at a time, Korean,
Japanese and Chinese negations and permissions count ("않는다", "しない", "禁止", "허용된다",
"可以"; main merged such a rule with its opposite, met on their Latin names), "。" ends a clause,
words of a script the other entry does not use are left out; negations abroad ("nigdy",
"zakaz", "proibido", "verboten"), their "without" ("sem", "bez", "ohne"), a Portuguese "no" is
"in the" (it negated: "rodam no CI" and "não rodam no CI" merged), durations abroad ("10
segundos", "4 Wochen", "48시간"), environments abroad ("na produkcji", "em homologação");
"no X without Y" rejects no tool in X; a backticked command before a negated verb is rejected
whole; "For X, ..." is no exception next to an entry about X; a value for one environment is
never merged with the same value stated without one; two entries about the same plain names
(no identifier, no value) merge on them only while the shorter adds fewer than three words of
its own (was four), and never when each chooses for a different job; a reason clause is read
whole ("because the queue can redeliver" grants nothing); "never before" closing a clause
restates an order; "was closed" retires; "bumped from 3.9 to 3.11" is a change, not a range;
"took over" changes a role. Measured and not shipped: "no more" as a change marker (+0 right,
1 false, +16 across pairs), two different years on the two sides keeping entries apart (1 right
lost for 1 false gone), a value for one platform kept apart from the general value (3
duplicates lost for 2 merges no label judges), the words of a backticked span not using up a
negation's reach (1 right and 1 false contradiction gone), a reason clause's "can" granting no
permission (1 duplicate lost), "each entry opens with a subject the other never names" as a
bar to merges (22 labelled duplicates lost). Targets on held-out authors still not met:
duplicate recall (mean 0.577, worst 0.362), contradiction precision (8 of 15 authors below
0.85), contradiction recall (7 of 15 below 0.70).

Round 13 (ck/kdet12), sixteen authors: blind pairs 11 joined as author 16 after its first
measurement; no new writer. Tuning figures, held out by author (``tools/consolidate_cv.py``,
thresholds chosen on the other fifteen); in brackets main 69ac7f1's detector held out the same
way over the same sixteen authors. Rules and words written reading author 16's misses, so its
row holds out thresholds, not words:

====================  ======================  ==============================  ============
held-out author       duplicate P / R         contradiction P / R             wrong merges
====================  ======================  ==============================  ============
author 1              1.000 / 0.969 (0.953)   0.816 (0.816) / 0.969 (0.969)   0 (0)
author 2              1.000 / 0.709 (0.709)   0.824 (0.824) / 0.764 (0.764)   0 (0)
author 3              1.000 / 0.350 (0.350)   0.826 (0.826) / 0.713 (0.713)   0 (0)
author 4              1.000 / 0.783 (0.783)   0.900 (0.900) / 0.750 (0.750)   0 (0)
author 5              1.000 / 0.525 (0.525)   0.887 (0.887) / 0.688 (0.688)   0 (0)
author 6              1.000 / 0.683 (0.683)   0.872 (0.872) / 0.683 (0.683)   0 (0)
author 7              1.000 / 0.522 (0.522)   0.877 (0.877) / 0.633 (0.633)   0 (0)
author 8              1.000 / 0.550 (0.567)   0.820 (0.808) / 0.683 (0.700)   0 (0)
author 9              1.000 / 0.522 (0.522)   0.866 (0.866) / 0.644 (0.644)   0 (0)
author 10             1.000 / 0.533 (0.533)   0.815 (0.815) / 0.733 (0.733)   0 (0)
author 11             1.000 / 0.533 (0.533)   0.812 (0.796) / 0.650 (0.650)   0 (0)
author 12             1.000 / 0.417 (0.417)   0.907 (0.907) / 0.650 (0.650)   0 (0)
author 13             1.000 / 0.550 (0.567)   0.840 (0.824) / 0.700 (0.700)   0 (0)
author 14             1.000 / 0.483 (0.483)   0.783 (0.766) / 0.600 (0.600)   0 (0)
author 15             1.000 / 0.483 (0.483)   0.885 (0.885) / 0.767 (0.767)   0 (0)
author 16             1.000 / 0.683 (0.683)   0.845 (0.723) / 0.817 (0.567)   0 (2)
mean                  1.000 / 0.581 (0.582)   0.848 (0.837) / 0.715 (0.701)   0 (2)
====================  ======================  ==============================  ============

Duplicate precision before: 0.953 on author 16 (its two wrong merges), 1.000 elsewhere.
Authors 1-15 alone: duplicate recall mean 0.575 -> 0.574, contradiction precision 0.845 ->
0.849, recall 0.710 -> 0.708. All-pairs check, shipped limits, sixteen files: labelled or
implied wrong merges 2 -> 0, merges no label judges 330 -> 327, right merges 591 -> 589,
contradictions 4,323 -> 4,331 (across pairs 3,512 -> 3,512). ``--choose`` over sixteen gives
the shipped limits. New this round: the two wrong merges left from blind_pairs11's first
measurement are mended as classes. A rule for every member of a class and an entry opening with
one member it names by a word of its own ("すべてのサービスはGKE上で動かす" / "推薦サービスは
GKEの...", "All services run on GKE" / "The payments service runs on GKE") are never merged:
universal quantifiers are read in every language the writers use ("すべて", "全", "各", "모든",
"所有", "每", "todos", "cada", "alle", "jede", "tous", "chaque", "tutti", "ogni", "każdy"; the
Japanese tokenizer had dropped the Hiragana "すべて"), "every 15 minutes" stays a rate, and
"も", "也", "también", "auch", "aussi", "anche", "também" are additions. Types are values: "整数",
"文字列", "字符串", "정수", "문자열", "entero", "Ganzzahl", "Zeichenkette", "stringa" are read
as integer and string, a ULID is an ID type (integer against ULID is a contradiction), two
entries each naming a type the other does not are never merged, and an alternative chosen in
a longer entry's detail ("動画IDは文字列（ULID）") is no "more detail" of a rule choosing
another. Then contradiction -> none (25 on author 16 before, 11 after): rival formats and tools
(WebVTT/SRT, JPEG/AVIF, RS256/ES256, protoc/buf, gomock/mockery, Grafana/Cloud Monitoring,
Shaka Packager/Bento4, CSAI/SSAI, Cloud Build as CI, `log/slog`), Japanese "使わず" (without
using), "switched off" abroad ("abgeschaltet", "desactivado", "désactivé"...) said of the
clause's subject (main merged "Automatisches Speichern ist abgeschaltet" with "Der Editor
speichert automatisch (`autosave=true`)"), Spanish "fusionar" is merge, "is private" is not
public; and compatible -> contradiction (9 before, 6 after): two values each for a code
identifier the other lacks ("`billing.events` retention: 30 days" / "`playback.events`
retention: 3 days") and environments named in Japanese, Chinese and Korean ("本番", "開発",
"운영") are two things; "Excepción", "eccezione", "exceção", "hasta que" mark an exception; a
negated verb in a condition ("if LaunchDarkly can't be contacted") rejects nothing. Costs, held
out: two labelled duplicates of a named subclass and its universal rule ("dbt models in
`marts/` ..." / "Every mart model ...", "Pinia stores ..." / "... any store ...", authors 8 and
13), and one contradiction whose two code spans were the values (author 8). Measured and not
shipped: the universal guard on every merge by modifiers alone (11 labelled duplicates lost),
"each entry opens with a subject the other lacks" as no value conflict (35 false contradictions
gone, 22 right ones lost), a value-type choice group (string/integer/float/boolean: tens of
cross-pair contradictions, "`__str__`" read as a string), GCP regions as rivals (1 right, 1
false: regions for two user groups), mTLS/API keys as rivals (1 right, 3 false across pairs),
regions (EU, APAC) as scopes (no change). Targets on held-out authors still not met: duplicate
recall (mean 0.581, worst 0.350), contradiction precision (9 of 16 authors below 0.85),
contradiction recall (8 of 16 below 0.70).

Round 14 (ck/kdet13), sixteen authors, no new set: an error analysis of the duplicate misses.
The shipped limits missed 453 of the 1,059 labelled duplicates; ``tools/consolidate_cv.py
--misses`` counts them by kind and cause (not compared / read as a contradiction / a sign of
conflict / too few words shared): synonym_heavy 128 of 147 (40 / 3 / 25 / 60), paraphrase 114
of 210 (0 / 10 / 41 / 63), extra_detail 82 of 164 (5 / 6 / 27 / 44), abbreviation 41 of 155
(2 / 2 / 2 / 35), reordered 33 of 153 (0 / 10 / 9 / 14), no_shared_words 33 of 34 (26 / 0 / 2 /
5), negated_phrasing 8 of 11, other_language 7 of 10, formatting 6 of 145. One side English and
the other not: 33 pairs, 13 missed; both English 431 of 1,002 missed. Formatting is solved; the
misses are paraphrases whose differing words rarely repeat: over the 231 misses a lifted
similarity would merge, no pair of differing concepts occurs more than four times ("before" /
"first"), so no small table closes many. Shipped: function words of Spanish, French, German,
Portuguese, Italian and Polish are filler as the English ones are ("en", "sont", "für", "são";
not "es", "est", "dos", "com", "jest"), and a glossary of common engineering words in those
languages reads them as the English word ("subir", "después", "fichiers", "nutzen",
"desarrollo", "erreurs", "serveur"; no word of polarity, none with an English sense). Held out,
against main b79f78c's detector over the same sixteen authors (``tools/consolidate_cv.py``;
``--choose`` gives the shipped limits before and after):

====================  ======================  ==============================  ============
held-out author       duplicate P / R         contradiction P / R             wrong merges
====================  ======================  ==============================  ============
author 5              1.000 / 0.550 (0.525)   0.887 (0.887) / 0.688 (0.688)   0 (0)
author 8              1.000 / 0.550 (0.550)   0.824 (0.820) / 0.700 (0.683)   0 (0)
author 11             1.000 / 0.550 (0.533)   0.812 (0.812) / 0.650 (0.650)   0 (0)
author 16             1.000 / 0.667 (0.683)   0.845 (0.845) / 0.817 (0.817)   0 (0)
other twelve          unchanged               unchanged                       0 (0)
mean                  1.000 / 0.583 (0.581)   0.849 (0.848) / 0.716 (0.715)   0 (0)
====================  ======================  ==============================  ============

Author 16's lost pair is two Spanish entries that had met on "con" and "de" (their English
wording meets on nothing more). Worst duplicate recall stays 0.350 (author 3). The glossary was
written from general usage, but a few of its words occur in the cross-language misses read
while writing it, so these figures hold out thresholds, not words; with the words of those
misses that are not general ("responder", "pesado", "trabajo", "intermédiaires") the figures
were the same and they were left out. All-pairs check, shipped limits, sixteen files: wrong
merges 0 -> 0, merges no label judges 327 -> 327, right merges 589 -> 591, contradictions 4,331
-> 4,338 (across pairs 3,512 -> 3,518; the new ones read mixed: "CloudWatch log retention: 90
days" / "Em produção, os logs ficam retidos por 1 ano" true, "Die Lumen-Yoga-Preise sind 49
€/Monat" against three other Lumen Yoga notes false). Measured and not shipped: a table of
English engineering synonyms and short forms written from general usage (necessary/obligatory
as required, prohibited as banned, legacy/outdated as old, back-to-back as consecutive,
decommission as retire, display as show, avg, e2e, creds, pw, src, hrs, dept, mgmt...): +1
labelled duplicate, one labelled duplicate read as a contradiction ("Retire the old SOAP
connector when no more Worldline transactions flow": the "no" of a condition negates), one new
merge no label judges that would delete a rule's detail ("Round money to two decimal places
only when displaying it" / "Prices are shown with two decimals"); the glossary's words of
polarity ("supprimés" read as "deleted" lost the negation the English word carries: a
duplicate read as a contradiction); the head-of-entry check on pairs a sign of conflict rules
out (no labelled duplicate more, one lost); a stem of 5 or 7 letters (was 6: 5 makes a wrong
merge, 7 finds 4 duplicates fewer); "apart from", "aside from", "excluding" as exception words
(no change). Targets on held-out authors still not met: duplicate recall (mean 0.583, worst
0.350), contradiction precision (9 of 16 authors below 0.85), contradiction recall (8 of 16
below 0.70).

Round 15 (ck/kdet14), seventeen authors: blind pairs 12 joined as author 17 after its first
measurement; no new writer. Its one wrong deletion mended as a class: a rule for every member
of a class and an entry about one member it names, whatever detail that member's entry adds
("Every runbook has a 'Rollback' section." / "The RabbitMQ upgrade runbook ends with a
rollback section describing how to restore the previous image tag.": the planner kept the
longer entry and deleted the rule for every runbook). Two guards, both in ``_case_of_rule``
(so on every kind of merge, contained detail included): a member named by a name (a tool,
proper noun or code span) right before the quantified class noun or one word further
(``_named_member``; a name the rule spells out by its initials, "JP" for "each JetPack
version", names no member), and the round-13 member named by a word of its own at the start of
the entry, now with no limit on its own words when that word stands before the class noun
itself rather than before a word that only modifies the class (``_quantified_heads``: "Los
modelos dbt ..." against "Every dbt model ..." is one rule in two languages and still merges).
Held out (``tools/consolidate_cv.py``, thresholds chosen on the other sixteen), against main
aa83bbf's detector over the same seventeen authors: identical on authors 1-16; author 17
duplicate precision .968 -> 1.000 (recall .500), contradiction .870 / .667, wrong merges 1 ->
0; mean duplicate recall .577 (worst .350), contradiction precision .850 (worst .783), recall
.713 (worst .600) before and after; ``--choose`` gives the shipped limits. All-pairs check,
shipped limits, seventeen files: wrong merges 1 -> 0, merges no label judges 353 -> 353, right
merges 620 -> 620, contradictions 4,579 -> 4,579 (across pairs 3,719 -> 3,719). Measured and
not shipped: the round-13 member guard with no word limit on any class word (the dbt pair in
two languages lost); the same limited to the class noun alone, without keeping the round-13
limit for modifiers (one more labelled duplicate of author 13 found, but "Java services use
Gradle" merged with "each service folder has its own independent Gradle wrapper ...": a merge
no label judges that deletes a rule); a negation inside a condition clause ("when no more
Worldline transactions flow", "if the charge nurse hasn't approved them") not counted as a
negation of the rule (+1 labelled duplicate, but 3 labelled duplicates whose other side says
the same with a negation outside a condition, "without it", "no restart needed", read as
contradictions; one more merge no label judges). Then a negation inside a condition that
opens within a clause ("Clear the cache from DevTools if a site remap doesn't show") governs
the condition's words only, no longer the clause it is a condition of (it had negated the
caching rule it follows); the same rule under opposite conditions ("when the network is not
available" / "is available") stays apart. Held out, against the commit before it: author 10
duplicate recall .533 -> .550, every other figure unchanged (mean duplicate recall .577 ->
.578); all-pairs check: right merges 620 -> 621, contradictions 4,579 -> 4,575 (across pairs
3,719 -> 3,715; the four gone read false: "Docs site runs on Node 18" against "The docs site
breaks if a page has no front matter title"), no new merge. Round 14's "when no more Worldline
transactions flow" pair is still missed ("once Worldline traffic reaches zero" shares too few
words). A negated verb in such a mid-clause condition kept from rejecting its subject (as one
opening a clause already is) changed no figure and was left out. Targets on held-out authors
still not met: duplicate recall (mean 0.578, worst 0.350), contradiction precision (9 of 17
authors below 0.85), contradiction recall (8 of 17 below 0.70).

Round 16 (ck/kdet15), eighteen authors: blind pairs 13 joined as author 18 after its first
measurement; no new writer. Its one wrong deletion: "All Stripe calls use idempotency keys." /
"`Payments::Capture` passes `idempotency_key: ...` to `Stripe::PaymentIntent.capture`." (a
rule and one case of it, merged). A rule quantified over a named thing's members opens with a
name, so it was not read as a rule about a class; an entry opening with a code identifier is
now a case of any rule with a universal ("All", "Every") that never names it, and `any` in
backticks (a type) is no quantifier. Then two rules for two members: entries opening with one
noun, each narrowed by a name of its own ("The Lyon depot opens at 05:00" / "The Milan depot
opens at 06:00", "APAC card payments go through Adyen" / "EU ... Stripe"), are no
contradiction, unless one name is a tool and the other not ("DB migrations ... Liquibase" /
"Flyway migrations ..." stay a choice to look at); probing found "The Redis cluster runs on
the Standard tier" / "... on the Premium tier" merged (one deleted): a noun narrowed by two full
names (four letters or more, not in the other's text) after the verb now rules a merge out.
Then duplicate recall from a measured signal rather than words: two entries whose values all
agree (the same numbers, the same code spans, no code identifier on one side only, no
exception or permission on one side) merge at word similarity ``number_similarity`` (chosen
from 0.5, 0.55, 0.6 and off: 0.6 in 17 of 18 folds and on every author; 0.72 otherwise).
Held out (``tools/consolidate_cv.py``), against main 418bbdb's detector and grid over the same
eighteen authors: authors 1-12, 14-16 unchanged; author 13 duplicate recall .550 -> .567;
author 17 .500 -> .517, contradiction precision .870 -> .889; author 18 duplicate .967 / .483
-> 1.000 / .500, contradiction precision .839 -> .855, wrong merges 1 -> 0. Means: duplicate
recall .573 -> .575 (worst .350), contradiction precision .853 -> .855 (worst .783; 9 -> 8
authors below .85), recall .716 -> .716 (worst .600), wrong merges 1 -> 0. All-pairs check,
shipped limits, eighteen files: wrong merges 0 -> 0, right merges 653 -> 657, merges no label
judges 379 -> 380 (the new one the same retention rule with more detail), contradictions 4,929
-> 4,902 (across pairs 4,020 -> 3,995; those gone read false: two depots, two regions, the
PagerDuty key against the card processor's key, Xcode for builds against TestFlight uploads).
Measured and not shipped: any noun narrowed by a word of its own on each side as two members
(64 labelled contradictions lost for 23 false ones: "Default cache TTL" / "Redis TTL default"
say one thing), names alone without the opening (3 right lost for 3 false gone: "Standard
tier" / "Premium tier" is what the rules disagree on), the merge guard on any name (11 labelled
duplicates lost to short forms: "RN app" / "React Native app"), the universal read as a class
wherever it opens (no labelled change, but a probe's duplicate kept apart: "Stripe requests
always carry an idempotency key" read as a member of "All Stripe calls"), the same-values
merge at 0.55 (+7 labelled duplicates on the fit, but the selection chooses 0.6, and across
pairs it merged "Every repo uses PHPStan level 6" with a CI note) and without the identifier
guard ("rotate FHIR_CLIENT_SECRET every 90
days" merged with "Key Vault soft-delete retention is 90 days" in the all-pairs check). Left
alone: "The web player uses HLS with 6-second segments" / "The TV player ..." still merges
("web" and "TV" are no full names). Targets on held-out authors still not met: duplicate recall
(mean 0.575, worst 0.350), contradiction precision (8 of 18 authors below 0.85), contradiction
recall (9 of 18 below 0.70).

Round 17 (ck/kdet16), eighteen authors, no new set: scoped twins. Probing found two entries
that say the same of two scopes merged (one deleted) or called a contradiction: "The web player
uses HLS with 6-second segments" / "The TV player ...", US/EU ("US" had been read as the
pronoun "us"), Q3/Q4, v1/v2, DE/FR regions, 2024/2025, and in Spanish, German, Italian,
Polish, Japanese and Korean; "Booking records for Spanish properties are kept for 6 years" /
"... German properties ... 10 years" (the scope after "for", not in the opening; für, pour,
para, per, voor, dla, Japanese "X向け"); "The Redis cluster runs on the Standard tier" /
"... Premium tier" was kept apart but not reported. The rule (``_slot_twins``): the entries'
words of full weight are the same in the same order but one slot, filled on each side by a word
of its own next to a noun the two share (before it, after it, joined by a hyphen or by "de",
"of", "von"..., or narrowed by a "for"), and each word names a scope (a name, a scope word, a
word a "for" narrows, Q3, H2, v2, FY25, a year) or both entries open with an article and that
word before one noun ("The admin dashboard" / "The customer dashboard"). Twins are never
merged; in the subject (the opening or a "for") they are no contradiction whatever their
values; after the verb, with the same numbers, sign and no exception, they are one subject with
two values: a contradiction ("Standard against Premium"). Short forms stay one word (initials,
"RN"/"React Native"; the same first letter and letters in order, "DB"/"database", "TS",
"txn"); synonyms ("prod"/"production") are one concept already. Also: "US", "DE", "ES",
"IT"... in capitals are a country (or an initialism: "DE analysis" meets "differential
expression", "IT cases" meets "integration tests"), a year opening an entry dates it ("2024
invoices"), "the v1 API" names a scope. Held out (``tools/consolidate_cv.py``, thresholds
chosen on the other seventeen; ``--choose`` unchanged), against main 52eb397 over the same
eighteen authors: authors 1-5, 7, 8, 10-15, 17 unchanged; author 6 contradiction precision
.872 -> .891; author 9 duplicate recall .522 -> .533; author 16 contradiction precision .845
-> .860; author 18 .855 -> .870. Means: duplicate recall .575 -> .576 (worst .350),
contradiction precision .855 -> .857 (worst .783; 8 -> 7 authors below .85), recall .716 ->
.716 (worst .600), wrong merges 0 -> 0. All-pairs check, shipped limits, eighteen files: wrong
merges 0 -> 0, right merges 657 -> 658, merges no label judges 380 -> 380 (none new, none
lost), contradictions 4,902 -> 4,897 (across pairs 3,995 -> 3,993; the two gone read false:
Friday deploys against "Sunday is the first day of the week in the US calendar widget"); no
labelled duplicate lost. The labelled sets hold few twins, so the figures move little; the
class is pinned by ``tests/test_consolidate_scoped_twins.py`` (probe pairs in nine languages).
Measured and not shipped: any plain word filling the slot (a labelled duplicate lost on each
of "The TS build" / "The TypeScript compiler", "Settlement batch" / "settlement job", "green
CI" / "passing continuous integration" read as a contradiction, and "API server runs" / "API
listens" lost as a contradiction); a plain opening word without the article (a markdown table
of reviewers against "Required reviewers: ..." lost). Left alone: "欧洲用户的数据保留5年" /
"日本用户的数据保留10年" (Han characters read two at a time make two slots differ), Japanese
"X用の" (用 ends many words: 利用, 使用), "db-standard-4" / "db-highmem-4" machine types still
merged, "Log level in production is INFO" / "DEBUG" merged (log levels are no rivals, round 8).
Targets on held-out authors still not met: duplicate recall (mean 0.576, worst 0.350),
contradiction precision (7 of 18 authors below 0.85), contradiction recall (9 of 18 below
0.70).

Round 18 (ck/kdet17), eighteen authors, no new set: two values are never one entry. Probing
main 3ea289b through the CLI found "Log level in production is INFO." / "... is DEBUG." merged
(``--apply`` deleted the DEBUG line; so WARNING, and the same in German, Italian, Portuguese
and Polish), "The cutover date is 2026-03-01." / "... 2026-04-01." merged (dates were dropped
as signatures), "Mobile builds ship to TestFlight" / "... Firebase" merged, and "Workers run on
db-standard-4 machines" / "... db-highmem-4", "m5.large" / "m5.xlarge", "n2-standard-8" /
"e2-highcpu-8", blue/green, "clair"/"sombre", "claro"/"oscuro", "blau"/"grün",
Standard/Premium, ALICE/BOB proposed as nothing. The rule (``_one_slot``, ``_slot_values``):
the entries' words of full weight are the same in the same order but one slot (a compound name
is one word: "db-standard-4", "--constraint=icelake"), and each side's word is a value (a name:
capitals, backticks, an identifier; a word with a digit; a level, size or colour word,
``VALUE_WORDS``) that is no short form of the other's as written ("ASan"/"AddressSanitizer"; a
short form is letters only, so "m5.large" is no "m5.xlarge"); synonyms and inflections are one
concept already ("prod"/"production", "logging"/"log"). Such a pair is never merged; when the
slot is after the verb (not the word the entry opens with, nor one it narrows, nor a "for"
scope; not two scope words) with the same numbers, sign and no exception, it is a contradiction
naming the two values as written ("INFO against DEBUG", "db-standard-4 against db-highmem-4",
"2026-03-01 against 2026-04-01"). A scope word given as a value against a plain one ("DEBUG"
against "INFO") is a value. A date after "is", "are", "was" or "=" is kept as a value
(``wording._VALUE_DATE``). Labelled pairs: every prediction of every author unchanged under the
shipped limits against main 3ea289b (4,587 pairs, kinds and reasons compared one by one);
all-pairs check, shipped limits, eighteen files, unchanged (wrong merges 0, right merges 652,
merges no label judges 367, contradictions 4,826, across pairs 3,927: the same pairs, read one
by one, on both). Held out (``tools/consolidate_cv.py``, every fold's choice and every author's
row identical to main's): duplicate recall mean .576 (worst .350), contradiction precision .857
(worst .783; 7 authors below .85), recall .716 (worst .600), wrong merges 0. The labelled sets
hold no such pair, so no figure moves. The class is pinned by
``tests/test_consolidate_slot_values.py`` (24 pairs through ``consolidate --json`` and
``--apply`` in ten languages, every one failing on main, and 4 of one value written two ways
that must still merge). Measured and not shipped: a code span read twice folded into one word
(``c6i.2xlarge``/``c6i.4xlarge`` would be a contradiction) made "Tag Terraform resources with
`owner`" / "... `cost_center`" (labelled compatible: two tags, both required) a false
contradiction; any plain word in the slot (labelled duplicates lost: "DB creds" / "Database
credentials", "split"/"broken up", "pass"/"green", "batch"/"job", "explaining"/"says"). Left
alone: "`c6i.2xlarge`" / "`c6i.4xlarge`", "The default build type is Debug" / "... Release"
(two scope words), "Staging runs in the EU region" / "... US region" and "`low`" / "`high`"
preset are proposed as nothing (no merge, no contradiction); a slot of things a rule adds up
rather than one value ("Tag every resource with OWNER" / "... TEAM", "The README links to
CONTRIBUTING.md" / "... SECURITY.md", "depends on Redis" / "... Kafka") is now a contradiction,
a false one costing a look (none such in the all-pairs check). Targets on held-out authors
still not met: duplicate recall, contradiction precision and recall (figures above).

Round 19 (ck/kdet18), eighteen authors, no new set: the six wrong merges of blind_pairs14 and
blind_pairs15's first measurements, mended by class AFTER those measurements (both sets were read
to make these mends, so the figures below are AFTER-TUNING, not blind). A Korean "아니다" and
Turkish "değil", "yok" and verb negations ("-maz", "-mamalı", "-madı", "-miyor") negate their
clause, as "않다", "ない", "不" already did; a change note is also known by marks
``freshness/markers.py`` reads before wording drops dates ("Since 2025-05-20", "Seit", "Desde",
"Od", "2025-03-01부터", "switched ... from", "UPDATE:", "returns 410", "nicht mehr", "ya no",
"artık"; a date alone or "(since 2024-05)" is a stamp, no change), and a note known by a mark
alone must share three words and a name with an entry to call it changed (else the pair is read
unmarked, never merged); two values after one label and a colon ("Flutter state management:
Riverpod." / "...: BLoC") are never merged, a contradiction when both open with a name; two
stored forms ("stored as the last watched second" / "saved as the percentage", "salvo como",
"als ... gespeichert") are never merged, a contradiction for one subject; a shorter entry that
adds two concepts or more of its own that the longer never names in any form, more than half as
many as they share, and no shared value, is no "more detail" of it ("Terraform modules are
versioned with git tags" / "Environments pin Terraform module versions ...; no `ref=main`").
Labelled pairs, ``relate`` on every pair of every set against main 51b4f7c: 12 predictions
changed, all to the label (the 6 wrong merges gone; 6 contradictions found that were missed,
none lost). Pair figures (``tools/consolidate_cv.py --current``): authors 1-16 unchanged, author
17 contradiction .889 / .667 -> .894 / .700, author 18 .870 / .783 -> .873 / .800, wrong merges
0; held out (``tools/consolidate_cv.py``, against main's run): every fold's choice unchanged, the
same rows. All-pairs check, shipped limits, eighteen files: wrong merges 0 -> 0, right merges 652
-> 652,
merges no label judges 367 -> 362 (gone: two rules told apart rightly, "Motor board firmware is C
on FreeRTOS" / "... built with GCC 12.3", Brandt Bau's two approvals; and three duplicates with
more detail lost to the own-rule test: "Skip e2e locally with ...; CI runs them", "Run `make
lint` before pushing; CI rejects ...", "Prod runs at INFO; DEBUG is only for local dev"),
contradictions 4,826 -> 4,839 (across pairs 3,927 -> 3,935; read: new true ones on stored forms,
"BigDecimal" against "cents as a `Long`", UTC against Unix epoch seconds; new false ones, six
entries naming `payments-api` against "3DS callbacks have been handled by `payments-api` since
2024-12", "Vela Travel: ISR revalidate is 3600 seconds" against "Vela Travel:
`images.remotePatterns` ...", "Currencies are stored as numeric codes" against "Money is stored as
`BIGINT`"). blind_pairs14 and blind_pairs15 through this bench, AFTER TUNING (read to make these
mends): blind14 duplicate .929 / .650 -> 1.000 / .650, contradiction .804 / .683 -> .818 / .750,
wrong deletions 3 -> 0; blind15 duplicate .917 / .550 -> 1.000 / .550, contradiction .816 / .667
-> .827 / .717, wrong deletions 3 -> 0. The classes are pinned by
``tests/test_consolidate_blind_mends.py`` (22 pairs through ``consolidate --json`` and
``--apply``, 15 failing on main). Left alone: Chinese and Japanese stored forms ("として",
"로 저장"), "Flutter state management: Riverpod." / "...: BLoC" proposed as nothing rather than
a contradiction ("BLoC" is read as no name); label values the lexicon knows as one ("CI: GHA" /
"CI: GitHub Actions") still merge. Targets on held-out authors still not met (round 18's
figures).

Round 20 (ck/kdet19), twenty-one authors: training pairs 6 (a hospital software team) measured
once before its pairs were read (``FIRST_TRAIN6.md``, main 6a97ff9's detector: duplicate .941 /
.533, contradiction .750 / .400, 2 wrong deletions), then joined ``tools/consolidate_cv.py`` as
author 21 with blind_pairs14 and blind_pairs15 as authors 19 and 20. Its two wrong merges mended
by class: a failed thing as the object of a negated verb ("Never retry a failed HL7 delivery
automatically") is no negated failure (``_object_state``: it had read as "retry passing
deliveries" and merged with "Retry failed HL7 deliveries automatically"; "don't merge with a
failing build" still is one), and a code span right after a quantified class noun names a
member (``_span_after``: "... from the Key Vault secret `hl7-mllp-cert-pass`" against "All
secrets come from Key Vault"). Then two entries opening with different years ("In 2024 ...",
"During 2025 ...") are two periods, no contradiction (``YEAR_OPENERS``; 3 false contradictions
gone, authors 16, 17, 21), and Russian and Swedish durations are read ("35 дней", "14 dagar",
"1 timme"; a duplicate read as "35 against five weeks" is no longer a contradiction, one
Swedish contradiction found). Labelled pairs, every prediction of every author against main: 7
changed, 6 to a right reading (2 contradictions found, 4 compatible pairs no longer proposed),
1 from a wrong one to none (the "35 дней" duplicate), none lost. Held out
(``tools/consolidate_cv.py``, every fold's choice identical before and after):

====================  ======================  ==============================  ============
held-out author       duplicate P / R         contradiction P / R             wrong merges
====================  ======================  ==============================  ============
authors 1-15, 18-20   unchanged               unchanged                       0 (0)
author 16             1.000 / 0.667 (same)    0.875 (0.860) / 0.817 (0.817)   0 (0)
author 17             1.000 / 0.517 (same)    0.913 (0.894) / 0.700 (0.700)   0 (0)
author 21             1.000 (0.941) / 0.533   0.812 (0.750) / 0.433 (0.400)   0 (2)
mean                  1.000 (0.997) / 0.576   0.854 (0.849) / 0.707 (0.705)   0 (2)
worst                 1.000 (0.941) / 0.350   0.783 (0.750) / 0.433 (0.400)
====================  ======================  ==============================  ============

All-pairs check, shipped limits, twenty-one files, main -> this round: wrong merges 1 -> 0 (the
HL7 retry pair), merges no label judges 389 -> 389 (the same pairs), right merges 755 -> 755,
contradictions 5,624 -> 5,622 (across pairs 4,588 -> 4,588). blind_pairs14 and blind_pairs15
through this bench unchanged (1.000 / .650, .818 / .750; 1.000 / .550, .827 / .717; 0 wrong
deletions). The classes are pinned by ``tests/test_consolidate_train6_mends.py`` (15 pairs
through ``consolidate --json`` and ``--apply``, 11 failing on main). Duplicate recall did not
move: train6's 28 missed duplicates read (cross-language paraphrases sharing one name, a
short rule against a much longer one adding its own rules, "once per minute" / "every 60
seconds", "KV refs" / "Azure Key Vault", "(only)" in brackets read as no restriction); none
closed this round. Left alone: compatible pairs read as contradictions whose subjects are two
named things ("The FHIR API keeps its logs for 90 days" / "The HL7 listener ... 30 days", "On
iPhone SE ..." / "On iPhone 15 Pro Max ...", two teams' review targets). Targets on held-out
authors still not met: duplicate recall (mean .576, worst .350), contradiction precision (mean
.854, worst .783), contradiction recall (worst .433, author 21).

Round 21 (ck/kdet20, duplicate recall): the 583 labelled duplicates the shipped limits miss over
the twenty-one authors read by class (``--misses``: synonym-heavy 175, paraphrase 152, extra
detail 108, abbreviation 52, reordered 38, no shared words 33). Closed: one frequency in one
form (``wording._often``: "once per minute" = "every 60 seconds", "twice a year" = "every 6
months", "every 24 hours" = "daily"; "every second Tuesday" stays an ordinal), "99th
percentile" = "p99", "Severity 1" = "SEV1", a few common names as their short form (ETA, SMS,
AAD, Microsoft Graph, GL), "`UTF-8` (only)" restricting as "UTF-8 only" does, and a short rule
said in a clause a bracketed aside parts ("nightly ETL (`etl/nightly.py`, DAG `x`) runs at
02:00 UTC", read up to that clause's end: a reason after it is none of it). Labelled pairs,
every prediction against main: 11 changed, 10 to a right reading (duplicates found), 1 from a
wrong contradiction to none, none lost. Held out (every fold's choice identical):

====================  ======================  ==============================  ============
held-out author       duplicate P / R         contradiction P / R             wrong merges
====================  ======================  ==============================  ============
authors 1-5, 7, 9,    unchanged               unchanged                       0 (0)
11, 13, 14, 20
author 6              1.000 / 0.700 (0.683)   0.891 / 0.683 (same)            0 (0)
author 8              1.000 / 0.550 (same)    0.840 (0.824) / 0.700           0 (0)
author 10             1.000 / 0.567 (0.550)   0.830 / 0.733 (same)            0 (0)
author 12             1.000 / 0.433 (0.417)   0.907 / 0.650 (same)            0 (0)
author 15             1.000 / 0.517 (0.483)   0.885 / 0.767 (same)            0 (0)
author 16             1.000 / 0.683 (0.667)   0.875 / 0.817 (same)            0 (0)
author 17             1.000 / 0.533 (0.517)   0.913 / 0.700 (same)            0 (0)
author 18             1.000 / 0.517 (0.500)   0.873 / 0.800 (same)            0 (0)
author 19             1.000 / 0.667 (0.650)   0.833 (0.818) / 0.750           0 (0)
author 21             1.000 / 0.550 (0.533)   0.812 / 0.433 (same)            0 (0)
mean                  1.000 / 0.584 (0.576)   0.855 (0.854) / 0.707 (0.707)   0 (0)
worst                 1.000 / 0.350 (0.350)   0.783 (0.783) / 0.433 (0.433)
====================  ======================  ==============================  ============

All-pairs check, shipped limits, main -> this round: wrong merges 0 -> 0, merges no label
judges 389 -> 390 (read: "Use the terminology server for code lookups" inside a longer note
about it, and two re-pairings within chains of one rule written three times), right merges
755 -> 765, contradictions 5,622 -> 5,619 (across pairs 4,588 -> 4,587; new ones read false:
an SLO written "p99 latency" now keys its value to the service, "ETA" meets "UTC"). Tried and
left out: a clause read whole across its aside to the sentence's end (a wrong merge: "Schema
changes need a migration file" inside "... (N-1), since we roll out code after migrating"),
"cardholder data" = "CHD" (lost "Card data never leaves the CDE subnet"), same-anchor merges
across languages (labelled: 7 duplicates against 4 compatible or contradicting pairs), places
checked only in the clause that restates the short rule (no change). Pinned by
``tests/test_consolidate_round21.py`` (18 pairs through ``consolidate --json`` and
``--apply``, 13 failing on main). Duplicate recall is still far from .70: most misses are
synonym-heavy paraphrases with no sign of conflict that word overlap cannot see.

Round 22 (ck/kdet21), twenty-three authors: training pairs 7 (a travel-booking team, Italian,
Portuguese, Japanese, Turkish and Polish sides) and 8 (an agritech IoT team, French and
Vietnamese sides), asked for hard non-duplicates, joined as authors 22 and 23 after one
measurement each of main f782f19's detector before their text was read (``FIRST_TRAIN7.md``:
duplicate .917 / .550, contradiction .778 / .700, 3 wrong merges; ``FIRST_TRAIN8.md``: .929 /
.433, .780 / .533, 2 wrong merges). The five wrong merges, closed as classes: Italian "non ...
mai" was no negation (negations of Italian, Dutch, Swedish, Indonesian, Vietnamese and Russian
added); a French "ne VERB pas" negated what follows "pas", not the verb
(``markers.french_negations`` writes it "not VERB"); "no access, not even read-only" against
"read-only access" (a grant and an entry denying even it, in eight languages: never merged,
``escalates``); a Vietnamese rule for every P1 alert and one named alert (quantifiers of the same
languages read); "Every Split.io flag must have an expiry date" / "... an owner" (two entries
opening alike, each ending in words only it says, no value: never merged on their names,
``anchor_complement``; it costs no labelled duplicate). Then the containment guard
(``_nothing_lost``: the side a merge may remove must have its numbers, names, code spans,
negation and content words in the other), measured with the shipped limits over the 23 authors
(labelled duplicates found of 1,479; the one labelled wrong merge left then was the Split.io
pair; all-pairs right merges and merges no label judges) and, held out, on main's reading with
the guard alone against this round's five unseen wrong merges:

==========================================  ==========  ===========  ==========  =============
guard (merge refused when the removed side  duplicates  labelled     all-pairs   of the five
loses ...)                                  found       wrong left   right       prevented
==========================================  ==========  ===========  ==========  =============
nothing (classes above only)                844         1            822         -
any content word                            427         0            420         3
more than one content word                  596         0            584         3
more than two content words                 715         1            698         -
a number, a name or its negation            655         1            639         2
any of those, or more than one word         541         0            530         -
a number                                    815         1            794         0
a name (tool, proper noun, code span)       680         1            663         1
a code span                                 813         1            793         1
its negation (shipped, ``kept_facts="g"``)  838         1            816         1
==========================================  ==========  ===========  ==========  =============

Word containment costs 129 to 417 right merges (duplicate recall mean .576 -> .487 to .294) for
at most three of five unseen wrong merges: not shipped. The negation guard costs six labelled
duplicates ("All timestamps in the DB are stored in UTC" / "... as UTC in Postgres, never local
time", "GH mirror is RO" / "read-only": restatements with a negation on one side), and in the
all-pairs check refuses two wrong merges of classes no one labelled ("Laravel sessions are
stored in Redis, not in the database" / "Redis is the Laravel queue backend", a Japanese PCI DSS
logging rule / "PCI DSS awareness training is mandatory every year") besides six right ones; at
the cv tool's price (a wrong merge costs twenty right proposals) it ships. Held out
(``tools/consolidate_cv.py --all-pairs``, every fold's choice identical before and after),
main f782f19 -> this round over the same twenty-three authors: authors 1-3, 5-8, 11, 12, 14, 15,
18, 20, 21 unchanged; duplicate recall author 4 .783 -> .767, 9 .533 -> .511, 10 .567 -> .550,
13 .567 -> .550, 16 .683 -> .667, 17 .533 -> .517 (the negation guard); author 19
contradiction .833 / .750 -> .852 / .767; author 22 duplicate precision .917 -> 1.000,
contradiction .778 / .700 -> .782 / .717, wrong merges 3 -> 0; author 23 .929 -> 1.000, .780 /
.533 -> .773 / .567, wrong merges 2 -> 0. Means: duplicate precision .993 -> 1.000 (worst .917
-> 1.000), recall .576 -> .572 (worst .350), contradiction precision .849 -> .849 (worst .778 ->
.773), recall .699 -> .702 (worst .433), wrong merges 5 -> 0. All pairs: wrong merges 4 -> 0
(the read-only, Italian, Vietnamese and French pairs), right merges 823 -> 816, merges no label
judges 442 -> 432, contradictions 6,140 -> 6,179. Pinned by
``tests/test_consolidate_train78_mends.py`` (15 pairs through ``consolidate --json`` and
``--apply``, 11 failing on main); two pinned duplicates the guard now keeps apart are strict
xfails naming it. Left: a Swedish rule for every P1 alarm against "Larmet `DiskFull`" merges
(the definite "larmet" is not read as "larm"; "varje", now a quantifier, is no longer a word
that kept them apart); a merge across ranks still keeps the higher-ranked side even when the
other says more.

Round 23 (ck/kdet22), after the first measurement of blind_pairs16 and blind_pairs17 (so their
later figures are tuning figures): ten wrong merges the two sets showed, given in the brief as
pairs (the sets themselves never read), closed as classes in ``freshness.opposites``, consulted
only on a pair already found a duplicate (``relations._told_apart``): opposite states (on/off,
"ON" in capitals or closing a clause; enabled/disabled; sync/async, queued; encrypted/plain
text, "en clair", "Klartext"; kept/removed, "se mantienen"/"se eliminan"; allowed/forbidden;
public/private; English, French, Spanish, German, Italian, Portuguese, Polish), each flipped by
a negation or "rather than" within three words of its clause and left unread after "only"; a
colour or tier each side names and the other never does (eleven colours in nine languages,
bronze to platinum); two products after one capitalised head noun whose first names differ and
are no short form of each other ("Azure Key Vault" / "HashiCorp Vault", not "GitHub Actions" /
"GH Actions"); the one value each side lacks, one extending the other ("AA"/"AAA",
"v2"/"v2.1"; not "8"/"8.0", not "2.7" among other versions): each a contradiction; a Welsh
negation ("Dydyn ... ddim/byth", "Dyw", "Nid") on one side only: a contradiction; a rule for
every member ("every", "cada", "すべて", "全て", "所有", "모든"...) against a dated event or a
member named in a bracket by the class right after the quantifier ("The 2024-02-14 outage
(P1)", "ラベル印刷サービス（Cloud Run）"): no pair. Measured with the shipped limits
(``tools/consolidate_cv.py --current`` and ``--current --all-pairs --show``, main 2e4fbed ->
this round): every author's line identical (no labelled duplicate lost, none gained; held out,
``tools/consolidate_cv.py``, every line and every fold's choice identical too), and the
all-pairs output identical line for line (wrong merges 0, right merges and merges no label
judges unchanged, no merge lost): the classes fire on none of the twenty-three authors' merges.
Before the guards were narrowed they would have lost ten labelled duplicates ("quarantined, not
deleted" / "isolated rather than removed", "MySQL 8.0" / "MySQL 8", "2.7" / "2.7.3", "22:00" /
"0 nodes", "GitHub Actions" / "GH Actions", "MS Graph" / "Microsoft Graph", a BullMQ aside, a
Korean aside, "(off by default)" after "all"): the narrowing above is what each one taught.
Pinned by ``tests/test_consolidate_round22_classes.py`` (18 pairs through ``consolidate
--json`` and ``--apply``, 14 failing on main, 4 duplicates that must still merge).

Round 24 (ck/kdet23), twenty-six authors: blind_pairs16 and blind_pairs17 joined the cv tool as
authors 24 and 25, train_pairs9 as author 26 after its first measurement (``FIRST_TRAIN9.md``,
one wrong merge). Closed by class, each pinned through ``consolidate --json`` / ``--apply`` in
``tests/test_consolidate_round24.py`` (22 pairs, 14 failing on main): two entries worded alike
but for one part of at most four words, each part naming a proper name the other never uses in
any case ending ("Sovelluksen A/B-testit tehdään Optimizelyllä." / "... Unleashin
varianteilla.", its Italian twin): a contradiction (``opposites.other_names``); a quantified
compound ending in a class noun ("Varje P1-larm") is a rule for every member, and "larmet" is
"larm" (``WORDS_ABROAD``: "alert"), so "Larmet `DiskFull` är P1" is one member, no pair (round
22's left-over); "RO" is read-only (round 22's strict xfail on "GL mirror is RO" now passes);
read in train_pairs9's all-pairs check, a shorter entry whose value with a unit the longer never
states is no copy of the longer's first clause ("The image-resizing Lambda timeout is 15 s." /
"... runs with 1024 MB of memory because ...", ``_values_lost``) and two entries each narrowed
by a scope the other never names ("Fastly TTL for section fronts is 60 seconds" / "... for the
homepage ...", ``_own_scopes``) are never merged. Duplicate recall: rates of requests in other
languages' forms ("600 peticions per minut", "5 peticiones por segundo" = "300 ... por minuto"),
times of day with a dot after a clock word ("klo 03.00", "alle 02.30"), initialisms of
hyphenated terms without their articles ("Hardware-in-the-loop" HIL). Decided: a merge across
files of different rank whose lower-ranked copy is the one with more detail removes nothing
unasked (the ADR is a decision record, the detail the person's); it is shown as a duplicate with
no keep/remove, to be resolved with ``--keep FILE:LINE``. In this bench's layout
(``patterns.md`` against ``active-context.md``) 125 of the 924 duplicate proposals over every
set are now held that way (799 still merged); the figures here count proposals, so they do not
move.

Labelled pairs (``relate`` on every pair of every set, main 8cec46f -> this round): 4
predictions changed, all to the label (the Finnish wrong merge now a contradiction; "GH mirror
is RO" / "read-only" and the HIL pair now duplicates; the Catalan rate pair from a false
contradiction to a duplicate), none lost. All-pairs check (``tools/consolidate_cv.py --current
--all-pairs --show``, twenty-six files): wrong merges 1 -> 0, right merges 903 -> 906, merges no
label judges 522 -> 519 (the three gone read wrong: two Lambda timeouts merged into a memory
note, one pair of TTLs for two scopes), contradictions 7,063 -> 7,071 (across pairs 5,815 -> 5,821:
entries no longer merged meet others, e.g. the Lambda timeout against "render services are
deployed on AWS ECS Fargate", read false). Held out (``tools/consolidate_cv.py``, every fold's
choice identical, main -> this round): authors 1-9, 11-22, 24, 25 unchanged; author 10 duplicate
recall .550 -> .567; author 23 .433 -> .450; author 26 duplicate .966 / .467 -> 1.000 / .483,
contradiction .809 / .633 -> .830 / .650, wrong merges 1 -> 0. Means: duplicate precision .999
-> 1.000 (worst .966 -> 1.000), recall .5646 -> .5665 (worst .350), contradiction precision
.8456 -> .8464 (worst .773), recall .6979 -> .6985 (worst .433), wrong merges 1 -> 0. Through
this bench, after: blind16 1.000 / .500, .818 / .600; blind17 1.000 / .550, .818 / .750; train9
1.000 / .483, .830 / .650; 0 wrong deletions each. Measured and not shipped: a merge on the same
names refused when both entries add words of their own, three or more between them (25 labelled
duplicates lost); a contained detail refused when only the shorter entry quantifies (no labelled
change, but right merges traded for false contradictions in the all-pairs check). Left alone
(all-pairs merges no label judges, train_pairs9): "Feature flags default to on when Unleash is
unreachable" with "Unleash toggle names must be lowercase kebab-case" and with "Feature flags
are managed in Unleash" (the same names, each side adding its own two or three words), "All
articles are metered by Piano" with "Piano meter: 5 free articles a month", "On-call paging goes
through PagerDuty" with a long runbook step. Targets on held-out authors still not met:
duplicate recall (mean .567), contradiction precision (14 of 26 authors below .85) and recall
(12 below .70).

Round 25 (ck/kdet24), AFTER the first measurement of blind_pairs18 and blind_pairs19 (their
later figures are tuning figures): blind_pairs19's three wrong merges, given in the brief as
pairs (the sets never opened), closed as classes. A rule for every member and one member named
by its number, ticket key or release ("PR #4812 ... was approved by Ana" / "Every PR needs an
approval before merge"; "Build 9120", "Incident 4411", "PAY-1432", "v4.2.0", "Der Build 7731";
not "SHA-256", "UTF-8"): no pair (``opposites.member_of_rule``, beside round 23's dated event).
An entry announcing itself an exception ("this is the only exception", "the one exception is",
"unless", "a meno che", "exceção", "Ausnahme", "例外"; a clause opening with a subset, "who",
"que", "ohne", "if", that gets something "instead", "en su lugar", "stattdessen"; not "except",
which also means "but", nor "use X instead" with no subset, the rule itself) against a plain
rule: no pair (``relations._states_exception``). Two entries naming one product, one speaking
of a part of it ("Keycloak's customer realm requires e-mail verification ...", "o realm de
clientes do Keycloak") and the other opening with a subject of its own that uses it, two words
of its own at least ("The portal authenticates customers through Keycloak"): two facts, no
merge on their names (``relations._own_subjects``). Pinned by
``tests/test_consolidate_round25.py`` (15 pairs through ``consolidate --json`` / ``--apply`` in
English, Spanish, Portuguese, German and Italian; the 12 never-merged pairs fail on main, 3
duplicates must still merge). Measured with the shipped limits, main 07aad88 -> this round:
``relate`` on every labelled pair of the twenty-six authors (blind_pairs18/19 left out):
identical, no prediction changed; ``tools/consolidate_cv.py --current``: every author's line
identical; ``--current --all-pairs --show``: identical line for line (wrong merges 0, right
merges 907, merges no label judges 519, contradictions 7,066); held out
(``tools/consolidate_cv.py``): identical, every author's line and every fold's choice. A first
try, broader, lost sixteen labelled duplicates and was narrowed: "instead" read as an exception
everywhere ("use the vault instead"), "except" as one ("mask everything except the last six
characters"), the
exception check run before round 23's classes (a Welsh contradiction lost), and any two
entries each opening with a subject of its own ("Mockups are delivered as Figma links" /
"Design drafts go to the client as a link to the Figma file"). Left: "Kunden ohne ..." and
"Les clients sans ..." with "instead" read as a contradiction ("ohne", "sans" negate), not a
merge; Chinese and Korean "instead" ("改为", "대신") are not read.

Round 26 (ck/kdet25), twenty-nine authors: blind_pairs18 and blind_pairs19 joined the cv tool as
authors 27 and 28, train_pairs10 (a municipal permits and open-data team; Portuguese, Korean,
Turkish, Czech and Hebrew bullets) as author 29 after one measurement of main ca50aae before its
pairs were read (``FIRST_TRAIN10.md``: duplicate 1.000 / .483, contradiction .848 / .650, 0
wrong merges). The 824 labelled duplicates main misses over the twenty-nine authors, sorted by
class (rules applied in this order to each pair; causes as ``--misses`` gives them):

====================================  ======  ========  ===========  ========  ==========
class                                 missed  not       read as a    sign of   too few
                                              compared  contradict.  conflict  words
====================================  ======  ========  ===========  ========  ==========
synonyms (few concepts shared)        181     69        6            50        56
abbreviations and expansions          165     38        7            44        76
extra detail: a value on one side     134     24        12           51        47
extra detail (1.8 times as long)      106     15        8            38        45
formatting, code spans                63      0         8            24        31
one side in another language          49      18        0            16        15
number and unit forms (both values)   48      8         5            16        19
reordered clauses (half shared)       40      0         11           17        12
both sides in another language        28      7         2            3         16
paraphrase, words in other forms      10      3         0            2         5
====================================  ======  ========  ===========  ========  ==========

Of the 253 held back by a sign of conflict, the first guard that fires (with the similarity bars
lifted): a negation governing what the other names 76, the negation a merge would drop
(``kept_facts``) 54, a permission or exception on one side 42, fewer than two concepts shared
22, ``_apart`` 11, a rule and one case of it 10, rival tools of two jobs 7, a superseding note
7, others 24; with the bars back in place only 5 of the 54 would merge without the negation
guard. Worked down by size where a class generalises: number and unit forms (a whole number of
years is twelve months of 30 days, so "1 year" = "12 months" = "365 days" and "three years" =
"36 mois"; counts with spaces, "10 000", are one number when the last group ends in 00 or the
first has at most two digits, so "500 503" stays two codes; "one million"; "a quarter of an
hour"; "bytes"; an amount's sign, code or word, "€5,000", "EUR 5000", "5000 euros", "100 Kč", is
written "5000 EUR" and its currency is its unit, two currencies never merging,
``_currencies_apart``; durations in Czech, Turkish, Hebrew and Korean; "Priority-one" and
"priority 2" are P1 and P2), a table of technical words that are one concept
(``freshness/synonyms.py``, its own tests in ``tests/test_consolidate_synonyms.py``: booking and
reservation, link and URL, answer and reply, favour and prefer, whoever holds the pager and
on-call, refund and reembolso/vrácení/iade/환불), and a product both entries name with every value
alike, each with its unit, counted as a second subject shared (``_named_value``: "Резервные
копии PostgreSQL хранятся 35 дней" / "We keep the Postgres backups for five weeks"); every merge
still loses nothing: two things of one product opening alike with a subject each of its own
never merge on an agreeing value (``_subjects_of_one_name``: "Postgres backups are kept 35 days"
/ "Postgres WAL archives ...", which main merged). Labelled pairs (``relate`` on every pair of
the twenty-nine authors, main -> this round): 11 predictions changed, none lost: 8 duplicates
found (a pager rotation's handover against the on-call one, "a quarter of an hour" against "15
minutes" four times, "priority-one" against "P1" three times, the Russian Postgres backups, the
French TimescaleDB retention in "36 mois") and 3 false contradictions on labelled duplicates
gone ("two years" / "24 months", "€5,000" / "5000 euros", "answer within 1 business day" /
"reply within one working day"). Held out (``tools/consolidate_cv.py --all-pairs``, main
ca50aae's detector and this round's over the same twenty-nine authors; every fold's choice
identical before and after; in brackets main's figure, authors 1-13, 16-18, 23, 24, 26 and 27
unchanged):

====================  ==============================  ==============================  ============
held-out author       duplicate P / R                 contradiction P / R             wrong merges
====================  ==============================  ==============================  ============
author 14             1.000 / 0.483 (same)            0.800 / 0.600 (0.783 / 0.600)   0 (0)
author 15             1.000 / 0.533 (1.000 / 0.517)   0.885 / 0.767 (same)            0 (0)
author 19             1.000 / 0.683 (1.000 / 0.667)   0.868 / 0.767 (0.852 / 0.767)   0 (0)
author 20             1.000 / 0.550 (same)            0.843 / 0.717 (0.827 / 0.717)   0 (0)
author 21             1.000 / 0.567 (1.000 / 0.550)   0.812 / 0.433 (same)            0 (0)
author 22             1.000 / 0.567 (1.000 / 0.550)   0.811 / 0.717 (0.782 / 0.717)   0 (0)
author 25             1.000 / 0.567 (1.000 / 0.550)   0.818 / 0.750 (same)            0 (0)
author 28             1.000 / 0.483 (1.000 / 0.450)   0.804 / 0.683 (same)            0 (0)
author 29             1.000 / 0.500 (1.000 / 0.483)   0.848 / 0.650 (same)            0 (0)
mean                  1.000 / .5596 (1.000 / .5550) 0.8469 / 0.6964 (0.8442 / 0.6964)  0 (0)
worst                 1.000 / 0.350 (1.000 / 0.350)  0.773 / 0.433 (0.773 / 0.433)
====================  ==============================  ==============================  ============

All-pairs check (``tools/consolidate_cv.py --current --all-pairs --show``, twenty-nine files,
main -> this round): wrong merges 0 -> 0, right merges 982 -> 990, merges no label judges 638 ->
639 (the one new: two of one rule's three copies re-paired, "Meter readings are retained in
TimescaleDB for 36 months" / "... stay in TimescaleDB for three years"), contradictions 7,862 ->
7,817 (across pairs 6,492 -> 6,453). ``consolidate``'s planner (``consolidate.find``) on 10,000
entries (the distinct bullets of every labelled set, twenty files of 500): 59.3 s of CPU on
main, 60.6 s now (wall 565 s and 647 s on a machine loaded by other jobs: CPU is the figure); at
4,000 entries, alternated, main 21.0 and 21.4 s, this round 21.2 s: no slower within the noise.
This layout compares far more pairs than the 10,000-entry folder of the previous stop's 28 s;
the two are not one measurement. Tried and left out: "Europe"/"European"/"EU" as one concept (no
duplicate found, three false contradictions: "may not leave European regions" / "must stay in
the EU region" read as opposed); "respond" in the reply group (lost a Spanish "responder"
duplicate its stem had met); "a second approver" read as no duration, then as the count 2 (it
let "Flag changes ... need a second person to approve in ConfigCat" merge with "Every ConfigCat
flag needs a named owner" in the all-pairs check, then read "one more camera" / "a second
camera" as 1 against 2): main's reading kept; the two-subjects guard on the same-names bar too
(lost an Unleash duplicate and, since opposite states are read only on a found duplicate, a
contradiction). Left alone: "Redis sessions expire after 30 minutes" / "Redis cache keys expire
after 30 minutes" still merge on the same-names bar (main too); "100 Kč" / "100 CZK" is read a
contradiction by ``opposites.other_names`` on the raw text. Pinned by
``tests/test_consolidate_round26.py`` (13 pairs through ``consolidate --json`` / ``--apply``, 12
failing on main). Duplicate recall stays far from .70: most misses are synonyms and extra detail
that word overlap cannot see.
Round 27 (ck/kdet26, contradictions in other words; written on main ee9b1823 with blind_pairs18
and blind_pairs19 as cv authors 27 and 28, then measured again after merging round 26,
twenty-nine authors). Error table under the shipped limits, main ee9b1823, every labelled pair
of the 28 authors (1,779 contradictions: 1,239 found, 540 missed, 228 false), by the writers'
own kind and whether both sides are English. Missed: a shift of vocabulary (two ways or values
said in other words: "write-through" / "only populate Redis lazily", "UUIDv4" / "sequential
numeric IDs") 197 + 37 in or across another language; opposite verbs or adjectives 86 + 20; a
value or version in other words 44 + 19; a tool replaced by another 38 + 14; superseded by a
date 31 + 16; implicit 29 + 2; a negation's scope or polarity 7 + 0 (432 + 108). False: two
scoped values (two apps, regions, plans, teams, devices, components) 51 + 32; a duplicate read
as a contradiction (paraphrase, reordered, extra detail, synonyms, abbreviation) 50 + 6; a rule
and an exception 12 + 7; complementary facts 15 + 6; a general rule and an agreeing instance 12
+ 6; same topic, homonym or shared word 28 + 3 (168 + 60). The class shipped (opposite ways said
far apart) is 11 of the 540 misses, read across the opposite and vocabulary-shift kinds.
Shipped: two entries saying one thing is done in opposite ways (``opposites.opposite_ways``:
automatic / manual, UTC / local or wall-clock time, shown / hidden, required / optional, each
said plainly, no negation, restriction or "without" near it; else the opposite states read
before, a negation flipping them), read for a pair found neither alike nor conflicting
(``relations._opposite_ways``: a contradiction when the entries share two concepts besides those
words and neither states an exception, a reason, a scope of its own or another year) and for a
pair found alike (a contradiction, no merge). ``Limits.opposite_ways`` is in the cv grid. Held
out (the fold's choice of ``opposite_ways`` on the other authors, the other limits at their
shipped values: the full grid did not finish on the shared machine), on main 16cde589 with this
round merged, twenty-nine authors: every fold chooses it on; contradiction precision mean .8469
-> .8483, recall .6963 -> .7025 (pooled 1,278 / 1,508 -> 1,289 / 1,519 of 1,839), duplicate
figures and wrong merges (0) unchanged. Per author, contradiction P / R before -> after: author
7 .877 / .633 -> .879 / .644; 17 .913 / .700 -> .915 / .717; 20 .843 / .717 -> .846 / .733; 21
.812 / .433 -> .829 / .483; 24 .822 / .617 -> .826 / .633; 25 .818 / .750 -> .821 / .767; 27
.808 / .700 -> .815 / .733; 28 .804 / .683 -> .808 / .700; the other twenty-one identical (on
ee9b1823 with twenty-eight authors the same eight moved the same way: means .8440 -> .8455,
.6980 -> .7043). The eleven proposals gained are all labelled contradictions (fuzz job issues
opened automatically / triaged manually; event, archive, dispatch and Spanner timestamps UTC /
local wall-clock time; Stripe portal enabled / self-service cancellation disabled; migrations "a
mano" / "automáticamente"; appointments never deleted / hard-deleted; OpenSearch no public
endpoint / reachable from the public internet; supplier PNRs hidden / shown to customers;
Flagsmith flags fall back to OFF / default to ON); none lost, no proposal of another kind
changed. All pairs (``--all-pairs`` under the shipped limits, 29 files, merged): wrong merges 0
-> 0, right merges 990 -> 990, merges no label judges 639 -> 639, contradictions 7,817 -> 7,830
(across pairs 6,453 -> 6,458: two read right, "All datetimes persisted to Postgres are UTC" /
"Store timestamps in local server time" and Slurm accounts created automatically / by hand;
three read false, a page cache disabled against plugin auto-updates enabled on one site, Flipper
flags kept permanently against one flag removed, emergency-off toggles created "on" against a
runbook's `FLIPT_FALLBACK=off`; on ee9b1823, twenty-eight files: 7,602 -> 7,614, the first
four). Probes of no author (``tests/test_consolidate_round27.py``, through ``consolidate
--json`` / ``--apply``): six pairs fail on main, three of them merged there ("Die Zertifikate
des Ingress werden automatisch erneuert." / "... manuell erneuert.", the Spanish backups
restored "automáticamente" / "manualmente", supplier codes "hidden from" / "displayed to"
shoppers: ``--apply`` deleted a rule), four pairs stay apart. Measured and left out: pushed /
pulled (one labelled contradiction gained, three false ones across pairs: a gateway polls meters
and pushes events to Kafka); the ways without the shared-subject bar (with pushed / pulled: 95
contradictions more across pairs, nearly all false: "Send emails synchronously" against "All
async work is queued"); the ways for pairs the candidate filter never compares (10 labelled
contradictions, 12 compatible rule-and-exception pairs); a veto on value conflicts between
entries each opening with a modifier of its own before a shared head noun ("Booking-service JVM
heap is 4 GB" / "Notification-service ...": 50 false contradictions gone, 54 right ones lost).
Through this bench, after: blind18 duplicate 1.000 / .417, contradiction .815 / .733; blind19
1.000 / .450, .808 / .700; 0 wrong deletions each. Targets on held-out authors still not met:
contradiction precision (mean .848; 17 of 29 authors below .85) and recall (13 below .70).
Round 28 (ck/kmend, two wrong merges mended by class). Written AFTER the first measurement of
blind_pairs20 and blind_pairs21 (on the previous stop's and this stop's main), which found one
wrong merge each; their figures from here on are tuning figures, not blind ones. Only the two
merged pairs were read, not the sets. Classes closed: (1) an exception stated as the one case a
rule lets through ("Hotfixes for a P1 incident are the only Friday deploys allowed." / "Never
deploy on Fridays."): ``relations._ONLY_PERMITTED`` ("only", "sole", "seuls", "nur", "einzigen",
"únicos", "solo", "tylko", "jedyne" with "allowed", "permitted", "autorisés", "erlaubt",
"permitidos", "dozwolone" in one clause; "唯一...允许", "のみ...許可", "만 허용") joins
``_states_exception``: never merged with the plain rule. The modals ("may", "darf") and any
word opening "permit" were tried first and lost two labelled duplicates (author 19: "... only
the final 6 characters may be shown" / "Never log full VINs; mask everything except the last
six characters"; author 29: "Only the permits lead and the city clerk may approve ..." / "...
by the city clerk or the permits lead, nobody else", the noun "permits" read as a permission)
and were left out. (2) hidden against included
("... diagnoses are hidden from the dashboard summary view" / "... are included in ..."):
round 27's shown / hidden way merged it because "included" was no side; ``opposite_ways`` now
reads included, includes, listed (inclus, enthalten, aufgeführt, incluidos, uwzględnione, 表示され,
显示) as shown and excluded, excludes, omitted, left out (exclus, ausgeschlossen, excluidos,
wykluczone, 非表示, 隐藏) as hidden. Cross-validated (``tools/consolidate_cv.py --current
--all-pairs --show``, 29 authors, main 5a9146b1 -> this round): per-author duplicate figures
identical, wrong merges 0 -> 0 everywhere; contradiction author 28 .808 / .700 -> .811 / .717
(gained the labelled "Meter readings ... `estimated` are shown on invoices" / "Estimated
readings are excluded from invoices"), the other 28 identical. All pairs: wrong merges 0 -> 0,
right merges unchanged per author; one merge no label judges lost (author 29: "Production
releases must be finished before 5 pm on a weekday; no after-hours deploys." / "Production
deploys are only allowed before 17:00 on weekdays.", read by eye the same rule: a duplicate
missed, no rule deleted), contradictions author 28 264 -> 265 (the labelled one), author 29 261
-> 262 (across pairs, false: "Production deploys are only allowed before 17:00 on weekdays." /
"Never deploy to production on Fridays."). Probes of no author
(``tests/test_consolidate_round28.py``, through ``consolidate --json`` / ``--apply``): eight
pairs merged on main (three exceptions in English, five hidden / included pairs in English,
French, German, Spanish), five exceptions abroad and one same-side omission pinned. Left alone:
the exceptions abroad ("Nur signierte Release-Tags dürfen ..." / "Niemals ... pushen", "紧急修复
是周五唯一允许的部署。" / "周五不部署。") are read as contradictions, on main too (no merge).

Usage: ``python bench/consolidate_quality.py [--set NAME|both|all] [--tiny] [--out PATH]``
(``NAME``: tuning, blind, train2, blind2, train3, blind3, train4, blind4, train5, train6 to
train10, blind5, blind6 to blind21 or a new blindN; default ``all``: every set found).
``--tiny`` runs the first 12 pairs of each seen set (for CI) and no new blind set. Prints a
table per set and writes ``bench/results/consolidate_quality.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
DATA = ROOT / "tests" / "data" / "consolidate"
SETS = {
    "tuning": DATA / "tuning_pairs.jsonl",
    "blind": DATA / "blind_pairs.jsonl",
    "train2": DATA / "train_pairs2.jsonl",
    "blind2": DATA / "blind_pairs2.jsonl",  # measured once (FIRST_BLIND_PAIRS2.md): now seen
    "train3": DATA / "train_pairs3.jsonl",  # measured once (FIRST_TRAIN3.md): training data
    "blind3": DATA / "blind_pairs3.jsonl",  # measured once (FIRST_BLIND_PAIRS3.md): now seen
    "train4": DATA / "train_pairs4.jsonl",  # measured once (FIRST_TRAIN4.md): training data
    "blind4": DATA / "blind_pairs4.jsonl",  # measured once (FIRST_BLIND_PAIRS4.md): now seen
    "train5": DATA / "train_pairs5.jsonl",  # measured once (FIRST_TRAIN5.md): training data
    "train6": DATA / "train_pairs6.jsonl",  # measured once (FIRST_TRAIN6.md): training data
    "train7": DATA / "train_pairs7.jsonl",  # measured once (FIRST_TRAIN7.md): training data
    "train8": DATA / "train_pairs8.jsonl",  # measured once (FIRST_TRAIN8.md): training data
    "blind5": DATA / "blind_pairs5.jsonl",  # measured once (FIRST_BLIND_PAIRS5.md): now seen
    "blind6": DATA / "blind_pairs6.jsonl",  # measured once (FIRST_BLIND_PAIRS6.md): now seen
    "blind7": DATA / "blind_pairs7.jsonl",  # measured once (FIRST_BLIND_PAIRS7.md): now seen
    "blind8": DATA / "blind_pairs8.jsonl",  # measured once (FIRST_BLIND_PAIRS8.md): now seen
    "blind9": DATA / "blind_pairs9.jsonl",  # measured once (FIRST_BLIND_PAIRS9.md): now seen
    "blind10": DATA / "blind_pairs10.jsonl",  # measured once (FIRST_BLIND_PAIRS10.md): now seen
    "blind11": DATA / "blind_pairs11.jsonl",  # measured once (FIRST_BLIND_PAIRS11.md): now seen
    "blind12": DATA / "blind_pairs12.jsonl",  # measured once (FIRST_BLIND_PAIRS12.md): now seen
    "blind13": DATA / "blind_pairs13.jsonl",  # measured once (FIRST_BLIND_PAIRS13.md): now seen
    "blind14": DATA / "blind_pairs14.jsonl",  # measured once (FIRST_BLIND_PAIRS14.md): now seen
    "blind15": DATA / "blind_pairs15.jsonl",  # measured once (FIRST_BLIND_PAIRS15.md): now seen
    "blind16": DATA / "blind_pairs16.jsonl",  # measured once (FIRST_BLIND_PAIRS16.md): now seen
    "blind17": DATA / "blind_pairs17.jsonl",  # measured once (FIRST_BLIND_PAIRS17.md): now seen
    "train9": DATA / "train_pairs9.jsonl",  # measured once before it was read (FIRST_TRAIN9.md)
    "blind18": DATA / "blind_pairs18.jsonl",  # measured once (FIRST_BLIND_PAIRS18.md): now seen
    "blind19": DATA / "blind_pairs19.jsonl",  # measured once (FIRST_BLIND_PAIRS19.md): now seen
    "train10": DATA / "train_pairs10.jsonl",  # measured once before it was read (FIRST_TRAIN10.md)
    "blind20": DATA / "blind_pairs20.jsonl",  # measured once (FIRST_BLIND_PAIRS20.md): now seen
    "blind21": DATA / "blind_pairs21.jsonl",  # measured once (FIRST_BLIND_PAIRS21.md): now seen
}
SEEN_BLIND = 21  # blind_pairs<N> up to this number have been measured (FIRST_BLIND_PAIRS21.md)
_NEW_BLIND = re.compile(r"^blind_pairs(\d+)\.jsonl$")
RESULTS = ROOT / "bench" / "results" / "consolidate_quality.json"
KINDS = ("duplicate", "contradiction")
TINY = 12
TARGETS = {
    "wrong_deletions": 0,
    "contradiction_precision": 0.85,
    "contradiction_recall": 0.70,
    "duplicate_precision": 0.90,
    "duplicate_recall": 0.70,
}


def new_blind_sets() -> dict[str, Path]:
    """Blind sets written after the detector was last tuned (``blind_pairs<N>.jsonl``, N past
    :data:`SEEN_BLIND`):
    never read while tuning; their figures are reported apart as a first blind measurement."""
    found = {}
    for path in sorted(DATA.glob("blind_pairs*.jsonl")):
        match = _NEW_BLIND.match(path.name)
        if match and int(match.group(1)) > SEEN_BLIND:
            found[f"blind{int(match.group(1))}"] = path
    return found


def load_pairs(path: Path, limit: int | None = None) -> list[dict[str, str]]:
    """The labelled pairs of one set (the first ``limit`` with ``--tiny``)."""
    pairs = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                pairs.append(json.loads(line))
    return pairs[:limit] if limit else pairs


def classify(a: str, b: str, workdir: Path) -> tuple[str, bool]:
    """What the planner proposes for one pair: ``(kind or "none", would --apply remove one)``."""
    from conkeeper.services.upkeep.freshness import consolidate

    memory = workdir / ".claude" / "memory"
    memory.mkdir(parents=True)
    older = memory / "patterns.md"
    older.write_text(f"# Patterns\n\n- {a}\n", encoding="utf-8")
    (memory / "active-context.md").write_text(f"# Active Context\n\n- {b}\n", encoding="utf-8")
    stamp = time.time() - 3600
    os.utime(older, (stamp, stamp))
    result = consolidate.plan(workdir, memory)
    kind = result.proposals[0].kind if result.proposals else "none"
    return kind, bool(result.new_text)


def score(pairs: list[dict[str, str]]) -> dict[str, object]:
    """Precision, recall, wrong deletions and the confusion table for one set."""
    confusion: dict[str, dict[str, int]] = {}
    wrong_merges = auto_contradiction_deletions = 0
    mistakes: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="ck-consolidate-") as tmp:
        for number, pair in enumerate(pairs):
            kind, removes = classify(pair["a"], pair["b"], Path(tmp) / str(number))
            label = pair["label"]
            row = confusion.setdefault(label, {})
            row[kind] = row.get(kind, 0) + 1
            if removes and label != "duplicate":
                if kind == "duplicate":
                    wrong_merges += 1
                else:
                    auto_contradiction_deletions += 1
            if (label in KINDS or kind in KINDS) and kind != label:
                mistakes.append({"label": label, "got": kind, "kind": pair.get("kind", "")})
    figures: dict[str, object] = {"pairs": len(pairs), "confusion": confusion}
    for kind in KINDS:
        predicted = sum(row.get(kind, 0) for row in confusion.values())
        actual = sum(confusion.get(kind, {}).values())
        hits = confusion.get(kind, {}).get(kind, 0)
        figures[f"{kind}_precision"] = round(hits / predicted, 3) if predicted else None
        figures[f"{kind}_recall"] = round(hits / actual, 3) if actual else None
        figures[f"{kind}_predicted"] = predicted
        figures[f"{kind}_labelled"] = actual
    figures["wrong_merges"] = wrong_merges
    figures["auto_contradiction_deletions"] = auto_contradiction_deletions
    figures["wrong_deletions"] = wrong_merges + auto_contradiction_deletions
    figures["mistakes_by_kind"] = _count_mistakes(mistakes)
    return figures


def _count_mistakes(mistakes: list[dict[str, str]]) -> dict[str, int]:
    """Mistakes counted by ``label -> got`` only (no pair text: the blind set stays unread)."""
    counts: dict[str, int] = {}
    for item in mistakes:
        key = f"{item['label']}->{item['got']}"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def _fmt(value: object) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def print_table(name: str, figures: dict[str, object]) -> None:
    """One block per set: the figures against their targets."""
    print(f"\n== {name} set: {figures['pairs']} pairs")
    print(f"{'figure':28} {'value':>8} {'target':>8}")
    for key in (
        "duplicate_precision",
        "duplicate_recall",
        "contradiction_precision",
        "contradiction_recall",
        "wrong_merges",
        "auto_contradiction_deletions",
        "wrong_deletions",
    ):
        target = TARGETS.get(key)
        print(f"{key:28} {_fmt(figures[key]):>8} {_fmt(target):>8}")
    print("mistakes (label->got):", json.dumps(figures["mistakes_by_kind"]))


def main(argv: list[str] | None = None) -> int:
    """Run the chosen sets, print their tables, write the JSON."""
    fresh = new_blind_sets()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=(*SETS, *fresh, "both", "all"), default="all")
    parser.add_argument("--tiny", action="store_true", help=f"first {TINY} pairs of each set")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    seen = [name for name in SETS if SETS[name].exists()]
    if args.set == "both":
        names = ["tuning", "blind"]
    elif args.set == "all":  # a new blind set is never cut short by --tiny: it is measured whole
        names = seen + ([] if args.tiny else list(fresh))
    else:
        names = [args.set]
    report: dict[str, object] = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "tiny": args.tiny,
        "targets": TARGETS,
        "first_blind": [name for name in names if name in fresh],
    }
    for name in names:
        path = fresh.get(name) or SETS[name]
        figures = score(load_pairs(path, TINY if args.tiny else None))
        report[name] = figures
        if name in fresh:
            print(f"\n#### FIRST BLIND MEASUREMENT: {path.name} (never read while tuning)")
        print_table(name, figures)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
