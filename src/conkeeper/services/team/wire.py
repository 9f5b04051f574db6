"""The JSON form of a team record, and its limits, shared by the client and the server.

Why it exists: one definition of what a pushed record looks like, so the sync client writes
exactly what the server reads, and a hostile or broken request is refused field by field with
a short reason instead of reaching the database.
"""

from __future__ import annotations

import re
from typing import Any

from conkeeper.storage.team_pg import TeamHit, TeamRecord

KINDS = ("observation", "summary", "prompt")
MAX_RECORDS = 1000  # per push request
MAX_TEXT = 20_000  # characters per text field
MAX_LIST = 64  # items in facts, concepts, files
MAX_KEY = 300  # project key, uid
SEARCH_LIMIT_MAX = 50
MAX_TIME = 2**63  # created_at is a PostgreSQL bigint
MAX_BODY = 16 * 1024 * 1024  # bytes of one request the server reads
PUSH_PART_BYTES = MAX_BODY // 2  # bytes of records a client puts in one push request


class WireError(ValueError):
    """A request is malformed; the message is one short sentence."""


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")  # NUL, and lone surrogates (not UTF-8)
# C0 and C1 controls but tab, newline and carriage return: terminal escapes (clear the screen,
# hide text, write the clipboard with OSC 52) that no local record holds (normalisation turns
# them into spaces) and that must not reach a teammate's terminal or agent
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def storable(value: str) -> bool:
    """Whether PostgreSQL can hold ``value``: JSON may carry NUL and lone surrogates
    (``"\\ud800"``), which no UTF-8 text column accepts."""
    return _UNSTORABLE.search(value) is None


def without_controls(text: str) -> str:
    """``text`` with every control character but tab, newline and carriage return turned into
    a space (what the sync sends, and what a client shows of a teammate's text)."""
    return _CONTROLS.sub(" ", text)


def _text(obj: dict[str, Any], name: str, limit: int = MAX_TEXT) -> str:
    value = obj.get(name, "")
    if not isinstance(value, str):
        raise WireError(f"'{name}' must be text")
    if len(value) > limit or not storable(value):
        raise WireError(f"'{name}' is too long or holds NUL or a lone surrogate")
    if _CONTROLS.search(value):
        raise WireError(f"'{name}' holds control characters (terminal escapes)")
    return value


def _strings(obj: dict[str, Any], name: str) -> tuple[str, ...]:
    value = obj.get(name, [])
    if not isinstance(value, list) or len(value) > MAX_LIST:
        raise WireError(f"'{name}' must be a list of at most {MAX_LIST} texts")
    if not all(isinstance(v, str) and len(v) <= MAX_TEXT and storable(v) for v in value):
        raise WireError(f"'{name}' must hold texts")
    if any(_CONTROLS.search(v) for v in value):
        raise WireError(f"'{name}' holds control characters (terminal escapes)")
    return tuple(value)


def record_to_json(record: TeamRecord) -> dict[str, Any]:
    """The wire form of one record."""
    return {
        "uid": record.uid,
        "kind": record.kind,
        "type": record.type,
        "title": record.title,
        "subtitle": record.subtitle,
        "facts": list(record.facts),
        "narrative": record.narrative,
        "concepts": list(record.concepts),
        "files": list(record.files),
        "created_at": record.created_at,
    }


def record_from_json(obj: object) -> TeamRecord:
    """One record from its wire form (:class:`WireError` when malformed)."""
    if not isinstance(obj, dict):
        raise WireError("a record must be an object")
    uid = _text(obj, "uid", MAX_KEY)
    kind = _text(obj, "kind", 20)
    if not uid.strip() or kind not in KINDS:
        raise WireError("a record needs a uid and a kind (observation, summary or prompt)")
    created = obj.get("created_at")
    if not isinstance(created, int) or isinstance(created, bool) or not 0 <= created < MAX_TIME:
        raise WireError("'created_at' must be a Unix time in ms")
    return TeamRecord(
        uid=uid,
        kind=kind,
        type=_text(obj, "type", 40),
        title=_text(obj, "title"),
        subtitle=_text(obj, "subtitle"),
        facts=_strings(obj, "facts"),
        narrative=_text(obj, "narrative"),
        concepts=_strings(obj, "concepts"),
        files=_strings(obj, "files"),
        created_at=created,
    )


def deletion_to_json(uid: str, deleted_at: int) -> dict[str, Any]:
    """The wire form of one deletion: the record's uid and when its author deleted it."""
    return {"uid": uid, "deleted_at": deleted_at}


def deletion_from_json(obj: object) -> tuple[str, int]:
    """One deletion ``(uid, deleted_at)`` from its wire form (:class:`WireError` when
    malformed)."""
    if not isinstance(obj, dict):
        raise WireError("a deletion must be an object")
    uid = _text(obj, "uid", MAX_KEY)
    at = obj.get("deleted_at")
    if not uid.strip():
        raise WireError("a deletion needs the uid of the record it deletes")
    if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at < MAX_TIME:
        raise WireError("'deleted_at' must be a Unix time in ms")
    return uid, at


def record_texts(record: TeamRecord) -> list[str]:
    """Every text of a record (what the privacy gate checks): its uid and type too, which the
    server stores and shows like the rest (a hand-made push can put anything in them)."""
    return [
        record.uid, record.type, record.title, record.subtitle, *record.facts, record.narrative,
        *record.concepts, *record.files,
    ]  # fmt: skip


def project_key_of(value: object) -> str:
    """A project key from a request (:class:`WireError` when missing or malformed)."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_KEY:
        raise WireError("'project' must name the project (its normalized origin URL or id)")
    if any(ch.isspace() or ord(ch) < 32 for ch in value) or not storable(value):
        raise WireError("'project' may not hold spaces, control characters or lone surrogates")
    return value


def hit_to_json(hit: TeamHit) -> dict[str, Any]:
    """The wire form of a search hit, with its author."""
    return {
        "uid": hit.uid,
        "kind": hit.kind,
        "type": hit.type,
        "title": hit.title,
        "subtitle": hit.subtitle,
        "facts": list(hit.facts),
        "narrative": hit.narrative,
        "author": hit.author,
        "created_at": hit.created_at,
        "project": hit.project_key,
        "score": round(hit.score, 6),
    }
