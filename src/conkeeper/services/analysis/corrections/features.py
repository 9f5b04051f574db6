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
opening words, and structural cues (opens with a negation or an
imperative, "you" + a past-tense verb, "again"/"still"/"same", an ordinal + "time", "why did
you", a request or a question, praise, a conditional, talk about the detector, how much of the
prompt was pasted).
"""

from __future__ import annotations

import re

from conkeeper.domain.lazy_re import LazyPattern
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
    "pick fix edit update name place store save read check only never just roll go"
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


# informal and non-native spellings read as the word they stand for ("u forgot" = "you forgot")
_SPELLING = {
    "u": "you",
    "ya": "you",
    "ur": "your",
    "pls": "please",
    "plz": "please",
    "dont": "don't",
    "didnt": "didn't",
    "doesnt": "doesn't",
    "isnt": "isn't",
    "wont": "won't",
    "cant": "can't",
    "thx": "thanks",
    "ty": "thanks",
    "im": "i'm",
    "ive": "i've",
    "youre": "you're",
    "shouldve": "should've",
}
_RESPELL = LazyPattern(r"(?<![\w'])(?:" + "|".join(_SPELLING) + r")(?![\w'])")
# a correction in another language is read through the English word it stands for, so the
# weights learned from English prompts apply ("Bitte nicht var verwenden" -> "please not ...";
# "还是报一样的错" -> "still ... same ... error"). A small gloss of the words that carry a
# correction (negation, "instead", undo, "again"/"still"/"same", "you did"), not a translator.
_GLOSS = {
    # German
    "nicht": "not", "nein": "no", "kein": "no", "keine": "no", "falsch": "wrong",
    "falsche": "wrong", "falschen": "wrong", "statt": "instead", "stattdessen": "instead",
    "anstatt": "instead", "rückgängig": "undo", "wieder her": "restore", "zurück": "back",
    "immer noch": "still", "noch immer": "still", "schon wieder": "again", "wieder": "again",
    "derselbe": "same", "dieselbe": "same", "dasselbe": "same", "gleiche": "same",
    "gleichen": "same", "fehler": "error", "du hast": "you have", "sie haben": "you have",
    "bitte": "please", "ich meinte": "i meant", "gelöscht": "deleted", "verwenden": "use",
    "hör auf": "stop",
    # Portuguese
    "não": "no", "nao": "no", "errado": "wrong", "errada": "wrong", "em vez de": "instead of",
    "ao invés de": "instead of", "você": "you", "voce": "you", "vc": "you", "volta": "revert",
    "voltar": "revert", "desfaz": "undo", "reverte": "revert", "apagou": "deleted",
    "de novo": "again", "mesmo": "same", "mesma": "same", "continua": "still", "erro": "error",
    "arquivo": "file", "já tentamos": "already tried",
    # Spanish
    "en lugar de": "instead of", "en vez de": "instead of", "cambiaste": "you changed",
    "borraste": "you deleted", "sigue": "still", "todavía": "still", "otra vez": "again",
    "igual": "same", "mismo": "same", "misma": "same", "fallando": "failing",
    "falla": "fails", "deshaz": "undo", "revierte": "revert",
    # French
    "pas": "not", "au lieu de": "instead of", "tu as": "you have", "vous avez": "you have",
    "encore": "again", "toujours": "still", "même": "same", "mauvais": "wrong",
    "faux": "wrong", "le bon": "the right", "la bonne": "the right", "remets": "restore",
    "annule": "undo", "erreur": "error",
    # Polish
    "nie": "not", "źle": "wrong", "zle": "wrong", "zamiast": "instead", "cofnij": "revert",
    "przywróć": "restore", "znowu": "again", "ponownie": "again", "nadal": "still",
    "dalej": "still", "to samo": "same", "błąd": "error", "użyj": "use",
    "prosiłem": "i asked", "prosiłam": "i asked", "tylko": "only",
    # Chinese
    "不要": " don't ", "不是": " not ", "别": " don't ", "错": " wrong ", "改回": " revert ",
    "恢复": " restore ", "撤销": " undo ", "还是": " still ", "又": " again ", "一样": " same ",
    "而不是": " instead ", "我说了": " i said ", "没用": " useless ", "只": " only ",
    # Japanese
    "違う": " wrong ", "じゃない": " not ", "ではなく": " instead ", "戻して": " revert ",
    "元に戻": " revert ", "また": " again ", "まだ": " still ", "同じ": " same ",
    "代わりに": " instead ", "エラー": " error ",
}  # fmt: skip
_GLOSSED = LazyPattern(
    "|".join(
        re.escape(word) if ord(word[0]) > 0x2E80 else r"(?<!\w)" + re.escape(word) + r"(?!\w)"
        for word in sorted(_GLOSS, key=len, reverse=True)
    )
)
# common English words: a sentence with none of them (or with letters outside ASCII) is glossed
_ENGLISH = _words(
    "the an to it is this that you i we and of for on not don't with be my your was are what "
    "why please just it's"
)


def gloss(text: str, tokens: list[str]) -> str:
    """``text`` with the correction words of another language replaced by English ones; text
    that looks English (ASCII and a common English word) is returned unchanged."""
    if text.isascii() and not _ENGLISH.isdisjoint(tokens):
        return text
    return _GLOSSED.compiled.sub(lambda m: " " + _GLOSS[m.group(0)].strip() + " ", text)


# words that point at something already there: the agent's last output or an earlier state
_DEICTIC = _words("that this it it's that's those these them")
_RESTORE = LazyPattern(
    r"\b(?:revert\w*|undo|undid|restore\w*|put (?:it |that |them )?back|go back|add (?:it |them )?"
    r"back|bring (?:it |them )?back|back to|like (?:it|they) (?:was|were)|as (?:it|they) (?:was|"
    r"were)|the (?:original|previous|old|earlier|first) (?:one|version|\w+)|used to)\b"
)
_CONTRAST = LazyPattern(
    r"\b(?:instead|rather than|rather|not \w+(?: \w+)?[,.;]\s*\w|not (?:the|this|that|a|an) "
    r"\w+(?: \w+)?,|\w+,? not \w+\b(?!\s+(?:to|be|sure|yet|now|working|work|as)\b))"
)
_ALTERNATIVE = LazyPattern(
    r"\b(?:the|that|this) (?:other|right|correct|real|actual|existing|same|proper|one "
    r"(?:in|from|at|on|we|i|that))\b|\bthe \w+ one\b"
)
_SCOPE = LazyPattern(
    r"\b(?:too (?:much|many|big|long|large|broad|far|verbose)|way (?:more|too)|more than "
    r"(?:needed|necessary|i asked)|nothing else|none of|unrelated|out of scope|scope|keep it to|"
    r"only (?:the|touch|change|keep|in)|just the|leave \w+(?: \w+)? alone)\b"
)
_COMPARATIVE_START = _words(
    "smaller bigger larger lower higher slower faster shorter longer less more fewer darker "
    "lighter simpler tighter looser thinner thicker wider narrower too"
)
_CHALLENGE = LazyPattern(
    r"^(?:who (?:asked|told|said)|since when|where did|where'?s? (?:my|the)|what happened|"
    r"how come|what (?:is|are) (?:this|these|that)|why (?:is|are|does|was|were|the|on|would|"
    r"'?d))\b"
)
_CONVENTION = LazyPattern(
    r"\bwe (?:always |never |don't |do not |only |no longer |already )?(?:use|used|removed|"
    r"dropped|switched|moved|prefer|stopped|migrated|deprecated|agreed|decided|have)\b|\bin this "
    r"(?:repo|project|codebase|team|company)\b"
)
_HINDSIGHT = LazyPattern(
    r"\b(?:should(?:'ve| have| not have|n't have)|could(?:'ve| have)|would(?:'ve| have)|"
    r"you'?d have|supposed to|was meant to|were meant to|meant to be)\b"
)
_YOU_DOING = LazyPattern(r"\byou(?:'re| are| keep| still)\s+(?:\w+ly\s+)?\w+ing\b")
_YOU_BASE = LazyPattern(
    r"\byou (?:have|has|did|didn't|did not|don't|not) (?:forget|miss|add|use|change|put|make|"
    r"break|write|remove|delete|do|read|follow|listen|understand|update|run|test|check)\b|"
    r"\byou (?:never|didn't|did not|forgot to|failed to|haven't|have not|still haven't) \w+"
)
_WASTED = LazyPattern(
    r"\b(?:forever|all (?:day|morning|afternoon|night)|the whole (?:day|morning|afternoon|"
    r"evening|week)|hours? (?:on|now|of)|minutes ago|by now|round and round|in circles|"
    r"can't believe|unbelievable|ridiculous|seriously|come on|give up|waste)\b"
)
_NEGATIVE_EMOJI = ("\u274c", "\U0001f643", "\U0001f926", "\U0001f644", "\U0001f624", "\U0001f621")


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


def segment_features(sentences: list[str], pasted: float = 0.0) -> set[str]:
    """The binary features of one segment (``pasted``: the share of the prompt's lines that
    were code, quotes or logs)."""
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
        tokens = [_SPELLING.get(t, t) for t in raw]
        if tokens != raw:  # the patterns below read the respelled words too
            text = _RESPELL.compiled.sub(lambda m: _SPELLING[m.group(0)], text)
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
    if total_tokens <= 12 and _repeats(seen):
        feats.add("m:repeated")
    if pasted >= 0.5:
        feats.add("s:mostly-pasted")
    elif pasted > 0:
        feats.add("s:some-pasted")
    return feats


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
    _context_features(text, tokens, feats)
    _reference_features(text, tokens, opening, feats)


def _reference_features(text: str, tokens: list[str], opening: list[str], feats: set[str]) -> None:
    """Cues of meaning rather than wording: the sentence points back at what the agent just
    did or said (deictic "that"/"this", "you" + an action, a hindsight "should have"), asks for
    an earlier state back, sets one thing against another ("X, not Y", "instead"), names the
    right alternative ("the other one", "the existing helper"), narrows the scope, states a
    team convention, challenges ("who asked for ...", "since when ..."), or complains about
    time lost. Each is a pattern over many phrasings, so an author who words a correction
    without a negation word still shares them."""
    if opening[0] in _DEICTIC:
        feats.add("m:deictic-start")
    if "you" in tokens or "your" in tokens:
        feats.add("m:you")
        if _YOU_DOING.search(text):
            feats.add("m:you-doing")
        if _YOU_BASE.search(text):
            feats.add("m:you-past")
    if _RESTORE.search(text):
        feats.add("m:restore")
    if _CONTRAST.search(text):
        feats.add("m:contrast")
    if _ALTERNATIVE.search(text):
        feats.add("m:alternative")
    if _SCOPE.search(text):
        feats.add("m:scope")
    if opening[0] in _COMPARATIVE_START:
        feats.add("m:comparative-start")
    if _CHALLENGE.search(" ".join(opening)):
        feats.add("m:challenge")
    if ("we" in tokens or "this" in tokens) and _CONVENTION.search(text):
        feats.add("m:convention")
    if _HINDSIGHT.search(text):
        feats.add("m:hindsight")
    if _WASTED.search(text):
        feats.add("m:wasted")
    if any(mark in text for mark in _NEGATIVE_EMOJI):
        feats.add("m:negative-emoji")


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
