"""Precision and recall of the correction/friction detector at each sensitivity.

Labelled sets (``{"text", "label"[, "split"]}``; label ``correction``, ``friction`` or
``null``), reported apart:

* the tuning corpus ``tests/data/corrections/corpus.jsonl``: every prompt the rules were written
  or tuned against (splits ``dev``, ``holdout``, ``holdout2``, ``tune-2026-11``); its figures
  are optimistic by construction;
* six former blind sets ``blind.jsonl`` .. ``blind6.jsonl``, each written and committed before
  it was first measured. After its first measurement each set's misses guided a tuning round,
  and all six are now training data of the learned scorer, so their figures below are NOT
  estimates for unseen prompts; the FIRST measurement of each was. Precision/recall, low then
  medium:

  ===  =====================  ==============================
  set  original detector      first measurement (unseen)
  ===  =====================  ==============================
  1    .885/.469  .906/.592   (the original detector)
  2    .909/.417  .857/.500   1.000/.583  .941/.667
  3    .889/.348  .900/.391   .968/.652  .969/.674
  4    .950/.404  .909/.426   .966/.596  .966/.596
  5    1.000/.400 .917/.489   .968/.667  .914/.711
  6    .941/.364  .909/.455   1.000/.568  .966/.636
  ===  =====================  ==============================

* blind sets 7 and 8 (131 and 129 prompts), written by helpers who saw no detector code and no
  labelled prompt, each committed before it was measured; never tuned or trained on. Measured
  (precision/recall, low then medium):

  ===  =====================================  ======================
  set  rules + model, first version            final detector
  ===  =====================================  ======================
  7    .944/.882  .945/.908 (first)           .957/.882  .958/.908
  8    .918/.836  .919/.851 (first)           .949/.836  .951/.866
  ===  =====================================  ======================

  (blind 7 with the rules alone, before the model: .945/.684 .950/.750.) The final detector's
  second pass was written without either set; it was told only that 3 of blind 7's 4 false
  positives came from the rules.
  Since issue 20 both sets are seen: they are tuning data and training data of the scorer.
* blind set 9 (434 prompts: 192 corrections/friction, 242 negatives with many hard negatives),
  written by a helper who saw no detector code, committed to main (8291b03) before it was
  measured. FIRST measurement, verbatim (2026-11-26 10:51:52 UTC, ``ck/learning`` at
  eb02c4e, ``--no-cv --skip none``; see ``tests/data/corrections/BLIND9_FIRST.md``)::

      level     FP rate precision  recall  label acc   tp   fp   fn  target
      low         0.095     0.876   0.844      0.870  162   23   30  FP<=2% R>=0.85: NOT met
      medium      0.128     0.845   0.880      0.876  169   31   23  FP<=4% R>=0.90: NOT met
      high        0.194     0.786   0.901      0.879  173   47   19  -

  (main's detector before issue 20 on the same set: low FP .161 R .802, medium FP .194
  R .839.) Later figures, after tuning on the other sets only, are listed apart in
  BLIND9_FIRST.md. Since issue 20's second round blind 9 is SEEN: its errors were read and
  guided the structural reading of prompts (``corrections/structure.py``); it is tuning data
  (not training data of the scorer). On it the detector measured, after that round, low FP
  .017 R .885, medium FP .029 R .906 (optimistic: designed from its errors).
* blind set 10 (461 prompts: 196 corrections/friction, 265 negatives), written by a helper who
  saw no detector code, merged into main (5131f96) and measured once before any further
  change. FIRST measurement, verbatim (2026-11-26 11:53:20 UTC, ``ck/corr2`` at 9a3584c,
  ``--no-cv --skip none``; see ``tests/data/corrections/BLIND10_FIRST.md``)::

      level     FP rate precision  recall  label acc   tp   fp   fn  target
      low         0.049     0.923   0.796      0.859  156   13   40  FP<=2% R>=0.85: NOT met
      medium      0.053     0.922   0.842      0.861  165   14   31  FP<=4% R>=0.90: NOT met
      high        0.113     0.849   0.862      0.864  169   30   27  -

  Later figures, after further tuning on blind 1-9 and the tuning sets only, are listed apart in
  BLIND10_FIRST.md (after one such round, af45fb9: low FP .042 R .816, medium FP .045
  R .847, still NOT met). Since issue 20's third round blind 10 is SEEN: its errors were read
  and guided general mechanisms (``structure.py``: sarcasm, open frustration, "should have",
  a subjectless omission, scope, overreach, "why did you ...?", informal typing; absolution,
  the user's own slip, git log lines, a new-work sentence), and it is training data of the
  scorer. Its figures below are optimistic from then on.
* ``train_extra4.jsonl`` (a new author, landed on main during round 3) is training data of
  the scorer; the rules were never tuned on it (its first figures are below).
* targets on unseen prompts (issue 20, :data:`TARGETS`): ``low`` FP rate <= 2 % with recall
  >= 0.85, ``medium`` FP rate <= 4 % with recall >= 0.90; the FP rate is false positives over
  negatives. Sets past :data:`SEEN_BLIND` are printed under "BLIND" with the targets; every
  set seen while tuning (the corpus, ``train_extra*.jsonl``, blind 1-10) under "TUNING".
* blind set 11 (478 prompts: 204 corrections/friction, 274 negatives), written by a helper who
  saw no detector code, kept on its own branch until ck/corr3 (leave-one-author-out selection
  over 15 authors) was merged, then measured once (2026-11-26 15:00 UTC, a2df112, ``--no-cv
  --skip none``; ``tests/data/corrections/BLIND11_FIRST.md``): low FP .029 recall .770, medium
  FP .040 recall .833, high FP .102 recall .936. Targets not met (medium FP met). Seen since
  (issue 20 round 4): its false positives were read and guided general mechanisms, and it is
  the 16th author of the scorer's training data, so its figures are optimistic from then on
  (after round 4: low FP .000 R .892, medium FP .004 R .936).
* blind set 12 (405 prompts: 175 corrections/friction, 230 negatives), written by a helper who
  saw no detector code, kept on its own branch until ck/corr4 (16 authors, blind 11 among them)
  was merged, then measured once (2026-11-26 15:23 UTC, c3f1258, ``--no-cv --skip none``;
  ``tests/data/corrections/BLIND12_FIRST.md``): low FP .022 recall .726, medium FP .030 recall
  .817, high FP .100 recall .897. Targets not met (medium FP met). Seen since (issue 20 round
  5): the 17th author of the scorer's training data; the rules were not tuned on it.
* ``train_extra5.jsonl`` (581 prompts: 286 corrections/friction, 184 of the corrections with no
  negation word, 20 in other languages; a new author, ``TRAIN_EXTRA5.md``) was measured once
  before anything was trained or tuned on it (2026-11-26 16:18 UTC, main's detector at
  40e297a; ``tests/data/corrections/TRAIN_EXTRA5_FIRST.md``): low FP .017 recall .524, medium
  FP .024 recall .643, high FP .098 recall .755. It is the scorer's 18th author since; the rules
  were not tuned on it.
* ``train_extra6.jsonl`` (569 prompts: 250 corrections/friction, ~156 of the 200 corrections
  with no negation word, ~31 % of the lines in twelve other languages; ``TRAIN_EXTRA6.md``) was
  measured once before anything was trained or tuned on it (2026-11-26 18:13 UTC, main's
  detector at 9e79bba; ``TRAIN_EXTRA6_FIRST.md``): low FP .019 recall .348, medium FP .038
  recall .424, high FP .103 recall .596. The scorer's 20th author since (blind 13 the 19th);
  the rules were not tuned on it, and round 6's features were not written from it.
* ``blind14.jsonl`` (409 prompts: a web agency, mobile developers, a data engineer and a
  student; ``BLIND14.md``) was measured once after round 6 (2026-11-26 19:11 UTC, f4d8f86;
  ``BLIND14_FIRST.md``): low FP .027 recall .688, medium FP .036 recall .796, high FP .103
  recall .892. Seen since; the scorer's 21st author in round 7.
* ``train_extra7.jsonl`` (564 prompts: 262 corrections/friction, ~87 % of the corrections with
  no negation word, 28 % of the lines in other languages; ``TRAIN_EXTRA7.md``) was measured
  once before anything was trained or tuned on it (2026-11-26 20:32 UTC, main's detector at
  3b919d6; ``TRAIN_EXTRA7_FIRST.md``): low FP .017 recall .508, medium FP .020 recall .599,
  high FP .093 recall .767. The scorer's 22nd author since; no feature was written from it.
* blind set 15 (412 prompts: 189 corrections/friction, 223 negatives; a game studio, a fintech
  backend, QA and a designer in a release week), written by a helper who saw no detector code,
  measured once at 21:43 UTC with round 7 (``BLIND15_FIRST.md``): low FP .022 recall .646,
  medium .022 / .698, high .085 / .857 (round 6 on the same file, once: .022 / .587, .036 /
  .688, .090 / .889). Seen since.
* ``train_extra8.jsonl`` (554 prompts: 253 corrections/friction, ~80 % of the corrections
  without an English negation word, ~169 lines in other languages or mixed; a DevOps
  consultancy, a PHP agency and a CS student; ``TRAIN_EXTRA8.md``) was measured once before
  anything was trained or tuned on it (2026-11-26 23:15 UTC, main's detector at dae9373;
  ``TRAIN_EXTRA8_FIRST.md``): low FP .020 recall .534, medium .023 / .565, high .106 / .731.
  The scorer's 24th author since (blind 15 the 23rd); no feature was written from it.
* ``train_extra9.jsonl`` (551 prompts: 251 corrections/friction, most corrections without a
  negation word, 176 lines in other languages or mixed; an e-commerce TypeScript team, a data
  analyst in R and a .NET developer; ``TRAIN_EXTRA9.md``) was measured once before anything
  was trained or tuned on it (2026-11-27 02:07 UTC, main's detector at 6813fb2;
  ``TRAIN_EXTRA9_FIRST.md``): low FP .020 recall .510, medium .027 / .534, high .067 / .602.
  The scorer's 26th author since (blind 16 the 25th); no feature was written from it.
* ``blind26.jsonl`` (417 prompts: a Rust systems developer, a Unity developer, an SRE on
  Kubernetes, a Django/HTMX developer and an iOS developer; 108 lines (26 %) in thirteen other
  languages; ``BLIND26.md``), written by a helper who saw no code, committed at 19:36 UTC on
  2026-11-27 before rounds 17-18 began, measured once on the previous stop's detector (418bbdb:
  low FP .018 recall .783, medium .037 / .869) and once after rounds 17-18 (5a923fd: low .018 /
  .823, medium .037 / .864; ``BLIND26_FIRST.md``). Seen since; the scorer's 38th author since
  round 19.
* ``blind27.jsonl`` (418 prompts: a Go microservices developer, a Vue/Nuxt developer, a data
  scientist in R and Python, a .NET developer and a Terraform/AWS engineer; 128 lines (31 %) in
  fourteen other languages; ``BLIND27.md``), committed at 21:03 UTC after rounds 17-18 were
  merged, measured once on the previous stop's detector (418bbdb: low FP .018 recall .766,
  medium .041 / .832) and once on this stop's (5a923fd: low .018 / .822, medium .027 / .883;
  ``BLIND27_FIRST.md``). Seen since; the scorer's 39th author since round 19.
* ``train_extra12.jsonl`` (567 prompts: 277 corrections/friction, 290 null with 130 hard
  negatives; Angular, Scala/Spark, Elixir, Azure DevOps, Quarkus and Haskell/OCaml personas, 91
  lines in other languages; ``TRAIN_EXTRA12.md``) was measured once before its texts were read
  (2026-11-27 22:15 UTC, round 19's detector; ``TRAIN_EXTRA12_FIRST.md``): low FP .010 recall
  .657, medium .048 / .736, high .117 / .780. The scorer's 40th author since round 20.
* ``blind28.jsonl`` (415 prompts: an embedded C developer on Zephyr, a Rails developer, a
  Flutter developer, a Rust systems developer, a PyTorch ML engineer and a Symfony developer; 126
  lines (30 %) in sixteen other languages; ``BLIND28.md``), committed at 22:14 UTC before rounds
  20-22 began, measured once on the previous stop's detector (6a97ff9: low FP .009 recall .805,
  medium .050 / .897) and once after rounds 20-22 (92bad67: low .009 / .831, medium .032 / .892;
  ``BLIND28_FIRST.md``). Seen since; trained on since round 23 (author 41).
* ``blind29.jsonl`` (413 prompts: a Django/HTMX, a Unity/C#, an Ansible/Linux, a SvelteKit, a
  Kotlin Android and a dbt/BigQuery persona; about 100 lines (24 %) in sixteen other languages;
  ``BLIND29.md``), committed at 22:47 UTC while rounds 20-21 ran, measured once on the previous
  stop's detector (6a97ff9: low .014 / .822, medium .023 / .885) and once after rounds 20-22
  (92bad67: low .014 / .853, medium .023 / .901: both targets met at both levels;
  ``BLIND29_FIRST.md``). Seen since; trained on since round 23 (author 42).
* ``train_extra13.jsonl`` (584 prompts: 290 corrections/friction, 294 null with 147 hard
  negatives; Next.js, C++/Qt, Perl, GCP, Swift and R/Shiny personas, about 222 lines (38 %) in
  eighteen other languages; ``TRAIN_EXTRA13.md``) was measured once before its texts were read
  (2026-11-28 00:52 UTC, round 22's detector; ``TRAIN_EXTRA13_FIRST.md``): low FP .020 recall
  .679, medium .031 / .745, high .095 / .814. Since round 23 it is the scorer's 43rd author, and
  blind 28 and blind 29 its 41st and 42nd.
* ``blind30.jsonl`` (416 prompts: a Rails/Hotwire, a Go microservices, a Flutter, a Jupyter data
  science, an embedded Rust and a WordPress persona; 105 lines (25 %) in sixteen other languages;
  ``BLIND30.md``), committed at 00:51 UTC on 2026-11-28 before round 23 began, measured once on
  the previous stop's detector (8cec46f: low FP .023 recall .851, medium .045 / .897) and once
  after round 23 (ecf4908: the same figures; ``BLIND30_FIRST.md``). Seen since; not trained on.
* ``blind31.jsonl`` (431 prompts: a .NET/Blazor, a FastAPI, a React Native, a security-policy, a
  Vue/Nuxt and an embedded Linux persona; about 120 lines (28 %) in eighteen other languages;
  ``BLIND31.md``), committed at 01:02 UTC while round 23 ran, measured once on the previous
  stop's detector (8cec46f: low .009 / .879, medium .017 / .905: all four targets met) and once
  after round 23 (ecf4908: the same; ``BLIND31_FIRST.md``). Seen since; authors 44-45 of the
  trainer's leave-one-author-out since round 25 (the shipped weights are still round 22's).
* ``train_extra14.jsonl`` (575 prompts: 282 corrections/friction, 293 null with 146 hard
  negatives; Elixir/Phoenix, Unity C#, COBOL/JCL to Java, Azure, Kotlin Multiplatform and
  MATLAB/Simulink personas, about 200 lines in eighteen other languages; ``TRAIN_EXTRA14.md``)
  was measured once before its texts were read (2026-11-28 03:50 UTC, round 24's detector;
  ``TRAIN_EXTRA14_FIRST.md``): low FP .014 recall .720, medium .024 / .787, high .078 / .823.
  Round 25's fresh check, not an author; its texts were not read.
* ``blind32.jsonl`` (422 prompts: a Go microservices, a Jupyter data-science, a Flutter, a
  DevOps, a Rust CLI and a Laravel persona; 128 lines (30 %) in eighteen other languages;
  ``BLIND32.md``), committed at 03:49 UTC on 2026-11-28 before round 25 began, measured once on
  the previous stop's detector (ca50aae: low FP .004 recall .832, medium .009 / .893) and once
  after rounds 25-26 (5a9146b: low .004 / .868, medium .009 / .919: all four targets met;
  ``BLIND32_FIRST.md``). Seen since; not trained on.
* ``blind33.jsonl`` (426 prompts: a Kotlin Spring Boot, a SvelteKit, a Godot, an R
  bioinformatics, a GCP Terraform and a Java Android persona; 113 lines (27 %) in eighteen other
  languages; ``BLIND33.md``), committed at 03:59 UTC while round 25 ran, measured once on the
  previous stop's detector (ca50aae: low .000 / .838, medium .009 / .859) and once after rounds
  25-26 (5a9146b: low .004 / .848, medium .009 / .869; ``BLIND33_FIRST.md``). Seen since; not
  trained on.
* a later blind set (found by globbing ``blind*.jsonl``) is reported under "BLIND".
  ``--skip`` leaves sets out entirely (not read) so a tuning run never sees a set meant for its
  first measurement. Its default, ``unseen``, skips every blind set numbered past
  :data:`SEEN_BLIND` (33: blind34 and any later one); ``--skip blind34`` skips only the named
  stems and ``--skip none`` reads all (the first measurement). The trainer never reads a blind
  set past 31 (its list of authors is explicit; blind 22 to 29, each measured once,
  ``BLIND22_FIRST.md`` .. ``BLIND29_FIRST.md``, are trained on since rounds 14 to 19 and 23;
  blind 30 and 31, ``BLIND30_FIRST.md`` and ``BLIND31_FIRST.md``, are its authors since round
  25, whose retrain was not shipped) nor ``train_extra14`` (round 25's fresh check).
* first measurements since round 10, each before the set was read (FP / recall, low then
  medium; the detector of the round named): blind 18 (round 10, ``BLIND18_FIRST.md``) .013 /
  .834, .018 / .903; ``train_extra11`` (round 10, ``TRAIN_EXTRA11_FIRST.md``) .023 / .788, .039
  / .856; blind 19 (round 11, ``BLIND19_FIRST.md``) .018 / .917, .018 / .928; blind 20 (round
  11, ``BLIND20_FIRST.md``) .004 / .847, .009 / .887; blind 21 (round 12, ``BLIND21_FIRST.md``)
  .031 / .910, .036 / .936; blind 22 (round 13, ``BLIND22_FIRST.md``) .040 / .737, .044 /
  .783; blind 23 (round 14, ``BLIND23_FIRST.md``) .041 / .821, .050 / .836 (seen since, trained
  on since round 15). Rounds 11, 12 and 15 are recorded in the trainer's docstring
  (``tools/train_corrections_model.py``); the first five sets are its authors since.
  ``--tiny`` runs 25 prompts of each set, no CV (a CI smoke run), and writes
  ``corrections_quality_tiny.json``.

Honest selection (issue 20, round 3): **leave-one-author-out** (printed first, ``--no-cv``
skips it; see ``tools/train_corrections_model.py``). The corpus, each ``train_extra*`` file and
each blind set 1-10 is one author. Each author is held out in turn: a scorer trained on the
other authors gives its probabilities, and each sensitivity's parameters (the scorer's
threshold, the probability under which it vetoes a rule match, the rule confidence it never
vetoes) are chosen on the other authors' held-out results only (the most mean recall whose
mean per-author FP rate added to the rules' own stays within 0.3 % at low, 1 % at medium: the
rules alone have reached 4-5 % on a new author, so the scorer gets a small share). The table
gives each author's FP rate and recall at the parameters chosen without it, the rules alone
beside it, then the mean and the worst author. Left optimistic: the rules were written or
tuned on every author except ``train_extra4``, so only that row (and the scorer's share of
every row) is an estimate for unseen text; the lead's blind 11 measurement is the estimate of
the whole detector.

Issue 20 round 3, held-out-author figures (``tools/train_corrections_model.py --cv-only``, 15
authors, 3,479 prompts; FP rate / recall per held-out author at the parameters chosen without
it; the same selection for both). BEFORE = main's rules and structure at e65df3a with its
scorer design (no veto, L2 0.01), AFTER = ck/corr3's final code::

      level   version  mean FP  worst FP  mean R  worst R
      low     BEFORE     .014      .052    .911     .649
      low     AFTER      .012      .046    .927     .718
      medium  BEFORE     .022      .066    .942     .759
      medium  AFTER      .023      .072    .956     .818

  Rows of note (FP rate/recall, BEFORE -> AFTER): ``train_extra4`` low .052/.649 -> .046/.718,
  medium .066/.759 -> .072/.818; blind 10 (its rules honest BEFORE, tuned on it AFTER) low
  .042/.816 -> .011/.929, medium .042/.878 -> .015/.964.
  The worst author is ``train_extra4`` at both levels, before and after (the rules alone: low FP
  .049 before, .046 after). Its row is the only one whose rules never saw the author: there the
  detector is far from the targets (see ``tests/data/corrections/EXTRA4_FIRST.md``: measured
  before the set was read, main low FP .052 R .643, medium FP .072 R .711; ck/corr3 before
  training on it low FP .049 R .656, medium FP .072 R .804). Parameters shipped (chosen on all
  15 authors, ``model_params.py``): low threshold .87 with a veto of phrase-rule matches under
  probability .10 (rule confidence < .90, prompt not aimed at the agent), medium .73, high .53
  (no veto). With a cap on the total FP rate (0.8 % / 2.5 %) instead, the same table read low
  .009/.049 R .899/.698, medium .027/.086 R .961/.845 (threshold .99 at low: the rules' seen-set
  residue used up the budget). Nothing here says the targets are met on unseen text: the lead's
  blind 11 measurement does.

Issue 20 round 4 (``ck/corr4``), aimed at ``low``'s false positives on new authors. The
16-author table (blind 11 added; ``tools/train_corrections_model.py --cv-only``, 3,957
prompts), BEFORE = main at 35491d0 with blind 11 added as an author, AFTER = ck/corr4::

      level   version  mean FP  worst FP  mean R  worst R
      low     BEFORE     .014      .052    .925     .729
      low     AFTER      .011      .039    .926     .708
      medium  BEFORE     .024      .078    .947     .808
      medium  AFTER      .023      .078    .947     .794

  Rules alone, the two authors they were not written from before this round: ``train_extra4``
  low FP .046 -> .032 (recall .581 both), blind 11 .029 -> .004 (now tuned on it). Mechanisms,
  each removing false positives and no true positive over all 16 authors: a declined offer after
  "No," ("that's not necessary", "keep it as is", "just X is enough", "whatever you think"); the
  user's own slip ("I misremembered", "that was wrong of me"); absolution of a regression blame
  ("nothing to do with your change", "failing long before your change"); a topic raised earlier
  ("back to the issue you mentioned") as navigation; "for the new X we're building" as new work;
  "rewrite/simplify/pasting ...:" introducing pasted material; a hypothetical question
  ("hypothetically, if I told you to revert it, what would break?") is no correction (rule score
  lowered, the scorer's flag vetoed). The worst recall at low fell because ``train_extra4``'s
  fold chose threshold .90 instead of .82 (without the last mechanism: .680): the others' mean
  added FP sits at the cap's edge (.0036 vs .003, one prompt of ``extra2``'s 52 negatives), a
  knife edge, not the rules. Tried and left out (less than noise): a cap on the pooled added FP
  rate instead of the per-author mean (low worst FP .029, medium .065: one prompt of ``extra``);
  a stronger veto at low, judged on rule verdicts from authors the rules were not written from
  (e65df3a's rules on blind 10 and ``train_extra4``, a2df112's on blind 11, out-of-fold
  probabilities): veto < .20 with strong .95 instead of < .10 / .90 removes 4 / 0 / 2 more false
  positives and 0 / 5 / 1 more true positives, an even trade; a gate requiring every low rule
  match to be aimed at the agent (on those two authors 11 false positives vs 166 true positives
  sit in prompts not aimed). Hook cost (A/B against 35491d0, first ``detect()`` in a fresh
  ``python -S`` process, CPU median, n=40-60, 2 loaded cores): a request +1.2 / +0.4 / +0.9 ms
  in three runs (the last on the final code), a rule-flagged correction +0.4 / +0.9 ms, an
  absolved blame +3.3 / -2.8 ms (now unflagged it runs the scorer, as every unflagged prompt
  does), a declined offer -10.7 ms: within the 2 ms budget, mostly noise. The targets on unseen
  text are not claimed: blind 12 measures it.

Issue 20 round 5 (``ck/cdet5``), aimed at recall on new authors: cues of meaning in the scorer
(``corrections/cues.py``: a reference to the agent's last move, an earlier state asked back, a
contrast, the right alternative named, scope, a team convention, a challenge, hindsight, a named
flaw, a place, time lost, an act-then-fix conjunction), informal spellings and the correction
words of six other languages glossed into English, word features regularised 5x harder than
the cues (L2 0.003 / 0.015), weights averaged over five shuffle orders, medium's added-FP cap
1 % -> 0.8 %. The rules were not changed. The 18-author table
(``tools/train_corrections_model.py --cv-only``, 4,943 prompts), BEFORE = main at 40e297a with
blind 12 and ``train_extra5`` added as authors, AFTER = ck/cdet5::

      level   version  mean FP  worst FP  mean R  worst R
      low     BEFORE     .012      .052    .868     .451
      low     AFTER      .012      .039    .911     .657
      medium  BEFORE     .022      .065    .923     .640
      medium  AFTER      .019      .052    .942     .762

  The rows whose rules never saw the author (FP/recall, BEFORE -> AFTER): ``train_extra5`` low
  .014/.451 -> .010/.657, medium .027/.640 -> .024/.762; ``train_extra4`` low .029/.680 ->
  .035/.763, medium .052/.825 -> .046/.835; blind 12 low .022/.674 -> .022/.789, medium
  .026/.834 -> .026/.857; blind 11 (rules tuned on its false positives) low .004/.755 ->
  .004/.809, medium .022/.873 -> .015/.863. These are tuning figures (every choice of this round
  was judged on them); the lead's next blind measurement is the estimate. Tried and left out:
  one L2 for all features (0.003-0.03: the words learned from one author's phrasing swamped the
  cues), words x10 (one order: medium recall .946 but FP .023) and x30 (lost recall), MIN_DF 3,
  a regex gloss of other languages (compiling its alternation cost 2.7 ms), a regex per cue
  (~2.6 ms of compiles on every scored prompt; the cues are token look-ups now). Hook cost (A/B
  against main 40e297a, first ``detect()`` in a fresh ``python -S`` process, import + call, CPU
  median, n=40, loaded 2 cores): a request on the scorer's path +0.2 ms, a no-negation fix
  +0.5 ms, a rule match -0.4 ms, praise +0.2 ms, a German request (glossed) +1.5 ms.

Issue 20 round 6 (``ck/cdet6``): blind 13 and ``train_extra6`` are authors 19 and 20;
``train_extra6`` was measured first (``TRAIN_EXTRA6_FIRST.md``: low .019 / .348, medium .038 /
.424). Why the leave-one-author-out mean overestimated a new author (.911 / .942 recall against
first figures of .52-.76): the rules were written from 15 of the authors (alone they reach
.80-1.0 recall there, .22-.66 on the others) and every author counts once in the mean, and the
parameters were chosen on all authors, where a lower threshold buys the scorer nothing but false
positives. Now: a summary over the four fresh authors, the parameters chosen on the authors the
rules do not saturate (rules recall < .75: ``train_extra4`` to ``6``, blind 11-13), and a strict
run (``--strict``: ``train_extra6`` and blind 13 held out together, model and every parameter
chosen without them; on round 5's detector it reproduces their first figures exactly). The
scorer's added false positives are capped at zero on those authors; the gloss reads Italian,
Dutch, Turkish, Russian and Korean. Rules unchanged. Tuning figures (FP / recall)::

      table            level   BEFORE (main 9e79bba)        AFTER (ck/cdet6)
      20 authors       low     .014 (.039) / .855 (.356)    .011 (.039) / .855 (.420)
      mean (worst)     medium  .021 (.061) / .903 (.436)    .015 (.046) / .881 (.456)
      4 fresh authors  low     .019 (.022) / .615 (.356)    .019 (.022) / .620 (.420)
                       medium  .031 (.041) / .700 (.436)    .022 (.031) / .683 (.456)
      strict extra6    low     .019 / .348                  .022 / .392
                       medium  .038 / .424                  .041 / .456
      strict blind13   low     .022 / .648                  .022 / .676
                       medium  .027 / .761                  .022 / .767

  (BEFORE's 20-author rows: main's features, parameters chosen on all authors.) The caps were
  chosen on the strict run, so it is tuning evidence too. Tried and left out: the parameters
  chosen on the four fresh authors alone (strict medium FP .050 / .049); caps 0.3 % / 0.8 % on
  the unsaturated authors (strict recall .448 / .560 and .727 / .818, but medium FP .050 /
  .058) and 0.1 % / 0.2 % (medium FP .044 / .040); stems of other-language words and character
  pairs of Chinese, Japanese, Korean; a statement followed by a fix, a fix followed by its
  reason (two sentences or one), "goes in"/"belongs in" and "has to be"/"should be" cues; a
  veto grid up to .5 (all within noise of the out-of-fold figures, none better); words
  regularised x10 instead of x5 (strict, caps 0 / 0: ``train_extra6`` .019/.368 .031/.412,
  blind 13 .022/.670 .018/.739: fewer false positives, less recall). Targets not
  met on new authors. Hook cost (A/B against main 9e79bba, first ``detect()`` in a fresh
  ``python -S`` process with compiled bytecode, CPU median, n=25, shared cores): a request
  -0.03 ms, a no-negation fix -0.04 ms, a rule match -7.0 ms (noise), praise +0.5 ms, a German
  request +0.3 ms, a Russian correction +1.6 ms (glossed, then flagged).

Issue 20 round 7 (``ck/cdet7``): blind 14 and ``train_extra7`` are authors 21 and 22 and the
strict run's held-out pair (neither read to write a feature; on main's detector the run
reproduces their first figures exactly). The scorer reads the shapes of a redirect and of a
new task (an imperative with a definite object against "add/create a ...", "that/it" + a
copula or a verb of place, "the one you", "should be", a terse line with a value, a numbered
task list); a weak rule match is vetoed when the scorer's probability is under .4 (the grid
reached .3), which leaves room for a lower threshold (low .90 -> .81, medium .81 -> .75).
Tuning figures (FP / recall; the grid was chosen on the strict run)::

      table             level   BEFORE (main 3b919d6)        AFTER (ck/cdet7)
      22 authors        low     .014 (.039) / .827 (.480)    .011 (.039) / .813 (.480)
      mean (worst)      medium  .019 (.041) / .840 (.496)    .017 (.039) / .831 (.504)
      6 fresh authors   low     .020 / .663                  .019 / .670
                        medium  .026 / .695                  .026 / .712
      strict blind14    low     .027 / .688                  .022 / .780
                        medium  .036 / .796                  .027 / .790
      strict extra7     low     .017 / .508                  .017 / .584
                        medium  .020 / .599                  .020 / .611

  The recall gained is the grid's: round 6's features with it give nearly the same strict
  figures (low .022/.769 and .020/.553); the cues alone (grid to .3) lowered low's FP
  (.018, .017) and its recall (.651, .477). The all-author mean loses recall on the authors the
  rules were written from (corpus .932 -> .859, blind 4 .915 -> .766: correct weak rule
  matches vetoed, e.g. "hold on, stop. dont push to main" is now flagged only at high). Tried
  and left out: words regularised x15 (strict low .022/.586 and .023/.420), no word bigrams
  (.022/.694, .023/.511; medium recall lower), caps on the scorer's added FP below zero (low
  recall .305-.516), the parameters chosen on more or fewer authors (``RULES_SATURATED`` .6:
  within noise; .9 or all: less recall). Targets still not met on new authors (low recall
  .58-.78). Hook cost (A/B against main 3b919d6, first ``detect()`` in a fresh ``python -S``
  process with compiled bytecode, CPU median, n=30-40, shared cores): a request +0.5 ms
  (import +0.15), a rule match +0.2 ms, a no-negation fix +2.1 ms (now flagged by the scorer,
  so the friction model loads, as for any prompt it flags).

Issue 20 round 8 (``ck/cdet8``): blind 15 and ``train_extra8`` are authors 23 and 24 and the
strict run's held-out pair (neither read to write a feature; on main's detector the run
reproduces their first figures exactly). Medium may add .5 % of false positives to the rules'
own (it sat at ~2 % against a 4 % target), the veto grid reaches .7, and the gloss reads
Czech, Swedish, Danish/Norwegian, Ukrainian and the words of a redirect in the other
languages; a rule match opening on a verdict ("that's wrong, ...") is never vetoed (the
parameters are chosen as if it could be). Chosen: low threshold .81 -> .71 with veto .4 ->
.5, medium .75 -> .64 with veto .4 -> .3 (round 7's design retrained on 24 authors would have
chosen .77 and .67). Tuning figures (FP / recall; every choice was made on the strict run)::

      table             level   BEFORE (main dae9373)        AFTER (ck/cdet8)
      24 authors        low     .014 (.039) / .795 (.548)    .015 (.040) / .799 (.544)
      mean (worst)      medium  .020 (.052) / .814 (.584)    .023 (.059) / .867 (.632)
      8 fresh authors   low     .019 / .653                  .019 / .694
                        medium  .025 / .709                  .029 / .766
      strict blind15    low     .022 / .646                  .018 / .677
                        medium  .022 / .698                  .022 / .757
      strict extra8     low     .020 / .534                  .020 / .585
                        medium  .023 / .565                  .027 / .660

  (BEFORE's leave-one-author-out: round 7's features and parameter choice over the same 24
  authors.) Low's all-author mean barely moves because vetoes up to .5 drop correct rule matches
  of the authors the rules were written from (corpus .913 -> .871, blind 1 .959 -> .857) while
  the fresh authors gain; medium's worst FP (.059, the corpus) is an author the rules were
  written from. Hand examples that moved: "the timeout should be 30s, not 300" is flagged from
  medium (low vetoes it), "who asked for a Dockerfile? delete it" only at high; "hold on, stop.
  dont push to main" at low again. The verdict exemption with the parameters chosen under it
  moved low's veto to .7 (all-author low mean .795 -> .770), so the choice ignores it. Tried
  and left out: conjunction cues (a fix beside a statement about something already there, a
  short "X, not Y"; strict low .018/.667 .017/.593, medium .027/.709 .027/.648); medium at
  .75 % or 1 % (strict medium FP .027/.033). Targets still not met (recall .58-.76 on the strict
  pair). Hook cost (A/B against main dae9373, first ``detect()`` at medium in a fresh ``python
  -S`` process with compiled bytecode, CPU median, n=30, shared cores; two runs, the second
  with the verdict): a request -0.06 / -0.91 ms, a no-negation fix +0.09 / +0.35, a rule match
  -1.9 / -2.3 (noise), praise -0.11 / +0.20, a Russian fix +0.01 / +0.07.

Issue 20 round 9 (``ck/cdet9``): blind 16 and ``train_extra9`` are authors 25 and 26 and the
strict run's held-out pair (neither read to write a feature). The flag model keeps every
feature (~7,000; the cap of 1,500 had cut nearly every cue of meaning), its table read in
place (:class:`...corrections.model.WeightTable`), and a whole prompt undoing "that"/"it" is
never vetoed. Tuning figures (FP / recall; the cap was chosen on the strict run)::

      table             level   BEFORE (main 6813fb2)        AFTER (ck/cdet9)
      26 authors        low     .017 (.039) / .726 (.440)    .016 (.065) / .865 (.610)
      mean (worst)      medium  .026 (.065) / .800 (.518)    .031 (.086) / .911 (.673)
      10 fresh authors  low     .019 / .616                  .017 / .778
                        medium  .029 / .684                  .030 / .858
      strict blind16    low     .013 / .691                  .018 / .846
                        medium  .036 / .737                  .036 / .869
      strict extra9     low     .020 / .510                  .027 / .598
                        medium  .027 / .530                  .040 / .665

  Low's FP on ``train_extra9`` is over its target (8 of 300); the worst all-author FP rates are
  authors the rules were written from (corpus, ``train_extra``). Hook cost (A/B against main,
  first ``detect()`` at medium in a fresh ``python -S`` process with compiled bytecode, CPU
  median, n=30, shared cores): a request -0.64 ms, a no-negation fix +1.04 (now flagged), a
  rule match -0.79, praise +0.29, a Russian fix +1.84. Built as a dict up front, the table of
  ~7,000 cost +2.5 ms. ``bench/poisoning_hook_ab.py --runs 40 --baseline-ref main`` (no
  bytecode cached), UserPromptSubmit: +3.11 ms in a run where paths running none of this code
  moved +4.7 and +9.1 (noise), then +1.76 (Bash +0.47, Edit -0.89).

  First measurement of round 9 on blind 17 (2026-11-27 03:34 UTC, a46039a, written by a
  helper who saw no code; ``BLIND17_FIRST.md``): low FP .004 / recall .794, medium .013 /
  .861, high .084 / .906; the previous stop's detector (2ce13fb) on the same file, once:
  .000 / .644, .009 / .722, .098 / .778. False positives within both bounds, recall short of
  both (.85 / .90).

Issue 20 round 10 (``ck/cdet10``): blind 17 and ``train_extra10`` are authors 27 and 28 and
the strict pair (``train_extra10`` measured once first, ``TRAIN_EXTRA10_FIRST.md``: low .023 /
.825, medium .047 / .879; both read afterwards, so the figures are tuning figures). Mock
praise, "like the rest of ...", "I only wanted ...", prose lines with inline code and more
languages are read; a prompt of questions alone is no longer vetoed. FP / recall::

      table             level   BEFORE (round 9's features)  AFTER (ck/cdet10)
      28 authors        low     .017 (.065) / .866 (.602)    .015 (.052) / .873 (.622)
      mean (worst)      medium  .030 (.086) / .902 (.669)    .029 (.091) / .903 (.697)
      12 fresh authors  low     .018 / .799                  .018 / .808
                        medium  .029 / .866                  .029 / .874
      strict blind17    low     .004 / .794                  .004 / .861
                        medium  .013 / .861                  .013 / .906
      strict extra10    low     .023 / .825                  .023 / .864
                        medium  .047 / .879                  .050 / .918

  Hook cost (A/B against main 90c733d, first ``detect()`` at low in a fresh ``python -S``
  process with compiled bytecode, CPU median, n=40, loaded shared cores): a request +0.09 ms,
  a no-negation fix +0.23, a rule match +0.65, mock praise -3.62 (a shape now: the weights
  stay unloaded), an Italian "why did you" +1.81; a line of prose with inline code
  ("`let!`, not `let`") +21.5 ms: it was dropped as code and never scored, now it is read
  and scored like any prose prompt (48.6 ms, as the no-negation fix's 50.2).

Issue 20 round 13 (``ck/cdet13``): blind 21 is author 33 and, with blind 20, the strict pair;
both were read, so every figure here is a tuning figure (the record of the changes is the
trainer's docstring). Aimed at low's false positives on new authors: a constraint stated up
front ("before you start", "in this session", "while you do it") is a new task, not the agent's
past; "the wrong X" is a verdict only of the agent's thing (not "the drone yaws the wrong way");
a way back that then reads or explains is navigation; a question why a tool does something,
"you asked about ...: no, ..." and "your code was fine" are no corrections; the gloss reads an
ordinary request in other languages (new work, a new task, the user's slip, thanks, "if"); and
the scorer's veto no longer drops conventions, redirects ("make it static") or overreach ("I
asked for X") that only looked like new work. Medium may add .6 % of false positives (was
.8 %). FP / recall, round 12's design with blind 21 as an author -> round 13::

      table               level   BEFORE                       AFTER (ck/cdet13)
      33 authors          low     .019 (.091) / .890 (.677)    .019 (.091) / .911 (.725)
      mean (worst)        medium  .033 (.091) / .925 (.749)    .029 (.091) / .937 (.789)
      17 fresh authors    low     .019 (.036) / .859 (.677)    .014 (.031) / .891 (.725)
                          medium  .032 (.057) / .904 (.749)    .025 (.044) / .921 (.789)
      blind 12-21 (LOAO)  low     .017 (.036) / .897           .015 (.031) / .927
                          medium  .025 (.049) / .934           .021 (.044) / .947
      strict blind20      low     .004 / .881                  .009 / .915
                          medium  .013 / .915                  .013 / .938
      strict blind21      low     .031 / .910                  .013 / .941
                          medium  .040 / .941                  .018 / .952

  Of the ten blind authors held out one at a time, two stay over low's 2 % (blind 13 .031,
  blind 18 .027: requests worded like fixes, "replace all X with our Y", "rollback script for
  V57 please") and one over medium's 4 % (blind 13 .044); every recall meets its target. The
  ``train_extra`` authors (most corrections without a negation word, a quarter of the lines in
  other languages) stay short on recall (low .841, medium .882). The detector now asks the
  structural veto before the scorer (same verdicts on all 35,880 prompt-level pairs), so a new
  task's spec, praise or navigation never loads the weights. Hook cost (A/B against main
  20fd338, first ``detect()`` in a fresh ``python -S`` process with compiled bytecode, CPU
  median, n=30, shared cores; low, then medium): a request -6.4 / -6.6 ms, praise -6.8 / -7.3,
  a constraint stated up front -6.6 / -7.2, a question why a tool does something -6.7 / -7.0
  (none loads the weights now), a rule match -0.4 / +1.1, a no-negation fix +1.5 / +1.9 (the
  veto's patterns are compiled before the scorer runs), navigation -0.1 / -0.9, a French task
  +0.5 / +1.0. Before the veto was asked first: a request +0.4 ms, navigation +6.6 (no longer
  flagged by a rule, it ran the scorer). ``bench/poisoning_hook_ab.py --runs 40
  --baseline-ref main``, UserPromptSubmit: +0.15 ms, then -2.36 with the veto first (Bash
  -0.33 / -0.88, Edit -0.99 / -0.29: paths running none of this code).

Issue 20 round 14 (``ck/cdet14``): blind 22 is author 34 and, with blind 21, the strict pair;
both were read, so every figure here is a tuning figure (the record of the changes and of what
was left out is the trainer's docstring). Error analysis first. Blind 22 with round 13 missed at
low (by the set's kinds, ``BLIND22.md``): every give-up (7 of 7: "forget it, I'll write the DAO
myself", "Enough. I'm closing this session."), 16 of its 34 lines in other languages (10 of 24
corrections, 6 of 10 friction), half its sarcasm (5 of 10: irony with no praise word, "I'm sure
nobody will ever look there"), 13 redirects by tool or approach (6 of 12 and 7 of 17, most
giving a reason that names a flaw), 3 omissions, 2 undos, 2 repeats, one "why is X ... now?" and
one each of convention, place and scope; its 9 false positives at low were 7 lines in other
languages (three Hindi lines whose "hai" the gloss read as Italian "you have"; a "No, ..."
answer in Italian, Ukrainian and Hindi; an acknowledgement in Dutch and Hindi; a Korean own
slip), one Dutch item number and one English own slip ("I mixed up the two datasets"); no
request worded like a fix. Over the 18 fresh authors held out (round 13), the misses were lines
in other languages (24 % missed against 11 % of English ones), corrections with no negation word
(14 % against 9 %), after praise (18 %), terse ones (14 %); at medium the largest false-positive
classes were constraints stated up front and requests worded like fixes (34 of 118) and "no,
..." answers (about 20). The round reads other languages better (Hindi, Vietnamese, the
whole-word English test, the words of an undo, a break, "switch to", "like the others", time
lost, "not needed"; a glossed "no" answer), giving up and irony, and "why is ... now?". FP /
recall, round 13's design with blind 22 as an author -> round 14::

      table               level   BEFORE                       AFTER (ck/cdet14)
      34 authors          low     .019 (.078) / .910 (.689)    .021 (.091) / .917 (.757)
      mean (worst)        medium  .029 (.091) / .931 (.778)    .029 (.091) / .935 (.812)
      18 fresh authors    low     .015 (.040) / .877 (.689)    .015 (.031) / .895 (.757)
                          medium  .025 (.044) / .912 (.778)    .025 (.052) / .922 (.812)
      17 fresh, no b22    low     .013 (.022) / .886 (.689)    .015 (.031) / .901 (.757)
                          medium  .024 (.042) / .920 (.797)    .025 (.052) / .927 (.812)
      blind 12-22 (LOAO)  low     .015 (.040) / .910           .014 (.031) / .920
                          medium  .022 (.044) / .933           .020 (.040) / .940
      strict blind21      low     .013 / .926                  .009 / .926
                          medium  .013 / .952                  .018 / .957
      strict blind22      low     .040 / .702                  .013 / .778
                          medium  .053 / .778                  .031 / .838

Blind 22 held out alone on round 13's detector gives its first figures exactly (.040 / .737,
.044 / .783); trained on, its fit is .000 / .965 and .000 / .975 (not an estimate). The 17 fresh
authors other than blind 22 are the nearest to an honest figure here: no change was written from
their English lines (the gloss's categories were picked after reading the foreign-language
misses of ``train_extra`` 6, 8 and 9, the authors that gained most: low recall .732 -> .764,
.830 -> .866, .689 -> .757). Targets on a new author: not claimed; the strict blind 22 row, the
worst fresh recalls (``train_extra9`` .757 / .825, ``train_extra6`` .764 / .812) and the worst
FP rates (low blind 13 .031, medium ``train_extra11`` .052) stay short of them; blind 23
measures it. Hook cost (A/B against the branch point 16c8018, first ``detect()`` in a fresh
``python -S`` process with compiled bytecode, CPU median, n=40, load average ~1; low, then
medium): a request -0.01 / -0.04 ms, praise +0.12 / +0.15, a rule match -0.11 / +0.15, a
no-negation fix +0.32 / +0.01, a Hindi fix +0.26 / +0.02, a French task +0.11 / -0.07, "why is
... now?" -3.07 / -3.34 and an Italian "No, non serve ..." -2.42 / -2.38 (a shape and the
glossed answer now decide before the weights load). ``bench/poisoning_hook_ab.py --runs 100``,
UserPromptSubmit: +0.03 ms against 16c8018, -0.11 against main 59fda01 (Bash +0.32 / -0.04, Edit
+0.06 / -0.47: paths running none of this code).

Issue 20 round 15 (``ck/cdet15``): blind 23 is author 35 and, with blind 22, the strict pair.
Both new writers had measured 2-3x the fresh authors' held-out mean false-positive rate at
first, so low and medium are capped on the mean per-author TOTAL false-positive rate, the
rules' own included (low 1 %, half its target; medium 2.2 %), instead of what the scorer adds;
the gloss reads the words of blind 23's false positives it had misread (Spanish "ya", "また明日",
"no problem", "いいえ"). Tuning figures, leave-one-author-out over 35 authors, mean (worst) FP /
recall, round 14's design with blind 23 as an author -> round 15 (details in the trainer's
docstring)::

      table               level   BEFORE                       AFTER (ck/cdet15)
      35 authors          low     .020 (.091) / .909 (.752)    .013 (.065) / .892 (.712)
                          medium  .028 (.091) / .931 (.812)    .026 (.091) / .923 (.804)
      19 fresh authors    low     .016 (.041) / .886 (.752)    .010 (.019) / .858 (.712)
                          medium  .025 (.052) / .914 (.812)    .021 (.045) / .907 (.804)
      blind 23 (LOAO)     low     .041 / .816                  .018 / .801
                          medium  .050 / .836                  .036 / .826

Every fresh author's low FP rate is within 2 % held out (worst .019); recall is given up for it
(low .886 -> .858, lines in other languages .772 -> .717). Strict (blind 22 and blind 23 held
out together, round 15's features; FP / recall, low then medium), round 14's caps -> round 15's:
blind 22 .018/.793 .027/.838 -> .000/.753 .018/.833; blind 23 .027/.801 .045/.821 -> .018/.761
.036/.816: within both false-positive bounds, short of both recall targets. Targets on a new
writer: not claimed; blind 24 measures it. Hook cost: the gloss has eight more entries, the rest
is weights and parameters; ``bench/poisoning_hook_ab.py --runs 100 --baseline-ref main``,
UserPromptSubmit -0.76 ms (Bash -0.68, Edit -0.73: paths running none of this code, noise).

Issue 20 round 16 (``ck/cdet16``): blind 24 is author 36 and, with blind 23, the strict pair.
A bug report of the user's own product ("Our API returns a 500 when the cursor param is empty.
It should return the first page instead.", "Het dashboard toont de verkeerde tijdzone ...")
vetoes the scorer's flag unless something ties it to the agent's change (26 prompts over 36
authors, all null), and more ways of giving up read as friction ("this isn't going anywhere",
"I'm done with this", "I'll ask someone on the team": 40, all friction). Tuning figures,
leave-one-author-out over 36 authors with out-of-fold scores from one training order (the
shipped weights average five), mean (worst) FP / recall, round 15 with blind 24 as an author ->
round 16 (details in the trainer's docstring)::

      table               level   BEFORE                       AFTER (ck/cdet16)
      36 authors          low     .012 (.065) / .879 (.688)    .012 (.065) / .882 (.696)
                          medium  .025 (.078) / .921 (.780)    .025 (.091) / .929 (.780)
      20 fresh authors    low     .010 (.041) / .839 (.688)    .010 (.022) / .846 (.696)
                          medium  .022 (.068) / .901 (.780)    .021 (.054) / .905 (.780)
      strict blind 23     low     .023 / .791                  .023 / .796
                          medium  .036 / .826                  .036 / .836
      strict blind 24     low     .027 / .750                  .013 / .760
                          medium  .054 / .797                  .041 / .807

Targets on a new writer: not met (recall short at both levels; strict blind 24's medium FP
just over 4 %); blind 25 measures it. Hook cost: ``bench/poisoning_hook_ab.py --runs 100
--baseline-ref main``, UserPromptSubmit +0.15 ms (Bash -0.97, Edit -0.22: paths running none
of this code); the bug-report veto looks up the prompt's first word before any pattern
compiles.

Issue 20 round 17 (``ck/cdet17``): blind 25 is author 37 and, with blind 24, the strict pair.
Error analysis first (round 16's design with blind 25 as an author, the 21 fresh authors held
out): at low 199 of 737 misses are lines in other languages (recall there .628, English .861),
several in languages no gloss table read; at medium a dozen of 120 false positives are status
reports. The gloss reads Swahili, Greek, Hebrew, Thai, Hungarian, Finnish and Romanian and the
redirect forms other languages lacked; a report of the user's own operation naming no flaw
("I restarted the mlflow server, try again") and "there's a bug in ..." not tied to the agent
veto the scorer. Tuning figures, leave-one-author-out over 37 authors with one training order
(the shipped weights average five), mean (worst) FP / recall, BEFORE -> AFTER (details in the
trainer's docstring)::

      table               level   BEFORE                       AFTER (ck/cdet17)
      37 authors          low     .011 (.065) / .877 (.696)    .012 (.065) / .887 (.704)
                          medium  .025 (.091) / .925 (.789)    .025 (.091) / .933 (.788)
      21 fresh authors    low     .010 (.023) / .839 (.696)    .010 (.019) / .857 (.704)
                          medium  .022 (.045) / .899 (.789)    .023 (.042) / .906 (.788)
      strict blind 24     low     .022 / .755                  .022 / .807
                          medium  .054 / .823                  .054 / .859
      strict blind 25     low     .018 / .800                  .018 / .874
                          medium  .036 / .837                  .036 / .895

The words were picked from every author's unglossed lines, so these are tuning figures (the 18
fresh authors other than blind 23-25: low recall .848 -> .862, FP .008 -> .009). Targets on a
new writer: not claimed (strict blind 24's medium FP .054; the worst fresh recall .704); blind
26 measures it. Hook cost: the gloss has 220 more entries, the vetoes two patterns compiled
only for a prompt opening on "there" or holding "I ", "I've" or "we ";
``bench/poisoning_hook_ab.py --runs 100 --baseline-ref main``, UserPromptSubmit -0.36 ms (Bash
-0.37, Edit -0.45: paths running none of this code, noise).

Issue 20 round 18 (``ck/cdet18``): no new author (blind 26 stays unseen). Two structural
changes, judged on round 17's cached out-of-fold scores (one training order; the features and
weights are unchanged, so no retraining): a status report written as a state ("The Loki
retention change is live now", "Postgres is back up", "CI is green on main again": 21 prompts
over 37 authors, all null once "we are back to square one" and a flaw or "you" are left out)
vetoes the scorer, and a flaw tied to the agent ("your migration still fails", "the form
action is wrong", "why did you ...", "you didn't ...", "I could have written this myself")
lifts the new-work and own-action vetoes. Mean (worst) FP / recall, round 17 -> round 18::

      table                        level   round 17                     round 18
      21 fresh, shipped params     low     .009 (.018) / .857 (.704)    .009 (.018) / .857 (.704)
                                   medium  .021 (.042) / .906 (.780)    .021 (.042) / .906 (.780)
      21 fresh, params re-chosen   low     .010 (.019) / .858 (.704)    .009 (.023) / .861 (.704)
                                   medium  .023 (.042) / .906 (.788)    .023 (.045) / .908 (.788)
      strict blind 24              low     .022 / .807                  .013 / .807
                                   medium  .054 / .859                  .045 / .859
      strict blind 25              low     .018 / .874                  .018 / .874
                                   medium  .036 / .895                  .036 / .895

(strict: the pair held out together, parameters re-chosen on the other authors' out-of-fold
scores; all 37 at the shipped parameters: false positives 86 -> 85 at low, 185 -> 183 at medium;
corrections caught +2, +4). Re-chosen, the parameters move (medium .64 / veto .7): recall on
the authors the rules were written from falls (all 37 medium .934 -> .925) and a pinned hand
example (a complaint after a 300-line paste) is lost, so round 17's parameters stay. Strict
blind 24's medium false positives (round 17, 12 of 222): four status reports (two English
states, now vetoed; a Swedish and a Hebrew one), three of the user's own slips ("Correction
to what I said earlier: ...", two in Greek and Swedish), two approvals in Swedish and Hindi,
a question about a log in Ukrainian, a "switch to the infra repo now" navigation and a request
worded as a fix ("Fix the wrong timezone in the daily revenue model"): 8 of the 12 in other
languages. Tried and left out, each by a retrained one-order run against the same structure:
MIN_DF 6 (fresh low recall .857 -> .835, medium .906 -> .898), a penalty x12/df on features
seen in under 12 prompts (low .861 -> .858, medium .908 -> .911, FP .023 -> .021; strict blind
24 medium FP .059), and cues for a short "X, not Y" and "the port is 8443" (low .861 -> .855,
medium .908 -> .906; strict blind 24 low .013 / .786). Hook cost: the vetoes run only on a
prompt the scorer flagged, their patterns compiled behind cue words;
``bench/poisoning_hook_ab.py --runs 100 --baseline-ref main``, UserPromptSubmit -1.16 ms
(Bash -0.78, Edit -1.39: noise).

Issue 20 round 19 (``ck/cdet19``): blind 26 and blind 27 are authors 38 and 39 and the strict
pair. Error analysis first: at low their first measurements missed other-language corrections
(8 and 11), sarcasm (7 and 4), omissions (2 and 5) and redirects of approach, tool or fact with
no negation word; over every author's held-out misses, lines in other languages whose words no
gloss table read. The gloss reads the words each language still lacked ("no" in Danish and
Norwegian, a one-word "don't X" in Turkish and Czech, "missing", "you broke", "I said", "how
many times", "give up" in Turkish, Hebrew, Arabic, Swahili, Ukrainian, Czech, Indonesian,
Japanese, Korean, Chinese, Thai and others; Japanese 別の is "another", not Chinese "don't");
irony without a praise word ("just what I wanted on a Friday", "is one way to make CI green", a
closing "Very scalable."), mock praise of a thing that "is now" worse and of a request of the
agent's own making, and an omission named as a state ("missing the :key ...": 12 openings over
every author, all corrections) are shapes (over every author's prompts, +14 sarcastic
exhibits, no null). Leave-one-author-out, one training order, mean (worst) FP / recall, round
18's design with blind 26 and 27 as authors -> round 19::

      table                        level   BEFORE                       AFTER (ck/cdet19)
      39 authors                   low     .011 (.052) / .884 (.692)    .011 (.052) / .888 (.684)
                                   medium  .025 (.091) / .921 (.784)    .024 (.091) / .924 (.772)
      23 fresh authors             low     .009 (.023) / .853 (.692)    .009 (.019) / .858 (.684)
                                   medium  .022 (.042) / .909 (.784)    .022 (.042) / .913 (.772)
      21 fresh (not blind 26-27)   low     .008 (.019) / .856 (.692)    .009 (.019) / .855 (.684)
                                   medium  .021 (.042) / .910 (.784)    .021 (.042) / .912 (.772)
      strict blind 26              low     .018 / .823                  .018 / .899
                                   medium  .036 / .879                  .032 / .934
      strict blind 27              low     .018 / .832                  .018 / .873
                                   medium  .041 / .883                  .032 / .914

The strict pair's misses were read to write the changes, so its AFTER rows are tuning figures
(its BEFORE rows, the pair held out from round 18's design, are within .01 of the first
measurements). The 21 fresh authors other than blind 26-27 are the nearest to honest: recall
flat at low (.856 -> .855), +.002 at medium, the worst author (``train_extra6``) .692 -> .684
and .784 -> .772. Targets on a new writer: not claimed; blind 28 measures it. Shipped (chosen
on all 39, the one-order scores; weights averaged over five orders): low .84 / veto .7 / strong
.95, medium .63 / veto .5 / strong .95, high .51. The chooser gave medium veto .7 / strong 1.01;
that broke the levels' nesting (a .96 rule match kept at low, vetoed at medium) and the pinned
300-line paste complaint, so medium takes low's strong .95 and veto .5 (at these parameters on
the out-of-fold scores, 23 fresh medium .021 (.041) / .915 (.772) -> .023 (.042) / .917
(.780)). The flag table has 10,411 weights (was under 10,000; the file 214 -> 225 KB). Hook
cost: ``bench/poisoning_hook_ab.py --runs 100 --baseline-ref main``, UserPromptSubmit -0.46 ms
(PostToolUse Bash +0.20, Edit -0.01: noise).

Issue 20 round 20 (``ck/cdet20``): ``train_extra12`` is author 40 and, with blind 27, the
strict pair; only its misses were read. The gloss reads Tagalog, Lithuanian, Estonian,
Serbian/Croatian, Slovak, Afrikaans, Bengali and romanised Tamil and phrases of four words
(four entries had never matched); an omission as a heading ("Missing: the ...") or a closing
state ("the migration is missing."), a closing "Very reproducible." or "Bold." and a doubled
praise word are shapes; the chooser keeps the levels nested, so medium is no longer set by
hand. Leave-one-author-out, one training order, mean (worst) FP / recall, round 19's design
with ``train_extra12`` as an author -> round 20::

      table                        level   BEFORE                       AFTER (ck/cdet20)
      24 fresh authors             low     .010 (.019) / .853 (.657)    .010 (.019) / .856 (.700)
                                   medium  .022 (.041) / .907 (.729)    .022 (.041) / .912 (.788)
      23 fresh (not extra12)       low     .010 (.019) / .862 (.704)    .010 (.019) / .860 (.700)
                                   medium  .021 (.040) / .915 (.796)    .021 (.036) / .916 (.788)
      strict blind 27              low     .018 / .873                  .018 / .873
                                   medium  .036 / .914                  .036 / .914
      strict extra12               low     .014 / .664                  .014 / .758
                                   medium  .045 / .726                  .045 / .823

The gains are on the author whose misses were read (tuning figures); on the other 23 fresh
authors recall is flat. The retrained weights with the chosen, nested parameters (low .84 / veto
.6 / strong 1.01, medium .64 / .6 / 1.01) broke two pinned hand examples and were not shipped
(the trainer's docstring): round 19's weights and parameters read the new gloss and shapes.
Targets on a new writer: not claimed; blind 28 measures it.

Issue 20 round 21 (``ck/cdet21``): no new data; round 20's retrain made shippable by design.
Sincere praise of a concrete improvement with nothing turning it (no contrast, "again",
negation, question, bad outcome, irony or cause; ``structure.sincere_praise``: 56 prompts over
the 38 readable authors, all null) drops a phrase rule's match and the scorer's flag ("Impressive,
the page is now twice as fast. Thanks!" had matched ``outcome-cooccur`` and scored .93); the
prose after a paste is scored with its own feature (``s:after-paste``) instead of the prompt's
paste share (the complaint after 300 pasted lines: .58 -> .81). Leave-one-author-out, one
training order, mean (worst) FP / recall, round 20's retrain -> round 21::

      table                        level   BEFORE (round 20)            AFTER (ck/cdet21)
      24 fresh authors             low     .010 (.019) / .856 (.700)    .010 (.019) / .856 (.700)
                                   medium  .022 (.041) / .912 (.788)    .022 (.041) / .912 (.788)
      23 fresh (not extra12)       low     .010 (.019) / .860 (.700)    .010 (.019) / .860 (.700)
                                   medium  .021 (.036) / .916 (.788)    .021 (.040) / .916 (.788)
      strict blind 27              low     .018 / .873                  .018 / .873
                                   medium  .036 / .914                  .041 / .914
      strict extra12               low     .014 / .758                  .014 / .758
                                   medium  .045 / .823                  .041 / .823

Flat within one negative (the strict pair's medium: blind 27 +1, extra12 -1). SHIPPED: the
weights of five orders with the nested parameters chosen on all 26 authors (low .84 / veto .7 /
strong .95, medium .65 / .6 / .95, high .51); every test passes unchanged. The chooser's
tie-break (equal mean recall: the higher threshold, then the smaller veto) is kept: on the same
scores, the larger veto first or the smaller veto before the threshold chose the same low and
medium parameters (shipped and strict) and every figure above is identical; only high moved
(larger veto first: veto .05 / strong .95, a veto that drops almost nothing). Hook cost
(``bench/poisoning_hook_ab.py --runs 100 --baseline-ref main``, 2026-11-27 23:16 UTC, shared
loaded cores, CPU medians): UserPromptSubmit 48.35 -> 47.25 ms (-1.1, target +2 ms).
Targets on a new writer: not claimed; blind 28 measures it.

Issue 20 round 22 (``ck/cdet22``): no new data, no retrain; margin under medium's cap. The
held-out false positives of the 26 authors the parameters are chosen on (round 21's cached
one-order scores) were grouped by class (the trainer's docstring); three shapes that generalise
over all 40 authors are closed (``structure.answers_or_own_slip``: a "No" answering with a state
of the world, "Nope, that's the only config file"; the user's own slip, "Correction to what I
said earlier", in English or glossed; ``structure.switches_context``: "Switch to the infra repo
now"; 130 prompts over the 40 authors, all null), and medium's cap on the mean total FP rate is
2.0 % (was 2.2 %). Leave-one-author-out, one training order, parameters re-chosen per fold,
mean (worst) FP / recall::

      table                        level   BEFORE (round 21)            AFTER (ck/cdet22)
      24 fresh authors             low     .010 (.019) / .856 (.700)    .010 (.019) / .872 (.728)
                                   medium  .022 (.041) / .912 (.788)    .020 (.038) / .913 (.788)
      22 fresh (not strict pair)   low     .009 (.019) / .860 (.700)    .009 (.019) / .877 (.728)
                                   medium  .021 (.040) / .916 (.788)    .019 (.036) / .917 (.788)
      strict blind 27              low     .018 / .873                  .014 / .878
                                   medium  .041 / .914                  .032 / .909
      strict extra12               low     .014 / .758                  .017 / .765
                                   medium  .041 / .823                  .035 / .827

By stage (24 fresh, medium cap in brackets): the English answers and slips [2.2 %] low .872 /
.725, medium .022 (.041) / .918; [1.8 %] medium .018 (.032) / .906; with the glossed slip
[2.0 %] .020 (.038) / .912, [1.9 %] .019 (.035) / .908; with the move veto [2.0 %] the AFTER
column. SHIPPED: round 21's weights with the parameters chosen nested on the 26 authors (low .80
/ veto .6 / strong 1.01, medium .63 / .6 / 1.01, high .51). Not met: medium's worst fresh author
(``train_extra12`` .038) is under 4 % by one prompt, not clearly; the rest of its false
positives are lines in other languages only the gloss can read (a retrain). Low's worst recall
(``train_extra6`` .728, ``train_extra9`` .729) stays under .85. Hook cost
(``bench/poisoning_hook_ab.py --runs 100 --baseline-ref main``, 2026-11-27 23:37 UTC, shared
loaded cores, CPU medians): UserPromptSubmit 44.77 -> 44.74 ms (-0.03, target +2 ms).
Targets on a new writer: not claimed; blind 28 measures it.

Issue 20 round 23 (``ck/cdet23``): blind 28, blind 29 and ``train_extra13`` (measured once
before its texts were read, ``TRAIN_EXTRA13_FIRST.md``) are authors 41-43; the strict pair is
blind 29 and ``train_extra13``. Error analysis of round 22's misses on blind 28 and
``train_extra13`` by class (low / medium, missed of all): lines in other languages 12 / 8 of 48
and 52 / 45 of 108 (Catalan, Icelandic, Latvian, Welsh, Zulu, Yoruba, Persian: no table read
them), English corrections with no negation word 12 / 6 of 95 and 26 / 17 of 121, terse 3 / 1
of 31 and 14 / 13 of 48, omissions 2 / 2 of 12 and 11 / 7 of 19, sarcasm 3 / 2 of 10 and 2 / 1
of 13, "why ...?" 0 of 11 and 1 of 12, after a pasted block none. Closed where the class
generalised over all 43 authors: the gloss reads those languages and the praise and "now" of
irony; an omission asked as a bare noun phrase ("And the rollback step for the new
migration?", 13 prompts, all corrections) or named beside its fix ("Missing: the timeout. Add
one.", 7) is the ``omission`` shape; a doubled praise word and "request path" open mock praise
(2); "No, we don't use X" is an answer (11, all null); medium's cap on the mean total FP rate is
1.95 % (was 2.0 %). Leave-one-author-out, one training order, parameters re-chosen per fold,
mean (worst) FP / recall::

      table                        level   BEFORE (round 22's design)   AFTER (ck/cdet23)
      27 fresh authors             low     .009 (.023) / .863 (.683)    .009 (.023) / .864 (.704)
                                   medium  .020 (.045) / .905 (.755)    .019 (.042) / .908 (.788)
      25 fresh (not b28, extra13)  low     .009 (.023) / .871 (.716)    .009 (.023) / .869 (.704)
                                   medium  .019 (.045) / .912 (.788)    .018 (.042) / .911 (.788)
      strict blind 29              low     .018 / .864                  .018 / .864
                                   medium  .027 / .895                  .022 / .895
      strict extra13               low     .014 / .690                  .010 / .772
                                   medium  .031 / .766                  .027 / .845

The gains sit on the two writers whose misses were read; on the other 25 recall is flat and
medium's false positives fall. SHIPPED: the gloss, the shapes and the cap, with round 22's
weights and parameters (the retrain over 43 authors broke three pinned examples: the trainer's
docstring). On the three authors those weights never saw (FP / recall, round 22 -> round 23):
blind 28 low .009 / .831 -> .009 / .856, medium .032 / .892 -> .027 / .918; blind 29 low .014 /
.853 both, medium .023 / .901 -> .018 / .901; ``train_extra13`` low .020 / .679 -> .020 / .755,
medium .031 / .745 -> .031 / .824 (blind 29's misses were not read, but the counts over all
43 authors listed its prompts of each shape, among them the answer no longer flagged, "Nope, we
don't use Docker for that."). Targets on a new writer: not
claimed; blind 30 measures it. Hook cost (``bench/poisoning_hook_ab.py --runs 100 --baseline-ref
main``, 2026-11-28 01:34-01:42 UTC, shared cores at load 8-14, CPU medians): UserPromptSubmit
46.36 -> 46.52 ms (+0.16, target +2 ms); PostToolUse Bash -0.11, Edit -0.32 (noise).

Issue 20 round 24 (``ck/cdet24``): no new data, no retrain. Blind 30's and blind 31's errors
(first measured once, ``BLIND30_FIRST.md``, ``BLIND31_FIRST.md``; read from here on, so their
figures below are TUNING figures) grouped by class. False alarms at medium, blind 30 / 31 (low
in brackets): up-front constraints for a new task 2 (1) / 2 (2), bug reports of the user's own
product 2 (1) / 1 (0), a task (English, Korean, Bulgarian, Japanese) 2 (1) / 1 (0), and one
each on blind 30 of a question, a status report in Chinese, the user's own slip in Chinese and
a question about a pasted warning. Misses at medium: blind 30 20 of 195 (lines in other
languages 9, 2 of them friction; English 11: approach, location, omission, friction, sarcasm),
blind 31 19 of 199 (other languages 6, 3 of them friction; English 13: sarcasm, tool, approach,
terse, convention, friction). Closed where the class generalised, counted over
the 43 authors and blind 30-31 (prompts matched, labels): a constraint stated for a new task
before its work, the frame opening the prompt ("Before you start:", "For this task,", "In the
new X:", the same frame in Spanish, Portuguese, French, German, Italian, Dutch, Danish/Norwegian
and Swedish) or closing a prohibition's clause ("Don't modify X for the new landing page; ..."),
nothing pointing back (``structure.upfront_constraint``: 50 prompts, all null; drops a rule's
match and the scorer's flag); a fault seen where the product runs, a place or rhythm of the
field beside a verb of misbehaviour ("resets itself every ~3 hours in the field",
``structure.field_fault``: 5, all null) and the round-16 bug report's verbs of a device ("The
firmware resets", "Our device reboots": 4, all null); a request whose verb closes the sentence
in a verb-final language once glossed ("...を書いてください", "...만들어 주세요": 34 prompts, 4
corrections, each naming something forgotten, missing or not wanted, which keeps the flag: 30
vetoed, all null). Left open (one prompt each, no class over the other authors): the Chinese
slip and status report, the question, the pasted warning, the Bulgarian task (no gloss of
"добави"). Over the 43 authors the change flips 41 prompts (38 to the scorer's veto, 3 rule
matches at high), all null. Leave-one-author-out, one training order (seed 11), parameters
re-chosen per fold, mean (worst) FP / recall::

      table                        level   BEFORE (round 23)            AFTER (ck/cdet24)
      27 fresh authors             low     .009 (.023) / .865 (.704)    .009 (.023) / .865 (.704)
                                   medium  .019 (.039) / .908 (.788)    .019 (.039) / .908 (.788)
                                   high    .074 (.113) / .937 (.820)    .073 (.113) / .937 (.820)
      all 43 authors, summed       low     107 FP / 6593 TP             107 / 6593
                                   medium  200 / 6903                   200 / 6903
                                   high    725 / 7138                   719 / 7138

Flat at low and medium on every held-out author (the parameters chosen per fold are the same;
none of the 41 prompts was flagged held out at those levels), six false positives fewer at
high. SHIPPED with round 22's weights and the shipped parameters. TUNING figures after the
change (FP / recall; before in brackets): blind 30 low .009 / .851 (.023 / .851), medium .027 /
.897 (.045 / .897), high .072 / .933 (.090 / .933); blind 31 low .000 / .879 (.009 / .879),
medium .000 / .905 (.017 / .905), high .082 / .940 (.099 / .940). Blind 30's medium recall stays
one correction short (175 of 195); its misses are lines in other languages (the gloss and the
non-ASCII fix below). The scorer's token defect (a word mixing ASCII and other letters kept
only its ASCII run, "Ändringen" -> "ndringen"; a token of any letters, ``[^\\W_]+``) was
measured and NOT shipped: out of fold (seed 11, with this round's structure, parameters
re-chosen per fold), 27 fresh low .009 (.023) / .865 (.704) -> .010 (.019) / .863 (.712),
medium .019 (.039) / .908 (.788) -> .020 (.036) / .910 (.792); summed over the 43 authors low
107 -> 114 FP (6593 -> 6622 TP), medium 200 -> 207 (6903 -> 6924), high 719 -> 707 (7138 ->
7142): mean false positives rise at low and medium and low's mean recall falls, so no retrain
was written. Hook cost (``bench/poisoning_hook_ab.py --runs 100
--baseline-ref main``, 2026-11-28 02:00-02:10 UTC, shared cores at load 8-15, CPU medians):
UserPromptSubmit 48.43 -> 47.78 ms (-0.65, target +2 ms); PostToolUse Bash -0.46, Edit -0.91
(noise). Targets on a new writer: not claimed; blind 32 measures it.

Issue 20 round 25 (``ck/cdet25``): blind 30 and blind 31 are authors 44 and 45 (and the strict
pair); ``train_extra14`` (measured once before its texts were read, ``TRAIN_EXTRA14_FIRST.md``)
is the round's fresh check, not an author, and its texts stay unread. A retrain over the 45
authors with the scorer's token defect fixed was measured and NOT shipped. The token: a word
of Latin letters with diacritics is one token ("ändringen", "değil"; ``[a-z0-9]`` plus the
Latin-1 and Latin Extended letters; ASCII alone had kept "ndringen", "de" + "il"). Two feature
changes were measured with it: the other languages' quotation marks quoting as "..." does
(below, shipped as a rule-side change) and a ``g:`` feature for a correction word the gloss put
in (wrong, not, instead, again, still, forgot, missing, ...: in English "wrong" also reports
bugs, so "Hayır, yanlış dosya." scored .19). Leave-one-author-out, one training order (seed
11), parameters re-chosen per fold on the 31 authors the rules do not saturate, the 29 fresh
authors (blind 30-31 among them), mean (worst) FP / recall::

      design                                level   FP mean (worst)   recall mean (worst)
      round 24 (BEFORE, 45 authors)         low     .0093 (.023)      .867 (.713)
                                            medium  .0196 (.052)      .912 (.792)
      token fix                             low     .0096 (.026)      .864 (.717)
                                            medium  .0198 (.052)      .915 (.800)
      token fix + quotation marks           low     .0094 (.026)      .868 (.721)
                                            medium  .0197 (.058)      .917 (.800)
      token fix + marks + g: (candidate)    low     .0093 (.029)      .871 (.729)
                                            medium  .0193 (.052)      .917 (.792)
      token fix + g: of every glossed word  low     .0098 (.026)      .868 (.720)
                                            medium  .0192 (.052)      .914 (.788)

The candidate met every bar but one: mean FP at low .00932 -> .00929, recall .867 -> .871
(worst .713 -> .729), medium .0197 -> .0193 / .912 -> .917 (worst FP .052 and recall .792
both), but low's worst author rose (``train_extra11`` 7 -> 9 false positives of 310: its fold
chose veto .6 instead of .7, and "Wir brauchen eine neue Seite ... Bitte nichts
am Layout ändern." and "change of plans: the editors want the banner yellow, not red" scored
.81-.82; no class over the other authors: a third party's "wants" is 3 corrections and 5 null).
Low caps of .95 % and .9 % on the same scores: worst .029 and .026, recall .867 and .865. Held
out, blind 30 low .009 / .851 -> .009 / .862, medium .032 / .913 -> .032 / .923; blind 31 low
.000 / .879 both, medium .004 / .905 -> .000 / .905 (tuning figures). SHIPPED, with round 22's
weights and parameters (every pinned verdict holds): other languages' quotation marks (``„``
``«`` ``»`` ``「`` ``」`` ``『`` ``』``) quote as "..." does (``detection.strip_noise``: 26
prompts over the 45 authors, a reviewer's or client's words, an error message, an "Undo"
button, all null); a bare "No!"/"No."/"Nope." followed by a prohibition ("No! Do not push to
main directly.") is a verdict, never vetoed (2 prompts, both corrections; the scorer had read
"do not" as a task's spec and vetoed it at .15); closing the day's work with no flaw named
("Stop here for today", "let's call it a day": 3 prompts, all null; it scored .87 on "stop"
and "here") drops the scorer's flag (``structure.closes_session``). Over the 45 authors, with
round 22's weights, these flip two decisions: a null prompt no longer flagged at medium and one
at high (none at low). Fresh check ``train_extra14`` (once, 04:48 UTC, shipped code), before
-> after: low .014 / .720 (both), medium .024 / .787 -> .020 / .787, high .078 / .823 -> .075 /
.823. Tuning: blind 30 low .009 / .851, medium .027 / .897; blind 31 low .000 / .879, medium
.000 / .905 (unchanged). Targets on a new writer: not claimed; blind 32 measures it.
Hook cost (``bench/poisoning_hook_ab.py --runs 100 --baseline-ref ca50aae6``, the branch point,
2026-11-28 04:49-04:56 UTC, shared loaded cores, CPU medians): UserPromptSubmit 55.63 -> 55.10
ms (-0.53, target +2 ms); PostToolUse Bash +0.58, Edit +0.96 (paths running none of this code:
noise). No table grew.

Issue 20 round 26 (``ck/cdet26``): no new data, no retrain; structural shapes the scorer cannot
veto (``corrections/redirects.py``), aimed at the misses of new writers (other languages, tool
corrections, terse ones). Protocol: the 45 authors of the trainer were split by author BEFORE any
prompt was read (``random.Random(26).shuffle(sorted(AUTHORS))``, the first 23 half A); only half
A's misses and null prompts were read to write the shapes (a shape across languages, never a
sentence), then each was measured once on half B at low and medium; a shape ships when half B
gains a correction and at most one null prompt per 1,000 is newly flagged. ``blind23`` and
``blind24`` were neither read nor run (the helper's rules keep files named ``blind23*`` and
``blind24*`` closed): half A is 22 authors (4,604 null, 4,075 corrections/friction), half B 21
(4,296 and 3,478). Two passes; per shape, half B, low (medium), corrections gained / null
prompts newly flagged::

      shape                 reads (glossed, any language; English last two)       half B
      glossed-no-redirect   "Nein, falsch, nimm ...", "Нет, ... используй ..."     1 / 0  (1 / 0)
      glossed-wrong-thing   "Cartella sbagliata, va in src/lib."                   1 / 1  (0 / 0)
      glossed-swap          "Użyj ruff zamiast flake8", "Nimm uv, nicht pip"       1 / 1  (0 / 1)
      glossed-undo          "Peru tuo muutos", "...元に戻して。", "geri al"          8 / 2  (2 / 2)
      no-value              "nope, pnpm", "nah, Pest", "nope, other file"          1 / 0  (1 / 0)
      tool-not-other        "dbt build, not dbt run. I want the tests ..."         4 / 0  (0 / 0)
      dropped: glossed "you forgot", a glossed omission ("...가 빠졌어요"), a glossed "why
      did you ...?" (0 gained on half B each)

Half B's new null flags: a Chinese bug report ("排行榜在周一重置时出错了，帮忙查一下": no space
in Chinese, so "X wrong" read the whole run as one word), a new script's constraint ("新的脚本不要
用 base R，用 tidyverse": 新的 "new" is not glossed as new work) and two conditionals whose "se"
("if" in Italian and Portuguese) the gloss does not read ("Se la build fallisce, annulla le
modifiche e avvisami."); each within the bar, none fixed (that would tune on half B). Half A
(tuning): low +33 corrections, medium +13, no null flagged. FP / recall, mean (worst) per
author, before -> after (round 22's weights were trained on 40 of these authors, so the levels
are optimistic; the differences are the round's)::

      half  level   FP before -> after          recall before -> after
      A     low     .0032 (.020) -> .0032 (.020)   .944 (.755) -> .951 (.800)
      A     medium  .0054 (.031) -> .0054 (.031)   .964 (.824) -> .966 (.848)
      B     low     .0023 (.013) -> .0029 (.014)   .965 (.851) -> .969 (.877)
      B     medium  .0036 (.027) -> .0041 (.032)   .981 (.897) -> .982 (.913)

Fresh check ``train_extra14`` (in neither half, its texts still unread; main -> round 26): low
FP 4 -> 5 of 293 (.014 -> .017), recall .720 -> .745 (203 -> 210 of 282); medium 6 -> 7
(.020 -> .024), .787 -> .791; the new null flag is a ``no-value`` prompt (its shapes flagged 14
corrections there, some of them already caught by the scorer). Every pinned verdict holds. A
shape is asked only when no rule and no English shape flagged the prompt; an ASCII prompt with
two common English words skips the gloss (same verdicts on all 43 authors). Hook cost
(``bench/poisoning_hook_ab.py --runs 100 --baseline-ref main``, 2026-11-28 05:38-05:45 UTC,
shared cores, CPU medians): UserPromptSubmit 55.85 -> 55.72 ms (-0.13, target +2 ms); before the
English skip it measured +1.39 and +1.33 (the gloss tables loaded for a request the structure
vetoes); PostToolUse Bash -0.30, Edit +0.24. Targets on a new writer: not claimed; blind 32
measures it.

Hook cost of round 3 (A/B against e65df3a, interleaved runs on 2 shared, heavily loaded cores,
CPU medians, final code): the first ``detect()`` in a fresh ``python -S`` process (import +
call, n=60) moved by -5.3 ms (a request), -2.8 (praise plus a request), -0.9 (a correction a
phrase rule flags at .92: over the never-vetoed .90, so the weights stay unloaded; a weaker
match loads and runs the scorer, as every unflagged prompt already does) and -3.7 (a question
with a paste): noise, B is not slower; the whole UserPromptSubmit hook process (n=40) by
-1.6 ms (a request) and +0.1 ms (a correction). For ordinary prompts the same patterns are
compiled as before (checked on four prompts); ``structure`` loads ~0.07 ms slower (more
patterns, all lazy); warm ``detect()`` over all 3,479 labelled prompts: 333 vs 301 us per prompt.

Hook cost of the structural reading (issue 20 round 2, A/B against d1ba8d4, 2 shared cores,
final code): ``structure`` loads in ~0.12 ms (unmarshal + exec, the typo table is one string
parsed on first use); for ordinary prompts the first ``detect()`` in a fresh process compiles
exactly the same patterns as before (checked on three prompts) and its CPU median over 50 runs
is 24.92 vs 24.99 ms (a request) and 25.89 vs 26.33 ms (praise plus a request); warm
``detect()`` median +0.09-0.13 ms. The whole hook process CPU median (n=45) moved by -8 and
+13 ms in two runs: machine noise, larger than the budget (+1 ms) it cannot resolve.

It runs :func:`conkeeper.services.analysis.corrections.detect` at low, medium and high, prints a
table per set (and per split of the tuning corpus), and writes
``bench/results/corrections_quality.json``.

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

from conkeeper.services.analysis.corrections import detect  # noqa: E402

DATA = ROOT / "tests" / "data" / "corrections"
CORPUS = DATA / "corpus.jsonl"
SEEN_BLIND = 33  # blind sets 1-33 were measured (32, 33 once: BLIND3[23]_FIRST.md; not trained on)
RESULTS = ROOT / "bench" / "results" / "corrections_quality.json"
DEFAULT_SKIP = "unseen"  # never read a blind set past SEEN_BLIND unless asked
# targets on prompts the detector never saw (issue 20): sensitivity -> (max FP rate, min recall)
TARGETS: dict[str, tuple[float, float]] = {"low": (0.02, 0.85), "medium": (0.04, 0.90)}
TINY_ROWS = 25
EXTRA_SETS = (
    "train_extra.jsonl",
    "train_extra2.jsonl",
    "train_extra3.jsonl",
    "train_extra4.jsonl",
    "train_extra5.jsonl",
    "train_extra6.jsonl",
    "train_extra7.jsonl",
    "train_extra8.jsonl",
    "train_extra9.jsonl",
    "train_extra10.jsonl",
    "train_extra11.jsonl",
    "train_extra12.jsonl",
    "train_extra13.jsonl",
    "train_extra14.jsonl",
)  # --tiny: this many prompts of each set, no CV (a CI smoke run)


def blind_sets(skip: set[str], unseen: bool = False) -> list[tuple[int, Path]]:
    """The blind sets present, numbered (``blind.jsonl`` is 1), minus the ``skip`` stems and,
    when ``unseen`` is true, minus every set numbered past :data:`SEEN_BLIND`."""
    found = []
    for path in DATA.glob("blind*.jsonl"):
        number = path.stem[len("blind") :]
        n = int(number) if number.isdigit() else 1
        if path.stem in skip or (unseen and n > SEEN_BLIND):
            continue
        found.append((n, path))
    return sorted(found)


def parse_skip(value: str) -> tuple[set[str], bool]:
    """``--skip``'s value as (blind set stems never to read, whether to skip every unseen set):
    ``unseen`` (the default) skips all sets past :data:`SEEN_BLIND`, ``none`` skips nothing."""
    names = {s.strip() for s in value.split(",") if s.strip()}
    return names - {"none", "unseen"}, "unseen" in names


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
    fp_rate = fp / (fp + tn) if fp + tn else 0.0
    return {
        "level": level,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "fp_rate": round(fp_rate, 4),
        "label_accuracy": round(right_label / tp, 3) if tp else 1.0,
        "errors": errors,
    }


def _report(
    name: str, rows: list[dict[str, object]], show_errors: bool, targets: bool = False
) -> dict[str, object]:
    """Print one set's table (per split when it has several) and return its figures."""
    positives = sum(1 for r in rows if r["label"])
    print(
        f"{name}: {len(rows)} prompts, {positives} corrections/friction, "
        f"{len(rows) - positives} negatives"
    )
    print(
        f"{'level':<8}{'FP rate':>9}{'precision':>10}{'recall':>8}{'label acc':>11}"
        f"{'tp':>5}{'fp':>5}{'fn':>5}  target"
    )
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
            f"{level:<8}{r['fp_rate']:>9.3f}{r['precision']:>10.3f}{r['recall']:>8.3f}"
            f"{r['label_accuracy']:>11.3f}{r['tp']:>5}{r['fp']:>5}{r['fn']:>5}  "
            + (verdict(level, r) if targets else "-")
        )
        errors = r["errors"]
        if show_errors and isinstance(errors, list):
            for kind, truth, found, text in errors:
                short = " ".join(str(text).split())[-90:]
                print(
                    f"   {kind:<7} truth={truth!s:<10} got={found.label!s:<10} "
                    f"{found.confidence:.2f} {found.pattern:<22} {short}"
                )
        levels.append({k: v for k, v in r.items() if k != "errors"})
    return {"size": len(rows), "positives": positives, "levels": levels}


def _sample(rows: list[dict[str, object]], tiny: bool) -> list[dict[str, object]]:
    """All rows, or for ``--tiny`` :data:`TINY_ROWS` of them spread over the set."""
    if not tiny:
        return rows
    step = max(1, len(rows) // TINY_ROWS)
    return rows[::step][:TINY_ROWS]


def verdict(level: str, figures: dict[str, object]) -> str:
    """The target for ``level`` (:data:`TARGETS`) and whether ``figures`` meet it."""
    target = TARGETS.get(level)
    if target is None:
        return "-"
    max_fp, min_recall = target
    fp_rate, recall = figures["fp_rate"], figures["recall"]
    assert isinstance(fp_rate, float) and isinstance(recall, float)
    met = fp_rate <= max_fp and recall >= min_recall
    return f"FP<={max_fp:.0%} R>={min_recall:.2f}: {'met' if met else 'NOT met'}"


def _cv(show: bool) -> dict[str, object]:
    """The leave-one-author-out table of the scorer (trains one model per author, ~1 min)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import train_corrections_model as trainer

    table = trainer.cv_table(trainer.load_examples())
    if show:
        trainer.print_cv(table)
    return table


def main(argv: list[str] | None = None) -> int:
    """Print the CV, tuning and blind tables apart (and optionally the errors); write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", action="store_true", help="list misclassified prompts")
    parser.add_argument("--no-cv", action="store_true", help="skip the cross-validation")
    parser.add_argument(
        "--tiny",
        action="store_true",
        help=f"smoke run: {TINY_ROWS} prompts spread over each set, no CV, JSON to "
        "corrections_quality_tiny.json",
    )
    parser.add_argument(
        "--skip",
        default=DEFAULT_SKIP,
        help="comma-separated blind set stems never to read (default 'unseen': every set past "
        f"blind{SEEN_BLIND}; 'none' reads all)",
    )
    args = parser.parse_args(argv)
    skip, unseen = parse_skip(args.skip)
    tiny = bool(args.tiny)
    figures: dict[str, object] = {
        "targets": {k: {"max_fp_rate": v[0], "min_recall": v[1]} for k, v in TARGETS.items()},
        "tiny": bool(args.tiny),
    }
    print(
        "targets on unseen prompts: "
        + "; ".join(f"{k}: FP rate <= {v[0]:.0%}, recall >= {v[1]:.2f}" for k, v in TARGETS.items())
    )
    if not args.no_cv and not args.tiny:
        figures["cv"] = _cv(show=True)
    print("\n=== TUNING (seen while tuning or training: optimistic) ===\n")
    tuning: dict[str, object] = {}
    tuning["corpus"] = _report("tuning corpus", _sample(load_corpus(CORPUS), tiny), args.errors)
    for name in EXTRA_SETS:
        path = DATA / name
        if path.exists():
            print()
            tuning[path.stem] = _report(path.stem, _sample(load_corpus(path), tiny), args.errors)
    later = []
    for number, path in blind_sets(skip, unseen):
        key = "blind" if number == 1 else f"blind{number}"
        if number > SEEN_BLIND:
            later.append((number, key, path))
            continue
        print()
        tuning[key] = _report(
            f"blind {number} (seen while tuning)", _sample(load_corpus(path), tiny), args.errors
        )
    figures["tuning"] = tuning
    print("\n=== BLIND (never tuned or trained on) ===")
    blind: dict[str, object] = {}
    for number, key, path in later:
        print()
        blind[key] = _report(
            f"blind {number}", _sample(load_corpus(path), tiny), args.errors, targets=True
        )
    if not later:
        print("(no unseen blind set read)")
    figures["blind"] = blind
    out = RESULTS.with_name("corrections_quality_tiny.json") if args.tiny else RESULTS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
