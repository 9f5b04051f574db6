"""Host session ids made safe to use as a file name and a database key.

Every front door that takes a session id from outside (a hook payload, ``--session`` on the
command line, an MCP argument) cleans it here, so the same id names the same session state
file and database row whichever door it came through.
"""

from __future__ import annotations

MAX_SESSION_ID_CHARS = 128
_SAFE_ID_PUNCTUATION = str.maketrans("", "", "._-")


def sanitize_session_id(value: object) -> str:
    """A session id usable as a file name and database key.

    Only ``[A-Za-z0-9._-]`` survive (anything else, path separators included, becomes ``_``),
    leading dots are replaced so the id can never be ``.``/``..`` or a hidden name, and the
    result is at most 128 characters. Missing or empty ids become ``"unknown"``.
    """
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return "unknown"
    text = str(value).strip()
    bare = text.translate(_SAFE_ID_PUNCTUATION)
    if not (bare.isascii() and (bare.isalnum() or not bare)):  # the common case needs no regex
        import re

        text = re.sub(r"[^A-Za-z0-9._-]", "_", text)
    text = text[:MAX_SESSION_ID_CHARS]
    stripped = text.lstrip(".")
    text = "_" * (len(text) - len(stripped)) + stripped
    return text or "unknown"
