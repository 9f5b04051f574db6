"""Features of a prompt for the learned correction scorer (F7): words, typos and structure.

The rules in :mod:`.rules` catch the phrasings someone wrote a pattern for; the learned scorer
in :mod:`.model` generalises to the ones nobody did. Both the offline trainer
(``tools/train_corrections_model.py``) and the hook use this one module, so the features a
model was trained on are exactly the ones it is scored on.

A prompt is read as the detector reads it (:func:`.detection.strip_noise` has already removed
code, quotes and pasted logs) and cut into *segments*: a short prompt is one segment; a long
one, or one split by a paste, gives its head (first sentences) and its tail (last sentences)
apart, so a complaint
written after a long paste is scored on its own and the pasted middle is never scored.

Each segment yields a set of binary features: lower-cased word unigrams and bigrams, the
opening words, and structural cues (opens with a negation or an imperative, "you" + a
past-tense verb, "again"/"still"/"same", an ordinal + "time", "why did you", a request or a
question, praise, a conditional, talk about the detector, how much of the prompt was pasted,
the item numbers of a numbered task list), and the cues of meaning of :mod:`.cues` (a
reference to the agent's last move, an earlier state asked back, a contrast, the right
alternative, scope, a convention, a challenge, hindsight, a named flaw, time lost, a redirect
or a new task; an act and a fix in one segment). Informal spellings ("u", "pls") and the
correction words of other languages are read as English first.
"""

from __future__ import annotations

from conkeeper.domain.lazy_re import LazyPattern
from conkeeper.services.analysis.corrections.cues import SPELLING, gloss, meaning_cues
from conkeeper.services.analysis.corrections.rules import CONTINUITY, NEW_WORK, SELF_BLAME

HEAD_SENTENCES = 3
TAIL_SENTENCES = 2
MAX_SEGMENT_CHARS = 600

_PASTE_GAP = LazyPattern(r"\n(?:[ \t]*\n){3,}")
_TOKEN = LazyPattern(r"[a-z0-9]+(?:'[a-z]+)?")


def _words(text: str) -> frozenset[str]:
    """A set of words from a space-separated list (easier to read than a list literal)."""
    return frozenset(text.split())


_FILLER = _words(
    "ok okay hmm um uh well so and but ugh sorry please hey oh look listen claude wait "
    "yeah yes right see"
)
_NEGATION_START = _words(
    "no nope nah nono wrong incorrect not never stop don't dont undo revert nothing"
)
_IMPERATIVE = _words(
    "use do don't dont try put make change rename move keep leave remove delete add call "
    "set write revert undo stop switch replace return pass import apply create run drop "
    "pick fix edit update name place store save read check only never just roll go rewrite "
    "restore recover redo split merge swap cut squash guard escape filter pin describe follow "
    "inline extract wrap free borrow query cache inject parametrize"
)
_PERSISTENT = _words("again still same keep keeps kept anymore repeatedly yet")
_PRAISE = _words("thanks thank great perfect nice awesome excellent lovely brilliant cool works")
_META = _words(
    "detector corpus regex regexes sensitivity flagged flag positives negatives positive "
    "negative classifier"
)
_REQUEST_START = (
    "can you",
    "could you",
    "would you",
    "please add",
    "please implement",
    "please write",
    "please create",
    "let's add",
    "let's implement",
    "i'd like",
    "i want",
    "i need",
    "we need",
    "how do",
    "how does",
    "what does",
    "what is",
    "is there",
)
_YOU_PAST = LazyPattern(
    r"\byou(?:'ve| have| just| already| also)*\s+(?:\w+ly\s+)?(?:\w+ed|broke|did|made|put|"
    r"left|took|wrote|forgot|undid|ran|threw|got|lost|brought|reintroduced|broken|done|"
    r"written|forgotten|taken|missed|ignored|overwrote|overwritten|dropped|deleted)\b"
)
_ORDINAL_TIME = LazyPattern(
    r"\b(?:second|third|fourth|fifth|sixth|\d+(?:st|nd|rd|th)|umpteenth|nth|n-th|hundredth)\s+"
    r"time\b|\b(?:two|three|four|five|six|several|many|\d+)\s+times\b"
)
_WHY_YOU = LazyPattern(
    r"\bwhy(?:'d| (?:did|do|would|are|is|does|on earth|the hell|have|has))? (?:you|it|this)\b"
)
_TOLD = LazyPattern(
    r"\b(?:i (?:told|said|asked|already|just said|mentioned|explained)|as i said|like i said|"
    r"how many times)\b"
)
_BLAME = LazyPattern(r"\b(?:before|after|since) (?:you|your)\b|\byour (?:change|edit|fix|commit)")
# the first words :data:`.rules.NEW_WORK` can start with (skips compiling it for most text)
_NEW_WORK_START = _words(
    "ok okay so now then also and great thanks can could would will please let's let i i'd we time "
    "go write add create implement build make set draft design generate introduce scaffold wire "
    "extend port document cover support start sketch next new todo task for"
)
_CONDITIONAL_START = _words("if when once whenever unless assuming after")
_TELLING = _words("mention say tell note explain ask add include")
_TOLD_HINTS = _words("told said asked already mentioned explained many")


_RESPELL = LazyPattern(r"(?<![\w'])(?:" + "|".join(SPELLING) + r")(?![\w'])")


def normalise(text: str) -> str:
    """Lower-case text with typographic quotes made plain, as the features expect."""
    return text.replace("\u2019", "'").replace("\u2018", "'").lower()


def segments(parts: list[str]) -> list[list[str]]:
    """The sentence groups a prompt is scored on: all of a short prompt, or the head and the
    tail of a long one apart (never its middle)."""
    if len(parts) <= HEAD_SENTENCES + TAIL_SENTENCES:
        return [parts] if parts else []
    return [parts[:HEAD_SENTENCES], parts[-TAIL_SENTENCES:]]


def _opening(tokens: list[str]) -> list[str]:
    """The words of a sentence after leading fillers ("ok, so, no ..." -> "no ...")."""
    i = 0
    while i < len(tokens) - 1 and tokens[i] in _FILLER:
        i += 1
    return tokens[i:]


def segment_features(
    sentences: list[str], pasted: float = 0.0, after_paste: bool = False
) -> set[str]:
    """The binary features of one segment (``pasted``: the share of the prompt's lines that
    were code, quotes or logs; ``after_paste``: the segment is the prose written after the
    last pasted block, read alone: its own words, not the share of the prompt pasted above
    it, say whether it complains; round 21)."""
    feats: set[str] = set()
    total_tokens = 0
    seen: list[str] = []
    for sentence in sentences:
        text = normalise(sentence)[:MAX_SEGMENT_CHARS]
        raw = _TOKEN.compiled.findall(text)
        glossed = gloss(text, raw)
        if glossed is not text:
            text = glossed
            raw = _TOKEN.compiled.findall(text)
        if not raw:
            continue
        if len(raw) == 1 and raw[0].isdigit() and text.rstrip()[-1:] in (".", ")"):
            feats.add("s:numbered")  # "1." alone: an item of a numbered task list
            continue
        tokens = [SPELLING.get(t, t) for t in raw]
        if tokens != raw:  # the patterns below read the respelled words too
            text = _RESPELL.compiled.sub(lambda m: SPELLING[m.group(0)], text)
        total_tokens += len(tokens)
        seen.extend(tokens)
        _word_features(tokens, feats)
        _structure_features(text, tokens, feats)
    if total_tokens <= 4:
        feats.add("s:tiny")
    elif total_tokens <= 12:
        feats.add("s:short")
    elif total_tokens > 40:
        feats.add("s:long")
    _conjunctions(feats)
    if total_tokens <= 12 and _repeats(seen):
        feats.add("m:repeated")
    if after_paste:
        feats.add("s:after-paste")
    elif pasted >= 0.5:
        feats.add("s:mostly-pasted")
    elif pasted > 0:
        feats.add("s:some-pasted")
    return feats


_AGENT_ACTS = ("s:you-past", "m:you-past", "m:you-doing", "m:flaw", "m:hindsight")
_FIXES = ("s:imperative-start", "m:imperative-clause")


def _conjunctions(feats: set[str]) -> None:
    """A segment that says what the agent did (or what is wrong with it) AND what to do
    instead is a correction's whole shape; either half alone is common in a new request."""
    acted = [name for name in _AGENT_ACTS if name in feats]
    if acted and any(name in feats for name in _FIXES):
        feats.add("x:act-then-fix")


def _repeats(tokens: list[str]) -> bool:
    """Whether a word of four or more letters comes back ("still. still.", "great. just
    great."): in a short prompt, exasperation or sarcasm."""
    long = [t for t in tokens if len(t) >= 4]
    return len(set(long)) < len(long)


def _word_features(tokens: list[str], feats: set[str]) -> None:
    """Unigrams, bigrams and the opening words (character n-grams were tried for typos and
    lowered cross-validated recall, so they are left out)."""
    opening = _opening(tokens)
    feats.add("f:" + opening[0])
    if len(opening) > 1:
        feats.add("f2:" + opening[0] + "_" + opening[1])
    previous = "<s>"
    for token in tokens:
        feats.add("w:" + token)
        feats.add("b:" + previous + "_" + token)
        previous = token


def _structure_features(text: str, tokens: list[str], feats: set[str]) -> None:
    """Cues that hold whatever the words: negation, blame, repetition, requests, praise."""
    opening = _opening(tokens)
    first = opening[0]
    if first in _NEGATION_START or text.startswith("do not"):
        feats.add("s:neg-start")
    if first in _IMPERATIVE:
        feats.add("s:imperative-start")
    if any(t in _PERSISTENT for t in tokens):
        feats.add("s:persistent")
    if any(t in _PRAISE for t in tokens):
        feats.add("s:praise")
    if any(t in _META for t in tokens):
        feats.add("s:meta")
    if "you" in tokens and _YOU_PAST.search(text):
        feats.add("s:you-past")
    if "time" in text and _ORDINAL_TIME.search(text):
        feats.add("s:ordinal-time")
    if "why" in text and _WHY_YOU.search(text):
        feats.add("s:why-you")
    if not _TOLD_HINTS.isdisjoint(tokens) and _TOLD.search(text):
        feats.add("s:told")
    if ("before" in tokens or "after" in tokens or "since" in tokens or "your" in tokens) and (
        _BLAME.search(text)
    ):
        feats.add("s:blame")
    start = " ".join(opening[:3])
    if start.startswith(_REQUEST_START):
        feats.add("s:request")
    if first in _CONDITIONAL_START or start.startswith("in case"):
        feats.add("s:conditional")
    if text.rstrip().endswith("?"):
        feats.add("s:question")
    if "quoted" in tokens or "code" in tokens:
        feats.add("s:has-quote")
    if "!" in text:
        feats.add("s:bang")
    if "," in text and any(_first_word(clause) in _IMPERATIVE for clause in text.split(",")[1:]):
        feats.add("m:imperative-clause")
    _context_features(text, tokens, feats)
    feats.update(meaning_cues(text, tokens, opening))


def _first_word(clause: str) -> str:
    """The first word of a clause ("" when it has none)."""
    words = clause.split(None, 1)
    return words[0].strip(".;:!?") if words else ""


def _context_features(text: str, tokens: list[str], feats: set[str]) -> None:
    """Cues that a sentence is not about the agent's mistake: work continuing ("still on the
    same ticket"), the user's own slip ("my bad, I gave you the wrong path"), a request for new
    work ("write a test for ..."); patterns shared with the rules (:mod:`.rules`)."""
    if ("still" in tokens or "same" in tokens) and CONTINUITY.search(text):
        feats.add("s:continuity")
    if ("my" in tokens or "i" in tokens) and SELF_BLAME.search(text):
        feats.add("s:self-blame")
    elif tokens[:2] == ["forgot", "to"] and len(tokens) > 2 and tokens[2] in _TELLING:
        feats.add("s:self-blame")  # "forgot to mention: ...": the user's own omission
    if tokens[0] in _NEW_WORK_START and NEW_WORK.search(text):
        feats.add("s:new-work")


def prose_segments(prose: str) -> list[list[str]]:
    """The scored segments of cleaned prose. Where a paste (three or more removed lines) splits
    the prose into blocks, the head is the first block's opening sentences and the tail the
    last block's closing ones, so the line written after a long log is scored on its own."""
    from conkeeper.services.analysis.corrections.detection import sentences

    blocks = [b for b in _PASTE_GAP.split(prose) if b and b.strip()] if "\n\n\n" in prose else []
    if len(blocks) <= 1:
        return segments(sentences(prose))
    head = sentences(blocks[0])[:HEAD_SENTENCES]
    tail = sentences(blocks[-1])[-TAIL_SENTENCES:]
    return [part for part in (head, tail) if part]


def tail_after_paste(prose: str, parts: list[list[str]]) -> bool:
    """Whether the last of ``parts`` (:func:`prose_segments`) is the prose after a paste: the
    prompt's prose is split into blocks by pasted lines and there is more than one segment."""
    if len(parts) < 2 or "\n\n\n" not in prose:
        return False
    return sum(1 for b in _PASTE_GAP.split(prose) if b and b.strip()) > 1


def segment_bags(parts: list[list[str]], pasted: float, after_paste: bool) -> list[set[str]]:
    """The features of each scored segment; the last one read as the prose after a paste when
    ``after_paste`` (:func:`tail_after_paste`)."""
    last = len(parts) - 1
    return [
        segment_features(part, pasted, after_paste and i == last) for i, part in enumerate(parts)
    ]


def prompt_segments(text: str) -> tuple[list[list[str]], float]:
    """The scored segments of a raw prompt and the share of its lines that were pasted."""
    from conkeeper.services.analysis.corrections.detection import strip_noise

    prose = strip_noise(text or "")
    return prose_segments(prose), pasted_share(text or "", prose)


def pasted_share(text: str, prose: str) -> float:
    """The share of non-blank lines that :func:`strip_noise` removed (code, quotes, logs)."""
    before = sum(1 for line in text.splitlines() if line.strip())
    if before == 0:
        return 0.0
    after = sum(1 for line in prose.splitlines() if line.strip())
    return max(0.0, min(1.0, 1.0 - after / before))
