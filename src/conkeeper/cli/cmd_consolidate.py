"""``conkeeper consolidate``: near-duplicate or contradictory memory entries, as a diff.

Without ``--apply`` nothing changes: the proposals and a unified diff are printed for review.
``--apply`` writes the same change atomically and refuses files edited meanwhile.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--apply`` and ``--json``."""
    parser.add_argument("--apply", action="store_true", help="write the proposed change")
    parser.add_argument("--json", action="store_true", help="print proposals and diff as JSON")


def run(args: argparse.Namespace) -> int:
    """Plan, print, and apply when asked."""
    from conkeeper.domain.paths import locate_project
    from conkeeper.domain.textio import MemoryFileError
    from conkeeper.services.upkeep.freshness.consolidate import apply, plan

    location = locate_project(Path.cwd())
    if not location.memory_dir.is_dir():
        raise CliError(f"no memory folder at {location.memory_dir}; run 'conkeeper init' first")
    result = plan(location.root, location.memory_dir)
    written: list[Path] = []
    if args.apply and result.new_text:
        try:
            written = apply(result, location.memory_dir)
        except MemoryFileError as exc:
            raise CliError(str(exc)) from None
    if args.json:
        emit_json(
            {
                "proposals": [p.as_dict() for p in result.proposals],
                "diff": result.diff,
                "applied": [str(p) for p in written],
            }
        )
        return 0
    out = sys.stdout
    for proposal in result.proposals:
        out.write(f"[{proposal.kind}] remove {proposal.remove}: {proposal.remove_text}\n")
        out.write(f"    keep {proposal.keep}: {proposal.keep_text}\n    ({proposal.reason})\n")
    if result.diff:
        out.write("\n" + result.diff)
    if not result.proposals:
        out.write("No duplicate or contradictory entries found.\n")
    elif written:
        out.write(f"\nApplied: {len(written)} file(s) changed.\n")
    else:
        out.write("\nNothing changed; run 'conkeeper consolidate --apply' to write this.\n")
    return 0
