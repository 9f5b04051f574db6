"""``conkeeper init``: create the memory layout for a project (or ``--global``).

A thin front door over :mod:`conkeeper.services.setup.initializer` and
:mod:`conkeeper.services.upkeep.tagging`. It asks its two yes/no questions only when a person is
at a terminal; scripts and agents get the safe answer (no) unless they pass ``--yes`` or a specific
flag, so ``init`` never blocks waiting for input that will not come.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from conkeeper.cli.output import CliError, emit_json, warn
from conkeeper.domain.messages import clean_path
from conkeeper.domain.paths import global_memory_dir
from conkeeper.domain.textio import MemoryFileError
from conkeeper.services.setup import initializer
from conkeeper.services.upkeep import tagging
from conkeeper.services.workspace import current_project

GITIGNORE_QUESTION = (
    "Add sessions/*-observations.md, .last-sync and interrupted writes' temporary files to "
    ".gitignore? [y/N] "
)
RETRO_QUESTION = "Tag existing memory entries with categories? [y/N] "


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``conkeeper init``."""
    parser.add_argument(
        "--global",
        dest="global_",
        action="store_true",
        help="create the global memory in ~/.claude/memory instead",
    )
    parser.add_argument(
        "--path", metavar="DIR", help="project directory (default: the current directory)"
    )
    answers = parser.add_mutually_exclusive_group()
    answers.add_argument(
        "--yes",
        "-y",
        dest="answer",
        action="store_const",
        const=True,
        help="answer yes to every question",
    )
    answers.add_argument(
        "--no",
        "-n",
        dest="answer",
        action="store_const",
        const=False,
        help="answer no to every question",
    )
    parser.add_argument(
        "--gitignore",
        dest="gitignore",
        action="store_const",
        const=True,
        help=(
            "add the observation logs, .last-sync and interrupted writes' temporary files to "
            "the project's .gitignore"
        ),
    )
    parser.add_argument(
        "--no-gitignore",
        dest="gitignore",
        action="store_const",
        const=False,
        help="leave .gitignore alone",
    )
    parser.add_argument(
        "--retro-tag",
        dest="retro_tag",
        action="store_const",
        const=True,
        help="tag existing entries with categories the classifier is sure of",
    )
    parser.add_argument(
        "--no-retro-tag",
        dest="retro_tag",
        action="store_const",
        const=False,
        help="do not tag existing entries",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    """Create the layout, then settle the .gitignore and retro-tagging questions: every file
    this writes is journaled as one group, so one ``conkeeper undo`` takes the init back."""
    from conkeeper.domain.safewrite import write_group

    with write_group():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    memory_dir, project_root = _target(args)
    scope: initializer.Scope = "global" if args.global_ else "project"
    try:
        result = initializer.create_layout(memory_dir, scope)
    except MemoryFileError as exc:
        raise CliError(str(exc)) from None
    report: dict[str, Any] = {
        "scope": scope,
        "memory_dir": clean_path(str(memory_dir)),
        "project_root": clean_path(str(project_root)) if project_root else None,
        "created": result.created,
        "existing": result.existing,
        "warnings": result.warnings,
    }
    if not args.json:
        _print_layout(result)
    report["gitignore"] = _gitignore_step(args, project_root)
    reported = {str(memory_dir / w.split(":", 1)[0].rstrip("/")) for w in result.warnings}
    report["retro_tagging"] = _retro_step(args, memory_dir, reported)
    if args.json:
        emit_json(report)
    return 0


def _target(args: argparse.Namespace) -> tuple[Path, Path | None]:
    if args.global_:
        if args.path:
            raise CliError("--global and --path cannot be used together")
        return global_memory_dir(), None
    start = Path(args.path).expanduser() if args.path else Path.cwd()
    if not start.is_dir():
        raise CliError(f"{start}: no such directory")
    location = current_project(start)
    return location.memory_dir, location.root


def _interactive() -> bool:
    stdin = sys.stdin
    try:
        return bool(stdin) and stdin.isatty()
    except (ValueError, OSError):
        return False


def _ask(question: str) -> bool:
    sys.stderr.write(question)
    sys.stderr.flush()
    reply = sys.stdin.readline()
    return reply.strip().lower() in ("y", "yes")


def _decide(specific: bool | None, overall: bool | None, question: str) -> bool:
    """Flag for this question, else --yes/--no, else ask a person at a terminal, else no."""
    if specific is not None:
        return specific
    if overall is not None:
        return overall
    return _ask(question) if _interactive() else False


def _gitignore_step(args: argparse.Namespace, project_root: Path | None) -> str:
    if project_root is None:
        return "not-applicable"
    try:
        missing = initializer.missing_gitignore_entries(project_root)
        if not missing:
            return "present"
        if not _decide(args.gitignore, args.answer, GITIGNORE_QUESTION):
            return "declined"
        for entry in missing:
            initializer.add_gitignore_entry(project_root, entry)
    except MemoryFileError as exc:
        raise CliError(str(exc)) from None
    if not args.json:
        print(f".gitignore: added {', '.join(missing)}")
    return "added"


def _retro_step(args: argparse.Namespace, memory_dir: Path, reported: set[str]) -> dict[str, Any]:
    warnings: list[str] = []
    try:
        plan = tagging.plan_retro_tagging(memory_dir, warnings)
    except MemoryFileError as exc:
        raise CliError(str(exc)) from None
    for message in warnings:
        if message.split(":", 1)[0] not in reported:  # the layout step already said so
            warn(message)
    outcome: dict[str, Any] = {"status": "nothing-to-tag", "proposed": len(plan), "changes": []}
    if not plan:
        if args.retro_tag or args.answer:
            _say(args, "Retro tagging: no untagged entries the classifier is sure about.")
        return outcome
    if not args.json and (args.retro_tag or args.answer or _interactive()):
        print(format_plan(plan, memory_dir))
    if not _decide(args.retro_tag, args.answer, RETRO_QUESTION):
        outcome["status"] = "declined"
        _say(
            args,
            f"Retro tagging: skipped ({len(plan)} tags could be proposed; "
            "run 'conkeeper tag retro' to review them).",
        )
        return outcome
    applied = tagging.apply_tag_plan(plan)
    for _path, reason in applied.skipped:
        warn(reason)
    outcome.update(
        status="applied",
        changes=[change.to_dict() for change in applied.applied],
        skipped=[{"path": str(p), "reason": r} for p, r in applied.skipped],
    )
    _say(args, f"Retro tagging: added {len(applied.applied)} tags in {len(applied.files)} files.")
    return outcome


def _say(args: argparse.Namespace, message: str) -> None:
    if not args.json:
        print(message)


def _print_layout(result: initializer.InitResult) -> None:
    label = "Global memory" if result.scope == "global" else "Project memory"
    print(f"{label}: {clean_path(str(result.memory_dir))}")
    for rel in result.created:
        print(f"  created  {rel}")
    for rel in result.existing:
        print(f"  exists   {rel}")
    for message in result.warnings:
        warn(message)
    print(
        f"Created {len(result.created)}, kept {len(result.existing)} existing "
        "(nothing is ever overwritten)."
    )


def format_plan(plan: list[tagging.TagChange], root: Path) -> str:
    """The plan as a diff-like list: each entry's location and the tag line it would gain."""
    lines: list[str] = []
    current: Path | None = None
    for change in plan:
        if change.path != current:
            current = change.path
            lines.append(f"--- {_relative(change.path, root)}")
        lines.append(f"  {change.line:>5}  {change.excerpt}")
        lines.append(
            f"       + <!-- @category: {change.category} -->   (confidence {change.confidence:.2f})"
        )
    files = len({c.path for c in plan})
    lines.append(f"{len(plan)} tags proposed in {files} files.")
    return "\n".join(lines)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return os.fspath(path)
