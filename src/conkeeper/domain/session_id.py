"""Host session ids made safe to use as a file name and a database key.

Every front door that takes a session id from outside (a hook payload, ``--session`` on the
command line, an MCP argument) cleans it here, so the same id names the same session state
file and database row whichever door it came through. An id that holds a credential (a
host or script that put a token in it) is replaced by a digest of itself: still one stable
name per session, with no secret in a file name, a database row or a log line.
"""

from __future__ import annotations

from functools import lru_cache

MAX_SESSION_ID_CHARS = 128
_MIN_SECRET_CHARS = 16  # no credential shape the secrets module knows is shorter
_MAX_SCANNED_CHARS = 4096
_SAFE_ID_PUNCTUATION = str.maketrans("", "", "._-")


def sanitize_session_id(value: object) -> str:
    """A session id usable as a file name and database key.

    Only ``[A-Za-z0-9._-]`` survive (anything else, path separators included, becomes ``_``),
    leading dots are replaced so the id can never be ``.``/``..`` or a hidden name, and the
    result is at most 128 characters. Missing or empty ids become ``"unknown"``, and an id that
    holds a credential becomes ``redacted-`` and a digest of it (:func:`without_secret`).
    """
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return "unknown"
    text = str(value).strip()
    masked = without_secret(text)
    if masked is not text:
        return masked
    bare = text.translate(_SAFE_ID_PUNCTUATION)
    if not (bare.isascii() and (bare.isalnum() or not bare)):  # the common case needs no regex
        import re

        text = re.sub(r"[^A-Za-z0-9._-]", "_", text)
    text = text[:MAX_SESSION_ID_CHARS]
    stripped = text.lstrip(".")
    text = "_" * (len(text) - len(stripped)) + stripped
    return text or "unknown"


@lru_cache(maxsize=64)
def without_secret(text: str) -> str:
    """``text``, or ``redacted-<digest>`` when it holds a credential. Host ids (UUIDs, hex) and
    short ids are never scanned, so the hook path pays nothing for them; an id is asked about
    again (the payload's tool use id, then the stored event's) at no second cost."""
    if len(text) < _MIN_SECRET_CHARS or _is_hex(text):
        return text
    from conkeeper.domain.secrets import find_secrets

    if not find_secrets(text[:_MAX_SCANNED_CHARS]):
        return text
    import hashlib

    return "redacted-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF-" for c in text)


def path_without_secret(path: str) -> str:
    """A path as a key may keep it (a transcript's path, a forgotten project's identity in a
    tombstone): ``redacted-<digest>`` when a name in it holds a credential, else the path. Paths
    of ordinary names are not scanned (:func:`conkeeper.domain.messages.may_hold_token`)."""
    from conkeeper.domain.messages import may_hold_token

    return without_secret(path) if path and may_hold_token(path) else path
