"""``conkeeper decisions new|index``: numbered ADRs and their index, for the memory-sync skill."""

from __future__ import annotations

import argparse
import sys

from conkeeper.cli.output import CliError, emit_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Subcommands ``new`` and ``index``."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    new = sub.add_parser("new", help="Write the next decisions/ADR-NNN-<title>.md")
    new.add_argument("title", help="the decision's title")
    new.add_argument("--decision", required=True, help='what was decided ("We will ...")')
    new.add_argument("--context", default="", help="the forces that made a decision necessary")
    new.add_argument(
        "--status", default="accepted", help="proposed, accepted, deprecated or superseded"
    )
    new.add_argument("--json", action="store_true", help="print JSON")
    index = sub.add_parser("index", help="Regenerate decisions/INDEX.md from the ADR files")
    index.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    """Write the ADR (and the index) or only the index, in the current project's memory."""
    from conkeeper.domain.textio import MemoryFileError
    from conkeeper.services.decisions import new_adr, regenerate_index
    from conkeeper.services.workspace import current_project

    memory_dir = current_project().memory_dir
    if not memory_dir.is_dir():
        raise CliError(f"{memory_dir}: no project memory; run 'conkeeper init' first")
    try:
        if args.action == "new":
            source = _refuse_agent_order(args)
            path = new_adr(
                memory_dir,
                args.title,
                args.decision,
                context=args.context,
                status=args.status,
                source=source,
                provenance=source,
            )
        else:
            path = regenerate_index(memory_dir)
    except MemoryFileError as exc:
        raise CliError(str(exc)) from None
    relative = path.relative_to(memory_dir).as_posix()
    if args.json:
        emit_json({"action": args.action, "path": relative})
    else:
        verb = "Wrote" if args.action == "new" else "Regenerated"
        sys.stdout.write(f"{verb} {relative}\n")
    return 0


def _refuse_agent_order(args: argparse.Namespace) -> str:
    """The journal's source of a new ADR (``agent-cli`` under an agent), refusing an agent's
    ADR that reads like an order to later sessions: its title lands in ``decisions/INDEX.md``,
    which every SessionStart injects, and an ADR has no review queue to wait in."""
    from conkeeper.services.agent_process import agent_marker
    from conkeeper.services.quarantine import reasons

    if agent_marker() is None:
        return "user-cli"
    found = reasons("\n".join([args.title, args.decision, args.context]))
    if found:
        raise CliError(
            f"this ADR reads like an instruction to later sessions ({found[0]}); an agent "
            "cannot write it: the user can, from their own terminal"
        )
    return "agent-cli"
