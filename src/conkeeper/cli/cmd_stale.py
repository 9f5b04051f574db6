"""``conkeeper stale``: memory entries that cite files, symbols or commands that moved on.

Lists each possibly stale entry with the reason (deleted, renamed, missing, symbol gone,
command gone, changed since written) and the evidence (commit, date). Exit code 0 either way:
a stale entry is information, not an error. ``--json`` gives the same data to programs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--json``, ``--no-cache`` and ``--quiet``."""
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="check again even when HEAD and memory are unchanged",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="only refresh the cached report (used by SessionStart)"
    )


def run(args: argparse.Namespace) -> int:
    """Check the project of the current directory and print the findings."""
    from conkeeper.domain.paths import locate_project
    from conkeeper.services.upkeep.freshness.stale import cached_stale

    location = locate_project(Path.cwd())
    if not location.memory_dir.is_dir():
        raise CliError(f"no memory folder at {location.memory_dir}; run 'conkeeper init' first")
    report = cached_stale(
        location.root, location.memory_dir, location.identity, fresh=args.no_cache
    )
    assert report is not None  # cached_stale refreshes by default
    if args.quiet:
        return 0
    if args.json:
        emit_json(report.as_dict())
        return 0
    out = sys.stdout
    if not report.git:
        out.write("Not a git repository (or git is unavailable): checked the work tree only.\n")
    for finding in report.findings:
        out.write(f"{finding.file}:{finding.line}  [{finding.reason}]  {finding.summary}\n")
        evidence = f"  ({finding.commit}, {finding.date})" if finding.commit else ""
        out.write(f"    `{finding.citation}`: {finding.detail}{evidence}\n")
    out.write(
        f"{len(report.findings)} possibly stale of {report.entries} entries citing code "
        f"({report.citations} citations checked).\n"
    )
    return 0
