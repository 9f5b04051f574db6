"""Correction and friction detection (F7) and the corrections queue.

When the user tells the agent it got something wrong ("no, use snake_case", "I said tabs, not
spaces") or signals that the work is not going well ("that didn't work", "still failing",
"let's revert"), the prompt is queued in ``corrections-queue.md`` so ``/memory-sync`` and
``/memory-reflect`` can turn it into a durable lesson.

The package splits into :mod:`.rules` (the patterns), :mod:`.detection` (scoring a prompt) and
:mod:`.queue` (the queue file); the queue's line format is
:mod:`conkeeper.domain.corrections_queue`. This module re-exports their public names.
"""

from __future__ import annotations

from conkeeper.domain.corrections_queue import (
    QUEUE_HEADER,
    QUEUE_NAME,
    QUEUE_REF,
    QUEUE_TEXT_CHARS,
    QueueItem,
    format_queue_line,
    parse_queue,
    sanitize_queue_text,
)
from conkeeper.services.analysis.corrections.detection import (
    IGNORE_FILE,
    MAX_IGNORE_PATTERNS,
    MAX_SCAN_CHARS,
    THRESHOLDS,
    Detection,
    _join_bare_no,
    detect,
    is_ignored,
    load_ignore_patterns,
    sentences,
    strip_noise,
)
from conkeeper.services.analysis.corrections.queue import append_to_queue, queue_excerpt, read_queue
from conkeeper.services.analysis.corrections.rules import _HINTS, _RULES, CORRECTION, FRICTION

__all__ = [
    "CORRECTION",
    "FRICTION",
    "IGNORE_FILE",
    "MAX_IGNORE_PATTERNS",
    "MAX_SCAN_CHARS",
    "QUEUE_HEADER",
    "QUEUE_NAME",
    "QUEUE_REF",
    "QUEUE_TEXT_CHARS",
    "THRESHOLDS",
    "_HINTS",
    "_RULES",
    "Detection",
    "QueueItem",
    "_join_bare_no",
    "append_to_queue",
    "detect",
    "format_queue_line",
    "is_ignored",
    "load_ignore_patterns",
    "parse_queue",
    "queue_excerpt",
    "read_queue",
    "sanitize_queue_text",
    "sentences",
    "strip_noise",
]
