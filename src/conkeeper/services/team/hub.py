"""What the team server does with a request: tokens, authentication, pushes and searches.

Why it exists: the server front door (:mod:`conkeeper.server`) and ``conkeeper server init`` /
``token`` only parse input and format output; the rules live here. A token is a random secret
shown once; the database keeps its SHA-256 (a high-entropy secret needs no slow hash). Every
read is limited to the teams the token's user belongs to; every write goes to the token's
team. A pushed record that still holds a private marker or a secret is refused by the same
privacy module the client ran.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

from conkeeper.services.team import gate, rank, wire
from conkeeper.storage import team_pg, team_search
from conkeeper.storage.team_pg import Grant

TOKEN_PREFIX = "ckt_"
RECENT_TYPES = ("decision", "bugfix")
FOREIGN_REASON = "another author's record (or another project's) already has this uid"


def new_token() -> str:
    """A fresh token: 256 random bits, URL-safe."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> bytes:
    """What the database stores for a token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def init_database(url: str) -> tuple[list[int], int]:
    """Create or migrate the schema; returns (versions applied now, the schema version)."""
    with team_pg.connect(url) as conn:
        applied = team_pg.migrate(conn)
        return applied, team_pg.schema_version(conn)


def issue_token(url: str, user: str, team: str) -> str:
    """A new token for ``user`` in ``team`` (both created when missing)."""
    for label, name in (("--user", user), ("--team", team)):
        if not name.strip() or len(name) > 200 or any(ord(ch) < 32 for ch in name):
            raise ValueError(f"{label} must be a non-empty name without control characters")
    token = new_token()
    with team_pg.connect(url) as conn:
        team_pg.require_current(conn)
        team_pg.create_token(conn, user.strip(), team.strip(), token_hash(token))
    return token


def revoke(url: str, token: str) -> bool:
    """Revoke a token; False when it was unknown or already revoked."""
    with team_pg.connect(url) as conn:
        team_pg.require_current(conn)
        return team_pg.revoke_token(conn, token_hash(token.strip()))


def revoke_user(url: str, user: str, team: str | None) -> int | None:
    """Revoke every active token of ``user`` (in ``team`` when given): an admin removing a
    person, or a stolen machine whose token nobody else has. ``None`` when the user (or team)
    is unknown."""
    with team_pg.connect(url) as conn:
        team_pg.require_current(conn)
        return team_pg.revoke_user_tokens(conn, user.strip(), team.strip() if team else None)


def authenticate(conn: Any, token: str) -> Grant | None:
    """The grant of a presented token, ``None`` for a wrong or revoked one."""
    if not token or len(token) > 512:
        return None
    return team_pg.token_grant(conn, token_hash(token))


def receive_push(conn: Any, grant: Grant, body: object) -> dict[str, Any]:
    """Store a push into the token's team: ``{"accepted": n, "refused": [{uid, reason}]}``,
    and ``"deleted": n`` (the deletions applied) when the push carries ``deleted``.

    A malformed request raises :class:`~conkeeper.services.team.wire.WireError`; a malformed
    record, or one that fails the privacy gate, is refused on its own (never stored), and the
    rest are upserted. Deletions are applied first (:func:`receive_deletions`).
    """
    if not isinstance(body, dict):
        raise wire.WireError("the body must be a JSON object")
    project = wire.project_key_of(body.get("project"))
    if gate.text_problem(project):
        raise wire.WireError("'project' holds a private marker or a secret; nothing was stored")
    raw = body.get("records", [] if "deleted" in body else None)
    if not isinstance(raw, list) or len(raw) > wire.MAX_RECORDS:
        raise wire.WireError(f"'records' must be a list of at most {wire.MAX_RECORDS}")
    answer: dict[str, Any] = {"accepted": 0, "refused": []}
    if "deleted" in body:
        applied = receive_deletions(conn, grant, project, body["deleted"])
        answer.update(deleted=applied["deleted"], refused=applied["refused"])
    accepted, refused = _receive_records(conn, grant, project, raw)
    answer.update(accepted=accepted, refused=answer["refused"] + refused)
    return answer


def receive_deletions(conn: Any, grant: Grant, project: str, raw: object) -> dict[str, Any]:
    """Apply an author's deletions of their records in ``project``: ``{"deleted": n (the
    deletions applied), "refused": [{uid, reason}]}``. Each leaves a tombstone, so a deletion
    delivered twice, or before the record it deletes, changes nothing more."""
    if not isinstance(raw, list) or len(raw) > wire.MAX_RECORDS:
        raise wire.WireError(f"'deleted' must be a list of at most {wire.MAX_RECORDS}")
    now = int(time.time() * 1000)
    taken, refused = [], []
    for item in raw:
        try:
            uid, at = wire.deletion_from_json(item)
        except wire.WireError as exc:
            named = item.get("uid") if isinstance(item, dict) else None
            refused.append({"uid": named if isinstance(named, str) else "", "reason": str(exc)})
            continue
        problem = gate.text_problem(uid)  # kept in the tombstone: as clean as a record
        if problem:
            refused.append({"uid": uid, "reason": problem})
        else:
            taken.append((uid, min(at, now)))
    team_pg.delete_records(conn, grant, project, taken)
    return {"deleted": len(taken), "refused": refused}


def _receive_records(
    conn: Any, grant: Grant, project: str, raw: list[Any]
) -> tuple[int, list[dict[str, Any]]]:
    """Check and store a push's records (see :func:`receive_push`): (accepted, refused)."""
    parsed, refused = [], []
    now = int(time.time() * 1000)
    for item in raw:
        try:
            parsed.append(_not_after(wire.record_from_json(item), now))
        except wire.WireError as exc:  # one bad record never blocks the others
            uid = item.get("uid") if isinstance(item, dict) else None
            refused.append({"uid": uid if isinstance(uid, str) else "", "reason": str(exc)})
    problems = gate.batch_problems([wire.record_texts(r) for r in parsed])
    accepted = []
    for record, problem in zip(parsed, problems, strict=True):
        if problem:
            refused.append({"uid": record.uid, "reason": problem})
        else:
            accepted.append(record)
    stored = team_pg.upsert_records(conn, grant, project, accepted)
    refused.extend({"uid": uid, "reason": FOREIGN_REASON} for uid in stored.foreign)
    return stored.records, refused


def _not_after(record: team_pg.TeamRecord, now: int) -> team_pg.TeamRecord:
    """A record dated in the future is dated when it arrived: ``recent`` and the search's ties
    go newest first, and a hand-made or clock-skewed date must not keep a record first."""
    return record._replace(created_at=now) if record.created_at > now else record


def search(conn: Any, grant: Grant, project: object, query: object, limit: object) -> list[Any]:
    """Hits for ``query`` in ``project`` across the grant's teams, each with its author."""
    key, text, size = _search_request(project, query, limit)
    hits = rank.search(conn, grant.read_team_ids, key, text, size)
    return [wire.hit_to_json(h) for h in hits]


def search_by_token(
    conn: Any, token: str, project: object, query: object, limit: object
) -> str | None:
    """As :func:`search`, for the teams of ``token``'s user, checked by the search's own
    statement (one round trip instead of two): the hits as the text of a JSON array, built by
    PostgreSQL (:func:`conkeeper.storage.team_search.search_page`); ``None`` when the token
    is wrong or revoked."""
    if not token or len(token) > 512:
        return None
    key, text, size = _search_request(project, query, limit)
    try:
        return rank.search_page(conn, key, text, size, token_hash(token))
    except team_search.TokenRefused:
        return None


async def search_by_token_async(
    conn: Any, token: str, project: object, query: object, limit: object
) -> str | None:
    """As :func:`search_by_token`, on an asynchronous connection: the server's search route
    runs it in its event loop, with no hop to a worker thread."""
    if not token or len(token) > 512:
        return None
    key, text, size = _search_request(project, query, limit)
    try:
        return await rank.search_page_async(conn, key, text, size, token_hash(token))
    except team_search.TokenRefused:
        return None


def _search_request(project: object, query: object, limit: object) -> tuple[str, str, int]:
    """A search request's project key, query and limit, checked (WireError when malformed)."""
    key = wire.project_key_of(project)
    if not isinstance(query, str) or not query.strip() or len(query) > 2000:
        raise wire.WireError("'q' must be a non-empty query of at most 2000 characters")
    if not wire.storable(query):
        raise wire.WireError("'q' may not hold NUL or a lone surrogate")
    return key, query, _limit(limit)


def recent(conn: Any, grant: Grant, project: object, limit: object) -> list[Any]:
    """Teammates' newest decisions and bug fixes in ``project`` (the SessionStart block)."""
    key = wire.project_key_of(project)
    hits = team_pg.recent_records(
        conn, grant.read_team_ids, key, RECENT_TYPES, _limit(limit), exclude_author=grant.user_name
    )
    return [wire.hit_to_json(h) for h in hits]


def whoami(conn: Any, grant: Grant, project: object = None) -> dict[str, Any]:
    """The grant in words, and the project's record count when one is named."""
    answer: dict[str, Any] = {"user": grant.user_name, "team": grant.team_name}
    if project is not None:
        key = wire.project_key_of(project)
        answer["project"] = key
        answer["records"] = team_pg.count_records(conn, grant.read_team_ids, key)
    return answer


def _limit(value: object) -> int:
    try:
        size = int(str(value)) if value is not None else 10
    except ValueError:
        raise wire.WireError("'limit' must be a number") from None
    return max(1, min(size, wire.SEARCH_LIMIT_MAX))
