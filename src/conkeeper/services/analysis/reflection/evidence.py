"""Gathering the evidence a reflection reads, privacy-stripped, for one session or a period.

Sources (seed 001, phase 08, "Gather Evidence"): the session's tool events (database rows; the
``sessions/YYYY-MM-DD-observations.md`` log when the database has none, as on hosts without
hooks), its prompts, the corrections queue, stored session summaries, earlier retros and the
memory files (through :mod:`.known`), and Claude Code's own session facets when its
``/insights`` wrote them (``~/.claude/usage-data/facets/<session id>.json``: LLM-classified
``friction_counts``, ``friction_detail``, ``outcome``; skipped when the folder or the session's
file does not exist). Every text is cleaned whole by the privacy module before anything selects
or quotes from it.
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from conkeeper.domain.observations import ToolEvent
from conkeeper.storage.reflection import SessionRow

LOG_LINE = re.compile(
    r"^- \*\*(?P<time>\d{2}:\d{2}:\d{2})\*\* \| `(?P<tool>[^`]*)` \| (?P<action>[\w-]+) \| "
    r"(?:`(?P<path>(?:[^`\\]|\\.)*)`|—) \| (?:`(?P<summary>(?:[^`\\]|\\.)*)`|—) \| "
    r"(?P<status>success|failure|interrupted)(?:: (?P<error>.*))?$"
)


@dataclass
class Correction:
    """A correction or friction signal in the window: from the queue (``queued``) or found in
    a stored prompt whose queue line was already processed."""

    when_ms: int
    label: str
    text: str
    queued: bool
    line_ms: int = 0  # a queue line's own stamp (whole seconds): the line, whatever session
    exact: bool = False  # a queue line whose own prompt this window holds (its time is known)

    def key(self) -> tuple[int, str]:
        """What names one correction however many open sessions' windows saw it."""
        return ((self.line_ms or self.when_ms) // 1000, self.text[:60])


@dataclass
class Facet:
    """Claude Code's classification of one session (its ``/insights`` facets file)."""

    session: str
    when_ms: int
    friction: dict[str, int]
    detail: str
    outcome: str


@dataclass
class Evidence:
    """Everything one reflection reads. ``events`` pairs each tool use with its duration
    (ms); ``created_at`` of events is Unix ms."""

    memory_dir: Path
    scope: str
    since_ms: int
    until_ms: int
    sessions: list[SessionRow] = field(default_factory=list)
    events: list[tuple[ToolEvent, int]] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    prompt_ms: list[int] = field(default_factory=list)  # when each prompt was sent (Unix ms)
    prompt_session: list[int] = field(default_factory=list)  # each prompt's ``sessions.id``
    corrections: list[Correction] = field(default_factory=list)
    summaries: list[dict[str, str]] = field(default_factory=list)
    facets: list[Facet] = field(default_factory=list)
    # tool uses of the project's other sessions: what ran after this work stopped
    later_events: list[ToolEvent] = field(default_factory=list)

    @property
    def failures(self) -> int:
        """How many tool uses failed (one the user interrupted is no failure of the tool)."""
        return sum(1 for e, _ in self.events if e.failed and e.status != "interrupted")


def clean(text: str | None) -> str:
    """``text`` cleaned whole by the privacy module (private spans cut, secrets redacted)."""
    from conkeeper.domain.privacy import clean_captured

    return clean_captured(text or "") or ""


def _queue_ms(stamp: str) -> int:
    return int(time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S")) * 1000)


def gather(
    conn: sqlite3.Connection | None,
    memory_dir: Path,
    sessions: list[SessionRow],
    *,
    scope: str,
    since_ms: int | None = None,
    sensitivity: str = "low",
    later: list[SessionRow] | None = None,
) -> Evidence:
    """The evidence for ``sessions`` (or, with none, for the period from ``since_ms``)."""
    now = int(time.time() * 1000)
    start = since_ms if since_ms is not None else min((s.started_at for s in sessions), default=0)
    end = max((s.ended_at or now for s in sessions), default=now) if since_ms is None else now
    evidence = Evidence(memory_dir, scope, start, end)
    evidence.sessions = list(sessions)
    if conn is not None:
        _from_database(conn, evidence)
        if later:
            from conkeeper.storage import reflection as store

            evidence.later_events = [
                event for session in later for event, _ in store.session_events(conn, session.id)
            ]
    if not evidence.events and (conn is None or not sessions):
        # The logs are read by time alone: for a recorded session with no events of its own
        # (only opened, or idle while others work) they would hand it other sessions' tools.
        evidence.events = _from_logs(memory_dir, start, end)
    _corrections(evidence, sensitivity, conn)
    evidence.facets = read_facets([s.host_session_id for s in sessions])
    return evidence


MAX_FACET_BYTES = 256 * 1024


def facets_dir() -> Path:
    """Where Claude Code's ``/insights`` keeps its per-session facets."""
    return Path.home() / ".claude" / "usage-data" / "facets"


def read_facets(session_ids: list[str], folder: Path | None = None) -> list[Facet]:
    """The facets of these sessions that exist and parse (missing folder or files: none)."""
    import json

    from conkeeper.domain.session_id import sanitize_session_id

    base = folder if folder is not None else facets_dir()
    found = []
    for session in dict.fromkeys(session_ids):
        path = base / f"{sanitize_session_id(session)}.json"
        try:
            if path.is_symlink() or path.stat().st_size > MAX_FACET_BYTES:
                continue
            data = json.loads(path.read_text(encoding="utf-8"))
            when = int(path.stat().st_mtime * 1000)
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            found.append(_facet(session, when, data))
    return found


def _facet(session: str, when_ms: int, data: dict[str, object]) -> Facet:
    counts = data.get("friction_counts")
    friction = {
        str(kind): value
        for kind, value in (counts.items() if isinstance(counts, dict) else [])
        if isinstance(value, int) and not isinstance(value, bool) and value > 0
    }
    detail = data.get("friction_detail")
    outcome = data.get("outcome")
    return Facet(
        session,
        when_ms,
        friction,
        clean(detail if isinstance(detail, str) else ""),
        clean(outcome if isinstance(outcome, str) else ""),
    )


def _from_database(conn: sqlite3.Connection, evidence: Evidence) -> None:
    from conkeeper.storage import reflection as store

    for session in evidence.sessions:
        latest = 0  # a session's events come in the order its hooks stored them
        for event, duration in store.session_events(conn, session.id):
            latest = max(latest, event.created_at)  # a hook whose clock is behind: not earlier
            cleaned = ToolEvent(
                id=event.id,
                prompt_number=event.prompt_number,
                tool_use_id=event.tool_use_id,
                tool_name=event.tool_name,
                action=event.action,
                paths=event.paths,
                input_summary=clean(event.input_summary),
                status=event.status,
                error=clean(event.error) or None,
                exit_code=event.exit_code,
                created_at=latest,
            )
            evidence.events.append((cleaned, duration))
        for _n, text, at in store.session_prompts(conn, session.id):
            evidence.prompts.append(clean(text))
            evidence.prompt_ms.append(at)
            evidence.prompt_session.append(session.id)
        summary = store.session_summary(conn, session.id)
        if summary:
            evidence.summaries.append({k: clean(v) for k, v in summary.items()})


def _unescape(cell: str | None) -> str:
    return (cell or "").replace("\\|", "|")


def _from_logs(memory_dir: Path, start_ms: int, end_ms: int) -> list[tuple[ToolEvent, int]]:
    """Tool uses parsed from the observation logs of the days in the window."""
    from conkeeper.domain.textio import MemoryFileError, read_text

    events: list[tuple[ToolEvent, int]] = []
    day = start_ms // 1000
    days: list[str] = []
    while day <= end_ms // 1000 + 86400 and len(days) < 400:
        name = time.strftime("%Y-%m-%d", time.localtime(day))
        if name not in days:
            days.append(name)
        day += 86400
    for name in days:
        path = memory_dir / "sessions" / f"{name}-observations.md"
        try:
            text = read_text(path)
        except (MemoryFileError, OSError):
            continue
        for line in text.splitlines():
            match = LOG_LINE.match(line.strip())
            if match is None:
                continue
            stamp = time.strptime(f"{name} {match['time']}", "%Y-%m-%d %H:%M:%S")
            when = int(time.mktime(stamp) * 1000)
            if not start_ms <= when <= end_ms:
                continue
            event = ToolEvent(
                id=len(events) + 1,
                prompt_number=0,
                tool_use_id=f"log-{len(events) + 1}",
                tool_name=match["tool"],
                action=match["action"],
                paths=(_unescape(match["path"]),) if match["path"] else (),
                input_summary=clean(_unescape(match["summary"])),
                status=match["status"],
                error=clean(_unescape(match["error"])) or None,
                created_at=when,
            )
            events.append((event, 0))
    return events


def _prompt_time(queued_ms: int, prompt_ms: list[int]) -> int:
    """The exact time of the prompt a queue line (stamped in whole seconds, a moment after the
    prompt arrived) was written for: the session's latest prompt within a second of the stamp,
    else the stamp. A rule routed at 12:00:00.400 and broken again at 12:00:00.700 is broken
    after it was routed, though the queue says 12:00:00."""
    same = [ms for ms in prompt_ms if queued_ms <= ms < queued_ms + 1000]
    before = [ms for ms in prompt_ms if queued_ms - 1000 < ms < queued_ms]
    return max(same or before or [queued_ms])


def _own_prompt_ms(queued_ms: int, text: str, evidence: Evidence) -> int | None:
    """When the prompt a queue line quotes was sent, if this window holds it: a prompt within
    a second of the line's stamp whose words hold the line's. On a fast machine another
    session's prompt can fall within that second too; only the words tell which it was."""
    quoted = " ".join(text.removeprefix("… ").split())[:40]
    if not quoted:
        return None
    for prompt, ms in zip(evidence.prompts, evidence.prompt_ms, strict=False):
        if queued_ms - 1000 < ms < queued_ms + 1000 and quoted in " ".join(prompt.split()):
            return ms
    return None


def _said_elsewhere(
    conn: sqlite3.Connection | None, queued_ms: int, text: str, ev: Evidence
) -> bool:
    """Whether a queue line's prompt was sent in a recorded session this window does not
    hold: an open session's window (a Codex session never ended) covers the lines written in
    the sessions after it, and counted their corrections as its own."""
    if conn is None or not ev.sessions:
        return False
    from conkeeper.storage.reflection import prompts_between

    quoted = " ".join(text.removeprefix("… ").split())[:40]
    mine = {s.id for s in ev.sessions}
    return bool(quoted) and any(
        session not in mine and quoted in " ".join(prompt.split())
        for session, prompt in prompts_between(conn, queued_ms - 1000, queued_ms + 1000)
    )


def _corrections(
    evidence: Evidence, sensitivity: str, conn: sqlite3.Connection | None = None
) -> None:
    """Queue items in the window (but those another recorded session said), then corrections
    in stored prompts no queue line holds."""
    from conkeeper.services.analysis.corrections import (
        detect,
        queue_excerpt,
        read_queue,
        sanitize_queue_text,
    )
    from conkeeper.services.analysis.reflection.rules import states_a_standing_choice

    for item in read_queue(evidence.memory_dir):
        when = _queue_ms(item.when)  # whole seconds: widen the window by one on each side
        if evidence.since_ms - 1000 <= when <= evidence.until_ms + 1000:
            text = clean(item.text)
            own = _own_prompt_ms(when, text, evidence)
            if own is None and _said_elsewhere(conn, when, text, evidence):
                continue
            exact = own if own is not None else _prompt_time(when, evidence.prompt_ms)
            evidence.corrections.append(
                Correction(exact, item.label, text, True, when, exact=own is not None)
            )
    queued = [c.text[:60] for c in evidence.corrections]
    times = evidence.prompt_ms + [evidence.until_ms] * (
        len(evidence.prompts) - len(evidence.prompt_ms)
    )
    for prompt, when in zip(evidence.prompts, times, strict=True):
        found = detect(prompt, sensitivity)
        if found.label is None and not states_a_standing_choice(prompt):
            continue  # "ok from now on use pnpm" corrects the agent's default for good
        excerpt = sanitize_queue_text(queue_excerpt(prompt, found)).removeprefix("… ")
        if any(q.removeprefix("… ")[:40] in excerpt or excerpt[:40] in q for q in queued):
            continue
        label = found.label or "correction"
        evidence.corrections.append(Correction(when, label, excerpt, False))
    _drop_withdrawn(evidence)


def _drop_withdrawn(evidence: Evidence) -> None:
    """Leave out the corrections whose own prompt the next one took back ("never mind")."""
    from conkeeper.services.analysis.reflection.withdrawn import withdrawn_times

    sessions = evidence.prompt_session
    if len(sessions) != len(evidence.prompts):
        return
    taken_back = withdrawn_times(evidence.prompts, evidence.prompt_ms, sessions)
    evidence.corrections = [
        c
        for c in evidence.corrections
        if not ((c.exact or not c.queued) and c.when_ms in taken_back)
    ]
