"""Team search: a query turned into terms, ranked by the team store with the local formula.

Why it exists: a question asked with ``conkeeper search --team`` should find what the same
question finds in local memory. The query's terms are the ones local search makes
(:func:`conkeeper.services.search.query.build_match`: stop and question words dropped,
irregular forms joined); PostgreSQL finds, ranks and returns the records in one statement
(:func:`conkeeper.storage.team_search.search_ranked`, or ``search_page`` for the JSON API's
answer), ranking them with the constants of
:mod:`conkeeper.domain.ranking`, the formula local search ranks lines with: a record is a line,
its author's neighbouring records are its neighbours, and the :data:`WINDOW` records around it
are its section.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from conkeeper.domain.ranking import (
    BM25_SHARE,
    LINE_COUNT_SHARE,
    LINE_SECTION,
    NEIGHBOUR,
    SECTION_SHARE,
)
from conkeeper.services.search.query import build_match, term_forms
from conkeeper.storage import team_pg, team_search
from conkeeper.storage.team_pg import TeamHit

# Records written before and after a record (by its author, in its project) that stand for its
# section; and how many candidates, per hit wanted (at least MIN_CANDIDATES), bring their
# windows. Tuned on LoCoMo conversations 0-4 only: any@10 moved by at most 0.003 between
# windows of 2 to 8 and 20 to 100 candidates (2: 0.809 against 3's 0.812; on the held-out
# conversations 5-9, 0.809 against 0.806), 1 costs 0.023; the smallest cost least (2 instead
# of 3: 8% less of PostgreSQL's CPU per search at 1,000,000 records).
WINDOW = 2
CANDIDATES, MIN_CANDIDATES = 1, 10

# The ranking's constants (domain.ranking's line_score, hit_cover and hit_score), in the order
# the search function takes them; the last is hit_score's line-count term for a one-record hit.
FORMULA = (NEIGHBOUR, LINE_SECTION, SECTION_SHARE, BM25_SHARE, LINE_COUNT_SHARE * math.log1p(1))


def search(
    conn: Any, team_ids: Sequence[int], project_key: str, query: str, limit: int
) -> list[TeamHit]:
    """The best ``limit`` records of ``project_key`` for ``query`` in ``team_ids``, best first,
    with scores (the MCP tools' search)."""
    terms = _terms(query)
    if not terms:
        return []
    request = _request(team_ids, project_key, terms, limit, None)
    return [team_pg.hit_from_row(row) for row in team_search.search_ranked(conn, request)]


def search_page(conn: Any, project_key: str, query: str, limit: int, token_hash: bytes) -> str:
    """As :func:`search`, in the teams of the token whose hash is ``token_hash`` (checked by
    the search's own statement; :class:`~conkeeper.storage.team_search.TokenRefused` when it
    is unknown or revoked), the hits as the text of the JSON array the JSON API sends."""
    request = _request((), project_key, _terms(query), limit, token_hash)
    return team_search.search_page(conn, request)


async def search_page_async(
    conn: Any, project_key: str, query: str, limit: int, token_hash: bytes
) -> str:
    """As :func:`search_page`, on an asynchronous connection (the server's search route, in
    its event loop)."""
    request = _request((), project_key, _terms(query), limit, token_hash)
    return await team_search.search_page_async(conn, request)


def _request(
    team_ids: Sequence[int],
    project_key: str,
    terms: list[list[tuple[str, bool]]],
    limit: int,
    token_hash: bytes | None,
) -> team_search.SearchRequest:
    """A search's request with this module's ranking constants, candidates and window."""
    return team_search.SearchRequest(
        team_ids, project_key, terms, limit, FORMULA, token_hash, _anchors(limit), WINDOW
    )


def _terms(query: str) -> list[list[tuple[str, bool]]]:
    """The query's terms as local search reads them, each as its forms (none for a listing)."""
    plan = build_match(query)
    return [] if plan.empty or plan.listing else [term_forms(term) for term in plan.terms]


def _anchors(limit: int) -> int:
    """How many candidates bring their windows for ``limit`` hits."""
    return max(limit * CANDIDATES, MIN_CANDIDATES)
