"""``conkeeper consolidate``: duplicate or contradictory memory entries, for review.

Without options nothing changes: each pair is printed with both entries, their files, lines
and when each was written, and the diff of the duplicate merges. ``--apply`` merges the
duplicates (removes the less authoritative copy). A contradiction is never resolved
automatically: ``--keep FILE:LINE`` keeps that entry and removes the other of its pair. Every
change is a journaled byte edit (``conkeeper history``, ``conkeeper undo``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from conkeeper.services.upkeep.freshness.consolidate import Plan, Proposal


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--apply``, ``--keep FILE:LINE`` (repeatable) and ``--json``."""
    parser.add_argument("--apply", action="store_true", help="merge the proposed duplicates")
    parser.add_argument(
        "--keep",
        action="append",
        default=[],
        metavar="FILE:LINE",
        help="keep this entry and remove the other of its pair (resolves a contradiction)",
    )
    parser.add_argument("--json", action="store_true", help="print proposals and diff as JSON")


def run(args: argparse.Namespace) -> int:
    """Plan, print, and write what was asked for."""
    from conkeeper.domain.paths import locate_project
    from conkeeper.domain.textio import MemoryFileError
    from conkeeper.services.upkeep.freshness.consolidate import (
        apply,
        last_review,
        plan,
        remember_review,
    )

    location = locate_project(Path.cwd())
    if not location.memory_dir.is_dir():
        raise CliError(f"no memory folder at {location.memory_dir}; run 'conkeeper init' first")
    acting = bool(args.apply or args.keep)
    reviewed = last_review(location.identity) if acting else None
    result = plan(location.root, location.memory_dir, reviewed=reviewed)
    written: list[Path] = []
    if not acting:
        remember_review(location.identity, result)
    else:
        command = "consolidate" + (" --apply" if args.apply else "")
        command += "".join(f" --keep {choice}" for choice in args.keep)
        try:
            written = apply(
                result,
                location.memory_dir,
                merge=args.apply,
                keep=args.keep,
                command=command,
                reviewed=reviewed,
            )
        except MemoryFileError as exc:
            raise CliError(str(exc)) from None
    if args.json:
        emit_json(
            {
                "proposals": [p.as_dict() for p in result.proposals],
                "diff": result.diff,
                "applied": [str(p) for p in written],
                "held": [m.where for m in result.held],
            }
        )
        return 0
    _print(result, written, args)
    return 0


def _print(result: Plan, written: list[Path], args: argparse.Namespace) -> None:
    out = sys.stdout
    for proposal in result.proposals:
        out.write(_describe(proposal))
    if result.diff:
        out.write("\nDuplicate merges ('--apply' writes this):\n" + result.diff)
    if not result.proposals:
        out.write("No duplicate or contradictory entries found.\n")
        return
    if result.held:
        out.write(
            f"\n{len(result.held)} duplicate merge(s) held back, found since the pairs were "
            f"last shown ({', '.join(m.where for m in result.held)}): run 'conkeeper "
            "consolidate' to review them.\n"
        )
    contradictions = sum(p.kind == "contradiction" for p in result.proposals)
    if written:
        out.write(f"\nApplied: {len(written)} file(s) changed; 'conkeeper undo' reverts a write.\n")
    elif not (args.apply or args.keep):
        out.write("\nNothing changed; 'conkeeper consolidate --apply' merges the duplicates.\n")
    if contradictions:
        out.write(
            f"{contradictions} contradiction(s) are never resolved automatically: choose the "
            "entry to keep with 'conkeeper consolidate --keep FILE:LINE'.\n"
        )


def _describe(proposal: Proposal) -> str:
    """A pair as a person reviews it: both entries, where and when each was written."""
    lines = [f"[{proposal.kind}] {proposal.reason}"]
    for side in proposal.sides:
        role = ""
        if proposal.kind == "duplicate" and proposal.keep:
            role = "keep   " if side.where == proposal.keep else "remove "
        lines.append(f"    {role}{side.where}  (written {side.written or 'unknown'})")
        lines.append(f"        {side.text}")
    if proposal.kind == "contradiction" or not proposal.keep:
        options = " or ".join(f"--keep {side.where}" for side in proposal.sides)
        lines.append(f"    resolve with: conkeeper consolidate {options}")
    return "\n".join(lines) + "\n"
