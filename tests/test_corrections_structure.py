"""The detector reads who a negation is aimed at (:mod:`...corrections.structure`): the agent's
last move (a correction) or a new task's spec, a question, the user's own action, approval or
an answer (not one). Each mechanism is pinned through :func:`detect`, one through the real
UserPromptSubmit hook."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.test_corrections_tail import _prompt

from conkeeper.domain.corrections_queue import parse_queue
from conkeeper.services.analysis.corrections import detect
from conkeeper.services.analysis.corrections.detection import sentences, strip_noise
from conkeeper.services.analysis.corrections.structure import (
    Shape,
    fix_typos,
    model_vetoed,
    undoes_last_move,
)

LEVELS = ("low", "medium")


@pytest.mark.parametrize("level", LEVELS)
def test_a_prohibition_aimed_at_what_the_agent_did_is_a_correction(level: str) -> None:
    found = detect("you added a retry loop there; don't retry on 4xx responses", level)
    assert found.label == "correction"
    # the same prohibition as the spec of a new task is not
    assert (
        detect("Write a retry helper for the client. Don't retry on 4xx responses.", level).label
        is None
    )


@pytest.mark.parametrize("level", LEVELS)
def test_a_short_prohibition_with_what_to_do_instead_is_a_correction(level: str) -> None:
    found = detect("dont chnage the public api, only the implmentation", level)
    assert (found.label, found.pattern) == ("correction", "prohibition-contrast")
    # deferring work ("yet", "for now") is not correcting it
    assert detect("don't deploy anything yet, just write the plan", level).label is None


@pytest.mark.parametrize("level", LEVELS)
def test_putting_back_what_the_agent_changed_is_a_correction(level: str) -> None:
    found = detect("leave the retry count alone, you lowered it to 1", level)
    assert (found.label, found.pattern) == ("correction", "restore-after-you-did")
    # naming what the agent did and asking for the next step is not
    assert detect("you added the model; now add a view for it", level).label is None


@pytest.mark.parametrize("level", LEVELS)
def test_a_terse_contrast_replaces_what_the_agent_produced(level: str) -> None:
    assert detect("staging not prod", level).label == "correction"
    for text in ("Remember not to log secrets.", "not sure", "I said hello to the team"):
        assert detect(text, level).label is None, text


def test_one_letter_slips_of_the_keywords_are_read_as_the_words() -> None:
    assert fix_typos("stpo changing teh fixtures, thats wrng") == (
        "stop changing the fixtures, thats wrong"
    )
    assert fix_typos("top of the post, ask the old ward") == "top of the post, ask the old ward"
    assert detect("stpo changing the fixtures by hand", "low").label == "correction"


@pytest.mark.parametrize("level", LEVELS)
def test_hyphenated_compounds_are_not_correction_words(level: str) -> None:
    text = "wrong-way detection is the next feature; start with the data model"
    assert detect(text, level).label is None


@pytest.mark.parametrize(
    "text",
    [
        "you were right, the bug was in the parser",  # approval
        "sorry, typo on my side, I meant the orders table",  # the user's own slip
        "No, the warning is expected on Windows.",  # an answer after "No"
        "When the cache breaks again someday, clear it first.",  # a future hypothetical
        "Please add the webhook. Use httpx, not requests, for the call.",  # a new task's spec
        "For this task use uv, not pip.",  # a constraint stated up front
        "the nightly build is still slow today, not your fault",  # absolution
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_look_alikes_not_aimed_at_the_agent_are_not_flagged(text: str, level: str) -> None:
    assert detect(text, level).label is None


def test_a_complaint_aimed_at_the_agents_work_is_raised_to_low() -> None:
    aimed = detect("the parser you rewrote now fails on empty lines", "low")
    assert aimed.label == "friction"
    assert detect("the parser fails on empty lines", "low").label is None


def test_the_hook_queues_an_aimed_prohibition_and_not_a_new_tasks_spec(project: Path) -> None:
    queue_file = project / ".claude" / "memory" / "corrections-queue.md"
    spec = "Write a retry helper for the client. Don't retry on 4xx responses."
    assert _prompt(project, spec).returncode == 0
    assert not queue_file.exists()
    aimed = "you added a retry loop there; don't retry on 4xx responses"
    assert _prompt(project, aimed).returncode == 0
    (item,) = parse_queue(queue_file.read_text(encoding="utf-8"))
    assert item.label == "correction"
    assert "don't retry on 4xx" in item.text


@pytest.mark.parametrize(
    ("text", "label", "shape"),
    [
        ("We went over this, config lives in settings.toml.", "correction", "reminder"),
        ("I SAID MAIN.", "correction", "reminder"),
        ("the importer you rewrote fails on empty files", "friction", "went-bad-after-you"),
        ("we don't use tabs in YAML files here", "correction", "house-convention"),
        ("what are you even doing", "friction", "fed-up"),
        ("next time run the linter before you commit", "correction", "next-time"),
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_shapes_without_a_negation_are_read(text: str, label: str, shape: str, level: str) -> None:
    found = detect(text, level)
    assert (found.label, found.pattern) == (label, shape)


@pytest.mark.parametrize(
    "text",
    [
        "I said I'd review it tomorrow, so just push the branch.",  # "I said" about a plan
        "Add a parser; the importer fails on empty files.",  # a bad result, not the agent's
        "is it even possible to stream this?",  # "even" in a real question
        "Nope, the deprecation warning is expected on 3.13, you can leave it.",  # an answer
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_their_look_alikes_are_not(text: str, level: str) -> None:
    assert detect(text, level).label is None


def test_the_typo_literal_is_what_the_keywords_generate() -> None:
    from conkeeper.services.analysis.corrections.structure import typo_table, typos

    assert typo_table() == typos()


@pytest.mark.parametrize(
    ("text", "label", "shape"),
    [
        ("wonderful, another failing deploy. cheers", "friction", "sarcasm"),
        ("honestly this is so tiring", "friction", "fed-up"),
        ("do you even run the tests?", "friction", "fed-up"),
        ("that should have stayed a private helper", "correction", "should-have"),
        ("forgot to register the route in app.py", "correction", "omission"),
        ("leave the fixtures alone please", "correction", "scope"),
        ("I said yaml.", "correction", "reminder"),
        ("this goes much further than I asked, just the rename", "correction", "overreach"),
        ("why did you drop the index on users?", "correction", "why-did-you"),
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_reactions_to_the_agents_last_move_are_read(
    text: str, label: str, shape: str, level: str
) -> None:
    found = detect(text, level)
    assert (found.label, found.pattern) == (label, shape)


@pytest.mark.parametrize(
    "text",
    [
        "great, another feature request from sales: add CSV export",  # praise, then new work
        "you should have access to the bucket now",  # "should have" + a noun
        "forgot to mention: the API needs a token",  # the user's own omission
        "why did you pick Redis? just curious",  # a real question
        "I broke the schema myself with that migration, not your change. fix it with me",
        "sorry, mistake on my side, the table is called orders",  # own slip, next sentence
        "let's go back to the caching discussion from this morning",  # navigation
        # round 8's medium flagged these (blind 16, seen; worded anew): a place in the work
        "ok go back to where we were on the export job",
        "let's go back to the login form now that the API is done",
        "write a linter rule that flags wrong import orders",  # the word is the spec
        "no, the sandbox is throwaway, go ahead",  # an answer giving permission
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_their_new_look_alikes_are_not(text: str, level: str) -> None:
    assert detect(text, level).label is None


def test_informal_typing_is_read_as_the_words() -> None:
    from conkeeper.services.analysis.corrections.structure import spell_out

    assert spell_out("nooo thats the wrong one 😩") == "no that's the wrong one  "
    assert spell_out("pleeease dont") == "please don't"
    assert spell_out("a aaa battery, 0x111") == "a aaa battery, 0x111"
    # round 7: the scorer vetoes this weak rule match at low and medium (probability < .4)
    assert detect("hold on, stop. dont push to main", "high").label == "correction"
    assert detect("thats wrong, the port is 8443", "low").label == "correction"


def test_pasted_git_log_lines_are_not_the_users_words() -> None:
    text = "here's the log:\n3f9a2c1 revert the cache, it was wrong\nsummarise it for the notes"
    assert detect(text, "medium").label is None


def test_the_hook_queues_sarcasm_and_not_an_absolved_breakage(project: Path) -> None:
    queue_file = project / ".claude" / "memory" / "corrections-queue.md"
    absolved = "I broke the schema myself with that migration, not your change. fix it with me"
    assert _prompt(project, absolved).returncode == 0
    assert not queue_file.exists()
    sarcastic = "wonderful, another failing deploy 🙃 cheers"
    assert _prompt(project, sarcastic).returncode == 0
    (item,) = parse_queue(queue_file.read_text(encoding="utf-8"))
    assert item.label == "friction"
    assert "another failing deploy" in item.text


# issue 20 round 4: answers, the user's own slip, absolution, topics and specs seen on new authors
ROUND4_LOOK_ALIKES = (
    "no, that's not necessary. only the frontend",
    "No, leave it as is",
    "nope — just the staging cluster is enough",
    "No, go with whatever you think is best",
    "disregard what I said about Python 3.9, I misremembered, it's 3.12. continue",
    "That was silly of me — the file does have a BOM. Read it with utf-8-sig.",
    "this test was failing long before your change, it's flaky on main. can you look into it?",
    "the dashboard looks empty (nothing to do with your change, the metrics backend is down)",
    "let's go back to the caching question from earlier now that the release is out",
    "back to the second point you raised — the retry storm. how would you handle it?",
    "use Postgres instead of MySQL for the new billing service we're building",
    "pasting the old onboarding doc, rewrite it for new hires:\n\nNOTE: never run the seed "
    "script on prod.",
    "hypothetically, if I asked you to undo the whole refactor, what would we lose?",
    "Suppose we revert the cache layer, would the old timeouts come back?",
)
ROUND4_STILL_CAUGHT = (
    "no, keep the semicolons",
    "no, put it back the way it was",
    "it's been broken since your change to the parser",
    "use pnpm instead of npm, there's a pnpm-lock.yaml right there",
)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("text", ROUND4_LOOK_ALIKES)
def test_answers_slips_absolution_topics_and_specs_are_not_corrections(
    text: str, level: str
) -> None:
    assert detect(text, level).label is None


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("text", ROUND4_STILL_CAUGHT)
def test_their_corrections_are_still_caught(text: str, level: str) -> None:
    assert detect(text, level).label is not None


def test_a_rule_match_the_scorer_once_read_as_navigation_is_caught_at_every_level() -> None:
    # round 7: the scorer (it learned "go back to the previous page" as navigation) vetoed this
    # rule match at low and medium; round 8 at low; round 9's scorer, every feature kept, .89
    text = "go back to the previous version of the config"
    levels = ("low", "medium", "high")
    assert [detect(text, level).label is not None for level in levels] == [True, True, True]


@pytest.mark.parametrize("text", ["let's revert that", "roll it back please", "undo that"])
def test_a_whole_prompt_undoing_that_is_never_vetoed(text: str) -> None:
    # round 9: low may veto any rule match the scorer doubts (under .7); "let's revert that"
    # scored .62. An undo of "that"/"it" alone was a correction in all 14 labelled prompts.
    assert undoes_last_move(text)
    assert not undoes_last_move("let's revert that migration tomorrow after the release")
    assert detect(text, "low").label is not None


def test_the_hook_skips_a_declined_offer_and_queues_the_correction_after_it(project: Path) -> None:
    queue_file = project / ".claude" / "memory" / "corrections-queue.md"
    assert _prompt(project, "No, keep it as is").returncode == 0
    assert not queue_file.exists()
    assert _prompt(project, "no, put it back the way it was").returncode == 0
    (item,) = parse_queue(queue_file.read_text(encoding="utf-8"))
    assert item.label == "correction"


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("No, that's wrong: always use the repository helper, never raw SQL", True),
        ("That's not right, the discount applies before tax.", True),
        ("incorrect, the default is 30 seconds", True),
        ("the invoice PDF puts the currency symbol in the wrong place for Swiss customers", False),
        ("is that wrong?", False),
        ("not sure this is right, can you double-check the totals", False),
    ],
)
def test_a_verdict_opening_the_prompt_is_read(text: str, verdict: bool) -> None:
    prose = strip_noise(text)
    assert Shape(prose, sentences(prose)).verdict is verdict


def test_the_hook_queues_a_rule_match_opening_on_a_verdict_the_scorer_doubts(
    project: Path,
) -> None:
    # round 8: low vetoes a weak rule match under .5; one that opens on a verdict is kept
    # (main flagged the first too; with round 8's parameters alone it was vetoed), a bug report
    # with "wrong" further in is not queued
    queue_file = project / ".claude" / "memory" / "corrections-queue.md"
    text = "No, that's wrong: always use the repository helper, never raw SQL"
    assert _prompt(project, text).returncode == 0
    report = "the invoice PDF puts the currency symbol in the wrong place for Swiss customers"
    assert _prompt(project, report).returncode == 0
    (item,) = parse_queue(queue_file.read_text(encoding="utf-8"))
    assert item.label == "correction" and "repository helper" in item.text


# issue 20 round 13 (written for these tests, in no data set): what a prompt's structure says
# about constraints stated before the work, bug reports, navigation and questions
def _shape(text: str) -> Shape:
    prose = strip_noise(text)
    return Shape(prose, sentences(prose))


@pytest.mark.parametrize(
    ("text", "aimed", "new_task"),
    [
        ("Before you start: keep the old feed URLs working, staging only.", False, True),
        ("Please leave config.toml alone in this session, ops edits it live.", False, True),
        ("don't rename the public hooks while you do it", False, True),
        ("the nightly job passed until you touched the scheduler", True, False),
        ("for the second time, the fixtures go in conftest.py", True, False),
    ],
)
def test_a_constraint_stated_up_front_is_a_new_task_not_the_agents_past(
    text: str, aimed: bool, new_task: bool
) -> None:
    shape = _shape(text)
    assert (shape.aimed, shape.new_task) == (aimed, new_task)


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("that's the wrong bucket, prod data lives in acme-prod-eu", True),
        ("you picked the wrong queue, billing events go to billing-v2", True),
        ("wrong bucket, it's acme-prod-eu", True),
        ("the scanner app shows the wrong stock level after a return", False),
        ("I gave you the wrong bucket name, it's acme-prod-eu", False),
    ],
)
def test_the_wrong_x_is_a_verdict_only_of_the_agents_thing(text: str, verdict: bool) -> None:
    assert _shape(text).verdict is verdict


@pytest.mark.parametrize(
    "text",
    [
        "go back to the first schema you proposed and explain the foreign keys",
        "scroll back up to the stack trace you printed",
        "let's return to the caching question from this morning",
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_a_way_back_that_reads_or_explains_is_navigation(text: str, level: str) -> None:
    assert _shape(text).navigation
    assert detect(text, level).label is None


def test_a_way_back_to_an_earlier_state_is_still_a_correction() -> None:
    text = "go back to the previous version of the parser, the new one drops empty lines"
    assert not _shape(text).navigation
    assert detect(text, "medium").label is not None


@pytest.mark.parametrize(
    "text",
    [
        "Before you start: don't touch anything under deploy/prod, only staging.",
        "please don't edit the lockfile in this session, Renovate owns it",
        "the tablet app scrolls the wrong way in the catalogue since 3.2, look into it",
        "my bad, I had the old token exported. your code was fine",
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_constraints_bug_reports_and_absolution_are_not_corrections(text: str, level: str) -> None:
    assert detect(text, level).label is None


@pytest.mark.parametrize(
    ("text", "vetoed"),
    [
        ("why would Kafka rebalance a consumer group that never changed?", True),
        ("why does Gradle resolve two versions of the same library?", True),
        ("why is the retry count 10 now?", False),
        ("you asked about the cache size: no, keep 512 MB", True),
        ("careful, that's the old Retrofit adapter, we moved to Ktor last year", False),
        ("that query is far too slow on the big table. make it lazy", False),
        ("ISO weeks start on Monday here, use isoweek()", False),
        ("Ajoute une colonne `note` au modèle, ne touche pas aux migrations.", True),
        # round 14: a "no" in another language that answers the agent, read once glossed
        ("No, non serve un test per il login.", True),
        ("Non, pas besoin de migration pour ça.", True),
        ("Nie, nie trzeba nowej tabeli.", True),
        ("No, non così: usa il modulo esistente.", False),
    ],
)
def test_the_scorers_veto_reads_questions_answers_conventions_and_other_languages(
    text: str, vetoed: bool
) -> None:
    from conkeeper.services.analysis.corrections.structure import model_vetoed

    prose = strip_noise(text)
    assert model_vetoed(prose, Shape(prose, sentences(prose))) is vetoed


def test_the_hook_skips_round_13_look_alikes_and_queues_overreach(project: Path) -> None:
    queue_file = project / ".claude" / "memory" / "corrections-queue.md"
    for text in (
        "Before you start: never run `kubectl apply` against prod, only `diff`",
        "go back to the first schema you proposed and explain the foreign keys",
        "the tablet app scrolls the wrong way in the catalogue since 3.2, look into it",
        "I asked for the pagination fix only, why is the whole table component rewritten?",
    ):
        assert _prompt(project, text).returncode == 0
    (item,) = parse_queue(queue_file.read_text(encoding="utf-8"))
    assert item.label == "correction" and "pagination fix only" in item.text


@pytest.mark.parametrize(
    ("text", "loaded"),
    [
        ("Before you start: keep the old feed URLs working, staging only.", False),
        ("thanks, that works great", False),
        ("go back to the first schema you proposed and explain the foreign keys", False),
        ("the consul check should hit /healthz, the root returns a 302", True),
        ("Our billing API returns a 502 when the invoice has no lines.", False),
    ],
)
def test_a_prompt_the_structure_vetoes_never_loads_the_weights(text: str, loaded: bool) -> None:
    # round 13: the structural veto is asked before the scorer (same verdicts), so a new
    # task's spec, praise or navigation costs no weight table on the hook path
    code = (
        "import sys; from conkeeper.services.analysis.corrections import detect; "
        f"detect({text!r}, 'low'); "
        "print('conkeeper.services.analysis.corrections.model_weights' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env()
    )
    assert done.stdout.strip() == str(loaded)


def _env() -> dict[str, str]:
    """This checkout's sources first on the path of a fresh interpreter."""
    src = str(Path(__file__).resolve().parents[1] / "src")
    return {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "text",
    [
        "Het dashboard toont de verkeerde datum voor bestellingen uit Duitsland.",
        "Our billing API returns a 502 when the invoice has no lines. It should return an "
        "empty list instead.",
        "The dashboard shows the wrong currency for customers in Japan.",
    ],
)
def test_a_bug_report_of_the_users_own_product_is_not_a_correction(text: str, level: str) -> None:
    # round 16: "the app shows X instead of Y" is new work for the agent, not a correction of it
    assert detect(text, level).label is None


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "text",
    [
        "the dashboard shows the wrong currency since your change",
        "our API returns a 500 again",
        "there's a bug in the function you just wrote",
    ],
)
def test_the_same_report_tied_to_the_agents_change_is_still_caught(text: str, level: str) -> None:
    assert detect(text, level).label is not None


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "text",
    [
        "I'm done with this migration for today.",
        "honestly, leave it, I'll fix the Helm chart by hand.",
    ],
)
def test_giving_up_on_the_agent_is_friction(text: str, level: str) -> None:
    assert detect(text, level).label == "friction"


# round 17 (written for this test, in no data set): the user's report of an operation they ran
# is news for the agent, not a correction of it; the same opening that goes on to name the
# agent's work is not vetoed
@pytest.mark.parametrize(
    ("text", "vetoed"),
    [
        ("I restarted the Redis container, try the job again", True),
        ("FYI I've merged the auth PR, rebase on main", True),
        ("I bumped the base image to node 22 this morning", True),
        ("I restarted it twice and your migration still fails on the users table", False),
        ("we've made no progress on this in an hour", False),
    ],
)
def test_a_status_report_of_the_users_own_operation_vetoes_the_scorer(
    text: str, vetoed: bool
) -> None:
    from conkeeper.services.analysis.corrections.structure import model_vetoed

    prose = strip_noise(text)
    assert model_vetoed(prose, Shape(prose, sentences(prose))) is vetoed


def test_a_flaw_found_in_the_product_is_a_bug_report_unless_tied_to_the_agent() -> None:
    # round 17: "there's a bug/typo/leak in ..." (written for this test, in no data set)
    from conkeeper.services.analysis.corrections.structure import own_bug_report

    assert own_bug_report("There's a bug in the CSV export: dates before 1970 come out empty.")
    assert own_bug_report("there is a memory leak in the thumbnail worker")
    assert not own_bug_report("there's a bug in the function you just wrote")
    assert not own_bug_report("there's a typo in the README again")


# round 18 (written for this test, in no data set): the same news written as a state of the
# system vetoes the scorer too; "we are back to square one", a flaw or "you" keep the flag
@pytest.mark.parametrize(
    ("text", "vetoed"),
    [
        ("The search index is live now.", True),
        ("Redis is back up after the restart.", True),
        ("CI is green on main again", True),
        ("The Kafka cluster is back to three nodes.", True),
        ("we are back to square one", False),
        ("the build is green but you skipped the lint step", False),
    ],
)
def test_a_status_report_written_as_a_state_vetoes_the_scorer(text: str, vetoed: bool) -> None:
    from conkeeper.services.analysis.corrections.structure import model_vetoed

    prose = strip_noise(text)
    assert model_vetoed(prose, Shape(prose, sentences(prose))) is vetoed


# round 18 (written for this test, in no data set): a flaw tied to the agent's work outweighs
# the reading as the user's own action or as new work
@pytest.mark.parametrize(
    "text",
    [
        "I pushed it twice and your migration still fails",
        "I could have written this myself by now",
        "you didn't close the cursor. add a finally block",
    ],
)
def test_a_flaw_of_the_agent_overrides_the_users_own_action_and_new_work(text: str) -> None:
    from conkeeper.services.analysis.corrections.structure import model_vetoed

    prose = strip_noise(text)
    assert not model_vetoed(prose, Shape(prose, sentences(prose)))


@pytest.mark.parametrize("level", LEVELS)
def test_a_complaint_after_the_users_own_push_is_queued(level: str) -> None:
    assert detect("I pushed it twice and your migration still fails", level).label == "friction"
    assert detect("I pushed the branch, have a look", level).label is None


# round 19 (written for this test, in no data set): irony without a praise word, mock praise
# of a thing that "is now" worse, and an omission named as a state are corrections; real praise
# and a new request after praise are not
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "text",
    [
        "Wonderful, a DROP TABLE in the seed script. Just what we needed before the demo.",
        "Sure, commenting out the assertion is one way to get the build green.",
        "Impressive, the login page is now slower than the whole checkout.",
        "Great, so every request now opens its own Redis pool. Very scalable.",
        "Missing the index on orders.customer_id in that migration.",
        "The handler is missing the auth check the other routes have.",
    ],
)
def test_irony_mock_praise_and_a_named_omission_are_corrections(text: str, level: str) -> None:
    assert detect(text, level).label is not None


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "text",
    [
        "Impressive, the page is now twice as fast. Thanks!",
        "Great, another feature request from sales: add a CSV export.",
        "What's missing from the roadmap for Q3?",
        "Nice, that works. Now add a test for the empty case.",
    ],
)
def test_their_look_alikes_are_not_corrections(text: str, level: str) -> None:
    assert detect(text, level).label is None


# round 21 (written for this test, in no data set): sincere praise of a concrete improvement,
# with nothing turning it, is no correction at any level (main flagged the first two at every
# level: "now ... as fast" read as a bad outcome of the agent's move, "now much smaller" as a
# mock-praise exhibit); the same praise turned by a contrast or a cause still is
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "text",
    [
        "Nice, the dashboard is now three times as fast. Thank you!",
        "Great, the bundle is now much smaller. Cheers!",
        "Brilliant, the report now loads twice as fast. Thanks a lot!",
    ],
)
def test_sincere_praise_of_an_improvement_is_not_a_correction(text: str, level: str) -> None:
    assert detect(text, level).label is None


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "text",
    [
        "Impressive, the page is now twice as fast, but the images are gone.",
        "Nice, the tests pass now because you deleted the assertions.",
    ],
)
def test_praise_turned_by_a_contrast_or_a_cause_is_still_flagged(text: str, level: str) -> None:
    assert detect(text, level).label is not None


# round 20 (written for this test, in no data set): a heading "Missing: the ...", a closing
# "X is missing.", a closing "Very reproducible." or "Bold.", a doubled praise word before
# inline code; real praise, a "missing: nothing" and an open question stay unflagged
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "text",
    [
        "Missing: the retry policy for the webhook consumer.",
        "Looked at the diff. The rollback script is missing.",
        "So the config now depends on the developer's home directory. Very portable.",
        "So the fix for the flaky test was to delete the test. Bold.",
        "Nice nice, `eval` on user input.",
    ],
)
def test_round_20_omissions_and_irony_are_corrections(text: str, level: str) -> None:
    assert detect(text, level).label is not None


@pytest.mark.parametrize("level", ("low", "medium"))
@pytest.mark.parametrize(
    "text",
    [
        "Looks good. Very clean.",
        "Missing: nothing, the checklist is complete.",
        "Which translations are missing in the German locale?",
        "Bold move to ship on Friday, but the release notes look right.",
    ],
)
def test_round_20_look_alikes_are_not_corrections(text: str, level: str) -> None:
    assert detect(text, level).label is None


# round 22 (written for this test, in no data set): a "No" answering the agent's question with a
# state of the world, and the user correcting their own earlier words (in English or, read by
# the gloss, in another language), reproach nothing the agent did; main flagged each at high
# and most at every level. A "no" naming the flaw, the fix or the agent still is a correction.
@pytest.mark.parametrize("level", ("low", "medium", "high"))
@pytest.mark.parametrize(
    "text",
    [
        "Nope, the staging bucket isn't public yet.",
        "no, the mobile app doesn't call that endpoint",
        "Nope, that's the only Dockerfile in the repo.",
        "Correction to what I said before: the cron runs hourly, not daily.",
        "I told you the wrong port earlier, the broker listens on 9093.",
        "I said the wrong region, it's eu-west-2.",
    ],
)
def test_an_answer_of_fact_or_the_users_own_slip_is_not_a_correction(text: str, level: str) -> None:
    assert detect(text, level).label is None


@pytest.mark.parametrize("level", ("low", "medium", "high"))
@pytest.mark.parametrize(
    "text",
    [
        "no, Postgres doesn't have `IFNULL`, it's `COALESCE`. fix the query",
        "nope, the cache isn't working, you broke the key format",
        "sorry, I meant the other bucket, not this one",
        "you gave me the wrong port, it's 9093",
    ],
)
def test_a_no_naming_the_flaw_or_the_agent_is_still_a_correction(text: str, level: str) -> None:
    assert detect(text, level).label is not None


def test_the_hook_skips_an_answer_of_fact_and_queues_the_complaint_after_it(
    project: Path,
) -> None:
    queue_file = project / ".claude" / "memory" / "corrections-queue.md"
    assert _prompt(project, "Nope, that's the only Dockerfile in the repo.").returncode == 0
    assert _prompt(project, "Correction to what I said before: it runs hourly.").returncode == 0
    assert not queue_file.exists()
    assert (
        _prompt(project, "nope, the cache isn't working, you broke the key format").returncode == 0
    )
    (item,) = parse_queue(queue_file.read_text(encoding="utf-8"))
    assert "broke the key format" in item.text


# round 22 (written for this test): moving the work to another repo, branch or service is where
# to work next, so the scorer's flag is dropped (held out it flagged 6 such prompts at medium);
# one naming a flaw or the agent is not
@pytest.mark.parametrize(
    ("text", "vetoed"),
    [
        ("switch back to the billing repo", True),
        ("Switch to the ios branch now, we're done with the web app.", True),
        ("go back to the auth service, we need a metric there too", True),
        ("switch back to the main branch, you are on the wrong one", False),
    ],
)
def test_moving_to_another_repo_or_branch_vetoes_the_scorer(text: str, vetoed: bool) -> None:
    prose = strip_noise(text)
    assert model_vetoed(prose, Shape(prose, sentences(prose))) is vetoed


# round 23 (written for this test, in no data set): an omission asked as a bare noun phrase, an
# omission named in a prompt that also asks for the fix, mock praise opening on a doubled praise
# word or holding up a part of the code named after a work noun; main let each through at low
@pytest.mark.parametrize("level", ("low", "medium", "high"))
@pytest.mark.parametrize(
    "text",
    [
        "And the rollback step for the new migration?",
        "What about the retry limit on the webhook consumer?",
        "The CHANGELOG entry? Every release gets one.",
        "Cool cool, a 500-line component with no tests.",
        "Missing: the timeout on the HTTP client. Add one.",
        "Great great, a retry loop with no backoff.",
        "Oh nice, a global mutable in the request handler.",
    ],
)
def test_round_23_omissions_and_mock_praise_are_corrections(text: str, level: str) -> None:
    assert detect(text, level).label == "correction"


# their look-alikes, and a "No" answering with what the team does not use or have ("Nope, we
# don't use Spring in this app": 11 prompts over 43 authors, all null), at every level
@pytest.mark.parametrize("level", ("low", "medium", "high"))
@pytest.mark.parametrize(
    "text",
    [
        "The deploy job still runs at night, right?",
        "What about the standup, is it still at ten?",
        "Nope, we don't use Kafka in this service.",
        "No, we don't have a staging cluster yet.",
        "Nice, another feature request from sales: add CSV export to the report page.",
    ],
)
def test_round_23_look_alikes_are_not_corrections(text: str, level: str) -> None:
    assert detect(text, level).label is None


def test_the_hook_queues_an_omission_asked_but_not_an_answer_of_what_we_use(
    project: Path,
) -> None:
    queue_file = project / ".claude" / "memory" / "corrections-queue.md"
    assert _prompt(project, "Nope, we don't use Kafka in this service.").returncode == 0
    assert not queue_file.exists()
    assert _prompt(project, "And the rollback step for the new migration?").returncode == 0
    (item,) = parse_queue(queue_file.read_text(encoding="utf-8"))
    assert "rollback step" in item.text


# round 24 (written for this test, in no data set): a constraint for a new task stated before
# its work (in English or in the frame of another language), at low and medium
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "text",
    [
        "Don't touch the legacy billing code for the new invoice page; it all goes in the v2 app.",
        "Para esta tarea, no uses dependencias nuevas.",
    ],
)
def test_round_24_a_constraint_before_the_work_is_not_a_correction(text: str, level: str) -> None:
    assert detect(text, level).label is None


# the scorer's veto: a fault seen where the product runs, a request whose verb closes the
# sentence (Japanese, Korean); each tied to the agent's work keeps the flag
@pytest.mark.parametrize(
    ("text", "vetoed"),
    [
        (
            "The gateway reboots every ~6 hours in the field, the heap grows during OTA I think.",
            True,
        ),
        ("On the production nodes the agent restarts every ~2 days. Let's find out why.", True),
        ("The gateway reboots every ~6 hours since your change to the OTA code.", False),
        ("In prod we run Postgres 15, not 14, it restarts every night.", False),
        ("ログイン画面のユニットテストを書いてください。", True),
        ("결제 화면에 재시도 버튼을 추가해 주세요.", True),
        ("テストを書き忘れてます。ユニットテストを書いてください。", False),
        ("For this task, you used npm again. Use pnpm.", False),
    ],
)
def test_round_24_field_faults_and_verb_final_requests_veto_the_scorer(
    text: str, vetoed: bool
) -> None:
    prose = strip_noise(text)
    assert model_vetoed(prose, Shape(prose, sentences(prose))) is vetoed


def test_the_hook_skips_a_constraint_up_front_and_queues_the_same_words_aimed_back(
    project: Path,
) -> None:
    queue_file = project / ".claude" / "memory" / "corrections-queue.md"
    text = "Don't touch the legacy billing code for the new invoice page; it all goes in v2."
    assert _prompt(project, text).returncode == 0
    assert not queue_file.exists()
    assert _prompt(project, "For this task, you used npm again. Use pnpm.").returncode == 0
    (item,) = parse_queue(queue_file.read_text(encoding="utf-8"))
    assert "pnpm" in item.text
