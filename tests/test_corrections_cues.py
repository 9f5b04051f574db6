"""Cues of meaning for the learned correction scorer (issue 20, round 5): corrections worded
without a negation word, in informal or non-native English, or in another language share
features with the English corrections the scorer learned from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import submit_prompt
from conkeeper.domain.corrections_queue import parse_queue
from conkeeper.services.analysis.corrections import cues, detect
from conkeeper.services.analysis.corrections.cues import gloss, meaning_cues
from conkeeper.services.analysis.corrections.detection import sentences, strip_noise
from conkeeper.services.analysis.corrections.features import (
    normalise,
    prompt_segments,
    segment_features,
)
from conkeeper.services.analysis.corrections.structure import Shape

# corrections written for these tests (in no data set), each missed by the detector before
# round 5 at both levels; the scorer now flags them from their cues of meaning
FLAGGED_AT_LOW = (
    "u forgot to add the new route to the router file",
    "why'd you bump the major version of the ORM? pin it back to 4.2",
    "Du hast die Konfiguration gelöscht statt sie zu ändern. Stell sie wieder her.",
    "você apagou o arquivo de configuração em vez de corrigir. volta ele",
)
# round 6 capped the false positives the scorer adds at zero (its low threshold .89 -> .90,
# medium .76 -> .81): "sigue fallando igual ..." now needs medium, "too much ..." high
FLAGGED_AT_MEDIUM = (
    "sigue fallando igual, ya van tres intentos",
    "you wrote the loader in Python 2 style, the CI runs 3.12. rewrite the print calls",
    "还是一样的错误，又失败了",
)
# their look-alikes: requests, praise, a convention stated up front, the user's own omission
NOT_FLAGGED = (
    "add a retry helper to utils, with exponential backoff",
    "Bitte füge einen Test für den Parser hinzu.",
    "adicione um teste para o parser, por favor",
    "thanks, that works great",
    "we use date-fns in this project; write a helper that formats invoice dates",
    "use the v2 endpoint for the new client we are writing",
    "there is a typo in the README, line 12",
    "forgot to mention: the API needs a token",
    "who wrote the original parser? I want to ask them about it",
)
# round 12: medium spends more of its false-positive budget (the scorer's threshold .68 -> .63)
# and the scorer reads this one .66 ("so just read from it" is a redirect's wording): kept
# unflagged at low, where a false positive costs most
NOT_FLAGGED_AT_LOW = ("the other team owns the billing service, so just read from it",)


@pytest.mark.parametrize("text", FLAGGED_AT_LOW)
@pytest.mark.parametrize("level", ["low", "medium"])
def test_a_correction_without_a_negation_or_in_another_language_is_flagged(
    text: str, level: str
) -> None:
    assert detect(text, level).label is not None


@pytest.mark.parametrize("text", FLAGGED_AT_MEDIUM)
def test_a_terser_one_is_flagged_at_medium(text: str) -> None:
    assert detect(text, "medium").label is not None


def test_a_challenge_round_8_doubted_is_flagged_at_every_level() -> None:
    # round 8's scorer gave it .52 (high only); round 9's, every feature kept, .95
    for level in ("low", "medium", "high"):
        assert detect("who asked for a Dockerfile? delete it", level).label is not None


@pytest.mark.parametrize("text", NOT_FLAGGED)
@pytest.mark.parametrize("level", ["low", "medium"])
def test_its_look_alikes_are_not(text: str, level: str) -> None:
    assert detect(text, level).label is None


@pytest.mark.parametrize("text", NOT_FLAGGED_AT_LOW)
def test_a_closer_look_alike_is_not_at_low(text: str) -> None:
    assert detect(text, "low").label is None


def _submit(project: Path, text: str) -> None:
    """One prompt through the real UserPromptSubmit hook (a fresh process, real payload)."""
    done = submit_prompt(project, text, session="cues-1")
    assert done.returncode == 0, done.stderr


def test_the_hook_queues_a_german_and_an_informal_correction_but_not_a_request(
    project: Path,
) -> None:
    _submit(project, "Bitte füge einen Test für den Parser hinzu.")
    _submit(
        project, "Du hast die Konfiguration gelöscht statt sie zu ändern. Stell sie wieder her."
    )
    _submit(project, "u forgot to add the new route to the router file")
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.label for item in items] == ["correction", "correction"]
    assert "Konfiguration" in items[0].text and "router" in items[1].text


# round 6: corrections and friction in the languages the gloss learned this round (written for
# these tests, in no data set; main's detector flagged none of them), and requests in the same
# languages that must stay unflagged
NEW_LANGUAGES_FLAGGED = (
    "ты удалил конфиг вместо того чтобы его поправить, верни его",
    "опять та же ошибка, ничего не изменилось",
    "hai cancellato il file sbagliato, ripristina quello di prima",
)
# round 7's scorer (trained with blind 14 and train_extra7) gives these .74-.80: flagged from
# medium (Russian) or high (Dutch, Turkish) only
NEW_LANGUAGES_FLAGGED_AT_HIGH = (
    "не трогай миграции, я просил только поправить тест",
    "nee, gebruik de bestaande helper in plaats van een nieuwe te schrijven",
    "yanlış dosyayı değiştirdin, geri al",
)
# terse friction in those languages, flagged from medium (as "schon wieder derselbe Fehler")
NEW_LANGUAGES_FRICTION = ("여전히 같은 에러가 나요", "nog steeds dezelfde fout", "hala aynı hata")
NEW_LANGUAGES_REQUESTS = (
    "добавь, пожалуйста, тест для парсера",
    "aggiungi un test per il parser, per favore",
    "voeg een test toe voor de parser",
    "parser için bir test ekle lütfen",
    "파서에 대한 테스트를 추가해 주세요",
)


@pytest.mark.parametrize("text", NEW_LANGUAGES_FLAGGED)
@pytest.mark.parametrize("level", ["low", "medium"])
def test_russian_italian_dutch_turkish_and_korean_corrections_are_flagged(
    text: str, level: str
) -> None:
    assert detect(text, level).label is not None


@pytest.mark.parametrize("text", NEW_LANGUAGES_FLAGGED_AT_HIGH)
def test_the_others_are_flagged_at_high(text: str) -> None:
    assert detect(text, "high").label is not None


@pytest.mark.parametrize("text", NEW_LANGUAGES_FRICTION)
def test_terse_friction_in_those_languages_is_flagged_at_medium(text: str) -> None:
    assert detect(text, "medium").label == "friction"


@pytest.mark.parametrize("text", NEW_LANGUAGES_REQUESTS)
@pytest.mark.parametrize("level", ["low", "medium"])
def test_requests_in_those_languages_are_not(text: str, level: str) -> None:
    assert detect(text, level).label is None


def test_the_hook_queues_a_russian_and_an_italian_correction_but_not_a_russian_request(
    project: Path,
) -> None:
    _submit(project, "добавь, пожалуйста, тест для парсера")
    _submit(project, "ты удалил конфиг вместо того чтобы его поправить, верни его")
    _submit(project, "hai cancellato il file sbagliato, ripristina quello di prima")
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.label for item in items] == ["correction", "correction"]
    assert "конфиг" in items[0].text and "cancellato" in items[1].text


def test_the_hook_queues_czech_and_ukrainian_corrections_but_not_requests(project: Path) -> None:
    # round 8 (written for this test, in no data set): main's detector flagged none of these
    # at any level; the requests in the same languages stay unflagged
    _submit(project, "Přidej prosím test pro parser")
    _submit(project, "vrať to zpátky, použij starou verzi")
    _submit(project, "додай тест для парсера, будь ласка")
    _submit(project, "знову та сама помилка")
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.label for item in items] == ["correction", "friction"]
    assert "zpátky" in items[0].text and "помилка" in items[1].text


def test_at_medium_the_hook_queues_what_the_scorer_adds_over_a_looser_bar(project: Path) -> None:
    # round 8: medium may add .5 % of false positives to the rules' own (threshold .75 -> .64,
    # veto .4 -> .3); main flagged the first two at high only or not at all, the last at none
    config = project / ".claude" / "memory" / ".memory-config.md"
    config.write_text("---\ncorrection_sensitivity: medium\n---\n", encoding="utf-8")
    _submit(project, "fortfarande samma fel")
    _submit(project, "go back to the previous version of the config")
    _submit(project, "lägg till ett test för parsern")
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.label for item in items] == ["friction", "friction"]
    assert "samma" in items[0].text and "previous version" in items[1].text


def test_the_hook_queues_a_value_fix_without_a_negation_but_not_new_tasks(project: Path) -> None:
    # round 7 (written for this test, in no data set): main's detector flagged the fix only
    # at high; a new task with an indefinite object and a numbered task list stay unflagged
    _submit(project, "add a staging DB for the seed script")
    _submit(project, "1. add a login page\n2. write tests for it\n3. deploy to staging")
    _submit(project, "the retry count should be 5, the 3 you put in is too low")
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.label for item in items] == ["correction"]
    assert "retry count" in items[0].text


def _cues(*sentences: str) -> set[str]:
    """The ``m:``/``x:`` features the scorer reads from a segment of ``sentences``."""
    return {f for f in segment_features(list(sentences)) if f.startswith(("m:", "x:"))}


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("that belongs in conftest.py", "m:deictic-start"),
        ("smaller, like half that", "m:comparative-start"),
        ("who asked for a README? delete it", "m:challenge"),
        ("since when do we use yarn here", "m:challenge"),
        ("why'd you add a new dependency", "m:challenge"),
        ("left-aligned, like it was", "m:restore"),
        ("the previous wording was better, go back to it", "m:restore"),
        ("swap the order, lint first instead", "m:contrast"),
        ("not moment.js, date-fns", "m:contrast"),
        ("the other bucket", "m:alternative"),
        ("the staging one", "m:alternative"),
        ("too much. just the null check, nothing else", "m:scope"),
        ("Only the iOS side please, leave Android alone for now", "m:scope"),
        ("vitest, we migrated off jest last quarter", "m:convention"),
        ("in this repo we use tabs", "m:convention"),
        ("you should have kept the old endpoint", "m:hindsight"),
        ("you're changing way more than needed", "m:you-doing"),
        ("you have forget the migration", "m:you-past"),
        ("also you never updated the docs page", "m:you-past"),
        ("this is taking forever", "m:wasted"),
        ("use errors.Is here, string matching is brittle", "m:flaw"),
        ("use errors.Is here, string matching is brittle", "m:place"),
        ("use errors.Is here, string matching is brittle", "x:act-then-fix"),
        ("the bucket is public, you left it default, make it private", "x:act-then-fix"),
        ("\u274c not Room, we use SQLDelight", "m:negative-emoji"),
    ],
)
def test_a_correction_worded_without_a_negation_has_its_cue(text: str, cue: str) -> None:
    assert cue in _cues(text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("there is a typo in the README", "m:place"),  # "there is" is not a place
        ("add the LICENSE file, MIT", "x:act-then-fix"),  # a fix without an act
        ("please add a CSV export to the reports page", "m:you"),
        ("we should add caching later", "m:convention"),
    ],
)
def test_a_request_does_not_get_the_cue(text: str, absent: str) -> None:
    assert absent not in _cues(text)


# round 7: a correction without a negation word points at something already there (a definite
# object, "that" + a copula, "the one you ..."), a new task at something new
@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("use the staging DB", "m:redirect-definite"),
        ("put it in the service layer", "m:redirect-definite"),
        ("add a staging DB", "m:task-indefinite"),
        ("create a new endpoint for refunds", "m:task-indefinite"),
        ("that belongs in the controller", "m:deictic-copula"),
        ("it goes in sealed-secrets", "m:place-verb"),
        ("lr should be 3e-4", "m:should-be"),
        ("you put the decay in the schedule", "m:you-past"),
        ("the one you added is the old client", "m:the-one-you"),
        ("eu-central-1 actually", "m:corrective-adverb"),
        ("h100 partition", "m:terse-value"),
        ("node v20 on the runners", "m:terse-value"),
    ],
)
def test_a_redirect_or_a_new_task_has_its_cue(text: str, cue: str) -> None:
    assert cue in _cues(text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("create a staging DB", "m:redirect-definite"),  # something new, not the one there
        ("use the staging DB", "m:task-indefinite"),
        ("hi, node v20?", "m:terse-value"),  # a greeting and a question
        ("please write the migration for the orders table today", "m:terse-value"),  # long
    ],
)
def test_the_look_alike_lacks_the_cue(text: str, absent: str) -> None:
    assert absent not in _cues(text)


def test_a_numbered_task_list_is_read_as_one() -> None:
    feats = segment_features(["1.", "add a login page", "2.", "write tests for it"])
    assert "s:numbered" in feats and "w:1" not in feats


def test_informal_spellings_are_read_as_the_words_they_stand_for() -> None:
    feats = segment_features(["u forgot to register the new worker"])
    assert {"w:you", "s:you-past", "m:you-past"} <= feats
    assert "w:u" not in feats


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Bitte nicht var verwenden, wir nutzen explizite Typen.", {"please", "not", "use"}),
        ("Du hast die Tests gelöscht statt sie zu reparieren.", {"you", "deleted", "instead"}),
        ("não, esse arquivo é o de produção", {"no", "file"}),
        ("sigue fallando igual, llevamos horas con esto", {"still", "failing", "same"}),
        ("Zamiast HashMap użyj LinkedHashMap", {"instead", "use"}),
        ("c'est pas le bon fichier", {"not", "right"}),
        ("还是报一样的错，改了半天没用", {"still", "same", "wrong", "useless"}),
        ("改回去，变量名不要改成拼音", {"revert", "don't"}),
        ("не трогай конфиг CI, я просил только тесты", {"don't", "i", "asked", "only"}),
        ("hai cancellato il file sbagliato, ripristina quello", {"you", "wrong", "restore"}),
        ("nee, gebruik de bestaande helper in plaats van een nieuwe", {"no", "use", "instead"}),
        ("yanlış dosya, tekrar bak", {"wrong", "again"}),
        ("그 파일 말고 다른 파일 다시 고쳐줘", {"instead", "again"}),
    ],
)
def test_another_language_is_glossed_into_the_english_words(text: str, english: set[str]) -> None:
    lowered = normalise(text)
    assert english <= set(re.findall(r"[a-z']+", gloss(lowered, lowered.split())))
    assert {"w:" + word for word in english} <= segment_features([text])


def test_english_is_not_glossed() -> None:
    text = "no, use the one in utils"
    assert gloss(text, text.split()) is text
    for text in ("use the test key", "use a mock for the clock"):
        assert gloss(text, text.split()) is text


# round 8: the languages and redirect words the gloss learned this round (written for this
# test, in no data set)
@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("pořád to nefunguje, zase stejná chyba", {"still", "doesn't", "work", "again"}),
        ("vrať to zpátky, použij starou verzi", {"revert", "back", "use"}),
        ("fortfarande samma fel, ångra det", {"still", "same", "wrong", "undo"}),
        ("använd inte den gamla nyckeln", {"use", "not"}),
        ("знову та сама помилка, поверни як було", {"again", "restore"}),
        ("usa la clave de prueba, no la de producción", {"use", "the", "no"}),
        ("t'as mis la clé de prod, mets celle de test", {"you", "have", "put"}),
        ("用测试密钥，不是正式的", {"use", "not"}),
    ],
)
def test_the_round_8_languages_and_redirect_words_are_glossed(text: str, english: set[str]) -> None:
    lowered = normalise(text)
    assert english <= set(re.findall(r"[a-z']+", gloss(lowered, lowered.split())))


def test_a_short_foreign_sentence_is_not_taken_for_english_on_one_shared_word() -> None:
    # Polish "to" ("it") is also an English word: "cofnij to" is "revert it"
    assert "revert" in gloss("cofnij to", ["cofnij", "to"])
    assert "w:revert" in segment_features(["cofnij to"])


def test_a_glossed_question_stays_a_question() -> None:
    assert "s:question" in segment_features(["por qué cambiaste la función?"])


@given(st.text(max_size=200))
def test_cues_never_raise_and_name_only_cues(text: str) -> None:
    lowered = normalise(text)
    tokens = lowered.split() or [""]
    assert all(cue.startswith("m:") for cue in meaning_cues(lowered, tokens, tokens))
    glossed = gloss(lowered, tokens)
    assert isinstance(glossed, str)
    segment_features([text])


# issue 20 round 9: redirects and value fixes without a negation word (written for this test,
# in no data set); main's detector before round 9 flagged none of them at low. Round 10's
# scorer gives "use the staging DB, please" .83 (low's threshold .84): flagged at medium only
ROUND9_FLAGGED = (
    "that belongs in the controller",
    "pin it to 3.11, the base image has nothing newer",
    "move the seed data into the fixtures folder with the other ones",
)


def test_the_hook_queues_redirects_without_a_negation_but_not_new_work(project: Path) -> None:
    for text in ROUND9_FLAGGED:
        _submit(project, text)
    _submit(project, "add a staging database to the compose file")
    _submit(project, "Before you start: never run anything against prod. Add the nightly job.")
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.text for item in items] == list(ROUND9_FLAGGED)
    assert {item.label for item in items} == {"correction"}
    assert detect("use the staging DB, please", "medium").label == "correction"


# issue 20 round 10: mock praise holding up what the agent made (written for this test, in no
# data set); the next task after real praise, or praise of a result, is not one
@pytest.mark.parametrize(
    ("text", "mocked"),
    [
        ("oh lovely, a 300-line migration for one column. split it", True),
        ("sure, let's just turn off the type checker. fix the types", True),
        ("great, now the whole sidebar is blank", True),
        ("Ah yes, another global variable.", True),
        ("great, now add the same for the PATCH endpoint", False),
        ("nice, now it works on Safari too", False),
        ("perfect, thanks", False),
        ("sure, a retry helper sounds good", True),  # the form alone; the scorer weighs the rest
    ],
)
def test_mock_praise_of_the_agents_work_is_a_cue(text: str, mocked: bool) -> None:
    features = set().union(*(segment_features(part) for part in prompt_segments(text)[0]))
    assert ("m:sarcasm" in features) is mocked


def test_a_prose_line_with_code_spans_is_read_not_dropped_as_pasted() -> None:
    # the symbols inside the spans had made these lines look like code: nothing was scored
    for text in ("`let!`, not `let`", "why is there a `rescue => e` in the job now?"):
        assert "CODE" in strip_noise(text)
    assert strip_noise("`foo = bar`").strip() in ("", "CODE")
    assert strip_noise("x = compute(y);") == ""


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("perché hai cambiato la porta? rimettila", {"why", "did", "you", "restore"}),
        ("kamu hapus konfigurasinya, kembalikan", {"you", "deleted", "restore"}),
        ("نفس الخطأ مرة ثانية", {"same", "error", "again"}),
        ("déjalo como estaba", {"leave", "it", "as", "was"}),
        ("還是一樣的錯誤，第三次了", {"still", "same", "wrong", "third", "time"}),
    ],
)
def test_the_round_10_languages_are_glossed(text: str, english: set[str]) -> None:
    lowered = normalise(text)
    assert english <= set(re.findall(r"[a-z']+", gloss(lowered, lowered.split())))


# issue 20 round 10 (written for this test, in no data set): mock praise of the agent's work and
# an overreach said as "I only wanted ..." are shapes the rules read at every level; the next
# task after real praise is not a correction
ROUND10_FLAGGED = (
    "oh lovely, a 300-line migration for one column. split it",
    "sure, let's just turn off the type checker. fix the types",
    "I only wanted the README typo fixed, why did the lockfile change?",
    "keep the old parser, that wasn't the ask",
)


def test_the_hook_queues_mock_praise_and_overreach_but_not_the_next_task(project: Path) -> None:
    for text in ROUND10_FLAGGED:
        _submit(project, text)
    _submit(project, "great, now add the same for the PATCH endpoint")
    _submit(project, "nice, now it works on Safari too. thanks")
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.text for item in items] == list(ROUND10_FLAGGED)
    assert {item.label for item in items} == {"correction"}


# issue 20 round 11 (written for this test, in no data set): a terse "X, not Y" with a comma or
# a two-word head is a redirect at low; a bare "no, not needed" answers the agent, "remember
# not to ..." asks for care, and neither is one
ROUND11_FLAGGED = (
    "yarn, not npm",
    "tabs please, not spaces",
    "staging bucket, not prod",
)


def test_the_hook_queues_a_terse_contrast_with_a_comma_but_not_an_answer(project: Path) -> None:
    for text in ROUND11_FLAGGED:
        _submit(project, text)
    _submit(project, "nope, not needed")
    _submit(project, "remember not to log secrets")
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.text for item in items] == list(ROUND11_FLAGGED)
    assert {item.label for item in items} == {"correction"}
    for text in ROUND11_FLAGGED:
        assert detect(text, "low", model=False).pattern == "terse-contrast"


# issue 20 round 12 (written for this test, in no data set): the agent's work set against what
# is already there is a shape now, and so are mock praise of inline code or of a thing that
# "now" misbehaves, and "didn't ask for ..." with its subject dropped; the same words about new
# work, or good news, are not corrections
ROUND12_FLAGGED = (
    "make that a Sidekiq job, like the other importers",
    "oh great, `rm -rf` in the cleanup step. scope it to the tmp dir",
    "perfect, the login page now redirects to itself. send it to the dashboard",
    "never asked for a Makefile, the justfile is enough",
)
ROUND12_NOT_FLAGGED = (
    "when you add the export job, name it like the other jobs",
    "great, the tests now pass",
)


def test_the_hook_queues_the_round_12_shapes_but_not_new_work_or_good_news(
    project: Path,
) -> None:
    for text in ROUND12_FLAGGED:
        _submit(project, text)
    for text in ROUND12_NOT_FLAGGED:
        _submit(project, text)
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.text for item in items] == list(ROUND12_FLAGGED)
    assert {item.label for item in items} == {"correction"}
    shapes = [detect(text, "low", model=False).pattern for text in ROUND12_FLAGGED]
    assert shapes == ["like-the-rest", "mock-praise", "mock-praise", "overreach"]
    for text in ROUND12_NOT_FLAGGED:
        assert detect(text, "medium").label is None


# issue 20 round 14 (written for this test, in no data set): Hindi in Latin script is read with
# its own words ("hai" is "is" there, Italian "you have" only in Italian), a Turkish line is not
# taken for English on the ASCII fragments of its words ("işi" gave "i" and "i"), and the words
# of an undo, a thing broken, deleted or forgotten are read in the languages already glossed
@pytest.mark.parametrize(
    ("text", "english", "absent"),
    [
        ("theek hai, build chal gaya", {"ok", "works"}, {"you", "have"}),
        ("phir se wahi error aa raha hai", {"again", "same", "error"}, {"you", "have"}),
        ("aapne test hata diya, wapas lagao", {"you", "back", "add"}, set()),
        ("hai cambiato la porta, rimettila", {"you", "changed", "restore"}, set()),
        ("bunu ana dalda yapma, işi geri al", {"don't", "undo"}, set()),
        ("この変更を取り消してください、ビルドが壊れました", {"undo", "please", "broke"}, set()),
        ("你把测试删掉了，不对", {"you", "deleted", "wrong"}, set()),
        ("마이그레이션을 빼먹었어요", {"forgot"}, set()),
        ("Pořád to padá, točíme se v kruhu", {"still", "crashes", "in", "circles"}, set()),
    ],
)
def test_the_round_14_languages_are_glossed(text: str, english: set[str], absent: set[str]) -> None:
    lowered = normalise(text)
    words = set(re.findall(r"[a-z']+", gloss(lowered, re.findall(r"[a-z0-9]+", lowered))))
    assert english <= words
    assert not absent & words


@pytest.mark.parametrize(
    ("text", "given_up"),
    [
        ("forget it, I'll write the parser myself", True),
        ("screw it, I'll ask on the vendor's forum", True),
        ("never mind, I'll just redo the layout by hand", True),
        ("Enough. I'm closing this session.", True),
        ("no thanks, I'll write the docs myself", False),
        ("never mind, I found it myself", False),
        ("don't forget it runs on Python 3.9", False),
    ],
)
def test_giving_up_on_the_agent_is_friction_not_the_users_own_action(
    text: str, given_up: bool
) -> None:
    # round 14: read as time lost (the cue friction is learned from), and never dropped by the
    # structure as the user's own action ("myself")
    from conkeeper.services.analysis.corrections.structure import model_vetoed

    features = set().union(*(segment_features(part) for part in prompt_segments(text)[0]))
    assert ("m:wasted" in features) is given_up
    prose = strip_noise(text)
    if given_up:
        assert not model_vetoed(prose, Shape(prose, sentences(prose)))


# round 14 (written for this test, in no data set): irony with no praise word first, and mock
# praise with "so" before the exhibit, are mock praise the rules read at every level, and a
# question about the agent's last change ("why is ... now?") is a shape; real praise, good news
# and a question about how things are are not
ROUND14_FLAGGED = (
    "the token is logged in plain text. I'm sure nobody will ever read those logs",
    "ah yes, because what every list screen needs is a network call per row",
    "great, so the config now lives in three places. keep it in settings.py only",
    "why is the cache TTL ten minutes now?",
)
ROUND14_SHAPES = ("mock-praise", "mock-praise", "mock-praise", "why-now")
ROUND14_NOT_FLAGGED = (
    "great, so the tests now pass on CI",
    "I'm sure the new cache will help, thanks",
    "why is the cache TTL ten minutes in the docs?",
)


def test_the_hook_queues_irony_and_why_now_but_not_good_news(project: Path) -> None:
    for text in ROUND14_FLAGGED + ROUND14_NOT_FLAGGED:
        _submit(project, text)
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    items = parse_queue(queue)
    assert [item.text for item in items] == list(ROUND14_FLAGGED)
    assert {item.label for item in items} == {"correction"}
    shapes = tuple(detect(text, "low", model=False).pattern for text in ROUND14_FLAGGED)
    assert shapes == ROUND14_SHAPES
    for text in ROUND14_NOT_FLAGGED:
        assert detect(text, "medium").label is None


# round 15: words of blind 23's false positives at low that the gloss misread (Spanish "ya" is
# "already", not informal "you"; "また明日" is "see you tomorrow", not "again"; written for
# this test, in no data set)
def test_the_round_15_gloss_reads_already_no_problem_and_see_you_tomorrow() -> None:
    for text, english, absent in (
        ("ya actualicé la librería a la 3.2", {"already"}, {"you"}),
        ("nie ma problemu, ten błąd jest znany", {"no", "problem"}, set()),
        ("今日はここまで。また明日", {"tomorrow"}, {"again"}),
    ):
        lowered = normalise(text)
        words = set(re.findall(r"[a-z']+", gloss(lowered, re.findall(r"[a-z0-9]+", lowered))))
        assert english <= words and not absent & words


# round 17: the languages the new writers brought that no table read (Swahili, Greek, Hebrew,
# Thai, Hungarian, Finnish, Romanian) and redirect words the others lacked; written for this
# test, in no data set
@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Hapana, usitumie faili hii, bado haifanyi kazi", {"no", "don't", "still", "doesn't"}),
        ("Όχι, λάθος αρχείο, χρησιμοποίησε το άλλο", {"no", "wrong", "use"}),
        ("לא, שכחת את הבדיקות, תחזיר אותן", {"no", "you", "forgot", "restore"}),
        ("ไม่ใช่ไฟล์นี้ อย่าแก้ config", {"not", "don't"}),
        ("Még mindig rossz, használd a régi modult", {"still", "wrong", "use"}),
        ("Älä poista sitä, palauta vanha versio", {"don't", "restore"}),
        ("Tot nu merge, folosește modulul vechi în loc de cel nou", {"still", "use", "instead"}),
        ("jag ger upp, du glömde testerna igen", {"give", "up", "you", "forgot", "again"}),
        ("No, así no: tiene que ser un entero", {"not", "like", "should", "be"}),
    ],
)
def test_the_round_17_languages_are_glossed(text: str, english: set[str]) -> None:
    lowered = normalise(text)
    assert english <= set(re.findall(r"[a-z']+", gloss(lowered, re.findall(r"\w+", lowered))))


def test_words_with_a_second_common_meaning_are_not_glossed() -> None:
    # Hebrew "אל" is "don't" and "to", Greek "γιατί" is "why" and "because"
    for text, absent in (("שלח את זה אל השרת", {"don't"}), ("το άλλαξα γιατί έσπαγε", {"why"})):
        words = set(re.findall(r"[a-z']+", gloss(text, re.findall(r"\w+", text))))
        assert not absent & words


# round 19: the words each language still lacked ("no" in Danish and Norwegian, a one-word
# "don't X" in Turkish and Czech, "missing", "you broke", "I said", "how many times", "give up");
# written for this test, in no data set
@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Nej, lad være med at slette tabellen", {"no", "don't"}),
        ("Nei, du har glemt testene igjen", {"no", "you", "forgot", "again"}),
        ("Kaç kez söyledim, bu fonksiyonu değiştirme", {"how", "many", "times", "don't", "change"}),
        ("Nepoužívej tu knihovnu, chybí v ní podpora UTF-8", {"don't", "use", "missing"}),
        ("Umevunja build, nilisema usiguse faili hii", {"you", "broke", "i", "said", "don't"}),
        ("למה עשית את זה? שברת את הבנייה", {"why", "did", "you", "broke"}),
        ("Та сама помилка втретє, я ж казав не чіпати клієнт", {"same", "error", "third"}),
        ("Laat maar, ik schrijf het zelf", {"forget", "it", "write"}),
    ],
)
def test_the_round_19_languages_are_glossed(text: str, english: set[str]) -> None:
    lowered = normalise(text)
    assert english <= set(re.findall(r"[a-z']+", gloss(lowered, re.findall(r"\w+", lowered))))


def test_japanese_betsu_no_is_another_not_chinese_dont() -> None:
    text = "それは別のファイルです"
    words = set(re.findall(r"[a-z']+", gloss(text, re.findall(r"\w+", text))))
    assert "different" in words and "don't" not in words
    assert "don't" in gloss("别改这个文件", ["别改这个文件"])


# round 20: every gloss entry is written as :func:`gloss` reads a sentence (its words joined by
# one space, at most GLOSS_LONGEST of them); four entries of four words had never matched while
# the gloss tried three words at most; an Arabic entry with a vowel mark the reader skips
# duplicated a readable one (removed)
def test_every_gloss_entry_can_match() -> None:
    for table in (cues._GLOSS, cues._GLOSS_HINDI):
        for phrase in table:
            words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+", phrase)
            assert " ".join(words) == phrase, phrase
            assert len(words) <= cues.GLOSS_LONGEST, phrase


# written for this test, in no data set: each holds one of the four-word entries
@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Ni se te ocurra borrar la tabla de usuarios", {"don't"}),
        ("Mach das bitte wie in den anderen Modulen", {"like", "the", "other"}),
        ("Hazlo como en los otros servicios", {"like", "the", "other"}),
        ("Ich habe es satt, schon wieder kaputt", {"fed", "up", "again"}),
    ],
)
def test_a_gloss_phrase_of_four_words_is_read(text: str, english: set[str]) -> None:
    lowered = normalise(text)
    assert english <= set(re.findall(r"[a-z']+", gloss(lowered, re.findall(r"\w+", lowered))))


# round 20: languages no table read (Tagalog, Lithuanian, Estonian, Serbian/Croatian, Slovak,
# Afrikaans, Bengali) and words the others lacked; written for this test, in no data set
@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Bakit binura mo ang config? Ibalik mo", {"why", "you", "deleted", "restore"}),
        ("Vėl ta pati klaida, kodėl pakeitei failą?", {"again", "same", "why"}),
        ("Sa unustasid testid, kasuta pytest", {"you", "forgot", "use"}),
        ("Opet ista greška, zašto si to promijenio?", {"again", "same", "why"}),
        ("Nepoužívaj H2, použi radšej Postgres namiesto toho", {"don't", "use", "instead"}),
        ("Jy het vergeet, moenie die tabel verwyder nie", {"forgot", "don't"}),
        ("আবার একই ভুল, কেন?", {"again", "same", "wrong", "why"}),
    ],
)
def test_the_round_20_languages_are_glossed(text: str, english: set[str]) -> None:
    lowered = normalise(text)
    assert english <= set(re.findall(r"[a-z']+", gloss(lowered, re.findall(r"\w+", lowered))))


def test_a_word_of_another_common_language_is_not_misread() -> None:
    # Portuguese "isto" is "this", German "Mitte" the middle: neither is glossed
    for text in ("isto está certo, obrigado", "die mitte der seite ist leer"):
        words = set(re.findall(r"[a-z']+", gloss(text, re.findall(r"\w+", text))))
        assert not {"same", "not"} & words


# round 23: languages no table read (Catalan, Icelandic, Latvian, Welsh, Zulu, Yoruba, Persian in
# both scripts) and the praise and "now" of irony; written for this test, in no data set
@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Has oblidat el fitxer, fes servir l'altre", {"you", "forgot", "use"}),
        ("Þú gleymdir prófunum aftur, notaðu pytest", {"you", "forgot", "again", "use"}),
        ("Nepareizs fails, kāpēc tu to mainīji?", {"wrong", "why"}),
        (
            "Anghofiaist y profion, defnyddia pytest yn lle nose",
            {"you", "forgot", "use", "instead"},
        ),
        ("Ukhohlwe amathesti, sebenzisa i-pytest", {"you", "forgot", "use"}),
        ("Rárá, o gbagbe faili naa", {"no", "you", "forgot"}),
        ("Chera in file ro pak kardi? Dobare eshtebah shod", {"why", "you", "deleted", "again"}),
        ("چرا دوباره اشتباه شد؟", {"why", "again", "wrong"}),
        ("Ottimo, adesso il login non va. Complimenti.", {"great", "now", "congratulations"}),
    ],
)
def test_the_round_23_languages_are_glossed(text: str, english: set[str]) -> None:
    lowered = normalise(text)
    assert english <= set(re.findall(r"[a-z']+", gloss(lowered, re.findall(r"\w+", lowered))))


def test_the_round_23_words_with_a_second_meaning_are_not_glossed() -> None:
    # Croatian "nakon" is "after" (Persian "don't"), Zulu "futhi" is "and", Norwegian "enn" is
    # "than", Vietnamese "giờ" is also "hour"
    for text, absent in (
        ("nakon toga pokreni testove", {"don't"}),
        ("ngiyabonga futhi ngiyajabula", {"again"}),
        ("det er bedre enn før", {"still"}),
        ("mất 2 giờ để build", {"now"}),
    ):
        words = set(re.findall(r"[a-z']+", gloss(text, re.findall(r"\w+", text))))
        assert not absent & words, text
