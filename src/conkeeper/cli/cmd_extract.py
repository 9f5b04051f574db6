"""``conkeeper extract``: turn captured tool events into observations and session summaries.

The SessionEnd/Stop hooks spawn this detached (never inside the hook's wait); a person can run
it on demand. Workers are serialised by a lock file in the data home's state folder.
"""

from __future__ import annotations

import argparse
import sys

from conkeeper.cli.output import CliError, emit_json

EXTRACTORS = ("local", "claude-cli", "claude-agent-sdk", "anthropic", "openai")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--session S`` | ``--all-pending``, ``--extractor``, ``--summary``, ``--json``."""
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--session", help="sessions.id, host session id or a unique prefix")
    target.add_argument(
        "--all-pending",
        action="store_true",
        help="every session with new events or no summary yet (the default)",
    )
    parser.add_argument("--extractor", choices=EXTRACTORS, help="override the configured one")
    summary = parser.add_mutually_exclusive_group()
    summary.add_argument(
        "--summary", dest="summary", action="store_true", default=None, help="also summarise"
    )
    summary.add_argument(
        "--no-summary", dest="summary", action="store_false", help="observations only"
    )
    parser.add_argument(
        "--all-projects",
        action="store_true",
        help="with --all-pending: every project, not only the current one",
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing (detached workers)")
    parser.add_argument("--json", action="store_true", help="print JSON for programs")


def run(args: argparse.Namespace) -> int:
    """Extract the chosen sessions under the worker lock; report what changed."""
    from pathlib import Path

    from conkeeper.domain.paths import locate_project, state_dir
    from conkeeper.services.observations.budget import budget_status
    from conkeeper.services.observations.extract import extract_session, worker_lock
    from conkeeper.storage.observations import SessionNotFound, pending_sessions
    from conkeeper.storage.store import StoreError, find_project, open_store

    results = []
    try:
        with worker_lock(state_dir()):
            conn = open_store()
            try:
                here = find_project(conn, locate_project(Path.cwd()).identity)
                if args.session:
                    ids = [_resolve(conn, args.session, here)]
                elif args.all_projects:
                    ids = pending_sessions(conn, None)
                else:
                    ids = [] if here is None else pending_sessions(conn, here)
                for session_id in ids:
                    results.append(
                        extract_session(
                            conn, session_id, extractor=args.extractor, summarize=args.summary
                        )
                    )
                status = budget_status(conn) if results else None
            finally:
                conn.close()
    except SessionNotFound as exc:
        raise CliError(str(exc)) from None
    except StoreError as exc:
        raise CliError(str(exc)) from None
    if args.quiet:
        return 0
    if args.json:
        emit_json({"sessions": [r.to_dict() for r in results], "budget": status})
        return 0
    if not results:
        print("Nothing to extract.")
        return 0
    for r in results:
        used = "+".join(r.used) or r.extractor
        line = f"session #{r.session_id}: +{r.added} observations"
        if r.removed:
            line += f", -{r.removed} outdated"
        line += f"{', summary' if r.summarized else ''} ({used}"
        line += f", {r.llm_calls} LLM calls)" if r.llm_calls else ")"
        print(line)
        for note in r.notes:
            sys.stderr.write(f"conkeeper: note: {note}\n")
    return 0


def _resolve(conn: object, ref: str, project_id: int | None) -> int:
    """A session reference, preferring the current project (host ids repeat across projects)."""
    from conkeeper.storage.observations import SessionNotFound, resolve_session

    if project_id is not None:
        try:
            return resolve_session(conn, ref, project_id)  # type: ignore[arg-type]
        except SessionNotFound:
            pass
    return resolve_session(conn, ref)  # type: ignore[arg-type]
