"""Trends across sessions for ``conkeeper insights`` (and, later, the viewer): corrections and
friction per session, failure rate per tool and per command, the most repeated failures, the
most corrected themes, and whether a routed correction stopped recurring after it was routed
(said only after three later sessions without it; before that it is "too early").

Claude Code's own session facets (``~/.claude/usage-data/facets/<session>.json``, written by
its ``/insights`` command) are included for the sessions that have them. Everything is returned
as plain data; front doors draw it.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections import Counter
from pathlib import Path

from conkeeper.domain.observations import ToolEvent
from conkeeper.domain.records import FrozenRecord
from conkeeper.services.analysis.reflection import findings as f
from conkeeper.services.analysis.reflection.evidence import Correction, Evidence, gather
from conkeeper.services.analysis.reflection.rules import ORDER_VERBS, disagreeing, rule_part
from conkeeper.services.analysis.reflection.themes import (
    cluster,
    content_words,
    similar,
    theme_label,
)
from conkeeper.storage.reflection import SessionRow

TOP = 5
FACET_FIELDS = ("outcome", "brief_summary", "friction_counts", "user_satisfaction_counts")


def _day(ms: int) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(ms / 1000))


def command_name(summary: str) -> str:
    """The program (and subcommand) of a shell command: ``pytest``, ``npm test``, ``git push``,
    ``npm run build``; the same for the ways of writing one run (``python -m pytest``, ``uv run
    pytest``, ``cd api && pytest``, ``npm run test``), which were counted as other commands
    ("python", "uv run", "cd api")."""
    words = _without_package_choice([w for w in f.bare_command(summary).split() if "=" not in w])
    words = words[:3]
    if not words:
        return ""
    if len(words) == 3 and words[1] == "run" and words[0] in ("npm", "pnpm", "yarn", "bun"):
        return f"{words[0]} test" if words[2] == "test" else " ".join(words)
    words = words[:2]
    if len(words) == 2 and words[1][:1].isalpha() and "/" not in words[1] and "." not in words[1]:
        return f"{words[0]} {words[1]}"
    return words[0]


# the options that pick where a package manager runs (`npm --prefix web test`, `pnpm --filter
# web test`, `make -C web test`, `yarn workspace web test`): the same command as `cd web &&
# npm test`, which is counted as `npm test`
_WHERE = frozenset(["--prefix", "-C", "--dir", "--filter", "-F", "-w", "--workspace"])
_RUNS_IN_PACKAGES = frozenset(["npm", "pnpm", "yarn", "bun", "make"])


def _without_package_choice(words: list[str]) -> list[str]:
    """``words`` of a command line without the option choosing its package or folder."""
    if not words or words[0] not in _RUNS_IN_PACKAGES:
        return words
    kept, index = [words[0]], 1
    if words[0] == "yarn" and len(words) > 2 and words[1] == "workspace":
        index = 3
    while index < len(words):
        if words[index] in _WHERE and index + 1 < len(words):
            index += 2
            continue
        kept.append(words[index])
        index += 1
    return kept


def _rate(failures: int, uses: int) -> float:
    return round(failures / uses, 3) if uses else 0.0


def claude_facets(session_ids: list[str], home: Path | None = None) -> list[dict[str, object]]:
    """The facets Claude Code's ``/insights`` stored for these sessions, where they exist."""
    base = (home or Path(os.environ.get("HOME", "~")).expanduser()) / ".claude" / "usage-data"
    folder = base / "facets"
    if not folder.is_dir():
        return []
    found = []
    for session in session_ids:
        path = folder / f"{session}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            found.append({"session": session, **{k: data[k] for k in FACET_FIELDS if k in data}})
    return found


QUIET_SESSIONS = 3  # later sessions without the correction before it "stopped recurring"


def _routed_ms(routed_at: str, retro_date: str) -> int:
    """When an approved item was routed: its recorded time, else (an older retro) the end of
    its retro's day, so nothing on that day counts as "later"."""
    from conkeeper.services.analysis.reflection.retro import stamp_ms

    exact = stamp_ms(routed_at) if routed_at else None
    if exact is not None:
        return exact
    try:
        day = time.mktime(time.strptime(retro_date, "%Y-%m-%d"))
    except ValueError:
        return int(time.time() * 1000)
    return int((day + 86_400) * 1000)


def routed_verdict(after: int, later_sessions: int) -> str:
    """``recurred`` when the correction came back after it was routed, ``stopped recurring``
    only after :data:`QUIET_SESSIONS` later sessions without it, else ``too early``."""
    if after:
        return "recurred"
    return "stopped recurring" if later_sessions >= QUIET_SESSIONS else "too early"


class Activity(FrozenRecord):
    """What one session did, as far as a routed rule cares: when it started, the content words
    of the tools it ran (commands, files) and whether it did any work (an edit or a run)."""

    __slots__ = ("started_at", "words", "worked")
    started_at: int
    words: frozenset[str]
    worked: bool

    def __init__(self, started_at: int, ev: Evidence) -> None:
        summaries = " ".join(event.input_summary for event, _ in ev.events)
        worked = any(event.action in ("write", "execute") for event, _ in ev.events)
        self._set(started_at=started_at, words=content_words(summaries), worked=worked)


# the verbs a rule uses for any work ("Run ruff ...", "Update CHANGELOG.md"): `npm run build`
# is not the work "Run ruff before pytest" is about
_ANY_WORK = re.compile(r"^(?:" + ORDER_VERBS + r")$")


def _reached(rule: frozenset[str], done: frozenset[str], session: Activity) -> bool:
    """Whether ``session`` reached the work ``rule`` is about: it ran a tool the rule names
    (``done``: the rule's words the project's tool uses ever hold: `ruff`, `pytest`), or, for
    a rule that names none of them ("Dates must be stored in UTC"), it did any work at all. A
    session that only asked, or worked on something else, says nothing about the rule."""
    anchor = {word for word in rule & done if len(word) > 2 and not _ANY_WORK.match(word)}
    return bool(anchor & session.words) if anchor else session.worked


def _routed(
    memory_dir: Path, corrections: list[Correction], active: list[Activity]
) -> list[dict[str, object]]:
    """For every approved retro item: matching corrections before and after it was routed,
    the sessions started since that reached the work it is about (:func:`_reached`), and the
    verdict (:func:`routed_verdict`).

    ``corrections`` holds friction as well: "again no ruff before running pytest" is the
    routed rule broken again whichever label the detector gave it. ``active`` holds each
    session with a prompt or a tool use: a session that was only opened (or is open and idle)
    says nothing about whether the correction came back."""
    from conkeeper.domain.textio import MemoryFileError, read_text
    from conkeeper.services.analysis.reflection.retro import parse

    rows: list[dict[str, object]] = []
    for path in sorted((memory_dir / "sessions").glob("*-retro.md")):
        try:
            retro = parse(read_text(path))
        except (MemoryFileError, OSError):
            continue
        for item in retro.items:
            if item.status != "approved":
                continue
            routed_ms = _routed_ms(item.routed_at, retro.date)
            words = content_words(item.text)
            same = [c for c in corrections if similar(words, content_words(c.text))]
            before = sum(1 for c in same if c.when_ms <= routed_ms)
            after = sum(1 for c in same if c.when_ms > routed_ms)
            done = frozenset().union(*(s.words for s in active))
            later = sum(1 for s in active if s.started_at > routed_ms and _reached(words, done, s))
            verdict = routed_verdict(after, later)
            rows.append(
                {
                    "rule": item.text,
                    "routed_to": item.where,
                    "routed_on": retro.date,
                    "routed_at": item.routed_at or None,
                    "before": before,
                    "after": after,
                    "later_sessions": later,
                    "verdict": verdict,
                    "stopped": verdict == "stopped recurring",
                }
            )
    return rows


class _Tally:
    """Counts gathered while walking the sessions' tool events: uses and failures per tool and
    per command, and repeated failures with the sessions they happened in."""

    __slots__ = ("commands", "failure_sessions", "failures", "labels", "tools")

    def __init__(self) -> None:
        self.tools: dict[str, list[int]] = {}
        self.commands: dict[str, list[int]] = {}
        self.failures: Counter[str] = Counter()
        self.failure_sessions: dict[str, set[str]] = {}
        self.labels: dict[str, str] = {}

    def add(self, event: ToolEvent, session_id: str) -> None:
        """Count one tool event. A run whose outcome nobody can read (a piped test run with no
        summary line) is neither a pass nor a failure, so it is left out of the rates; so is a
        use stopped before its end (Ctrl-C, a killed tool), from its tool's and its command's
        pass/fail totals ("cargo test 50% (1/2)" for one failure and one Ctrl-C)."""
        if not f.outcome_known(event) or event.status == "interrupted":
            return
        failed = event.failed
        tool = self.tools.setdefault(event.tool_name, [0, 0])
        tool[0] += 1
        tool[1] += failed
        if event.action == "execute" and event.input_summary:
            command = self.commands.setdefault(command_name(event.input_summary), [0, 0])
            command[0] += 1
            command[1] += failed
        if failed:
            key, label = f.failure_key(event)
            self.failures[key] += 1
            self.labels[key] = label
            self.failure_sessions.setdefault(key, set()).add(session_id)

    def tool_rows(self) -> list[dict[str, object]]:
        """Per tool, most used first."""
        return sorted(
            (
                {"tool": t, "uses": n, "failures": m, "failure_rate": _rate(m, n)}
                for t, (n, m) in self.tools.items()
            ),
            key=lambda row: (-_num(row["uses"]), str(row["tool"])),
        )

    def command_rows(self) -> list[dict[str, object]]:
        """Per command, most failing first (the ones worth a look)."""
        return sorted(
            (
                {"command": c, "runs": n, "failures": m, "failure_rate": _rate(m, n)}
                for c, (n, m) in self.commands.items()
            ),
            key=lambda row: (-_num(row["failures"]), -_num(row["runs"]), str(row["command"])),
        )[: TOP * 2]

    def repeated_failures(self) -> list[dict[str, object]]:
        """The most frequent failures that happened more than once."""
        return [
            {"failure": self.labels[k], "count": n, "sessions": len(self.failure_sessions[k])}
            for k, n in self.failures.most_common(TOP)
            if n >= 2
        ]


def first_routing(memory_dir: Path) -> int | None:
    """When the first approved retro item was routed (Unix ms), ``None`` without one: whether
    a routed rule stopped recurring is judged on every session since, whatever window the
    report shows (a correction back 45 days ago is "recurred" in a 30-day report too)."""
    from conkeeper.domain.textio import MemoryFileError, read_text
    from conkeeper.services.analysis.reflection.retro import parse

    times = []
    for path in sorted((memory_dir / "sessions").glob("*-retro.md")):
        try:
            retro = parse(read_text(path))
        except (MemoryFileError, OSError):
            continue
        approved = [item for item in retro.items if item.status == "approved"]
        times += [_routed_ms(item.routed_at, retro.date) for item in approved]
    return min(times) if times else None


def insights(
    conn: sqlite3.Connection,
    memory_dir: Path,
    sessions: list[SessionRow],
    *,
    sensitivity: str = "low",
    home: Path | None = None,
    history: list[SessionRow] | None = None,
) -> dict[str, object]:
    """The trends across ``sessions`` as plain data. ``history`` holds the sessions since
    :func:`first_routing` that started before the window: the routed rules are judged on
    them too, the rest of the report is not."""
    per_session = []
    tally = _Tally()
    found: dict[tuple[int, str], Correction] = {}  # corrections and friction, once each
    active: list[Activity] = []  # each session in which something happened
    shown = {session.id for session in sessions}
    earlier = [s for s in history or () if s.id not in shown]
    in_window: set[tuple[int, str]] = set()
    for session in [*earlier, *sessions]:
        ev = gather(
            conn, memory_dir, [session], scope=session.host_session_id, sensitivity=sensitivity
        )
        for c in ev.corrections:  # a queued line can fall in several open sessions' windows
            known = found.get(c.key())
            if known is None or _timing(c) > _timing(known):
                found[c.key()] = c  # the session that holds its prompt knows when it came
        if ev.prompt_ms or ev.events:
            active.append(Activity(session.started_at, ev))
        if session.id not in shown:
            continue
        in_window.update(c.key() for c in ev.corrections)
        per_session.append(_session_row(session, ev))
        for event, _ in ev.events:
            tally.add(event, session.host_session_id)
    window = [c for k, c in found.items() if c.label == "correction" and k in in_window]
    return {
        "sessions": per_session,
        "tools": tally.tool_rows(),
        "commands": tally.command_rows(),
        "repeated_failures": tally.repeated_failures(),
        "themes": _themes(window),
        "routed": _routed(memory_dir, list(found.values()), active),
        "claude_facets": claude_facets([s.host_session_id for s in sessions], home),
    }


def _timing(correction: Correction) -> int:
    """How well a queued correction's time is known: 3 from the very prompt it quotes (or a
    prompt itself), 2 from a prompt in its line's second, 1 from a prompt just before it, 0 the
    line's whole-second stamp alone. Only the session that holds the prompt can tell; an open
    session whose window covers the line may hold an earlier prompt."""
    if not correction.queued or correction.exact:
        return 3
    if correction.when_ms == correction.line_ms:
        return 0
    return 2 if correction.when_ms // 1000 == correction.line_ms // 1000 else 1


def _session_row(session: SessionRow, ev: Evidence) -> dict[str, object]:
    """One session's line of the report: its size, failures, corrections and friction."""
    return {
        "session": session.host_session_id,
        "date": _day(session.started_at),
        "title": " ".join((session.title or "").split())[:80],
        "tool_uses": len(ev.events),
        "failures": ev.failures,
        "corrections": sum(1 for c in ev.corrections if c.label == "correction"),
        "friction": sum(1 for c in ev.corrections if c.label == "friction"),
    }


def _themes(corrections: list[Correction]) -> list[dict[str, object]]:
    """The most corrected themes: similar corrections clustered, with a few quotes each (a
    correction said the same way in many sessions is quoted once)."""
    texts = [c.text for c in corrections]
    return [
        {
            "theme": theme_label(rule_part(texts[i]) for i in group),
            "count": len(group),
            "quotes": list(dict.fromkeys(f.quote(texts[i]) for i in group))[:3],
        }
        for group in cluster(texts, disagreeing(texts))[:TOP]
    ]


def _num(value: object) -> int:
    """A count read back from a row of mixed values."""
    return value if isinstance(value, int) else 0
