"""``conkeeper review [approve|drop ID]``: the memory entries held for the user's decision.

Entries an agent asked to remember that read like instructions (and every agent write to
global memory) wait here instead of being written (:mod:`conkeeper.services.review`). ``review``
lists them with their reasons; ``approve ID`` writes one with its provenance, marked approved;
``drop ID`` discards it. Approving is the user's act: under an agent (``CLAUDECODE`` and the
like set, on the command or on a process that started it, or an agent's program such as
``claude`` among those processes) ``approve`` is refused, so an agent cannot release what it
was held for, even with its variable unset. A command
without a terminal is not refused: a person's own scripts approve too.
"""

from __future__ import annotations

import argparse
import sys

from conkeeper.cli.output import CliError, emit_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from conkeeper.services.review import HeldItem


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Optional action (approve, drop) with an ID; --json."""
    parser.add_argument(
        "action", nargs="?", choices=("list", "approve", "drop"), default="list", help="action"
    )
    parser.add_argument("id", nargs="?", help="the held item's id (or its unambiguous start)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    """List, approve or drop held items of the current project and global memory."""
    from conkeeper.domain.messages import clean_path
    from conkeeper.domain.paths import global_memory_dir
    from conkeeper.services.review import ReviewError, approve, drop, list_held
    from conkeeper.services.workspace import current_project

    folders = [current_project().memory_dir, global_memory_dir()]
    if args.action == "list":
        return _list(list_held(folders), args.json, _agent_reads())
    if not args.id:
        raise CliError(f"'conkeeper review {args.action}' needs the item's id")
    try:
        if args.action == "approve":
            _refuse_agent()
            item, status, written = approve(folders, args.id)
            path = clean_path(written)  # a folder or file named after a key is never printed
            payload = {"action": "approve", "status": status, "path": path} | item.as_dict()
            line = {
                "saved": f"Approved {item.id}: written to {path} ({item.scope}).",
                "kept": f"Kept {item.id}: the line stays in {path}; sessions load it again.",
                "restored": f"Approved {item.id}: put back into {path}; the agent reads it "
                "from the next session on.",
            }.get(status, f"Approved {item.id}: {path} already holds it; nothing written.")
        else:
            agent = _agent_reads()
            item = drop(folders, args.id, source="agent-cli" if agent else "user-cli")
            payload = {"action": "drop", "status": "dropped"} | _readable(item, agent)
            line = f"Dropped {item.id}."
    except ReviewError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        emit_json(payload)
    else:
        sys.stdout.write(line + "\n")
    return 0


def _refuse_agent() -> None:
    """Approving is the user's act: refused under an agent (its variable on the command or on
    a process that started it, or its program among them). Not refused without a terminal,
    since a person's own scripts and checks approve that way."""
    from conkeeper.services.agent_process import agent_marker

    marker = agent_marker()
    if marker is not None:
        raise CliError(
            f"approving is yours to do: this command runs under an agent ({marker}); "
            "run it in your own terminal or use 'conkeeper viewer'"
        )


def _agent_reads() -> bool:
    """True when an agent started this command (as :func:`_refuse_agent` tells): the held
    text is then withheld from what it prints, and what it drops is journaled as the agent's."""
    from conkeeper.services.agent_process import agent_marker

    return agent_marker() is not None


def _readable(item: HeldItem, agent: bool) -> dict[str, object]:
    """The item's data as this command's reader may see it (the text withheld from an agent)."""
    from conkeeper.services.review import for_agent

    return for_agent(item.as_dict()) if agent else item.as_dict()


SHOWN_CHARS = 20_000  # far over any entry remember accepts; a person's own line may be longer


def _whole(shown: str) -> str:
    """The entry whole (what is approved is what was read), or, past :data:`SHOWN_CHARS`, its
    start and how much more ``--json`` holds."""
    if len(shown) <= SHOWN_CHARS:
        return shown
    return f"{shown[:SHOWN_CHARS]}… ({len(shown) - SHOWN_CHARS} more characters: review --json)"


def _list(items: list[HeldItem], as_json: bool, agent: bool) -> int:
    """The held items as the person deciding reads them: every field printed as
    :func:`~conkeeper.services.review.shown_text` shows it (a reason quotes the entry, and a
    control sequence in the quote would rewrite the terminal line as raw text). Under an
    agent the held text itself is withheld (:func:`~conkeeper.services.review.for_agent`)."""
    from conkeeper.services.review import shown_text

    if as_json:
        emit_json({"count": len(items), "held": [_readable(item, agent) for item in items]})
        return 0
    if not items:
        sys.stdout.write("No memory entries are held for review.\n")
        return 0
    out = []
    for item in items:
        head = (
            f"{item.id}  {item.as_dict()['held_at']}  {item.scope}:{item.target} "
            + (f"[{item.category}] " if item.category else "")
            + f"from {item.source}"
        )
        out.append(shown_text(head))
        out.append(f"    {_whole(str(_readable(item, agent)['shown']))}")
        out.extend(f"    held: {shown_text(reason)}" for reason in item.reasons)
    out.append(
        f"{len(items)} held. 'conkeeper review approve ID' writes (or, for an agent's own "
        "edit, keeps) one; 'conkeeper review drop ID' discards it."
    )
    sys.stdout.write("\n".join(out) + "\n")
    return 0
