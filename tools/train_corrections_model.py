"""Train the learned correction scorer offline and write its weights into the package.

Why: the regex rules stopped generalising (each new phrasing needed a rule); a small logistic
regression over words and structural cues
(:mod:`conkeeper.services.analysis.corrections.features`) catches phrasings nobody wrote a rule for,
and its probability also vetoes a weak rule match it strongly disagrees with.
Pure Python (no numpy): the data is under 3,000 prompts and training takes seconds.

Data (``tests/data/corrections/``): one file per **author** (:data:`AUTHORS`): the tuning
corpus, ``train_extra.jsonl`` .. ``train_extra13.jsonl`` and blind sets 1-31 (each written by
a different helper; blind 26 and 27, each measured once, ``BLIND26_FIRST.md`` and
``BLIND27_FIRST.md``, since round 19; blind 28 and 29, measured once, ``BLIND28_FIRST.md`` and
``BLIND29_FIRST.md``, and ``train_extra13``, ``TRAIN_EXTRA13_FIRST.md``, since round 23; blind 30
and 31, ``BLIND30_FIRST.md`` and ``BLIND31_FIRST.md``, since round 25). The list is explicit:
``train_extra14`` (round 25's fresh check) and any later blind set are never read here, so they
stay unseen by the model and by every choice made here until it is added as an author.

Honest selection: **leave-one-author-out**. Each author is held out in turn; a model trained
on every other author scores it (out-of-fold probabilities). The decision parameters of each
sensitivity (the model's threshold, the probability under which a rule match is vetoed and the
rule confidence that is never vetoed) are then chosen, for each held-out author, on the
out-of-fold results of the other authors the rules alone do not saturate (:func:`choice_pool`,
:data:`RULES_SATURATED`): the most
recall (mean over authors) whose mean per-author false-positive rate added to the rules' own
stays within :data:`MAX_ADDED_FP`. The report prints each author's figures at the parameters
chosen without it, then the mean and the worst author, and the same over the fresh authors.
The shipped parameters are chosen the same way on all of them.

Why the all-author mean overestimates what a new author gets (issue 20, round 6): the
leave-one-author-out mean over 18 authors was low .012 / .911 and medium .019 / .942 while
the next new authors measured .022 / .648 and .024 / .643 first. Its held-out parts are only
the scorer's probabilities and the parameters; the rules were written after reading most
authors: alone they reach .84-1.0 recall on the 15 they were written from and .22-.60 on the
four fresh ones (``train_extra5``, ``train_extra6``, blind 12, blind 13), and each author counts
once in the mean however small (blind 1-6 are ~80 prompts, rule-saturated). Choosing the
parameters on all authors had the same flaw: there the rules already catch what the scorer
could, so a lower threshold only bought false positives, and the threshold stayed high.
Near-duplicate phrasing across authors' files is not needed to explain the gap: the rules'
share alone does. Hence three changes: the fresh authors' own summary
(the figure to read), the parameters chosen where the rules do not already catch nearly every
correction, and the **strict** run
(``--strict``): the two newest authors (:data:`RECENT`) held out together, the model trained
and every parameter chosen (on the remaining authors' out-of-fold results) without them: on
round 5's detector it gives exactly their first measurements (``train_extra6`` .019 / .348 and
.038 / .424, blind 13 .022 / .648 and .027 / .761), so it is an honest estimate, as long as
nothing in the features was written from those two authors (round 6's were not read for it).

Round 7 (22 authors: blind 14 and ``train_extra7`` added, both measured first: BLIND14_FIRST.md,
TRAIN_EXTRA7_FIRST.md): the strict run holds those two out (:data:`RECENT`); neither was read
to write a feature. Run on main's detector it reproduces their first figures exactly (blind 14
low .027 / .688, medium .036 / .796; ``train_extra7`` .017 / .508, .020 / .599). With the
round-7 cues and a rule veto up to .4 (:data:`VETO_GRID`) it gives blind 14 .022 / .780 and
.027 / .790, ``train_extra7`` .017 / .584 and .020 / .611 (tuning figures: the grid was chosen
on this run). Leave-one-author-out over 22 authors (mean (worst) FP / recall), main's features
and grid -> round 7: low .014 (.039) / .827 (.480) -> .011 (.039) / .813 (.480), medium .019
(.041) / .840 (.496) -> .017 (.039) / .831 (.504); the six fresh authors low .020 / .663 ->
.019 / .670, medium .026 / .695 -> .026 / .712. The mean falls on the authors the rules were
written from (corpus, blind 4, blind 8: their correct rule matches vetoed more often).

Round 8 (24 authors: blind 15 and ``train_extra8`` added, both measured first: BLIND15_FIRST.md,
TRAIN_EXTRA8_FIRST.md; the strict pair is now those two, :data:`RECENT`; neither was read to
write a feature). On main's detector the strict run reproduces their first figures exactly
(blind 15 low .022 / .646, medium .022 / .698; ``train_extra8`` .020 / .534, .023 / .565).
Three changes, each judged by it (tuning figures: every choice below was made on this run):
medium may add .5 % of false positives to the rules' own (:data:`MAX_ADDED_FP`; it sat at
~2 % against a 4 % target), the veto grid reaches .7 (:data:`VETO_GRID`), and the gloss reads
Czech, Swedish, Danish/Norwegian and Ukrainian and the verbs of a redirect in the other
languages (:mod:`...corrections.cues`); a rule match opening on a verdict ("that's wrong,
...") is never vetoed (held out, 19 of the 20 such vetoes were of corrections), though the
parameters are chosen as if it could be (:class:`_Author`). Strict (blind 15, then
``train_extra8``; FP / recall): low .022/.646 .020/.534 -> .018/.677 .020/.585, medium
.022/.698 .023/.565 -> .022/.757 .027/.660. Leave-one-author-out over 24 authors, mean
(worst), round 7's features and choice -> round 8: low .014 (.039) / .795 (.548) -> .015
(.040) / .799 (.544), medium .020 (.052) / .814 (.584) -> .023 (.059) / .867 (.632); the
eight fresh authors low .019 / .653 -> .019 / .694, medium .025 / .709 -> .029 / .766. Left
out: conjunction cues (a fix next to a statement about something already there, a short "X,
not Y"; strict low .018/.667 .017/.593, medium .027/.709 .027/.648: no better).

Round 9 (26 authors: blind 16 and ``train_extra9`` added, both measured first: BLIND16_FIRST.md,
TRAIN_EXTRA9_FIRST.md; the strict pair is now those two, :data:`RECENT`; neither was read to
write a feature). On main's detector the strict run reproduces their first figures (blind 16
low .013 / .691, medium .036 / .737 after the lead's medium fix; ``train_extra9`` .020 / .510,
.027 / .530). One change made the difference: the flag model keeps every feature
(:data:`MAX_FEATURES`); the cap of 1,500 had cut nearly every cue of structure and meaning, so
a new author's terse redirect ("put it on the stack") scored the bias alone. Tuning figures
(the cap was chosen on this run; FP / recall): strict blind 16 low .013/.691 -> .018/.846,
medium .036/.737 -> .036/.869; ``train_extra9`` low .020/.510 -> .027/.598 (over low's 2 %
target by two prompts of 300), medium .027/.530 -> .040/.665. Leave-one-author-out over 26
authors, mean (worst): low .017 (.039) / .726 (.440) -> .016 (.065) / .865 (.610), medium
.026 (.065) / .800 (.518) -> .031 (.086) / .911 (.673); the ten fresh authors low .019 / .616
-> .017 / .778, medium .029 / .684 -> .030 / .858. The worst FP rates are the corpus (low
.050, medium .086) and ``train_extra`` (.065, .078), authors the rules were written from. A
whole prompt undoing "that"/"it" is never vetoed, like a verdict (all 14 labelled ones are
corrections; added after these figures, for a seed example: "let's revert that"). Left out
(strict, one training order, against .018/.829 .036/.863 and .023/.594 .037/.649): an
"up-front constraint" cue ("before you start", "while you're at it", "for this ticket": 83
requests, 1 correction) .018/.829 .041/.863 and .023/.594 .037/.657; words
penalised x10 .022/.823 .036/.869 and .027/.590 .037/.657; the cues always kept with 1,500
in all .036/.680 .041/.749 and .023/.498 .033/.566; a cap of 3,000 .027/.743 .032/.829 and
.023/.558 .033/.625; refitting on the top 2,500 .022/.771 .022/.846 and .023/.510 .037/.629.
Training is ~3x faster (features numbered, weights in lists; the same weights to 1e-15).

Round 10 (28 authors: blind 17 and ``train_extra10`` added, both measured first:
BLIND17_FIRST.md, TRAIN_EXTRA10_FIRST.md; the strict pair is now those two, :data:`RECENT`).
The strict run's remaining authors are round 9's training set, so on round 9's detector it
gives exactly their first figures (blind 17 low .004 / .794, medium .013 / .861;
``train_extra10`` .023 / .825, .047 / .879). Both were then read, so every figure below is a
tuning figure. Their misses were forms, each checked on every author's prompts: mock praise
holding up the agent's work ("oh nice, a setState in build", "sure, let's just chmod 777":
37 corrections/friction, no null; a cue, a structural shape, and never read as approval by the
veto), "X, like the rest of Y" / "matching the others" (44 : 2, a cue), "I only wanted ...",
"that wasn't the ask" (overreach: 38 : 0), a prose line with inline code dropped whole as code
("`let!`, not `let`": its spans no longer count as code), and the gloss ("why did you", "as it
was", "in circles" in the languages read; Indonesian, Arabic, traditional Chinese). A prompt of
questions alone ("why is the whole file reformatted?", "seriously, again?") is no longer
vetoed: held out, the veto dropped such corrections at .9+; without it the chosen thresholds
rise and every summary below improved (on the cached out-of-fold results, the only change).
Strict (FP / recall): blind 17 low .004/.794 -> .004/.861, medium .013/.861 -> .013/.906;
``train_extra10`` low .023/.825 -> .023/.864, medium .047/.879 -> .050/.918 (its false positive
rates stay over target, by one and three prompts of 300). Leave-one-author-out over 28
authors, mean (worst), round 9's features -> round 10: low .017 (.065) / .866 (.602) -> .015
(.052) / .873 (.622), medium .030 (.086) / .902 (.669) -> .029 (.091) / .903 (.697); the twelve
fresh authors low .018 (.027) / .799 (.602) -> .018 (.027) / .808 (.622), medium .029 (.053) /
.866 (.669) -> .029 (.057) / .874 (.697). Kept the question veto but lifted it for a challenge
("why is ...", "where's the ...") or "again": strict the same but .004 less recall on
``train_extra10``, LOAO within .002. Left out: "isn't needed" as a flaw (11 corrections, 16
nulls: "no need to run the full suite" answers the agent). The mock-praise shape alone (the
rules only; the scorer's cue stays) adds .004 recall on ``train_extra10`` at both levels and
no false positive.

Round 11 (30 authors: blind 18 and ``train_extra11`` added, both measured first:
BLIND18_FIRST.md, TRAIN_EXTRA11_FIRST.md; the strict pair is now those two, :data:`RECENT`).
The strict run's remaining authors are round 10's training set: its model is round 10's table
and its parameters round 10's (low .84 / veto .7 / strong .95), so on round 10's detector it
gives their first figures (blind 18 low .013 / .834, medium .018 / .903; ``train_extra11``
.023 / .788, .039 / .856). Both were then read; every figure below is a tuning figure. Two
changes: a terse "X, not Y" also reads a comma and a two-word head ("pnpm, not npm", "hg38, not
hg19", "tabs please, not spaces"; over every author's prompts 4 more corrections flagged at
low, no null: "nope, not needed" and "remember not to ..." stay unread), and low may add .1 %
of false positives (:data:`MAX_ADDED_FP`, chosen on this run and the fresh authors' LOAO).
Strict (FP / recall): blind 18 low .013/.834 -> .013/.857, medium .018/.903 unchanged;
``train_extra11`` low .023/.788 -> .023/.811 (the new shape alone .792), medium .039/.856
unchanged. Leave-one-author-out over 30 authors, mean (worst), round 10's choice (with the
new shape) -> round 11: low .017 (.065) / .869 (.641) -> .018 (.065) / .872 (.641), medium
.029 (.078) / .903 (.701) unchanged; the 14 fresh authors low .019 (.031) / .819 (.641) ->
.020 (.031) / .824 (.641), medium .030 (.062) / .880 (.701) unchanged. On round 10's own 28
authors and out-of-fold results, round 10 -> round 11: low .015 (.052) / .873 (.622) -> .017
(.065) / .874 (.637); fresh .018 (.027) / .808 (.622) -> .020 (.037) / .818 (.637). Left out:
low's cap at .2-.5 % (strict blind 18 .857-.880, ``train_extra11`` .822-.830, no false positive
more there, but the fresh authors' mean FP .021-.023 and worst .036-.047, over low's 2 %).

Round 12 (32 authors: blind 19 and blind 20 added, both measured first: BLIND19_FIRST.md,
BLIND20_FIRST.md; the strict pair is now those two, :data:`RECENT`). The strict run's
remaining authors are round 11's training set, so on round 11's detector it gives exactly
their first figures (blind 19 low .018 / .917, medium .018 / .928; blind 20 .004 / .847, .009 /
.887). Both were then read; every figure below is a tuning figure. The scorer's features are
unchanged (the fits of this run are the ones every figure here was taken from); two changes:
shapes of the rules read wider forms (:mod:`...corrections.structure`: "X, like the rest of Y"
as a shape in a prompt that asks for nothing new, mock praise of inline code or of a thing that
"now" does something, "didn't ask for ..."/"never asked for ..." with the subject dropped, and
"as I asked in the first message"; over every author's prompts 51 more corrections flagged at
low by the rules, no null), and medium may add .8 % of false positives (:data:`MAX_ADDED_FP`).
Strict (FP / recall): blind 19 low .018/.917 -> .018/.922, medium .018/.928 -> .018/.939;
blind 20 low .004/.847 -> .004/.870, medium .009/.887 -> .009/.915 (the shapes alone: .922
.933 and .870 .910). Leave-one-author-out over 32 authors, mean (worst), round 11's rules and
caps -> round 12: low .019 (.078) / .886 (.665) -> .019 (.078) / .888 (.669), medium .031
(.091) / .913 (.725) -> .033 (.091) / .923 (.745); the 16 fresh authors low .020 (.036) / .849
(.665) -> .020 (.036) / .852 (.669), medium .029 (.053) / .891 (.725) -> .033 (.060) / .901
(.745) (the worst is ``train_extra11``, .036 -> .045 at medium). Left out: low's cap at .2-.5 %
(strict blind 20 .870-.898 at .009 FP, blind 19 unchanged; the fresh authors' mean FP .021-.023,
over low's 2 %); medium at 1-1.5 % (strict .022/.939-.950 and .009-.018/.921-.927, fresh mean
FP .036-.039, worst .060-.063: too near medium's 4 %); choosing on the worst fresh author
instead of the mean: every fresh author's total FP within .015-.02 (low) / .03-.04 (medium)
gave strict low .744-.867 and .712-.808 (the rules' own false positives on ``train_extra11``,
.023, bind before the scorer adds any), the worst ADDED FP within .005-.015 / .01-.025 gave low
.750-.922 and .723-.859: both spend less than the mean does. Of the strict misses left, four
score .93-.99 but are dropped by the structural veto (:func:`...structure.model_vetoed`: "make
it lazy" and "start with" read as new work, "like I wrote" and "we moved to" as the user's own
action): the next place to look.

Round 13 (33 authors: blind 21 added, measured first: BLIND21_FIRST.md, low .031 / .910, medium
.036 / .936; the strict pair is now blind 20 and blind 21, :data:`RECENT`). Held out alone
(``--held blind21``), round 12's detector gives its first low figure exactly and medium .941: the
detector dropped a vetoed rule match whose probability (.63-.70) reached medium's threshold,
which the trainer counts as flagged; ``detect`` now gives such a match the scorer's own verdict.
Both strict authors were read; every figure below is a tuning figure. Three kinds of change,
each judged on the cached out-of-fold scores of every author (structure) or by a refit
(features). Structure (:mod:`...corrections.structure`), each counted over every author's
prompts: a constraint stated up front is a new task, not the agent's past ("before you start",
"in this session", "while you do it": 45 prompts, no correction; "before you push" no longer
points back, "since you moved" still does); "the wrong X" is a verdict only of the agent's thing
(54 null openings freed, no correction: "the drone yaws the wrong way"); a way back that then
reads or explains is navigation (79 prompts, all null); a question why a tool does something
(35, all null), "you asked about ...: no, ..." and "your code was fine" are no corrections; and
the scorer's veto no longer drops what only looked like new work or the user's own action ("we
moved to X", "like I wrote", "make it static", "composables start with use", "X is gone", praise
then "one thing", mock praise of "every X now", "I asked for X", a verdict: each a class of
corrections with none or few nulls). Features (:mod:`...corrections.cues`): the gloss reads an
ordinary request in the other languages too (the verbs of new work, "new task", the user's own
slip, "carry on", thanks, "if"; held out, the fresh authors' lines in other languages had twice
the false positives of their English ones and 10 points less recall), and the scorer's veto
reads new work in the glossed words; "Task: add ..." and "heading: add ..." are new work, "I was
on the wrong branch" the user's slip. Medium may add .6 % of false positives (was .8 %). Strict
(FP / recall), round 12's design with blind 21 as an author -> round 13: blind 20 low .004/.881
-> .009/.915, medium .013/.915 -> .013/.938; blind 21 low .031/.910 -> .013/.941, medium
.040/.941 -> .018/.952. Leave-one-author-out over 33 authors, mean (worst): low .019 (.091) /
.890 (.677) -> .019 (.091) / .911 (.725), medium .033 (.091) / .925 (.749) -> .029 (.091) /
.937 (.789); the 17 fresh authors low .019 (.036) / .859 (.677) -> .014 (.031) / .891 (.725),
medium .032 (.057) / .904 (.749) -> .025 (.044) / .921 (.789); blind 12-21 alone low .017
(.036) / .897 -> .015 (.031) / .927, medium .025 (.049) / .934 -> .021 (.044) / .947. By stage
(fresh means, low then medium): the structure on round 12's scores .019/.859 .032/.904 ->
.015/.864 .028/.910; the gloss refit .015/.880 .029/.919; "Task:", the slip and the veto's
redirects .014/.889 .025/.921 (with .6 %); "if" and two Chinese words .014/.891 .025/.921 (at
noise). Medium at .8 % with round 13's features: fresh .028 (.058) / .924, blind 12-21 .024
(.058) / .950. Left out: "for/in the new X" as a new task (35 nulls, 13 corrections; the
fresh means moved within noise, corrections like "the migration for the new column" lost);
low's cap at 0 or -.1 % (the worst FP, blind 13's requests worded like fixes, did not move;
recall -.008 / -.015); glossing German "mach" as "make" ("mach das rückgängig" is an undo). Left for
later: blind 13's requests worded like corrections ("replace all X with our Y", "remove the
deprecated code paths", "rollback script for V57 please"), the largest class of low's false
positives left on a fresh author.

Round 14 (34 authors: blind 22 added, measured first: BLIND22_FIRST.md, low .040 / .737, medium
.044 / .783; the strict pair is now blind 21 and blind 22, :data:`RECENT`). Held out alone
(``--held blind22``), round 13's detector gives its first figures exactly. Both strict authors
were read, and so were the held-out misses of every author; every figure below is a tuning
figure. What the misses had in common (each line read roughly by its letters and words): lines
in other languages (held out, the 18 fresh authors missed 24 % of their corrections in other
languages at low against 11 % of their English ones; blind 22 16 of 34 against 36 of 164),
corrections with no negation word (14 % missed against 9 % with one), corrections after praise
(18 %), terse ones (14 %); "why did you ...?" was caught (5 % missed). Changes, each counted
over every author's prompts (structure) or judged by a refit (features): the gloss reads Hindi
in Latin script with its own table (its "hai" had been read as Italian "you have": three of
blind 22's false positives), judges a line with other letters English on its whole words ("işi"
gave the tokens "i" "i": a Turkish line was never glossed), and reads, in the languages already
glossed, the words of an undo, a thing broken, deleted or forgotten, "switch to", "like the
others", production, hours lost, fed up, "three times", "it (doesn't) work(s)", "not yet", "not
needed" and the user's own slip, and Vietnamese; a prompt in another language opening on "no"
that answers the agent is read as the English answer once glossed (10 nulls, no correction);
giving up on the agent ("forget it, I'll write it myself", "I'm closing this session"), "I'm
repeating myself" and "for hours" are time lost, never the user's own action; irony with no
praise word ("I'm sure nobody will ever look there", "because what every X needs is") and "cool,
so the X now ..." are mock praise; "why is ... now?" is a shape (19 prompts, all corrections)
and, with "why is there ...", a cue; "I mixed up the two datasets" is the user's slip. Low may
add .2 % of false positives (was .1 %, see :data:`MAX_ADDED_FP`). Strict (FP / recall), round
13's design with blind 22 as an author -> round 14: blind 21 low .013/.926 -> .009/.926, medium
.013/.952 -> .018/.957; blind 22 low .040/.702 -> .013/.778, medium .053/.778 -> .031/.838.
Leave-one-author-out over 34 authors, mean (worst): low .019 (.078) / .910 (.689) -> .021 (.091)
/ .917 (.757), medium .029 (.091) / .931 (.778) -> .029 (.091) / .935 (.812); the 18 fresh
authors low .015 (.040) / .877 (.689) -> .015 (.031) / .895 (.757), medium .025 (.044) / .912
(.778) -> .025 (.052) / .922 (.812); the 17 other than blind 22 (no change was written from
their English lines; the categories of the gloss were picked after reading the foreign-language
misses of ``train_extra`` 6, 8 and 9) low .013 (.022) / .886 (.689) -> .015 (.031) / .901
(.757), medium .024 (.042) / .920 (.797) -> .025 (.052) / .927 (.812); blind 12-22 alone low
.015 (.040) / .910 -> .014 (.031) / .920, medium .022 (.044) / .933 -> .020 (.040) / .940. By
stage (the 17, low then medium): Hindi, the whole-word reading, the first words, giving up and
irony .015/.893 .025/.921; "switch to", "like the others", production, hours, fed up .014/.896
.024/.925; "why ... now" .015/.899 .024/.927; low at .2 %, the glossed "no" answer and
"repeating myself" .015/.901 .025/.927. The authors with most lines in other languages gained
most (low recall ``train_extra6`` .732 -> .764, ``8`` .830 -> .866, ``9`` .689 -> .757, ``11``
.848 -> .871). The worst FP rates rose by two prompts each (low blind 13 .022 -> .031, medium
``train_extra11`` .042 -> .052, its rules alone .029). Left out: a word feature kept only when
three authors use it (fresh 17 low .013/.886 -> .014/.883, medium .024/.920 both; strict blind
22 low .040/.702 -> .040/.727, medium FP .053 -> .062), medium at .8 % or 1 % (fresh 17 .027
(.052) / .930, .029 (.062) / .932), low at .3 % or .4 % (.017 (.035) / .904, .018 (.032) /
.905); "brilliant idea to" and "love/amazing how" as irony (10 labelled, all corrections or
friction, but both are said as real praise too). Left for later: blind 22's redirects by tool or
approach whose reason names the flaw ("replay that trace in CANoe; python-can messes up the
timing", "Build through the Tasking toolchain script. The gcc build doesn't match ..."), 13 of
its 36 English misses at low with round 13.

Round 15 (35 authors: blind 23 added, measured first: BLIND23_FIRST.md, low .041 / .821, medium
.050 / .836; the strict pair is now blind 22 and blind 23, :data:`RECENT`). Both new writers
measured 2-3x the fresh authors' held-out mean false-positive rate at first (blind 22 low .040,
blind 23 .041, against means near .015): low sat at the edge of its 2 % target on average, so
over it on the next writer. Low and medium are now capped on the mean per-author TOTAL
false-positive rate, the rules' own included (:data:`MAX_TOTAL_FP`: low 1 %, half its target;
medium 2.2 %); the added-FP cap could not see the rules' "No, ..." answers and requests worded
like fixes. Blind 23's false positives at low (round 14) were 7 scorer flags on lines in other
languages (status reports, navigation, "no" answers) and 2 rule matches on "No, ..." answers;
the gloss misread three of them (Spanish "ya" as informal "you", "また明日" as "again") and
reads them now, with "no problem" in four languages and Japanese "いいえ" and "ていません".
Leave-one-author-out, 35 authors, mean (worst) FP / recall, round 14's design with blind 23 as
an author -> round 15 (tuning figures: blind 23 was read)::

    all 35      low     .020 (.091) / .909 (.752)    .013 (.065) / .892 (.712)
                medium  .028 (.091) / .931 (.812)    .026 (.091) / .923 (.804)
    19 fresh    low     .016 (.041) / .886 (.752)    .010 (.019) / .858 (.712)
                medium  .025 (.052) / .914 (.812)    .021 (.045) / .907 (.804)
    blind 22    low     .009 / .813                  .004 / .758
                medium  .018 / .854                  .013 / .843
    blind 23    low     .041 / .816                  .018 / .801
                medium  .050 / .836                  .036 / .826

By stage (19 fresh): the caps alone, round 14's features, low .009 (.027) / .853, medium .022
(.045) / .906; the gloss alone, round 14's caps, low .017 (.031) / .889, medium .025 (.055) /
.917. Low caps 1.4 / 1.2 / 1.1 / 1.0 % (round 14's features): .014 (.036) / .881, .012 (.036) /
.867, .010 (.032) / .861, .009 (.027) / .853; medium 2.0 %: .020 (.045) / .898. Split by
language (19 fresh, held out), before -> after: low English FP .015 -> .010, recall .898 ->
.874; other languages FP .021 -> .012, recall .772 -> .717; medium English .024 -> .021, .924
-> .917, other languages .039 -> .030, .823 -> .810. Every fresh author's low FP rate is now
within 2 % held out (worst .019); the recall given up is the price, most of it on lines in
other languages. Of the 91 held-out false positives at low over all authors, 64 are the
scorer's (2 "No, ..." answers) and 27 the rules' (5 "No, ..." answers: "No. Only the production
workspace uses the remote backend" is an answer or a correction only by what the agent asked).
Strict (blind 22 and blind 23 held out together, round 15's features; FP / recall, low then
medium), round 14's caps -> round 15's: blind 22 .018/.793 .027/.838 -> .000/.753 .018/.833;
blind 23 .027/.801 .045/.821 -> .018/.761 .036/.816. Both within the false-positive bounds
held out, both short of the recall targets (the next work: recall on lines in other languages
and on terse redirects, without the FP the caps now forbid). Shipped (chosen on all 35): low
.82 / veto .7 / strong .95, medium .66 / .7 / .95. A complaint after a long paste ("since your
tweak the dashboard shows zeros" under 300 pasted lines, a test) is now queued from medium: at
low the scorer's .68 is under the veto.
Left out: reading a line in another language by its glossed words only (its own words, "de",
"la", "je", carry weight because most such lines the authors wrote are corrections): held out
it removed no false positive on those lines (14 -> 15 of 666) and cut their recall .772 ->
.710 (19 fresh, round 14's caps: low .015 (.031) / .877, medium .025 (.054) / .904); a cap on
the worst author's added FP (1 %: fresh low .013 (.028) / .840; .5 %: .008 / .737).

Round 16 (36 authors: blind 24 added, measured first: BLIND24_FIRST.md, low .032 / .734,
medium .059 / .807; the strict pair is now blind 23 and blind 24, :data:`RECENT`). Blind 24 was
read; its false positives at low included three bug reports of the user's own product ("Our API
returns a 500 when the cursor param is empty. It should return the first page instead."): such
a report, opening on the product's part and a verb of misbehaviour with nothing tying it to the
agent's change ("your", "since", "after", "now", "again", "still", "the change", a question),
now vetoes the scorer's flag (:func:`...structure.own_bug_report`: 26 prompts over 36 authors,
all null); and giving up ("this isn't going anywhere", "I'm done with this", "I give up",
"I'll ask someone on the team", "leave it, I'll ...": 40 prompts, all friction) is read by
:func:`...structure.gives_up` (the scorer's ``m:wasted`` cue, and never vetoed). Caps unchanged.
Leave-one-author-out, 36 authors, out-of-fold scores from ONE training order (``SEEDS[:1]``:
the machine was shared by eight helpers; the shipped weights average all five), mean (worst)
FP / recall, round 15 with blind 24 as an author -> round 16::

    all 36      low     .012 (.065) / .879 (.688)    .012 (.065) / .882 (.696)
                medium  .025 (.078) / .921 (.780)    .025 (.091) / .929 (.780)
    20 fresh    low     .010 (.041) / .839 (.688)    .010 (.022) / .846 (.696)
                medium  .022 (.068) / .901 (.780)    .021 (.054) / .905 (.780)
    blind 24    low     .041 / .760                  .022 / .755
                medium  .068 / .818                  .054 / .823
    blind 23    low     .018 / .796                  .018 / .806
                medium  .032 / .831                  .032 / .836

Medium's worst all-author FP is ``train_extra`` (.078 -> .091, one prompt of 77; an author the
rules were written from). Shipped (chosen on all 36, the one-order scores): low .83 / veto .7,
medium .65 / veto .5, high .51. Strict (blind 23 and blind 24 held out together, one order;
FP / recall, low then medium), before -> after: blind 23 .023/.791 .036/.826 -> .023/.796
.036/.836; blind 24 .027/.750 .054/.797 -> .013/.760 .041/.807.
Not met on a new writer: blind 24's held-out recall (.755 / .823) and medium FP (.054), and
the fresh worst recall (``train_extra6`` .696, ``train_extra9`` .713), stay short; 223 of the
820 held-out misses at low (all 36) are non-ASCII lines, most in other languages. A hand example
that moved: "now the app crashes on start" (rule ``now-it-fails``, .96) is vetoed at low and
medium by the retrained scorer (round 15 shipped low .82 / .7 / strong .95, medium .66 / .7 /
.95; the strong rule confidence is now 1.01 at both, so a .96 match can be vetoed), flagged at
high.

Round 17 (37 authors: blind 25 added, measured first: BLIND25_FIRST.md, low .018 / .789,
medium .032 / .842; the strict pair is now blind 24 and blind 25, :data:`RECENT`). Error
analysis of round 16's design with blind 25 as an author (one training order, the 21 fresh
authors held out one at a time): at low 737 misses, 199 of them lines in other languages
(recall there .628 against .861 on English lines); at medium 120 false positives, a dozen of
them status reports ("I restarted the mlflow server, try again", "The Loki retention change is
live now"). Changes: the gloss reads the languages the newest writers brought that no table
read (Swahili, Greek, Hebrew, Thai, Hungarian, Finnish, Romanian: their words for no, not,
wrong, instead, still, again, same, use, stop, undo, why, should, only, forgot, thanks) and
redirect forms the other tables lacked (Spanish "así no", "tiene que ser", Swedish "du
glömde", "ta bort", Polish "zły", "ma być", Portuguese "faltou", "certo", Korean "쓰세요",
"예전", more Vietnamese and Hindi); a report of an operation the user ran, naming no flaw
(:func:`...structure.status_report`: 28 prompts over 37 authors, all null), and "there's a
bug/typo/leak in ..." not tied to the agent (:func:`...structure.own_bug_report`: 5, all null)
veto the scorer's flag. Caps unchanged. Leave-one-author-out, one training order, mean (worst)
FP / recall, round 16's design with blind 25 as an author -> the gloss alone -> round 17::

  21 fresh  low    .010 (.023) / .839 (.696)  .010 (.019) / .857 (.708)  .010 (.019) / .857 (.704)
            medium .022 (.045) / .899 (.789)  .022 (.042) / .904 (.780)  .023 (.042) / .906 (.788)
  18 fresh  low    .008 (.023) / .848 (.696)  .008 (.019) / .862 (.708)  .009 (.019) / .862 (.704)
  (-b23-25) medium .020 (.042) / .910 (.789)  .020 (.042) / .910 (.780)  .020 (.042) / .912 (.788)
  all 37    low    .011 (.065) / .877 (.696)  .012 (.065) / .887 (.708)  .012 (.065) / .887 (.704)
            medium .025 (.091) / .925 (.789)  .025 (.091) / .932 (.780)  .025 (.091) / .933 (.788)

Strict (blind 24 and blind 25 held out together, one order; FP / recall, low then medium):
blind 24 .022/.755 .054/.823 -> .022/.807 .050/.859 (gloss) -> .022/.807 .054/.859; blind 25
.018/.800 .036/.837 -> .018/.874 .032/.895 -> .018/.874 .036/.895. The gloss's words were
picked from the unglossed lines of every author (blind 23-25 brought the new languages), so
these are tuning figures; the 18 fresh authors other than blind 23-25 are the nearest to
honest (+.014 recall at low, FP unchanged). The two vetoes bought no false positive back: the
caps turn the room they make into recall (held-out false positives over all 37 authors at
medium 188 -> 191, at low 86 -> 91, the fresh mean rate within .001). Over the 21 fresh authors
at low, recall on lines in other languages .628 -> .699, on the others .861 -> .872. A second
training order (seed 12 alone, no strict run), BEFORE -> round 17, 21 fresh: low .010 (.023) /
.841 (.704) -> .010 (.023) / .854 (.717), medium .022 (.045) / .902 (.800) -> .022 (.048) /
.911 (.797); 18 fresh (not blind 23-25): low .851 -> .858, medium .912 -> .917. Shipped
(chosen on all 37, the one-order scores): low .82 / veto .7, medium .67 / veto .4 / strong
.95, high .51. Not met on a new writer: the strict medium FP of blind 24 (.054) and the worst
fresh recall (``train_extra6`` .704 at low) stay short of the targets. A hand example that
moved: "there is a typo in the README, line 12" read .81 with the retrained weights (four
prompts opening on "there", three corrections, now carry a feature); the bug-report veto drops
it.

Round 18 (no new author; blind 26 stays unseen): the weights and parameters are round 17's.
Judged on round 17's cached out-of-fold scores (one order), two vetoes of
:mod:`...corrections.structure` (a status report as a state; a flaw tied to the agent lifting
the new-work and own-action vetoes) gave, 21 fresh authors at parameters re-chosen per fold,
low .010 (.019) / .858 -> .009 (.023) / .861 and medium .023 (.042) / .906 -> .023 (.045) /
.908, and at round 17's shipped parameters fewer false positives and more recall at both
levels (all 37: 86 -> 85 and 185 -> 183 false positives, +2 and +4 corrections); re-chosen,
medium moves to .64 / veto .7 and loses recall on the authors the rules were written from (all
37 .934 -> .925), so the parameters were not rewritten. Retrained one-order runs, the same
structure, left out: MIN_DF 6 (fresh low .835, medium .898), L2 x 12/df below 12 prompts (low
.858, medium .911; strict blind 24 medium FP .059) and cues for a short "X, not Y" and "the
<thing> is <value>" (low .855, medium .906): none beat the features as they are.

Round 19 (39 authors: blind 26 and blind 27 added, each measured once first: BLIND26_FIRST.md
low .018 / .823, medium .037 / .864; BLIND27_FIRST.md low .018 / .822, medium .027 / .883; the
strict pair is now those two, :data:`RECENT`). Their misses at low and every author's held-out
misses in other languages were read: the gloss reads the words each language still lacked
(:mod:`...corrections.cues`, "round 19"), and irony, mock praise of a thing that "is now"
worse and an omission named as a state are shapes (:mod:`...corrections.structure`). Caps and
design unchanged. Leave-one-author-out, one training order, mean (worst) FP / recall, round 18's
design with the two authors added -> round 19: 23 fresh low .009 (.023) / .853 (.692) -> .009
(.019) / .858 (.684), medium .022 (.042) / .909 (.784) -> .022 (.042) / .913 (.772); the 21
fresh other than blind 26-27 low .856 -> .855, medium .910 -> .912 (FP .008 -> .009, .021 both);
all 39 low .884 -> .888, medium .921 -> .924 (FP .025 -> .024). Strict (the pair held out
together; tuning figures, their misses were read): blind 26 .018/.823 .036/.879 -> .018/.899
.032/.934; blind 27 .018/.832 .041/.883 -> .018/.873 .032/.914. The gains sit on the pair
whose misses were read; on the other fresh authors recall is flat and the worst
(``train_extra6``) falls .008 / .012: targets on a new writer not claimed; blind 28 measures it.
Written: the weights averaged over five orders (:data:`SEEDS`); the parameters chosen on all 39
authors' one-order out-of-fold scores (low .84 / veto .7 / strong .95, medium .63 / .7 / 1.01),
then medium set by hand to .63 / .5 / .95: the chosen pair broke the levels' nesting (a .96 rule
match kept at low and vetoed at medium) and the pinned 300-line paste complaint (23 fresh at
these parameters, out-of-fold: medium .021 (.041) / .915 -> .023 (.042) / .917).

Round 20 (40 authors: ``train_extra12`` added, measured first: TRAIN_EXTRA12_FIRST.md, low
.010 / .657, medium .048 / .736; the strict pair is now blind 27 and ``train_extra12``,
:data:`RECENT`). Its misses at low were read (only its own; no other author's lines this
round): 49 of 95 were lines in other languages, many in languages no table read (Tagalog,
Lithuanian, Estonian, Serbian/Croatian, Slovak, Afrikaans, Bengali, romanised Tamil), then
sarcasm (8), omissions (12) and redirects of approach, tool or fact. The gloss reads those
languages' dictionary words for no, wrong, instead, again, still, same, use, stop, undo,
forgot, why and missing, and phrases of four words (:data:`...cues.GLOSS_LONGEST`: four
entries had never matched); an omission as a heading or a closing state, a closing "Very
reproducible."/"Bold." and a doubled praise word are shapes. The chooser keeps the levels
nested (:func:`nested`: medium's threshold, veto and never-vetoed confidence no higher than
low's), so the parameters are chosen, not set by hand. Leave-one-author-out, one training order
(out-of-fold scores computed for the 26 authors the parameters are chosen on; the 14 the rules
saturate choose nothing), mean (worst) FP / recall, round 19's design with ``train_extra12`` as
an author -> round 20::

  24 fresh          low    .010 (.019) / .853 (.657)   .010 (.019) / .856 (.700)
                    medium .022 (.041) / .907 (.729)   .022 (.041) / .912 (.788)
  23 fresh (not     low    .010 (.019) / .862 (.704)   .010 (.019) / .860 (.700)
  train_extra12)    medium .021 (.040) / .915 (.796)   .021 (.036) / .916 (.788)
  strict blind 27   low .018 / .873, medium .036 / .914 (both)
  strict extra12    low .014 / .664 -> .014 / .758, medium .045 / .726 -> .045 / .823

The gains sit on the author whose misses were read (tuning figures); on the 23 other fresh
authors, the nearest to honest, recall is flat (low -.002, medium +.001) and medium's worst FP
falls .040 -> .036. Strict ``train_extra12`` stays over medium's 4 % (13 of 290). NOT written:
the weights averaged over five orders (10,695 flag weights) with the parameters chosen, nested,
on the 26 authors' one-order scores (low .84 / veto .6 / strong 1.01, medium .64 / .6 / 1.01,
high .51) broke two pinned hand examples: "Impressive, the page is now twice as fast. Thanks!"
scores .93 (flagged at every level; the new sarcasm lines taught "impressive ... now") and the
complaint after a 300-line paste scores .58, under medium's veto .6 and threshold .64. The
shipped weights and parameters stay round 19's; the gloss and shapes above are read by them.

Round 21 (40 authors, no new data; the retrain shipped). Two designs made round 20's retrain
shippable, neither fitted to a sentence: sincere praise of a concrete improvement (a praise word,
"faster"/"twice as fast"/"green"/"works", nothing turning it: no contrast, "again", negation,
question, bad outcome, irony or cause such as "because ..." or "by putting allow(all) ...";
:func:`...structure.sincere_praise`: over the 38 readable authors 56 prompts, all null) drops a
phrase rule's match and the scorer's flag, and is no mock-praise exhibit; the prose written
after a paste is its own segment's feature ``s:after-paste`` (weight +.15) instead of the
prompt's paste share (``s:mostly-pasted``, -.76): 135 prompts over the authors have such a
tail (67 null). Leave-one-author-out, one training order (26 authors' out-of-fold scores),
round 20's design (its retrain) -> round 21, mean (worst) FP / recall::

  24 fresh          low    .010 (.019) / .856 (.700)   .010 (.019) / .856 (.700)
                    medium .022 (.041) / .912 (.788)   .022 (.041) / .912 (.788)
  23 fresh (not     low    .010 (.019) / .860 (.700)   .010 (.019) / .860 (.700)
  train_extra12)    medium .021 (.036) / .916 (.788)   .021 (.040) / .916 (.788)
  strict blind 27   low .018 / .873 (both), medium .036 / .914 -> .041 / .914
  strict extra12    low .014 / .758 (both), medium .045 / .823 -> .041 / .823

Flat: the strict pair's medium FP trades one negative (blind 27: 8 -> 9 of 221; extra12 13 ->
12 of 290; the strict parameters chose medium .63 where round 20's chose .64). Written: the
weights averaged over five orders (10,694 flag weights) with the parameters chosen nested on
the 26 authors' one-order scores, low .84 / veto .7 / strong .95, medium .65 / .6 / .95, high
.51; every test passes unchanged (the pinned praise scores under every threshold and the
tail after 300 pasted lines .81, over every veto). The tie-break (equal mean recall: the higher
threshold, then the smaller veto) was checked on the same scores against the larger veto first
and the smaller veto before the threshold (the bench docstring).

Round 22 (40 authors, no new data; no retrain: the weights are round 21's). The held-out false
positives at medium and low of the 26 authors the parameters are chosen on (round 21's cached
one-order out-of-fold scores; the 14 rule-saturated authors are never scored) were read and
grouped: at medium 151 (47 rule matches): "No"/"Nope"/"Nein" answers (~29), bug reports of the
user's own product (~15), task texts and up-front constraints full of correction words (~15),
the user correcting their own words (~9), quoted review comments or logs with a question (~8),
approval in other languages (~9), moves to another repo or branch (~6). Closed where a shape
generalised over all 40 authors (:mod:`...corrections.structure`, judged on the same cached
scores with the parameters re-chosen per fold): a "No" answering with a state of the world, the
user's own slip (English, or once glossed) and a move to another repo, branch or service drop
the rule's match and/or the scorer's flag (130 prompts over the 40 authors, all null); medium's
cap on the mean total FP rate goes 2.2 % -> 2.0 % (:data:`MAX_TOTAL_FP`) so the room becomes
margin, not only recall. Mean (worst) FP / recall, round 21 -> round 22::

  24 fresh          low    .010 (.019) / .856 (.700)   .010 (.019) / .872 (.728)
                    medium .022 (.041) / .912 (.788)   .020 (.038) / .913 (.788)
  22 fresh (not     low    .009 (.019) / .860 (.700)   .009 (.019) / .877 (.728)
  the strict pair)  medium .021 (.040) / .916 (.788)   .019 (.036) / .917 (.788)
  strict blind 27   low .018 / .873 -> .014 / .878, medium .041 / .914 -> .032 / .909
  strict extra12    low .014 / .758 -> .017 / .765, medium .041 / .823 -> .035 / .827

Held-out false positives over the 26 authors: medium 151 -> 139, low 73 -> 72 (the low cap
turned the room into recall: misses 816 -> 725). Medium's worst fresh author (``train_extra12``
.038, 11 of 290) is not clearly under 4 %: its remaining false positives are lines in other
languages (a quoted review comment, "no, use the existing one", "U redu, hvala."), which only
the gloss (a feature change, so a retrain) can read. Written: the parameters chosen nested on
the 26 authors' one-order scores, low .80 / veto .6 / strong 1.01, medium .63 / .6 / 1.01,
high .51. Left out: medium at 1.8-1.9 % (worst .032-.035, mean recall .906-.908, under round
21's .912); "no, use the existing X" (6 corrections, 12 null: only the agent's question tells).

Round 23 (43 authors: blind 28 and blind 29, each measured once, and ``train_extra13``,
measured once before its texts were read, TRAIN_EXTRA13_FIRST.md: low .020 / .679, medium
.031 / .745; the strict pair is now blind 29 and ``train_extra13``, :data:`RECENT`). Error
analysis first, of round 22's shipped detector on the two writers whose misses were read
(blind 28: 33 missed at low, 21 at medium; ``train_extra13``: 93 and 74), by class: lines in
other languages (blind 28 12 of 48 missed at low, 8 at medium; ``train_extra13`` 52 of 108 and
45, most in languages no table read: Catalan, Icelandic, Latvian, Welsh, Zulu, Yoruba, Persian
in Latin letters), English corrections with no negation word (12 of 95 and 6; 26 of 121 and
17: approach, tool and convention redirects), terse ones (3 of 31; 14 of 48), omissions (2 of
12; 11 of 19: "And the accessibility label on the new button?", "Missing: ... Add
autoDispose."), sarcasm (3 of 10; 2 of 13: "Nice, an unwrap() in the request path", "Cool cool,
a 256-byte stack"), "why ...?" (0 of 11; 1 of 12), after a pasted block (none missed). Closed
where a class generalised over every author: the gloss reads those languages' dictionary words
(no, not, wrong, instead, again, still, same, use, stop, undo, forgot, why, missing, "not yet")
and the praise and "now" of irony in the languages already read (:mod:`...corrections.cues`);
an omission asked as a bare definite noun phrase (13 prompts over 43 authors, all
corrections) or named in a prompt read as new work (7, all corrections) is the ``omission``
shape; a doubled praise word and a work noun naming a part of the code ("request path") open
mock praise (2, both corrections); "No, we don't use/have X" answers with a state of the world
(11, all null). Medium's cap on the mean total FP rate goes 2.0 % -> 1.95 %
(:data:`MAX_TOTAL_FP`). Leave-one-author-out, one training order, the parameters re-chosen per
fold, mean (worst) FP / recall, round 22's design with the three authors added -> round 23 (the
design without the four "not yet" entries, added after one false positive of
``train_extra13``: one prompt over the 43 authors holds them)::

  27 fresh          low    .009 (.023) / .863 (.683)   .009 (.023) / .864 (.704)
                    medium .020 (.045) / .905 (.755)   .019 (.042) / .908 (.788)
  25 fresh (not     low    .009 (.023) / .871 (.716)   .009 (.023) / .869 (.704)
  blind 28, extra13) medium .019 (.045) / .912 (.788)   .018 (.042) / .911 (.788)
  strict blind 29   low .018 / .864 (both), medium .027 / .895 -> .022 / .895
  strict extra13    low .014 / .690 -> .010 / .772, medium .031 / .766 -> .027 / .845

Held-out false positives over the 27 fresh authors: low 66 -> 65, medium 137 -> 132; misses 831
-> 820 and 578 -> 558 (mean FP to five places: low .00945 -> .00938, medium .01986 -> .01921).
The gains sit on the two writers whose misses were read (tuning figures); on the 25 others
recall is flat (low -.002, medium -.001) and medium's false positives fall. At 2.0 % medium gave
.0200 (.042) / .9086 (mean FP over round 22's), at 1.9 % .0189 (.039) / .9066.
NOT written: the weights averaged over five orders (11,525 flag weights) with the parameters
chosen nested on the one-order scores (low .80 / veto .7 / strong 1.01, medium .65 / .5 / .95,
high .51) broke three pinned examples: "your last commit wiped the fixtures" labelled a
correction (the kind model, a test pins friction), and "no, keep the semicolons" and "go back
to the previous version of the config" vetoed at low (scored .68 and .69 under low's veto .7;
round 22's parameters veto under .6); with the veto kept at .6 or under, low's held-out recall
fell under round 22's (27 fresh .0095 / .8619). Round 22's weights and parameters stay and
read the new gloss and shapes; on the three authors they were never trained on (FP / recall,
round 22 -> shipped round 23): blind 28 low .009 / .831 -> .009 / .856, medium .032 / .892 ->
.027 / .918; blind 29 low .014 / .853 (both), medium .023 / .901 -> .018 / .901;
``train_extra13`` low .020 / .679 -> .020 / .755, medium .031 / .745 -> .031 / .824 (blind 28
and ``train_extra13`` were read: tuning figures; blind 29's misses were not, though the counts
over every author listed its prompts of each shape, among them its one false positive fewer,
"Nope, we don't use Docker for that.").

Round 25 (45 authors: blind 30 and blind 31, each measured once and read in round 24, are
authors 44-45 and the strict pair, :data:`RECENT`; ``train_extra14``, measured once before its
texts were read, TRAIN_EXTRA14_FIRST.md, is the round's fresh check and no author). The retrain
with the scorer's token defect fixed (a word of Latin letters with diacritics kept whole,
"ändringen", not "ndringen"), other languages' quotation marks read as quotes and a ``g:``
feature for a correction word the gloss put in was measured held out (one order, seed 11, the
29 fresh authors, parameters re-chosen per fold; the bench docstring has every variant): low
.0093 (.023) / .867 (.713) -> .0093 (.029) / .871 (.729), medium .0196 (.052) / .912 (.792) ->
.0193 (.052) / .917 (.792). NOT written: low's worst author rose (``train_extra11``, 7 -> 9 of
310 false positives: its fold chose veto .6 instead of .7, and two requests scored .81-.82), so
the shipped weights and parameters stay round 22's (the token fix alone: low .0096 (.026) /
.864, a rise and a loss; with tighter low caps, .95 % and .9 %, the worst stayed .029 and .026
and recall fell). The quotation marks, a bare "No!" then a prohibition (a verdict) and closing
the day's work (the scorer's veto) shipped as structure, read by round 22's weights.

Usage::

    python3 tools/train_corrections_model.py            # LOAO report, then write the weights
    python3 tools/train_corrections_model.py --cv-only  # LOAO report only
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from conkeeper.services.analysis.corrections.detection import (  # noqa: E402
    detect,
    sentences,
    strip_noise,
)
from conkeeper.services.analysis.corrections.features import (  # noqa: E402
    pasted_share,
    prose_segments,
    segment_bags,
    tail_after_paste,
)
from conkeeper.services.analysis.corrections.model import linear  # noqa: E402
from conkeeper.services.analysis.corrections.structure import (  # noqa: E402
    SHAPES,
    Shape,
    model_vetoed,
    undoes_last_move,
)

DATA = ROOT / "tests" / "data" / "corrections"
# one file per author; each is held out in turn (never a blind set past 31: blind 32 is unseen)
AUTHORS = {
    "corpus": "corpus.jsonl",
    "extra": "train_extra.jsonl",
    "extra2": "train_extra2.jsonl",
    "extra3": "train_extra3.jsonl",
    "extra4": "train_extra4.jsonl",
    "extra5": "train_extra5.jsonl",
    "extra6": "train_extra6.jsonl",
    "extra7": "train_extra7.jsonl",
    "extra8": "train_extra8.jsonl",
    "extra9": "train_extra9.jsonl",
    "extra10": "train_extra10.jsonl",
    "extra11": "train_extra11.jsonl",
    "extra12": "train_extra12.jsonl",
    "extra13": "train_extra13.jsonl",
    "blind1": "blind.jsonl",
    "blind2": "blind2.jsonl",
    "blind3": "blind3.jsonl",
    "blind4": "blind4.jsonl",
    "blind5": "blind5.jsonl",
    "blind6": "blind6.jsonl",
    "blind7": "blind7.jsonl",
    "blind8": "blind8.jsonl",
    "blind9": "blind9.jsonl",
    "blind10": "blind10.jsonl",
    "blind11": "blind11.jsonl",
    "blind12": "blind12.jsonl",
    "blind13": "blind13.jsonl",
    "blind14": "blind14.jsonl",
    "blind15": "blind15.jsonl",
    "blind16": "blind16.jsonl",
    "blind17": "blind17.jsonl",
    "blind18": "blind18.jsonl",
    "blind19": "blind19.jsonl",
    "blind20": "blind20.jsonl",
    "blind21": "blind21.jsonl",
    "blind22": "blind22.jsonl",
    "blind23": "blind23.jsonl",
    "blind24": "blind24.jsonl",
    "blind25": "blind25.jsonl",
    "blind26": "blind26.jsonl",
    "blind27": "blind27.jsonl",
    "blind28": "blind28.jsonl",
    "blind29": "blind29.jsonl",
    "blind30": "blind30.jsonl",
    "blind31": "blind31.jsonl",
}
# the authors no rule or cue was written or tuned on when they were first measured (their first
# figures are in *_FIRST.md): the leave-one-author-out figures nearest to a new author's
FRESH = (
    "extra5",
    "extra6",
    "extra7",
    "extra8",
    "extra9",
    "extra10",
    "extra11",
    "extra12",
    "extra13",
    "blind12",
    "blind13",
    "blind14",
    "blind15",
    "blind16",
    "blind17",
    "blind18",
    "blind19",
    "blind20",
    "blind21",
    "blind22",
    "blind23",
    "blind24",
    "blind25",
    "blind26",
    "blind27",
    "blind28",
    "blind29",
    "blind30",
    "blind31",
)
# the strict estimate: the newest authors held out TOGETHER, the model trained and every
# parameter chosen (on out-of-fold results) without either of them
RECENT = ("blind30", "blind31")
# an author whose corrections the rules alone catch this often was written from (.80-1.0);
# the parameters are chosen on the others (:func:`choice_pool`). Round 6: the four fresh
# authors alone (too few: the strict run's medium FP .038 -> .050 on train_extra6 and .027 ->
# .049 on blind 13) or every author (the old choice) both did worse.
RULES_SATURATED = 0.75
TRAIN_FILES = AUTHORS  # the files this trainer reads (a test checks no later blind set is here)
PACKAGE = ROOT / "src" / "conkeeper" / "services" / "analysis" / "corrections"
WEIGHTS = PACKAGE / "model_weights.py"
PARAMS = PACKAGE / "model_params.py"
LEVELS = ("low", "medium", "high")
# the mean per-author false-positive rate the scorer may ADD to the rules' own (its flags minus
# the rule matches it vetoes), per sensitivity. The rules' false positives are a fixed cost the
# scorer's parameters cannot see on authors the rules were tuned on (there they are ~0), while
# on a new author they alone have reached 4-5 % (train_extra4, blind 10 first): a cap on the
# total would spend the scorer's budget on the rules' seen-set residue. Issue 20's targets on
# unseen prompts (low <= 2 %, medium <= 4 %) leave the scorer a small share. Compared by their
# leave-one-author-out figures (round 3; a cap on the total FP rate of 0.8 % / 2.5 % before):
# added 0.3 % / 1 % gave mean held-out FP .012 / .023 and recall .927 / .956 (the total cap:
# .009 / .027 and .899 / .961); 0.5 % / 1.3 % and 0.8 % / 2 % added FP for little recall.
# Round 5 (18 authors, cues of meaning): medium's 1 % gave mean FP .024 against the old design's
# .022; 0.9 % gave .022 (recall .935) and 0.8 % .020 (recall .937, worst .738), so 0.8 %.
# Round 6 (20 authors, parameters chosen on the authors the rules do not saturate): judged by
# the strict run (train_extra6 and blind 13 held out together; FP/recall, low then medium):
# caps 0.3 % / 0.8 % gave train_extra6 .025/.448 .050/.560, blind 13 .022/.727 .058/.818:
# recall +.08-.14 but the false positives of a new author grew (medium +1.2 and +3.1 points);
# 0.1 % / 0.2 % still +.6 / +1.3 points at medium; no added FP at all (0 / 0) gave
# .022/.392 .041/.456 and .022/.676 .022/.767 against round 5's .019/.348 .038/.424 and
# .022/.648 .027/.761: recall up, FP within one prompt. These caps were chosen on that run, so
# it is tuning evidence too. The scorer still flags what the rules miss: its vetoes of rule
# matches make the room.
# Round 8 (strict run, blind 15 and train_extra8; FP/recall at medium, with the round-8 gloss
# and a veto grid to .6): 0 gave .018/.725 .027/.632, 0.5 % .022/.751 .027/.660, 0.75 %
# .027/.757 .027/.664, 1 % .027/.762 .033/.700. Medium's target leaves room
# (4 %) but a new author's FP has run 1-3 points over the strict run's before (round 6), so
# 0.5 %; low keeps 0 (the rules alone already spend its budget on a new author: .017-.023).
# Round 11 (strict pair blind 18 / train_extra11; 30 authors): low .001. Strict (FP / recall),
# caps 0 / .001 / .002 / .003 / .005 on low: blind 18 .013/.834 .013/.857 .013/.857 .013/.857
# .013/.880, train_extra11 .023/.792 .023/.811 .023/.822 .023/.822 .023/.830 (no false positive
# more on either); leave-one-author-out over the 14 fresh authors, mean (worst): .019 (.031) /
# .819 (.641), .020 (.031) / .824 (.641), .021 (.036) / .833 (.661), .021 (.036) / .837. .001
# is the largest that keeps the fresh authors' mean within low's 2 % and their worst as it was.
# Round 12 (strict pair blind 19 / blind 20; 32 authors): medium .008. Strict (FP / recall),
# medium caps .005 / .008 / .01 / .012 / .015 (the last two with low at .004 / .005): blind 19
# .018/.933 .018/.939 .022/.939 .022/.939 .022/.950, blind 20 .009/.910 .009/.915 .009/.921
# .018/.921 .018/.927; leave-one-author-out over the 16 fresh authors, mean (worst): .029
# (.053) / .894, .033 (.060) / .901, .036 (.060) / .905, .036 (.060) / .910, .039 (.063) /
# .918. .008 keeps the fresh mean .007 under medium's 4 % (the worst, train_extra11, was over
# it already). Low stays .001 (.002-.005: fresh mean .021-.023).
# Round 13 (strict pair blind 20 / blind 21; 33 authors, round 13's features): medium .006.
# Leave-one-author-out over the 17 fresh authors, medium caps .008 / .006 / .004, mean (worst)
# FP / recall: .028 (.058) / .924, .025 (.044) / .921, .024 (.044) / .917; blind 12-21 alone
# .024 (.058) / .950, .021 (.044) / .947, .020 (.044) / .946; strict the same but blind 21's
# medium recall (.957 at .008, .952 below). .006 gives up .003 of recall for .003 of false
# positives and brings the worst author (blind 13) from .058 to .044. Low stays .001: 0 and
# -.001 gave fresh .014 (.031) / .883 and .013 (.031) / .876 against .014 (.031) / .891 (the
# worst, blind 13's requests worded like fixes, does not move).
# Round 14 (strict pair blind 21 / blind 22; 34 authors, round 14's features): low .002. Over
# the 17 fresh authors other than blind 22 (leave-one-author-out, mean (worst) FP / recall), low
# caps .0005 / .001 / .002 / .003 / .004: .014 (.031) / .894, .015 (.031) / .899, .015 (.031) /
# .902, .017 (.035) / .904, .018 (.032) / .905; strict the same at .001 and .002 (blind 21
# .009/.926, blind 22 .018/.763). .002 is the largest that keeps their mean and worst as they
# were (round 11's rule). Medium stays .006: .008 and .010 gave .027 (.052) / .930 and .029
# (.062) / .932 against .024 (.045) / .927, the worst author over medium's 4 %. With the final
# round-14 features (the glossed "no" answer, low at .002) .006 gave .025 (.052) / .927 and
# strict .018/.957 .031/.838; .005 gave .024 (.045) / .926 and strict .013/.957 .027/.828: the
# worst author (train_extra11, its rules alone .029) over 4 % either way, .010 less recall on
# blind 22, so .006 was kept.
MAX_ADDED_FP = {"low": 0.002, "medium": 0.006, "high": 0.05}
# Round 15: low and medium are capped on the mean per-author TOTAL false-positive rate instead
# (the rules' own included, over the authors the rules do not saturate, :func:`choice_pool`),
# at half of low's target and a little over half of medium's. Why: every new writer since
# round 12 measured 2-3x the held-out mean at first (blind 22 low .040, blind 23 .041, against
# fresh means near .015), so a level whose mean sits at the target's edge is over it on the
# next writer; an added-FP cap could not see the rules' own false positives, which a new
# writer's "No, ..." answers and requests worded like fixes raise. Leave-one-author-out over
# the 19 fresh authors, round 14's features with blind 23 as an author (mean (worst) FP /
# recall), low: added .002 (round 14) .016 (.041) / .886; total .014 .014 (.036) / .881, .012
# .012 (.036) / .867, .011 .010 (.032) / .861, .010 .009 (.027) / .853. Medium: added .006
# .025 (.052) / .914; total .022 .022 (.045) / .906, .020 .020 (.045) / .898.
# Round 22: medium 2.0 %. The structure closed classes of false positives ("No" answering with a
# state of the world, the user's own slip, a move to another repo); at 2.2 % the chooser only
# spent the room on recall (24 fresh authors, one order, cached round-21 scores: medium .022
# (.041) / .920), at 2.0 % .020 (.038) / .913; without the move veto 1.9 % gave .019 (.035) /
# .908, and with the English answers and slips alone 1.8 % .018 (.032) / .906, under round 21's
# mean recall (.912). 2.0 % is the lowest that keeps it.
# Round 23: medium 1.95 %. With 43 authors and round 23's gloss and shapes (27 fresh authors,
# one order), 2.0 % spent the room on recall and raised the mean FP over round 22's design
# (.0198 -> .0200, recall .9086); 1.95 % gave .0192 (.042) / .9079 and 1.9 % .0189 (.039) /
# .9066, both under it with more recall; 1.95 % keeps more of it. (Round 23's retrain was not
# written: the shipped parameters are still round 22's, chosen at 2.0 %.)
MAX_TOTAL_FP = {"low": 0.010, "medium": 0.0195}
# a rule match is vetoed when the model's probability is under one of these ... Round 7: .4
# added. With 22 authors the scorer's low probabilities are worth trusting against a weak rule
# match, and the vetoes make room for a lower threshold. Strict run (blind 14 and train_extra7
# held out; FP/recall): low chose (.83, veto .4) instead of (.91, .3): .018/.651 -> .022/.780
# and .017/.477 -> .017/.584; medium unchanged (.81, .3). Up to .5: medium (.77, .5), .036/.796
# and .017/.615; up to .7: the same low, medium (.77, .6) .027/.785 and .020/.611. Round 6's
# cues with a grid to .4 or .5 gave nearly the same (low .022/.769-.780, .017-.020/.553-.576):
# the gain is the grid's. Chosen on the strict run, so it is tuning evidence too.
# Round 8: up to .7 (a grid to .8 chose the same). Strict run (blind 15, train_extra8; round
# 8's features), low: grid to .4 chose (.82, .4) .022/.667 .023/.549; to .6 (.79, .5)
# .018/.656 .023/.569; to .7 (.75, .7) .018/.672 .020/.581 (medium .022/.751 .027/.660).
# Vetoes make room for a lower threshold on a new author; held out, most vetoed rule matches of
# the authors the rules were written from are corrections (LOAO at low, round 7's features: 271
# of 304 with this grid, 140 of 165 with .4), so the all-author mean falls there (corpus,
# blind 1-5) while the fresh authors gain.
VETO_GRID: tuple[float, ...] = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
# ... unless the rule's confidence reaches one of these (1.01: every rule match can be vetoed)
STRONG_GRID = (0.9, 0.95, 1.01)
THRESHOLD_GRID = tuple(step / 100 for step in range(51, 100))  # better than an even chance
# Round 9: every feature seen in MIN_DF examples is kept (~7,000). The cap of 1,500 (kept since
# round 1: "CV recall is the same at 1,500, 2,500 and 4,000") had come to keep only the largest
# weights, nearly all words and word pairs: of the cues of structure and meaning, 27 survived
# (no "redirect-definite", "terse-value", "imperative-start", "short"), and a new author's
# terse redirect scored the bias alone. Cutting weights after training also shifts every score.
# Strict run (blind 16, train_extra9; one training order; FP/recall, low then medium): cap
# 1,500 .018/.634 .032/.731 and .017/.454 .023/.538; cues always kept .036/.680 .041/.749 and
# .023/.498 .033/.566; cap 3,000 .027/.743 .032/.829 and .023/.558 .033/.625; retrained on the
# top 2,500 .022/.771 .022/.846 and .023/.510 .037/.629; no cap .018/.829 .036/.863 and
# .023/.594 .037/.649. The table is stored as two strings (:func:`write_weights`), so the
# larger one loads no slower than the old one did.
MAX_FEATURES = 20000
MIN_DF = 4  # 2, 3, 4 and 5 were tried: 4 gave the best cross-validated recall (3 lower in round 5)
# L2 per feature: L2 for the cues of structure and meaning, L2 x LEXICAL_L2_SCALE for words.
# Round 3 (one penalty for all): 0.003-0.1 tried, 0.03 best. Round 5, with the cues of meaning
# (:mod:`...corrections.cues`), one seed, 18 authors (mean / worst recall, low then medium):
# one penalty 0.03 .905/.591 .940/.727 (as 0.003), words x5 at 0.003 .911/.664 .942/.745,
# x10 .914/.633 .946/.790 (FP +.001), x30 .888/.559 .939/.710 (too little for words to say).
# Words learned from one author's phrasing were what the held-out author did not share.
L2 = 0.003
LEXICAL = ("w:", "b:", "f:", "f2:")  # word features; the rest are cues of structure and meaning
LEXICAL_L2_SCALE = 5.0
EPOCHS = 15
# one model per shuffle order, their weights averaged: a single order moved the worst author's
# recall by .02-.08 (seed 11 vs 12: low worst .622 vs .703); three and five orders agreed
SEEDS = (11, 12, 13, 14, 15)


# --------------------------------------------------------------------------- data


class Example:
    """One labelled prompt: its author, truth, feature bags (one per scored segment), the rule
    detector's best confidence and verdict at each sensitivity, and whether the structural
    veto drops a model flag on it."""

    __slots__ = (
        "aimed",
        "bags",
        "fold",
        "label",
        "rule_conf",
        "rules",
        "text",
        "verdict",
        "vetoed",
    )

    def __init__(self, fold: str, text: str, label: str | None) -> None:
        self.fold = fold
        self.text = text
        self.label = label
        prose = strip_noise(text)
        parts = prose_segments(prose)
        pasted = pasted_share(text, prose)
        self.bags = segment_bags(parts, pasted, tail_after_paste(prose, parts)) or [set()]
        ruled = {lvl: detect(text, lvl, model=False) for lvl in LEVELS}
        self.rules = {lvl: ruled[lvl].label is not None for lvl in LEVELS}
        self.rule_conf = ruled["high"].confidence if self.rules["high"] else 0.0
        shape = Shape(prose, sentences(prose))
        self.vetoed = model_vetoed(prose, shape)
        # a structural shape, or any match in a prompt aimed at the agent, is never vetoed
        self.aimed = shape.aimed or ruled["high"].pattern in SHAPES
        # nor one opening on a verdict ("that's wrong, ..."): the detector honours it, the
        # parameter choice (:class:`_Author`) does not (see :func:`flagged`)
        self.verdict = shape.verdict or undoes_last_move(prose)  # nor an undo of "that"


def load_examples(names: tuple[str, ...] = tuple(AUTHORS)) -> list[Example]:
    """Every labelled prompt of the authors' files, tagged with its author (absent files are
    skipped: ``train_extra4`` may not have landed)."""
    examples = []
    for name in names:
        path = DATA / AUTHORS[name]
        if not path.exists():
            continue
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    examples.append(Example(name, str(row["text"]), row["label"]))
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
    """The average of :func:`train_once` over :data:`SEEDS` (a linear model's weights average
    to one table, so the hook still scores one model): the shuffle order alone moved a held-out
    author's recall by 0.02-0.05, and the average is steadier than any single order."""
    runs = [train_once(pairs, seed, l2) for seed in SEEDS]
    names = set().union(*(weights for weights, _ in runs))
    mean = {f: sum(w.get(f, 0.0) for w, _ in runs) / len(runs) for f in names}
    bias = sum(b for _, b in runs) / len(runs)
    kept = sorted(mean, key=lambda f: abs(mean[f]), reverse=True)[:max_features]
    return {f: mean[f] for f in kept if abs(mean[f]) >= 1e-4}, bias


def train_once(
    pairs: list[tuple[set[str], float]], seed: int, l2: float | None = None
) -> tuple[dict[str, float], float]:
    """Logistic regression by AdaGrad SGD over binary features seen in >= MIN_DF examples,
    the examples shuffled by ``seed`` each epoch. Features are numbered and the weights kept
    in lists (a fit over 26 authors' prompts took ~4x longer with dicts keyed by name)."""
    df: dict[str, int] = {}
    for feats, _ in pairs:
        for f in feats:
            df[f] = df.get(f, 0) + 1
    names = sorted(f for f, n in df.items() if n >= MIN_DF)
    index = {f: i for i, f in enumerate(names)}
    l2 = L2 if l2 is None else l2
    rows = [([index[f] for f in feats if f in index], y) for feats, y in pairs]
    penalty = [l2 * (LEXICAL_L2_SCALE if f.startswith(LEXICAL) else 1.0) for f in names]
    weights = [0.0] * len(names)
    grads = [1e-8] * len(names)
    bias, bias_grad = 0.0, 1e-8
    rate = 0.3
    order = list(range(len(rows)))
    rng = random.Random(seed)
    sqrt = math.sqrt
    for _ in range(EPOCHS):
        rng.shuffle(order)
        for i in order:
            active, y = rows[i]
            z = bias
            for j in active:
                z += weights[j]
            err = _sigmoid(z) - y
            bias_grad += err * err
            bias -= rate * err / sqrt(bias_grad)
            for j in active:
                g = err + penalty[j] * weights[j]
                grad = grads[j] + g * g
                grads[j] = grad
                weights[j] -= rate * g / sqrt(grad)
    return dict(zip(names, weights, strict=True)), bias


def _sigmoid(z: float) -> float:
    """The logistic function, clipped as :func:`...model.linear` clips it."""
    if z < -30:
        return 0.0
    if z > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-z))


def fit(examples: list[Example]) -> dict[str, Any]:
    """Both models on ``examples``."""
    model = fit_flag(examples)
    kind, kind_bias = train(_training_pairs(examples, kind=True), max_features=800)
    return {**model, "kind": kind, "kind_bias": kind_bias}


def fit_flag(examples: list[Example]) -> dict[str, Any]:
    """The flag model alone: all that scoring a held-out author needs (:func:`probability`),
    so cross-validation does not train the kind model it never reads."""
    flag, flag_bias = train(_training_pairs(examples, kind=False))
    return {"flag": flag, "flag_bias": flag_bias}


def probability(model: dict[str, Any], ex: Example) -> float:
    """The model's best-segment probability for one example (as the hook scores it)."""
    weights, bias = model["flag"], model["flag_bias"]
    return max(linear(bag, weights, bias) for bag in ex.bags)


# --------------------------------------------------------------------------- evaluation

Scored = list[tuple[Example, float]]
# a sensitivity's decision: (model threshold, veto probability, never-vetoed rule confidence)
Params = tuple[float, float, float]


def out_of_fold(examples: list[Example]) -> Scored:
    """Each author's examples scored by a model trained on every other author."""
    scored: Scored = []
    for fold in sorted({ex.fold for ex in examples}):
        model = fit_flag([ex for ex in examples if ex.fold != fold])
        scored.extend((ex, probability(model, ex)) for ex in examples if ex.fold == fold)
    return scored


def flagged(ex: Example, p: float, level: str, params: Params) -> bool:
    """The detector's decision as :func:`...detection.detect` makes it: a rule match unless
    the model's probability is under the veto (and the rule is not strong enough to stand
    alone); else the model when it reaches the threshold and the structure does not veto it."""
    threshold, veto, strong = params
    kept = ex.aimed or ex.verdict
    if ex.rules[level] and (p >= veto or ex.rule_conf >= strong or kept):
        return True
    return p >= threshold and not ex.vetoed


def counts(scored: Scored, level: str, params: Params | None) -> dict[str, float]:
    """FP rate, precision and recall at ``params`` (``None``: the rules alone)."""
    tp = fp = fn = tn = 0
    for ex, p in scored:
        hit = ex.rules[level] if params is None else flagged(ex, p, level, params)
        if hit and ex.label:
            tp += 1
        elif hit:
            fp += 1
        elif ex.label:
            fn += 1
        else:
            tn += 1
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "fp_rate": round(fp / (fp + tn), 4) if fp + tn else 0.0,
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0,
    }


class _Author:
    """One author's out-of-fold results arranged so a threshold sweep is a bisect: for a given
    (veto, strong), the rule-flagged counts and the sorted model probabilities of the rest.

    A rule match opening on a verdict is counted here as vetoable (the detector never vetoes
    it): round 8, choosing with the exemption moved low's veto from .5 to .7, and the vetoes
    it then made elsewhere cost more than the exemption saved (all-author low recall .795 ->
    .770); chosen without it, the exemption only adds (.795 -> .799, strict low .672 -> .677
    and .581 -> .585, no false positive more)."""

    def __init__(self, scored: Scored, level: str, veto: float, strong: float) -> None:
        self.pos = sum(1 for ex, _ in scored if ex.label)
        self.neg = len(scored) - self.pos
        self.ruled_tp = self.ruled_fp = 0
        # the rules' own false positives (no veto): the base the scorer's parameters add to
        self.rules_fp = sum(1 for ex, _ in scored if ex.rules[level] and not ex.label)
        pos_p: list[float] = []
        neg_p: list[float] = []
        for ex, p in scored:
            if ex.rules[level] and (p >= veto or ex.rule_conf >= strong or ex.aimed):
                if ex.label:
                    self.ruled_tp += 1
                else:
                    self.ruled_fp += 1
            elif not ex.vetoed:
                (pos_p if ex.label else neg_p).append(p)
        self.pos_p = sorted(pos_p)
        self.neg_p = sorted(neg_p)
        self.rules_rate = self.rules_fp / self.neg if self.neg else 0.0

    def rates(self, threshold: float) -> tuple[float, float]:
        """(FP rate the scorer adds to the rules' own, recall) at a model threshold; a veto
        makes the first negative."""
        tp = self.ruled_tp + len(self.pos_p) - bisect.bisect_left(self.pos_p, threshold)
        fp = self.ruled_fp + len(self.neg_p) - bisect.bisect_left(self.neg_p, threshold)
        added = (fp - self.rules_fp) / self.neg if self.neg else 0.0
        return added, (tp / self.pos if self.pos else 1.0)


def choose(scored: Scored, level: str, stricter: Params | None = None) -> Params:
    """The parameters of ``level`` with the best mean per-author recall whose mean per-author
    FP rate stays within :data:`MAX_TOTAL_FP` (low, medium; the rules' own false positives
    counted) or, added to the rules' own, within :data:`MAX_ADDED_FP`, among those
    :func:`nested` under the ``stricter`` level's (so a more sensitive level flags every prompt
    the stricter one does); ties go to the higher threshold and the smaller veto."""
    ceiling = 1.0 if stricter is None else stricter[0]
    by_author: dict[str, Scored] = {}
    for ex, p in scored:
        by_author.setdefault(ex.fold, []).append((ex, p))
    best: tuple[float, float, float, float] = (-1.0, 0.0, 0.0, 0.0)
    chosen: Params = (min(0.99, ceiling), 0.0, 1.01)
    for veto in VETO_GRID:
        for strong in STRONG_GRID if veto else (1.01,):
            if not nested((ceiling, veto, strong), stricter):
                continue
            authors = [_Author(part, level, veto, strong) for part in by_author.values()]
            for threshold in reversed(THRESHOLD_GRID):
                if threshold > ceiling:
                    continue
                rates = [a.rates(threshold) for a in authors]
                fp = sum(r[0] for r in rates) / len(rates)
                if level in MAX_TOTAL_FP:
                    fp += sum(a.rules_rate for a in authors) / len(authors)
                if fp > MAX_TOTAL_FP.get(level, MAX_ADDED_FP[level]):
                    break  # a lower threshold only adds false positives
                recall = sum(r[1] for r in rates) / len(rates)
                key = (round(recall, 4), threshold, -veto, -strong)
                if key > best:
                    best, chosen = key, (threshold, veto, strong)
    return chosen


def choice_pool(scored: Scored) -> Scored:
    """The out-of-fold results the parameters are chosen on: those of the authors whose
    corrections the rules alone catch under :data:`RULES_SATURATED` of at low (all of
    ``scored`` when there is none). On an author the rules were written from, they alone reach
    .80-1.0 recall and a lower threshold only trades the scorer's false positives for nothing;
    on the others (.22-.66: ``train_extra4`` to ``6``, blind 11-13) the trade-off a new author
    meets is seen."""
    caught: dict[str, list[int]] = {}
    for ex, _ in scored:
        if ex.label:
            tally = caught.setdefault(ex.fold, [0, 0])
            tally[0] += ex.rules["low"]
            tally[1] += 1
    open_authors = {a for a, (hit, n) in caught.items() if hit < RULES_SATURATED * n}
    return [s for s in scored if s[0].fold in open_authors] or scored


def nested(params: Params, stricter: Params | None) -> bool:
    """Whether a level at ``params`` flags every prompt a level at ``stricter`` flags (the
    rules' own matches are nested by their confidence floors): its threshold no higher, and a
    rule match the stricter level keeps is kept, so its veto no higher and its never-vetoed
    confidence no higher (a veto of 0 vetoes nothing). Round 19's chooser gave medium veto .7 /
    strong 1.01 under low's .7 / .95: a .96 rule match kept at low was vetoed at medium."""
    if stricter is None:
        return True
    threshold, veto, strong = params
    if threshold > stricter[0]:
        return False
    return veto == 0.0 or (veto <= stricter[1] and strong <= stricter[2])


def choose_all(scored: Scored) -> dict[str, Params]:
    """Every sensitivity's parameters, each level nested under the stricter one's
    (:func:`nested`)."""
    chosen: dict[str, Params] = {}
    stricter: Params | None = None
    for level in LEVELS:
        chosen[level] = stricter = choose(scored, level, stricter)
    return chosen


def cv_table(examples: list[Example]) -> dict[str, Any]:
    """Leave-one-author-out figures: per held-out author and level, the detector at the
    parameters chosen without that author (and the rules alone), then mean and worst over
    authors; plus the parameters chosen on every author (the shipped ones)."""
    scored = out_of_fold(examples)
    authors = sorted({ex.fold for ex, _ in scored}, key=_author_order)
    table: dict[str, Any] = {"params": choose_all(choice_pool(scored)), "authors": {}}
    for author in authors:
        others = [s for s in scored if s[0].fold != author]
        own = [s for s in scored if s[0].fold == author]
        table["authors"][author] = _author_figures(own, choose_all(choice_pool(others)))
    table["summary"] = _summary(table["authors"])
    fresh = {a: table["authors"][a] for a in FRESH if a in table["authors"]}
    table["fresh"] = _summary(fresh) if fresh else {}
    return table


def _author_figures(own: Scored, params: dict[str, Params]) -> dict[str, Any]:
    """One author's figures per level: the parameters used, the detector's and the rules'."""
    return {
        level: {
            "params": params[level],
            "detector": counts(own, level, params[level]),
            "rules": counts(own, level, None),
        }
        for level in LEVELS
    }


def recent_table(examples: list[Example], held: tuple[str, ...] = RECENT) -> dict[str, Any]:
    """The strict estimate: the ``held`` authors left out together; a model trained on the
    others scores them at parameters chosen on the others' own leave-one-author-out results
    (nothing about the held authors chose anything). Per held author and level, the detector's
    and the rules' figures."""
    rest = [ex for ex in examples if ex.fold not in held]
    params = choose_all(choice_pool(out_of_fold(rest)))
    model = fit_flag(rest)
    table: dict[str, Any] = {"params": params, "authors": {}}
    for author in held:
        own = [(ex, probability(model, ex)) for ex in examples if ex.fold == author]
        if own:
            table["authors"][author] = _author_figures(own, params)
    table["summary"] = _summary(table["authors"])
    return table


def _author_order(name: str) -> tuple[int, int]:
    digits = "".join(ch for ch in name if ch.isdigit())
    return (0 if name.startswith("corpus") else 1 if name.startswith("extra") else 2), int(
        digits or 1
    )


def _summary(authors: dict[str, Any]) -> dict[str, Any]:
    """Mean and worst held-out FP rate and recall per level (the detector column)."""
    out: dict[str, Any] = {}
    for level in LEVELS:
        rows = [a[level]["detector"] for a in authors.values()]
        fps = [r["fp_rate"] for r in rows]
        recalls = [r["recall"] for r in rows]
        out[level] = {
            "mean_fp_rate": round(sum(fps) / len(fps), 4),
            "worst_fp_rate": max(fps),
            "mean_recall": round(sum(recalls) / len(recalls), 3),
            "worst_recall": min(recalls),
        }
    return out


def _print_summary(summary: dict[str, Any], indent: str, out: Callable[[str], None]) -> None:
    """One line per level: mean and worst held-out FP rate and recall."""
    for level, s in summary.items():
        out(
            f"{indent}{level:<7} held-out FP rate mean {s['mean_fp_rate']:.3f} worst "
            f"{s['worst_fp_rate']:.3f}; recall mean {s['mean_recall']:.3f} worst "
            f"{s['worst_recall']:.3f}"
        )


def print_recent(table: dict[str, Any], out: Callable[[str], None] = print) -> None:
    """Print the strict estimate: each newest author's figures with all of them held out."""
    held = ", ".join(table["authors"])
    out(f"strict: {held} held out together; model and parameters chosen without them")
    for author, levels in table["authors"].items():
        cells = [
            f"{lvl} FP {levels[lvl]['detector']['fp_rate']:.3f} recall "
            f"{levels[lvl]['detector']['recall']:.3f} (rules {levels[lvl]['rules']['recall']:.3f})"
            for lvl in LEVELS[:2]
        ]
        out(f"  {author:<9}" + "; ".join(cells))


def print_cv(table: dict[str, Any], out: Callable[[str], None] = print) -> None:
    """Print the leave-one-author-out table: per held-out author, FP rate and recall at low
    and medium (detector at the parameters chosen without it; rules alone), then mean/worst."""
    out(
        "leave-one-author-out: each author held out, scored by a model trained without it, at "
        "parameters (threshold/veto/strong) chosen on the other authors the rules do not saturate"
    )
    out("rules are tuned on every author listed: their share is optimistic")
    head = "".join(f"{lvl + ': FP   recall | rules FP  R':<34}" for lvl in LEVELS[:2])
    out(f"{'held out':<10}{'pos':>4}{'neg':>5}  {head}")
    for author, levels in table["authors"].items():
        first = levels["low"]["detector"]
        cells = []
        for lvl in LEVELS[:2]:
            d, r = levels[lvl]["detector"], levels[lvl]["rules"]
            cell = f"{d['fp_rate']:.3f} {d['recall']:.3f} | {r['fp_rate']:.3f} {r['recall']:.3f}"
            cells.append(cell.ljust(34))
        pos, neg = first["tp"] + first["fn"], first["fp"] + first["tn"]
        out(f"{author:<10}{pos:>4}{neg:>5}  " + "".join(cells))
    _print_summary(table["summary"], "", out)
    if table.get("fresh"):
        out(f"fresh authors only ({', '.join(a for a in FRESH if a in table['authors'])}):")
        _print_summary(table["fresh"], "  ", out)
    out(
        "shipped parameters (chosen on the authors the rules do not saturate): "
        + ", ".join(
            f"{lvl} t={p[0]:.2f} veto<{p[1]:.2f} strong>={p[2]:.2f}"
            for lvl, p in table["params"].items()
        )
    )


# --------------------------------------------------------------------------- output


def write_weights(model: dict[str, Any], params: dict[str, Params], n: int) -> None:
    """Write the generated modules: the decision parameters per sensitivity (a small module
    the detector reads without loading the weights), then per model its feature names (one
    string, sorted, a name a line) and its weights (one string, a number of fixed width a
    line, read in place by :class:`...model.WeightTable`). Two string constants
    compile in well under a millisecond even without a ``.pyc``: a tuple of 1,500 floats took
    ~7 ms to compile on the shared machine (7,000: ~30 ms), a dict literal ~28 ms."""

    def table(name: str, weights: dict[str, float]) -> str:
        items = sorted(weights.items())
        names = "".join(f"{k}\n" for k, _ in items)
        values = "".join(f"{v:+08.4f}\n" for _, v in items)  # fixed width (model.WeightTable)
        return f'{name}_FEATURES = """\\\n{names}"""\n{name}_WEIGHTS = """\\\n{values}"""\n'

    write_params(params)
    WEIGHTS.write_text(
        '"""Weights of the learned correction scorer (GENERATED by\n'
        "tools/train_corrections_model.py; do not edit).\n\n"
        f"Trained on {n} labelled prompts (corpus, train_extra 1-13, blind sets 1-31); the\n"
        "decision parameters chosen with them are in model_params.\n"
        '"""\n\n'
        f"FLAG_BIAS = {model['flag_bias']:.4f}\n"
        f"KIND_BIAS = {model['kind_bias']:.4f}\n"
        + table("FLAG", model["flag"])
        + table("KIND", model["kind"]),
        encoding="utf-8",
    )


def write_params(params: dict[str, Params]) -> None:
    """Write the decision parameters per sensitivity (a small module the detector reads
    without loading the weights)."""
    thresholds = {lvl: p[0] for lvl, p in params.items()}
    vetoes = "".join(f'    "{lvl}": ({p[1]}, {p[2]}),\n' for lvl, p in params.items())
    PARAMS.write_text(
        '"""Decision parameters of the learned correction scorer (GENERATED by\n'
        "tools/train_corrections_model.py; do not edit), chosen by leave-one-author-out\n"
        "cross-validation. Kept apart from the weights so the detector can read them without "
        "loading\nthe weights.\n\n"
        "THRESHOLDS: per sensitivity, the probability that flags a prompt no rule flagged.\n"
        "RULE_VETO: per sensitivity, (probability under which a rule match is dropped, rule "
        "confidence\nnever dropped); (0.0, ...) means the scorer never vetoes a rule at that "
        'level.\n"""\n\n'
        f"THRESHOLDS: dict[str, float] = {json.dumps(thresholds)}\n"
        f"RULE_VETO: dict[str, tuple[float, float]] = {{\n{vetoes}}}\n",
        encoding="utf-8",
    )


def main() -> int:
    """Cross-validate by author, choose the parameters, train on everything, write the weights."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv-only", action="store_true", help="report CV, write nothing")
    parser.add_argument(
        "--strict", action="store_true", help="also hold the newest authors (RECENT) out together"
    )
    parser.add_argument(
        "--no-veto", action="store_true", help="the model never vetoes a rule (the old design)"
    )
    parser.add_argument(
        "--held", default=",".join(RECENT), help="the authors --strict holds out (comma-separated)"
    )
    args = parser.parse_args()
    if args.no_veto:
        global VETO_GRID
        VETO_GRID = (0.0,)
    examples = load_examples()
    print(f"{len(examples)} training prompts from {len({ex.fold for ex in examples})} authors")
    table = cv_table(examples)
    print_cv(table)
    if args.strict:
        print_recent(recent_table(examples, tuple(args.held.split(","))))
    if args.cv_only:
        return 0
    model = fit(examples)
    write_weights(model, table["params"], len(examples))
    print(
        f"wrote {WEIGHTS.relative_to(ROOT)}: {len(model['flag'])} + {len(model['kind'])} "
        f"weights, and {PARAMS.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
