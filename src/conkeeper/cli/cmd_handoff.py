"""``conkeeper handoff write|show``: the session-handoff skill's way to leave a checkpoint.

The same checkpoint PreCompact writes (:mod:`conkeeper.services.capture.handoff`), plus the
agent's own note; the next SessionStart of the project injects it once. ``show`` prints the
pending one without consuming it.
"""

from __future__ import annotations

import argparse

from conkeeper.cli.output import CliError, emit_json
from conkeeper.domain.messages import clean_message
from conkeeper.domain.paths import ProjectLocation
from conkeeper.services.workspace import current_project


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Subcommands ``write`` (with ``--note``/``--session``) and ``show``."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    write = sub.add_parser("write", help="write a handoff checkpoint for the next session")
    write.add_argument("--note", default="", help="what you were doing and what to do first")
    write.add_argument(
        "--session", default=None, help="host session id (default: the latest active one)"
    )
    show = sub.add_parser("show", help="print the pending checkpoint without consuming it")
    for action in (write, show):
        action.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    """Write or show the checkpoint for the project of the current directory."""
    location = current_project()
    if args.action == "show":
        return _show(location, args.json)
    return _write(location, args)


def _write(location: ProjectLocation, args: argparse.Namespace) -> int:
    from conkeeper.domain.session_id import sanitize_session_id
    from conkeeper.services.capture import handoff
    from conkeeper.services.workspace import project_store
    from conkeeper.storage.sessions import find_session_by_identity
    from conkeeper.storage.state import latest_session_state
    from conkeeper.storage.store import StoreError

    note, left_out = _note(location, args.note)
    session = sanitize_session_id(args.session) if args.session else None
    if session is None:
        state = latest_session_state(location.identity)
        session = state.session_id if state else "manual"
    try:
        with project_store() as conn:
            row = find_session_by_identity(conn, location.identity, session)
            data = handoff.collect_checkpoint(
                location, conn, session, row, trigger="handoff", note=note
            )
    except StoreError:  # a checkpoint without the database's facts is still worth writing
        data = handoff.collect_checkpoint(
            location, None, session, None, trigger="handoff", note=note
        )
    path = handoff.write_checkpoint(location, data)
    if args.json:
        answer = {"path": str(path), "checkpoint": data}
        emit_json(answer | ({"note_left_out": clean_message(left_out)} if left_out else {}))
    else:
        print(f"handoff checkpoint written: {path}")
        print("the next session start of this project injects it once")
        if left_out:
            print(clean_message(f"the note was left out: it {left_out}"))
    return 0


def _note(location: ProjectLocation, note: str) -> tuple[str, str | None]:
    """The note to keep and, for an agent's that says again what is held for review, why it
    was left out (:func:`conkeeper.services.capture.handoff.agents_note`)."""
    from conkeeper.services.agent_process import agent_marker

    if not note or agent_marker() is None:  # the person's own note is theirs
        return note, None
    from conkeeper.services.capture.handoff import agents_note

    return agents_note(location, note)


def _show(location: ProjectLocation, as_json: bool) -> int:
    from conkeeper.services.capture import handoff

    data = handoff.peek_pending(location)
    if data is None:
        if as_json:
            emit_json(None)
            return 0
        raise CliError("no pending handoff checkpoint for this project", exit_code=1)
    from conkeeper.services.agent_process import agent_marker

    if agent_marker() is None:  # the person: the checkpoint whole
        if as_json:
            emit_json(data)
        else:
            print(handoff.render_checkpoint(data))
        return 0
    _show_to_agent(data, as_json)
    return 0


def _show_to_agent(data: dict[str, object], as_json: bool) -> None:
    """The checkpoint as the next SessionStart injects it: its lines that read like orders
    (an agent's note, a failure's output) left out, so ``show`` is no way around that check;
    ``--json`` gives that briefing with the checkpoint's session, trigger and time."""
    from conkeeper.services.capture import handoff
    from conkeeper.services.context import visible_handoff

    briefing = visible_handoff(handoff.render_checkpoint(data))
    if as_json:
        keys = ("session", "trigger", "created_at")
        emit_json({key: data.get(key) for key in keys} | {"briefing": briefing})
    else:
        print(briefing)
