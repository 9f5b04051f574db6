"""Benign look-alikes of corrections (F7), neutralised before the rules and the model read them.

Why: on prompts nobody tuned on, most false positives at ``low`` came from a handful of kinds
that share words with corrections but correct nothing:

* praise or approval with a negation or "actually" ("not bad", "that's not a problem",
  "actually, that's what I wanted");
* numbering ("no. 3", "step no 2");
* navigation ("go back to the top of the file", "back to the previous page");
* a "No," that answers the agent's question ("No, that's all for now", "No, not yet");
* correction words inside pasted material: a support ticket or an e-mail introduced with a
  colon, a chat or bot log (``bob: still failing``), a diff or code comments.

Rewriting these to neutral words (``fine``, ``number``, ``navigate to``, ``ANSWER``) or blanking
the pasted lines, once, in :func:`.detection.strip_noise`, keeps the rules and the learned
scorer (which reads the same prose through :mod:`.features`) from seeing them, without a
penalty in every rule. Every pattern is compiled lazily and only when its hint word occurs, so
the UserPromptSubmit hook pays for none of them on most prompts.
"""

from __future__ import annotations

import re

from conkeeper.domain.lazy_re import LazyPattern


def _r(pattern: str) -> LazyPattern:
    return LazyPattern(pattern, re.IGNORECASE)


# ------------------------------------------------------------------ phrases (prose level)

_NUMBERING = _r(r"\b(?:no|nr|num)\.?[ \t]?(?=#?\d)")
_NOT_BAD = _r(
    r"\bnot (?:too |that |half |so |at all )?(?:bad|shabby|terrible|awful)\b(?: at all)?|"
    r"\bnot an? (?:bad (?:idea|call|start|choice|plan|first pass)|problem|issue|big deal|"
    r"blocker|concern)\b|"
    r"\b(?:that'?s|that is|it'?s|it is|this is|this'?s|that was|it was|which is) not "
    r"(?:really |actually )?(?:a |an |much of a )(?:problem|issue|big deal|blocker|concern)\b|"
    r"\b(?:that|it|this) (?:wasn'?t|was not|isn'?t|is not) (?:a |an )(?:mistake|error)\b|"
    r"\b(?:nothing wrong with|no complaints|(?:i )?can'?t complain|no objections?|"
    r"no need to (?:apologi[sz]e|be sorry))\b|"
    r"\b(?:doesn'?t|does not|didn'?t|did not) (?:look|seem|sound) (?:wrong|bad|broken|off)\b|"
    r"\byou didn'?t break anything\b|\bit'?s not wrong to\b|"
    r"\bno (?:problems?|issues?) (?:on my (?:side|end)|here|at all)\b|"
    r"\bnot (?:a |an )?(?:bug|mistake|typo|error)\b(?=[^.!?]{0,40}\b(?:intended|intentional|"
    r"expected|by design|on purpose|deliberate|really|actually|correct|keep|leave))|"
    r"\bnot what i (?:expected|had in mind|pictured|imagined|planned)(?=[^.!?]{0,40}\b(?:better|"
    r"great|good|nice|love|faster|prefer|like))"
)
# "actually," before approval: the approval stays, "actually" goes
_ACTUALLY_APPROVAL = _r(
    r"\bactually,?\s+(?=(?:that'?s|this is|this'?s|it'?s|that is|it is) (?:exactly |just |"
    r"precisely |really |pretty )?(?:what i|great|good|perfect|fine|right|correct|the right|ok|"
    r"okay|nice|better|spot on)|yes\b|yeah\b|no need\b|you(?: were| are|'re) right|"
    r"looks? (?:good|great|"
    r"fine|right)|works\b|i like\b|i love\b)"
)
# the navigation "go back to" / "back to" a place, not to an earlier state
_NAVIGATION = LazyPattern(
    r"\b(?:scroll|jump|navigate|head|flip)(?: back)?(?: up| down)?(?: back)? to (?:the )?|"
    r"\b(?:(?:go|get|going|getting)(?: back)?(?: up| down)?(?: back)? to|^back to) (?:the )?"
    r"(?=(?:very )?"
    r"(?:top|bottom|start|beginning|end|previous (?:page|screen|step|section|tab|slide|menu|"
    r"view|paragraph|chapter|message)|(?:main |home |login |list |detail )?(?:menu|page|"
    r"screen|list|view|tab|dashboard)\b|step \d|line \d|section|chapter|paragraph|"
    r"design doc|tutorial|imports?\b|(?:[\w-]+ )?(?:discussion|conversation|topic|question|"
    r"thread)\b|"
    # a topic raised earlier: "back to the first issue you mentioned", "the auth issue from
    # earlier"
    r"(?:(?:first|second|third|other|last|[\w-]+) )?(?:issue|point|item|problem|bug|question|"
    r"topic|idea)s? (?:from (?:earlier|before|this morning|yesterday)|you (?:mentioned|raised|"
    r"flagged|brought up|suggested|found)|we (?:discussed|talked about|parked)\b)))",
    re.IGNORECASE | re.MULTILINE,
)
# "do it again for the orders table": the same work on something else, not a retry
_AGAIN_FOR = _r(r"\bagain (?=for (?:the|each|every|another|all|our|my)\b)")
# "No," answering the agent's question, at the very start of the prompt
_ANSWER_NO = _r(
    r"^(\s*)(?:no|nope|nah)\b\s*[,.!:;\u2014\u2013-]*\s*(?=(?:that'?s (?:all|it|everything)|"
    r"not (?:yet|that i|really|for now|right now|at the moment|needed|necessary)|go ahead|"
    r"proceed|thanks|thank you|i (?:don'?t|do not|haven'?t|have not|didn'?t|did not) "
    r"(?:have|mind|care|know|think|need|tried|try|want to)|i (?:haven'?t|have not) \w+|"
    r"there (?:is|are) no|there'?s no|"
    r"it'?s (?:just |only )?(?:postgres|mysql|sqlite|python|node|java|go\b|rust|linux|macos|"
    r"windows|version|v?\d)|keep (?:both|them both|going)|(?:either|both|whatever|none)\b|"
    r"you can (?:delete|remove|drop|skip|use|go|leave|ignore)|feel free|i'?ll\b|"
    r"we (?:don'?t|do not) need|just (?:the|one|that) (?:one )?(?:file|one|folder|function|"
    r"change|module)\b|no other|nothing else|none\b|(?:the|that|this) \w+(?: \w+)? (?:is|are) "
    r"(?:fine|ok|okay|good enough|enough|generated)\b|you(?:'re| are| were) right|you nailed|"
    r"that'?s (?:exactly )?(?:it|right|correct)\b|(?:that|it) is (?:exactly )?(?:it|right|"
    r"correct)\b|sounds? (?:good|great|fine|right)|all (?:clear|good)|go for it|i'?m (?:good|"
    r"fine|ok)|i'?ve got it|that answers|carry on|no questions|(?:i'?m )?not in a hurry|"
    r"(?:i'?m )?not sure|it can wait|skip it|not necessary|looks? (?:good|fine|right)|"
    # declining the agent's offer: "that's not necessary", "keep it as is", "just the main
    # branch is enough", "use whatever you think is best"
    r"(?:that'?s |it'?s |that is |it is )not (?:necessary|needed|required)\b|"
    r"(?:keep|leave) (?:it|them|that|this|everything) as (?:is|it is)\b|"
    r"(?:just |only )?(?:the |that |this |one )?[\w-]+(?: [\w-]+)? (?:is|are) (?:enough|"
    r"sufficient|plenty)\b|(?:use |pick |do |go with )?whatever you (?:think|prefer|like|want)))"
)

# ------------------------------------------------------------------ pasted material (lines)

# "bob: still failing", "still failing: test_login": a chat, bot or status log, two lines or more
_LABELLED_LINE = _r(r"^\s*[\w.@#-]{1,24}(?: [\w.@#-]{1,24})?:\s+\S")
# a line introducing pasted material: "Here's the ticket from support:", "the email says:"
_MATERIAL_INTRO = _r(
    r"\b(?:ticket|e-?mails?|messages? (?:from|i got)|review(?:er)? (?:feedback|comments?)|"
    r"feedback|comments?|customers?|slack|chat|thread|transcript|quote|faq|commit message|"
    r"(?:pr|issue) (?:description|title)|says|said|reads|wrote|writes|tweet|post|complaints?|"
    r"sentiment|on-call|support|release notes|changelog|wiki|translat\w*|summari[sz]e|"
    r"rephrase|reword|rewrite|simplify|pasting|proofread|paraphrase|classify|(?:text|string|wording|label|output|"
    r"assignment|style guide) (?:is|was|says|reads))\b[^:\n]{0,80}:[ \t]*(?=\S|$)"
)
# a question about material that follows: "Can you triage this ticket?"
_MATERIAL_QUESTION = _r(
    r"\b(?:this|these|the following|below)\s+(?:\w+\s+)?(?:tickets?|e-?mails?|messages?|"
    r"reviews?|comments?|feedback|complaints?|threads?|transcripts?|logs?|reports?|posts?|"
    r"tweets?|diffs?|patch)\b[^?\n]*\?\s*$"
)
_EMAIL_HEADER = _r(r"^\s*(?:subject|from|to|cc|bcc|date|reply-to|sent)\s*:")
# one "Reviewer: ..." line: someone else's words
_ROLE_LINE = _r(
    r"^\s*(?:reviewer|customer|client|user|manager|qa|support|bot|ci|alert|comment|review|"
    r"ticket|subject|feedback|complaint|[a-z]+-bot|on-call)\s*(?:#?\d+)?\s*:\s"
)
# a diff line or a code comment: "- # don't use the cache", "// NO! ..."
_COMMENT_LINE = _r(r"^\s*(?:[+-]\s*)?(?:#+|//|--|/\*|\*)\s+\S|^\s*[+-]\s+\S")

_INTRO_HINTS = (
    "ticket",
    "mail",
    "message",
    "feedback",
    "comment",
    "customer",
    "slack",
    "chat",
    "thread",
    "transcript",
    "quote",
    "faq",
    "review",
    "title",
    "description",
    "say",
    "said",
    "read",
    "wrote",
    "write",
    "tweet",
    "post",
    "complain",
    "sentiment",
    "on-call",
    "support",
    "notes",
    "changelog",
    "wiki",
    "text",
    "string",
    "wording",
    "label",
    "output",
    "assignment",
    "style guide",
    "transl",
    "summar",
    "phrase",
    "reword",
    "proofread",
    "classif",
    "log",
    "report",
    "diff",
    "patch",
)


def strip_pasted(lines: list[str]) -> list[str]:
    """The lines with pasted material blanked: runs of two or more ``label: text`` lines, diff
    and comment lines, and what follows a line introducing a ticket, e-mail or message (the
    rest of that line and the next paragraph). The line count is kept (blank lines mark
    where a paste was)."""
    out = list(lines)
    _blank_introduced(out)
    _blank_labelled_runs(out)
    for i, line in enumerate(out):
        if (
            line
            and ("#" in line or "/" in line or line.lstrip()[:1] in "+-*")
            and (_COMMENT_LINE.match(line))
        ):
            out[i] = ""
    return out


def _paragraphs(lines: list[str], start: int) -> list[tuple[int, int]]:
    """``(first, end)`` of each run of non-blank lines from ``start`` on."""
    found = []
    i = start
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        first = i
        while i < len(lines) and lines[i].strip():
            i += 1
        found.append((first, i))
    return found


def _blank_material_after(lines: list[str], start: int, keep_single: bool) -> int:
    """Blank the pasted paragraphs from ``start``: all but the last when there are several
    (the last is the user's ask), the only one unless ``keep_single``. Returns where the
    scan goes on."""
    paragraphs = _paragraphs(lines, start)
    if not paragraphs:
        return len(lines)
    pasted = paragraphs[:-1] if len(paragraphs) > 1 else ([] if keep_single else paragraphs)
    for first, end in pasted:
        for k in range(first, end):
            lines[k] = ""
    return paragraphs[-1][0] if len(paragraphs) > 1 else paragraphs[0][1]


def _blank_labelled_runs(lines: list[str]) -> None:
    run: list[int] = []
    for i, line in enumerate([*lines, ""]):
        if ":" in line and _LABELLED_LINE.match(line):
            run.append(i)
            continue
        headers = any(_EMAIL_HEADER.match(lines[j]) for j in run)
        if len(run) >= 2 or (run and _ROLE_LINE.match(lines[run[0]])):
            for j in run:
                lines[j] = ""
        if headers and len(run) >= 2:  # an e-mail: its body goes too
            _blank_material_after(lines, i, keep_single=False)
        run = []


def _blank_introduced(lines: list[str]) -> None:
    i = 0
    while i < len(lines):
        line = lines[i]
        lower = line.lower()
        if (":" not in line and "?" not in line) or not any(h in lower for h in _INTRO_HINTS):
            i += 1
            continue
        match = _MATERIAL_INTRO.search(line) if ":" in line else None
        asked = match is None and _MATERIAL_QUESTION.search(line) is not None
        if match is None and not asked:
            i += 1
            continue
        if match is not None:
            rest = line[match.end() :].strip()
            lines[i] = line[: match.end()]
            if rest:  # the material is on the same line
                i += 1
                continue
        following = _paragraphs(lines, i + 1)
        if not following:
            return
        gap = following[0][0] > i + 1
        single_kept = len(following) == 1 and match is not None and not gap
        i = _blank_material_after(lines, i + 1, keep_single=single_kept)


def neutralize(prose: str) -> str:
    """Prose with benign look-alikes rewritten: praise with a negation to ``fine``, "actually"
    before approval dropped, numbering to ``number``, navigation to ``navigate to``, a leading
    "No," that answers a question to ``ANSWER``, "again for the next thing" to "for ..."."""
    lower = prose.lower()
    if "no" in lower:
        if any(ch.isdigit() for ch in prose):
            prose = _NUMBERING.sub("number ", prose)
        head = prose.lstrip()[:4].lower()
        if head.startswith(("no", "nah")):
            prose = _ANSWER_NO.sub(r"\1ANSWER, ", prose, count=1)
    if "not" in lower or "n't" in lower or "no " in lower or "nothing" in lower:
        prose = _NOT_BAD.sub("fine", prose)
    if "again for" in lower:
        prose = _AGAIN_FOR.sub("", prose)
    if "actually" in lower:
        prose = _ACTUALLY_APPROVAL.sub("", prose)
    if " to" in lower:
        prose = _NAVIGATION.sub("navigate to the ", prose)
    return prose
