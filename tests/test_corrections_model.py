"""The learned correction scorer next to the rules: the classes issue 11 lists are caught in
phrasings written for this test (in no data file), the negatives it lists stay unflagged, and
the scorer stays small, reads only a long prompt's head and tail, and never trains on a blind
set past 10."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import load_script
from conkeeper.services.analysis.corrections import detect, model_params
from conkeeper.services.analysis.corrections import model_weights as weights
from conkeeper.services.analysis.corrections.features import segment_features, segments
from conkeeper.services.analysis.corrections.model import THRESHOLDS
from conkeeper.services.analysis.corrections.model import weights as table

ROOT = Path(__file__).resolve().parents[1]

CAUGHT = [
    # "don't ..." about conventions and dependencies
    ("stop using assert for input validation", "correction"),
    ("Stop hard-coding the bucket name.", "correction"),
    ("quit sprinkling sleeps in the tests", "correction"),
    ("don't add another yaml parser, ruamel is already there", "correction"),
    # regressions blamed on the agent's change
    ("the suite was green before you touched the router", "friction"),
    ("CI is red again since your edit to the workflow", "friction"),
    ("you removed the guard clause and now it crashes on None", "friction"),
    # repeated failures
    ("that's the third time this import error comes back", "friction"),
    ("ugh why is everything zero now", "friction"),  # a frustrated interjection (structure)
    ("this is now the fourth time the migration fails", "friction"),
    ("you keep putting the same typo back in the header", "correction"),
    # terse orders, restated instructions, "incorrect", "nope, identical", "no difference"
    ("I told you: no network calls in unit tests.", "correction"),
    ("As I said, we never squash merge.", "correction"),
    ("incorrect — the cache key includes the locale", "correction"),
    ("nope, identical stack trace", "friction"),
    ("no difference, the output is the same", "friction"),
    ("nothing changed, still the same 403", "friction"),
]

# phrasings no rule matches: only the learned scorer catches them
MODEL_ONLY = [
    # the kind model's label of it has flipped between rounds (friction, round 10 correction,
    # round 14 friction again, like "you removed the guard clause and now it crashes" above):
    # the flag, not the label, is what this test is about
    ("your last commit wiped the fixtures", "friction"),
]

NOT_FLAGGED = [
    "thanks, the retry logic looks solid now",
    "Great, that's exactly right.",
    "add a command that reverts the last migration",
    "Write a linter rule so people don't use print in library code.",
    "What does 'connection reset by peer' usually mean?",
    "Why does the detector treat 'same output' as friction?",
    "Can you make the export not include archived rows?",
    "Let's keep the API stable and add a v2 later.",
    "Document the undo shortcut in the README.",
    "Should the failed jobs be retried automatically?",
]


@pytest.mark.parametrize(("text", "label"), CAUGHT)
def test_listed_classes_are_caught_at_low(text: str, label: str) -> None:
    found = detect(text, "low")
    assert (found.label, text) == (label, text)


def test_a_terse_order_is_caught_at_every_level() -> None:
    # round 8 vetoed it at low (the scorer gave .46); round 9's scorer, every feature kept,
    # gives it .98
    text = "Revert it. Immediately."
    assert [detect(text, level).label for level in ("low", "medium", "high")] == [
        "friction",
        "friction",
        "friction",
    ]


@pytest.mark.parametrize(("text", "label"), MODEL_ONLY)
def test_the_scorer_catches_what_no_rule_does(text: str, label: str) -> None:
    # at medium: since issue 20's third round the threshold at low is chosen by
    # leave-one-author-out and may sit close to 1 (the scorer then flags little alone there)
    assert detect(text, "medium", model=False).label is None
    found = detect(text, "medium")
    assert (found.pattern, found.label) == ("model", label)
    assert found.confidence >= THRESHOLDS["medium"]


@pytest.mark.parametrize("level", ["low", "medium"])
@pytest.mark.parametrize("text", NOT_FLAGGED)
def test_praise_requests_quotes_and_meta_talk_stay_unflagged(text: str, level: str) -> None:
    assert detect(text, level).label is None


def test_a_pasted_log_full_of_failed_and_revert_is_not_scored_as_a_complaint() -> None:
    log = "".join(f"[deploy] step {i} failed, reverting release {i}\n" for i in range(300))
    assert (
        detect("Here is the deploy log:\n" + log + "\nwhat went wrong first?", "medium").label
        is None
    )


def test_only_the_head_and_the_tail_of_a_long_prompt_are_scored() -> None:
    parts = [f"sentence {i}." for i in range(300)]
    assert segments(parts) == [parts[:3], parts[-2:]]
    assert segments(parts[:5]) == [parts[:5]]
    assert segments([]) == []


def test_structure_features_name_the_cues() -> None:
    feats = segment_features(["you broke the parser again"])
    assert {"s:you-past", "s:persistent", "f:you"} <= feats
    assert "s:ordinal-time" in segment_features(["that's the fifth time it fails"])
    assert "s:neg-start" in segment_features(["ok so nope, wrong file"])


def test_thresholds_are_ordered_and_the_weights_stay_small() -> None:
    assert 0.5 < THRESHOLDS["high"] <= THRESHOLDS["medium"] <= THRESHOLDS["low"] < 1.0
    assert 0 < len(table("FLAG")) <= 11_000  # 39 authors (round 19): 10,411
    assert 0 < len(table("KIND")) <= 1500
    assert Path(weights.__file__).stat().st_size < 250_000
    # two string constants, not a tuple of floats: cheap to compile with no bytecode cached
    assert isinstance(weights.FLAG_WEIGHTS, str) and isinstance(weights.KIND_WEIGHTS, str)


def test_the_cues_of_meaning_survive_in_the_weight_table() -> None:
    # round 9: a cap of 1,500 features kept only the largest weights, nearly all words; the
    # cues a new author's terse redirect is read by were cut and it scored the bias alone
    flag = table("FLAG")
    cues = {"m:redirect-definite", "m:terse-value", "s:imperative-start", "s:short"}
    assert cues <= set(flag)
    assert sum(1 for name in flag if name.startswith(("m:", "s:", "x:"))) >= 40


def test_the_trainer_never_reads_a_later_blind_set() -> None:
    trainer = _load_trainer()
    files = set(trainer.TRAIN_FILES.values())
    assert files == {
        "corpus.jsonl",
        *(f"train_extra{n}.jsonl" for n in ("", 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)),
        "blind.jsonl",
        *(f"blind{n}.jsonl" for n in range(2, 32)),
    }
    # blind32/33 were measured once (BLIND3[23]_FIRST.md) and are no authors yet; blind34 is
    # next (never read here); train_extra14 is round 25's fresh check, no author
    assert not {"blind32.jsonl", "blind33.jsonl", "blind34.jsonl", "train_extra14.jsonl"} & files
    # measured once (BLIND30_FIRST.md, BLIND31_FIRST.md), authors 44 and 45 since round 25
    assert {"blind28", "blind29", "blind30", "blind31", "extra13"} <= set(trainer.FRESH)
    assert trainer.RECENT == ("blind30", "blind31")  # the strict run's held-out pair


def test_each_author_is_held_out_with_parameters_chosen_without_it() -> None:
    trainer = _load_trainer()
    examples = []
    for fold, n_pos, n_neg in (("a", 4, 6), ("b", 3, 5), ("c", 5, 5)):
        for i in range(n_pos + n_neg):
            ex = object.__new__(trainer.Example)
            ex.fold, ex.text, ex.label = fold, "", "correction" if i < n_pos else None
            ex.rules = dict.fromkeys(trainer.LEVELS, False)
            ex.rule_conf, ex.vetoed, ex.aimed, ex.bags = 0.0, False, False, [set()]
            ex.verdict = False
            examples.append(ex)
    # author "c" alone scores its negatives high: a threshold chosen with it would differ
    scored = [(ex, 0.9 if ex.label else (0.95 if ex.fold == "c" else 0.1)) for ex in examples]
    others = trainer.choose_all([s for s in scored if s[0].fold != "c"])
    assert others["low"][0] <= 0.9  # every positive of a and b flagged, no negative
    everyone = trainer.choose_all(scored)
    assert everyone["low"][0] > 0.95  # chosen with "c", the threshold must pass over it


def test_the_parameters_are_chosen_on_the_authors_the_rules_do_not_saturate() -> None:
    trainer = _load_trainer()
    examples = []
    for fold in ("corpus", "extra5", "blind12"):  # the rules catch all of corpus's corrections
        for i in range(10):
            ex = object.__new__(trainer.Example)
            ex.fold, ex.text, ex.label = fold, "", "correction" if i < 5 else None
            ex.rules = dict.fromkeys(trainer.LEVELS, fold == "corpus" and i < 5)
            ex.rule_conf, ex.vetoed, ex.aimed, ex.bags = 0.0, False, False, [set()]
            ex.verdict = False
            examples.append(ex)
    # the rules catch corpus's corrections; its negatives score .8, the fresh authors' .2
    scored = [(ex, 0.7 if ex.label else (0.8 if ex.fold == "corpus" else 0.2)) for ex in examples]
    assert {ex.fold for ex, _ in trainer.choice_pool(scored)} == {"extra5", "blind12"}
    assert trainer.choose_all(trainer.choice_pool(scored))["low"][0] <= 0.7
    assert trainer.choose_all(scored)["low"][0] > 0.8  # corpus's negatives would hold it up
    only_seen = [s for s in scored if s[0].fold == "corpus"]
    assert trainer.choice_pool(only_seen) == only_seen


def test_low_counts_the_rules_own_false_positives_against_its_cap() -> None:
    # round 15: a new writer's "No, ..." answers fire the rules; low's cap is on the total
    # false-positive rate (MAX_TOTAL_FP), so it vetoes such matches where medium keeps them
    trainer = _load_trainer()
    examples = []
    for fold in ("extra5", "blind12"):
        for i in range(210):
            ex = object.__new__(trainer.Example)
            ex.fold, ex.text, ex.label = fold, "", "correction" if i < 10 else None
            ex.rules = dict.fromkeys(trainer.LEVELS, 10 <= i < 13)  # 3 of 200 negatives: 1.5 %
            ex.rule_conf, ex.vetoed, ex.aimed, ex.bags = 0.85, False, False, [set()]
            ex.verdict = False
            examples.append(ex)
    scored = [(ex, 0.9 if ex.label else (0.3 if ex.rules["low"] else 0.1)) for ex in examples]
    chosen = trainer.choose_all(scored)
    assert trainer.MAX_TOTAL_FP["low"] < 0.015 < trainer.MAX_TOTAL_FP["medium"]
    assert chosen["low"][1] > 0.3  # the rule matches the scorer disbelieves are vetoed
    assert chosen["medium"][1] == 0.0  # within medium's cap: no veto needed
    flagged = [trainer.flagged(ex, p, "low", chosen["low"]) for ex, p in scored]
    assert sum(flagged) == 20 and all(flagged[:10])


def test_a_more_sensitive_level_is_chosen_nested_under_the_stricter_one() -> None:
    # round 20: round 19's chooser gave medium veto .7 / strong 1.01 under low's .7 / .95, so
    # a .96 rule match kept at low was vetoed at medium; the choice is now nested
    trainer = _load_trainer()
    examples = []
    for fold in ("extra5", "blind12"):
        for i in range(110):
            ex = object.__new__(trainer.Example)
            ex.fold, ex.text, ex.label = fold, "", "correction" if i < 10 else None
            # 10 of 100 negatives fire a rule at medium (.85): medium can meet its cap only
            # by vetoing them (their probability .6)
            ex.rules = {"low": False, "medium": 10 <= i < 20, "high": 10 <= i < 20}
            ex.rule_conf, ex.vetoed, ex.aimed, ex.bags = 0.85, False, False, [set()]
            ex.verdict = False
            examples.append(ex)
    scored = [(ex, 0.9 if ex.label else (0.6 if ex.rules["medium"] else 0.1)) for ex in examples]
    assert trainer.choose(scored, "medium")[1] > 0.6  # alone, medium vetoes the matches
    stricter = (0.8, 0.5, 0.95)  # a low that keeps a rule match of probability .5 or more
    chosen = trainer.choose(scored, "medium", stricter)
    assert trainer.nested(chosen, stricter) and chosen[1] <= 0.5
    levels = trainer.choose_all(scored)
    assert trainer.nested(levels["medium"], levels["low"])
    assert trainer.nested(levels["high"], levels["medium"])
    for ex, p in scored:  # every prompt flagged at low is flagged at medium, and at high
        if trainer.flagged(ex, p, "low", levels["low"]):
            assert trainer.flagged(ex, p, "medium", levels["medium"])
        if trainer.flagged(ex, p, "medium", levels["medium"]):
            assert trainer.flagged(ex, p, "high", levels["high"])


def test_the_shipped_levels_are_nested() -> None:
    trainer = _load_trainer()
    shipped = {
        lvl: (model_params.THRESHOLDS[lvl], *model_params.RULE_VETO[lvl]) for lvl in trainer.LEVELS
    }
    assert trainer.nested(shipped["medium"], shipped["low"])
    assert trainer.nested(shipped["high"], shipped["medium"])


def test_the_strict_run_holds_the_newest_authors_out_together() -> None:
    trainer = _load_trainer()
    examples = []
    for fold in ("a", "b", "c", "d"):
        for i in range(8):
            ex = object.__new__(trainer.Example)
            ex.fold, ex.text, ex.label = fold, "", "correction" if i < 4 else None
            ex.rules = dict.fromkeys(trainer.LEVELS, False)
            ex.rule_conf, ex.vetoed, ex.aimed, ex.verdict = 0.0, False, False, False
            ex.bags = [{"w:undo", f"w:{fold}"} if ex.label else {"w:add", f"w:{fold}"}]
            examples.append(ex)
    table = trainer.recent_table(examples, held=("c", "d"))
    assert set(table["authors"]) == {"c", "d"}
    rest = [ex for ex in examples if ex.fold not in ("c", "d")]
    assert table["params"] == trainer.choose_all(trainer.choice_pool(trainer.out_of_fold(rest)))
    # the words shared by every author carry over: c and d are scored by a model of a and b
    assert table["authors"]["c"]["low"]["detector"]["recall"] == 1.0
    assert table["summary"]["low"]["mean_fp_rate"] == 0.0


def _load_trainer() -> Any:
    """``tools/train_corrections_model.py`` as a module."""
    return load_script("tools/train_corrections_model.py")


def _load_bench() -> Any:
    """``bench/corrections_quality.py`` as a module (the bench is a script, not a package)."""
    return load_script("bench/corrections_quality.py")


def test_the_bench_finds_later_blind_sets_and_skips_the_named_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _load_bench()
    for name in ("blind.jsonl", "blind2.jsonl", "blind7.jsonl", "blind10.jsonl"):
        (tmp_path / name).write_text("", encoding="utf-8")
    monkeypatch.setattr(bench, "DATA", tmp_path)
    assert [n for n, _ in bench.blind_sets(set())] == [1, 2, 7, 10]
    assert [n for n, _ in bench.blind_sets({"blind7"})] == [1, 2, 10]


def test_the_bench_skips_every_unseen_blind_set_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _load_bench()
    names = ("blind.jsonl", "blind6.jsonl", "blind32.jsonl", "blind33.jsonl", "blind34.jsonl")
    for name in names:
        (tmp_path / name).write_text("", encoding="utf-8")
    monkeypatch.setattr(bench, "DATA", tmp_path)
    assert bench.SEEN_BLIND == 33
    assert [n for n, _ in bench.blind_sets(set(), unseen=True)] == [1, 6, 32, 33]
    assert bench.parse_skip("unseen") == (set(), True)
    assert bench.parse_skip("none") == (set(), False)
    assert bench.parse_skip("blind9,blind10") == ({"blind9", "blind10"}, False)
    assert bench.parse_skip(bench.DEFAULT_SKIP) == (set(), True)


def test_the_scorer_vetoes_a_weak_rule_match_it_strongly_disagrees_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from conkeeper.services.analysis.corrections import model_params as model

    text = "no, use snake_case for the column names"
    assert detect(text, "low").label == "correction"
    # every probability is under a veto of 1.0: the match stands only if the rule is sure enough
    monkeypatch.setattr(model, "RULE_VETO", {"low": (1.0, 1.01)})
    # a vetoed match still gets the scorer's own verdict at the level's threshold (round 13)
    found = detect(text, "low")
    assert found.label == "correction" and found.pattern == "model"
    monkeypatch.setitem(model.THRESHOLDS, "low", 1.0)
    found = detect(text, "low")
    assert found.label is None and found.pattern == "no-then-instruction"
    monkeypatch.setattr(model, "RULE_VETO", {"low": (1.0, 0.5)})
    assert detect(text, "low").label == "correction"
    # the rules alone (model=False) are never vetoed
    monkeypatch.setattr(model, "RULE_VETO", {"low": (1.0, 1.01)})
    assert detect(text, "low", model=False).label == "correction"


def test_word_features_are_regularised_harder_than_cues(monkeypatch: pytest.MonkeyPatch) -> None:
    trainer = _load_trainer()
    # a word and a cue that always fire together and predict the label equally well
    pairs = [({"w:redo", "m:restore"}, 1.0)] * 20 + [({"w:add"}, 0.0)] * 20
    monkeypatch.setattr(trainer, "SEEDS", (11,))
    monkeypatch.setattr(trainer, "LEXICAL_L2_SCALE", 1.0)
    even, _ = trainer.train(pairs, l2=0.05)
    assert abs(even["w:redo"] - even["m:restore"]) < 0.05
    monkeypatch.setattr(trainer, "LEXICAL_L2_SCALE", 5.0)
    scaled, _ = trainer.train(pairs, l2=0.05)
    assert scaled["m:restore"] > scaled["w:redo"] + 0.2


def test_the_shipped_weights_average_the_shuffle_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    trainer = _load_trainer()
    pairs = [({"w:a", "m:b"}, 1.0), ({"w:a"}, 0.0), ({"m:b", "w:c"}, 1.0), ({"w:c"}, 0.0)] * 5
    runs = [trainer.train_once(pairs, seed) for seed in (1, 2)]
    monkeypatch.setattr(trainer, "SEEDS", (1, 2))
    weights, bias = trainer.train(pairs)
    assert bias == pytest.approx((runs[0][1] + runs[1][1]) / 2)
    for name in ("w:a", "m:b", "w:c"):
        assert weights[name] == pytest.approx((runs[0][0][name] + runs[1][0][name]) / 2)
