"""The team search: one PostgreSQL function that finds, ranks and returns a query's records.

Why it exists: a team search must answer in a few milliseconds of CPU over a million records
with twenty clients at once. It used to be five statements (the token, the counts, the
anchors, their windows, the winners' rows) and a ranking in Python, and the fixed cost of each
statement (a round trip, psycopg, planning) was most of a search. So the whole search is
:data:`SEARCH_FUNCTION`, a PL/pgSQL function created by schema version 5
(``storage.team_pg.MIGRATIONS``) and called once per search, on one plan per connection:

* each term's ``tsquery`` text is made once per server process (:func:`term_queries`, cached)
  and a very common term's share of records is read from ``ANALYZE``'s statistics
  (``pg_stats.most_common_elems``, once every :data:`COMMON_TTL_S` seconds): both are sent as
  values;
* ``team_search_counts``: how many of the project's records hold each term. A term those
  statistics say at least :data:`COUNT_CAP` records hold is estimated (its share times the
  project's size, ``team_projects.records``, kept by every push); every other term is counted
  up to COUNT_CAP, and one that reaches it all the same (common in this project only: a
  speaker's name) in the project's newest :data:`SAMPLE` records, scaled to its size;
* the anchors: the newest records holding *every* term when enough do, else also the best (by
  the idf of the terms held) of the newest :data:`MAX_RANKED` records holding the rarest terms.
  Each is read by one of two fixed statements chosen by the counts: a common set of words
  walks the project's records newest first (the date index), a rare one reads its matches
  through the word index and sorts them; no statement is planned per search;
* the windows: the records each anchor's author wrote just before and after it, with the
  terms each holds and its ``ts_rank`` (the anchors read again by the ``ctid`` their statement
  found: the function's statements share one snapshot);
* the ranking, local search's formula (:mod:`conkeeper.domain.ranking`, whose constants the
  caller sends): a record is a line, the records next to it in its author's windows its
  neighbours, the ``walk`` records either side its section;
* the winners' rows with their authors; and, for the JSON API, the token: given its hash, the
  function searches the teams of its user and raises ``invalid_authorization_specification``
  for an unknown or revoked one (:class:`TokenRefused`).

The JSON API takes the rows as the JSON array it answers with (:func:`search_page`, built by
PostgreSQL); the MCP tools take them as rows (:func:`search_ranked`).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import psycopg

# A query's candidates are the newest MAX_RANKED records holding its rarest terms (as many of
# them as fit: their counts add up to MAX_RANKED at most; always the rarest one).
MAX_RANKED = 250
# A term the statistics say at least COUNT_CAP of a project's records hold is not counted; a
# rarer one is counted up to COUNT_CAP (a count costs a heap visit per match).
COUNT_CAP = 250
SAMPLE = 1000  # records read to estimate a word common in one project only
COMMON_TTL_S = 300.0  # how long the most-common-lexeme statistics are trusted in a process
_CACHE_LIMIT = 20_000  # term -> tsquery entries kept per process
_LEXEME = re.compile(r"'((?:[^']|'')*)'(:\*)?")


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

# Prepared like the search (a term a server process has not seen yet costs this statement,
# and parsing and planning it were most of its cost).
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


_TermKey = tuple[tuple[str, bool], ...]  # a term's forms with their prefix flags


def term_queries(
    conn: psycopg.Connection[Any], terms: Sequence[Sequence[tuple[str, bool]]]
) -> list[TermQuery]:
    """Each term's :class:`TermQuery` (the OR of its forms), from the cache or PostgreSQL."""
    keys = [tuple(forms) for forms in terms]
    missing = _uncached(keys)
    if missing:
        rows = conn.execute(_TERM_SQL, _term_params(missing), prepare=True).fetchall()
        _remember_terms(missing, rows)
    return _cached(keys)


async def term_queries_async(
    conn: psycopg.AsyncConnection[Any], terms: Sequence[Sequence[tuple[str, bool]]]
) -> list[TermQuery]:
    """As :func:`term_queries`, on an asynchronous connection (the server's search route)."""
    keys = [tuple(forms) for forms in terms]
    missing = _uncached(keys)
    if missing:
        cur = await conn.execute(_TERM_SQL, _term_params(missing), prepare=True)
        _remember_terms(missing, await cur.fetchall())
    return _cached(keys)


def _uncached(keys: Sequence[_TermKey]) -> list[_TermKey]:
    with _CACHE.lock:
        return [key for key in dict.fromkeys(keys) if key not in _CACHE.terms]


def _term_params(missing: Sequence[_TermKey]) -> dict[str, list[Any]]:
    """The parameters of :data:`_TERM_SQL` for the terms not cached yet."""
    flat = [(i, form, prefix) for i, forms in enumerate(missing) for form, prefix in forms]
    return {"k": [i for i, _f, _p in flat], "f": [f for _i, f, _p in flat],
            "p": [p for _i, _f, p in flat]}  # fmt: skip


def _remember_terms(missing: Sequence[_TermKey], rows: Sequence[Sequence[Any]]) -> None:
    texts = {int(r[0]): str(r[1]) for r in rows}
    with _CACHE.lock:
        if len(_CACHE.terms) > _CACHE_LIMIT:
            _CACHE.terms.clear()
        for i, key in enumerate(missing):
            text = texts.get(i, "")
            _CACHE.terms[key] = TermQuery(text, _single_lexemes(text))


def _cached(keys: Sequence[_TermKey]) -> list[TermQuery]:
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
    fresh = _fresh_common()
    if fresh is not None:
        return fresh
    return _remember_common(conn.execute(_COMMON_SQL).fetchone())


async def common_lexemes_async(conn: psycopg.AsyncConnection[Any]) -> dict[str, float]:
    """As :func:`common_lexemes`, on an asynchronous connection."""
    fresh = _fresh_common()
    if fresh is not None:
        return fresh
    cur = await conn.execute(_COMMON_SQL)
    return _remember_common(await cur.fetchone())


def _fresh_common() -> dict[str, float] | None:
    with _CACHE.lock:
        if time.monotonic() - _CACHE.common_at < COMMON_TTL_S:
            return _CACHE.common
    return None


def _remember_common(row: Sequence[Any] | None) -> dict[str, float]:
    common: dict[str, float] = {}
    if row and row[0] and row[1]:
        common = {str(e): float(f) for e, f in zip(row[0], row[1], strict=False)}
    with _CACHE.lock:
        _CACHE.common, _CACHE.common_at = common, time.monotonic()
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


# The whole search is one statement (schema version 5, :data:`SEARCH_FUNCTION`): the counts,
# the anchors, their windows, the ranking and the winners' rows, with the token check when a
# token is given. Its integer arguments are cast (Python integers are sent as bigint), and its
# words are values, so one plan per connection serves every search. Its arrays travel as the
# text of PostgreSQL array literals (:func:`_text_array`, :func:`_number_array`): psycopg's
# list adaptation inspects every list and its items on each call, about as costly as all the
# rest of a search's Python in the server.
_SEARCH_ARGS = (
    "%s::bigint[], %s::text, %s::text[], %s::float8[], %s::text[], %s::int, %s::int, %s::int, "
    "%s::int, %s::int, %s::int, %s::float8[], %s::bytea"
)
_SEARCH_CALL = f"SELECT * FROM team_search({_SEARCH_ARGS})"
# The JSON API's page: the hits as the JSON array the server sends, built by PostgreSQL from
# the function's rows, so the server neither decodes rows nor encodes them again. A record's
# texts are sent as stored, as the rows' path does (the push refused any that failed the
# privacy gate; the client cleans what it receives again).
_PAGE_CALL = (
    "SELECT coalesce(json_agg(x), '[]')::text FROM (SELECT t.uid, t.kind, t.type, t.title, "
    "t.subtitle, t.facts, t.narrative, t.author, t.created_at, t.project_key AS project, "
    f"round(t.score::numeric, 6) AS score FROM team_search({_SEARCH_ARGS}) WITH ORDINALITY "
    "AS t(uid, kind, type, title, subtitle, facts, narrative, author, created_at, project_key, "
    "score, n) ORDER BY t.n) x"
)
_KINDS = ("observation", "summary", "prompt")


class TokenRefused(Exception):
    """The token a search was made with is unknown or revoked (checked by the search itself)."""


class SearchRequest(NamedTuple):
    """What a search asks for, besides its connection: the teams (``team_ids``, or those of the
    token whose hash is ``token_hash``), the project, the query's terms (each as its forms),
    how many hits, the ranking constants, and how many candidates bring how wide a window."""

    team_ids: Sequence[int]
    project_key: str
    terms: Sequence[Sequence[tuple[str, bool]]]
    limit: int
    formula: Sequence[float]
    token_hash: bytes | None = None
    anchors: int = 30
    window: int = 5
    kinds: Sequence[str] = _KINDS


def search_ranked(conn: psycopg.Connection[Any], request: SearchRequest) -> list[tuple[Any, ...]]:
    """The best ``request.limit`` records of the project for its terms, ranked in PostgreSQL by
    :data:`SEARCH_FUNCTION` with the ranking constants ``request.formula``, as rows for
    :func:`conkeeper.storage.team_pg.hit_from_row`.

    Given ``request.token_hash`` the teams are those of the token's user, looked up by the
    same statement (one round trip; :class:`TokenRefused` when the token is unknown or
    revoked, so a revocation counts from the next search).
    """
    queries = term_queries(conn, request.terms) if request.terms else []
    if request.token_hash is None and not any(q.text for q in queries):
        return []
    common = common_lexemes(conn) if queries else {}
    from psycopg.errors import InvalidAuthorizationSpecification

    try:
        return conn.execute(_SEARCH_CALL, _search_args(request, queries, common),
                            prepare=True).fetchall()  # fmt: skip
    except InvalidAuthorizationSpecification:
        raise TokenRefused from None


def search_page(conn: psycopg.Connection[Any], request: SearchRequest) -> str:
    """As :func:`search_ranked`, the hits as the text of the JSON array the JSON API answers
    with (each hit an object: uid, kind, type, title, subtitle, facts, narrative, author,
    created_at, project, score rounded to 6 places), built by PostgreSQL."""
    queries = term_queries(conn, request.terms) if request.terms else []
    if request.token_hash is None and not any(q.text for q in queries):
        return "[]"
    common = common_lexemes(conn) if queries else {}
    from psycopg.errors import InvalidAuthorizationSpecification

    try:
        row = conn.execute(_PAGE_CALL, _search_args(request, queries, common),
                           prepare=True).fetchone()  # fmt: skip
    except InvalidAuthorizationSpecification:
        raise TokenRefused from None
    return str(row[0]) if row else "[]"


async def search_page_async(conn: psycopg.AsyncConnection[Any], request: SearchRequest) -> str:
    """As :func:`search_page`, on an asynchronous connection: the server's search route runs it
    in its event loop, so a search pays no hop to a worker thread and back."""
    queries = await term_queries_async(conn, request.terms) if request.terms else []
    if request.token_hash is None and not any(q.text for q in queries):
        return "[]"
    common = await common_lexemes_async(conn) if queries else {}
    from psycopg.errors import InvalidAuthorizationSpecification

    try:
        cur = await conn.execute(_PAGE_CALL, _search_args(request, queries, common),
                                 prepare=True)  # fmt: skip
        row = await cur.fetchone()
    except InvalidAuthorizationSpecification:
        raise TokenRefused from None
    return str(row[0]) if row else "[]"


def _search_args(
    request: SearchRequest, queries: Sequence[TermQuery], common: dict[str, float]
) -> tuple[Any, ...]:
    """The arguments of :data:`_SEARCH_CALL` (and :data:`_PAGE_CALL`), in their order."""
    shares = [estimated_share(q, common) or 0.0 for q in queries]
    return (
        _number_array(request.team_ids), request.project_key,
        _text_array([q.text for q in queries]), _number_array(shares),
        _text_array(request.kinds), request.anchors, request.window, request.limit, COUNT_CAP,
        SAMPLE, MAX_RANKED, _number_array(request.formula), request.token_hash,
    )  # fmt: skip


def _text_array(values: Sequence[str]) -> str:
    """A PostgreSQL array literal of texts (each quoted, its backslashes and quotes escaped)."""
    quoted = (v.replace("\\", "\\\\").replace('"', '\\"') for v in values)
    return "{" + ",".join(f'"{v}"' for v in quoted) + "}"


def _number_array(values: Sequence[float]) -> str:
    """A PostgreSQL array literal of numbers (integers as such, floats by their repr)."""
    return "{" + ",".join(repr(v) for v in values) + "}"


SEARCH_FUNCTION = """
CREATE OR REPLACE FUNCTION team_search_counts(
    team bigint, project bigint, size bigint, tq tsquery[], shares float8[], cap integer,
    sample integer
) RETURNS bigint[] LANGUAGE plpgsql STABLE AS $fn$
-- How many of a project's records hold each term (-1 for a NULL one, a stop word): a term the
-- statistics' share says at least cap of them hold is not counted but estimated; a rarer one
-- is counted up to cap, and one that reaches cap although the statistics promised fewer than
-- half of it (common in this project only) is counted in the project's newest sample records
-- and scaled to its size.
DECLARE
    cnt bigint[] := array_fill(-1::bigint, ARRAY[cardinality(tq)]);
    c bigint;
    est bigint;
BEGIN
    FOR i IN 1..cardinality(tq) LOOP
        CONTINUE WHEN tq[i] IS NULL;
        est := round(shares[i] * size);
        IF size * shares[i] >= cap THEN
            c := greatest(1, est);
        ELSE
            SELECT count(*) INTO c FROM (SELECT 1 FROM team_records d
                WHERE d.team_id = team AND d.project_id = project AND d.search @@ tq[i]
                LIMIT cap) x;
            IF c >= cap AND size * shares[i] * 2 < cap THEN
                SELECT round(count(*) FILTER (WHERE s.search @@ tq[i])::float8 * size
                             / greatest(count(*), 1))::bigint INTO c
                FROM (SELECT r.search FROM team_records r
                      WHERE r.team_id = team AND r.project_id = project
                      ORDER BY r.created_at DESC LIMIT sample) s;
            END IF;
            IF c >= cap THEN
                c := greatest(c, est);
            END IF;
        END IF;
        cnt[i] := c;
    END LOOP;
    RETURN cnt;
END
$fn$;

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
    a_tid tid[] := '{}';
    got record;
    probe record;
    every_est float8;
    rare_n bigint;
    e_uid text[];
    e_author bigint[];
    e_time bigint[];
    e_tid tid[];
    i integer;
    held_any boolean;
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
        cnt := team_search_counts(sc.t, sc.pid, sc.size, tq, shares, cap, sample);
        held_any := false;  -- (simple expressions: no statement to start for them)
        FOREACH i IN ARRAY searched LOOP
            found[i] := greatest(found[i], 0) + cnt[i];
            held_any := held_any OR cnt[i] > 0;
        END LOOP;
        CONTINUE WHEN NOT held_any;
        pw := array_fill(1.0::float8, ARRAY[n]);
        IF n >= 2 THEN
            FOREACH i IN ARRAY searched LOOP
                pw[i] := ln(1.0 + (sc.size - greatest(cnt[i], 0) + 0.5)
                            / (greatest(cnt[i], 0) + 0.5));
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
        -- how many records hold every term (the terms taken as independent): reading the
        -- newest records until enough hold them all costs anchors * size / every_est rows,
        -- reading every match through the word index every_est rows plus a sort
        every_est := sc.size::float8;
        FOREACH i IN ARRAY searched LOOP
            every_est := every_est * greatest(cnt[i], 0) / greatest(sc.size, 1);
        END LOOP;
        e_uid := '{}'; e_author := '{}'; e_time := '{}'; e_tid := '{}';
        IF every_est > 0 THEN
            IF every_est * every_est > anchors * sc.size THEN  -- common: walk the newest
                SELECT coalesce(array_agg(x.uid), '{}'), coalesce(array_agg(x.author_id), '{}'),
                       coalesce(array_agg(x.created_at), '{}'), coalesce(array_agg(x.ctid), '{}')
                INTO e_uid, e_author, e_time, e_tid FROM (
                    SELECT m.uid, m.author_id, m.created_at, m.ctid FROM team_records m
                    WHERE m.team_id = sc.t AND m.project_id = sc.pid AND m.kind = ANY(kinds)
                    AND coalesce(m.search @@ every_q, false)
                    ORDER BY m.created_at DESC LIMIT anchors) x;
            ELSE  -- rare: read every match through the word index
                SELECT coalesce(array_agg(x.uid), '{}'), coalesce(array_agg(x.author_id), '{}'),
                       coalesce(array_agg(x.created_at), '{}'), coalesce(array_agg(x.ctid), '{}')
                INTO e_uid, e_author, e_time, e_tid FROM (
                    SELECT m.uid, m.author_id, m.created_at, m.ctid FROM team_records m
                    WHERE m.team_id = sc.t AND m.project_id = sc.pid AND m.kind = ANY(kinds)
                    AND m.search @@ every_q
                    ORDER BY m.created_at + 0 DESC LIMIT anchors) x;
            END IF;
        END IF;
        IF cardinality(e_uid) < anchors AND cardinality(searched) > 1 THEN
            IF rare_n * rare_n > 4 * ranked * sc.size THEN  -- as above, the walk held to 4x
                SELECT array_agg(y.uid) AS uids, array_agg(y.author_id) AS authors,
                       array_agg(y.created_at) AS times, array_agg(y.ctid) AS tids
                INTO probe FROM (
                    SELECT x.uid, x.author_id, x.created_at, x.ctid FROM (
                        SELECT m.uid, m.author_id, m.created_at, m.ctid, m.search
                        FROM team_records m
                        WHERE m.team_id = sc.t AND m.project_id = sc.pid AND m.kind = ANY(kinds)
                        AND coalesce(m.search @@ rare_q, false)
                        ORDER BY m.created_at DESC LIMIT ranked) x
                    WHERE x.uid <> ALL(e_uid)
                    ORDER BY (SELECT sum(pw[k]) FROM unnest(searched) k WHERE x.search @@ tq[k])
                        DESC, x.created_at DESC
                    LIMIT anchors - cardinality(e_uid)) y;
            ELSE
                SELECT array_agg(y.uid) AS uids, array_agg(y.author_id) AS authors,
                       array_agg(y.created_at) AS times, array_agg(y.ctid) AS tids
                INTO probe FROM (
                    SELECT x.uid, x.author_id, x.created_at, x.ctid FROM (
                        SELECT m.uid, m.author_id, m.created_at, m.ctid, m.search
                        FROM team_records m
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
            e_tid := e_tid || coalesce(probe.tids, '{}');
        END IF;
        CONTINUE WHEN cardinality(e_uid) = 0;
        a_team := a_team || array_fill(sc.t, ARRAY[cardinality(e_uid)]);
        a_project := a_project || array_fill(sc.pid, ARRAY[cardinality(e_uid)]);
        a_uid := a_uid || e_uid;
        a_author := a_author || e_author;
        a_time := a_time || e_time;
        a_tid := a_tid || e_tid;
    END LOOP;
    IF cardinality(a_uid) = 0 THEN
        RETURN;
    END IF;
    wt := array_fill(1.0::float8, ARRAY[n]);
    wsum := n;
    IF n >= 2 THEN
        wsum := 0;
        FOR i IN 1..n LOOP
            wt[i] := CASE WHEN found[i] < 0 THEN 0.0
                          ELSE ln(1.0 + (total - found[i] + 0.5) / (found[i] + 0.5)) END;
            wsum := wsum + wt[i];
        END LOOP;
    END IF;
    wsum := coalesce(nullif(wsum, 0), 1.0);
    -- the windows: each anchor (read again by the ctid its statement found: the function's
    -- statements share the caller's snapshot, so it is the same row version) with the walk
    -- records its author wrote before it (all but the earliest of a full scan follow a record
    -- of the window) and after it; a record's ctid stands for it until the winners' rows
    RETURN QUERY
    WITH w AS (
        SELECT a.team_id, a.author_id, v.uid, v.created_at, v.tid, v.after_first, h.held,
            h.share, h.rank
        FROM unnest(a_team, a_project, a_uid, a_author, a_time, a_tid)
            AS a(team_id, project_id, uid, author_id, created_at, tid)
        CROSS JOIN LATERAL (
            SELECT r.uid, r.created_at, r.ctid AS tid, r.search, true AS after_first
            FROM team_records r WHERE r.ctid = a.tid
            UNION ALL
            SELECT x.uid, x.created_at, x.tid, x.search, row_number() OVER () < walk
            FROM (
                SELECT r.uid, r.created_at, r.ctid AS tid, r.search FROM team_records r
                WHERE r.team_id = a.team_id AND r.project_id = a.project_id
                AND r.author_id = a.author_id AND r.kind = ANY(kinds)
                AND r.created_at <= a.created_at
                AND (r.created_at, r.uid) < (a.created_at, a.uid)
                ORDER BY r.created_at DESC LIMIT walk) x
            UNION ALL (
            SELECT r.uid, r.created_at, r.ctid, r.search, true FROM team_records r
            WHERE r.team_id = a.team_id AND r.project_id = a.project_id
            AND r.author_id = a.author_id AND r.kind = ANY(kinds)
            AND r.created_at >= a.created_at
            AND (r.created_at, r.uid) > (a.created_at, a.uid)
            ORDER BY r.created_at LIMIT walk)) v
        CROSS JOIN LATERAL (  -- kept apart (OFFSET 0): the vectors stop here, not in the sorts
            SELECT g.held, g.share,
                CASE WHEN g.held <> 0 THEN ts_rank(v.search, any_q) ELSE 0 END AS rank
            FROM (SELECT coalesce(sum(1::bigint << (k - 1)), 0)::bigint AS held,
                      coalesce(sum(wt[k]), 0) AS share
                  FROM unnest(searched) k WHERE v.search @@ tq[k]) g OFFSET 0) h
    ), rec AS (  -- one row per record, in its author's order (no sort after this one)
        SELECT w.team_id, w.author_id, w.created_at, w.uid, min(w.tid) AS tid,
            bool_or(w.after_first) AS linked, min(w.held) AS held, min(w.share) AS share,
            min(w.rank) AS rank
        FROM w GROUP BY w.team_id, w.author_id, w.created_at, w.uid
    ), near AS (  -- the terms held and the link of the 3 records either side, in one number
        SELECT c.team_id, c.uid, c.tid, c.created_at, c.rank, c.share, c.held, c.linked,
            lag(c.hl, 1, 0::bigint) OVER run AS p1, lag(c.hl, 2, 0::bigint) OVER run AS p2,
            lag(c.hl, 3, 0::bigint) OVER run AS p3, lead(c.hl, 1, 0::bigint) OVER run AS n1,
            lead(c.hl, 2, 0::bigint) OVER run AS n2, lead(c.hl, 3, 0::bigint) OVER run AS n3,
            lag(c.share) OVER run AS ps, lead(c.share) OVER run AS ns,
            max(c.rank) FILTER (WHERE c.rank > 0) OVER () AS top
        FROM (SELECT r.*, r.held * 2 + r.linked::int AS hl FROM rec r) c
        WINDOW run AS (PARTITION BY c.team_id, c.author_id ORDER BY c.created_at, c.uid)
    ), scored AS (  -- a neighbour or section member counts only through linked records
        SELECT c.tid, c.created_at, c.rank, c.share, c.top,
            greatest(CASE WHEN c.linked THEN c.ps ELSE 0 END,
                     CASE WHEN c.n1 & 1 = 1 THEN c.ns ELSE 0 END) AS neighbour,
            c.held
            | CASE WHEN c.linked THEN c.p1 >> 1
                   | CASE WHEN c.p1 & 1 = 1 THEN c.p2 >> 1
                          | CASE WHEN c.p2 & 1 = 1 THEN c.p3 >> 1 ELSE 0 END
                          ELSE 0 END
                   ELSE 0 END
            | CASE WHEN c.n1 & 1 = 1 THEN c.n1 >> 1
                   | CASE WHEN c.n2 & 1 = 1 THEN c.n2 >> 1
                          | CASE WHEN c.n3 & 1 = 1 THEN c.n3 >> 1 ELSE 0 END
                          ELSE 0 END
                   ELSE 0 END AS whole
        FROM near c
    ), best AS (
        SELECT s.tid, s.created_at,
            (s.share + formula[1] * s.neighbour
             + (formula[2] + formula[3]) * (SELECT coalesce(sum(wt[k]), 0) FROM unnest(searched) k
                WHERE s.whole & (1::bigint << (k - 1)) <> 0)) / wsum
            + formula[4] * greatest(s.rank, 0) / coalesce(s.top, 1.0) + formula[5] AS score
        FROM scored s WHERE s.share > 0
        ORDER BY score DESC, s.created_at DESC LIMIT top_n
    )
    SELECT r.uid, r.kind, r.type, r.title, r.subtitle, r.facts, r.narrative, u.name,
        r.created_at, key, b.score::float8
    FROM best b
    JOIN team_records r ON r.ctid = b.tid  -- the row the window read, in this statement
    JOIN users u ON u.id = r.author_id
    ORDER BY b.score DESC, b.created_at DESC;
END
$fn$;
"""
