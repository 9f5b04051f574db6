"""The team store's search statements: how common each query term is, and the candidates to rank.

Why it exists: a team search must answer in milliseconds over a million records, and most of
that time used to go to counting. Counting a common word's records inside a project visits the
heap once per match (thousands), and a ``tsquery`` built inside the statement hides the word
from the planner, which then sorts every match instead of reading the newest through the index.
So this module:

* turns each term into its ``tsquery`` text once per process (a small statement, cached) and
  writes it into the statements that find and count records (:func:`_planned_for_values`: the
  values are bound on the client), so PostgreSQL plans each search for its own words, weighed
  against ``ANALYZE``'s lexeme statistics (a prepared statement's generic plan cannot see how
  common a word is, and reads every match); the statement whose plan does not depend on the
  words (the windows) runs one plan per connection, made once;
* takes a very common term's count from those statistics (``pg_stats.most_common_elems``, read
  once every :data:`COMMON_TTL_S` seconds): its share of the whole table times the project's
  size, when that comes to at least :data:`COUNT_CAP` records. Every other term is counted
  exactly inside the project, up to COUNT_CAP (a rarer term's matches are few, so the count is
  cheap), and one that reaches COUNT_CAP all the same (common in this project only: a speaker's
  name, the project's own jargon) in the project's newest :data:`SAMPLE` records, scaled to
  its size (so a project of up to SAMPLE records has every count exact);
* reads the project's size from ``team_projects.records``, kept by every push;
* first reads the newest records holding *every* term, and scans the rarest terms' records
  only when fewer than the anchors wanted hold them all (the records holding every term are
  the best anchors by construction).

The idf weights used to choose anchors are computed here with the local search's own formula
(:func:`conkeeper.domain.ranking.idf`) and sent as numbers; :mod:`conkeeper.services.team.rank`
ranks the result as the local search ranks lines.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from conkeeper.domain.ranking import idf

if TYPE_CHECKING:
    import psycopg

# A query's candidates are the newest MAX_RANKED records holding its rarest terms (as many of
# them as fit: their counts add up to MAX_RANKED at most; always the rarest one).
MAX_RANKED = 500
# A term the statistics say at least COUNT_CAP of a project's records hold is not counted; a
# rarer one is counted up to COUNT_CAP (a count costs a heap visit per match).
COUNT_CAP = 250
SAMPLE = 1000  # records read to estimate a word common in one project only
COMMON_TTL_S = 300.0  # how long the most-common-lexeme statistics are trusted in a process
_CACHE_LIMIT = 20_000  # term -> tsquery entries kept per process
_LEXEME = re.compile(r"'((?:[^']|'')*)'(:\*)?")


class Candidate(NamedTuple):
    """A record found by a term search, or one written next to one (``anchor``'s window).

    ``offset`` is its place after (> 0) or before (< 0) the anchor among the records its author
    wrote in the project; ``held`` is a bit mask of the query's terms it holds (bit k for the
    k-th term, from 0); ``rank`` is its ``ts_rank`` (title A, subtitle and facts B, narrative C)
    for the query's any-term tsquery.
    """

    team_id: int
    uid: str
    anchor: str
    offset: int
    held: int
    rank: float
    created_at: int


class Candidates(NamedTuple):
    """What the team search ranks: how many records the project holds (``total``), how many
    hold each term (``found``; -1 for a term PostgreSQL cannot search, a stop word to it), and
    the candidates with their windows."""

    total: int
    found: tuple[int, ...]
    rows: list[Candidate]


class TermQuery(NamedTuple):
    """One query term as PostgreSQL searches it: its ``tsquery`` text ('' for a stop word) and,
    when every form is one word, its lexemes with their prefix flags (None for a phrase)."""

    text: str
    lexemes: tuple[tuple[str, bool], ...] | None


class _Cache:
    """Per-process memory of term -> tsquery and of the most common lexemes (thread-safe: the
    server's worker threads share it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.terms: dict[tuple[tuple[str, bool], ...], TermQuery] = {}
        self.common: dict[str, float] = {}
        self.common_at = float("-inf")


_CACHE = _Cache()

_TERM_SQL = """
SELECT k, coalesce(string_agg('(' || q::text || ')', ' | ') FILTER (WHERE numnode(q) > 0), '')
FROM (
    SELECT k, CASE WHEN p AND position(' ' IN f) = 0
                   THEN to_tsquery('english', quote_literal(f) || ':*')
                   ELSE phraseto_tsquery('english', f) END AS q
    FROM unnest(%(k)s::int[], %(f)s::text[], %(p)s::bool[]) AS x(k, f, p)
) forms GROUP BY k
"""

_COMMON_SQL = """
SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats
WHERE schemaname = current_schema() AND tablename = 'team_records' AND attname = 'search'
"""


def term_queries(
    conn: psycopg.Connection[Any], terms: Sequence[Sequence[tuple[str, bool]]]
) -> list[TermQuery]:
    """Each term's :class:`TermQuery` (the OR of its forms), from the cache or PostgreSQL."""
    keys = [tuple(forms) for forms in terms]
    with _CACHE.lock:
        missing = [key for key in dict.fromkeys(keys) if key not in _CACHE.terms]
    if missing:
        flat = [(i, form, prefix) for i, forms in enumerate(missing) for form, prefix in forms]
        rows = conn.execute(
            _TERM_SQL,
            {"k": [i for i, _f, _p in flat], "f": [f for _i, f, _p in flat],
             "p": [p for _i, _f, p in flat]},
            prepare=False,
        ).fetchall()  # fmt: skip
        texts = {int(r[0]): str(r[1]) for r in rows}
        with _CACHE.lock:
            if len(_CACHE.terms) > _CACHE_LIMIT:
                _CACHE.terms.clear()
            for i, key in enumerate(missing):
                text = texts.get(i, "")
                _CACHE.terms[key] = TermQuery(text, _single_lexemes(text))
    with _CACHE.lock:
        return [_CACHE.terms[key] for key in keys]


def _single_lexemes(text: str) -> tuple[tuple[str, bool], ...] | None:
    """The lexemes of an OR of one-word forms (``('buy') | ('bought')``), None for a phrase."""
    if not text or "<" in text:
        return None
    found = [(m.group(1).replace("''", "'"), bool(m.group(2))) for m in _LEXEME.finditer(text)]
    return tuple(found) or None


def common_lexemes(conn: psycopg.Connection[Any]) -> dict[str, float]:
    """``ANALYZE``'s most common lexemes of ``team_records.search`` with the share of records
    holding each; re-read every :data:`COMMON_TTL_S` seconds ({} before the first ANALYZE)."""
    now = time.monotonic()
    with _CACHE.lock:
        if now - _CACHE.common_at < COMMON_TTL_S:
            return _CACHE.common
    row = conn.execute(_COMMON_SQL).fetchone()
    common: dict[str, float] = {}
    if row and row[0] and row[1]:
        common = {str(e): float(f) for e, f in zip(row[0], row[1], strict=False)}
    with _CACHE.lock:
        _CACHE.common, _CACHE.common_at = common, now
    return common


def estimated_share(term: TermQuery, common: dict[str, float]) -> float | None:
    """The share of records holding ``term`` by the table's statistics, when every form of it
    is one of the most common lexemes (or a prefix of some); None means: count it."""
    if term.lexemes is None or not common:
        return None
    share = 0.0
    for lexeme, prefix in term.lexemes:
        if prefix:
            got = sum(f for e, f in common.items() if e.startswith(lexeme))
        else:
            got = common.get(lexeme, 0.0)
        if got <= 0.0:
            return None
        share += got
    return min(share, 1.0)


class Scope(NamedTuple):
    """One project of one team, its size, and how many of its records hold each term."""

    team_id: int
    project_id: int
    total: int
    counts: tuple[int, ...]


@functools.lru_cache(maxsize=64)
def _scopes_sql(searched: tuple[int, ...]) -> str:
    """The projects of a key in the given teams, each with its size and, for each term at the
    positions in ``searched``, how many of its records hold it: NULL when the statistics'
    share ``s<k>`` promises at least COUNT_CAP of them (then it is not counted), else counted
    up to COUNT_CAP; a term that reaches COUNT_CAP although the statistics promised fewer than
    half of it (a word common in this project only) is counted in the project's
    newest SAMPLE records and scaled to its size (exact in a project of at most SAMPLE
    records)."""
    counts = ", ".join(
        f"CASE WHEN p.records * %(s{k})s::float8 >= %(cap)s THEN NULL ELSE ("
        f"SELECT CASE WHEN c.n < %(cap)s OR p.records * %(s{k})s::float8 * 2 >= %(cap)s "
        "THEN c.n ELSE ("
        f"SELECT round(count(*) FILTER (WHERE r.search @@ %(t{k})s::tsquery)::float8 "
        "* p.records / greatest(count(*), 1))::bigint FROM (SELECT r.search FROM team_records r "
        "WHERE r.team_id = p.team_id AND r.project_id = p.id "
        "ORDER BY r.created_at DESC LIMIT %(sample)s) r) END "
        "FROM (SELECT count(*) AS n FROM (SELECT 1 FROM team_records d "
        "WHERE d.team_id = p.team_id AND d.project_id = p.id "
        f"AND d.search @@ %(t{k})s::tsquery LIMIT %(cap)s) x) c) END"
        for k in searched
    )
    return (
        f"SELECT p.team_id, p.id, p.records, ARRAY[{counts or 'NULL'}]::bigint[] "
        "FROM team_projects p "
        "WHERE p.team_id = ANY(%(teams)s::bigint[]) AND p.project_key = %(key)s"
    )


def scopes(
    conn: psycopg.Connection[Any],
    team_ids: Sequence[int],
    project_key: str,
    terms: Sequence[TermQuery],
) -> list[Scope]:
    """Every project of ``project_key`` in ``team_ids`` with its size and each term's count:
    -1 for a stop word; for a word the statistics say at least :data:`COUNT_CAP` of the
    project's records hold, their estimate; else counted, up to COUNT_CAP (then the estimate
    if larger), or from the project's newest :data:`SAMPLE` records when the statistics were
    far off."""
    common = common_lexemes(conn)
    shares = [estimated_share(t, common) or 0.0 for t in terms]
    searched = tuple(k for k, t in enumerate(terms) if t.text)
    params: dict[str, object] = {
        "teams": list(team_ids),
        "key": project_key,
        "cap": COUNT_CAP,
        "sample": SAMPLE,
    }
    params.update({f"t{k}": terms[k].text for k in searched})
    params.update({f"s{k}": shares[k] for k in searched})
    out = []
    for row in _planned_for_values(conn, _scopes_sql(searched), params):
        team_id, project_id, total = int(row[0]), int(row[1]), int(row[2])
        got = dict(zip(searched, row[3] or (), strict=False))
        counts = []
        for k in range(len(terms)):
            estimate = round(shares[k] * total)
            if k not in got:
                counts.append(-1)
            elif got[k] is None:
                counts.append(max(1, estimate))
            else:
                counts.append(max(int(got[k]), estimate if got[k] >= COUNT_CAP else 0))
        out.append(Scope(team_id, project_id, total, tuple(counts)))
    return out


# The anchors are the newest ``anchors`` records holding every term, when that many do; else the
# best ``anchors`` (by the idf of the terms held, then the newest) of those and of the newest
# MAX_RANKED records holding the rarest terms. Values bound on the client: its plan depends on
# how common the words are (ids cast to bigint: a literal 2 is an integer, and btree_gin's
# operator classes have no cross-type operators).
_ANCHORS = """
WITH every AS MATERIALIZED (
    SELECT m.uid, m.author_id, m.created_at, {every_mask}::bigint AS held FROM team_records m
    WHERE m.team_id = %(team)s::bigint AND m.project_id = %(project)s::bigint
    AND m.search @@ %(every)s::tsquery AND m.kind = ANY(%(kinds)s)
    ORDER BY m.created_at DESC LIMIT %(anchors)s
), rare AS MATERIALIZED (
    SELECT m.uid, m.author_id, m.created_at, {held_m} AS held FROM team_records m
    WHERE (SELECT count(*) FROM every) < %(anchors)s
    AND m.team_id = %(team)s::bigint AND m.project_id = %(project)s::bigint
    AND m.search @@ %(rare)s::tsquery AND m.kind = ANY(%(kinds)s)
    ORDER BY m.created_at DESC LIMIT %(cap)s
)
SELECT c.uid, c.author_id, c.created_at FROM (
    SELECT * FROM every UNION ALL
    SELECT * FROM rare WHERE rare.uid NOT IN (SELECT uid FROM every)) c
ORDER BY {weight} DESC, c.created_at DESC LIMIT %(anchors)s
"""

# Each anchor brings the ``window`` records its author wrote just before and after it (the
# team's answer to a session's lines), every one with the terms it holds and its ts_rank for
# the any-term query. Prepared, on its generic plan: the same index walks whatever the words.
_WINDOWS = """
SELECT a.uid, 0, w.uid, w.created_at, {held_w}, {rank_w}
FROM unnest(%(uids)s::text[]) AS a(uid)
JOIN team_records w ON w.team_id = %(team)s::bigint AND w.uid = a.uid
UNION ALL
SELECT a.uid, -1, b.* FROM unnest(%(uids)s::text[], %(authors)s::bigint[], %(times)s::bigint[])
    AS a(uid, author_id, created_at) CROSS JOIN LATERAL (
    SELECT w.uid, w.created_at, {held_w}, {rank_w} FROM team_records w
    WHERE w.team_id = %(team)s::bigint AND w.project_id = %(project)s::bigint
    AND w.author_id = a.author_id AND w.kind = ANY(%(kinds)s)
    AND w.created_at <= a.created_at AND (w.created_at, w.uid) < (a.created_at, a.uid)
    ORDER BY w.created_at DESC LIMIT %(window)s) b
UNION ALL
SELECT a.uid, 1, b.* FROM unnest(%(uids)s::text[], %(authors)s::bigint[], %(times)s::bigint[])
    AS a(uid, author_id, created_at) CROSS JOIN LATERAL (
    SELECT w.uid, w.created_at, {held_w}, {rank_w} FROM team_records w
    WHERE w.team_id = %(team)s::bigint AND w.project_id = %(project)s::bigint
    AND w.author_id = a.author_id AND w.kind = ANY(%(kinds)s)
    AND w.created_at >= a.created_at AND (w.created_at, w.uid) > (a.created_at, a.uid)
    ORDER BY w.created_at LIMIT %(window)s) b
"""


def _held(alias: str, searched: tuple[int, ...]) -> str:
    """Which of the terms at ``searched`` a record holds, as a bit mask (bit k for term k)."""
    parts = [
        f"CASE WHEN {alias}.search @@ %(t{k})s::tsquery THEN {1 << k} ELSE 0 END" for k in searched
    ]
    return f"({' + '.join(parts) or '0'})::bigint"


@functools.lru_cache(maxsize=256)
def anchors_sql(searched: tuple[int, ...]) -> str:
    """:data:`_ANCHORS` for a query whose terms at positions ``searched`` (from 0, at most 62)
    can be searched: the held mask and the summed idf (the ``w<k>`` parameters), written out
    term by term."""
    weight = " + ".join(
        f"CASE WHEN c.held & {1 << k} <> 0 THEN %(w{k})s::float8 ELSE 0 END" for k in searched
    )
    return _ANCHORS.format(
        every_mask=sum(1 << k for k in searched),
        held_m=_held("m", searched),
        weight=weight or "0",
    )


@functools.lru_cache(maxsize=256)
def windows_sql(searched: tuple[int, ...]) -> str:
    """:data:`_WINDOWS` for a query whose terms at positions ``searched`` can be searched."""
    rank = (
        "CASE WHEN w.search @@ %(any)s::tsquery THEN ts_rank(w.search, %(any)s::tsquery) ELSE 0 END"
    )
    return _WINDOWS.format(held_w=_held("w", searched), rank_w=rank)


def search_candidates(
    conn: psycopg.Connection[Any],
    team_ids: Sequence[int],
    project_key: str,
    terms: Sequence[Sequence[tuple[str, bool]]],
    kinds: Sequence[str] = ("observation", "summary", "prompt"),
    anchors: int = 30,
    window: int = 5,
) -> Candidates:
    """The records of ``project_key`` in ``team_ids`` holding any of ``terms`` (each a list of
    ``(form, prefix)``), ready to rank: per term how many records hold it, and the best
    ``anchors`` candidates with the ``window`` records written before and after each."""
    if not terms:
        return Candidates(0, (), [])
    queries = term_queries(conn, terms)
    searched = tuple(k for k, q in enumerate(queries) if q.text)
    total, found = 0, [-1] * len(terms)
    rows: list[Candidate] = []
    for scope in scopes(conn, team_ids, project_key, queries):
        total += scope.total
        found = [a if b < 0 else max(a, 0) + b for a, b in zip(found, scope.counts, strict=True)]
        if not searched or not any(scope.counts[k] > 0 for k in searched):
            continue
        params = _probe_params(queries, searched, scope)
        params.update(kinds=list(kinds), anchors=anchors, window=window, cap=MAX_RANKED)
        best = _planned_for_values(conn, anchors_sql(searched), params)
        if not best:
            continue
        params.update(
            uids=[str(r[0]) for r in best],
            authors=[int(r[1]) for r in best],
            times=[int(r[2]) for r in best],
        )
        part = conn.execute(windows_sql(searched), params, prepare=True).fetchall()
        rows.extend(_placed(scope.team_id, part))
    return Candidates(total, tuple(found), rows)


def _planned_for_values(
    conn: psycopg.Connection[Any], sql: str, params: dict[str, object]
) -> list[tuple[Any, ...]]:
    """Run ``sql`` with its values written into the text (psycopg's client-side binding):
    PostgreSQL plans it for these values, as a one-off, even on the server's connections,
    which run every prepared statement on its generic plan (``team_pg.open_pool``)."""
    from psycopg import ClientCursor

    with ClientCursor(conn) as cursor:
        return cursor.execute(sql, params).fetchall()


def _probe_params(
    queries: Sequence[TermQuery], searched: tuple[int, ...], scope: Scope
) -> dict[str, object]:
    """The constants of one probe: each term's tsquery and idf weight, the every-term and
    any-term queries, and the rarest terms whose counts fit :data:`MAX_RANKED`."""
    counts = scope.counts
    params: dict[str, object] = {"team": scope.team_id, "project": scope.project_id}
    for k in searched:
        params[f"t{k}"] = queries[k].text
        weight = 1.0 if len(queries) < 2 else idf(max(counts[k], 0), scope.total)
        params[f"w{k}"] = weight
    by_rarity = sorted((k for k in searched if counts[k] > 0), key=lambda k: (counts[k], k))
    rare: list[int] = []
    run = 0
    for k in by_rarity:
        run += counts[k]
        if rare and run > MAX_RANKED:
            break
        rare.append(k)
    params["every"] = " & ".join(f"({queries[k].text})" for k in searched)
    params["rare"] = " | ".join(f"({queries[k].text})" for k in rare)
    params["any"] = " | ".join(f"({queries[k].text})" for k in searched)
    return params


def _placed(team_id: int, part: Sequence[Sequence[Any]]) -> list[Candidate]:
    """The rows of one probe (anchor, side, uid, created_at, held mask, rank) as candidates,
    each window row numbered by its place before (-1, -2, ...) or after (1, 2, ...) its anchor
    (the statement says only which side)."""
    out: list[Candidate] = []
    steps: dict[tuple[str, int], int] = {}
    for r in sorted(part, key=lambda r: (str(r[0]), int(r[1]), int(r[3]), str(r[2]))):
        anchor, side = str(r[0]), int(r[1])
        if side < 0:
            continue
        steps[(anchor, 1)] = steps.get((anchor, 1), 0) + side
        out.append(_candidate(team_id, r, steps[(anchor, 1)]))
    for r in sorted(part, key=lambda r: (str(r[0]), int(r[3]), str(r[2])), reverse=True):
        anchor = str(r[0])
        if int(r[1]) < 0:  # before an anchor: the nearest is the newest
            steps[(anchor, -1)] = steps.get((anchor, -1), 0) - 1
            out.append(_candidate(team_id, r, steps[(anchor, -1)]))
    return out


def _candidate(team_id: int, r: Sequence[Any], offset: int) -> Candidate:
    return Candidate(team_id, str(r[2]), str(r[0]), offset, int(r[4]), float(r[5]), int(r[3]))


# The whole search in one statement (schema version 5, :data:`SEARCH_FUNCTION`): the counts,
# the anchors, their windows, the ranking and the winners' rows. Its integer arguments are cast
# (Python integers are sent as bigint) and its words are values, so one plan serves every call.
_SEARCH_CALL = (
    "SELECT * FROM team_search(%s::bigint[], %s::text, %s::text[], %s::float8[], %s::text[], "
    "%s::int, %s::int, %s::int, %s::int, %s::int, %s::int, %s::float8[], %s::bytea)"
)


class TokenRefused(Exception):
    """The token a search was made with is unknown or revoked (checked by the search itself)."""


def search_ranked(
    conn: psycopg.Connection[Any],
    team_ids: Sequence[int],
    project_key: str,
    terms: Sequence[Sequence[tuple[str, bool]]],
    limit: int,
    formula: Sequence[float],
    *,
    token_hash: bytes | None = None,
    kinds: Sequence[str] = ("observation", "summary", "prompt"),
    anchors: int = 30,
    window: int = 5,
) -> list[tuple[Any, ...]]:
    """The best ``limit`` records of ``project_key`` for ``terms``, ranked in PostgreSQL by
    :data:`SEARCH_FUNCTION` with the ranking constants ``formula``, as rows for
    :func:`conkeeper.storage.team_pg.hit_from_row`.

    The teams searched are ``team_ids``, or, given ``token_hash``, those of the token's user,
    looked up by the same statement (one round trip; :class:`TokenRefused` when the token is
    unknown or revoked, so a revocation counts from the next search).
    """
    queries = term_queries(conn, terms) if terms else []
    if token_hash is None and not any(q.text for q in queries):
        return []
    common = common_lexemes(conn) if queries else {}
    shares = [estimated_share(q, common) or 0.0 for q in queries]
    args = (list(team_ids), project_key, [q.text for q in queries], shares, list(kinds),
            anchors, window, limit, COUNT_CAP, SAMPLE, MAX_RANKED, list(formula),
            token_hash)  # fmt: skip
    from psycopg.errors import InvalidAuthorizationSpecification

    try:
        return conn.execute(_SEARCH_CALL, args, prepare=True).fetchall()
    except InvalidAuthorizationSpecification:
        raise TokenRefused from None


SEARCH_FUNCTION = """
CREATE OR REPLACE FUNCTION team_search(
    teams bigint[], key text, terms text[], shares float8[], kinds text[],
    anchors integer, walk integer, top_n integer, cap integer, sample integer, ranked integer,
    formula float8[], token bytea
) RETURNS TABLE (
    uid text, kind text, type text, title text, subtitle text, facts jsonb,
    narrative text, author text, created_at bigint, project_key text, score float8
) LANGUAGE plpgsql STABLE AS $fn$
#variable_conflict use_column
DECLARE
    n integer := coalesce(array_length(terms, 1), 0);
    tq tsquery[] := '{}';
    searched integer[] := '{}';
    found bigint[];
    total bigint := 0;
    sc record;
    cnt bigint[];
    c bigint;
    est bigint;
    pw float8[];
    wt float8[];
    wsum float8;
    every_q tsquery;
    rare_q tsquery;
    any_q tsquery;
    a_team bigint[] := '{}';
    a_project bigint[] := '{}';
    a_uid text[] := '{}';
    a_author bigint[] := '{}';
    a_time bigint[] := '{}';
    got record;
    probe record;
    every_est float8;
    rare_n bigint;
    e_uid text[];
    e_author bigint[];
    e_time bigint[];
    i integer;
BEGIN
    IF token IS NOT NULL THEN  -- the teams of an active token's user, or a refusal
        SELECT array_agg(m.team_id) INTO teams FROM tokens t
        JOIN memberships m ON m.user_id = t.user_id
        WHERE t.token_hash = token AND t.revoked_at IS NULL;
        IF teams IS NULL THEN
            RAISE EXCEPTION 'token refused' USING ERRCODE = 'invalid_authorization_specification';
        END IF;
    END IF;
    IF n = 0 THEN
        RETURN;
    END IF;
    found := array_fill(-1::bigint, ARRAY[n]);
    FOR i IN 1..n LOOP
        IF terms[i] <> '' THEN
            tq[i] := terms[i]::tsquery;
            searched := searched || i;
            any_q := CASE WHEN any_q IS NULL THEN tq[i] ELSE any_q || tq[i] END;
            every_q := CASE WHEN every_q IS NULL THEN tq[i] ELSE every_q && tq[i] END;
        ELSE
            tq[i] := NULL;
        END IF;
    END LOOP;
    IF any_q IS NULL THEN
        RETURN;
    END IF;
    FOR sc IN SELECT p.team_id AS t, p.id AS pid, p.records AS size FROM team_projects p
              WHERE p.team_id = ANY(teams) AND p.project_key = key LOOP
        total := total + sc.size;
        cnt := array_fill(-1::bigint, ARRAY[n]);
        FOREACH i IN ARRAY searched LOOP
            est := round(shares[i] * sc.size);
            IF sc.size * shares[i] >= cap THEN
                c := greatest(1, est);
            ELSE
                SELECT count(*) INTO c FROM (SELECT 1 FROM team_records d
                    WHERE d.team_id = sc.t AND d.project_id = sc.pid AND d.search @@ tq[i]
                    LIMIT cap) x;
                IF c >= cap AND sc.size * shares[i] * 2 < cap THEN
                    SELECT round(count(*) FILTER (WHERE s.search @@ tq[i])::float8 * sc.size
                                 / greatest(count(*), 1))::bigint INTO c
                    FROM (SELECT r.search FROM team_records r
                          WHERE r.team_id = sc.t AND r.project_id = sc.pid
                          ORDER BY r.created_at DESC LIMIT sample) s;
                END IF;
                IF c >= cap THEN
                    c := greatest(c, est);
                END IF;
            END IF;
            cnt[i] := c;
            found[i] := greatest(found[i], 0) + c;
        END LOOP;
        CONTINUE WHEN NOT EXISTS (SELECT 1 FROM unnest(searched) k WHERE cnt[k] > 0);
        pw := array_fill(1.0::float8, ARRAY[n]);
        IF n >= 2 THEN
            FOREACH i IN ARRAY searched LOOP
                pw[i] := ln(1.0 + (sc.size - greatest(cnt[i], 0) + 0.5) / (greatest(cnt[i], 0) + 0.5));
            END LOOP;
        END IF;
        -- the rarest terms, as many as their counts fit in ranked (always the rarest one)
        rare_q := NULL;
        rare_n := 0;
        FOR got IN SELECT k FROM unnest(searched) k WHERE cnt[k] > 0 ORDER BY cnt[k], k LOOP
            EXIT WHEN rare_q IS NOT NULL AND rare_n + cnt[got.k] > ranked;
            rare_n := rare_n + cnt[got.k];
            rare_q := CASE WHEN rare_q IS NULL THEN tq[got.k] ELSE rare_q || tq[got.k] END;
        END LOOP;
        every_est := sc.size::float8;
        FOREACH i IN ARRAY searched LOOP
            every_est := every_est * greatest(cnt[i], 0) / greatest(sc.size, 1);
        END LOOP;
        e_uid := '{}'; e_author := '{}'; e_time := '{}';
        IF every_est > 0 THEN
            IF every_est * every_est > anchors * sc.size THEN  -- common: walk the newest
                SELECT coalesce(array_agg(x.uid), '{}'), coalesce(array_agg(x.author_id), '{}'),
                       coalesce(array_agg(x.created_at), '{}')
                INTO e_uid, e_author, e_time FROM (
                    SELECT m.uid, m.author_id, m.created_at FROM team_records m
                    WHERE m.team_id = sc.t AND m.project_id = sc.pid AND m.kind = ANY(kinds)
                    AND coalesce(m.search @@ every_q, false)
                    ORDER BY m.created_at DESC LIMIT anchors) x;
            ELSE  -- rare: read every match through the word index
                SELECT coalesce(array_agg(x.uid), '{}'), coalesce(array_agg(x.author_id), '{}'),
                       coalesce(array_agg(x.created_at), '{}')
                INTO e_uid, e_author, e_time FROM (
                    SELECT m.uid, m.author_id, m.created_at FROM team_records m
                    WHERE m.team_id = sc.t AND m.project_id = sc.pid AND m.kind = ANY(kinds)
                    AND m.search @@ every_q
                    ORDER BY m.created_at + 0 DESC LIMIT anchors) x;
            END IF;
        END IF;
        IF cardinality(e_uid) < anchors AND cardinality(searched) > 1 THEN
            IF rare_n * rare_n > 4 * ranked * sc.size THEN
                SELECT array_agg(y.uid) AS uids, array_agg(y.author_id) AS authors, array_agg(y.created_at) AS times
                INTO probe FROM (
                    SELECT x.uid, x.author_id, x.created_at FROM (
                        SELECT m.uid, m.author_id, m.created_at, m.search FROM team_records m
                        WHERE m.team_id = sc.t AND m.project_id = sc.pid AND m.kind = ANY(kinds)
                        AND coalesce(m.search @@ rare_q, false)
                        ORDER BY m.created_at DESC LIMIT ranked) x
                    WHERE x.uid <> ALL(e_uid)
                    ORDER BY (SELECT sum(pw[k]) FROM unnest(searched) k WHERE x.search @@ tq[k])
                        DESC, x.created_at DESC
                    LIMIT anchors - cardinality(e_uid)) y;
            ELSE
                SELECT array_agg(y.uid) AS uids, array_agg(y.author_id) AS authors, array_agg(y.created_at) AS times
                INTO probe FROM (
                    SELECT x.uid, x.author_id, x.created_at FROM (
                        SELECT m.uid, m.author_id, m.created_at, m.search FROM team_records m
                        WHERE m.team_id = sc.t AND m.project_id = sc.pid AND m.kind = ANY(kinds)
                        AND m.search @@ rare_q
                        ORDER BY m.created_at + 0 DESC LIMIT ranked) x
                    WHERE x.uid <> ALL(e_uid)
                    ORDER BY (SELECT sum(pw[k]) FROM unnest(searched) k WHERE x.search @@ tq[k])
                        DESC, x.created_at DESC
                    LIMIT anchors - cardinality(e_uid)) y;
            END IF;
            e_uid := e_uid || coalesce(probe.uids, '{}');
            e_author := e_author || coalesce(probe.authors, '{}');
            e_time := e_time || coalesce(probe.times, '{}');
        END IF;
        CONTINUE WHEN cardinality(e_uid) = 0;
        a_team := a_team || array_fill(sc.t, ARRAY[cardinality(e_uid)]);
        a_project := a_project || array_fill(sc.pid, ARRAY[cardinality(e_uid)]);
        a_uid := a_uid || e_uid;
        a_author := a_author || e_author;
        a_time := a_time || e_time;
    END LOOP;
    IF cardinality(a_uid) = 0 THEN
        RETURN;
    END IF;
    wt := array_fill(1.0::float8, ARRAY[n]);
    IF n >= 2 THEN
        FOR i IN 1..n LOOP
            wt[i] := CASE WHEN found[i] < 0 THEN 0.0
                          ELSE ln(1.0 + (total - found[i] + 0.5) / (found[i] + 0.5)) END;
        END LOOP;
    END IF;
    wsum := coalesce(nullif((SELECT sum(x) FROM unnest(wt) x), 0), 1.0);
    RETURN QUERY
    WITH a AS (
        SELECT * FROM unnest(a_team, a_project, a_uid, a_author, a_time)
            AS a(team_id, project_id, uid, author_id, created_at)
    ), w AS (
        SELECT a.team_id, a.uid AS anchor, a.author_id, b.* FROM a CROSS JOIN LATERAL (
            SELECT r.uid, r.created_at, r.search FROM team_records r
            WHERE r.team_id = a.team_id AND r.uid = a.uid
            UNION ALL (
            SELECT r.uid, r.created_at, r.search FROM team_records r
            WHERE r.team_id = a.team_id AND r.project_id = a.project_id
            AND r.author_id = a.author_id AND r.kind = ANY(kinds)
            AND r.created_at <= a.created_at AND (r.created_at, r.uid) < (a.created_at, a.uid)
            ORDER BY r.created_at DESC LIMIT walk)
            UNION ALL (
            SELECT r.uid, r.created_at, r.search FROM team_records r
            WHERE r.team_id = a.team_id AND r.project_id = a.project_id
            AND r.author_id = a.author_id AND r.kind = ANY(kinds)
            AND r.created_at >= a.created_at AND (r.created_at, r.uid) > (a.created_at, a.uid)
            ORDER BY r.created_at LIMIT walk)) b
    ), placed AS (
        SELECT w.team_id, w.uid, w.author_id, w.created_at, w.search,
            row_number() OVER (PARTITION BY w.team_id, w.anchor ORDER BY w.created_at, w.uid) > 1
                AS after_first
        FROM w
    ), rec AS (
        SELECT DISTINCT ON (p.team_id, p.uid) p.team_id, p.uid, p.author_id, p.created_at,
            p.search, bool_or(p.after_first) OVER (PARTITION BY p.team_id, p.uid) AS linked
        FROM placed p ORDER BY p.team_id, p.uid
    ), own AS (
        SELECT rec.team_id, rec.uid, rec.author_id, rec.created_at, rec.linked, h.held,
            CASE WHEN h.held <> 0 THEN ts_rank(rec.search, any_q) ELSE 0 END AS rank,
            (SELECT coalesce(sum(wt[k]), 0) FROM unnest(searched) k
             WHERE h.held & (1::bigint << (k - 1)) <> 0) AS share
        FROM rec CROSS JOIN LATERAL (
            SELECT coalesce(sum(1::bigint << (k - 1)), 0)::bigint AS held
            FROM unnest(searched) k WHERE rec.search @@ tq[k]) h
    ), chained AS (
        SELECT o.*, sum(CASE WHEN o.linked THEN 0 ELSE 1 END)
            OVER (PARTITION BY o.team_id, o.author_id ORDER BY o.created_at, o.uid) AS chain
        FROM own o
    ), scored AS (
        SELECT c.team_id, c.uid, c.created_at, c.rank, c.share,
            greatest(coalesce(lag(c.share) OVER run, 0), coalesce(lead(c.share) OVER run, 0))
                AS neighbour,
            c.held | coalesce(lag(c.held, 1) OVER run, 0) | coalesce(lag(c.held, 2) OVER run, 0)
                | coalesce(lag(c.held, 3) OVER run, 0) | coalesce(lead(c.held, 1) OVER run, 0)
                | coalesce(lead(c.held, 2) OVER run, 0) | coalesce(lead(c.held, 3) OVER run, 0)
                AS whole,
            max(c.rank) FILTER (WHERE c.rank > 0) OVER () AS top
        FROM chained c
        WINDOW run AS (PARTITION BY c.team_id, c.author_id, c.chain ORDER BY c.created_at, c.uid)
    ), best AS (
        SELECT s.team_id, s.uid, s.created_at,
            (s.share + formula[1] * s.neighbour
             + (formula[2] + formula[3]) * (SELECT coalesce(sum(wt[k]), 0) FROM unnest(searched) k
                WHERE s.whole & (1::bigint << (k - 1)) <> 0)) / wsum
            + formula[4] * greatest(s.rank, 0) / coalesce(s.top, 1.0) + formula[5] AS score
        FROM scored s WHERE s.share > 0
        ORDER BY score DESC, s.created_at DESC LIMIT top_n
    )
    SELECT r.uid, r.kind, r.type, r.title, r.subtitle, r.facts, r.narrative, u.name,
        r.created_at, p.project_key, b.score::float8
    FROM best b
    JOIN team_records r ON r.team_id = b.team_id AND r.uid = b.uid
    JOIN users u ON u.id = r.author_id
    JOIN team_projects p ON p.team_id = r.team_id AND p.id = r.project_id
    ORDER BY b.score DESC, b.created_at DESC;
END
$fn$;
"""
