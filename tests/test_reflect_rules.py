"""The rule a group of corrections teaches (``reflection.rules.imperative_rule``), shape by shape.

Each shape below came out as no rule (or as the complaint itself) before this session's
changes; the replayed-session tests in ``test_reflect_facts.py`` carry a few of them through
the hooks and ``reflect approve``. ``bench/reflect_rules_quality.py`` measures the extraction
on blind sets written by helpers who saw no code.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conkeeper.services.analysis.reflection.rules import imperative_rule

CASES = [
    (["why did you use requests? we use httpx in this repo"], "Use httpx in this repo."),
    (["wrong again. the tests go in tests/unit, not next to the source"],
     "Put the tests in tests/unit, not next to the source."),
    (["nope, revert that. Dates must be stored in UTC"], "Dates must be stored in UTC."),
    (["the dev server port is 5173 not 3000"], "The dev server port is 5173 not 3000."),
    (["why not Eloquent?"], "Use Eloquent."),
    (["why are you using moment? date-fns please"], "Use date-fns."),
    (["import moment again... we're on dayjs since last year"], "Use dayjs since last year."),
    (["seriously, third time: no print statements in library code"],
     "No print statements in library code."),
    (["saw `user!!.name` again. dont use !!, use ?. or requireNotNull with a message"],
     "Don't use !!; use ?. or requireNotNull with a message."),
    (["we do DI with Hilt here, not koin"], "Do DI with Hilt here, not koin."),
    (["every table needs a primary key called id of type uuid"],
     "Every table needs a primary key called id of type uuid."),
    # "why X? Y": the question names what the agent used, the answer what to use
    (["why unittest.mock? we have pytest-mock"], "Use pytest-mock, not unittest.mock."),
    (["why pip here?? these are Poetry projects, poetry.lock"], "Use poetry.lock, not pip here."),
    (["why did you write a retry loop? tenacity does this fine"],
     "Use tenacity, not a retry loop."),
    (["why are you adding moment? it's `Intl.DateTimeFormat` everywhere"],
     "Use `Intl.DateTimeFormat`, not moment."),
    (["why fmt.Println? slog.Info like the rest"], "Use slog.Info, not fmt.Println."),
    # fixes that name no subject
    (["grch38, not grch37"], "Use grch38, not grch37."),
    (["wrong queue, the batch one"], "Use the batch queue."),
    (["again with the fixtures, factory_boy"], "Use factory_boy, not the fixtures."),
    (["wrong port, 8443"], "Use 8443 as the port."),
    (["targetSdk 34. the store rejects lower"], "Set targetSdk to 34."),
    (["hand-rolled fetch wrapper again. ky please, like the other services"], "Use ky."),
]  # fmt: skip

COMPLAINTS = [
    ["you keep forgetting the import, that's the second time", "import missing AGAIN ugh"],
    ["this is not what I asked for", "no words"],
    ["compile times went through the roof after your last change", "why is the build broken?"],
    ["it broke again", "fix it"],
    ["why axios? we don't use it"],
    ["why yum? these are Rocky 9 nodes"],
    ["why is it broken? it's wrong everywhere", "why?? that's not right"],
    ["wrong approach, undo", "that's fine, not a problem", "not in the view."],
    ["crash at CheckoutView.swift:88 — again", "still eager. scan, not read"],
    ["why a force unwrap? CheckoutView.swift:88"],  # the answer points at a line, names no tool
    ["the release build needs it anyway"],
]


@pytest.mark.parametrize(("texts", "rule"), CASES)
def test_each_way_of_stating_a_rule_gives_the_rule(texts: list[str], rule: str) -> None:
    assert imperative_rule(texts) == rule


@pytest.mark.parametrize("texts", COMPLAINTS)
def test_a_group_that_only_complains_gives_no_rule(texts: list[str]) -> None:
    assert imperative_rule(texts) is None


MARKERS = ("you keep", "second time", "third time", "told you", "how many times", "seriously")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.text(max_size=200)
        | st.lists(st.sampled_from([*MARKERS, "use pnpm", "again", ".", "?", ",", " ", "`x`"])).map(
            " ".join
        ),
        min_size=1,
        max_size=3,
    )
)
def test_a_rule_never_carries_the_complaint_and_never_raises(texts: list[str]) -> None:
    rule = imperative_rule(texts)
    if rule is not None:
        assert rule.endswith(".") and rule[:1] == rule[:1].upper()
        assert not any(re.search(rf"\b{m}\b", rule, re.IGNORECASE) for m in MARKERS)
