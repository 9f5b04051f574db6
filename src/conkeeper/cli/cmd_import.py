"""``conkeeper import transcripts [PATH]`` and ``conkeeper import jsonl FILE``.

Transcripts backfill the store from Claude Code's JSONL files (F18); ``jsonl`` restores a
backup written by ``conkeeper export``: its records, and its memory files (a file that differs
here is kept unless ``--overwrite``). Both are idempotent: importing twice changes nothing.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json, notice, opened_store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from conkeeper.services.memory_backup import RestoreFilesResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``transcripts [PATH] [--force] [--extractor E]`` or ``jsonl FILE``."""
    parser.add_argument("source", choices=("transcripts", "jsonl"), help="what to import")
    parser.add_argument(
        "path",
        nargs="?",
        help="transcripts: a .jsonl file or folder (default ~/.claude/projects); jsonl: FILE",
    )
    parser.add_argument("--force", action="store_true", help="re-read unchanged transcripts")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="jsonl: replace memory files that differ here (undo with 'conkeeper undo')",
    )
    parser.add_argument(
        "--extractor",
        default="local",
        choices=("local", "claude-cli", "claude-agent-sdk", "anthropic", "openai"),
        help="extractor for imported sessions (default local: no LLM cost)",
    )
    parser.add_argument("--no-progress", action="store_true", help="never draw a progress bar")
    parser.add_argument("--json", action="store_true", help="print JSON for programs")


def run(args: argparse.Namespace) -> int:
    """Import, then print what was added (and any damaged lines)."""

    with opened_store() as conn:
        if args.source == "jsonl":
            return _jsonl(conn, args)
        return _transcripts(conn, args)


def _jsonl(conn: sqlite3.Connection, args: argparse.Namespace) -> int:
    from conkeeper.services.observations.hygiene import import_jsonl

    if not args.path:
        raise CliError("import jsonl needs a FILE (written by 'conkeeper export')")
    path = Path(args.path).expanduser()
    if not path.is_file():
        raise CliError(f"{path}: no such file")
    from conkeeper.services.memory_backup import restore_memory_files
    from conkeeper.services.workspace import current_project

    result = import_jsonl(conn, path)
    from conkeeper.services.agent_process import agent_marker

    by_agent = agent_marker() is not None
    files = restore_memory_files(
        path, current_project(), overwrite=args.overwrite, by_agent=by_agent
    )
    if args.json:
        emit_json({**result.to_dict(), "memory_files": files.to_dict()})
        return 1 if files.refused else 0
    added = ", ".join(f"{n} {k}" for k, n in result.added.items() if n) or "nothing new"
    print(f"Imported {added} from {path}.")
    _report_files(files)
    if result.forgotten:
        print(f"Left out {result.forgotten} records of sessions you had forgotten.")
    if result.damaged:
        print(f"Skipped {len(result.damaged)} damaged lines: {_lines(result.damaged)}")
    return 1 if files.refused else 0


def _report_files(files: RestoreFilesResult) -> None:
    counts = [
        (len(files.restored), "restored"),
        (len(files.replaced), "replaced (--overwrite; 'conkeeper undo' takes it back)"),
        (len(files.unchanged), "already identical"),
    ]
    said = ", ".join(f"{n} {what}" for n, what in counts if n)
    if said:
        print(f"Memory files: {said}.")
    if files.kept:
        shown = ", ".join(files.kept[:10]) + (" …" if len(files.kept) > 10 else "")
        print(
            f"Kept {len(files.kept)} memory files that differ here (rerun with --overwrite to "
            f"replace them): {shown}"
        )
    for line in files.refused:
        notice(f"memory file not restored: {line}")


def _transcripts(conn: sqlite3.Connection, args: argparse.Namespace) -> int:
    from conkeeper.cli.progress import ProgressBar, megabytes
    from conkeeper.services.observations.transcripts import (
        default_transcripts_dir,
        find_transcripts,
        import_transcripts,
    )

    root = Path(args.path).expanduser() if args.path else default_transcripts_dir()
    if not root.exists():
        raise CliError(f"{root}: no such file or folder")
    paths = find_transcripts(root)
    if not paths:
        raise CliError(f"{root}: no .jsonl transcripts found")
    bar = ProgressBar(
        f"Importing {len(paths)} files",
        position=megabytes,
        enabled=False if args.no_progress else None,
    )
    report = import_transcripts(
        conn,
        paths,
        force=args.force,
        extractor=args.extractor,
        progress=bar,
    )
    bar.finish()
    data = report.to_dict()
    if args.json:
        emit_json(data)
        return 0
    speed = f", {data['mb_per_s']} MB/s" if data["mb_per_s"] else ""
    already = report.count("updated") + report.count("known")
    print(
        f"Imported {data['imported']} new sessions from {data['files']} files "
        f"({data['prompts']} prompts, {data['tool_events']} tool events, "
        f"{data['observations']} observations) in {data['seconds']} s{speed}; "
        f"{already} already recorded ({data['updated']} with new rows), "
        f"{data['unchanged']} unchanged, {data['empty']} empty, {data['failed']} failed."
    )
    if data["forgotten"]:
        print(f"{data['forgotten']} sessions you had forgotten were left out.")
    if data["private_prompts"]:
        print(f"{data['private_prompts']} private prompts were not stored (nor their tool uses).")
    for file in report.files:
        if file.damaged:
            sys.stdout.write(
                f"{file.path}: skipped {len(file.damaged)} damaged lines ({_lines(file.damaged)})\n"
            )
        if file.error:
            sys.stdout.write(f"{file.path}: {file.error}\n")
    return 1 if data["failed"] and not (data["imported"] or already) else 0


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:20])
    return shown + (f" and {len(numbers) - 20} more" if len(numbers) > 20 else "")
