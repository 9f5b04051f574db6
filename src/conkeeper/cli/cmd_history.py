"""``conkeeper history`` and ``conkeeper undo [ID]``: see and revert ConKeeper's writes.

Every change ConKeeper makes to a memory file or an agent config is journaled
(:mod:`conkeeper.domain.safewrite`); ``history`` lists the journal entries of this project's
memory (or the global memory with ``--global``) and of the agent configs, and ``undo`` restores
the bytes from before one write, refusing with a diff when the file changed since.
"""

from __future__ import annotations

import argparse
import sys

from conkeeper.cli.output import CliError, emit_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from conkeeper.domain.paths import ProjectLocation


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """``history [--json] [--global] [--limit N]`` or ``undo [ID] [--json] [--global]``."""
    if name == "undo":
        parser.add_argument(
            "id",
            nargs="?",
            help="the write to undo, as 'conkeeper history' shows it (default: the newest)",
        )
    else:
        parser.add_argument("--limit", type=int, default=50, help="newest N writes (default 50)")
    parser.add_argument("--global", dest="global_scope", action="store_true", help="global memory")
    parser.add_argument("--json", action="store_true", help="print JSON for programs")


def run(args: argparse.Namespace) -> int:
    """List the journal, or undo one write."""
    from conkeeper.services.workspace import current_project

    location = current_project()
    if hasattr(args, "id"):
        return _undo(location, args)
    from conkeeper.services.history import list_history

    items = list_history(location, global_scope=args.global_scope, limit=max(args.limit, 0))
    if args.json:
        emit_json(items)
        return 0
    if not items:
        print("No journaled writes yet.")
        return 0
    print(f"{'ID':>6}  {'TIME':19}  {'SOURCE':10}  {'COMMAND':24}  FILES")
    for item in items:
        files = ", ".join(str(f) for f in item["files"])
        note = " (undone)" if item["undone"] else ""
        note += " (interrupted: killed mid-write)" if item.get("interrupted") else ""
        print(
            f"{item['id']!s:>6}  {str(item['time']).replace('T', ' '):19}  "
            f"{item['source']!s:10}  {str(item['command'])[:24]:24}  {files}{note}"
        )
    return 0


def _undo(location: ProjectLocation, args: argparse.Namespace) -> int:
    from conkeeper.domain.safewrite import UndoConflict
    from conkeeper.services.history import HistoryError, undo_write

    try:
        done = undo_write(location, args.id, global_scope=args.global_scope)
    except HistoryError as exc:
        raise CliError(str(exc)) from None
    except UndoConflict as exc:
        if args.json:
            emit_json({"undone": None, "error": str(exc), "diff": exc.diff})
            return 1
        sys.stderr.write(exc.diff)
        raise CliError(f"{exc} (the diff above shows the later change)") from None
    if args.json:
        emit_json({"undone": done})
    else:
        files = ", ".join(str(f) for f in done["files"])
        also = f" with {', '.join(done['with'])}" if done["with"] else ""
        print(f"Undid write {done['id']}{also} ({done['command']}): {files} restored.")
    return 0
