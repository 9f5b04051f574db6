"""Writing detections to, and reading them from, a project's ``corrections-queue.md``.

The line format itself lives in :mod:`conkeeper.domain.corrections_queue`; this module adds the
file I/O and the choice of which part of a long prompt to queue.
"""

from __future__ import annotations

from pathlib import Path

from conkeeper.domain.corrections_queue import (
    QUEUE_HEADER,
    QUEUE_NAME,
    QUEUE_TEXT_CHARS,
    QueueItem,
    format_queue_line,
    parse_queue,
)
from conkeeper.domain.safewrite import append_file
from conkeeper.services.analysis.corrections.detection import Detection


def queue_excerpt(text: str, detection: Detection) -> str:
    """The part of a prompt to queue: its start, or the matched sentence when that lies
    beyond the first 200 characters."""
    flat = " ".join(text.split())
    span = " ".join(detection.span.split())
    if span and len(flat) > QUEUE_TEXT_CHARS and span[:40] not in flat[:QUEUE_TEXT_CHARS]:
        return "… " + span
    return flat


def append_to_queue(
    memory_dir: Path, label: str, text: str, when: float | None = None, source: str = "hook"
) -> Path:
    """Append one detection to ``<memory>/corrections-queue.md`` (header first if new): an
    ``O_APPEND`` write under the lock every writer of the queue shares, journaled compactly."""
    path = memory_dir / QUEUE_NAME
    append_file(
        path,
        format_queue_line(label, text, when).encode("utf-8", "surrogateescape"),
        header=QUEUE_HEADER.encode(),
        command="queue correction",
        source=source,
        root=memory_dir,
    )
    return path


def read_queue(memory_dir: Path) -> list[QueueItem]:
    """The queue of a memory folder (empty when there is no queue file)."""
    from conkeeper.domain.textio import read_text

    path = memory_dir / QUEUE_NAME
    if not path.exists():
        return []
    return parse_queue(read_text(path))
