"""``conkeeper export``: a full backup of what ConKeeper knows about a project, as JSONL.

The records (sessions, prompts, tool events, observations, summaries) and the project's Markdown
memory files byte for byte (``--global`` adds the global memory); restore with
``conkeeper import jsonl FILE``, which never overwrites a file that changed unless asked.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from conkeeper.cli.output import CliError, opened_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``[--project | --all] [--global] [--no-memory] [--include-private] [-o FILE]``."""
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "--project", action="store_true", help="only the current project (the default)"
    )
    scope.add_argument("--all", action="store_true", help="every project")
    parser.add_argument(
        "--global", dest="include_global", action="store_true", help="add the global memory files"
    )
    parser.add_argument(
        "--no-memory", action="store_true", help="records only, without the memory files"
    )
    parser.add_argument(
        "--include-private",
        action="store_true",
        help="a complete backup for you alone: private blocks and private files copied too",
    )
    parser.add_argument("-o", "--output", help="write to FILE (readable by you only)")


def run(args: argparse.Namespace) -> int:
    """Write the export; a summary line goes to stderr when writing a file."""
    from conkeeper.services.memory_backup import MEMORY_FILE, export_memory
    from conkeeper.services.observations.hygiene import export_records, write_export
    from conkeeper.services.workspace import project_scope

    with opened_store() as conn:
        scope = project_scope(conn, all_projects=args.all)
        files: Iterator[dict[str, object]] = iter(())
        withheld: list[str] = []
        if not args.no_memory:
            files = export_memory(
                conn,
                scope.location,
                include_global=args.include_global,
                private=args.include_private,
                withheld=withheld,
            )
        first = next(files, None)
        if not scope.known and first is None and scope.location is not None:
            where = scope.location.root
            raise CliError(f"nothing recorded for {where}; use --all for everything")
        files = itertools.chain([first] if first is not None else [], files)
        records = itertools.chain(
            export_records(conn, scope.project_id if scope.known else -1), files
        )
        if args.output:
            target = Path(args.output).expanduser()
            # a name of its own (never a person's FILE.tmp, which O_TRUNC emptied)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.conkeeper-tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            counted: dict[str, int] = {}

            def count(record: dict) -> dict:
                kind = "files" if record.get("kind") == MEMORY_FILE else "records"
                counted[kind] = counted.get(kind, 0) + 1
                return record

            try:
                with open(fd, "w", encoding="utf-8") as out:
                    write_export(map(count, records), out)
                tmp.replace(target)
            except BaseException:  # a full disk: no partial export left beside the target
                tmp.unlink(missing_ok=True)
                raise
            sys.stderr.write(
                f"Exported {counted.get('records', 1) - 1} records and "
                f"{counted.get('files', 0)} memory files to {target} (readable by you only"
                + (": private blocks included)\n" if args.include_private else ")\n")
            )
        else:
            write_export(records, sys.stdout)
    if withheld:
        sys.stderr.write(
            f"Private content of {len(withheld)} memory files was left out "
            f"({', '.join(withheld[:5])}{', …' if len(withheld) > 5 else ''}); "
            "--include-private makes a complete backup for you alone\n"
        )
    return 0
