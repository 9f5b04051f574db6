"""``conkeeper reflect``: the session retrospective (spec F14, seed 001 phase 08).

``conkeeper reflect [--session ID | --since DATE] [--depth minimal|standard|thorough] [--json]
[--write]`` analyses a session (the latest by default) and proposes numbered recommendations;
``--write`` merges them into ``sessions/YYYY-MM-DD-retro.md``. ``reflect approve N [--to
FILE]`` routes recommendation N into memory; ``reflect decline N [--reason TEXT]`` records
that it was declined. The work is in :mod:`conkeeper.services.analysis.reflection.reflect`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from conkeeper.domain.paths import ProjectLocation
    from conkeeper.services.analysis.reflection.reflect import FindingHeld, Reflection


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``[approve N | decline N]`` and the reflection options."""
    parser.add_argument(
        "action", nargs="?", choices=("approve", "decline"), help="approve or decline item N"
    )
    parser.add_argument("number", nargs="?", type=int, help="the recommendation's number")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--session", help="a session id or prefix (default: the latest)")
    which.add_argument(
        "--since", metavar="DATE", help="every session since DATE (2026-01-31, 7d, yesterday...)"
    )
    parser.add_argument(
        "--depth",
        choices=("minimal", "standard", "thorough"),
        help="how far to look (default: the project's reflect_depth)",
    )
    parser.add_argument("--write", action="store_true", help="write the day's retro file")
    parser.add_argument("--to", help="approve: the memory file to route to (default: its Where)")
    parser.add_argument(
        "--text", help="approve: the rule in your own words (instead of the proposed one)"
    )
    parser.add_argument("--reason", help="decline: why")
    parser.add_argument("--date", help="approve/decline: the retro's date (default: newest)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    """Reflect, or approve/decline an item."""
    from conkeeper.domain.paths import locate_project

    location = locate_project(Path.cwd())
    if args.action is not None:
        if args.number is None:
            raise CliError(f"reflect {args.action} needs the recommendation's number")
        return _decide(args, location.memory_dir)
    if args.number is not None:
        raise CliError("a number goes with 'approve' or 'decline'")
    return _reflect(args, location)


def _since_ms(text: str) -> int:
    from conkeeper.cli.output import date_flag

    return date_flag("--since", text)


def _reflect(args: argparse.Namespace, location: ProjectLocation) -> int:
    from conkeeper.cli.output import opened_store
    from conkeeper.domain.config import load_config
    from conkeeper.services.analysis.reflection.reflect import ReflectError, reflect
    from conkeeper.storage import reflection as store
    from conkeeper.storage.observations import SessionNotFound, resolve_session
    from conkeeper.storage.store import find_project

    root, memory_dir = location.root, location.memory_dir
    if not memory_dir.is_dir():
        raise CliError(f"{memory_dir}: no memory folder; run 'conkeeper init' first")
    config = load_config(root).config
    since = _since_ms(args.since) if args.since else None
    with opened_store() as conn:
        project_id = find_project(conn, location.identity)
        sessions: list[store.SessionRow] = []
        scope = "no captured session"
        if project_id is not None:
            if args.session:
                try:
                    row = store.session_row(conn, resolve_session(conn, args.session, project_id))
                except SessionNotFound as exc:
                    raise CliError(str(exc)) from None
                sessions, scope = [row] if row else [], f"session {args.session}"
            elif since is not None:
                sessions, scope = (
                    store.project_sessions(conn, project_id, since),
                    f"since {args.since}",
                )
            else:
                latest = store.latest_session(conn, project_id)
                sessions = [latest] if latest else []
                scope = f"session {latest.host_session_id}" if latest else scope
        # what the project's later sessions ran settles a failure the chosen ones left open
        chosen = {s.id for s in sessions}
        first = min((s.started_at for s in sessions), default=None)
        later = (
            [s for s in store.project_sessions(conn, project_id, first) if s.id not in chosen]
            if project_id is not None and first is not None
            else []
        )
        try:
            result = reflect(
                conn,
                memory_dir,
                sessions,
                scope=scope,
                since_ms=since,
                later=later,
                depth=args.depth or config.reflect_depth,
                sensitivity=config.correction_sensitivity,
                write=args.write,
            )
        except ReflectError as exc:
            raise CliError(str(exc)) from None
    if args.json:
        emit_json(result.to_dict())
        return 0
    _print(result)
    return 0


def _print(r: Reflection) -> None:
    out = sys.stdout.write
    out(f"Reflection on {r.scope} ({r.depth}); recommended scope: {r.overall_scope}\n")
    for line in r.evidence_lines[:3]:
        out(f"  {line[2:]}\n")
    if not r.recommendations:
        out("Nothing notable to recommend.\n")
    for rec in r.recommendations:
        out(f"\n{rec.number}. {rec.what}\n")
        out(f"   Why:    {rec.why[0]}\n")
        for quote in rec.why[1:]:
            out(f"           {quote}\n")
        out(f"   Where:  {rec.where}\n   Impact: {rec.impact}\n")
        out(f"   Category: {rec.category} · Scope: {rec.scope}\n")
        if rec.conflict:
            out(f"   Conflict: says the opposite of {rec.conflict}\n")
            out("             (approval is refused until that entry is changed or removed)\n")
    for finding, where in r.known:
        out(f"\nAlready in memory ({where}): {finding.label} ({finding.count}×)\n")
    if r.retro_path:
        out(f"\nWrote {r.retro_path}\n")
    elif r.recommendations:
        out("\nRun 'conkeeper reflect --write' to record these in today's retro.\n")


def _decide(args: argparse.Namespace, memory_dir: Path) -> int:
    from conkeeper.services.agent_process import agent_marker
    from conkeeper.services.analysis.reflection.reflect import (
        FindingHeld,
        ReflectError,
        approve,
        decline,
    )

    try:
        if args.action == "approve":
            item, path, dequeued = approve(
                memory_dir,
                args.number,
                args.to,
                args.date,
                text=args.text,
                by_agent=agent_marker() is not None,
            )
        else:
            item, path = decline(memory_dir, args.number, args.reason, args.date)
            dequeued = []
    except FindingHeld as held:
        return _held(args, held)
    except ReflectError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        emit_json(
            {
                "action": args.action,
                "number": item.number,
                "text": item.text,
                "where": item.where,
                "category": item.category,
                "reason": item.reason,
                "retro": str(path),
                "dequeued": dequeued,
            }
        )
    elif args.action == "approve":
        sys.stdout.write(f"Approved #{item.number} → {item.where}: {item.text}\n")
    else:
        sys.stdout.write(f"Declined #{item.number}: {item.text} (reason: {item.reason})\n")
    return 0


def _held(args: argparse.Namespace, held: FindingHeld) -> int:
    """An agent's approval held for the user's review: say so, exit 0 (like ``remember``)."""
    item = held.held
    if args.json:
        emit_json(
            {
                "action": "held",
                "number": args.number,
                "id": item.id,
                "text": item.text,
                "where": item.target,
                "reasons": item.reasons,
            }
        )
        return 0
    sys.stdout.write(
        f"Held for review (id {item.id}), not written to {item.target}: it reads like an "
        "instruction to later sessions. The user decides with 'conkeeper review'; the finding "
        "stays pending.\n"
    )
    return 0
