"""The privacy gate both ends of team memory run on every record.

Why it exists: rows are cleaned before they enter the local database, but a row leaving the
machine is checked again, and the server refuses what still holds a private marker or a
secret (an older client, a bug, a hand-made request). The check is the privacy module itself:
a text is clean when :func:`conkeeper.domain.privacy.clean_captured` (private blocks and
spans, the context marker, then secret redaction) leaves it as it is.

A batch is checked whole first (one scan of all its records' texts, each record on lines of its
own): when that finds nothing to change, every record is clean; otherwise each record is
checked on its own and only those with a problem are refused. The whole-batch scan only ever
decides "all clean"; any doubt goes to the per-record check (property-tested).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from conkeeper.domain.privacy import clean_captured

RECORD_SEPARATOR = "\n\n"


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
    return None


def record_problem(texts: Iterable[str]) -> str | None:
    """Why a record (its texts) may not be shared, or ``None`` when it is clean. The texts are
    checked together, each on lines of its own (one scan instead of one per field)."""
    return text_problem("\n".join(_lines_of(texts)))


def batch_problems(records: Sequence[Sequence[str]]) -> list[str | None]:
    """:func:`record_problem` for every record of a batch, with one scan when all are clean."""
    if not records:
        return []
    whole = RECORD_SEPARATOR.join("\n".join(_lines_of(texts)) for texts in records)
    if text_problem(whole) is None:
        return [None] * len(records)
    return [record_problem(texts) for texts in records]


def _lines_of(texts: Iterable[str]) -> list[str]:
    return [text for text in texts if text and not text.isspace()]
