"""Content words and themes: how the analysis core decides two texts are about the same thing.

Corrections on one convention are rarely string-equal ("stop using print for logging", "no
print() calls, use the logger"). Texts are reduced to content words (lower case, stop words
dropped, a light suffix stemmer so "logger" and "logging" meet) and clustered by shared words.
Stdlib only, deterministic, fast enough for a few hundred texts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

_WORD = re.compile(r"[a-z][a-z0-9_]+")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOP = _word_set(
    """
    a about above after again against all also always am an and any are as at be because been
    before being below between both but by can could did didn do does doing don done down
    during each else even ever every few for from further get gets getting got had has have
    having he her here hers him his how i if in into is isn it its itself just keep kept let
    like ll make me more most much must my myself need needs never no nope nor not now of off
    ok okay on once one only or other our ours out over own please re really right same say
    said see she should so some still stop such than that the their theirs them then there
    these they this those thing things through time times to too try under until up use used
    uses using ve very want was wasn way we were what when where which while who why will with
    won would yes yet you your yours again told tell telling already instead rather actually
    wrong correct incorrect fix fixed work works worked working broke broken failing failed
    fails fail error errors back put take change changed changes edit edited file files code
    thing new old last first
    """
)


def stem(word: str) -> str:
    """A crude, stable stem: common suffixes stripped (``logging``, ``logger`` → ``logg``)."""
    for suffix in ("ations", "ation", "ings", "ing", "ers", "er", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> frozenset[str]:
    """The stemmed content words of ``text``."""
    return frozenset(stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP)


def similar(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two word sets share a theme: two words in common, or one when both are short."""
    shared = len(a & b)
    if shared >= 2:
        return True
    return shared == 1 and min(len(a), len(b)) <= 2


def cluster(
    texts: Sequence[str], apart: Callable[[int, int], bool] | None = None
) -> list[list[int]]:
    """Indexes of ``texts`` grouped into themes (single link over :func:`similar`), largest
    group first; every text is in exactly one group. ``apart(i, j)`` names two texts that
    may never share a theme (rules that disagree: "use v1, not v2" and "use v2, not v3"
    share words, and a chain through them would make one theme of both)."""
    words = [content_words(t) for t in texts]
    parent = list(range(len(texts)))
    members = {i: [i] for i in range(len(texts))}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            a, b = root(i), root(j)
            if a == b or not similar(words[i], words[j]):
                continue
            if apart and any(apart(x, y) for x in members[a] for y in members[b]):
                continue
            parent[b] = a
            members[a].extend(members.pop(b))
    return sorted((sorted(g) for g in members.values()), key=lambda g: (-len(g), g[0]))


def theme_label(texts: Iterable[str], limit: int = 3) -> str:
    """A short name for a theme: its most shared original content words."""
    counts: Counter[str] = Counter()
    first_form: dict[str, str] = {}
    for text in texts:
        seen: set[str] = set()
        for word in _WORD.findall(text.lower()):
            if word in _STOP:
                continue
            key = stem(word)
            first_form.setdefault(key, word)
            if key not in seen:
                seen.add(key)
                counts[key] += 1
    return " ".join(first_form[k] for k, _ in counts.most_common(limit))
