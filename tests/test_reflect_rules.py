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

from conkeeper.services.analysis.reflection.rules import READINGS, imperative_rule

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
    (["tabs again in the Makefile?? MAKEFLAGS"], "Use MAKEFLAGS."),
    # round 6 (forms read across the five seen sets, written here in other words)
    (["pls run `make lint` before you push, CI rejects it otherwise"],
     "Run `make lint` before you push, CI rejects it otherwise."),
    (["could you use structlog here like in the api service?"],
     "Use structlog here like in the api service."),
    (["you must add a changelog entry for every user-facing change"],
     "Add a changelog entry for every user-facing change."),
    (["after you change the proto run buf generate"],
     "After you change the proto run buf generate."),
    (["regenerate the client after an API change: npm run codegen"],
     "Regenerate the client after an API change: npm run codegen."),
    (["don't build the regex inside the loop, compile it once at module level"],
     "Don't build the regex inside the loop; compile it once at module level."),
    (["no `unwrap()` in library code please"], "No `unwrap()` in library code."),
    (["run `pytest -x -- -k slow` first, every time"], "Run `pytest -x -- -k slow` first."),
    (["name the fixtures e.g. user_factory, never plain user"],
     "Name the fixtures e.g. user_factory; never plain user."),
    (["wrong image tag again. it's node:20-alpine"], "Use node:20-alpine."),
    (["it's `kubectl --context=staging`, always"], "Use `kubectl --context=staging`."),
    (["eu-west-1 for the staging stack"], "Use eu-west-1 for the staging stack."),
    (["pydantic models, like the rest of the api"], "Use pydantic models."),
    (["around here migrations use alembic revision --autogenerate"],
     "Around here migrations use alembic revision --autogenerate."),
    (["assert is only for tests in this codebase"], "Assert is only for tests in this codebase."),
    (["use poetry add, like I said yesterday"], "Use poetry add."),
    (["give every endpoint a rate limit"], "Give every endpoint a rate limit."),
    (["hand-written retry loop in the client, why not tenacity?"], "Use tenacity."),
    (["the schema changed so regenerate the types with `npm run gen`"],
     "Regenerate the types with `npm run gen`."),
    (["do not call the payment API from tests, use the sandbox stub"],
     "Do not call the payment API from tests; use the sandbox stub."),
    # of two rules, the one naming what the corrections keep coming back to
    (["why no retry_policy in the client? it gave up after one try",
      "you dropped retry_policy again, why? eu-west-1-backup for the nightly upload job"],
     "Use retry_policy in the client."),
    # a bare name after a complaint, given twice
    (["unittest again in the new module. pytest.", "more unittest classes in tests/api... pytest"],
     "Use pytest."),
    # other languages keep the user's words
    (["Bei uns kommen alle Secrets in den Vault, nie in die .env Datei"],
     "Bei uns kommen alle Secrets in den Vault, nie in die .env Datei."),
    (["Lance `pytest -x` avant chaque commit, je veux voir les tests passer"],
     "Lance `pytest -x` avant chaque commit, je veux voir les tests passer."),
    (["Aquí siempre usamos `ruff format` antes del commit"],
     "Aquí siempre usamos `ruff format` antes del commit."),
    (["Aqui a gente sempre roda `npm ci` no CI, nunca `npm install`"],
     "Aqui a gente sempre roda `npm ci` no CI, nunca `npm install`."),
    (["Mete los tests en tests/unit, no al lado del código"], "Mete los tests en tests/unit."),
    (["Ne pousse jamais sur main directement, passe par une PR"],
     "Ne pousse jamais sur main directement, passe par une PR."),
    (["Wir verwenden immer `uv` statt pip", "schon wieder pip install..."],
     "Wir verwenden immer `uv` statt pip."),
    (["the retry loop again. tenacity has that", "hand-written retry again? tenacity"],
     "Use tenacity."),
    # a bare "Don't" keeps what it forbids: the habit said just before it
    (["You keep passing `--no-verify` to git commit. Don't, run `make lint` first."],
     "Do not pass `--no-verify` to git commit; run `make lint` first."),
    (["you're using print() again. Stop it."], "Do not use print()."),
    (["You keep committing to main. Never do that again!"], "Do not commit to main."),
    # one order said twice, once refused, in any language; a short rule and its reason; what
    # to do instead of what a part forbids, whatever its verb
    (["n'utilise pas `any`, utilise `unknown`"], "N'utilise pas `any`, utilise `unknown`."),
    (["utilise toujours `go test -race`, sinon les data races passent inaperçues"],
     "Utilise toujours `go test -race`, sinon les data races passent inaperçues."),
    (["never use `git add -A`; stage files by name"],
     "Never use `git add -A`; stage files by name."),
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
    # round 6: orders that only complain, states that are no values, words that point back
    ["read the ticket, that's not what I asked", "reread my message"],
    ["the deploy is broken again", "staging is still red", "the partition is not correct"],
    ["never on main", "always, before the release"],
    ["we always write the docs with both", "don't put the config there"],
    ["8.1, not 8.3"],
    ["time.sleep for the retry backoff? in the worker of all places"],  # asked, not said
    ["the build failed again. great.", "still failing. great"],  # said twice, names nothing
    ["the numbers are wrong again in report.py", "report.py again. wrong numbers"],
    ["Schon wieder `print()` im Code", "encore un `print()` dans le module"],
    ["otra vez `console.log` en el componente", "de novo `var` no arquivo"],
    ["Ce n'est pas ce que je voulais, toujours la même erreur"],
    ["No es lo que pedí, siempre lo mismo con el build"],
    # polite, habit and one-word shapes around a complaint
    ["can you stop breaking the build?", "could you please just read what I wrote"],
    ["tests here are always red after your edits", "our CI is slow because of you"],
    ["v2 for nothing, it's worse", "pls stop", "I said: stop"],
    ["it's fine, never mind", "why no tests??"],
    # a "Don't" whose habit names nothing, or is told in a verb no order opens on
    ["You keep doing it. Don't.", "you keep forgetting the import. don't"],
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


@pytest.mark.parametrize("reading", READINGS)
def test_every_named_reading_is_live_and_can_be_left_out(reading: str) -> None:
    """The bench's leave-one-set-out mode leaves readings out by name: each name must change
    the rule of at least one case above when left out, or the measure would be of nothing."""
    groups = [texts for texts, _rule in CASES] + COMPLAINTS
    changed = [
        texts
        for texts in groups
        if imperative_rule(texts, leave_out=frozenset({reading})) != imperative_rule(texts)
    ]
    assert changed, f"leaving {reading!r} out changes no case"


def test_an_order_after_a_reproach_and_a_comma_is_its_own_clause() -> None:
    """ "you skipped it again, I need you to run X": the reproach is left out, the order kept
    (the group's only correction may be this one)."""
    text = "you skipped it again, I need you to run `make fmt` before every commit"
    assert imperative_rule([text]) == "Run `make fmt` before every commit."
