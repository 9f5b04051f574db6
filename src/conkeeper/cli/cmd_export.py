"""``conkeeper export``: sessions, prompts, tool events, observations and summaries as JSONL,
for backups and moving machines (restore with ``conkeeper import jsonl FILE``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, opened_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``[--project | --all] [-o FILE]``."""
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "--project", action="store_true", help="only the current project (the default)"
    )
    scope.add_argument("--all", action="store_true", help="every project")
    parser.add_argument("-o", "--output", help="write to FILE instead of stdout")


def run(args: argparse.Namespace) -> int:
    """Write the export; a summary line goes to stderr when writing a file."""
    from conkeeper.services.observations.hygiene import export_records, write_export
    from conkeeper.services.workspace import project_scope

    with opened_store() as conn:
        scope = project_scope(conn, all_projects=args.all)
        if not scope.known and scope.location is not None:
            where = scope.location.root
            raise CliError(f"nothing recorded for {where}; use --all for everything")
        records = export_records(conn, scope.project_id)
        if args.output:
            target = Path(args.output).expanduser()
            tmp = target.with_name(target.name + ".tmp")
            with open(tmp, "w", encoding="utf-8") as out:
                count = write_export(records, out)
            tmp.replace(target)
            sys.stderr.write(f"Exported {count - 1} records to {target}\n")
        else:
            write_export(records, sys.stdout)
    return 0
