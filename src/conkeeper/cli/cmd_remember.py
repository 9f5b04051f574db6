"""``conkeeper remember TEXT``: save one entry to memory, or hold it for review.

The same engine and answer as the MCP ``remember`` tool (:mod:`conkeeper.services.remember`):
``--json`` prints ``{"status": "saved"|"held"|"duplicate"|"refused", ...}``. Who is writing
matters: from the user's own terminal the source is ``user-cli`` (saved, with a warning when the
text reads like an instruction); when an agent runs the command (one of
``services.remember.AGENT_ENV_VARS`` — ``CLAUDECODE``, ``CLINE_ACTIVE``, ``COPILOT_AGENT``... —
set on it or on a process that started it, or an agent's program such as ``claude`` among
those) or it runs without a terminal,
the source is ``agent-cli`` and instruction-shaped text or a ``--global`` write is held for
``conkeeper review``. An agent cannot pass ``--source user``.
"""

from __future__ import annotations

import argparse
import sys

from conkeeper.cli.output import CliError, editor_notice, emit_json
from conkeeper.services.remember import DEFAULT_FILE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TEXT, --file, --category, --global, --source, --json."""
    parser.add_argument("text", help="the entry: one self-contained sentence or rule")
    parser.add_argument(
        "--file",
        default=DEFAULT_FILE,
        help=f"memory file or route word (convention, term, preference, workflow); "
        f"default {DEFAULT_FILE}",
    )
    parser.add_argument(
        "--category", help="decision, pattern, bugfix, convention or learning (default: guessed)"
    )
    parser.add_argument("--global", dest="global_", action="store_true", help="global memory")
    parser.add_argument(
        "--source",
        choices=("user", "agent"),
        help="who is writing (default: agent under an agent or without a terminal, else user)",
    )
    parser.add_argument("--json", action="store_true", help="print the JSON answer")


def run(args: argparse.Namespace) -> int:
    """Save or hold the entry; exit 0 for saved, held and duplicate, 1 for refused."""
    from conkeeper.domain.paths import global_memory_dir
    from conkeeper.services.agent_process import agent_marker
    from conkeeper.services.remember import cli_source, remember
    from conkeeper.services.workspace import current_project

    try:
        source = cli_source(args.source, agent_var=agent_marker(), interactive=sys.stdin.isatty())
    except PermissionError as exc:
        raise CliError(str(exc)) from None
    scope = "global" if args.global_ else "project"
    project = current_project()
    memory_dir = global_memory_dir() if args.global_ else project.memory_dir
    result = remember(
        memory_dir, args.file, args.text, args.category, scope=scope, source=source, project=project
    )
    from conkeeper.domain.messages import clean_message

    if args.json:  # the file's name is the person's text too: it may hold a token
        answer = result.as_dict()
        if result.path is not None:
            answer["path"] = clean_message(result.path)
        emit_json(answer)
        return 1 if result.status == "refused" else 0
    if result.status == "refused":
        raise CliError(result.reason or "the entry was refused")
    sys.stdout.write(clean_message(_describe(result)) + "\n")
    if result.status == "saved" and result.path is not None:
        editor_notice(memory_dir / result.path, "the entry")
    return 0


def _describe(result: object) -> str:
    from conkeeper.services.remember import RememberResult

    assert isinstance(result, RememberResult)
    if result.status == "saved":
        guessed = " guessed: pass --category to choose" if result.category_guessed else ""
        lines = [f"Saved to {result.path} ({result.category}{guessed}, source {result.source})."]
        lines += [f"note: this reads like an instruction: {w}" for w in result.warnings]
        return "\n".join(lines)
    if result.status == "duplicate":
        return f"Not written: {result.reason}."
    reasons = "\n".join(f"  - {r}" for r in result.reasons)
    return (
        f"Held for review (id {result.id}), not written to {result.path}:\n{reasons}\n"
        f"Approve with 'conkeeper review approve {result.id}' or drop with "
        f"'conkeeper review drop {result.id}'."
    )
