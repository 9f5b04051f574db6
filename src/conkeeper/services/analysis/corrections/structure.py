"""Who a prompt's negation is aimed at: the agent's last move, or the spec of a new task.

The phrase rules in :mod:`.rules` match how a correction is worded; they generalise badly to
prompts unlike the ones they were tuned on, because the same words ("don't", "not", "instead",
"again") carry both corrections and ordinary requests. This module reads the prompt's
*structure* instead:

* **aimed at the agent**: the prompt refers to what the agent just did (``you`` with a past
  verb, ``your changes``, ``again``, ``every time``, ``I said``, ``as it was``): a prohibition
  or a contrast there corrects it;
* **a new task's spec**: a request for new work, a constraint stated up front ("for this
  task"), a question, or the user's own action ("the commit I made") with nothing aimed at the
  agent: the same words state what to build, and the learned scorer is not trusted there;
* **terse contrasts**: a whole prompt of a few words that only says "not X" / "X not Y" /
  "wrong X" / "no. X" replaces something the agent just produced;
* **approval**: praise or absolution ("you were right", "not your fault", "I like it") with no
  "but" after it is not a correction, whatever else the scorer reads.

It also repairs common typos of the few words the detector keys on ("stpo", "wrng",
"chnage"), so a hurried correction is read like a careful one. Standard library only: it runs
in the UserPromptSubmit hook.
"""

from __future__ import annotations

import re

from conkeeper.domain.lazy_re import LazyPattern
from conkeeper.services.analysis.corrections.rules import _LEAD, NEW_WORK

# ------------------------------------------------------------------------- typo repair

# the words the rules key on; a one-letter slip of these is read as the word
_KEYWORDS = (
    "stop",
    "wrong",
    "change",
    "again",
    "revert",
    "instead",
    "please",
    "remove",
    "delete",
    "the",
    "that's",
    "don't",
    "didn't",
    "doesn't",
    "said",
    "told",
    "asked",
    "already",
    "never",
    "broke",
    "broken",
    "undo",
    "use",
)
# real words a slip of a keyword could spell: never "repaired"
_REAL_WORDS = frozenset({"gain", "lease", "pleas", "pease", "ever", "sue", "evert"})
_WORD = LazyPattern(r"[A-Za-z']{3,9}")
_TYPOS: dict[str, str] = {}
_PUNCT_TO_SPACE = str.maketrans({ch: " " for ch in ',.;:!?()[]{}"/`*_<>|=+'})


def _variants(word: str) -> set[str]:
    """One adjacent transposition or (for words of five letters or more) one deletion."""
    out = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
    if len(word.replace("'", "")) >= 5:
        out |= {word[:i] + word[i + 1 :] for i in range(len(word)) if word[i] != "'"}
    return out


def _typo_table() -> dict[str, str]:
    if not _TYPOS:
        for keyword in _KEYWORDS:
            for variant in _variants(keyword):
                if variant != keyword and variant not in _REAL_WORDS and "'" not in variant[:1]:
                    _TYPOS.setdefault(variant, keyword)
        for keyword in _KEYWORDS:  # a keyword is never a typo of another
            _TYPOS.pop(keyword, None)
    return _TYPOS


def fix_typos(prose: str) -> str:
    """``prose`` with one-letter slips of the detector's keywords repaired ("stpo" -> "stop")."""
    table = _typo_table()
    if table.keys().isdisjoint(prose.lower().translate(_PUNCT_TO_SPACE).split()):
        return prose  # the common case: no slip, no regex

    def repair(match: re.Match[str]) -> str:
        word = match.group(0)
        fixed = table.get(word.lower())
        if fixed is None:
            return word
        return fixed.upper() if word.isupper() else fixed

    return _WORD.sub(repair, prose)


# ------------------------------------------------------------------------- structure

_PAST = (
    r"(?:\w+ed|did|made|wrote|put|ran|took|broke|kept|left|set|got|threw|built|chose|went|"
    r"brought|forgot|undid|rewrote|overwrote|stuck|split|cut|hid|dropped|swapped|moved)"
)
# what a prompt says about the agent's last move
_AIMED = LazyPattern(
    r"\byou(?:'ve| have)? (?:also |just |again |even |still |then |already |now |clearly )?"
    + _PAST
    + r"\b(?! (?:a (?:great|good|nice)|great|well|good|it right|exactly)\b)|"
    r"\byour (?:[\w-]+ )?(?:change|changes|edit|edits|code|patch|commit|version|refactor|"
    r"attempt|output|diff|rewrite)\b|\bi (?:already |just )?(?:said|told you|asked(?: you)?)\b"
    r"(?! (?:in|on) the\b)|\bevery (?:single )?time\b|\bagain\b|\bas (?:it|they|before) "
    r"(?:was|were)\b|\bby hand\b|\bevery (?:\w+ )?you (?:make|do|try|touch)\b|\bwhat i (?:wrote|"
    r"said)\b|\bwe went over this\b|\bas i (?:say|said|told|wrote)\b(?! (?:in|on) the\b)|"
    r"^(?:\w+,? )?(?:that|this|it) (?:just |also |now |even )?(?:broke|killed|wiped|caused|"
    r"introduced|undid|reverted)\b|\b(?:until|since|before|after) you\b"
    r"(?! (?:\w+ )?(?:lands?|merge|finish|are done))",
    re.IGNORECASE,
)
# a "you <past verb>" that praises, thanks or asks back is not aimed at a mistake
_YOU_PRAISED = LazyPattern(
    r"\byou (?:were|are) right\b|\byou (?:nailed|fixed|solved|handled|managed|found|spotted|"
    r"caught|asked|mentioned|suggested|explained|noted|pointed|proposed|wanted|needed)\b",
    re.IGNORECASE,
)
_PROHIBITION = LazyPattern(
    r"(?:"
    + _LEAD
    + r"(?:(?:please|pls|just|and|but|so|also|kindly)\s+)?|[,;]\s*(?:and |but |just |please |"
    r"pls )?)(?:don'?t|do not|never|stop|quit)\b(?!\s*(?:mind|worry|bother|hesitate|rush|panic|"
    r"forget|be afraid|sweat)\b)",
    re.IGNORECASE,
)
# "don't implement anything yet", "not for now": a deferral, not a correction
_DEFERRAL = LazyPattern(
    r"\b(?:yet|for now|for the moment|for the time being)\b|\b(?:if|unless|when|whenever)\b",
    re.IGNORECASE,
)
_CONTRAST = LazyPattern(
    r"\b(?:just|only|instead|rather|except)\b|[,;:\u2014\u2013-]\s*(?:use|keep|leave|put|do|call|move|"
    r"apply|write|remove|import)\b|"
    + _LEAD
    + r"(?:(?:no|nah|nope)[\s,]+)?(?:use|keep|leave|put)\b",
    re.IGNORECASE,
)
_NOT_FOR_ME = LazyPattern(
    r"\b(?:i (?:want|wanna|will|'ll|would like) (?:to )?do|i'?ll do|let me do|i (?:review|check|"
    r"handle|merge|deploy|run) (?:it|them|those|everything|that)\b|yourself)\b",
    re.IGNORECASE,
)
# an imperative that puts something back or swaps it ("keep the limits as they were", "prefer")
_RESTORE = LazyPattern(
    _LEAD + r"(?:(?:please|pls|just|kindly|now)\s+)?(?:use|prefer|keep|leave|put|revert|undo|"
    r"restore|remove|move|rename|switch|go back|only change|change it back|set it back)\b",
    re.IGNORECASE,
)
_NEW_TASK = LazyPattern(
    r"\bfor (?:this|the new|the next) (?:task|one|feature|endpoint|script|project|service|"
    r"ticket|story|module|page|component|job)\b|\b(?:next|new) (?:feature|task|ticket|story)\b|"
    r"\bstart (?:with|on|by)\b|\bmake (?:the|it|this) [\w ]{0,30}(?:say|show|read|display|"
    r"print|return)\b",
    re.IGNORECASE,
)
_SELF_ACTION = LazyPattern(
    r"\b(?:i|we) (?:just |already )?(?:made|edited|changed|pushed|committed|wrote|updated|"
    r"renamed|moved|deleted|added)\b(?! (?:it |this |that )?clear)|\bon my (?:side|end|part)\b|"
    r"\bmy (?:own )?(?:commit|edit|change|typo)\b",
    re.IGNORECASE,
)
_APPROVAL = LazyPattern(
    r"\byou were right\b|\bnot your fault\b|\bunrelated to (?:your|the) \w+|\bi (?:really )?"
    r"(?:like|love) (?:it|this|that)\b|\bper se\b|\b(?:is|are) gone\b|\bgood call\b|"
    r"\bmakes sense\b|\bworks (?:now|great|fine)\b",
    re.IGNORECASE,
)
_BUT = LazyPattern(r"\b(?:but|however|except|though|although|yet|still|now)\b", re.IGNORECASE)
_TERSE = LazyPattern(
    r"^(?:not\s+(?!(?:yet|now|sure|bad|really|quite|much|today|urgent|necessary|needed|a "
    r"problem|that|at all|for now|exactly|really|to)\b)\w|no[.!]+\s+(?!.*\b(?:is|are|it'?s|"
    r"that'?s|we|i|nothing|thanks|fine|for now|don'?t|doesn'?t)\b)\S|wrong\s+\w|(?:the )?other "
    r"way(?: round| around)?\b|[\w#.\-/]+ not [\w#.\-/]+(?: please)?[.!]*$)",
    re.IGNORECASE,
)
_TERSE_CUES = ("not", "no", "wrong", "other way")
_PROHIBITION_CUES = ("don", "never", "stop", "quit", "not")
_RESTORE_CUES = (
    "use",
    "prefer",
    "keep",
    "leave",
    "put",
    "revert",
    "undo",
    "restore",
    "remove",
    "move",
    "rename",
    "switch",
    "go back",
    "change",
    "set it",
)
TERSE_WORDS = 6
SHORT_WORDS = 25


def _has(lower: str, cues: tuple[str, ...]) -> bool:
    """Whether any cue word occurs: patterns compile only for prompts that could match them
    (compiling is most of the hook's cost)."""
    return any(cue in lower for cue in cues)


_AIMED_CUES = (
    "that ",
    "this ",
    "it ",
    "you",
    "again",
    "i said",
    "i told",
    "i asked",
    "every",
    "as it",
    "as they",
    "as before",
    "by hand",
    "what i",
    "we went",
    "as i ",
)
_TASK_CUES = (
    "for this",
    "for the",
    "next",
    "new",
    "start",
    "make",
    "write",
    "add",
    "create",
    "implement",
    "build",
    "set up",
    "draft",
    "design",
    "generate",
    "introduce",
    "scaffold",
    "wire",
    "extend",
    "port",
    "document",
    "cover",
    "support",
    "sketch",
    "todo",
    "task",
)
_SELF_CUES = ("i ", "we ", "my ")
_APPROVAL_CUES = (
    "right",
    "fault",
    "unrelated",
    "like",
    "love",
    "per se",
    "gone",
    "good call",
    "makes sense",
    "works",
)


class Shape:
    """What the prompt's structure says, each part computed on first use (the hook pays only
    for what a prompt needs)."""

    __slots__ = (
        "_aimed",
        "_new_task",
        "_self_action",
        "has_question",
        "lower",
        "parts",
        "prose",
        "question_only",
        "words",
    )

    def __init__(self, prose: str, parts: list[str]) -> None:
        self.prose = prose
        self.lower = prose.lower()
        self.parts = parts
        self._aimed: tuple[bool, bool] | None = None
        self._new_task: bool | None = None
        self._self_action: bool | None = None
        stated = [p for p in parts if p.strip(" .!,;:")]
        self.question_only = bool(stated) and all(p.rstrip().endswith("?") for p in stated)
        self.has_question = "?" in prose
        self.words = len(prose.split())

    def _aim(self) -> tuple[bool, bool]:
        if self._aimed is None:
            pointed = []
            if _has(self.lower, _AIMED_CUES):
                found = [m for p in self.parts for m in _AIMED.finditer(p)]
                pointed = [m for m in found if not _YOU_PRAISED.match(m.group(0))]
            # the agent's work named outright, not just a repeated "again"
            self._aimed = (bool(pointed), any(m.group(0).lower() != "again" for m in pointed))
        return self._aimed

    @property
    def aimed(self) -> bool:
        """The prompt refers to the agent's last move (or repeats itself: "again")."""
        return self._aim()[0]

    @property
    def aimed_at_work(self) -> bool:
        """The prompt names what the agent did ("you lowered", "your changes")."""
        return self._aim()[1]

    @property
    def new_task(self) -> bool:
        """A sentence asks for new work or states a new task's constraints."""
        if self._new_task is None:
            self._new_task = _has(self.lower, _TASK_CUES) and any(
                NEW_WORK.search(p) or _NEW_TASK.search(p) for p in self.parts
            )
        return self._new_task

    @property
    def self_action(self) -> bool:
        """The user names their own action ("the commit I made", "typo on my side")."""
        if self._self_action is None:
            self._self_action = _has(self.lower, _SELF_CUES) and bool(
                _SELF_ACTION.search(self.prose)
            )
        return self._self_action


# the user points back at what they already said: what follows restates it
_REMINDER = LazyPattern(
    r"\b(?:we went over this|read what i (?:wrote|said)|(?:as|like) i (?:already )?(?:said|told "
    r"you)(?: before| earlier| already)?\s*[,:;.]|i already (?:said|told you))",
    re.IGNORECASE,
)
# a complaint about a result the agent's work caused
_WENT_BAD = LazyPattern(
    r"\b(?:broke|breaks|broken|fails?|failing|failed|crash\w*|worse|slower|stale|outdated|"
    r"used to work|was fine|were fine|worked fine|regress\w*|nothing (?:works|builds|runs))\b",
    re.IGNORECASE,
)
_WENT_BAD_CUES = (
    "broke",
    "break",
    "fail",
    "crash",
    "worse",
    "slower",
    "stale",
    "outdated",
    "used to work",
    "fine",
    "regress",
    "nothing ",
)
_SWAP = LazyPattern(
    _LEAD + r"(?:(?:kindly|please|just)\s+)?(?:use|keep|call|wait|go with|stick with|reuse)\b"
    r"[^.;!?]{3,80}?\b(?:rather than|instead of) \w+ing\b|^instead of \w+ing\b[^.;!?]{3,80}?,\s*"
    r"(?:just )?(?:use|wait|call|keep|reuse)\b",
    re.IGNORECASE,
)
_HOUSE = LazyPattern(
    r"\bwe (?:don'?t|do not|never|always|only) (?:use|write|name|put|import|call|commit)\b[^.;!?]*"
    r"\bhere\b|\b(?:that'?s|it'?s) our (?:style|convention)\b|\bin this (?:repo|codebase|project)"
    r"\b[^.;!?]*\b(?:always|never|must)\b",
    re.IGNORECASE,
)
_FED_UP = LazyPattern(
    r"^(?:ugh+|seriously|come on|wtf|really)\b[\s.!?]*$|\byou even\b|\blosing (?:my )?patience\b|"
    r"\?{2,}|\?!",
    re.IGNORECASE,
)
_FED_UP_CUES = ("ugh", "seriously", "come on", "wtf", "really", "even", "patience", "?")
_NEXT_TIME = LazyPattern(
    r"^(?:\w+,? )?next time,? (?:please )?(?:ask|check|run|use|don'?t|do not|make|tell|wait|read|"
    r"test|keep|leave)\b",
    re.IGNORECASE,
)


# shapes that report a problem the agent caused rather than say what to do
FRICTION_SHAPES = frozenset({"went-bad-after-you", "fed-up"})


def _extra_shapes(sentence: str, lower: str, shape: Shape) -> tuple[float, str]:
    """Shapes that need no negation: a reminder of what was said, a bad result of the agent's
    work, a swap of approach, a house convention, open frustration, "next time ..."."""
    if _has(lower, ("went over", "what i", " said", " told", "i said", "i told")) and (
        _REMINDER.search(sentence)
    ):
        return 0.86, "reminder"
    if sentence.isupper() and sentence.startswith(("I SAID", "I TOLD")):  # shouted
        return 0.86, "reminder"
    if (
        _has(lower, _WENT_BAD_CUES)
        and _has(lower, ("you", "that ", "this ", "it "))
        and _WENT_BAD.search(sentence)
        and shape.aimed_at_work
        and _AIMED.search(sentence)
        and not shape.new_task
    ):
        return 0.84, "went-bad-after-you"
    if shape.words > SHORT_WORDS:
        return 0.0, ""
    found = (0.0, "")
    if _has(lower, ("rather than", "instead of")) and _SWAP.search(sentence):
        found = (0.82, "swap-approach")
    elif _has(lower, ("we ", "our ", "in this")) and _HOUSE.search(sentence):
        found = (0.82, "house-convention")
    elif shape.words <= TERSE_WORDS and _has(lower, _FED_UP_CUES) and _FED_UP.search(sentence):
        found = (0.82, "fed-up")
    elif "next time" in lower and _NEXT_TIME.search(sentence):
        found = (0.84, "next-time")
    # a new task's spec is checked last: only a prompt with one of these shapes pays for it
    return found if found[0] and not shape.new_task else (0.0, "")


def structural_match(parts: list[str], shape: Shape) -> tuple[float, str, str]:
    """The best structural correction in ``parts`` as (confidence, shape name, sentence)."""
    best: tuple[float, str, str] = (0.0, "", "")
    for index, sentence in enumerate(parts):
        if sentence.rstrip().endswith("?") and not (
            shape.words <= TERSE_WORDS and _FED_UP.search(sentence)
        ):
            continue
        score, name = _sentence_score(sentence, parts[index + 1 : index + 2], shape)
        if score > best[0]:
            best = (score, name, sentence[:300])
    return best


def _sentence_score(sentence: str, following: list[str], shape: Shape) -> tuple[float, str]:
    """One sentence's structural confidence: a prohibition aimed at the agent, a short
    prohibition with what to do instead, a put-it-back after "you did", a terse contrast."""
    lower = sentence.lower()
    if shape.words <= TERSE_WORDS and _has(lower, _TERSE_CUES) and _TERSE.match(sentence):
        return 0.84, "terse-contrast"
    if _has(lower, _PROHIBITION_CUES) and _PROHIBITION.search(sentence):
        context = sentence + " " + " ".join(following)
        if _DEFERRAL.search(sentence):
            return 0.0, ""
        if shape.aimed_at_work or (shape.aimed and (not shape.new_task or "again" in lower)):
            return 0.86, "prohibition-aimed"
        if (
            shape.words <= SHORT_WORDS
            and not shape.new_task
            and (_CONTRAST.search(context) or _NOT_FOR_ME.search(context))
        ):
            return 0.82, "prohibition-contrast"
    if (
        _has(" ".join(lower.split()[:4]), _RESTORE_CUES)
        and shape.aimed_at_work
        and not shape.new_task
        and _RESTORE.match(sentence)
    ):
        return 0.84, "restore-after-you-did"
    return _extra_shapes(sentence, lower, shape)


def model_vetoed(prose: str, shape: Shape) -> bool:
    """Whether the learned scorer's flag is to be dropped: the prompt is only questions, a new
    task's spec, the user's own action or approval, with nothing aimed at the agent."""
    lower = prose.lower()
    if _has(lower, _ABSOLVED_CUES) and _ABSOLVED.search(prose):
        return True
    if approval_without_but(prose):
        return True
    if _has(lower, ("no", "nope", "nah")) and _ANSWERED_NO.match(prose):
        return True
    if shape.aimed_at_work:
        return False
    if shape.question_only and "you" not in prose.lower():
        return True
    return shape.new_task or shape.self_action


def approval_without_but(sentence: str) -> bool:
    """Praise or absolution in ``sentence`` with no "but" turning it into a complaint."""
    lower = sentence.lower()
    return (
        _has(lower, _APPROVAL_CUES)
        and bool(_APPROVAL.search(sentence))
        and not _BUT.search(sentence)
    )


# ------------------------------------------------------------------------- rule adjustments

# rules whose words ("don't", "use X not Y", "instead", "should say") also state a new spec
SPEC_WORDED = frozenset(
    {
        "dont-x-use-y",
        "dont-convention",
        "dont-alternative",
        "dont-convention-soft",
        "please-dont",
        "dont-verb",
        "stop-doing",
        "no-need",
        "dont-x-do-y",
        "use-x-not-y",
        "use-x-instead",
        "should-be-not",
        "instead-of-mid",
    }
)
_ABSOLVED = LazyPattern(
    r"\bnot (?:your|the agent'?s) fault\b|\bunrelated to (?:your|the|this) \w+|"
    r"\b(?:is|are) gone\b",
    re.IGNORECASE,
)
# "No, the warning is expected", "no, leave it for now (answering your question)"
_ANSWERING = LazyPattern(
    r"\b(?:you can|you may|feel free|(?:is|are|it'?s|that'?s) expected|as expected|for now|"
    r"answering|your question|we don'?t need|not needed|no need|isn'?t (?:used|needed)|"
    r"it'?s (?:a )?new)\b",
    re.IGNORECASE,
)
_NOT_YET = LazyPattern(r"\b(?:yet|for now|for the moment|for the time being)\b", re.IGNORECASE)
_ANSWERED_NO = LazyPattern(
    r"^\s*(?:no|nope|nah)\b[^?]*\b(?:you can|you may|feel free|(?:is|are|it'?s|that'?s) "
    r"expected|as expected|for now|answering|your question|not needed|isn'?t (?:used|needed))\b",
    re.IGNORECASE,
)
_FUTURE = LazyPattern(
    r"\b(?:someday|some day|one day|tomorrow|(?:once|after|when) [\w ]{1,30} lands|we'?ll|"
    r"we will|in the future|down the road)\b",
    re.IGNORECASE,
)
_THIRD_PARTY = LazyPattern(
    r"^(?:the )?(?:[\w-]+ )?(?:team|customers?|clients?|users?|qa|reviewers?|vendor|ops)\b",
    re.IGNORECASE,
)
_SPEC_VERB = LazyPattern(r"\b(?:should|must|needs? to|has to|have to)\b", re.IGNORECASE)
_OWN_ACTION = LazyPattern(
    r"\b(?:i|we) (?:just |already |accidentally )?(?:made|edited|changed|pushed|committed|"
    r"wrote|updated|renamed|moved|deleted|added|ran)\b(?! (?:it |this |that )?clear)|\bon my "
    r"(?:side|end|part)\b|\bmy (?:own )?(?:commit|edit|change|typo)\b|\bmyself\b|"
    r"\bwe'?ve had to\b",
    re.IGNORECASE,
)
_ABSOLVED_CUES = ("fault", "unrelated", "gone")
_OWN_CUES = ("i ", "we", "my", "on my")
_FUTURE_CUES = ("day", "tomorrow", "lands", "we'll", "we will", "future", "down the road")
PERSIST_WORDS = 15
_PERSISTS = LazyPattern(
    r"\b(?:now|same|again|still|came back|before|anymore|any more|every time|always|\d+ times)\b",
    re.IGNORECASE,
)


def adjust(
    name: str, label: str, confidence: float, sentence: str, shape: Shape, spec_done: bool
) -> float:
    """How the prompt's structure moves a phrase rule's score: up when a complaint is aimed
    at the agent's work or persists, down for the user's own action, absolution or approval,
    an answer after "No", a future hypothetical, or a new task's spec (unless ``spec_done``:
    the detector already lowered the match for the request around it)."""
    lower = sentence.lower()
    if _has(lower, _ABSOLVED_CUES) and _ABSOLVED.search(sentence):
        return -0.4
    if _has(lower, _OWN_CUES) and _OWN_ACTION.search(sentence) and not shape.aimed_at_work:
        return -0.4
    if name.startswith(("no-", "other-way")) and _ANSWERING.search(sentence):
        return -0.4
    if _has(lower, _FUTURE_CUES) and _FUTURE.search(sentence):
        return -0.35
    if approval_without_but(sentence):
        return -0.3
    if (
        name in SPEC_WORDED
        and _has(lower, ("yet", "for "))
        and _NOT_YET.search(sentence)
        and (not shape.aimed)
    ):
        return -0.35
    if name in SPEC_WORDED and shape.new_task and not shape.aimed and not spec_done:
        return -0.35
    if sentence.rstrip().endswith("?") or shape.question_only:
        return 0.0
    if label == "friction" or confidence < 0.8:
        if shape.aimed_at_work and not shape.new_task:
            return 0.12
        if (
            label == "friction"
            and shape.words <= PERSIST_WORDS
            and not shape.has_question
            and not shape.new_task
            and _PERSISTS.search(sentence)
            and not _SPEC_VERB.search(sentence)
            and not _THIRD_PARTY.match(sentence)
        ):
            return 0.1
    return 0.0
