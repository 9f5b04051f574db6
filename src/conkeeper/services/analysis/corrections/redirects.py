"""The shapes of a redirect that the English structure (:mod:`.structure`) does not read.

Issue 20 round 26. Corrections written in other languages were the largest class of misses on
new writers (about 40 % of them missed at ``low``): the phrase rules and the structural shapes
read English, and the scorer reads the glossed words of a sentence but not their order. Once a
sentence is glossed (:func:`.cues.gloss`: "Nie tak. Zamiast LiveData użyj StateFlow" -> "not
tak. instead livedata use stateflow"), the shape of a correction shows in any language:

* **a leading negation with what to do instead**: "no"/"not"/"stop" opening the prompt, then a
  prohibition, "instead", a verdict, "should be" or an undo ("Nein, falsch, nimm X", "Стоп, не
  надо ...", "Nie tak. Zamiast X użyj Y"); a bare "no, use Y" is left alone: it answers the
  agent's question as often as it corrects ("Nein, nimm die bestehende Tabelle.");
* **the wrong thing named tersely**: "wrong branch, ..." / "branch wrong, ..." opening a short
  prompt ("Zła gałąź, miało być na feature/ota.", "Rama equivocada, eso iba en release/2.4.");
* **a swap of tool**: "use X instead of Y", "use X, not Y", "don't X, use Y" in one sentence
  ("Użyj prove -lr t/ zamiast ...", "Nimm prisma migrate dev, nicht db push");
* **an undo asked outright**: "revert"/"undo"/"restore" opening a clause or, in a verb-final
  language, closing it ("Peru tuo muutos, se rikkoi Storybookin.", "Son değişikliği geri al",
  "...キャッシュ設定を元に戻して。"), not in a question or a condition;

and two English shapes the phrase rules missed:

* **"nope" and a bare value**, a whole prompt ("nope, pnpm", "nah, Pest", "nope, other file"),
  unless the word is an answer's ("nope, thanks", "no worries");
* **"X, not Y" with its reason**: a tool, command or value set against another, the prompt
  going on ("npx expo install, not npm install, so it picks the SDK-compatible version.").

A new task's constraints use the same words ("Aggiungi l'endpoint /export. Non usare librerie
esterne"), so a prompt that asks for new work once glossed, states a constraint up front or
answers the agent's question (:mod:`.structure`) is never read as one of these shapes. Each
shape was written from the labelled prompts of half of the authors (split by author with a fixed
seed before any prompt was read) and kept only when the other half gained corrections and at
most one null prompt per 1,000 was newly flagged (the bench's docstring, round 26); "you
forgot", an omission and "why did you" read once glossed gained nothing there and were dropped.

Standard library only: it runs in the UserPromptSubmit hook, and only for a prompt that neither
a rule nor an English shape flagged (the scorer loads the same gloss for it anyway).
"""

from __future__ import annotations

import re

from conkeeper.domain.lazy_re import LazyPattern
from conkeeper.services.analysis.corrections.rules import NEW_WORK
from conkeeper.services.analysis.corrections.structure import _NEW_TASK, Shape

GLOSSED_SHAPES = frozenset(
    {
        "glossed-no-redirect",
        "glossed-wrong-thing",
        "glossed-swap",
        "glossed-undo",
        "no-value",
        "tool-not-other",
    }
)
SHORT_WORDS = 16  # a terse "wrong X, ..." is a whole prompt of at most this many words
_GLOSS_WORD = LazyPattern(r"[a-z0-9]+(?:'[a-z]+)?")  # the tokens :mod:`.features` reads
# :data:`.cues._ENGLISH`: an ASCII prompt with two of these is English, and :func:`.cues.gloss`
# returns it unchanged; read here so such a prompt never loads the gloss tables (a request the
# structure vetoes never loads them otherwise: +1.3 ms on the hook's request without it)
ENGLISH_WORDS = frozenset(
    (
        "the", "an", "to", "it", "is", "this", "that", "you", "i", "we", "and", "of", "for", "on",
        "not", "don't", "with", "be", "my", "your", "was", "are", "what", "why", "please", "just",
        "it's",
    )
)  # fmt: skip

# a glossed prompt opening on a negation ("no", "not" from "non"/"nie"/"не", "stop")
_LEADING_NO = LazyPattern(r"^\s*(?:no|not|nope|stop)\s*[,.!:;\u2014\u2013-]+\s*")
# what to do instead, after that opening: a prohibition, "instead", a verdict, "should be", an
# undo. A bare "use Y" after "no" answers the agent's question as often as it corrects ("Nein,
# nimm die bestehende Tabelle.": the first half's four such prompts were all answers)
_INSTEAD = LazyPattern(r"\bdon't\b|\binstead\b|\bwrong\b|\bshould (?:be|fix)\b|\b(?:revert|undo)\b")
# an answer: "not needed", "not yet", "no need", thanks; Japanese 不要です ("is not needed", its
# 不要 glossed as Chinese "don't") before a copula
_ANSWER = LazyPattern(
    r"\bnot (?:needed|yet|necessary)\b|\bno need\b|\bthanks\b|\bperfect\b|don't\s*(?:です|だ)"
)
# "wrong X," or "X wrong," opening the prompt: one or two words and the verdict, then a break
_WRONG_THING = LazyPattern(
    r"^\s*(?:wrong\s+[^\s,.;:!?-]+(?:\s+[^\s,.;:!?-]+)?|"
    r"(?!(?:not|no|nothing|nem|nie|non|ne)\s)[^\s,.;:!?-]+\s+wrong(?:\s+[^\s,.;:!?-]{1,6})?)"
    r"\s*(?:[,.;:!\u2014\u2013]|\s-\s)"
)
# a swap of tool in one sentence: "use X instead of Y", "use X, not Y", "use X, don't Y", "don't
# use X, use Y" (a new task's "use X, not Y" is left out by :func:`_asks_new_work`)
_SWAP = LazyPattern(
    r"(?:^|[.;!]\s+)(?:please\s+)?use\s+[^.;!?]{1,60}?(?:\binstead\b|,\s*not\s|\bdon't\b)|"
    r"\bdon't\s+use\b[^.;!?]{1,60}?[,;]\s*use\b"
)
# the first sentence sets a tool, command or value against another, the prompt going on with a
# reason or a place ("dbt build, not dbt run. I want the tests to run too.", "cabal, not stack,
# for this project."): the terse "X, not Y" of :mod:`.structure` with the reason it lacked. Its
# first words are a name, not a determiner, a pronoun ("the tests, not ...") or the ANSWER that
# :mod:`.benign` writes for an answering "No," ("No, not yet.")
_TOOL_NOT = LazyPattern(
    r"^\s*(?:(?:please\s+)?(?:use|run)\s+(?:[^,.;:!?]{0,30}?\swith\s+)?)?"
    r"(?!(?:the|a|an|this|that|it|its|i|we|you|my|our|your|no|not|that.s|it.s|there|here|just|"
    r"only|still|hm+|ok|okay|answer|quoted)\b)[\w.@/+:-]+(?:\s+[\w.@/+:-]+){0,3}\s*,\s*not\s+"
    r"[\w.@/+:*-]+(?:\s+[\w.@/+:*-]+){0,3}\s*(?:[,.;!]|$)",
    re.IGNORECASE,
)
_SENTENCE_END = LazyPattern(r"(?<=[.!?\u3002\uff01])\s*")
# an undo asked outright: the verb opening a clause ("revert tuo muutos", "undo pēdējo commit")
# or closing it in a verb-final language ("...元に revert 。", "bunu undo lütfen"); not "an undo
# button" (a new task's words, left out with the task) nor "how do I undo it?"
_UNDO = LazyPattern(
    r"(?:^|[,;:]\s*)(?:(?:please|tolong|bitte|palun|lütfen)\s+)?(?:undo|revert|restore)\b|"
    r"\b(?:undo|revert|restore)\s*(?:please|lütfen|掉|了|して|て|주세요|줘|mo\b|[,.\u3002!]|$)"
)
# a whole prompt of "nope" and the value the agent should have used ("nope, pnpm", "nah, Pest",
# "nope. sdc.", "nope, other file"): one bare word or "other X"; an answer's word is left out
_NO_VALUE = LazyPattern(
    r"^\s*(?:no+|nope|nah)\s*[,.!:;\u2014\u2013-]+\s*(?:(?:the\s+)?other\s+)?([^\W\d_][\w.+#/-]*)"
    r"\s*[.!]?\s*$",
    re.IGNORECASE,
)
_NO_VALUE_ANSWERS = frozenset(
    (
        "thanks", "thank", "thx", "ty", "worries", "worry", "problem", "problems", "prob", "probs",
        "way", "need", "rush", "hurry", "notes", "complaints", "preference", "issues", "questions",
        "objections", "idea", "clue", "biggie", "more", "one", "nothing", "never", "sorry", "good",
        "fine", "ok", "okay", "later", "yet", "both", "all", "none", "mine", "neither", "either",
        "go", "continue", "proceed", "stop", "wait", "maybe", "why", "not", "no", "nope", "thats",
        "that's", "it", "this", "that", "them", "everything", "done", "perfect", "great", "cool",
        "nice", "sure", "alright", "right", "correct", "exactly", "true", "agreed",
    )
)  # fmt: skip


def redirect_match(shape: Shape) -> tuple[float, str, str]:
    """The best shape of a correction in another language as (confidence, shape name,
    sentence); ``(0.0, "", "")`` for an English prompt or a new task's spec."""
    none = (0.0, "", "")
    if not shape.parts:
        return none
    if shape.lower.isascii():
        tokens = _GLOSS_WORD.compiled.findall(shape.lower)
        if sum(1 for token in tokens if token in ENGLISH_WORDS) >= 2:
            return _english_shape(shape)  # what the gloss would say, without loading its tables
    from conkeeper.services.analysis.corrections.cues import gloss

    glossed = gloss(shape.lower, _GLOSS_WORD.compiled.findall(shape.lower))
    if glossed is shape.lower:  # English, or no word the gloss reads
        return _english_shape(shape)
    found = _glossed_shape(glossed, shape)
    if found[0] and (shape.new_task or _asks_new_work(shape)):
        return none
    return found


def _glossed_shape(glossed: str, shape: Shape) -> tuple[float, str, str]:
    """Which shape ``glossed`` (the whole prompt read as English) has, if any."""
    span = shape.parts[0][:300]
    opening = _LEADING_NO.match(glossed)
    if opening is not None:
        rest = glossed[opening.end() :]
        if _INSTEAD.search(rest) and not _ANSWER.search(glossed):
            return 0.84, "glossed-no-redirect", span
    if shape.words <= SHORT_WORDS and "wrong" in glossed and _WRONG_THING.match(glossed):
        return 0.82, "glossed-wrong-thing", span
    if "use" in glossed and _SWAP.search(glossed):
        return 0.82, "glossed-swap", span
    return _sentence_shape(glossed, shape)


def _sentence_shape(glossed: str, shape: Shape) -> tuple[float, str, str]:
    """An undo asked outright in a sentence of a short prompt (not a question or a condition)."""
    if shape.words > SHORT_WORDS * 2:
        return 0.0, "", ""
    for sentence in _SENTENCE_END.compiled.split(glossed):
        if sentence.rstrip().endswith("?") or " if " in f" {sentence} ":
            continue  # "how do I undo it?", "if we had to undo it later, ..."
        if _UNDO.search(sentence):
            return 0.84, "glossed-undo", sentence.strip()[:300]
    return 0.0, "", ""


def _english_shape(shape: Shape) -> tuple[float, str, str]:
    """The English shapes: "nope" and a bare value; a tool set against another with a reason
    after it ("npx expo install, not npm install, so it picks the SDK-compatible version")."""
    span = shape.parts[0][:300]
    if _no_value(shape):
        return 0.82, "no-value", span
    if (
        shape.words <= SHORT_WORDS * 3 // 2
        and "not" in span.lower()
        and _TOOL_NOT.match(span)
        and not shape.new_task
    ):
        return 0.82, "tool-not-other", span
    return 0.0, "", ""


def _no_value(shape: Shape) -> bool:
    """Whether the whole prompt is "nope" and a bare value (:data:`_NO_VALUE`) that no answer
    uses ("nope, staging" redirects; "nope, thanks" and "no worries" answer)."""
    if shape.words > 4 or not shape.lower.lstrip().startswith(("no", "na")):
        return False
    found = _NO_VALUE.match(shape.prose)
    return found is not None and found.group(1).lower() not in _NO_VALUE_ANSWERS


def _asks_new_work(shape: Shape) -> bool:
    """Whether a sentence of the prompt, glossed, asks for new work or states a new task
    ("Aggiungi l'endpoint /export." -> "add l'endpoint /export."): its prohibitions are the
    task's spec, not a correction."""
    from conkeeper.services.analysis.corrections.cues import gloss

    for part in shape.parts:
        lower = part.lower()
        glossed = gloss(lower, _GLOSS_WORD.compiled.findall(lower))
        if NEW_WORK.search(glossed.strip()) or _NEW_TASK.search(glossed):
            return True
    return False
