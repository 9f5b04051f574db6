"""The corrections-queue line format: the one place that writes and parses a queue line.

``corrections-queue.md`` is written by the UserPromptSubmit hook, counted by SessionStart and
Stop, and read by ``conkeeper corrections``, routing and reflection. Every one of them uses this
module, so the format (the seed's, exactly) is defined once::

    - **2026-02-09 14:32:15** | correction | "no, use snake_case" | ref: previous assistant message

The user's text is kept as written: inside the double-quoted text field a ``\\``, a ``|`` and
a ``"`` are written ``\\\\``, ``\\|`` and ``\\"``, and :func:`parse_queue_line` reads them
back, so ``parse(format(text))`` gives the text again (whitespace collapsed to one line, at most
200 characters, HTML comment markers removed). Lines written before escaping (bare ``|``, no
``"`` inside) are still read. Pure stdlib and cheap to import: hooks use it.
"""

from __future__ import annotations

import re
import time

from conkeeper.domain.records import FrozenRecord

QUEUE_NAME = "corrections-queue.md"
QUEUE_HEADER = "# Corrections Queue\n<!-- Auto-populated by ConKeeper UserPromptSubmit hook -->\n\n"
QUEUE_REF = "ref: previous assistant message"
QUEUE_TEXT_CHARS = 200
LABELS = ("correction", "friction")

_HEAD = r"^- \*\*(?P<when>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\*\* \| (?P<label>[a-z]+) \| "
_LINE = re.compile(_HEAD + r'"(?P<text>(?:[^"\\]|\\.)*)" \| ref: (?P<ref>.*)$')
_OLD_LINE = re.compile(_HEAD + r'"(?P<text>[^"]*)" \| ref: (?P<ref>.*)$')  # before escaping
_ESCAPED = re.compile(r"\\([\\|\"])")
_STAMP = "%Y-%m-%d %H:%M:%S"


class QueueItem(FrozenRecord):
    """One parsed queue line (``line`` is its 1-based line number in the file)."""

    __slots__ = ("label", "line", "ref", "text", "when")
    line: int
    when: str
    label: str
    text: str
    ref: str

    def __init__(self, line: int, when: str, label: str, text: str, ref: str) -> None:
        self._set(line=line, when=when, label=label, text=text, ref=ref)


ITEM_ID_PREFIX = "q"


def item_id(item: QueueItem, digits: int = 8) -> str:
    """The name of a queued item that survives changes to the queue (``q`` and hex digits of
    its time, label and text): its line number moves up when an item above it is applied or
    rejected, so a command given the number shown a moment ago could act on another item."""
    import hashlib

    digest = hashlib.sha256(f"{item.when}|{item.label}|{item.text}".encode()).hexdigest()
    return ITEM_ID_PREFIX + digest[:digits]


def sanitize_queue_text(text: str, limit: int = QUEUE_TEXT_CHARS) -> str:
    """User text fit for one queue line, before escaping: one line, no HTML comment markers,
    at most ``limit`` characters. Pipes and quotes are kept as written."""
    flat = " ".join(text.split())
    flat = flat.replace("<!--", "").replace("-->", "")
    while "<!--" in flat or "-->" in flat:  # removing one marker can form another
        flat = flat.replace("<!--", "").replace("-->", "")
    flat = " ".join(flat.split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return flat


def format_queue_line(label: str, text: str, when: float | None = None) -> str:
    """One queue line in the seed's exact format (with newline); ``when`` is epoch seconds."""
    stamp = time.strftime(_STAMP, time.localtime(time.time() if when is None else when))
    field = escape_queue_text(sanitize_queue_text(text))
    return f'- **{stamp}** | {label} | "{field}" | {QUEUE_REF}\n'


def escape_queue_text(text: str) -> str:
    """``text`` as the queue line's quoted field: ``\\``, ``|`` and ``"`` escaped with ``\\``."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace('"', '\\"')


def unescape_queue_text(field: str) -> str:
    """The user's text from a quoted field that :func:`escape_queue_text` wrote."""
    return _ESCAPED.sub(r"\1", field) if "\\" in field else field


def parse_queue_line(line: str, number: int = 0) -> QueueItem | None:
    """The item on one line, or ``None`` when the line is not a queue entry."""
    stripped = line.strip()
    match = _LINE.match(stripped)
    if match is not None:
        text = unescape_queue_text(match["text"])
    else:
        match = _OLD_LINE.match(stripped)  # written before escaping: taken literally
        if match is None:
            return None
        text = match["text"]
    return QueueItem(number, match["when"], match["label"], text, match["ref"])


def parse_queue(text: str) -> list[QueueItem]:
    """The entries of a corrections queue (lines that do not match the format are skipped)."""
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        item = parse_queue_line(line, number)
        if item is not None:
            items.append(item)
    return items


def count_entries(text: str, since_epoch: float | None = None) -> int:
    """How many correction/friction entries ``text`` holds, optionally only those stamped at
    or after ``since_epoch`` (stamps are local time, so the bound is too)."""
    since = time.strftime(_STAMP, time.localtime(since_epoch)) if since_epoch is not None else ""
    return sum(1 for item in parse_queue(text) if item.label in LABELS and item.when >= since)


def without_entries(text: str, said: frozenset[str], first: str, last: str) -> str:
    """``text`` without the entries whose text is one of ``said`` and whose stamp lies between
    ``first`` and ``last`` (stamps in the queue's own format): what ``forget session`` takes
    back of the queue. Every other line, a person's included, stays as it is."""
    kept = []
    for line in text.splitlines(keepends=True):
        item = parse_queue_line(line)
        if item is None or item.text not in said or not first <= item.when <= last:
            kept.append(line)
    return "".join(kept)


def queue_stamp(epoch: float) -> str:
    """``epoch`` seconds as a queue line's stamp (local time)."""
    return time.strftime(_STAMP, time.localtime(epoch))
