"""The privacy gate both ends of team memory run on every record.

Why it exists: rows are cleaned before they enter the local database, but a row leaving the
machine is checked again, and the server refuses what still holds a private marker or a
secret (an older client, a bug, a hand-made request). The check is the privacy module itself:
a text is clean when :func:`conkeeper.domain.privacy.clean_captured` leaves it as it is and
no secret is found in it.
"""

from __future__ import annotations

from collections.abc import Iterable

from conkeeper.domain.privacy import clean_captured
from conkeeper.domain.secrets import find_secrets


def _normal(text: str) -> str:
    return "\n".join(text.splitlines()).strip()


def text_problem(text: str) -> str | None:
    """Why ``text`` may not leave the machine or be stored by the server, or ``None``."""
    if not text or text.isspace():
        return None
    cleaned = clean_captured(text)
    if cleaned is None:
        return "holds private content"
    if _normal(str(cleaned)) != _normal(text):
        return "holds a private marker or a secret"
    if find_secrets(text):
        return "holds a secret"
    return None


def record_problem(texts: Iterable[str]) -> str | None:
    """The first problem among a record's texts, or ``None`` when all are clean."""
    for text in texts:
        problem = text_problem(text)
        if problem:
            return problem
    return None
