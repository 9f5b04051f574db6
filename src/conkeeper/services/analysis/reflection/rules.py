"""The rule a group of the user's corrections teaches, in words fit for a memory file.

Why it exists: approving a ``reflect`` convention writes one line into ``patterns.md`` that
every later session reads. That line must be an imperative or normative, self-contained
statement ("Run ruff before pytest.", "Dates must be stored in UTC."), never the complaint
around it ("You keep forgetting the import, that's the second time"), never a line that names
nothing ("Put it there"). Users state rules in many shapes: orders, habits ("we use pnpm"),
places ("tests go in tests/unit"), rules about a subject, values ("the port is 5173, not
3000"), answers to their own question ("why moment? date-fns please"), polite requests ("pls
run ..."), orders after their condition ("after you touch composer.json run ..."), a bare name
given twice after a complaint ("sqlmock again. testcontainers."), and rules in German, French,
Spanish, Portuguese, Italian, Dutch or Polish, kept in the user's words, as are orders in
Japanese, Chinese or Korean (:mod:`.cjk_rules`); a clause in Hindi written in Latin script
("print nahi") is not read by the English readings. Each shape is read here and named in
:data:`READINGS`; a group that states none gets ``None`` and approval asks the user for the
words. When unsure, no rule: a wrong rule teaches every later session the wrong thing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from conkeeper.services.analysis.corrections.cues import hindi_markers
from conkeeper.services.analysis.reflection import cjk_rules as cjk
from conkeeper.services.analysis.reflection import findings as f
from conkeeper.services.analysis.reflection.impersonal import impersonal

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
    "code_span",  # a clause is never split inside `a code span` or after "e.g."
    "colon_example",  # "regenerate the schema: bin/rails db:migrate" stays one clause
    "follow_on",  # "don't call X in Update, cache it in Awake": "it" names X, said just before
    "question_kept",  # a clause asked as a question mid-text stays a question
    "asks_to_read",  # "read the prompt" complains; it is no rule
    "bare_adverb",  # "always, before push" names nothing
    "no_code",  # "no `!!` in the repository layer" is the rule itself
    "polite",  # "pls run ...", "kindly log ...", "could you use QUALIFY ...?"
    "condition",  # "after you touch composer.json run composer dump-autoload"
    "it_is",  # "it's ubuntu-22.04"
    "for_use",  # "acme-dwh-prod for prod target"
    "like_the_rest",  # "table-driven, like the rest of the package"
    "subject_habit",  # "integration tests here use #[tokio::test(...)]"
    "other_language",  # German, French, Spanish, Portuguese, Italian, Dutch, Polish rules
    "anaphor_end",  # "write goose migrations with both", "don't sleep there": names nothing
    "value_state",  # "prod is on 16", "the partition is not correct": a state, not a value
    "said_tail",  # "use X like I said yesterday": the order without the reproach
    "more_verbs",  # "give each job a timeout-minutes", "cast to UEnhancedInputComponent"
    "why_not_mid",  # "inline script again, why not wp_enqueue_script?"
    "so_then",  # "you're reading orders now so add read_orders to the scopes"
    "is_for",  # "Optional is for return types only", "anyhow is only ok in the bins"
    "do_not",  # "do not call k_sleep in an ISR" is an order ("do" + "not" read as a state)
    "recurring",  # the rule names what the group's corrections keep coming back to
    "fix_after",  # "sqlmock again. testcontainers.": the name after a complaint, named twice
    "refers_back",  # "you keep passing --no-verify. Don't": "Do not pass --no-verify"
    "mirrored",  # "не используй unwrap(), используй ?": one order said twice, once refused
    "alternative",  # "never use `git add -A`; stage files by name": what to do instead
    "foreign_reason",  # "utilise toujours `go test -race`, sinon ...": a short rule, its why
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
    r"\b(?:went|was|were|got|broke|failed|took)\b|"
    # "stop breaking the build", "because of you": a complaint in an order's or a fact's shape
    r"stop (?:breaking|ignoring|deleting|messing|screwing|rewriting|doing (?:this|that|it))|"
    r"because of you|never mind)\b",
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
# the verbs that open an order ("run", "use", "update"...), as one alternation
ORDER_VERBS = _IMPERATIVE_WORDS
_IMPERATIVE = re.compile(r"^(?:" + _IMPERATIVE_WORDS + r")\b", re.IGNORECASE)
_CLAUSES = re.compile(
    r"(?<=[\w)\]\"'`])[.!?;]{1,4}\s+|\n+|(?<=\w):\s+|"
    r"\s+[\u2014\u2013]\s+|\s+-{1,2}\s+|,\s*(?=(?:but )?you\b)|"
    r",\s*(?=I(?: really)? (?:need|want|'d like|would like) you to\b)|"
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
    r"^(?P<what>`[^`\s]+(?:\s[^`\s]+){0,3}`|[\w@./:#<>()-]*(?:[A-Z]{2}|_|\.\w|/|::)[\w@./:#<>()-]*)$"
)
# "the dev server port is 5173, not 3000": a value stated about a named subject
# a named subject of up to six words, never a pronoun or a question word
_SUBJECT = (
    r"^(?!(?:you|your|yours|i|my|mine|me|it|its|it's|that|this|these|those|there|here|we|he|"
    r"she|they|what|which|why|how|where|when|who)\b)(?:(?:the|our|a|an|every|each|all)\s+)?[\w`'./-]+(?:\s+[\w`'./-]+){0,5}?\s+"
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
    # "I said to run `make fmt` before committing": the order told before, "Run `make fmt` ..."
    r"(?:i (?:already )?(?:said|told you|asked you|asked)|as i said|like i said|"
    r"i (?:want|need|wanted|needed) you),?\s+to\s+"
    r"(?=(?:" + _IMPERATIVE_WORDS + r")\b)|"
    r"(?:you know|remember|note|keep in mind)(?:\s+that)?(?:\s*[:,]?\s+|\s*[:,]?$))",
    re.I,
)
# "put it there" names nothing on its own: not a self-contained rule
# "like I said yesterday" / ", I told you on the deploy workflow": a reproach after the order
_SAID_TAIL = re.compile(
    r"[\s,]*\b(?:(?:like|as) )?i (?:said|told you|mentioned|asked)(?: (?:it|that|so|this))?"
    r"(?: (?:yesterday|before|earlier|already|last \w+|on \w+(?: \w+)?|\w+ times?))?[\s.!]*$",
    re.IGNORECASE,
)
# a rule ending on a word that points back ("with both", "there") names nothing on its own
_ANAPHOR_END = re.compile(r"^[^,;]*\s(?:both|there|either|neither|the same)$", re.I)
_MORE_VERBS = re.compile(
    r"^(?:cast|enqueue|submit|inject|register|serialize|render|query|wire|route|bind|persist|"
    r"paginate|give|take|drop|mention|pick|choose|mark|prepare|stub|seed|scope|memoize|"
    r"debounce|throttle|retry|batch)\b(?!\s+(?:is|was|are|were|missing|broken)\b)",
    re.IGNORECASE,
)
# "Optional is for return types only in our java code" / "anyhow is only ok in the bins"
_IS_FOR = re.compile(
    _SUBJECT + r"(?:is|are)\s+(?:only\s+)?(?:ok(?:ay)?\s+|fine\s+|allowed\s+|meant\s+|reserved\s+)?"
    r"(?:only\s+)?(?:for|in)\s+\S",
    re.IGNORECASE,
)
_PRONOUN_OBJECT = re.compile(
    r"^(?:(?:don'?t|do not|never|always|just)\s+)?\S+ (?:it|that|this|them|those|these)\b",
    re.IGNORECASE,
)
# a sentence's closing marks, not a code token's own ("don't use !!" keeps its "!!")
_END_PUNCTUATION = re.compile(r"(?<=[\w)\]`'\"])[.!?;,:]+\s*$|\s+$")
_CONTRACTION = re.compile(r"\b(don|doesn|didn|isn|aren|won|shouldn|can)t\b", re.IGNORECASE)
_NO_RULE = re.compile(r"^no\s+(?!(?:no|nope|nah)\b)[a-z]", re.IGNORECASE)
_NO_CODE = re.compile(r"^no\s+(?:`|[!?@#$%^&*<]{1,3}(?:\s|$))")


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
# what sets the two sides apart: a comma, a colon, a dash, or a full stop ending a sentence;
# never the dot inside a name (`console.log`, `fmt.Println` is one thing, not two)
_SIDES = r"\s*(?:[,:;!\u2014-][,.:;!\u2014-]*|\.+(?!\w))\s*"
_WRONG_THING = re.compile(
    rf"^wrong\s+(?P<thing>[\w-]+(?:\s+[\w-]+)?){_SIDES}(?:(?:use|it'?s)\s+)?"
    rf"(?P<good>{_NAME_WORDS})[.!]*$",
    re.IGNORECASE,
)
_AGAIN_WITH = re.compile(
    rf"^(?:again with|more of|still with|still) the\s+(?P<bad>{_NAME_WORDS}){_SIDES}"
    rf"(?P<good>{_NAME_WORDS})[.!]*$",
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


_CODE_SPAN = re.compile(r"`[^`]+`")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs)\.", re.IGNORECASE)
_HIDDEN = re.compile(r"\x00(\d+)\x00")
_CLAUSE_SEPARATORS = re.compile("(" + _CLAUSES.pattern.replace("`])", "`\x00])", 1) + ")", re.I)


def _clauses(text: str) -> list[str]:
    """``text`` cut into clauses: at sentence ends, dashes, colons and before a new order, never
    inside a code span, and an order stays whole before the example after its colon
    ("regenerate the schema: bin/rails db:migrate")."""
    spans: list[str] = []

    def hide(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    hidden = text
    if _reads("code_span"):
        hidden = _ABBREVIATION.sub(
            lambda m: m.group(0).replace(".", "\x01"), _CODE_SPAN.sub(hide, text)
        )
    pieces = _CLAUSE_SEPARATORS.split(hidden)
    if _reads("why_not_mid") or _reads("so_then"):
        pieces = _split_more(pieces)
    clauses = [pieces[0] or ""]
    for separator, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        if _joins_its_example(clauses[-1], separator, piece or ""):
            clauses[-1] += ": " + (piece or "")
        else:
            if separator.startswith("?") and _reads("question_kept"):
                clauses[-1] += "?"  # "update_option for the rates? transient.": asked, not said
            clauses.append(piece or "")
    return [_HIDDEN.sub(lambda m: spans[int(m.group(1))], c).replace("\x01", ".") for c in clauses]


_WHY_NOT_MID = re.compile(r"(,\s*)(?=why (?:not|no)\b)", re.IGNORECASE)
_SO_THEN = re.compile(r"(\s+(?:so|then|and then)\s+)(?=(?:" + _IMPERATIVE_WORDS + r")\b)", re.I)


def _split_more(pieces: list[str]) -> list[str]:
    """``pieces`` (clauses and separators) cut again before ", why not X?" and " so add X"."""
    for pattern, name in ((_WHY_NOT_MID, "why_not_mid"), (_SO_THEN, "so_then")):
        if not _reads(name):
            continue
        cut: list[str] = []
        for index, piece in enumerate(pieces):
            cut.extend(pattern.split(piece) if index % 2 == 0 and piece else [piece])
        pieces = cut
    return pieces


def _joins_its_example(order: str, separator: str, example: str) -> bool:
    """Whether ``example`` after a colon is the command or value an order names."""
    if not _reads("colon_example") or separator.strip() != ":":
        return False
    head = _clean_order(order)
    first = " ".join(example.split()[:3])
    named = _CODE_LIKE.search(first) or "\x00" in first or _names_a_thing(first)
    command = len(example.split()) <= 6 and not _NOT_AN_EXAMPLE.match(example)
    return bool(_IMPERATIVE.match(head) and len(head.split()) >= 2 and (named or command))


# after a colon, words that start a sentence of their own, not a command or a value
_NOT_AN_EXAMPLE = re.compile(
    r"^(?:it|they|that|this|these|those|the|you|i|we|he|she|there|no|not|but|and|so|why|"
    r"what|how|because|since)\b|^(?:" + _IMPERATIVE_WORDS + r")\b",
    re.IGNORECASE,
)


def _clean_order(clause: str) -> str:
    return _POLITE.sub("", _FILLER.sub("", clause.strip())) if _reads("polite") else clause


def _names_a_thing(text: str) -> bool:
    """Whether ``text`` names a tool, file, flag or value: a code-like token, a digit, a
    hyphenated name (``acme-dwh-prod``), a setting (``utc=True``), a flag (``--autogenerate``)
    or a code span."""
    return bool(
        _CODE_LIKE.search(text) or re.search(r"\d|\w[-=]\w|[@%$#]\w|(?<![\w-])--?[a-z]", text)
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
        if _reads("value_state") and re.fullmatch(r"[\d.,]+", found.group("good")):
            return None  # "8.1, not 8.3": a number of what?
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


# "Non, ...", "Nein, ...", "Não, ...", "Nee, ...", "Nie, ...": the answer that opens a
# correction in another language
_ANSWER_ABROAD = re.compile(r"^(?:non|nein|nee|não|nao|nie)\s*[,.!;:]+\s*", re.IGNORECASE)


# "ok from now on use pnpm", "going forward, ...", "d'ora in poi usa pnpm", "ab jetzt ...": a
# standing choice stated; the lead says the rule is for later sessions, it is not the rule
_FROM_NOW_ON = (
    r"from now on|from here on(?: out)?|going forward|moving forward|henceforth|"
    r"d'ora in (?:poi|avanti)|da ora in (?:poi|avanti)|da adesso in poi|ab jetzt|ab sofort|"
    r"von jetzt an|künftig|in zukunft|a partir de ahora|de ahora en adelante|desde ahora|"
    r"à partir de maintenant|dorénavant|désormais|a partir de agora|de agora em diante|"
    r"daqui (?:em|pra|para) (?:diante|frente)|van nu af aan|vanaf nu|voortaan|od teraz|"
    r"od tej pory|odtąd|od dziś|od dzisiaj"
)
_STANDING = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|all right|fine|right|so|and|then|sure|va bene|d'accord|vale|"
    r"gut|okay)[\s,.!:;-]+)*(?:" + _FROM_NOW_ON + r")(?:\s*[,:;-])?\s+(?=\S)",
    re.IGNORECASE,
)
_STANDING_ANYWHERE = re.compile(r"(?<!\w)(?:" + _FROM_NOW_ON + r")(?!\w)", re.IGNORECASE)


def _clean_clause(clause: str) -> str:
    clause = _ANSWER_ABROAD.sub("", clause.strip().removeprefix("… ").strip())
    clause = _STANDING.sub("", clause)
    if _reads("other_language"):
        clause = impersonal(clause)  # "Siempre debes usar pnpm" -> "Siempre usar pnpm"
    clause = _TOLD.sub("", clause)
    if _reads("polite"):
        clause = _polite_order(clause)
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
        or (_reads("it_is") and _named_answer(_IT_IS.match(_TRAILING.sub("", bare)), 0))
        or (_reads("like_the_rest") and _named_answer(_LIKE_THE_REST.match(bare), 2))
        or None
    )
    if answer and re.match(r"why no\b", clause, re.I) and not _names_a_thing(answer.group("what")):
        answer = None  # "why no tests??" asks why something is missing; "why no utc=True?" names it
    if answer and _POINTS_AT_CODE.search(answer.group("what")):
        return ""  # "AccountHeaderView.swift:42", "Package.swift": where, not what to use
    if answer and not _IMPERATIVE.match(answer.group("what")) and not _a_verb(answer.group("what")):
        what = _TRAILING.sub("", answer.group("what")).rstrip("?.! ")
        return f"use {what}" if what else ""  # "AGAIN." names nothing
    if clause.rstrip().endswith("?"):
        return ""  # a question asks; it does not state the rule
    if _reads("said_tail"):
        clause = _SAID_TAIL.sub("", clause)
    if not (_NO_RULE.match(clause) or (_reads("no_code") and _NO_CODE.match(clause))):
        # "no network calls in unit tests", "no `!!` here" are the rule itself
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
    if _reads("for_use"):
        clause = _for_use(clause)
    return clause


# "pls run ...", "kindly log ...", "hm, ...": politeness before an order
_POLITE = re.compile(r"^(?:(?:pls|plz|kindly|hm+|also)\b[\s,.!]*)+", re.IGNORECASE)
# "could you use QUALIFY like in stg_events?" / "you must put implicit none ...": an order asked
_REQUEST = re.compile(
    r"^(?:(?:and|also|so|ok(?:ay)?)\s+)*(?:(?:could|can|would|will) you|you (?:must|should|"
    r"need to|have to))\s+(?:(?:please|pls|also|just|maybe|always)\s+)*(?P<order>.+?)\s*\?*$",
    re.IGNORECASE,
)


def _a_verb(what: str) -> bool:
    """Whether ``what`` opens on one of the further verbs ("enqueue it with ...")."""
    return _reads("more_verbs") and _MORE_VERBS.match(what) is not None


def _polite_order(clause: str) -> str:
    """The order in a polite request: "pls run X" -> "run X", "could you use X?" -> "use X"."""
    clause = _POLITE.sub("", clause)
    request = _REQUEST.match(clause)
    if request and _IMPERATIVE.match(request.group("order")):
        return request.group("order")
    forbidden = _FORBIDDEN_REQUEST.match(clause)
    if forbidden and _IMPERATIVE.match(forbidden.group("order")):
        return f"do not {forbidden.group('order')}"  # "you must not push to main directly"
    return clause


# "you must not push to main", "you shouldn't edit dist/": a prohibition told to the agent
_FORBIDDEN_REQUEST = re.compile(
    r"^(?:(?:and|also|so|ok(?:ay)?)\s+)*you\s+(?:must\s*not|mustn'?t|should\s*not|shouldn'?t|"
    r"can\s*not|cannot|can'?t|may\s+not|are\s+not\s+(?:allowed|supposed)\s+to|"
    r"aren'?t\s+(?:allowed|supposed)\s+to)\s+(?:(?:ever|just|please)\s+)*(?P<order>.+?)\s*[.!]*$",
    re.IGNORECASE,
)


# "it's ubuntu-22.04" / "no, it's iOS 16": the value the user means, named at once
_IT_IS = re.compile(
    r"^(?:no,?\s+)?it'?s\s+(?P<what>`[^`]+`|[\w`@./:#<>()+-]+(?:\s+[\w`@./:#<>()+-]+)??)"
    r"(?:\s+(?:here|everywhere|now))?$",
    re.IGNORECASE,
)
# "table-driven, like the rest of the package" / "multi_thread flavor like the rest pls"
_LIKE_THE_REST = re.compile(
    r"^(?P<what>[\w`@./:#<>()+-]+(?:\s+[\w`@./:#<>()+-]+){0,2}?),?\s+(?:like|as in|same as)\s+"
    r"(?:the rest|the others|the other \w+|everywhere else|in \S+|\S+\.\w+)\b.*$",
    re.IGNORECASE,
)


def _named_answer(match: re.Match[str] | None, plain_words: int) -> re.Match[str] | None:
    """``match`` when what it found names a thing (or is at most ``plain_words`` plain words:
    "pydantic models, like the rest") and is more than a bare number."""
    if match is None:
        return None
    what = _TRAILING.sub("", match.group("what")).strip()
    if re.fullmatch(r"`[^`]+`", what):
        return match  # "it's `kubectl --context=staging`"
    if not _is_name(what) or re.fullmatch(r"[\d.,]+", what):
        return None
    return match if _names_a_thing(what) or len(what.split()) <= plain_words else None


# "acme-dwh-prod for prod target": the named thing to use, and what for
_FOR_USE = re.compile(
    r"^(?P<what>[\w`@./:#<>()+-]+(?:\s+[\w`@./:#<>()+-]+)?)\s+for\s+"
    r"(?!(?:this|that|it|them|those|these|me|you|nothing|no|the win|fun|now|once|ages)\b)"
    r"(?P<use>[^,;]+)$",
    re.IGNORECASE,
)


def _for_use(clause: str) -> str:
    found = _FOR_USE.match(clause)
    if found is None or len(found.group("use").split()) > 8:
        return clause
    what = found.group("what")
    if _IMPERATIVE.match(what) or not _names_a_thing(what) or re.fullmatch(r"[\d.,]+", what):
        return clause
    return f"use {what} for {found.group('use')}"


# "integration tests here use X" / "in this workspace lib crates use X" / "our staging models
# are always stg_<source>": a habit stated about a subject, marked as this place's own
_HABIT_PLACE = (
    r"(?:here|around here|in (?:this|our) (?:repo(?:sitory)?|project|codebase|team|workspace|"
    r"shop|company|app|org|package))"
)
_HABIT_VERB = (
    r"(?:always\s+)?(?:use|uses|get|gets|go through|goes through|need|needs|are always|"
    r"is always|are|is)\s+"
)
_HABIT_SUBJECT = r"(?!(?:we|you|i|it|that|this)\b)[\w`'./-]+(?:\s+[\w`'./-]+){0,3}?"
_SUBJECT_HABIT = re.compile(
    r"^(?:" + _HABIT_PLACE + r",?\s+" + _HABIT_SUBJECT + r"|" + _HABIT_SUBJECT + r"\s+here"
    r"|our\s+[\w`'./-]+(?:\s+[\w`'./-]+){0,3}?)\s+" + _HABIT_VERB + r"(?P<what>.+)$",
    re.IGNORECASE,
)


def _states_a_habit(clause: str) -> bool:
    """Whether ``clause`` states this place's habit about a subject and names what it uses."""
    found = _SUBJECT_HABIT.match(clause)
    if found is None or re.search(r"\byou", clause, re.IGNORECASE):
        return False
    what = found.group("what")
    return _names_a_thing(what) or re.search(r"(?:^|[\s'\"(])[A-Z]", what) is not None


def _states_a_rule(clause: str, follows: bool = False) -> bool:
    """Whether ``clause`` says what to do on its own: an imperative or a rule about its
    subject ("Dates must be stored in UTC"), not a complaint, not "put it there" (unless
    ``follows`` a rule of the same sentence that names what "it" is)."""
    if _NO_RULE.match(clause) and len(clause.split()) < 3 and "`" not in clause:
        return False  # "no words" names nothing; "no `!!`" or "no print statements" does
    if _BARE_CALL.fullmatch(clause.strip(" .!?")):
        return False  # "again print()!": the call complained about, named, not an order
    if _reads("asks_to_read") and _ASKS_TO_READ.match(clause):
        return False  # "read the prompt": a complaint in an order's shape
    if _reads("bare_adverb") and _BARE_ADVERB.match(clause):
        return False  # "always, before push"
    if _reads("other_language") and (_foreign_rule(clause) or _foreign_rule_and_why(clause)):
        return not _COMPLAINT.search(clause)  # "Bei uns nie `print()`, you forgot it"
    if _reads("other_language") and _foreign(clause):
        return False  # "no al lado del código": English readings misread other languages
    order = _order_of(clause)
    if _reads("bare_adverb") and re.fullmatch(r"[a-z']+", order.strip(), re.IGNORECASE):
        return False  # "stop", "revert": an order that names nothing
    if not follows and _reads("anaphor_end") and _ANAPHOR_END.match(clause.split(",")[0]):
        return False
    if _reads("is_for") and _IS_FOR.match(clause) and re.search(r"\bonly\b", clause):
        return not _COMPLAINT.search(clause)  # "assert is only for tests": not an order
    return (
        bool(
            _IMPERATIVE.match(order)
            or (_reads("more_verbs") and _MORE_VERBS.match(order))
            or (_reads("normative") and _NORMATIVE.match(clause))
            or (_reads("value") and _states_a_value(clause))
            or (_reads("subject_habit") and _states_a_habit(clause))
        )
        and not _COMPLAINT.search(clause)
        and not (_PRONOUN_OBJECT.match(order) and not (follows and _reads("follow_on")))
        and not (_IMPERATIVE.match(order) and _NOT_AN_ORDER.match(order) and not _do_not(order))
    )


_ASKS_TO_READ = re.compile(
    r"^(?:re-?)?read (?:the|my|what i)\s*(?:prompt|issue|question|message|instructions?|"
    r"request|task|ticket|description|comment|wrote|said|asked)\b",
    re.IGNORECASE,
)
_BARE_ADVERB = re.compile(
    r"^(?:always|never|only)\s*(?:[,.;:]|$|(?:on|in|at|from|for|with|before|after)\b)",
    re.IGNORECASE,
)
# "after you touch composer.json run composer dump-autoload -o": an order after its condition
_CONDITION = re.compile(
    r"^(?:after|before|when|whenever|once|every time|each time|if)\s+.{2,80}?"
    r"(?<!\byou)(?<!\bi)(?<!\bwe)(?<!\bthey)(?<!\bit)(?<!\bto),?\s+"
    r"(?P<order>(?!(?:no|only|test|log|type|name|format|lock|tag|link|group|target|limit|"
    r"cache|build|review|merge|fix|show|set|always|never|do not|don'?t)\b)"
    r"(?:" + _IMPERATIVE_WORDS + r")\b.*)$",
    re.IGNORECASE,
)


def _do_not(order: str) -> bool:
    """Whether ``order`` opens on "do not", an order, not "X not ..." (a state)."""
    return _reads("do_not") and re.match(r"do not\s+\w", order, re.IGNORECASE) is not None


def _order_of(clause: str) -> str:
    """The order of a clause that opens on its condition ("after X run Y" -> "run Y")."""
    found = _CONDITION.match(clause) if _reads("condition") else None
    return found.group("order") if found else clause


# Rules in other languages are kept in the user's words: a clause counts when it carries an
# order or habit word of one language, two of its common words, names a thing (or has five
# words or more), and holds none of its complaint words ("encore", "schon wieder", "otra vez",
# "de novo").
_LANGUAGES = (
    (  # German
        r"bei uns|wir (?:nutzen|verwenden|benutzen|machen|schreiben|nehmen)|immer|nie|niemals|"
        r"muss|müssen|soll|sollen|verwende|benutze|nutze|nimm|bitte",
        r"der|die|das|und|nicht|im|ist|sind|wird|werden|mit|für|bei|uns|wir|ein|eine|kommt|"
        r"alles|auf|den|dem|zu|statt|kein|keine|nur|auch|oder|von|vom|zum|zur|diesem|dieser|"
        r"dieses|unserem|unserer|unseren",
        r"schon wieder|wieder|nochmal|du hast|sie haben|warum|das ist nicht|ich (?:habe|hab) "
        r"(?:gesagt|dir)|wollte",
    ),
    (  # French
        r"on utilise|chez nous|ici on|toujours|jamais|il faut|doit|doivent|utilise|utilisez|"
        r"lance|lancez|mets|mettez|ajoute|ajoutez|vont dans|va dans|passe par|"
        r"ne (?!(?:sont|suis|peux|sais|veux)\b)\w+ (?:pas|jamais)|n'(?!est\b)\w+ (?:pas|jamais)",
        r"les|le|la|des|du|et|ne|pas|dans|avant|avec|pour|une|est|sont|je|nous|ça|ce|chaque",
        r"encore|tu as|vous avez|pourquoi|ce n'est pas|c'est pas|je (?:voulais|t'ai dit)|"
        r"j'ai dit|même erreur",
    ),
    (  # Spanish
        r"aquí|usamos|siempre|nunca|hay que|debe|deben|tienes que|usa|utiliza|pon|añade|"
        r"ejecuta|corre|van en|va en|mete|coloca|guarda|"
        r"no (?:hagas|hagan|uses|usen|pongas|metas|llames|subas|borres)",
        r"el|los|las|del|con|para|una|en|es|y|que|por|está|todo|cada|de|antes|sin|al|hay|usar|"
        r"nunca|siempre|hagas|hagan",
        r"otra vez|de nuevo|has vuelto|por qué|pusiste|hiciste|no es lo que|te dije|ya te|pedí",
    ),
    (  # Portuguese
        r"aqui|a gente|usamos|sempre|nunca|deve|devem|tem que|precisa|utilize|coloque|"
        r"põe|adicione|rode|roda|rodar|usa|usar|execute|vão em|vai em|"
        r"não (?:use|faça|coloque|suba|apague|chame)",
        r"não|com|para|os|uma|um|da|na|em|é|são|gente|nós|pelo|pela|direto|tudo|cada|no|de|"
        r"antes|sem|as|ao|aos|dos|das",
        r"de novo|outra vez|você (?:fez|colocou|usou)|por que|não é (?:isso|o que)|"
        r"eu (?:disse|falei|pedi)|já (?:disse|falei)",
    ),
    (  # Italian
        r"qui|usiamo|sempre|mai|bisogna|devi|dovete|deve|usa|usate|utilizza|utilizzate|metti|"
        r"aggiungi|esegui|lancia|non (?:usare|fare|mettere|chiamare|cancellare)",
        r"il|lo|gli|di|del|della|dei|delle|con|che|è|sono|un|una|qui|sempre|mai|prima|senza|"
        r"ogni|tutto|questo|questa|nel|nella|sul|sulla|usare",
        r"di nuovo|ancora|hai (?:usato|fatto|messo)|perché|ti ho detto|te l'ho detto|"
        r"non è (?:quello|ciò)",
    ),
    (  # Dutch
        r"bij ons|we (?:gebruiken|doen|schrijven|nemen)|altijd|nooit|moet|moeten|gebruik|"
        r"gebruiken|draai|zet|voeg|neem|voortaan|niet (?:gebruiken|doen|zetten|draaien|toevoegen)",
        r"de|het|een|en|van|niet|zijn|met|voor|bij|ons|altijd|nooit|geen|alleen|ook|naar|dit|"
        r"deze|dat|wordt|worden|gebruiken|eerst|zonder|hier|elke|alles",
        r"weer|alweer|nog steeds|je hebt|u heeft|waarom|ik (?:heb|had) (?:gezegd|gevraagd)|"
        r"dat is niet|niet wat",
    ),
    (  # Polish
        r"u nas|zawsze|nigdy|musisz|musicie|trzeba|należy|używaj|użyj|używać|użyć|uruchom|"
        r"uruchamiaj|dodaj|dodawaj|stosuj|korzystaj|wstaw|"
        r"nie (?:używaj|dodawaj|uruchamiaj|wywołuj|rób|usuwaj|commituj)",
        r"nie|się|jest|są|dla|przed|bez|zawsze|nigdy|nas|tylko|zamiast|każdy|wszystko|tutaj|"
        r"tego|oraz|jak|na|w|z|ze|używać",
        r"znowu|znów|jeszcze raz|dlaczego|czemu|mówiłem|mówiłam|prosiłem|prosiłam|"
        r"to nie jest|nadal|wciąż|zrobiłeś|zrobiłaś|użyłeś|użyłaś",
    ),
)
# The short form of a rule in those languages ("Usa pnpm, no npm", "Siempre usa `pnpm` aquí",
# "Immer `pnpm` verwenden"): the clause opens on an order or an "always"/"never" of the
# language and either names a thing or sets one name against another with the language's "not".
_SHORT_FORMS = (
    (  # German
        r"immer|nie|niemals|bitte|nimm|nehmt|nutze|nutzt|verwende|verwendet|benutze|benutzt",
        r"nicht|kein|keine|statt",
    ),
    (  # French
        r"toujours|jamais|utilise|utilisez|lance|lancez|mets|mettez|ajoute|ajoutez|prends|prenez|"
        r"utiliser|lancer|mettre|ajouter|prendre|ne pas",
        r"pas|non|jamais",
    ),
    (  # Spanish
        r"siempre|nunca|usa|usad|utiliza|pon|añade|ejecuta|corre|mete|coloca|guarda|"
        r"(?:no\s+)?(?:usar|utilizar|ejecutar|correr|poner|añadir|meter|colocar|guardar)",
        r"no|nunca",
    ),
    (  # Portuguese
        r"sempre|nunca|usa|use|utilize|coloque|põe|adicione|rode|roda|execute|"
        r"(?:não\s+)?(?:usar|utilizar|colocar|adicionar|rodar|executar)",
        r"não|nunca",
    ),
    (  # Italian
        r"sempre|mai|usa|usate|utilizza|utilizzate|metti|aggiungi|esegui|lancia|"
        r"(?:non\s+)?(?:usare|utilizzare|mettere|aggiungere|eseguire|lanciare)",
        r"non|mai",
    ),
    (  # Dutch: the infinitive ends the rule ("Altijd pnpm gebruiken", "Nooit npm gebruiken")
        r"altijd|gebruik|draai|zet|voeg|neem|(?:niet|nooit)\s+(?:\S+\s+){0,3}?"
        r"(?:gebruiken|draaien|zetten|toevoegen|nemen|uitvoeren)",
        r"niet|geen|nooit",
    ),
    (  # Polish
        r"zawsze|nigdy|używaj|użyj|uruchom|uruchamiaj|dodaj|dodawaj|stosuj|korzystaj|wstaw|"
        r"(?:nie\s+)?(?:używać|użyć|uruchamiać|dodawać|stosować|korzystać|wstawiać|używaj|"
        r"dodawaj|uruchamiaj|stosuj|korzystaj)",
        r"nie|nigdy|zamiast",
    ),
)


def _foreign(clause: str) -> bool:
    """Whether ``clause`` is in German, French, Spanish, Portuguese, Italian, Dutch or Polish
    (two common words)."""
    prose = _prose(clause)
    return any(
        len(set(re.findall(r"\b(?:" + common + r")\b", prose))) >= 2
        for _orders, common, _complaints in _LANGUAGES
    )


def _prose(clause: str) -> str:
    """``clause`` in lower case without its code ("locales/de.json" holds no German "de")."""
    return re.sub(r"`[^`]*`|\S*[/._:@<>()=\\]\S*", " ", clause).lower()


def _foreign_rule(clause: str) -> bool:
    """Whether ``clause`` states a rule in German, French, Spanish, Portuguese, Italian, Dutch
    or Polish."""
    for (orders, common, complaints), short in zip(_LANGUAGES, _SHORT_FORMS, strict=True):
        if re.search(r"\b(?:" + complaints + r")\b", clause, re.IGNORECASE):
            continue
        words = set(re.findall(r"\b(?:" + common + r")\b", _prose(clause)))
        if (
            len(words) >= 2
            and re.search(r"(?<!\w)(?:" + orders + r")(?!\w)", clause, re.IGNORECASE)
            and (_names_a_thing(clause) or len(clause.split()) >= 5)
        ) or _short_foreign_rule(clause, orders, short):
            return True
    return False


def _foreign_rule_and_why(clause: str) -> bool:
    """Whether ``clause`` opens on a short rule of another language and goes on after a comma
    with why ("utilise toujours `go test -race`, sinon les courses passent inaperçues"): the
    rule alone is one, and the reason after it does not undo it (the whole clause was too long
    for a short rule and too poor in common words for a long one)."""
    head, comma, rest = clause.partition(", ")
    return bool(_reads("foreign_reason") and comma and rest.strip() and _foreign_rule(head))


# what the short form's contrast may end on that names nothing: this, that, now, nothing
_NOT_A_FOREIGN_NAME = re.compile(
    r"este|esta|esto|eso|ese|esa|aquel|aquello|ahora|nada|así|das|dies|diese|dieser|dieses|"
    r"jetzt|nichts|so|ça|ce|cela|celui|celle|ceci|maintenant|rien|comme|isso|isto|esse|essa|"
    r"aquilo|agora|nada|assim|questo|questa|quello|quella|ciò|così|ora|adesso|niente|più|dit|"
    r"dat|deze|nu|niets|zo|hier|to|tego|ten|ta|teraz|nic|tak|tu|tutaj"
)


def _short_foreign_rule(clause: str, orders: str, short: tuple[str, str]) -> bool:
    """Whether ``clause`` is a short rule of one language: it opens on an order or "always" of
    the language, holds an order word, and names a thing or sets a name against another with
    the language's "not" ("Usa pnpm, no npm")."""
    opens, nots = short
    bare = clause.strip(" .!¡¿")
    if len(bare.split()) > 8 or not re.match(r"(?:" + opens + r")\b", bare, re.IGNORECASE):
        return False
    contrast = re.search(r",?\s(?:" + nots + r")\s+(?P<name>\S+)$", bare, re.IGNORECASE)
    if contrast and _NOT_A_FOREIGN_NAME.fullmatch(contrast["name"].lower()):
        contrast = None  # "Usa el otro, no este": "this one" names nothing
    return bool(
        re.search(r"(?<!\w)(?:" + orders + "|" + opens + r")(?!\w)", bare, re.IGNORECASE)
        and (_names_a_thing(bare) or contrast)
    )


def _standing_foreign_order(clause: str) -> bool:
    """Whether ``clause``, said after "from now on" in its language ("d'ora in poi usa pnpm",
    "ab jetzt nimm pnpm", "od teraz używaj pnpm"), is a short order of German, French,
    Spanish, Portuguese, Italian, Dutch or Polish naming what to use: the lead already says it
    is a standing rule, so a plain name will do where a short rule alone must name code or set
    one name against another."""
    bare = clause.strip(" .!¡¿")
    words = bare.split()
    if not 2 <= len(words) <= 6 or _NOT_A_FOREIGN_NAME.fullmatch(words[-1].lower()):
        return False
    for (orders, _common, complaints), (opens, _nots) in zip(_LANGUAGES, _SHORT_FORMS, strict=True):
        if re.search(r"\b(?:" + complaints + r")\b", bare, re.IGNORECASE):
            continue
        if re.match(r"(?:" + orders + "|" + opens + r")(?!\w)", bare, re.IGNORECASE):
            return True
    return False


def _states_a_value(clause: str) -> bool:
    """Whether ``clause`` gives a named subject a concrete value ("the dev server port is
    5173, not 3000", "Java version is 21"): a number, a code span, a dotted or slashed name,
    a contrast with "not", or a name with inner capitals."""
    match = _VALUE.match(clause)
    if match and _reads("value_state") and _A_STATE.match(match.group("value")):
        return False  # "prod is on 16", "the partition is not correct"
    return bool(match and _VALUE_TOKEN.search(match.group("value")))


_A_STATE = re.compile(
    r"^(?:off|now|still|already|back|missing|broken|wrong|stale|empty|failing|"
    r"red|down|gone|not (?:correct|right|ok|okay|good|fine|working|allowed|what|the))\b|"
    r"^(?:on|at|in)\s+[\d.]+$",
    re.IGNORECASE,
)


# "why yum? ... ansible.builtin.dnf" / "why print()? we have structlog": a question about what
# the agent used, answered by the user at once with what to use instead
_USING = re.compile(r"^(?:always\s+|keep\s+|still\s+)*(?:use|using|used)\s+(?=\S)", re.I)
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
    r"the same|better|worse|correct|right|"
    # what a tired user says, never a thing to use ("still failing. great.")
    r"(?:(?:just |so |really |how |very )?(?:great|nice|wonderful|awesome|perfect|cool|sure|"
    r"lovely|fantastic|brilliant|amazing|terrible|ridiculous|unbelievable|embarrassing))|"
    r"really|seriously|honestly|sigh|whatever|thanks|thank you|yes|yep|yeah|nope|why|what|"
    r"come on|enough|same thing|again|still|stop)$",
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
    used = _USING.sub("", used)  # "why do you always use X?": not "not use X"
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
        and not _FAULT_FIRST.match(words[0])
        and not _SPEAKS.search(" ".join(words))
    )


# "your import is", "my card": a sentence about the user or the agent, never a thing to use
_SPEAKS = re.compile(r"\b(?:is|are|was|were|you|your|i|my|me)\b", re.IGNORECASE)


# "wrong numbers", "broken tests", "too slow": a fault named, never a thing to use
_FAULT_FIRST = re.compile(r"^(?:wrong|broken|bad|still|too|way|another|failing|flaky)$", re.I)


def imperative_rule(texts: list[str], *, leave_out: frozenset[str] = frozenset()) -> str | None:
    """The rule a group of corrections teaches, as an imperative, self-contained statement
    ("Run ruff before pytest."): the clauses that say what to do, without the complaint around
    them ("You keep forgetting the import, that's the second time."), the longest such
    statement of the group. ``None`` when no correction says what to do. ``leave_out`` names
    readings (:data:`READINGS`) not to use: the bench's measure of each one's worth."""
    with _leaving_out(leave_out):
        return _best_rule(texts)


def states_a_standing_choice(text: str) -> bool:
    """Whether ``text`` states a choice for good ("ok from now on use pnpm", "going forward,
    run `make lint` first", "d'ora in poi usa pnpm"): a rule read from it, said with "from now
    on" in one of the languages read. The detector may not flag it, for it reproaches
    nothing; it still corrects the agent's default, and ``reflect`` reads it as a correction."""
    return bool(_STANDING_ANYWHERE.search(text)) and _best_rule([text]) is not None


def rule_part(text: str) -> str:
    """What a theme is named by in one correction: the rule it states when one is read ("Use
    pnpm here, not npm."), else the whole text. A sentence around the rule ("The card form is
    the one on the checkout page.") lent the theme its words ("pnpm npm card")."""
    return _best_rule([text]) or text


# What a rule may not lean on: the conversation it was said in. "Use the same one as before",
# "Use the one we discussed", "Use what I gave you", "Utilise-le", "それを使ってください" name
# nothing a later session can find; such a rule is never proposed.
_BACK_NOUN = (
    r"one|ones|version|approach|way|thing|library|lib|package|tool|option|method|function|"
    r"pattern|style|setup|command|fix|solution|format|name|value|setting|config|flag|file"
)
_BACK_TAIL = (
    r"(?:\s+(?:instead|again|here|please|then|now|(?:as|like)\s+(?:before|last\s+time|earlier)|"
    r"from\s+(?:before|earlier|last\s+time)|last\s+time|above|below|we\s+\w+(?:\s+about)?|"
    r"i\s+\w+(?:\s+(?:you|about|earlier|before))*))*"
)
_POINTS_BACK = re.compile(
    r"^(?:(?:always|just|only|never|do\s+not|don't)\s+)?\S+\s+(?:"
    r"(?:it|that|this|them|those|these|what|what\s+i\s+.+)"
    r"|(?:the\s+|my\s+|your\s+|that\s+|this\s+)?(?:(?:same|other|old|previous|earlier|original|"
    r"former|latter|usual|right|correct|proper|last)\s+)?(?:" + _BACK_NOUN + r")"
    r"|(?:the\s+)?(?:same|other|old|previous|former|latter|usual|original)"
    r")" + _BACK_TAIL + r"[\s.!]*$",
    re.IGNORECASE,
)
# "the version I mentioned", "the approach we discussed": a thing the conversation names
_SAID_THING = re.compile(
    r"\b(?:the|that|this|my)\s+(?:\w+\s+)?(?:" + _BACK_NOUN + r")\s+(?:that\s+|which\s+)?"
    r"(?:i|we)\s+(?:mentioned|discussed|said|suggested|showed|gave|sent|pasted|linked|"
    r"wrote|picked|chose|told)\b",
    re.IGNORECASE,
)
# "the API key I gave you earlier", "the branch we made": a thing only the conversation names,
# closing the rule (a place after it, "the logger we wrote in src/log.py", names it)
_SAID_LAST = re.compile(
    r"\b(?:the|that|this|my|our)\s+(?:[\w-]+\s+){0,2}?[\w-]+\s+(?:that\s+|which\s+)?(?:i|we)\s+"
    r"(?:gave|sent|pasted|linked|showed|shared|mentioned|discussed|suggested|made|created|"
    r"wrote|picked|chose|set\s+up|told\s+you\s+about)(?:\s+(?:you|to\s+you|here))?"
    r"(?:\s+(?:earlier|before|above|yesterday|today|last\s+time))?[\s.!]*$",
    re.IGNORECASE,
)
# a correction for now only ("in this session", "this time", "for now", "今回は"): no standing rule
_FOR_NOW = re.compile(
    r"\b(?:(?:in|for|during)\s+this\s+(?:session|conversation|chat|task|run)|this\s+time|"
    r"for\s+now|(?:just\s+)?for\s+today|today\s+only|just\s+this\s+once|diesmal|"
    r"dieses\s+mal|vorerst|cette\s+fois|pour\s+l'instant|pour\s+le\s+moment|esta\s+vez|"
    r"por\s+ahora|desta\s+vez|por\s+enquanto|questa\s+volta|per\s+ora)\b"
    r"|今回|このセッション|今だけ|这次|本次|這次|이번에|이번만",
    re.IGNORECASE,
)
# another language's pronoun as the object: "utilise-le", "usa-lo", "celui-là", "それを", "그걸"
_FOREIGN_BACK = re.compile(
    r"(?<![\w-])[a-zà-ÿ]+-(?:le|la|les|lo|los|las|l[ao]s?)(?![\w-])|(?<!\w)(?:celui|celle)-(?:là|ci)"
    r"|(?:それ|あれ|これ)(?:を|で|に|は)|(?:그걸|그것|이걸|이것|저걸|저것)|(?:那个|这个|它)",
    re.IGNORECASE,
)


def _points_back(rule: str, said: str) -> bool:
    """Whether ``rule`` (read from ``said``) leans on the conversation for what it names: its
    object is a pronoun or "the same one as before", or a thing the user "mentioned"; such a
    rule is not self-contained and is never proposed."""
    bare = _CODE_SPAN.sub("x_code", rule)
    if "`" in rule and not _POINTS_BACK.match(rule.replace("`", "")):
        return bool(_SAID_THING.search(said))
    if _POINTS_BACK.match(bare) or _SAID_THING.search(said) or _SAID_LAST.search(rule):
        return True
    if not _FOREIGN_BACK.search(rule):
        return False
    rest = _END_PUNCTUATION.sub("", _FOREIGN_BACK.sub(" ", rule).strip()).rstrip("。.!")
    latin_name = cjk.language(rule) is not None and re.search(r"[A-Za-z]{3}", rest)
    return not (_names_a_thing(rest) or latin_name)


def _best_rule(texts: list[str]) -> str | None:
    candidates = []
    recurring = _recurring_words(texts) if _reads("fix_after") else set()
    rejected = frozenset(_rejected(texts))
    for text in texts:
        if _FOR_NOW.search(text):
            continue  # "in this session, use the staging db": not a rule for later sessions
        if _reads("other_language") and cjk.language(text):
            found = cjk.cjk_rule(" ".join(text.split()))
            if found and len(found) <= f.QUOTE_CHARS and not _points_back(found, text):
                candidates.append(found)  # "`logging` を使ってください": kept as written
            continue
        parts: list[str] = []
        before = ""
        hindi = hindi_markers(text) >= 2
        standing = _reads("other_language") and bool(_STANDING_ANYWHERE.search(text))
        for raw in _foreign_contrasts(_clauses(" ".join(text.split()))):
            if forbidden := _forbidden_before(before, raw or ""):
                parts.append(forbidden)  # "Don't" keeps what it forbids
                before = raw or ""
                continue
            clause = _clean_clause(raw or "")
            if hindi and hindi_markers(clause):
                continue  # "print nahi" is "not print", no English order ("Print nahi.")
            if clause and _states_a_rule(clause, follows=bool(parts)):
                parts.append(clause)
            elif standing and clause and _standing_foreign_order(clause):
                parts.append(clause)  # "d'ora in poi usa pnpm": "Usa pnpm."
            elif recurring and (fix := _fix_after(before, raw or "", recurring, rejected)):
                parts.append(fix)
            elif parts and clause and _alternative(parts[-1], clause):
                parts.append(clause)
            before = raw or ""
        if not parts and (mirrored := _mirrored(text)):
            parts = [mirrored]
        answered = _answered_question(text)
        if answered and (not parts or (len(parts) == 1 and answered.startswith(parts[0]))):
            parts = [answered]  # "why fmt.Println? slog.Info like the rest": "..., not fmt.Println"
        if not parts:
            continue
        parts = [_CONTRACTION.sub(lambda m: m.group(1) + "'t", part) for part in parts]
        rule = "; ".join([_capitalised(parts[0]), *map(_continued, parts[1:])]) + "."
        if len(rule) <= f.QUOTE_CHARS and not _points_back(rule, text):
            candidates.append(rule)
    return _chosen(candidates, texts)


# "Don't.", "never do that again", "stop it": a prohibition whose object was said just before
_BARE_NO = re.compile(
    r"^(?:(?:so|and|but|please|just|no|seriously)[\s,]+)*(?:don['’]?t|do not|never|stop)"
    r"(?:\s+(?:do(?:ing)?\s+)?(?:that|it|this))?"
    r"(?:\s+(?:again|anymore|any more|ever again|please))*[\s.!,]*$",
    re.IGNORECASE,
)
# "you keep passing X", "you're using X", "you always add X": the habit the prohibition forbids
_HABIT_TOLD = re.compile(
    r"^(?:(?:but|and|so|again)[\s,]+)?you(?:['’]re|\s+are|\s+keep|\s+kept)?"
    r"(?:\s+(?:still|always|keep|again|constantly))*\s+(?P<verb>[a-z]+)\s+(?P<what>\S.*)$",
    re.IGNORECASE,
)
# verbs a habit is told in beyond the order verbs: "you keep editing dist/"
_HABIT_VERBS = frozenset(
    re.findall(
        r"\S+",
        "edit touch hardcode ignore skip modify change overwrite force amend bypass suppress "
        "swallow mutate comment silence",
    )
) | (
    frozenset(re.findall(r"[a-z]+", _IMPERATIVE_WORDS + _MORE_VERBS.pattern.split(")")[0]))
    - {"do", "don", "t", "not", "no", "always", "never", "only"}
)


# a part that forbids ("never use X", "don't push", "avoid print()", "stop using any")
_FORBIDDING = re.compile(r"^(?:never|don'?t|do not|avoid|stop)\b", re.IGNORECASE)
# what a clause opening on its own subject or a link word starts with: no order
_SUBJECT_FIRST = re.compile(
    r"^(?:it|they|that|this|these|those|the|a|an|you|i|we|he|she|there|no|not|but|and|or|so|"
    r"why|what|how|because|since|if|when|then|its|their|our|my|your)\b",
    re.IGNORECASE,
)


def _alternative(forbidding: str, clause: str) -> bool:
    """Whether ``clause``, right after a part that forbids something, says what to do instead
    ("never use `git add -A`; stage files by name"): a short clause opening on a bare word of
    its own (its verb, where an English order has it), no subject, no complaint. The place
    tells the order, not a list of verbs: a rule that forbids and then names an alternative
    lost the alternative whenever its verb was not a known one ("stage")."""
    if not _reads("alternative") or not _FORBIDDING.match(forbidding):
        return False
    words = clause.split()
    return (
        2 <= len(words) <= 12
        and re.fullmatch(r"[a-z]{3,}", words[0]) is not None
        and not _SUBJECT_FIRST.match(clause)
        and not _PRONOUN_OBJECT.match(clause)  # "cache it in Awake": what "it" is, follow_on's
        and not words[0].endswith(("ed", "s"))  # "fixed it", "works": told, not ordered
        and not _COMPLAINT.search(clause)
    )


# a clause's words (elided ones apart: "n'utilise" is "n" and "utilise"); a name is one word
_WORD_OF = re.compile(r"[^\W\d_]+", re.UNICODE)
_HALVES = re.compile(r"\s*[,，;；、]\s*")


def _mirrored(text: str) -> str | None:
    """The rule a correction states by saying one order twice, once refused and once not, in
    any language ("n'utilise pas `any`, utilise `unknown`", "не используй unwrap(), используй
    ?", "don't use X, use Y"): two halves, the second's words all in the first, the first
    with more (its "not"), each naming something of its own, at least one of them code.
    Kept as written, the way rules of other languages are; ``None`` for any other shape."""
    if not _reads("mirrored"):
        return None
    for sentence in re.split(r"(?<=[.!])\s+", " ".join(text.split())):
        rule = _mirrored_sentence(sentence)
        if rule is not None:
            return rule  # "нет. не используй ...": the sentence that says it, not the "no"
    return None


def _mirrored_sentence(text: str) -> str | None:
    """:func:`_mirrored` on one sentence."""
    spans: list[str] = []

    def hide(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    hidden = _CODE_SPAN.sub(hide, text)
    body = " ".join(hidden.split()).rstrip(" .!。")
    halves = _HALVES.split(body)
    if len(halves) != 2 or _COMPLAINT.search(text):
        return None
    first, second = (_mirror_half(h, spans) for h in halves)
    words_one, words_two = set(first[0]), set(second[0])
    if not words_two or not words_two < words_one or len(first[0]) > 4 or len(second[0]) > 3:
        return None
    if not (first[1] and second[1] and (_names_a_thing(first[1]) or _names_a_thing(second[1]))):
        return None
    return " ".join(text.split()).rstrip(" .!。")  # its full stop comes with the rule


def _mirror_half(half: str, spans: list[str]) -> tuple[list[str], str]:
    """A half's words in lower case (the order and its "not") and what it names: the rest,
    its code spans and code-like tokens (``unwrap()``, ``?``, ``fmt.Println``)."""
    words: list[str] = []
    named: list[str] = []
    for token in half.split():
        shown = _HIDDEN.sub(lambda m: spans[int(m.group(1))], token)
        if "\x00" in token or not _WORD_OF.fullmatch(token.replace("'", "")):
            named.append(shown)
        else:
            words.extend(w.lower() for w in _WORD_OF.findall(token))
    return words, " ".join(named)


def _forbidden_before(before: str, clause: str) -> str | None:
    """The prohibition a bare "Don't" makes of the habit said just before it ("You keep
    passing `--no-verify` to git commit. Don't": "do not pass `--no-verify` to git commit"),
    ``None`` when ``clause`` is no bare prohibition or the habit's verb is not known: without
    it the rule would lose what it forbids."""
    if not _reads("refers_back") or not _BARE_NO.match(clause.strip()):
        return None
    told = _HABIT_TOLD.match(before.strip())
    verb = _base_verb(told["verb"]) if told else None
    if told is None or verb is None:
        return None
    what = _END_PUNCTUATION.sub("", _TRAILING.sub("", told["what"]).strip())
    if not what or _COMPLAINT.search(what) or _PRONOUN_OBJECT.match(f"{verb} {what}"):
        return None  # "you keep doing it": names nothing
    return f"do not {verb} {what}"


def _base_verb(word: str) -> str | None:
    """The order form of a verb as a habit is told ("passing", "committing", "using", "adds"):
    only a verb known to open an order, else ``None``."""
    word = word.lower()
    stem = word[:-3] if word.endswith("ing") else word
    undoubled = stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else stem
    tries = [stem, stem + "e", undoubled] if word.endswith("ing") else [word, word[:-1]]
    return next((t for t in tries if t in _HABIT_VERBS), None)


def _foreign_contrasts(clauses: list[str]) -> list[str]:
    """``clauses`` with a short rule of another language made whole again where the cut before
    an English "no" split it from its contrast ("Usa pnpm" + "no npm": "Usa pnpm, no npm")."""
    if not _reads("other_language"):
        return clauses
    joined: list[str] = []
    for clause in clauses:
        both = f"{joined[-1]}, {clause}" if joined else ""
        contrast = re.match(r"no\s+\S+\s*[.!]*$", clause, re.IGNORECASE)
        if contrast and _foreign_rule(impersonal(both)):
            joined[-1] = both
        else:
            joined.append(clause)
    return joined


# a first word that is code or a path ("dist/", "pytest.ini", "src/app.py", "useCart"): as typed
_CODE_FIRST = re.compile(r"^[^\s]*(?:[/._:()=\\\d]|[a-z][A-Z])")


def _continued(part: str) -> str:
    """A later part of a rule joined after "; ": its order verb in lower case ("Stop using
    any; use unknown", not "; Use unknown"), a name (`Go`, `JSON`) left as written."""
    verb = _IMPERATIVE.match(part)
    word = verb.group(0) if verb else ""
    return part[:1].lower() + part[1:] if word[1:].islower() else part


def _capitalised(rule: str) -> str:
    """``rule`` with a capital first letter, unless its first word is code or a path, which a
    capital would name otherwise ("dist/ is generated" is not about "Dist/")."""
    return rule if _CODE_FIRST.match(rule) else rule[:1].upper() + rule[1:]


_BARE_CALL = re.compile(r"`?[A-Za-z_][\w.]*\(\)`?")
# "not tabs", "instead of print": what the corrections say not to use
_REJECTED = re.compile(
    r"\b(?:not|no|never|instead\s+of|rather\s+than|stop\s+using|avoid)\s+(?:the\s+|any\s+|using\s+)?"
    r"(?P<name>[\w`.()-]+)",
    re.IGNORECASE,
)


def _rejected(texts: list[str]) -> set[str]:
    """The words of what the group's corrections say not to use ("4 spaces, not tabs")."""
    return {w for text in texts for m in _REJECTED.finditer(text) for w in _words(m["name"])}


def _fix_after(
    before: str, clause: str, recurring: set[str], rejected: frozenset[str] = frozenset()
) -> str | None:
    """The rule in a bare name right after a complaint or a question ("sqlmock again.
    testcontainers.", "update_option for the rates? transient."): "use testcontainers". Only
    a name whose every word the group's corrections give more than once counts: "great." or
    "sigh" do not."""
    if not re.search(r"\bagain\b|\?$", before.strip(), re.IGNORECASE):
        return None
    name = _TRAILING.sub("", _FILLER.sub("", clause.strip())).strip(" .!")
    if not _is_name(name) or _IMPERATIVE.match(name) or _a_verb(name) or "?" in clause:
        return None
    words = _words(name)
    if any(word in _COMMON for word in name.lower().split()):
        return None  # "tenacity has that": a sentence, not a name
    if words & rejected:
        return None  # "wrong again!!! tabs." names the mistake the group rejects ("not tabs")
    return f"use {name}" if words and words <= recurring else None


def _chosen(candidates: list[str], texts: list[str]) -> str | None:
    """The group's rule: the longest of its statements, one that names a word the corrections
    keep coming back to (a word in two or more of them) before one that names none."""
    if not candidates:
        return None
    recurring = _recurring_words(texts) if _reads("recurring") else set()
    if not recurring:
        return max(candidates, key=len)  # the first of the longest
    on_topic = [c for c in candidates if _words(c) & recurring]
    return max(on_topic or candidates, key=len)


_WORD = re.compile(r"[a-z0-9][a-z0-9_+!#@$%-]*(?:\.[a-z0-9_]+)*", re.IGNORECASE)
_COMMON = frozenset(
    re.findall(
        r"\S+",
        "the and why you not for but are was use run can did its all any one two get got has "
        "had how now too yet our out off own put set see say new old who way lol pls thx "
        "again please this that with from have what your just like here there every always "
        "never should would could into they them then than when where which still time same "
        "told said dont don't also only file code make need want know keep stop each other "
        "more some",
    )
)


def _words(text: str) -> set[str]:
    """The words of ``text`` worth comparing, in a rough stem: "branches" and "branch" meet."""
    found = set()
    for word in _WORD.findall(text.lower()):
        if len(word) < 3 or word in _COMMON:
            continue
        found.add(re.sub(r"(?:es|s|ed|ing)$", "", word) if len(word) > 5 else word)
    return found


def _recurring_words(texts: list[str]) -> set[str]:
    """Words found in two or more of ``texts``."""
    seen: dict[str, int] = {}
    for text in texts:
        for word in _words(text):
            seen[word] = seen.get(word, 0) + 1
    return {word for word, count in seen.items() if count >= 2}


# a clause that forbids what it names: "don't use npm", "never commit to main", "stop using X"
_FORBIDS = re.compile(r"^(?:do\s+not|don'?t|never|stop(?:\s+using)?|avoid|no)\b\s*", re.I)


def _stance(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """What the rule ``text`` states asks for and what it rejects, as lower-case words ("Use
    the v1 API here, not v2": ``{v1, api, here}`` against ``{v2}``; "Don't use npm; use
    pnpm": ``{pnpm}`` against ``{npm, use}``); both empty without a rule. A word the rule
    both asks for and rejects ("use `npm ci`, not `npm install`") is in neither."""
    rule = _best_rule([text])
    if rule is None:
        return frozenset(), frozenset()
    wanted: set[str] = set()
    rejected: set[str] = set()
    for clause in re.split(r"[;,.!?]\s*|\s+(?:but|and)\s+", rule):
        forbids = _FORBIDS.match(clause.strip())
        named = _named_words(clause.strip()[forbids.end() :] if forbids else clause)
        if forbids:
            rejected |= named
            continue
        gone = {w for m in _REJECTED.finditer(clause) for w in _WORD.findall(m["name"].lower())}
        rejected |= gone & named
        wanted |= named - gone
    both = wanted & rejected
    return frozenset(wanted - both), frozenset(rejected - both)


def _named_words(text: str) -> set[str]:
    """The lower-case words of ``text`` worth comparing, common words left out."""
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}


def disagreeing(texts: list[str]) -> Callable[[int, int], bool]:
    """``apart(i, j)`` for :func:`themes.cluster`: whether the rules two of ``texts`` state
    disagree, one rejecting what the other asks for ("use v1, not v2" and "use v2, not v3").
    Clustered by their shared words, such corrections made one theme whose rule the other
    contradicted; a theme holds rules that agree."""
    stances = [_stance(text) for text in texts]

    def apart(i: int, j: int) -> bool:
        (wants_i, rejects_i), (wants_j, rejects_j) = stances[i], stances[j]
        return bool(rejects_i & wants_j or rejects_j & wants_i)

    return apart
