"""A session's prompts cut out of the records a project shares without its prompts.

Why it exists: prompts are not shared unless the project sets ``team_share_prompts: true``, yet
the records that are shared quote them: a session summary's request is its first prompt, and
the local extractor's observations say ``While working on "<prompt>"`` or ``Request: <prompt>``.
Before such a record leaves the machine, every run of words it copied from one of its session's
prompts is replaced by :data:`CUT`, so the work is shared and what the person typed is not.

A run is copied when it holds :data:`RUN_WORDS` consecutive words of a prompt, in order (case
and punctuation aside); a prompt shorter than that is cut where it appears whole (one word
alone is not cut: "continue" or "yes" says nothing, and would take every such word with it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

CUT = "[prompt not shared]"
RUN_WORDS = 4
_WORD = re.compile(r"\w+")


class PromptCutter:
    """Cuts the words copied from a set of prompts out of a text."""

    def __init__(self, prompts: Iterable[str]) -> None:
        self._runs: dict[int, set[tuple[str, ...]]] = {}
        for prompt in prompts:
            words = [w.casefold() for w in _WORD.findall(prompt)]
            size = min(RUN_WORDS, len(words))
            if size < 2:
                continue
            runs = self._runs.setdefault(size, set())
            runs.update(tuple(words[i : i + size]) for i in range(len(words) - size + 1))

    def __bool__(self) -> bool:
        return bool(self._runs)

    def cut(self, text: str) -> str:
        """``text`` with every copied run of words replaced by :data:`CUT` (adjacent or
        overlapping runs become one cut)."""
        if not self._runs or not text:
            return text
        spans = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        words = [text[a:b].casefold() for a, b in spans]
        covered = [False] * len(words)
        for size, runs in self._runs.items():
            for i in range(len(words) - size + 1):
                if tuple(words[i : i + size]) in runs:
                    covered[i : i + size] = [True] * size
        return _replace_covered(text, spans, covered)


def _replace_covered(text: str, spans: list[tuple[int, int]], covered: list[bool]) -> str:
    """``text`` with each maximal stretch of covered words (and what lies between them)
    replaced by one :data:`CUT`."""
    out, last, i = [], 0, 0
    while i < len(spans):
        if not covered[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(spans) and covered[j + 1]:
            j += 1
        out += [text[last : spans[i][0]], CUT]
        last = spans[j][1]
        i = j + 1
    out.append(text[last:])
    return "".join(out)
