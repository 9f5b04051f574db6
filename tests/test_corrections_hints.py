"""The correction detector's shortcut: a rule is skipped (and never compiled) when none of its
hint words occur in a sentence, so every hint list must be necessary for its rule's pattern."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conkeeper.services.analysis import corrections

CORPUS = Path(__file__).parent / "data" / "corrections" / "corpus.jsonl"


def _sentences(text: str) -> list[str]:
    return corrections._join_bare_no(corrections.sentences(corrections.strip_noise(text)))


def _texts() -> list[str]:
    with open(CORPUS, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    texts = [row["text"] for row in rows]
    return texts + [t.upper() for t in texts] + [f"Okay, {t.lower()}" for t in texts]


def _missing_hints(sentence: str) -> list[str]:
    lower = sentence.lower()
    return [
        rule.name
        for rule in corrections._RULES
        if rule.regex.search(sentence) and not any(h in lower for h in rule.hints)
    ]


def test_every_rule_has_lower_case_hints() -> None:
    for rule in corrections._RULES:
        assert rule.hints, rule.name
        assert all(h == h.lower() and h for h in rule.hints), rule.name
    assert set(corrections._HINTS) == {rule.name for rule in corrections._RULES}


def test_no_corpus_match_lacks_its_rule_hints() -> None:
    matched = 0
    for text in _texts():
        for sentence in _sentences(text):
            assert _missing_hints(sentence) == [], sentence
            matched += sum(1 for r in corrections._RULES if r.regex.search(sentence))
    assert matched > 500  # the corpus exercises the rules broadly


WORDS = st.sampled_from(
    [
        "no",
        "nope",
        "nah",
        "actually",
        "you",
        "i",
        "said",
        "meant",
        "wrong",
        "not",
        "use",
        "instead",
        "don't",
        "stop",
        "why",
        "again",
        "still",
        "the",
        "it",
        "that",
        "this",
        "fix",
        "broke",
        "same",
        "revert",
        "undo",
        "back",
        "keep",
        "failing",
        "error",
        "worse",
        "please",
        "ok",
        "should",
        "must",
        "be",
        "look",
        "seems",
        "prefer",
        "rather",
        "never",
        "got",
        "now",
        "circles",
        "time",
        "we",
        "told",
        "asked",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=12), st.sampled_from(["", ",", ".", "!", "?"]))
def test_random_sentences_never_match_without_hints(words: list[str], end: str) -> None:
    sentence = " ".join(words) + end
    assert _missing_hints(sentence) == []
