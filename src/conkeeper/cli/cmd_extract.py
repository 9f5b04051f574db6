"""``conkeeper extract``: turn captured tool events into observations and session summaries.

The SessionEnd/Stop hooks spawn this detached (never inside the hook's wait); a person can run
it on demand. Workers are serialised by a lock file in the data home's state folder.
"""

from __future__ import annotations

import argparse

from conkeeper.cli.output import CliError, emit_json, notice

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
    parser.add_argument(
        "--team-sync",
        action="store_true",
        help="afterwards push shared projects to the team server (what SessionEnd asks for "
        "when team_sync is on; a server that is down only leaves the rows pending)",
    )
    parser.add_argument(
        "--backup-if-due",
        action="store_true",
        help="afterwards, back up the database when a backup is due (the SessionEnd worker)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON for programs")


def run(args: argparse.Namespace) -> int:
    """Extract the chosen sessions (the service holds the worker lock); report what changed."""
    from conkeeper.services.observations.extract import extract_pending
    from conkeeper.storage.observations import SessionNotFound
    from conkeeper.storage.store import StoreError

    try:
        done = extract_pending(
            session_ref=args.session,
            all_projects=args.all_projects,
            extractor=args.extractor,
            summarize=args.summary,
        )
    except (SessionNotFound, StoreError) as exc:
        raise CliError(str(exc)) from None
    if args.backup_if_due:
        from conkeeper.services.workspace import backup_if_due

        problem = backup_if_due()
        if problem is not None:
            from conkeeper.storage.logfile import log

            log(problem, level="WARNING")
    results, status = done.results, done.budget
    if args.team_sync:
        _team_sync()
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
            notice(f"note: {note}")
    return 0


def _team_sync() -> None:
    """Push what extraction produced; failures are logged, never raised (a detached worker)."""
    from conkeeper.services.team import credentials, sync
    from conkeeper.services.workspace import current_project, project_store
    from conkeeper.storage.logfile import log, log_exception

    try:
        with project_store() as conn:  # run in the project's folder (SessionEnd starts it so)
            result = sync.sync(conn, here=current_project())
    except credentials.CredentialsError:
        return
    except Exception:
        log_exception("team sync after extraction failed")
        return
    if result.error:
        log(f"team sync: {result.error} ({result.pending} rows pending)", level="WARNING")
