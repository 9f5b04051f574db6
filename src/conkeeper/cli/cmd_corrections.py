"""``conkeeper corrections``: try the correction/friction detector and read the queue.

``detect`` reads text on stdin and prints the label and confidence (what the
UserPromptSubmit hook would decide at the given sensitivity); ``list`` shows the entries of
the project's ``corrections-queue.md``.
"""

from __future__ import annotations

import argparse
import sys

from conkeeper.cli.output import CliError, editor_notice, emit_json
from conkeeper.domain.messages import clean_path

MAX_STDIN_CHARS = 1_000_000
_ITEM_HELP = (
    "the item's id (q...) from 'corrections list', or its line number there (a line number "
    "moves when an item above it leaves the queue, and is refused once the queue changed "
    "there since that listing; the id does not move)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Subcommands ``detect``, ``list``, ``apply`` and ``reject``."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    detect = sub.add_parser("detect", help="Classify text read on stdin")
    detect.add_argument(
        "--sensitivity",
        choices=("low", "medium", "high"),
        default=None,
        help="detection sensitivity (default: the project's correction_sensitivity)",
    )
    detect.add_argument("--json", action="store_true", help="print JSON")
    listing = sub.add_parser("list", help="List the queued corrections and friction")
    listing.add_argument("--json", action="store_true", help="print JSON")
    apply = sub.add_parser(
        "apply",
        help="Write a queued item into a memory file with its category, then dequeue it",
    )
    apply.add_argument("line", metavar="ITEM", help=_ITEM_HELP)
    apply.add_argument(
        "--to",
        required=True,
        help="convention|pattern → patterns.md, term → glossary.md, preference → "
        "product-context.md, workflow → active-context.md, adr → a new decisions/ADR-NNN, "
        "or a .md path in the memory folder",
    )
    apply.add_argument("--title", help="with --to adr: the ADR's title (default: first words)")
    apply.add_argument("--category", help="decision, pattern, bugfix, convention or learning")
    apply.add_argument(
        "--text",
        help="the entry as a rule in your words (default: the rule the queued item states; "
        "refused when it states none)",
    )
    apply.add_argument("--json", action="store_true", help="print JSON")
    reject = sub.add_parser("reject", help="Remove a queued item without writing it anywhere")
    reject.add_argument("line", metavar="ITEM", help=_ITEM_HELP)
    reject.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action."""
    if args.action == "detect":
        return _detect(args)
    if args.action in ("apply", "reject"):
        return _route(args)
    return _list(args)


def _route(args: argparse.Namespace) -> int:
    from conkeeper.domain.corrections_queue import item_id
    from conkeeper.domain.textio import MemoryFileError
    from conkeeper.services.agent_process import agent_marker
    from conkeeper.services.analysis.routing import (
        LEFT_IN_QUEUE,
        RoutingError,
        apply_item,
        check_listed_line,
        reject_item,
    )
    from conkeeper.services.workspace import current_project

    location = current_project()
    memory_dir = location.memory_dir
    try:
        check_listed_line(location.identity, memory_dir, args.line)
        if args.action == "apply":
            done = apply_item(
                memory_dir,
                args.line,
                args.to,
                category=args.category,
                text=args.text,
                title=args.title,
                by_agent=agent_marker() is not None,
            )
        else:
            done = reject_item(memory_dir, args.line)
    except (RoutingError, MemoryFileError) as exc:
        raise CliError(str(exc)) from None
    if args.json:
        emit_json(
            {
                "action": done.action,
                "item": {
                    "id": item_id(done.item),
                    "when": done.item.when,
                    "label": done.item.label,
                    "text": done.item.text,
                },
                "target": done.target,
                "category": done.category,
                "text": done.text,
                **({"id": done.held_id} if done.held_id else {}),
                "left_in_queue": done.left_in_queue,
            }
        )
    elif done.action == "held":
        sys.stdout.write(
            f"Held for review (id {done.held_id}), not written to {done.target}: it reads like "
            f"an instruction to later sessions. The user decides with 'conkeeper review'; the "
            "queued item stays.\n"
        )
    elif done.action == "applied":
        sys.stdout.write(f"Applied to {done.target} as {done.category}: {done.text}\n")
        editor_notice(memory_dir / (done.target or ""), "the entry")
    elif not done.left_in_queue:
        sys.stdout.write(f"Rejected: {done.item.text}\n")
    if done.left_in_queue:  # a person reworded or removed it meanwhile: never removed
        sys.stdout.write(f"{LEFT_IN_QUEUE}; 'conkeeper corrections list' shows the queue now.\n")
    return 0


def _detect(args: argparse.Namespace) -> int:
    from conkeeper.services.analysis.corrections import THRESHOLDS, detect

    raw = sys.stdin.buffer.read(MAX_STDIN_CHARS * 4 + 1)
    text = raw.decode("utf-8", errors="replace")[:MAX_STDIN_CHARS]
    level = args.sensitivity or _configured_sensitivity()
    found = detect(text, level)
    if args.json:
        emit_json(
            {
                "label": found.label,
                "confidence": found.confidence,
                "pattern": found.pattern or None,
                "sensitivity": level,
                "threshold": THRESHOLDS[level],
                "sentence": found.span or None,
            }
        )
    else:
        label = found.label or "none"
        sys.stdout.write(f"{label} {found.confidence:.2f}\n")
    return 0


def _configured_sensitivity() -> str:
    from conkeeper.domain.config import load_config
    from conkeeper.services.workspace import current_project

    loaded = load_config(current_project().root)
    return loaded.config.correction_sensitivity


def _list(args: argparse.Namespace) -> int:
    from conkeeper.domain.corrections_queue import item_id
    from conkeeper.domain.textio import MemoryFileError
    from conkeeper.services.analysis.corrections import QUEUE_NAME, read_queue
    from conkeeper.services.analysis.routing import remember_listing
    from conkeeper.services.workspace import current_project

    location = current_project()
    try:
        items = read_queue(location.memory_dir)
    except MemoryFileError as exc:
        raise CliError(str(exc)) from None
    remember_listing(location.identity, items)
    if args.json:
        emit_json(
            {
                "queue": str(location.memory_dir / QUEUE_NAME),
                "count": len(items),
                "items": [
                    {
                        "id": item_id(i),
                        "line": i.line,
                        "when": i.when,
                        "label": i.label,
                        "text": i.text,
                        "ref": i.ref,
                    }
                    for i in items
                ],
            }
        )
        return 0
    if not items:
        sys.stdout.write("No queued corrections.\n")
        return 0
    for item in items:
        sys.stdout.write(
            f"{item_id(item)}  {item.line:>4}  {item.when}  {item.label:<10}  {item.text}\n"
        )
    queue = clean_path(str(location.memory_dir / QUEUE_NAME))
    sys.stdout.write(f"{len(items)} queued item(s) in {queue}\n")
    return 0
