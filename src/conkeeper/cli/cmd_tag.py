"""``conkeeper tag``: classify text, tag entries retroactively, add or remove one tag.

Skills and people use these to categorise memory without hand-editing HTML comments:
``classify`` lets an agent ask "which category?" and learn when to ask the user instead;
``retro`` proposes tags for untagged entries and writes them only with ``--apply``;
``add``/``remove`` edit one entry's tags by the line number search printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from conkeeper.cli.output import CliError, editor_notice, emit_json, warn
from conkeeper.domain import categories
from conkeeper.domain.paths import global_memory_dir
from conkeeper.domain.safewrite import edit_file, text_edit
from conkeeper.domain.textio import MAX_MEMORY_FILE_BYTES, MemoryFileError, is_within, read_text
from conkeeper.services.upkeep import tagging
from conkeeper.services.workspace import current_project

MAX_CLASSIFY_CHARS = 1_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Subcommands of ``conkeeper tag``."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    cls = sub.add_parser("classify", help="propose a category for text (argument or stdin)")
    cls.add_argument("text", nargs="*", help="text to classify (default: read stdin)")
    cls.add_argument(
        "--set",
        dest="category_set",
        choices=("memory", "retro"),
        default="memory",
        help="category set to choose from (default: memory)",
    )
    cls.add_argument("--json", action="store_true", help="print the result as JSON")

    retro = sub.add_parser("retro", help="propose categories for untagged entries")
    retro.add_argument(
        "path", nargs="?", help="memory folder or one memory file (default: this project's folder)"
    )
    retro.add_argument(
        "--global",
        dest="global_",
        action="store_true",
        help="use the global memory folder ~/.claude/memory",
    )
    retro.add_argument("--apply", action="store_true", help="write the proposed tags")
    retro.add_argument("--json", action="store_true", help="print the plan as JSON")

    for name, verb in (("add", "add a tag to"), ("remove", "remove a tag from")):
        edit = sub.add_parser(name, help=f"{verb} the entry starting on LINE of FILE")
        edit.add_argument("file", help="memory file")
        edit.add_argument("line", type=int, help="line of the entry's heading or bullet")
        edit.add_argument("name", help="category name (or freeform tag name with --tag)")
        edit.add_argument("--tag", action="store_true", help="a freeform @tag, not a category")
        edit.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action."""
    handlers = {"classify": _classify, "retro": _retro, "add": _edit, "remove": _edit}
    return handlers[args.action](args)


def _classify(args: argparse.Namespace) -> int:
    text = " ".join(args.text) if args.text else sys.stdin.read(MAX_CLASSIFY_CHARS)
    if not text.strip():
        raise CliError("nothing to classify: pass text as arguments or on stdin")
    verdict = categories.classify(text, args.category_set)
    if args.json:
        emit_json(
            {
                "category": verdict.category,
                "confidence": verdict.confidence,
                "unsure": verdict.unsure,
                "best_guess": verdict.best_guess,
                "scores": verdict.scores,
                "set": args.category_set,
            }
        )
    elif verdict.unsure:
        guess = f" (best guess: {verdict.best_guess})" if verdict.best_guess else ""
        print(f"unsure{guess} — confidence {verdict.confidence:.2f}; ask the user")
    else:
        print(f"{verdict.category} — confidence {verdict.confidence:.2f}")
    return 0


def _memory_dir(args: argparse.Namespace) -> Path:
    if args.global_:
        if args.path:
            raise CliError("--global and PATH cannot be used together")
        return global_memory_dir()
    if args.path:
        return Path(args.path).expanduser()
    return current_project().memory_dir


def _retro(args: argparse.Namespace) -> int:
    from conkeeper.cli.cmd_init import format_plan

    memory_dir = _memory_dir(args)
    warnings: list[str] = []
    try:
        if args.path and memory_dir.suffix == ".md" and memory_dir.is_file():  # one file only
            single = memory_dir
            memory_dir = _root_for(single)
            if not is_within(single, memory_dir):
                raise MemoryFileError(f"{single}: is a symlink leading outside {memory_dir}")
            plan = tagging.plan_file(single, memory_dir)
        else:
            plan = tagging.plan_retro_tagging(memory_dir, warnings)
    except MemoryFileError as exc:
        raise CliError(str(exc)) from None
    for message in warnings:
        warn(message)
    result = tagging.apply_tag_plan(plan) if args.apply else None
    if args.json:
        payload: dict[str, Any] = {
            "memory_dir": str(memory_dir),
            "applied": bool(args.apply),
            "changes": [change.to_dict() for change in plan],
            "warnings": warnings,
        }
        if result is not None:
            payload["skipped"] = [{"path": str(p), "reason": r} for p, r in result.skipped]
        emit_json(payload)
        return 1 if result is not None and result.skipped else 0
    if not plan:
        print("No untagged entries the classifier is sure about; nothing to change.")
        return 0
    print(format_plan(plan, memory_dir))
    if result is None:
        print("Dry run: nothing was changed. Run 'conkeeper tag retro --apply' to write these.")
        return 0
    for _path, reason in result.skipped:
        warn(reason)
    print(f"Added {len(result.applied)} tags in {len(result.files)} files.")
    return 1 if result.skipped else 0


def _root_for(path: Path) -> Path:
    """The memory root a file belongs to (project or global), else its own folder."""
    for root in (current_project(path.parent).memory_dir, global_memory_dir()):
        if is_within(path.parent, root) or path.parent == root:
            return root
    return path.parent


def _edit(args: argparse.Namespace) -> int:
    path = Path(args.file).expanduser()
    kind = "tag" if args.tag else "category"
    name = args.name.strip().lower()
    try:
        if kind == "category":
            categories.validate_category(name, "any")
        else:
            categories.validate_name(name)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    try:
        changed = _edit_file(path, args.line, kind, name, adding=args.action == "add")
    except (MemoryFileError, ValueError) as exc:
        raise CliError(f"{path}: {exc}" if isinstance(exc, ValueError) else str(exc)) from None
    if changed:
        editor_notice(path, "the tag")
    verb = "added" if args.action == "add" else "removed"
    if args.json:
        emit_json(
            {
                "path": str(path),
                "line": args.line,
                "kind": kind,
                "name": name,
                "changed": changed,
                "action": args.action,
            }
        )
    elif changed:
        print(f"{path}:{args.line}: {verb} <!-- @{kind}: {name} -->")
    else:
        state = "already has" if args.action == "add" else "has no"
        print(f"{path}:{args.line}: {state} <!-- @{kind}: {name} -->; nothing changed")
    return 0


def _editable_bytes(path: Path) -> bool:
    """True when the file's only problem is bytes that are not UTF-8: the edit works on bytes
    and carries them through untouched, so a Latin-1 accent never blocks a tag."""
    try:
        if path.stat().st_size > MAX_MEMORY_FILE_BYTES:
            return False
        data = path.read_bytes()
    except OSError:
        return False
    return b"\x00" not in data[:8192]


def _edit_file(path: Path, line: int, kind: str, name: str, *, adding: bool) -> bool:
    root = _root_for(path)
    if path.is_symlink() and not is_within(path, root):
        raise MemoryFileError(f"{path}: is a symlink leading outside {root}; refusing to edit it")
    try:
        read_text(path)  # the file's own problems (missing, binary, too large) in one line
    except MemoryFileError:
        if not _editable_bytes(path):
            raise
    edit = categories.add_tag if adding else categories.remove_tag
    changed: list[bool] = []

    def change(text: str) -> str:
        # kind is argparse's choice of "category" or "tag": the TagKind literal, unchecked by mypy
        new_text = edit(text, line, kind, name)  # type: ignore[arg-type]
        changed.append(new_text != text)
        return new_text

    command = f"tag {'add' if adding else 'remove'} {kind} {name}"
    edit_file(path, text_edit(change), command=command, source="user-cli", root=root)
    return changed[-1]
