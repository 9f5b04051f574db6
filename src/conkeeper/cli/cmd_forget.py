"""``conkeeper forget observation ID | session ID | project [PATH]``: remove rows for good,
with their search-index entries. Asks for confirmation unless ``--yes``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json, opened_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``what`` and its target, ``--yes``, ``--json``."""
    parser.add_argument("what", choices=("observation", "session", "project"))
    parser.add_argument(
        "target",
        nargs="?",
        help="observation id; session id/host id; project folder (default: current)",
    )
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--json", action="store_true", help="print JSON for programs")


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        raise CliError(f"{question} — rerun with --yes to confirm (no terminal to ask)")
    answer = input(f"{question} [y/N] ").strip().lower()
    return answer in ("y", "yes")


def run(args: argparse.Namespace) -> int:
    """Resolve the target, confirm, delete in one transaction, report the counts."""
    from conkeeper.domain.textio import MemoryFileError
    from conkeeper.services.observations import hygiene
    from conkeeper.services.workspace import current_project
    from conkeeper.storage.observations import SessionNotFound, resolve_session

    with opened_store() as conn:
        try:
            if args.what == "observation":
                if not args.target or not args.target.isdigit():
                    raise CliError("forget observation needs a numeric ID")
                action = lambda: hygiene.forget_observation(conn, int(args.target))  # noqa: E731
                question = f"Forget observation {args.target}?"
            elif args.what == "session":
                if not args.target:
                    raise CliError("forget session needs a session id")
                session_id = resolve_session(conn, args.target)
                action = lambda: hygiene.forget_session(conn, session_id)  # noqa: E731
                question = f"Forget session {session_id} and everything recorded in it?"
            else:
                location = current_project(Path(args.target).expanduser() if args.target else None)
                action = lambda: hygiene.forget_project(conn, location.identity)  # noqa: E731
                question = f"Forget everything recorded for project {location.shown_identity}?"
            if not args.yes and not _confirm(question):
                print("Nothing was removed.")
                return 1
            result = action()
        except (SessionNotFound, LookupError) as exc:
            raise CliError(str(exc).strip("'\"")) from None
        except MemoryFileError as exc:  # a queue or retro file it cannot change: rows kept
            raise CliError(f"{exc}; the session is still recorded: run this again then") from None
    if args.json:
        emit_json(result.to_dict())
    else:
        counts = ", ".join(
            f"{getattr(result, k)} {k.replace('_', ' ')}"
            for k in (
                "sessions",
                "prompts",
                "tool_events",
                "observations",
                "summaries",
                "memory_files",
            )
            if getattr(result, k)
        )
        print(f"Forgot {result.target}: {counts or 'removed'}.")
    return 0
