"""The rule a group of the user's corrections teaches, in words fit for a memory file.

Why it exists: approving a ``reflect`` convention writes one line into ``patterns.md`` that
every later session reads. That line must be an imperative or normative, self-contained
statement ("Run ruff before pytest.", "Dates must be stored in UTC."), never the complaint
around it ("You keep forgetting the import, that's the second time"), never a line that names
nothing ("Put it there"). Users state rules in many shapes: orders, habits ("we use pnpm"),
places ("tests go in tests/unit"), rules about a subject, values ("the port is 5173, not
3000"), answers to their own question ("why moment? date-fns please"). Each shape is read here;
a group that states none gets ``None`` and approval asks the user for the words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from conkeeper.services.analysis.reflection import findings as f

# The ways of stating a rule read here, each by name, so the bench can leave one out and see
# what it is worth to a writer it was not written for (``--by-set``).
READINGS = (
    "setting",  # "minSdk 26"
    "contrast",  # "hg38, not hg19"
    "wrong_thing",  # "wrong bucket, the eu one"
    "again_with",  # "again with the mocks, real db"
    "why_not",  # "why not Eloquent?"
    "just_the_thing",  # "date-fns please"
    "lone_name",  # "SAFE_CAST"
    "habit",  # "we use pnpm"
    "moved",  # "we're on dayjs"
    "place",  # "tests go in tests/unit"
    "normative",  # "Dates must be stored in UTC"
    "value",  # "the port is 5173, not 3000"
    "answered",  # "why print()? we have structlog"
)
_LEFT_OUT: ContextVar[frozenset[str]] = ContextVar("left_out", default=frozenset())


def _reads(reading: str) -> bool:
    """Whether ``reading`` (one of :data:`READINGS`) is in use for this call."""
    return reading not in _LEFT_OUT.get()


@contextmanager
def _leaving_out(readings: frozenset[str]) -> Iterator[None]:
    token = _LEFT_OUT.set(readings)
    try:
        yield
    finally:
        _LEFT_OUT.reset(token)


# Conversational openers that do not belong in a rule ("no, use X" → "Use X").
_FILLER = re.compile(
    r"^(?:(?:no|nope|nah|actually|again|ugh|ok(?:ay)?|well|so|please|hmm+)\b[\s,.!:;\u2014-]*)+",
    re.IGNORECASE,
)


# A clause that complains about the agent rather than saying what to do.
_COMPLAINT = re.compile(
    r"\b(?:you(?:'ve| have)? (?:keep|kept|forgot|forget|did|didn'?t|broke|missed|ignored|"
    r"always|never|still|again|messed|screwed)|that'?s the (?:\w+ )?time|(?:second|third|"
    r"fourth|fifth|\d+(?:st|nd|rd|th)) time|why (?:did|do|are|would) you|i (?:said|told|asked|"
    r"already)|told you|said so|how many times|seriously|come on|wtf|ffs|"
    r"your (?:last |latest )?(?:change|commit|edit|pr|fix)|"
    r"\b(?:went|was|were|got|broke|failed|took)\b)\b",
    re.IGNORECASE,
)
_IMPERATIVE_WORDS = (
    "use|run|put|keep|add|call|write|make|check|avoid|prefer|read|import|pass|return|raise|"
    "store|name|move|place|wait|mock|split|commit|push|format|lint|test|document|log|always|"
    "never|don'?t|do not|stop|only|leave|remove|delete|rename|follow|stick|switch|install|"
    "pin|set|type|catch|handle|validate|sort|quote|wrap|close|open|start|include|exclude|no|"
    "update|bump|regenerate|refactor|extract|inline|prefix|annotate|ask|assert|await|cache|"
    "clean|compile|configure|convert|copy|create|declare|define|deploy|disable|enable|escape|"
    "export|fetch|fix|generate|group|guard|indent|lock|merge|migrate|normalize|parse|rebase|"
    "reuse|review|revert|save|squash|strip|tag|trim|verify|upgrade|downgrade|build|ship|"
    "target|limit|reset|restart|clear|send|link|load|print|show|hide|encode|decode|measure|"
    "do|manage"
)
_IMPERATIVE = re.compile(r"^(?:" + _IMPERATIVE_WORDS + r")\b", re.IGNORECASE)
_CLAUSES = re.compile(
    r"(?<=[\w)\]\"'`])[.!?;]{1,4}\s+|\n+|(?<=\w):\s+|"
    r"\s+[\u2014\u2013]\s+|\s+-{1,2}\s+|,\s*(?=(?:but )?you\b)|"
    r",\s*(?:and |but |so |then |just |instead,? )?(?=(?:" + _IMPERATIVE_WORDS + r")\b)",
    re.IGNORECASE,
)
# "here," / "in this repo," / "in our codebase," before a habit
_HERE = (
    r"(?:(?:here|around here|in this (?:repo(?:sitory)?|project|codebase|team)|"
    r"in our (?:repo|code|codebase|project)),?\s+)?"
)
# "we use pnpm" / "in this repo we always use httpx" says the rule as a habit: "Use pnpm"
_WE_DO = re.compile(
    r"^" + _HERE + r"we\s+(?:always\s+|only\s+|usually\s+|normally\s+)?"
    r"(?=(?:" + _IMPERATIVE_WORDS + r")\b)",
    re.IGNORECASE,
)
# "we're on dayjs" / "we switched to pnpm" / "we moved to ruff": "Use dayjs"
_WE_MOVED = re.compile(
    r"^" + _HERE + r"(?:we'?re on|we are on|we(?:'ve| have)? (?:switched|moved|migrated) to|"
    r"we'?re using|we are using)\s+",
    re.IGNORECASE,
)
# "why not Eloquent?" / "date-fns please": the user answering their own complaint
_WHY_NOT = re.compile(r"^why (?:not|no) (?:use |just )?(?P<what>.+?)\??$", re.IGNORECASE)
_JUST_THE_THING = re.compile(
    r"^(?P<what>[\w`@./:#<>()-]+(?:\s+[\w`@./:#<>()-]+){0,2}?),?\s+(?:please|pls|plz|no)\??"
    r"(?:[,;]\s+(?:like|same|as|with|on|in|for|everywhere)\b.*)?$",
    re.IGNORECASE,
)
# a lone code-like name as the whole answer ("SAFE_CAST", "`docker compose`", "orders.v2")
_LONE_NAME = re.compile(
    r"^(?P<what>`[^`]+`|[\w@./:#<>()-]*(?:[A-Z]{2}|_|\.\w|/|::)[\w@./:#<>()-]*)$"
)
# "the dev server port is 5173, not 3000": a value stated about a named subject
# a named subject of up to six words, never a pronoun or a question word
_SUBJECT = (
    r"^(?!(?:you|i|it|its|it's|that|this|these|those|there|here|we|he|she|they|what|which|why|"
    r"how|where|when|who)\b)(?:(?:the|our|a|an|every|each|all)\s+)?[\w`'./-]+(?:\s+[\w`'./-]+){0,5}?\s+"
)
_VALUE = re.compile(_SUBJECT + r"(?:is|are)\s+(?P<value>.+)$", re.IGNORECASE)
_VALUE_TOKEN = re.compile(r"\d|`|\w[./:]\w|\bnot\b|\b[A-Z][\w-]*[A-Z0-9][\w-]*\b")
# a word right after the verb that makes "import missing" a complaint, not an order
_NOT_AN_ORDER = re.compile(
    r"^\S+\s+(?:missing|broken|wrong|failing|failed|again|still|not|is|was|isn'?t|wasn'?t)\b",
    re.IGNORECASE,
)
# "the tests go in tests/unit" says where things are put: "Put the tests in tests/unit"
_GOES_IN = re.compile(
    r"^(?P<thing>(?:(?:the|our|all|every|each|any|new)\s+)?[\w`'./-]+(?:\s+[\w`'./-]+){0,3}?)"
    r"\s+(?:go|goes|belong|belongs|live|lives)\s+(?=(?:in|into|under|inside|next to|to)\s)",
    re.IGNORECASE,
)
# "Dates must be stored in UTC": a rule stated about its subject, self-contained as it is
_NORMATIVE = re.compile(
    _SUBJECT + r"(?:must|should|shall|needs?(?: to)?|requires?|has to|have to)"
    r"(?:\s+(?:not|never|always|only))?\s+(?!(?:it|that|this|them|those|these)\b)\w",
    re.IGNORECASE,
)
_LEADING = re.compile(r"^(?:(?:and|but|so|then|just|please|instead|rather)\b[\s,]*)+", re.I)
_TRAILING = re.compile(
    r"[\s,]*(?:\b(?:again|please|pls|plz|like i said|as i said|ok(?:ay)?|thanks|lol|ugh|ffs|"
    r"for god'?s sake|every time|"
    r"each time|always|from now on|in future|going forward)\b"
    r"[\s,.!]*)+$",
    re.IGNORECASE,
)


_TOLD = re.compile(
    r"^(?:(?:i (?:said|told you|asked you|asked)|as i said|like i said)\s*[:,]\s*|"
    r"(?:you know|remember|note|keep in mind)(?:\s+that)?(?:\s*[:,]?\s+|\s*[:,]?$))",
    re.I,
)
# "put it there" names nothing on its own: not a self-contained rule
_PRONOUN_OBJECT = re.compile(
    r"^(?:(?:don'?t|do not|never|always|just)\s+)?\S+ (?:it|that|this|them|those|these)\b",
    re.IGNORECASE,
)
# a sentence's closing marks, not a code token's own ("don't use !!" keeps its "!!")
_END_PUNCTUATION = re.compile(r"(?<=[\w)\]`'\"])[.!?;,:]+\s*$|\s+$")
_CONTRACTION = re.compile(r"\b(don|doesn|didn|isn|aren|won|shouldn|can)t\b", re.IGNORECASE)
_NO_RULE = re.compile(r"^no\s+(?!(?:no|nope|nah)\b)[a-z]", re.IGNORECASE)


# Subject-less fixes: "hg38, not hg19" / "real db instead of mocks" / "wrong bucket, the eu
# one" / "again with the mocks, real db": what to use, named against what the agent used
_NAME_WORDS = r"[\w`@./:#<>()+-]+(?:\s+[\w`@./:#<>()+-]+){0,3}?"
_BARE_CONTRAST = re.compile(
    r"^(?P<good>"
    + _NAME_WORDS
    + r"),?\s+(?:not|instead of|rather than)\s+(?P<bad>"
    + _NAME_WORDS
    + r")[.!]*$",
    re.IGNORECASE,
)
_WRONG_THING = re.compile(
    r"^wrong\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?)\s*[,.:;!\u2014-]+\s*(?:(?:use|it'?s)\s+)?"
    r"(?P<good>" + _NAME_WORDS + r")[.!]*$",
    re.IGNORECASE,
)
_AGAIN_WITH = re.compile(
    r"^(?:again with|more of|still with|still) the\s+(?P<bad>" + _NAME_WORDS + r")\s*"
    r"[,.:;!\u2014-]+\s*(?P<good>" + _NAME_WORDS + r")[.!]*$",
    re.IGNORECASE,
)


# a file or a file:line: the place an error points at or a label, never a thing to use
_POINTS_AT_CODE = re.compile(
    r"\.(?:swift|py|go|js|jsx|ts|tsx|kt|kts|java|rb|php|rs|c|cc|cpp|h|hpp|cs|m|scala|sql)"
    r"(?::\d+)?`?$|:\d+`?$",
    re.IGNORECASE,
)


# "minSdk 26" / "MAX_WORKERS=8": a setting named in code and its value, nothing else
_SETTING_VALUE = re.compile(
    r"^`?(?P<name>[A-Za-z][\w.-]*)`?\s*(?:=|:)?\s*`?(?P<value>\d[\w.]*)`?[.!]*$"
)


def _subjectless_fix(clause: str) -> str | None:
    """The rule in a fix that names no subject: "hg38, not hg19" -> "use hg38, not hg19",
    "wrong bucket, the eu one" -> "use the eu bucket", "again with the mocks, real db" ->
    "use real db, not the mocks". Both sides must name something."""
    bare = clause.strip()
    setting = _SETTING_VALUE.match(bare) if _reads("setting") else None
    name = setting.group("name") if setting else ""
    if setting and _CODE_LIKE.search(name) and not _POINTS_AT_CODE.search(name):
        return f"set {name} to {setting.group('value')}"  # "minSdk 26."
    found = _BARE_CONTRAST.match(bare) if _reads("contrast") else None
    if found and _is_name(found.group("good")) and _is_name(found.group("bad")):
        sides = f"{found.group('good')} {found.group('bad')}"
        named = _CODE_LIKE.search(sides) or re.search(r"\d", sides)
        if not named and len(found.group("good").split()) < 2:
            return None  # "scan, not read": too bare to stand as a rule
        if not _IMPERATIVE.match(found.group("good")):
            return f"use {found.group('good')}, not {found.group('bad')}"
        return None
    found = _WRONG_THING.match(bare) if _reads("wrong_thing") else None
    if found and _is_name(found.group("good")):
        good, thing = found.group("good"), found.group("thing")
        one = re.fullmatch(r"the\s+(?P<which>[\w./-]+)\s+one", good, re.IGNORECASE)
        if one:
            return f"use the {one.group('which')} {thing}"
        if _CODE_LIKE.search(good) or re.search(r"\d", good):  # "wrong port: 5173"
            return f"use {good} as the {thing}"
        return None
    found = _AGAIN_WITH.match(bare) if _reads("again_with") else None
    if found and _is_name(found.group("good")) and _is_name(found.group("bad")):
        return f"use {found.group('good')}, not the {found.group('bad')}"
    return None


def _clean_clause(clause: str) -> str:
    clause = _TOLD.sub("", clause.strip().removeprefix("… ").strip())
    fix = _subjectless_fix(clause)
    if fix is not None:
        return fix
    if re.search(r"\S\s+again\b", clause, re.IGNORECASE):
        return ""  # "import moment again..." tells what the agent did, not what to do
    bare = clause.rstrip(".!?")
    answer = (
        (_reads("why_not") and _WHY_NOT.match(clause))
        or (_reads("just_the_thing") and _JUST_THE_THING.match(bare))
        or (_reads("lone_name") and _LONE_NAME.match(bare))
        or None
    )
    if answer and _POINTS_AT_CODE.search(answer.group("what")):
        return ""  # "AccountHeaderView.swift:42", "Package.swift": where, not what to use
    if answer and not _IMPERATIVE.match(answer.group("what")):
        return f"use {answer.group('what').rstrip('?.! ')}"
    if clause.rstrip().endswith("?"):
        return ""  # a question asks; it does not state the rule
    if not _NO_RULE.match(clause):  # "no network calls in unit tests" is the rule itself
        clause = _FILLER.sub("", clause)
    clause = _LEADING.sub("", clause).strip()
    clause = _END_PUNCTUATION.sub("", _TRAILING.sub("", clause).strip())
    if re.match(r"^always\s+\w", clause, re.IGNORECASE):  # "Always run X" -> "Run X"
        clause = clause.split(None, 1)[1]
    if _reads("habit"):
        clause = _WE_DO.sub("", clause)
    if _reads("moved"):
        clause = _WE_MOVED.sub("use ", clause)
    if _reads("place"):
        clause = _GOES_IN.sub(lambda m: f"put {m.group('thing')} ", clause)
    return clause


def _states_a_rule(clause: str) -> bool:
    """Whether ``clause`` says what to do on its own: an imperative or a rule about its
    subject ("Dates must be stored in UTC"), not a complaint, not "put it there"."""
    if _NO_RULE.match(clause) and len(clause.split()) < 3 and "`" not in clause:
        return False  # "no words" names nothing; "no `!!`" or "no print statements" does
    return (
        bool(
            _IMPERATIVE.match(clause)
            or (_reads("normative") and _NORMATIVE.match(clause))
            or (_reads("value") and _states_a_value(clause))
        )
        and not _COMPLAINT.search(clause)
        and not _PRONOUN_OBJECT.match(clause)
        and not (_IMPERATIVE.match(clause) and _NOT_AN_ORDER.match(clause))
    )


def _states_a_value(clause: str) -> bool:
    """Whether ``clause`` gives a named subject a concrete value ("the dev server port is
    5173, not 3000", "Java version is 21"): a number, a code span, a dotted or slashed name,
    a contrast with "not", or a name with inner capitals."""
    match = _VALUE.match(clause)
    return bool(match and _VALUE_TOKEN.search(match.group("value")))


# "why yum? ... ansible.builtin.dnf" / "why print()? we have structlog": a question about what
# the agent used, answered by the user at once with what to use instead
_WHY_ANSWERED = re.compile(r"\bwhy\b(?P<used>[^?]{0,80}?)\s*\?+\s*(?P<answer>[^?]+?)\s*$", re.I)
_ASKED_ABOUT = re.compile(
    r"^(?:\s*(?:is there|are there|is it|is this|are these|again|"
    r"(?:are|did|do|would) you(?: \w+ing| \w+)?)\b)+\s*",
    re.IGNORECASE,
)
# the answer's ways of naming what to use: "we have X", "it's X everywhere", "X has one",
# "X does this fine", "X please"
_ANSWER_SHAPES = (
    re.compile(r"^(?:.*?\s)?(?:we (?:have|use|do)|we'?re on|just use|use)\s+(?P<what>.+)$", re.I),
    re.compile(r"^it'?s\s+(?P<what>`[^`]+`)", re.IGNORECASE),
    re.compile(r"^\S+\s+(?:wants|expects|requires|needs)\s+(?P<what>\S+)", re.IGNORECASE),
    re.compile(
        r"^it'?s\s+(?P<what>.+?)\s+(?:everywhere|here|in (?:this|our) (?:repo|project|codebase)"
        r"|across the \w+)\b.*$",
        re.IGNORECASE,
    ),
    re.compile(
        r"^(?P<what>.+?)\s+(?:has one|has that|does (?:this|that)(?: fine| already)?|"
        r"already does (?:this|that)|is right there|exists)\b.*$",
        re.IGNORECASE,
    ),
)
# a name worth using: a code-like token (dots, slashes, colons, underscores, inner capitals,
# parentheses) or up to three plain words
_NAME_LIKE = re.compile(r"[\w`@./:#<>()+-]+(?:\s+[\w`@./:#<>()+-]+){0,2}")
_CODE_LIKE = re.compile(r"[./:_()`]|\w[A-Z]|[A-Z]{2}")
_NOT_A_NAME = re.compile(
    r"^(?:it|that|this|them|those|these|there|wrong|broken|bad|fine|slow|ok|okay|not|no|"
    r"the same|better|worse|correct|right)$",
    re.IGNORECASE,
)


def _answered_question(text: str) -> str | None:
    """The rule in "why X? Y": the user asks why the agent used X and names Y at once
    ("why print()? we have structlog" -> "Use structlog, not print()"). Only an answer that
    names something (a code-like name, or a name in one of the answer's shapes) counts."""
    match = _WHY_ANSWERED.search(" ".join(text.split())) if _reads("answered") else None
    if match is None:
        return None
    what = _answer_name(match.group("answer"))
    if what is None:
        return None
    used = _ASKED_ABOUT.sub("", match.group("used")).strip(" ,")
    used = re.sub(r"\s+again\b", "", used, flags=re.IGNORECASE).strip()
    if not used or len(used.split()) > 6:
        return f"use {what}"
    return f"use {what}, not {used}"


def _answer_name(answer: str) -> str | None:
    parts = [p.strip() for p in re.split(r"[.,;!]\s+|\s+[\u2014\u2013-]\s+", answer)]
    for part in parts:
        part = _TRAILING.sub("", _FILLER.sub("", part)).strip(" .!")
        if not part:
            continue
        for shape in _ANSWER_SHAPES:
            found = shape.match(part)
            if found and _is_name(found.group("what")):
                return _TRAILING.sub("", found.group("what")).strip(" .!")
        lone = _JUST_THE_THING.match(part) or _LONE_NAME.match(part)
        if lone and not _IMPERATIVE.match(lone.group("what")):
            # a file or file:line is where, not what to use (as in _clean_clause)
            return None if _POINTS_AT_CODE.search(lone.group("what")) else lone.group("what")
        head = part.split()[0]
        if 1 < len(part.split()) <= 5 and _CODE_LIKE.search(head) and not _IMPERATIVE.match(head):
            return head  # "useFetcher submits to the action"
    return None


def _is_name(text: str) -> bool:
    words = text.strip(" .!").split()
    return (
        0 < len(words) <= 3
        and bool(_NAME_LIKE.fullmatch(" ".join(words)))
        and not _NOT_A_NAME.match(" ".join(words))
    )


def imperative_rule(texts: list[str], *, leave_out: frozenset[str] = frozenset()) -> str | None:
    """The rule a group of corrections teaches, as an imperative, self-contained statement
    ("Run ruff before pytest."): the clauses that say what to do, without the complaint around
    them ("You keep forgetting the import, that's the second time."), the longest such
    statement of the group. ``None`` when no correction says what to do. ``leave_out`` names
    readings (:data:`READINGS`) not to use: the bench's measure of each one's worth."""
    with _leaving_out(leave_out):
        return _best_rule(texts)


def _best_rule(texts: list[str]) -> str | None:
    best = ""
    for text in texts:
        parts = []
        for raw in _CLAUSES.split(" ".join(text.split())):
            clause = _clean_clause(raw or "")
            if clause and _states_a_rule(clause):
                parts.append(clause)
        if not parts:
            answered = _answered_question(text)
            if answered is None:
                continue
            parts = [answered]
        parts = [_CONTRACTION.sub(lambda m: m.group(1) + "'t", part) for part in parts]
        rule = "; ".join([parts[0][:1].upper() + parts[0][1:], *parts[1:]]) + "."
        if len(best) < len(rule) <= f.QUOTE_CHARS:
            best = rule
    return best or None
