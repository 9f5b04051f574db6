"""Team search ranking: the team store's candidates ranked with the local search's formula.

Why it exists: a question asked with ``conkeeper search --team`` should find what the same
question finds in local memory. PostgreSQL finds the candidates by the query's own terms (the
terms :func:`conkeeper.services.search.query.build_match` makes: stop and question words dropped,
irregular forms joined), each with the terms it holds and the records its author wrote just
before and after it (:func:`conkeeper.storage.team_search.search_candidates`); this module ranks
them with :mod:`conkeeper.domain.ranking`, the formula the local search ranks lines with: a
record is a line, its author's neighbouring records are its neighbours, and the
:data:`WINDOW` records around it are its section.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from conkeeper.domain.ranking import (
    BM25_SHARE,
    LINE_COUNT_SHARE,
    LINE_SECTION,
    NEIGHBOUR,
    SECTION_SHARE,
    hit_cover,
    hit_score,
    idf,
    line_score,
)
from conkeeper.services.search.query import build_match, term_forms
from conkeeper.storage import team_pg, team_search
from conkeeper.storage.team_pg import TeamHit
from conkeeper.storage.team_search import Candidate, Candidates

# Records written before and after a record (by its author, in its project) that stand for its
# section; and how many candidates, per hit wanted (at least MIN_CANDIDATES), bring their
# windows. Tuned on LoCoMo conversations 0-4 only: any@10 moved by at most 0.003 between
# windows of 3 to 8 and 20 to 100 candidates; the smallest cost least.
WINDOW = 3
CANDIDATES, MIN_CANDIDATES = 2, 20

# The ranking's constants, in the order the search function takes them (the last one is the
# line-count term of a one-record hit, a constant).
FORMULA = (NEIGHBOUR, LINE_SECTION, SECTION_SHARE, BM25_SHARE, LINE_COUNT_SHARE * math.log1p(1))

Key = tuple[int, str]  # (team_id, uid)


def search(
    conn: Any,
    team_ids: Sequence[int],
    project_key: str,
    query: str,
    limit: int,
    token_hash: bytes | None = None,
) -> list[TeamHit]:
    """The best ``limit`` records of ``project_key`` for ``query``, best first, with scores:
    in ``team_ids``, or in the teams of the token whose hash is ``token_hash`` (checked by the
    search's own statement; :class:`~conkeeper.storage.team_search.TokenRefused` when it is
    unknown or revoked)."""
    plan = build_match(query)
    terms = [] if plan.empty or plan.listing else [term_forms(term) for term in plan.terms]
    if not terms and token_hash is None:
        return []
    anchors = max(limit * CANDIDATES, MIN_CANDIDATES)
    rows = team_search.search_ranked(
        conn, team_ids, project_key, terms, limit, FORMULA,
        token_hash=token_hash, anchors=anchors, window=WINDOW,
    )  # fmt: skip
    return [team_pg.hit_from_row(row) for row in rows]


def rank_candidates(found: Candidates, limit: int) -> list[tuple[Key, float]]:
    """The best ``limit`` candidates holding a term, as ``(key, score)``, best first (newer
    first on a tie): :func:`conkeeper.domain.ranking.line_score` over the idf-weighted share of
    the query each holds, its neighbours' and its window's, then
    :func:`~conkeeper.domain.ranking.hit_score` with its ``ts_rank`` as the BM25 share."""
    if len(found.found) < 2:
        weights = [1.0 for _ in found.found]
    else:
        weights = [idf(n, found.total) if n >= 0 else 0.0 for n in found.found]
    share = _Share(weights)
    rows = {(r.team_id, r.uid): r for r in found.rows}
    before, after = _links(found.rows)
    own = {key: share(r.held) for key, r in rows.items()}
    top = max([r.rank for r in rows.values() if r.rank > 0] or [1.0])
    scored = []
    for key, row in rows.items():
        if own[key] <= 0:
            continue  # only records holding a term are results (as only matching lines are)
        near = [_walk(key, before, WINDOW), _walk(key, after, WINDOW)]
        neighbour = max([own[side[0]] for side in near if side] or [0.0])
        held = row.held
        for k in (*near[0], *near[1]):
            held |= rows[k].held
        whole = share(held)
        cover = hit_cover(line_score(own[key], neighbour, whole), whole)
        scored.append((hit_score(cover, row.rank, top, 1), row.created_at, key))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [(key, score) for score, _created, key in scored[:limit]]


class _Share:
    """The idf-weighted share of the query a bit mask of held terms stands for (memoised:
    the same few masks recur)."""

    def __init__(self, weights: Sequence[float]) -> None:
        self.weights = weights
        self.total = sum(weights) or 1.0
        self.known: dict[int, float] = {}

    def __call__(self, held: int) -> float:
        if held not in self.known:
            got = sum(w for k, w in enumerate(self.weights) if held >> k & 1)
            self.known[held] = got / self.total
        return self.known[held]


def _links(rows: Sequence[Candidate]) -> tuple[dict[Key, Key], dict[Key, Key]]:
    """Each record's previous and next record by its author, as far as the windows show."""
    windows: dict[tuple[int, str], list[Candidate]] = {}
    for r in rows:
        windows.setdefault((r.team_id, r.anchor), []).append(r)
    before: dict[Key, Key] = {}
    after: dict[Key, Key] = {}
    for run in windows.values():
        run.sort(key=lambda r: r.offset)
        for a, b in itertools.pairwise(run):
            if b.offset == a.offset + 1:
                after[(a.team_id, a.uid)] = (b.team_id, b.uid)
                before[(b.team_id, b.uid)] = (a.team_id, a.uid)
    return before, after


def _walk(key: Key, links: dict[Key, Key], steps: int) -> list[Key]:
    """Up to ``steps`` records from ``key`` following ``links``, nearest first."""
    out: list[Key] = []
    while len(out) < steps and key in links:
        key = links[key]
        out.append(key)
    return out
