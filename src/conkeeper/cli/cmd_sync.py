"""``conkeeper sync``: record that memory was synced or saved, so the hooks stop nudging.

The memory-sync skill runs ``conkeeper sync mark`` after writing memory: the context monitor
then knows a real sync happened (a nudge alone does not count) and the save-reminder counter
starts again. ``conkeeper sync mark --save`` records only a save (what the save reminder asks
for). The session is the one given with ``--session``, else the project's most recently active
one. ``status`` shows what the hooks currently know about that session.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from conkeeper.cli.output import CliError, emit_json

if TYPE_CHECKING:
    from conkeeper.domain.paths import ProjectLocation


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Subcommands ``mark`` and ``status``."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    mark = sub.add_parser("mark", help="Record a memory sync (or, with --save, a save)")
    mark.add_argument("--save", action="store_true", help="record a save only, not a full sync")
    mark.add_argument("--session", default=None, help="host session id (default: latest)")
    mark.add_argument("--json", action="store_true", help="print JSON")
    status = sub.add_parser("status", help="Show the hook state of the latest session")
    status.add_argument("--session", default=None, help="host session id (default: latest)")
    status.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action."""
    from conkeeper.domain.session_id import sanitize_session_id
    from conkeeper.services.workspace import current_project

    location = current_project()
    session = sanitize_session_id(args.session) if args.session else None
    if args.action == "mark":
        return _mark(location, session, args)
    return _status(location, session, args)


def _mark(location: ProjectLocation, session: str | None, args: argparse.Namespace) -> int:
    from conkeeper.storage.state import record_sync

    state = record_sync(location, session, save_only=args.save)
    if state is None:
        raise CliError(
            f"no ConKeeper session recorded for {location.shown_root} yet "
            "(the hooks create one on the first prompt); nothing to mark"
        )
    kind = "save" if args.save else "sync"
    if not args.save and location.memory_dir.is_dir():
        from conkeeper.services.upkeep.freshness.health import record_last_sync

        record_last_sync(location.root, location.memory_dir)  # read by the next SessionStart
    if args.json:
        emit_json({"recorded": kind, "session": state.session_id, "project": state.identity})
    else:
        sys.stdout.write(f"Recorded a memory {kind} for session {state.session_id}.\n")
    return 0


def _status(location: ProjectLocation, session: str | None, args: argparse.Namespace) -> int:
    from conkeeper.domain.paths import DIGEST_PREFIX
    from conkeeper.storage.state import SessionState, latest_session_state

    identity = location.identity
    # a folder named after a credential: the state's mark for it is shown as its redacted path
    shown = location.shown_root if identity.startswith(DIGEST_PREFIX) else ""
    state = (
        SessionState(identity, session, live_root=shown)
        if session
        else latest_session_state(identity, live_root=shown)
    )
    if state is None:
        raise CliError(f"no ConKeeper session recorded for {location.shown_root} yet")
    data = state.read()
    data.pop("tool_starts", None)
    if args.json:
        emit_json({"session": state.session_id, "project": identity, "state": data})
        return 0
    sys.stdout.write(f"session {state.session_id}\n")
    for key in sorted(data):
        value = data[key]
        if key.endswith("_at") and isinstance(value, int):
            value = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(value / 1000))
        sys.stdout.write(f"  {key}: {value}\n")
    return 0
