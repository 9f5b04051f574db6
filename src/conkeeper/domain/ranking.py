"""The search ranking formula, shared by the local search and the team server's search.

Why it exists: a question asked of the local memory (``conkeeper search``) and of the team
store (``conkeeper search --team``) should find the same answer. Both rank the same way: a term
weighs its BM25 idf (rare words count more); a matching line (a line of a session file, or one
team record) scores the idf-weighted share of the query it holds (its *own* cover), plus a share
of its best neighbour's cover (an answer follows its question) and of the cover of the section
around it (the session that covers the question); a hit adds small shares of its BM25 score
(relative to the best hit's) and of how many of its lines match. The constants were tuned on
LoCoMo conversations 0-4 only. Pure arithmetic (``math`` only): the search read path imports it.
"""

from __future__ import annotations

import math

# A matching line next to a line that holds the query gains this share of that line's cover
# (an answer follows its question; a bullet sits by its siblings).
NEIGHBOUR = 0.6
# A section holding more of the query's distinct terms (across all its lines) is likelier the
# place that answers it than one line matching a single rare word: its share of the query lifts
# each of its lines by LINE_SECTION and the hit's rank by SECTION_SHARE (session-level evidence).
SECTION_SHARE = 0.3
LINE_SECTION = 0.4
# Hits are ordered by cover plus this share of their BM25 score (relative to the best hit's):
# term frequency and field weights are evidence the line cover does not see.
BM25_SHARE = 0.1
# ... plus this share of log(1 + the hit's matching lines): a section where many lines hold the
# query's words is more about it than one where a single line does (log-damped).
LINE_COUNT_SHARE = 0.05


def idf(found: int, total: int) -> float:
    """BM25's idf of a term held by ``found`` of ``total`` units (sections, lines, records)."""
    return math.log(1.0 + (total - found + 0.5) / (found + 0.5))


def line_score(own: float, neighbour: float, whole: float) -> float:
    """A matching line's score: its ``own`` share of the query, plus :data:`NEIGHBOUR` of its
    best neighbour's share and :data:`LINE_SECTION` of its section's share (``whole``)."""
    return own + NEIGHBOUR * neighbour + LINE_SECTION * whole


def hit_cover(best_line: float, whole: float) -> float:
    """A hit's cover: its best line's score plus :data:`SECTION_SHARE` of its section's share."""
    return best_line + SECTION_SHARE * whole


def hit_score(cover: float, score: float, top_score: float, matches: int) -> float:
    """How high a hit is listed: its ``cover``, plus :data:`BM25_SHARE` of its BM25 ``score``
    relative to the best hit's ``top_score`` (> 0), plus :data:`LINE_COUNT_SHARE` of
    ``log(1 + matches)`` (its matching lines)."""
    return cover + BM25_SHARE * max(0.0, score) / top_score + LINE_COUNT_SHARE * math.log1p(matches)
