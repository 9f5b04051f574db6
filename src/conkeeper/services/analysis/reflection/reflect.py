"""The operations behind ``conkeeper reflect``: analyse a session (or a period), write its
retro, approve or decline a numbered recommendation.

Depth follows ``reflect_depth`` unless given, and the session: fewer than five tool uses and no
corrections make a minimal "nothing notable" retro. Approval routes the entry through
:mod:`conkeeper.services.analysis.routing` (the same atomic, deduplicating write as ``corrections
apply``) and removes the queued corrections it settles; both approval and decline update the
retro file by a byte edit of that item's lines (:func:`.retro.approve_edit`), through the shared
write path :mod:`conkeeper.domain.safewrite` (lock, carried-over appends, journal for undo), so
whatever else the user wrote in the retro stays exactly as it was.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from conkeeper.services.analysis.reflection import findings as f
from conkeeper.services.analysis.reflection.evidence import Evidence, gather
from conkeeper.services.analysis.reflection.known import KnownItem, load_known
from conkeeper.services.analysis.reflection.recommend import (
    Recommendation,
    overall_scope,
    recommend,
)
from conkeeper.services.analysis.reflection.retro import (
    Retro,
    RetroEditError,
    RetroItem,
    approve_edit,
    decline_edit,
    merge_edit,
    one_line,
    parse,
    render,
    utc_stamp,
)

MIN_TOOL_USES = 5
# Memory category for an approved entry, by its retrospective category, when the classifier
# is unsure.
_MEMORY_CATEGORY = {
    "quality": "convention",
    "efficiency": "pattern",
    "ux": "learning",
    "knowledge": "learning",
    "architecture": "decision",
}


if TYPE_CHECKING:
    from conkeeper.services.review import HeldItem


class ReflectError(Exception):
    """A reflection cannot run or an item cannot be routed; the message is one line."""


class FindingHeld(Exception):
    """An agent approved a finding whose rule reads like an order to later sessions: it waits
    in the review queue (``held``, a :class:`conkeeper.services.review.HeldItem`) instead."""

    def __init__(self, held: HeldItem) -> None:
        super().__init__(f"held for review as {held.id}")
        self.held = held


@dataclass
class Reflection:
    """The result of one reflection."""

    scope: str
    depth: str
    minimal: bool
    evidence: Evidence
    recommendations: list[Recommendation]
    known: list[tuple[f.Finding, str]]
    overall_scope: str
    summary: list[str]
    evidence_lines: list[str]
    retro_path: Path | None = None
    friction: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json`` (the skill's input)."""
        ev = self.evidence
        return {
            "scope": self.scope,
            "depth": self.depth,
            "minimal": self.minimal,
            "recommended_scope": self.overall_scope,
            "sessions": [s.host_session_id for s in ev.sessions],
            "counts": {
                "tool_uses": len(ev.events),
                "failures": ev.failures,
                "corrections": sum(1 for c in ev.corrections if c.label == "correction"),
                "friction": sum(1 for c in ev.corrections if c.label == "friction"),
                "queued": sum(1 for c in ev.corrections if c.queued),
            },
            "summary": self.summary,
            "recommendations": [r.to_dict() for r in self.recommendations],
            "already_known": [
                {"kind": finding.kind, "label": finding.label, "in": where}
                for finding, where in self.known
            ],
            "friction": self.friction,
            "evidence": self.evidence_lines,
            "retro": str(self.retro_path) if self.retro_path else None,
        }


def today() -> str:
    """Today's local date, ``YYYY-MM-DD`` (the retro file's date)."""
    return time.strftime("%Y-%m-%d")


def retro_path(memory_dir: Path, date: str) -> Path:
    """``<memory>/sessions/<date>-retro.md``."""
    return memory_dir / "sessions" / f"{date}-retro.md"


def _summary(evidence: Evidence) -> list[str]:
    lines = []
    for session, summary in zip(evidence.sessions, _summaries(evidence), strict=False):
        title = " ".join((session.title or "").split())[:120]
        if summary.get("request") or summary.get("completed"):
            text = "; ".join(v for k in ("request", "completed") if (v := summary.get(k)))
            lines.append(f"- Session {session.host_session_id[:8]}: {' '.join(text.split())}")
        elif title:
            lines.append(f"- Session {session.host_session_id[:8]}: {title}")
    if not lines:
        lines.append(f"- {evidence.scope}")
    return lines


def _summaries(evidence: Evidence) -> list[dict[str, str]]:
    return evidence.summaries + [{}] * (len(evidence.sessions) - len(evidence.summaries))


def _evidence_lines(
    evidence: Evidence, recs: list[Recommendation], known: list[tuple[f.Finding, str]]
) -> tuple[list[str], list[str]]:
    corrections = [c for c in evidence.corrections if c.label != "friction"]  # listed apart
    detected = len(corrections)
    processed = sum(1 for c in corrections if not c.queued)
    friction = [f'"{f.quote(c.text)}"' for c in evidence.corrections if c.label == "friction"]
    lines = [
        f"- Corrections: {detected} detected, {processed} processed",
        f"- Observations: {len(evidence.events)} tool uses, {evidence.failures} failures",
        f"- Friction signals: {'; '.join(friction) if friction else 'none'}",
    ]
    for rec in recs:
        head, *quotes = rec.why
        lines.append(f"- #{rec.number} {head}: {'; '.join(quotes)}" if quotes else f"- {head}")
    for finding, where in known:
        lines.append(f"- Already in memory ({where}): '{finding.label}' ({finding.count}×)")
    return lines, friction


def reflect(
    conn: sqlite3.Connection | None,
    memory_dir: Path,
    sessions: list,
    *,
    scope: str,
    since_ms: int | None = None,
    depth: str = "standard",
    sensitivity: str = "low",
    write: bool = False,
    date: str | None = None,
    later: list | None = None,
) -> Reflection:
    """Analyse the evidence for ``sessions`` (or the period from ``since_ms``); with ``write``,
    merge the result into the day's retro file. ``later``: the project's other sessions, whose
    runs after a failure settle it (a test fixed in the next session is not "still failing")."""
    day = date or today()
    evidence = gather(
        conn,
        memory_dir,
        sessions,
        scope=scope,
        since_ms=since_ms,
        sensitivity=sensitivity,
        later=later or [],
    )
    minimal = (
        len(evidence.events) < MIN_TOOL_USES
        and not evidence.corrections
        and not any(facet.friction for facet in evidence.facets)
    )
    path = retro_path(memory_dir, day)
    existing = _read_retro(path, day)
    known_items = load_known(memory_dir, exclude_retro=f"sessions/{path.name}")
    own = [_as_known(item) for item in existing.items]
    proposals = recommend(
        [] if minimal else f.analyse(evidence),
        known_items + own,
        depth="minimal" if minimal else depth,
        first_number=existing.next_number,
    )
    known = [(finding, item.source) for finding, item in proposals.known]
    recs = proposals.recommendations
    lines, friction = _evidence_lines(evidence, recs, known)
    summary = ["Nothing notable." if minimal else "", *_summary(evidence)]
    summary = [s for s in summary if s]
    scope_all = overall_scope(recs) if recs else "PROCESS"
    summary.append(f"Recommended scope: {scope_all}")
    result = Reflection(
        scope,
        "minimal" if minimal else depth,
        minimal,
        evidence,
        recs,
        known,
        scope_all,
        summary,
        lines,
        friction=friction,
    )
    if write:

        def change(text: str) -> str:
            # numbered and checked against the retro as it is under the write lock: another
            # `reflect --write` or the person may have added items since it was read
            current = parse(text) if text.strip() else Retro(day)
            new_items = _number_afresh(recs, current)
            lines[:] = _evidence_lines(evidence, recs, known)[0]
            if not text.strip():
                return render(Retro(day, summary, new_items, lines))
            return merge_edit(text, summary, lines, new_items)

        _edit_retro(memory_dir, path, change, "reflect --write")
        result.retro_path = path
    return result


def _number_afresh(recs: list[Recommendation], current: Retro) -> list[RetroItem]:
    """The items ``recs`` add to ``current`` (the retro as it is now): a finding it already
    holds keeps that item's number and is not added again; the others take the next free
    numbers."""
    there = {one_line(item.text): item.number for item in current.items}
    number = current.next_number
    added = []
    for rec in recs:
        same = there.get(one_line(rec.rule))
        if same is not None:
            rec.number = same
            continue
        rec.number, number = number, number + 1
        there[one_line(rec.rule)] = rec.number
        added.append(RetroItem(rec.number, rec.rule, rec.where, rec.category))
    return added


def _as_known(item: RetroItem) -> KnownItem:
    return KnownItem("this retro", item.text)


def _read_retro(path: Path, date: str) -> Retro:
    from conkeeper.domain.textio import MemoryFileError, read_text_lenient

    if not path.exists():
        return Retro(date)
    try:  # read only: edits go through the write path on the bytes, kept as they are
        retro = parse(read_text_lenient(path)[0])
    except (MemoryFileError, OSError) as exc:
        raise ReflectError(str(exc)) from None
    retro.date = retro.date or date
    return retro


def _edit_retro(memory_dir: Path, path: Path, change: object, command: str) -> None:
    """Apply the text function ``change`` to the retro's current bytes through the shared
    write path (lock, carried-over appends, journal); only what ``change`` concerns changes."""
    from conkeeper.domain.safewrite import WriteError, edit_file, text_edit

    assert callable(change)
    try:
        edit_file(path, text_edit(change), command=command, source="reflect", root=memory_dir)
    except RetroEditError as exc:
        raise ReflectError(f"{path.name}: {exc}") from None
    except WriteError as exc:
        raise ReflectError(str(exc)) from None


def _find_pending(memory_dir: Path, number: int, date: str | None) -> tuple[Path, Retro]:
    from conkeeper.domain.textio import MemoryFileError, read_text_lenient

    if date:
        candidates = [retro_path(memory_dir, date)]
    else:
        candidates = sorted((memory_dir / "sessions").glob("*-retro.md"), reverse=True)
    for path in candidates:
        try:
            retro = parse(read_text_lenient(path)[0])  # a byte that is not UTF-8 is no reason
        except (MemoryFileError, OSError):  # to lose the whole retro; edits keep the bytes
            continue
        item = retro.item(number)
        if item is not None:
            if item.status != "pending":
                raise ReflectError(f"#{number} in {path.name} was already {item.status}")
            return path, retro
    where = f"sessions/{date}-retro.md" if date else "any retro"
    raise ReflectError(f"no recommendation #{number} in {where}; run 'conkeeper reflect --write'")


def approve(
    memory_dir: Path,
    number: int,
    to: str | None = None,
    date: str | None = None,
    text: str | None = None,
    by_agent: bool = False,
) -> tuple[RetroItem, Path, list[str]]:
    """Route pending item ``number`` (a rule: an imperative, self-contained statement) into
    memory (its target, or ``to``) with its tag, remove the queued corrections it settles, and
    move it to the retro's Approved list with the time it was routed. ``text`` is the rule in
    the user's own words, in place of the proposed one; a finding whose corrections stated no
    rule (:data:`~.recommend.UNSTATED`) is approved only with it.

    Returns the item, the retro file and the texts of the dequeued corrections.

    ``by_agent``: an agent runs the approval (the memory-reflect skill). The rule came from
    captured prompts and tool output, or from the agent's own words or its edit of the retro
    file, and would be written as "a reflect finding you approved": when it reads like an
    order to later sessions it is held for ``conkeeper review`` instead (:class:`FindingHeld`;
    the finding stays pending).
    """
    from conkeeper.domain.categories import classify
    from conkeeper.services.analysis.reflection.recommend import UNSTATED

    path, retro = _find_pending(memory_dir, number, date)
    item = retro.item(number)
    assert item is not None
    read_as = item.text
    if text is not None and text.strip():
        item.text = " ".join(text.split())
    elif UNSTATED in item.text:
        raise ReflectError(
            f"#{number}: the corrections state no rule; approve it with your own words: "
            f'conkeeper reflect approve {number} --text "the rule"'
        )
    target = to or item.where or "patterns.md"
    _refuse_contradiction(memory_dir, number, item.text)
    verdict = classify(item.text)
    category = verdict.category or _MEMORY_CATEGORY.get(item.category or "", "learning")
    if by_agent:
        _hold_agent_order(memory_dir, item.text, target, category)
    from conkeeper.domain.safewrite import write_group

    with write_group():  # the rule, its dequeued corrections and the retro: one undo step
        dequeued = _route_approved(memory_dir, path, item, read_as, target, category)
    return item, path, dequeued


def _refuse_contradiction(memory_dir: Path, number: int, rule: str) -> None:
    """Refuse a rule that says the opposite of one memory already holds: approving wrote both,
    and the next session read two orders that cannot both be followed."""
    from conkeeper.domain.privacy import clean_or_empty, clip
    from conkeeper.services.analysis.reflection.known import contradicted

    against = contradicted(rule, load_known(memory_dir))
    if against is not None:
        raise ReflectError(
            f'#{number} says the opposite of {against.source} "'
            f'{clip(clean_or_empty(against.text), 80)}"; change or remove that entry first, '
            f"or 'conkeeper reflect decline {number}'"
        )


def _route_approved(
    memory_dir: Path, path: Path, item: RetroItem, read_as: str, target: str, category: str
) -> list[str]:
    """Write an approved item: the rule into memory, its corrections out of the queue (their
    texts are returned), the item into the retro's Approved list."""
    from conkeeper.domain.textio import MemoryFileError
    from conkeeper.services.analysis.routing import RoutingError, add_entry, dequeue_theme

    number = item.number
    try:
        relative, _ = add_entry(
            memory_dir,
            target,
            item.text,
            category,
            source="reflect",
            command=f"reflect approve {number}",
            provenance="reflect",
        )
        dequeued = [q.text for q in dequeue_theme(memory_dir, item.text)]
    except (RoutingError, MemoryFileError) as exc:
        raise ReflectError(str(exc)) from None
    item.status, item.where, item.routed_at = "approved", relative, utc_stamp()
    try:
        _edit_retro(
            memory_dir,
            path,
            lambda text: approve_edit(text, item, read_as),
            f"reflect approve {number}",
        )
    except ReflectError as exc:
        raise ReflectError(
            f"{exc}; the rule was saved to {relative} ('conkeeper undo' takes it back) and "
            "your changed line stays pending"
        ) from None
    return dequeued


def _hold_agent_order(memory_dir: Path, rule: str, target: str, category: str) -> None:
    """Raise :class:`FindingHeld` when an agent's approved ``rule`` reads like an order."""
    from conkeeper.services.analysis.routing import (
        RoutingError,
        check_entry_privacy,
        resolve_target,
    )
    from conkeeper.services.quarantine import reasons
    from conkeeper.services.review import ReviewError, hold

    found = reasons(rule)
    if not found:
        return
    try:
        check_entry_privacy(rule)
        relative = resolve_target(memory_dir, target).relative_to(memory_dir).as_posix()
        held = hold(
            memory_dir,
            text=rule,
            target=relative,
            category=category,
            scope="project",
            source="agent-cli",
            reasons=found,
        )
    except (RoutingError, ReviewError, OSError) as exc:
        raise ReflectError(str(exc)) from None
    raise FindingHeld(held)


def decline(
    memory_dir: Path, number: int, reason: str | None = None, date: str | None = None
) -> tuple[RetroItem, Path]:
    """Record pending item ``number`` as considered but declined, with ``reason``."""
    path, retro = _find_pending(memory_dir, number, date)
    item = retro.item(number)
    assert item is not None
    read_as = item.text
    item.status, item.reason = "declined", " ".join((reason or "user declined").split())
    _edit_retro(
        memory_dir,
        path,
        lambda text: decline_edit(text, item, read_as),
        f"reflect decline {number}",
    )
    return item, path
