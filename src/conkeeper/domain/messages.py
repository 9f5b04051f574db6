"""Messages for a person or an agent: errors and notices, cleaned whole, and a full disk named.

Every front door (the CLI's error printer, the MCP server's tool and resource errors, the
viewer's error pages and notices, the hooks' ``systemMessage`` and block reasons) turns what
went wrong into text through this module, so no message can carry private text or a secret
that an error happened to quote (a near-duplicate entry, a path, a value): the text is cleaned
whole by :mod:`conkeeper.domain.privacy` before anyone sees it.

A full disk is named as the cause (``ENOSPC`` anywhere in the exception's chain, or SQLite's
"database or disk is full"): the ConKeeper log, where other failures point, cannot be written
then, so the message says what to do instead. Standard library only; cheap to import.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os

HIDDEN_MESSAGE = "(the message is not shown: it held only private text)"
_FULL_TEXTS = ("no space left on device", "database or disk is full", "[errno 28]")
_SQLITE_FULL = 13  # SQLITE_FULL: SQLite's own "database or disk is full"


def clean_message(text: str) -> str:
    """``text`` (an error or a notice) as it may be shown: private blocks and spans cut and
    secrets redacted, whole, before anything is selected or cut from it."""
    if not text or text.isspace() or _plain_words(text):
        return text
    from conkeeper.domain.privacy import clean_captured

    cleaned = clean_captured(text)
    return str(cleaned) if cleaned is not None else HIDDEN_MESSAGE


def clean_path(path: str) -> str:
    """``path`` (a file or folder a person is shown: a search hit, a journaled write, an
    exported or audited file) with any credential in its names redacted, so a memory file or a
    folder named after a key is never echoed. Names without a long run of letters and digits
    mixed (what every credential has) are returned without loading the privacy module."""
    if not may_hold_token(path):
        return path
    return clean_message(path)


def may_hold_token(path: str) -> bool:
    """True when a name in ``path`` has a run of 12 or more letters and digits holding both, or
    upper and lower case flipping at least twice: the least a vendor token, an access key or a
    JWT has. Dates, words, UUID groups and short ids are not asked about."""
    run = ""
    for char in path + "/":
        if char.isascii() and char.isalnum():
            run += char
            continue
        if len(run) >= 12 and _mixed(run):
            return True
        run = ""
    return not path.isascii()


def _mixed(run: str) -> bool:
    """Digits beside letters, or letters whose case flips at least twice (``gaKjIg``)."""
    if any(c.isdigit() for c in run) and not run.isdigit():
        return True
    cases = [c.islower() for c in run if c.isalpha()]
    return sum(a != b for a, b in itertools.pairwise(cases)) >= 2


def _plain_words(text: str) -> bool:
    """True for short text of ordinary words only (ASCII letters in lower, Capitalized or UPPER
    case, an apostrophe, sentence punctuation): nothing the privacy module could hide (no tag,
    no digit, no mixed-case run a credential would need), so it is shown without loading it.
    Keeps the search read path, which echoes its query, free of the privacy module's imports."""
    if len(text) > 300:
        return False
    for word in text.split():
        word = word.rstrip("?.,!:;").replace("'", "")
        if not word:
            continue
        if len(word) > 24 or not (word.isascii() and word.isalpha()):
            return False
        if not (word.islower() or word.isupper() or word[1:].islower()):
            return False
    return True


def disk_full_message(exc: BaseException, fallback_path: str | None = None) -> str | None:
    """ "the disk is full: free space on <mount point> and retry" when ``exc`` (or an
    exception it was raised from or during) is a full disk, else ``None``. The mount point is
    that of the file being written when the error names it, else of ``fallback_path``."""
    filename = None
    full = False
    for link in _chain(exc):
        if isinstance(link, OSError) and link.errno in (errno.ENOSPC, errno.EDQUOT):
            full = True
            filename = filename or _name(link.filename)
        elif _says_full(link):
            full = True
    if not full:
        return None
    if filename or fallback_path:
        where = mount_point(str(filename or fallback_path))
    else:  # the error does not say where: the places ConKeeper writes (project, data home)
        where = " or ".join(dict.fromkeys(mount_point(p) for p in _written_places()))
    return clean_message(f"the disk is full: free space on {where} and retry")


def failure_message(exc: BaseException, fallback_path: str | None = None) -> str:
    """The one line a person or an agent reads for ``exc``: a full disk named as such, else the
    exception's own message, cleaned whole."""
    return disk_full_message(exc, fallback_path) or clean_message(str(exc))


def mount_point(path: str) -> str:
    """The mount point of the file system that holds ``path`` (its nearest existing folder)."""
    current = os.path.abspath(path)
    while not os.path.exists(current) and os.path.dirname(current) != current:
        current = os.path.dirname(current)
    try:
        while not os.path.ismount(current):
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
    except OSError:
        pass
    return current


def _written_places() -> list[str]:
    """Where ConKeeper writes: the working folder (the project's memory) and the data home."""
    from conkeeper.domain.paths import data_folder

    places = [data_folder()]
    with contextlib.suppress(OSError):  # a deleted working folder
        places.insert(0, os.getcwd())
    return places


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from or while handling (each once)."""
    seen: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and all(link is not s for s in seen) and len(seen) < 20:
        seen.append(link)
        link = link.__cause__ or link.__context__
    return seen


def _says_full(exc: BaseException) -> bool:
    """SQLite's SQLITE_FULL, or a message that quotes a full disk (a wrapped ``OSError``)."""
    if getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL:
        return True
    text = str(exc).lower()
    return any(words in text for words in _FULL_TEXTS)


def _name(value: object) -> str | None:
    if isinstance(value, bytes):
        return os.fsdecode(value)
    return value if isinstance(value, str) and value else None
