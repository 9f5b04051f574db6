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

from conkeeper.services.analysis.reflection import findings as f

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
    r"already)|how many times|seriously|come on|wtf|ffs)\b",
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
    "target|limit|reset|restart|clear|send|link|load|print|show|hide|encode|decode|measure"
)
_IMPERATIVE = re.compile(r"^(?:" + _IMPERATIVE_WORDS + r")\b", re.IGNORECASE)
_CLAUSES = re.compile(
    r"(?<=[.!?;])\s+|\n+|(?<=\w):\s+|\s+[\u2014\u2013]\s+|\s+-{1,2}\s+|,\s*(?=(?:but )?you\b)|"
    r",\s*(?:and |but |so |then |just |instead,? )?(?=(?:" + _IMPERATIVE_WORDS + r")\b)",
    re.IGNORECASE,
)
# "we use pnpm" / "in this repo we always use httpx" says the rule as a habit: "Use pnpm"
_WE_DO = re.compile(
    r"^(?:(?:here|in this (?:repo(?:sitory)?|project|codebase|team)),?\s+)?we\s+"
    r"(?:always\s+|only\s+|usually\s+|normally\s+)?(?=(?:" + _IMPERATIVE_WORDS + r")\b)",
    re.IGNORECASE,
)
# "the tests go in tests/unit" says where things are put: "Put the tests in tests/unit"
_GOES_IN = re.compile(
    r"^(?P<thing>(?:(?:the|our|all|every|each|any|new)\s+)?[\w`'./-]+(?:\s+[\w`'./-]+){0,3}?)"
    r"\s+(?:go|goes|belong|belongs|live|lives)\s+(?=(?:in|into|under|inside|next to)\s)",
    re.IGNORECASE,
)
# "Dates must be stored in UTC": a rule stated about its subject, self-contained as it is
_NORMATIVE = re.compile(
    r"^(?!(?:you|i|it|that|this|there|we|he|she|they)\b)[\w`'./-]+(?:\s+[\w`'./-]+){0,5}?\s+"
    r"(?:must|should|shall|needs? to|has to|have to)(?:\s+(?:not|never|always|only))?\s+\w",
    re.IGNORECASE,
)
_LEADING = re.compile(r"^(?:(?:and|but|so|then|just|please|instead|rather)\b[\s,]*)+", re.I)
_TRAILING = re.compile(
    r"[\s,]*(?:\b(?:again|please|like i said|as i said|ok(?:ay)?|thanks|for god'?s sake|every time|"
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
_PRONOUN_OBJECT = re.compile(r"^\S+ (?:it|that|this|them|those|these)\b", re.IGNORECASE)
_NO_RULE = re.compile(r"^no\s+(?!(?:no|nope|nah)\b)[a-z]", re.IGNORECASE)


def _clean_clause(clause: str) -> str:
    clause = _TOLD.sub("", clause.strip().removeprefix("… ").strip())
    if not _NO_RULE.match(clause):  # "no network calls in unit tests" is the rule itself
        clause = _FILLER.sub("", clause)
    clause = _LEADING.sub("", clause).strip()
    clause = _TRAILING.sub("", clause).strip().rstrip(".!?;,: ")
    if re.match(r"^always\s+\w", clause, re.IGNORECASE):  # "Always run X" -> "Run X"
        clause = clause.split(None, 1)[1]
    clause = _WE_DO.sub("", clause)
    clause = _GOES_IN.sub(lambda m: f"put {m.group('thing')} ", clause)
    return clause


def _states_a_rule(clause: str) -> bool:
    """Whether ``clause`` says what to do on its own: an imperative or a rule about its
    subject ("Dates must be stored in UTC"), not a complaint, not "put it there"."""
    return (
        bool(_IMPERATIVE.match(clause) or _NORMATIVE.match(clause))
        and not _COMPLAINT.search(clause)
        and not _PRONOUN_OBJECT.match(clause)
    )


def imperative_rule(texts: list[str]) -> str | None:
    """The rule a group of corrections teaches, as an imperative, self-contained statement
    ("Run ruff before pytest."): the clauses that say what to do, without the complaint around
    them ("You keep forgetting the import, that's the second time."), the longest such
    statement of the group. ``None`` when no correction says what to do."""
    best = ""
    for text in texts:
        parts = []
        for raw in _CLAUSES.split(" ".join(text.split())):
            clause = _clean_clause(raw or "")
            if clause and _states_a_rule(clause):
                parts.append(clause)
        if not parts:
            continue
        rule = "; ".join([parts[0][:1].upper() + parts[0][1:], *parts[1:]]) + "."
        if len(best) < len(rule) <= f.QUOTE_CHARS:
            best = rule
    return best or None
