"""The technical-word table of consolidation (:mod:`conkeeper.services.upkeep.freshness.synonyms`)
read the way :mod:`~conkeeper.services.upkeep.freshness.relations` reads an entry's words.

Why it exists: a word in the table is read as its group's concept everywhere, so a word put in
two groups, a function word, or a word that turns one concept into a rival of another would
merge rules that differ; these tests keep the table to one concept per word and pin that each
group's words meet."""

from __future__ import annotations

import pytest

from conkeeper.services.upkeep.freshness import relations, synonyms


def test_every_word_names_one_concept() -> None:
    seen: dict[str, str] = {}
    for concept, words in synonyms.GROUPS.items():
        for word in words.split():
            assert seen.setdefault(word, concept) == concept, word
            assert word == word.lower(), word


def test_no_word_is_filler_an_antonym_or_a_rival_alternative() -> None:
    rivals = {m for group in relations.CHOICE_GROUPS for m in group}
    for word in synonyms.TECH_SYNONYMS:
        assert word not in relations.STOPWORDS, word
        assert word not in relations.ANTONYMS, word
        assert word not in rivals, word


@pytest.mark.parametrize("concept", sorted(synonyms.GROUPS))
def test_the_words_of_a_group_are_read_as_one_concept(concept: str) -> None:
    read = {relations._concept(word)[0] for word in synonyms.GROUPS[concept].split()}
    assert len(read) == 1, read


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Whoever holds the pager checks the harvest log.", "On-call checks the harvest log."),
        ("Reembolsos de taxas vão para o painel.", "Refunds of fees go to the panel."),
        ("Favour server-side rendering.", "Prefer server-side rendering."),
    ],
)
def test_words_of_one_group_meet_across_entries(first: str, second: str) -> None:
    a, b = relations.read(first), relations.read(second)
    assert {"on-call", "refund", "prefer"} & set(a.weights) & set(b.weights)
