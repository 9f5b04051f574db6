"""The team server's PostgreSQL store: schema migrations, tokens, idempotent pushes, search.

Why it exists: team memory (``conkeeper server``, extra ``server``) keeps the observations,
summaries and (opted-in) prompts of many users and machines in one PostgreSQL database. Every
SQL statement the server runs is written here, behind functions with typed results; psycopg is
imported only inside this module, and only when a function needs it.

Schema rules (docs/team.md): a team id leads every key of team data (``team_projects``,
``team_records``), so the data can be distributed by ``team_id`` on Citus; ``teams``, ``users``,
``memberships`` and ``tokens`` are small and would become reference tables. Tokens are stored as
the SHA-256 of a high-entropy secret, never in clear. Versions are recorded in
``schema_version``; :func:`migrate` applies the missing ones in order, each in its own
transaction, under an advisory lock so two servers starting at once do not race.

Search: a stored ``tsvector`` with weights (title A, subtitle and facts B, narrative C) and a
GIN index over ``(project_id, search)`` (``btree_gin``; schema version 7, before it
``(team_id, project_id, search)``); each project's size is kept
in ``team_projects.records`` by every push. The search statements themselves live in
:mod:`conkeeper.storage.team_search`.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from conkeeper.storage import team_search

if TYPE_CHECKING:  # imported lazily: the core never needs psycopg
    import psycopg
    from psycopg_pool import AsyncConnectionPool, ConnectionPool

TS_CONFIG = "english"
APPLICATION_NAME = "conkeeper-server"  # the team server's pool connections
POOL_SIZE = 3  # connections per server process (open_pool)
POOL_TIMEOUT_S = 15.0  # the longest a request waits for a free connection
WAIT_SLICE_S = 0.25  # ... in slices, asking between them whether the database answers
RECONNECT_S = 5.0  # a pool's reconnection attempts (1, 2, 2 s apart) before a request retries
STATEMENT_TIMEOUT_S = 30.0  # a server request's statement that runs longer is cancelled (503)
IDLE_IN_TRANSACTION_S = 60  # a server connection left in an open transaction is ended
MIGRATION_LOCK = 0x434B5445414D  # "CKTEAM": pg_advisory_xact_lock key for migrations

SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS schema_version (
    version     integer PRIMARY KEY,
    description text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE teams (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE users (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE memberships (
    team_id     bigint NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (team_id, user_id)
);
CREATE INDEX memberships_user ON memberships(user_id, team_id);
-- sha256 of the token; the token itself is shown once and never stored.
CREATE TABLE tokens (
    token_hash  bytea PRIMARY KEY,
    user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    team_id     bigint NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
"""

SCHEMA_V2 = """
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE TABLE team_projects (
    team_id     bigint NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    id          bigint GENERATED ALWAYS AS IDENTITY,
    project_key text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, id),
    UNIQUE (team_id, project_key)
);
CREATE TABLE team_records (
    team_id     bigint NOT NULL,
    uid         text NOT NULL,
    project_id  bigint NOT NULL,
    author_id   bigint NOT NULL REFERENCES users(id),
    kind        text NOT NULL CHECK (kind IN ('observation', 'summary', 'prompt')),
    type        text NOT NULL DEFAULT '',
    title       text NOT NULL DEFAULT '',
    subtitle    text NOT NULL DEFAULT '',
    facts       jsonb NOT NULL DEFAULT '[]',
    narrative   text NOT NULL DEFAULT '',
    concepts    jsonb NOT NULL DEFAULT '[]',
    files       jsonb NOT NULL DEFAULT '[]',
    created_at  bigint NOT NULL,            -- Unix ms on the author's machine
    received_at timestamptz NOT NULL DEFAULT now(),
    search      tsvector NOT NULL,
    PRIMARY KEY (team_id, uid),
    FOREIGN KEY (team_id, project_id) REFERENCES team_projects(team_id, id) ON DELETE CASCADE
);
CREATE INDEX team_records_recent ON team_records(team_id, project_id, created_at DESC);
CREATE INDEX team_records_search ON team_records USING gin (project_id, search);
"""

# The search index leads with the whole scope (team, project), so a query's project filter is
# applied inside the index instead of intersecting a lexeme's postings over every team with the
# project's rows; the statistics tell the planner that a project implies its team (else it
# multiplies the two filters and underestimates a project's matches tenfold, choosing a slow
# plan). Needs btree_gin (contrib), as version 2 already did.
SCHEMA_V3 = """
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX team_records_scope_search ON team_records USING gin (team_id, project_id, search);
DROP INDEX team_records_search;
CREATE STATISTICS IF NOT EXISTS team_records_scope (dependencies)
    ON team_id, project_id FROM team_records;
ANALYZE team_records;
"""

# A project's size, kept by every push and every deletion: the team search's idf needs it for
# every query, and counting a project's records through the index costs milliseconds at 10,000
# of them.
SCHEMA_V4 = """
ALTER TABLE team_projects ADD COLUMN records bigint NOT NULL DEFAULT 0;
UPDATE team_projects p SET records = (
    SELECT count(*) FROM team_records r WHERE r.team_id = p.team_id AND r.project_id = p.id);
"""

# The whole search as one function (``storage.team_search.SEARCH_FUNCTION``): one round trip
# and one cached plan per search instead of five statements, the ranking done where the rows are.
# A version that changes the function applies its current text (``CREATE OR REPLACE``), so the
# earlier versions that created it apply the same text: every path ends with the same function.
SCHEMA_V5 = team_search.SEARCH_FUNCTION

# The ranking in one grouping and one window pass (a record's neighbours and its section read
# with lag/lead over its author's records, bounded where the windows do not join), the terms
# held, shares and ts_rank computed as the windows are read, so the sorts carry narrow rows.
SCHEMA_V6 = team_search.SEARCH_FUNCTION

# The search index over (project, words) alone: a project id is unique across teams (an
# identity), so the team adds nothing to the index's filter, and every rare word's match cost
# the GIN scan a step through the team's posting tree, ten times the project's, besides the
# project's (PostgreSQL CPU per search at 1,000,000 records: 10-17% less, same records found).
# The searches still name the team; it is checked on the row. Built in the migration's
# transaction (2 minutes 17 seconds for 1,000,000 records on the loaded 2-core machine).
SCHEMA_V7 = """
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX team_records_project_search ON team_records USING gin (project_id, search);
DROP INDEX team_records_scope_search;
"""

# The search's ranking with fewer reads and sorts (the same records and scores): each anchor
# read again by its ctid instead of its key, its window's earlier records in one scan that also
# marks which follow a record of the window, one grouping whose order the neighbours' window
# pass reuses, the neighbours' terms and links packed in one number each, the winners read by
# ctid. PostgreSQL's CPU per search 9-17% less at 1,000,000 records.
SCHEMA_V8 = team_search.SEARCH_FUNCTION

# What an author deleted (a forgotten observation or session, a stale observation a
# re-extraction dropped): the record goes, and its tombstone keeps a copy of it pushed again, as
# old as the deletion or older, from coming back (a push that was still on its way, the author's
# other machine that still holds it). A newer record under the uid (a forgotten session resumed
# and summarised again) is stored. Keyed like the records, by team first (Citus co-locates it).
SCHEMA_V9 = """
CREATE TABLE team_tombstones (
    team_id     bigint NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    uid         text NOT NULL,
    author_id   bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    deleted_at  bigint NOT NULL,            -- Unix ms on the author's machine (not after receipt)
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, uid, author_id)
);
"""

# The same observation pushed by a second author (the extractor read the same commit in two
# clones: one uid, by content) is the first author's record; the second author's claim on it is
# kept here, so when the first author deletes it the record passes to the next holder instead of
# leaving the team (it was the second author's work too, and their sync, whose mark passed it,
# never sends it again). Rows go with their record (cascade) or with their author's deletion.
SCHEMA_V10 = """
CREATE TABLE team_record_copies (
    team_id    bigint NOT NULL,
    uid        text NOT NULL,
    author_id  bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    copied_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, uid, author_id),
    FOREIGN KEY (team_id, uid) REFERENCES team_records(team_id, uid) ON DELETE CASCADE
);
"""

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (1, "teams, users, memberships, hashed tokens", SCHEMA_V1),
    (2, "team projects and records with weighted full-text search", SCHEMA_V2),
    (3, "search index over team, project and words; project-implies-team statistics", SCHEMA_V3),
    (4, "each project's record count, kept by every push", SCHEMA_V4),
    (5, "the team search as one function: counts, anchors, windows, ranking", SCHEMA_V5),
    (6, "the team search's ranking in one grouping and one window pass", SCHEMA_V6),
    (7, "search index over project and words (the project implies its team)", SCHEMA_V7),
    (8, "the team search's windows and ranking with fewer reads and sorts", SCHEMA_V8),
    (9, "tombstones: records their authors deleted stay deleted", SCHEMA_V9),
    (
        10,
        "a second author's copy of a record: it keeps the record when the first deletes",
        SCHEMA_V10,
    ),
)
LATEST_VERSION = MIGRATIONS[-1][0]

# A push is copied (``COPY``, one round trip for the whole batch) into a per-connection staging
# table, a uid sent twice in one batch keeping its last copy (the earlier copies are deleted from
# the stage), then stored: an ``INSERT ... ON CONFLICT DO NOTHING`` of the new records, which
# also takes them off the stage (its row count is what the project's size grows by), then, for
# what is left (records delivered before), the foreign check and an ``UPDATE`` of those
# delivered again with changes. A batch of new records (the usual push) so pays no lookup after
# its insert. The tsvector is computed in SQL for the whole batch; a record delivered again
# unchanged (at-least-once delivery) is not rewritten (the IS DISTINCT FROM).
_STAGE = """
CREATE TEMP TABLE IF NOT EXISTS team_push_stage (
    seq integer, uid text, kind text, type text, title text, subtitle text, facts jsonb,
    facts_text text, narrative text, concepts jsonb, concepts_text text, files jsonb,
    created_at bigint
) ON COMMIT DELETE ROWS
"""
_STAGE_COLUMNS = (
    "seq, uid, kind, type, title, subtitle, facts, facts_text, narrative, concepts, "
    "concepts_text, files, created_at"
)
_VECTOR = (
    "setweight(to_tsvector('english', s.title), 'A') || "
    "setweight(to_tsvector('english', s.subtitle || ' ' || s.facts_text), 'B') || "
    "setweight(to_tsvector('english', s.narrative || ' ' || s.concepts_text), 'C')"
)
_LATEST = "team_push_stage s"  # one row per uid once _DEDUPLICATE ran
_DEDUPLICATE = """
DELETE FROM team_push_stage a USING team_push_stage b WHERE a.uid = b.uid AND a.seq < b.seq
"""
_INSERT_NEW = f"""
WITH inserted AS (
    INSERT INTO team_records (team_id, uid, project_id, author_id, kind, type, title, subtitle,
        facts, narrative, concepts, files, created_at, search)
    SELECT %(team_id)s, s.uid, %(project_id)s, %(author_id)s, s.kind, s.type,
        s.title, s.subtitle, s.facts, s.narrative, s.concepts, s.files, s.created_at, {_VECTOR}
    FROM {_LATEST}
    ON CONFLICT (team_id, uid) DO NOTHING
    RETURNING uid
)
DELETE FROM team_push_stage t USING inserted i WHERE t.uid = i.uid
"""
_UPDATE_CHANGED = f"""
UPDATE team_records r SET
    type = s.type, title = s.title, subtitle = s.subtitle, facts = s.facts,
    narrative = s.narrative, concepts = s.concepts, files = s.files,
    created_at = s.created_at, search = {_VECTOR}
FROM {_LATEST}
WHERE r.team_id = %(team_id)s AND r.uid = s.uid
AND r.author_id = %(author_id)s AND r.project_id = %(project_id)s AND r.kind = s.kind
AND (r.type, r.title, r.subtitle, r.facts, r.narrative, r.concepts, r.files, r.created_at)
    IS DISTINCT FROM
    (s.type, s.title, s.subtitle, s.facts, s.narrative, s.concepts, s.files, s.created_at)
"""
# A uid already held by another author's record (the same observation from a teammate's clone is
# that one record, and stays theirs), or by a record of another project or kind, is never
# rewritten; those whose content differs are reported refused (a push that tried to put words
# under a teammate's name, or to move a record).
_FOREIGN = f"""
SELECT s.uid FROM {_LATEST}
JOIN team_records r ON r.team_id = %(team_id)s AND r.uid = s.uid
WHERE r.project_id <> %(project_id)s OR r.kind <> s.kind
OR (r.author_id <> %(author_id)s
    AND (r.type, r.title, r.subtitle, r.facts, r.narrative, r.concepts, r.files)
        IS DISTINCT FROM (s.type, s.title, s.subtitle, s.facts, s.narrative, s.concepts, s.files))
"""
# Staged records as old as their author's tombstone or older leave the stage unstored.
_TOMBSTONED = """
DELETE FROM team_push_stage s USING team_tombstones t
WHERE t.team_id = %(team_id)s AND t.author_id = %(author_id)s AND t.uid = s.uid
AND s.created_at <= t.deleted_at
"""
# A staged record another author's record of this project holds with the same content (the
# foreign check refuses the rest) is this author's copy of it (schema 10).
_COPIED = f"""
INSERT INTO team_record_copies (team_id, uid, author_id)
SELECT %(team_id)s, s.uid, %(author_id)s FROM {_LATEST}
JOIN team_records r ON r.team_id = %(team_id)s AND r.uid = s.uid
WHERE r.author_id <> %(author_id)s AND r.project_id = %(project_id)s AND r.kind = s.kind
AND (r.type, r.title, r.subtitle, r.facts, r.narrative, r.concepts, r.files)
    IS NOT DISTINCT FROM (s.type, s.title, s.subtitle, s.facts, s.narrative, s.concepts, s.files)
ON CONFLICT (team_id, uid, author_id) DO NOTHING
"""
_GROWN = "UPDATE team_projects SET records = records + %s WHERE team_id = %s AND id = %s"
# A deletion removes its author's own record of the project, when it is not newer than the
# deletion, and leaves a tombstone (a later deletion of the uid moves it forward).
_TOMBSTONE = """
INSERT INTO team_tombstones (team_id, uid, author_id, deleted_at)
SELECT %(team_id)s, d.uid, %(author_id)s, d.deleted_at
FROM unnest(%(uids)s::text[], %(times)s::bigint[]) AS d(uid, deleted_at)
ON CONFLICT (team_id, uid, author_id) DO UPDATE
SET deleted_at = greatest(team_tombstones.deleted_at, excluded.deleted_at), received_at = now()
"""
# A deletion drops its author's copies of teammates' records, and passes each record of its
# author it would remove to the record's earliest other holder (``team_record_copies``), whose
# copy it becomes; ``_DELETE`` then removes what no one else holds.
_DROP_COPIES = """
DELETE FROM team_record_copies c USING unnest(%(uids)s::text[]) AS d(uid)
WHERE c.team_id = %(team_id)s AND c.uid = d.uid AND c.author_id = %(author_id)s
"""
_HAND_OVER = """
WITH heirs AS (
    SELECT DISTINCT ON (c.uid) c.uid, c.author_id
    FROM team_records r
    JOIN unnest(%(uids)s::text[], %(times)s::bigint[]) AS d(uid, deleted_at) ON r.uid = d.uid
    JOIN team_record_copies c ON c.team_id = r.team_id AND c.uid = r.uid
    WHERE r.team_id = %(team_id)s AND r.author_id = %(author_id)s
    AND r.project_id = %(project_id)s AND r.created_at <= d.deleted_at
    ORDER BY c.uid, c.copied_at, c.author_id
), moved AS (
    UPDATE team_records r SET author_id = h.author_id FROM heirs h
    WHERE r.team_id = %(team_id)s AND r.uid = h.uid
    RETURNING r.uid, r.author_id
)
DELETE FROM team_record_copies c USING moved m
WHERE c.team_id = %(team_id)s AND c.uid = m.uid AND c.author_id = m.author_id
"""
_DELETE = """
DELETE FROM team_records r USING unnest(%(uids)s::text[], %(times)s::bigint[]) AS d(uid, deleted_at)
WHERE r.team_id = %(team_id)s AND r.uid = d.uid AND r.author_id = %(author_id)s
AND r.project_id = %(project_id)s AND r.created_at <= d.deleted_at
"""
_HIT_COLUMNS = (
    "r.uid, r.kind, r.type, r.title, r.subtitle, r.facts, r.narrative, u.name, r.created_at, "
    "p.project_key"
)


class TeamStoreError(Exception):
    """The team database cannot be used; the message is one line saying what to do."""


class DatabaseUnavailable(TeamStoreError):
    """The team database does not answer now (down, restarting, unreachable) or no pooled
    connection came free in time: the request is refused at once and may be retried; the
    server is served again as soon as a connection can be made."""


class Reachability:
    """What the pools' latest connection attempt said: the database answered, or not and why.

    Why it exists: while PostgreSQL is down, a request waited the pool's whole timeout (15 s)
    for a connection that could not come; the server now refuses it after one short wait
    (:data:`WAIT_SLICE_S`) once an attempt has failed, and serves again from the first attempt
    that succeeds (the pool keeps trying by itself: psycopg_pool's reconnection, bounded by
    :data:`RECONNECT_S`, and a request that finds no connection starts a new one)."""

    def __init__(self) -> None:
        self.down = False
        self.reason = ""

    def failed(self, exc: BaseException) -> None:
        """A connection attempt failed."""
        self.reason = _first_line(exc)
        self.down = True

    def answered(self) -> None:
        """A connection attempt succeeded."""
        self.down = False


class Grant(NamedTuple):
    """Who a valid token belongs to: the user, the team it pushes into, every team it reads."""

    user_id: int
    user_name: str
    team_id: int
    team_name: str
    read_team_ids: tuple[int, ...]


class Stored(NamedTuple):
    """What a push did: how many records are stored as sent (new, updated or already equal),
    and the uids refused because another author's, project's or kind's record holds them."""

    records: int
    foreign: tuple[str, ...]


class TeamRecord(NamedTuple):
    """One record as a client pushes it (already privacy-clean on the client and checked again
    by the server before it reaches :func:`upsert_records`)."""

    uid: str
    kind: str
    type: str
    title: str
    subtitle: str
    facts: tuple[str, ...]
    narrative: str
    concepts: tuple[str, ...]
    files: tuple[str, ...]
    created_at: int


class TeamHit(NamedTuple):
    """A search hit or recent record, with its author."""

    uid: str
    kind: str
    type: str
    title: str
    subtitle: str
    facts: tuple[str, ...]
    narrative: str
    author: str
    created_at: int
    project_key: str
    score: float


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise TeamStoreError(
            "the team server needs psycopg 3; install it with: pip install 'conkeeper[server]'"
        ) from None
    return psycopg


def connect(url: str) -> psycopg.Connection[Any]:
    """One connection to the team database (a one-line error when it cannot be reached)."""
    driver = _psycopg()
    try:
        conn: psycopg.Connection[Any] = driver.connect(url, connect_timeout=10)
    except driver.Error as exc:
        raise TeamStoreError(f"cannot connect to the team database: {_first_line(exc)}") from None
    _configure(conn)
    return conn


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Set a connection up for the store's queries.

    Python integers are sent as ``bigint``, the type of every id column: psycopg would send a
    small one as ``smallint``, and ``btree_gin``'s operator classes have no cross-type
    operators, so ``team_id = 2::smallint`` could not use the search index at all. (The search
    statements that depend on the words carry their values as literals, ids cast to bigint, so
    each is planned for its own words: :mod:`conkeeper.storage.team_search`.)
    """
    from psycopg.types.numeric import Int8Dumper

    conn.adapters.register_dumper(int, Int8Dumper)


def _limits(statement_timeout_s: float) -> str:
    """The settings every server connection runs with: each statement's plan generic (planned
    once per connection; the statements whose plan must depend on their values, the search's
    words, are sent with the values written in, :mod:`conkeeper.storage.team_search`), a
    statement cancelled after ``statement_timeout_s`` (a request stuck behind a lock or a
    runaway plan answers 503 instead of holding a worker and a connection for ever) and a
    transaction left open ended. One round trip per new connection."""
    timeout_ms = max(1, round(statement_timeout_s * 1000))
    return (
        "SET plan_cache_mode = force_generic_plan;"
        f" SET statement_timeout = {timeout_ms};"
        f" SET idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION_S * 1000}"
    )


def _configure_pooled(statement_timeout_s: float) -> Any:
    """The ``configure`` callback of :func:`open_pool`: as :func:`_configure`, with
    :func:`_limits`."""
    limits = _limits(statement_timeout_s)

    def configure(conn: psycopg.Connection[Any]) -> None:
        _configure(conn)
        conn.execute(limits)

    return configure


def _configure_pooled_async(statement_timeout_s: float) -> Any:
    """As :func:`_configure_pooled`, for a connection of :func:`open_async_pool`."""
    limits = _limits(statement_timeout_s)

    async def configure(conn: psycopg.AsyncConnection[Any]) -> None:
        from psycopg.types.numeric import Int8Dumper

        conn.adapters.register_dumper(int, Int8Dumper)
        await conn.execute(limits)

    return configure


# No BEGIN/COMMIT round trips around a request's reads (a write opens its own transaction);
# the name tells the server's connections apart in pg_stat_activity; TCP keepalives find a
# connection whose peer vanished (a failed-over host, a dropped NAT entry) in about a minute
# instead of the kernel's two hours.
_POOLED = {
    "autocommit": True,
    "application_name": APPLICATION_NAME,
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}


def open_pool(
    url: str,
    max_size: int = POOL_SIZE,
    min_size: int = 1,
    reach: Reachability | None = None,
    statement_timeout_s: float = STATEMENT_TIMEOUT_S,
) -> ConnectionPool:
    """A connection pool for the server's requests that run in threads; opened and checked
    once (fails in one line) unless ``min_size`` is 0 (then it connects when first used). Its
    connections are in autocommit: a request's reads need no transaction of their own. Each
    connection is checked when a request takes it (:func:`_check`: one poll, a round trip
    only when the server said something), so one PostgreSQL closed on a restart is replaced,
    not handed out; every connection attempt tells ``reach`` how it went.

    Small on purpose (:data:`POOL_SIZE` per server process): a worker process runs on one
    core and PostgreSQL usually shares the machine, so more connections only make more
    backends compete for the same cores (with 20 clients on 2 cores, 3 connections per
    worker served 20% more searches than 8, at 18% less PostgreSQL CPU per search)."""
    connect(url).close()  # an unreachable database fails here, at once, in one line with
    # its reason (the pool would retry for 15 s, logging each failure over several lines)
    from psycopg_pool import ConnectionPool, PoolTimeout

    pool = ConnectionPool(
        url,
        connection_class=_watched(reach or Reachability()),
        min_size=min_size,
        max_size=max_size,
        open=False,
        timeout=POOL_TIMEOUT_S,
        reconnect_timeout=RECONNECT_S,
        configure=_configure_pooled(statement_timeout_s),
        check=_check,
        kwargs=dict(_POOLED),
    )
    try:
        pool.open(wait=min_size > 0, timeout=POOL_TIMEOUT_S)
    except PoolTimeout:
        pool.close()
        raise TeamStoreError("cannot connect to the team database (timed out)") from None
    return pool


def async_pool(
    url: str,
    max_size: int = POOL_SIZE,
    reach: Reachability | None = None,
    statement_timeout_s: float = STATEMENT_TIMEOUT_S,
) -> AsyncConnectionPool:
    """The pool of the server's searches, which run in its event loop (no worker thread):
    created closed, opened by :func:`open_async_pool` once the loop runs; its connections
    checked and watched as :func:`open_pool`'s."""
    _psycopg()
    from psycopg_pool import AsyncConnectionPool

    return AsyncConnectionPool(
        url,
        connection_class=_watched_async(reach or Reachability()),
        min_size=1,
        max_size=max_size,
        open=False,
        timeout=POOL_TIMEOUT_S,
        reconnect_timeout=RECONNECT_S,
        configure=_configure_pooled_async(statement_timeout_s),
        check=_check_async,
        kwargs=dict(_POOLED),
    )


async def open_async_pool(pool: AsyncConnectionPool) -> None:
    """Open :func:`async_pool`'s pool and wait for its first connection (one line if it
    cannot connect)."""
    from psycopg_pool import PoolTimeout

    try:
        await pool.open(wait=True, timeout=POOL_TIMEOUT_S)
    except PoolTimeout:
        await pool.close()
        raise TeamStoreError("cannot connect to the team database (timed out)") from None


def _watched(reach: Reachability) -> type[psycopg.Connection[Any]]:
    """psycopg's connection class, telling ``reach`` how each of the pool's connection
    attempts went (the pool's ``connection_class``)."""
    _psycopg()
    import psycopg

    class Watched(psycopg.Connection[Any]):
        @classmethod
        def connect(cls, *args: Any, **kwargs: Any) -> Any:
            try:
                conn = super().connect(*args, **kwargs)
            except psycopg.Error as exc:
                reach.failed(exc)
                raise
            reach.answered()
            return conn

    return Watched


def _watched_async(reach: Reachability) -> type[psycopg.AsyncConnection[Any]]:
    """As :func:`_watched`, for the searches' asynchronous pool."""
    _psycopg()
    import psycopg

    class Watched(psycopg.AsyncConnection[Any]):
        @classmethod
        async def connect(cls, *args: Any, **kwargs: Any) -> Any:
            try:
                conn = await super().connect(*args, **kwargs)
            except psycopg.Error as exc:
                reach.failed(exc)
                raise
            reach.answered()
            return conn

    return Watched


def _check(conn: psycopg.Connection[Any]) -> None:
    """The pools' ``check``: a connection PostgreSQL closed (a restart, a terminated backend)
    is refused, and the pool takes or makes another. An idle connection's socket has nothing
    to read unless the server spoke (its goodbye on a shutdown) or hung up, so only then is
    psycopg_pool's own check (an empty query, a round trip) run: a search pays one poll."""
    if conn.closed or conn.broken:
        raise _psycopg().OperationalError("the connection is closed")
    if _has_input(conn):
        from psycopg_pool import ConnectionPool

        ConnectionPool.check_connection(conn)


async def _check_async(conn: psycopg.AsyncConnection[Any]) -> None:
    """As :func:`_check`, for the asynchronous pool."""
    if conn.closed or conn.broken:
        raise _psycopg().OperationalError("the connection is closed")
    if _has_input(conn):
        from psycopg_pool import AsyncConnectionPool

        await AsyncConnectionPool.check_connection(conn)


def _has_input(conn: Any) -> bool:
    """Whether an idle connection's socket is readable (or hung up) right now."""
    import select

    try:
        fd = conn.pgconn.socket
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            return bool(poller.poll(0))
        return bool(select.select([fd], [], [], 0)[0])
    except (OSError, ValueError, _psycopg().Error):
        return True  # cannot tell: the full check decides


@contextmanager
def pooled(pool: ConnectionPool, reach: Reachability) -> Iterator[psycopg.Connection[Any]]:
    """A connection of ``pool`` for one request, as ``pool.connection()`` gives it, but
    :class:`DatabaseUnavailable` at once when the database does not answer (instead of the
    pool's whole timeout), and when the connection is lost during the request."""
    from psycopg_pool import PoolTimeout

    deadline = time.monotonic() + pool.timeout
    while True:
        try:
            conn = pool.getconn(timeout=_slice(deadline))
            break
        except PoolTimeout:
            _refuse_if_down(reach, deadline)
    try:
        with conn:
            yield conn
    except (_psycopg().OperationalError, _psycopg().InterfaceError) as exc:
        raise _unavailable(conn, exc) from None
    finally:
        pool.putconn(conn)


@asynccontextmanager
async def pooled_async(
    pool: AsyncConnectionPool, reach: Reachability
) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """As :func:`pooled`, for the asynchronous pool."""
    from psycopg_pool import PoolTimeout

    deadline = time.monotonic() + pool.timeout
    while True:
        try:
            conn = await pool.getconn(timeout=_slice(deadline))
            break
        except PoolTimeout:
            _refuse_if_down(reach, deadline)
    try:
        async with conn:
            yield conn
    except (_psycopg().OperationalError, _psycopg().InterfaceError) as exc:
        raise _unavailable(conn, exc) from None
    finally:
        await pool.putconn(conn)


def _unavailable(conn: Any, exc: Exception) -> Exception:
    """What a request's connection error means: :class:`DatabaseUnavailable` when it ended
    the connection or when the statement ran past the statement timeout (both answer 503,
    the request may be retried), else the error itself (a statement's own failure)."""
    if _gone(conn):
        return DatabaseUnavailable(f"the team database went away: {_first_line(exc)}")
    if isinstance(exc, _psycopg().errors.QueryCanceled):
        return DatabaseUnavailable(f"the team database took too long: {_first_line(exc)}")
    return exc


def _slice(deadline: float) -> float:
    return max(min(WAIT_SLICE_S, deadline - time.monotonic()), 0.001)


def _refuse_if_down(reach: Reachability, deadline: float) -> None:
    """After a wait that found no connection: refuse when the database did not answer the
    last attempt, or when the whole timeout went by (every connection busy)."""
    if reach.down:
        raise DatabaseUnavailable(f"the team database does not answer: {reach.reason}")
    if time.monotonic() >= deadline:
        raise DatabaseUnavailable("no connection to the team database came free in time")


def _gone(conn: Any) -> bool:
    """Whether an error ended the connection (the server shut down or went away mid-request),
    rather than being a statement's own error."""
    return bool(conn.closed or conn.broken)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# --------------------------------------------------------------------------- migrations


def schema_version(conn: psycopg.Connection[Any]) -> int:
    """The newest applied version, 0 for an empty database."""
    row = conn.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
    return int(found[0]) if found else 0


def migrate(conn: psycopg.Connection[Any], target: int | None = None) -> list[int]:
    """Apply the missing migrations up to ``target`` (default: all); returns those applied.

    A database newer than this code is refused, never modified.
    """
    goal = LATEST_VERSION if target is None else target
    applied: list[int] = []
    for version, description, sql in MIGRATIONS:
        if version > goal:
            break
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            current = schema_version(conn)
            if current > LATEST_VERSION:
                raise TeamStoreError(
                    f"the team database has schema version {current}, newer than this "
                    f"ConKeeper knows ({LATEST_VERSION}); upgrade ConKeeper"
                )
            if version <= current:
                continue
            conn.execute(sql)
            conn.execute(
                "INSERT INTO schema_version(version, description) VALUES (%s, %s)",
                (version, description),
            )
            applied.append(version)
    return applied


def require_current(conn: psycopg.Connection[Any]) -> None:
    """Refuse to serve a database whose schema is not this code's (one line saying what to do)."""
    current = schema_version(conn)
    if current != LATEST_VERSION:
        raise TeamStoreError(
            f"the team database has schema version {current}, this ConKeeper needs "
            f"{LATEST_VERSION}; run: conkeeper server init --database URL"
        )


# --------------------------------------------------------------------------- tokens


def _ensure_named(conn: psycopg.Connection[Any], table: str, name: str) -> int:
    row = conn.execute(
        f"INSERT INTO {table}(name) VALUES (%s) ON CONFLICT (name) DO NOTHING RETURNING id",
        (name,),
    ).fetchone()
    if row is None:
        row = conn.execute(f"SELECT id FROM {table} WHERE name = %s", (name,)).fetchone()
    assert row is not None
    return int(row[0])


def create_token(conn: psycopg.Connection[Any], user: str, team: str, token_hash: bytes) -> None:
    """Store a token (by hash) for ``user`` in ``team``, creating both and the membership."""
    with conn.transaction():
        user_id = _ensure_named(conn, "users", user)
        team_id = _ensure_named(conn, "teams", team)
        conn.execute(
            "INSERT INTO memberships(team_id, user_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (team_id, user_id),
        )
        conn.execute(
            "INSERT INTO tokens(token_hash, user_id, team_id) VALUES (%s, %s, %s)",
            (token_hash, user_id, team_id),
        )


# A user belongs to a team while they hold an active token of it: reads cover every team of
# the user, so a membership left behind by a revoked token would keep a removed user reading
# that team through their token of another. Their records stay (authored, in the team).
_DROP_IDLE_MEMBERSHIP = """
DELETE FROM memberships m WHERE m.user_id = %s AND m.team_id = %s
AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.user_id = m.user_id AND t.team_id = m.team_id
                AND t.revoked_at IS NULL)
"""


def revoke_token(conn: psycopg.Connection[Any], token_hash: bytes) -> bool:
    """Revoke a token (and its team's membership when it was the user's last token there);
    False when no active token has this hash."""
    return _revoke(conn, "t.token_hash = %s", (token_hash,)) > 0


def revoke_user_tokens(conn: psycopg.Connection[Any], user: str, team: str | None) -> int | None:
    """Revoke every active token of ``user`` (in ``team`` when given), and the memberships;
    how many were revoked, ``None`` when there is no such user (or team)."""
    names = conn.execute(
        "SELECT (SELECT id FROM users WHERE name = %s), (SELECT id FROM teams WHERE name = %s)",
        (user, team or ""),
    ).fetchone()
    if names is None or names[0] is None or (team is not None and names[1] is None):
        return None
    if team is None:
        return _revoke(conn, "t.user_id = %s", (names[0],))
    return _revoke(conn, "t.user_id = %s AND t.team_id = %s", (names[0], names[1]))


def _revoke(conn: psycopg.Connection[Any], where: str, params: tuple[object, ...]) -> int:
    with conn.transaction():
        pairs = conn.execute(
            f"UPDATE tokens t SET revoked_at = now() WHERE {where} AND t.revoked_at IS NULL "
            "RETURNING t.user_id, t.team_id",
            params,
        ).fetchall()
        for user_id, team_id in sorted(set(pairs)):
            conn.execute(_DROP_IDLE_MEMBERSHIP, (user_id, team_id))
    return len(pairs)


def token_grant(conn: psycopg.Connection[Any], token_hash: bytes) -> Grant | None:
    """The grant of an active token, ``None`` for a revoked or unknown one."""
    row = conn.execute(
        "SELECT t.user_id, u.name, t.team_id, tm.name, "
        "  ARRAY(SELECT m.team_id FROM memberships m WHERE m.user_id = t.user_id "
        "        ORDER BY m.team_id) "
        "FROM tokens t JOIN users u ON u.id = t.user_id JOIN teams tm ON tm.id = t.team_id "
        "WHERE t.token_hash = %s AND t.revoked_at IS NULL",
        (token_hash,),
    ).fetchone()
    if row is None:
        return None
    return Grant(int(row[0]), str(row[1]), int(row[2]), str(row[3]), tuple(row[4]))


# --------------------------------------------------------------------------- records


def ensure_project(conn: psycopg.Connection[Any], team_id: int, project_key: str) -> int:
    """The id of ``project_key`` inside ``team_id`` (created when missing)."""
    row = conn.execute(
        "INSERT INTO team_projects(team_id, project_key) VALUES (%s, %s) "
        "ON CONFLICT (team_id, project_key) DO NOTHING RETURNING id",
        (team_id, project_key),
    ).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT id FROM team_projects WHERE team_id = %s AND project_key = %s",
            (team_id, project_key),
        ).fetchone()
    assert row is not None
    return int(row[0])


def upsert_records(
    conn: psycopg.Connection[Any],
    grant: Grant,
    project_key: str,
    records: Sequence[TeamRecord],
) -> Stored:
    """Insert or update records by ``(team_id, uid)``, in one transaction: a record sent twice
    (at-least-once delivery) is stored once. Only the author's own records of this project are
    ever updated: a uid another author's record holds is that record (see ``_FOREIGN``). A
    record its author deleted since (a tombstone as new as the record or newer) is not stored
    again, and counts as stored as sent: the deletion is the author's newer word on it."""
    if not records:
        return Stored(0, ())
    with conn.transaction():
        project_id = ensure_project(conn, grant.team_id, project_key)
        conn.execute(_STAGE)
        conn.execute("DELETE FROM team_push_stage")  # inside an outer transaction, rows linger
        with conn.cursor() as cur:
            with cur.copy(f"COPY team_push_stage ({_STAGE_COLUMNS}) FROM STDIN") as copy:
                for seq, r in enumerate(records):
                    copy.write_row(_stage_row(seq, r))
            ids = {"team_id": grant.team_id, "project_id": project_id, "author_id": grant.user_id}
            cur.execute(_DEDUPLICATE)
            staged = len(records) - max(cur.rowcount, 0)
            cur.execute(_TOMBSTONED, ids)  # deleted by their author: not stored again
            staged -= max(cur.rowcount, 0)
            cur.execute(_INSERT_NEW, ids)  # takes the new records off the stage
            inserted = max(cur.rowcount, 0)
            foreign: tuple[str, ...] = ()
            if inserted:
                cur.execute(_GROWN, (inserted, grant.team_id, project_id))
            if inserted < staged:  # records delivered before are left on the stage
                cur.execute(_FOREIGN, ids)
                foreign = tuple(sorted(str(row[0]) for row in cur.fetchall()))
                cur.execute(_UPDATE_CHANGED, ids)
                cur.execute(_COPIED, ids)
    return Stored(len(records) - len(foreign), foreign)


def delete_records(
    conn: psycopg.Connection[Any],
    grant: Grant,
    project_key: str,
    deletions: Sequence[tuple[str, int]],
) -> int:
    """Apply deletions ``(uid, deleted_at)`` of the grant's author in one transaction: each
    removes the author's own record of the project (never a teammate's, never one newer than
    the deletion) and leaves a tombstone, so applying one twice changes nothing. A record a
    teammate pushed too (the same observation from their clone) is not removed but passes to
    them; the author's copies of teammates' records are dropped. Returns the records removed."""
    latest: dict[str, int] = {}
    for uid, at in deletions:
        latest[uid] = max(at, latest.get(uid, at))
    if not latest:
        return 0
    params = {
        "team_id": grant.team_id,
        "author_id": grant.user_id,
        "uids": list(latest),
        "times": list(latest.values()),
    }
    with conn.transaction():
        conn.execute(_TOMBSTONE, params)
        found = conn.execute(
            "SELECT id FROM team_projects WHERE team_id = %s AND project_key = %s",
            (grant.team_id, project_key),
        ).fetchone()
        if found is None:
            return 0
        conn.execute(_DROP_COPIES, params)
        conn.execute(_HAND_OVER, {**params, "project_id": found[0]})
        removed = max(conn.execute(_DELETE, {**params, "project_id": found[0]}).rowcount, 0)
        if removed:
            conn.execute(_GROWN, (-removed, grant.team_id, found[0]))
    return removed


def _stage_row(seq: int, r: TeamRecord) -> tuple[object, ...]:
    """One record as a row of ``team_push_stage`` (JSON arrays as text; COPY parses them)."""
    return (
        seq,
        r.uid,
        r.kind,
        r.type,
        r.title,
        r.subtitle,
        json.dumps(list(r.facts), ensure_ascii=False),
        " ".join(r.facts),
        r.narrative,
        json.dumps(list(r.concepts), ensure_ascii=False),
        " ".join(r.concepts),
        json.dumps(list(r.files), ensure_ascii=False),
        r.created_at,
    )


def _project_ids(
    conn: psycopg.Connection[Any], team_ids: Sequence[int], key: str
) -> list[tuple[int, int]]:
    """``(team_id, project_id)`` of a project key in each of the teams that hold it."""
    rows = conn.execute(
        "SELECT team_id, id FROM team_projects WHERE team_id = ANY(%s) AND project_key = %s",
        (list(team_ids), key),
    ).fetchall()
    return [(int(r[0]), int(r[1])) for r in rows]


def hit_from_row(row: Sequence[Any]) -> TeamHit:
    """A hit from a row of uid, kind, type, title, subtitle, facts, narrative, author name,
    created_at, project key and (optionally) score."""
    facts = row[5] if isinstance(row[5], list) else json.loads(row[5] or "[]")
    return TeamHit(
        uid=str(row[0]),
        kind=str(row[1]),
        type=str(row[2]),
        title=str(row[3]),
        subtitle=str(row[4]),
        facts=tuple(str(f) for f in facts),
        narrative=str(row[6]),
        author=str(row[7]),
        created_at=int(row[8]),
        project_key=str(row[9]),
        score=float(row[10]) if len(row) > 10 else 0.0,
    )


def recent_records(
    conn: psycopg.Connection[Any],
    team_ids: Sequence[int],
    project_key: str,
    types: Sequence[str],
    limit: int,
    exclude_author: str = "",
) -> list[TeamHit]:
    """The newest observations of ``types`` for a project (the SessionStart team block)."""
    project_ids = _project_ids(conn, team_ids, project_key)
    if not project_ids:
        return []
    rows = conn.execute(
        f"SELECT {_HIT_COLUMNS} FROM team_records r JOIN users u ON u.id = r.author_id "
        "JOIN team_projects p ON p.team_id = r.team_id AND p.id = r.project_id "
        "WHERE r.team_id = ANY(%s) AND r.project_id = ANY(%s) "
        "AND r.kind = 'observation' AND r.type = ANY(%s) "
        "AND u.name <> %s ORDER BY r.created_at DESC LIMIT %s",
        (
            [team for team, _ in project_ids],
            [project for _, project in project_ids],
            list(types),
            exclude_author,
            limit,
        ),
    ).fetchall()
    return [hit_from_row(r) for r in rows]


def count_records(conn: psycopg.Connection[Any], team_ids: Sequence[int], project_key: str) -> int:
    """How many records a project holds in the given teams (the count every push keeps)."""
    row = conn.execute(
        "SELECT coalesce(sum(records), 0) FROM team_projects "
        "WHERE team_id = ANY(%s) AND project_key = %s",
        (list(team_ids), project_key),
    ).fetchone()
    return int(row[0]) if row else 0


def record_uids(conn: psycopg.Connection[Any], team_id: int, project_key: str) -> list[str]:
    """Every record uid of a project in one team (tests and ``team status`` compare them)."""
    rows = conn.execute(
        "SELECT r.uid FROM team_records r JOIN team_projects p "
        "ON p.team_id = r.team_id AND p.id = r.project_id "
        "WHERE p.team_id = %s AND p.project_key = %s ORDER BY r.uid",
        (team_id, project_key),
    ).fetchall()
    return [str(r[0]) for r in rows]
