"""``conkeeper index [--rebuild] [--status] [--all-projects] [--json]``.

Searching refreshes the index by itself; this command exists to build it ahead of time (with a
progress bar for big memory folders), to rebuild it from scratch, and to show what it holds —
including files it had to skip (binary, not UTF-8, unreadable, too large) and why.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json, notice
from conkeeper.cli.progress import ProgressBar
from conkeeper.services.workspace import current_project
from conkeeper.storage.index import (
    IndexRoot,
    IndexStore,
    RefreshStats,
    RootStatus,
    clear_index,
    global_root,
    index_status,
    is_corruption,
    known_project_roots,
    move_aside,
    open_index_store,
    project_root,
    refresh_root,
    tilde,
)
from conkeeper.storage.store import StoreError, describe_error, schema_version

PROGRESS_MIN_FILES = 200  # smaller builds finish before a bar is worth drawing


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags: rebuild, status, scope and JSON output."""
    parser.add_argument(
        "--rebuild", action="store_true", help="forget everything indexed and re-read every file"
    )
    parser.add_argument(
        "--status",
        action="store_true",
        help="show what the index holds and which files were skipped",
    )
    parser.add_argument(
        "--all-projects",
        action="store_true",
        help="also refresh every other project ConKeeper knows",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _roots(store: IndexStore, all_projects: bool) -> list[IndexRoot]:
    location = current_project()
    roots: list[IndexRoot] = []
    if location.memory_dir.is_dir():
        roots.append(project_root(store.conn, location))
    if all_projects:
        seen = {r.project_id for r in roots}
        roots.extend(
            r for r in known_project_roots(store.conn, location) if r.project_id not in seen
        )
    roots.append(global_root())
    return roots


def _refresh_all(store: IndexStore, roots: list[IndexRoot]) -> RefreshStats:
    total = RefreshStats()
    for root in roots:
        bar = ProgressBar(f"indexing {root.display}", minimum_total=PROGRESS_MIN_FILES)
        try:
            total.add(refresh_root(store.conn, root, progress=bar))
        finally:
            bar.finish()
    return total


def _stats_json(stats: RefreshStats) -> dict[str, object]:
    return {
        "scanned": stats.scanned,
        "unchanged": stats.unchanged,
        "added": stats.added,
        "updated": stats.updated,
        "touched": stats.touched,
        "removed": stats.removed,
        "skipped": stats.skipped,
        "entries": stats.entries,
        "seconds": round(stats.seconds, 4),
    }


def _status_json(store: IndexStore, roots: list[RootStatus]) -> dict[str, object]:
    return {
        "database": str(store.path),
        "schema": schema_version(store.conn),
        "roots": [
            {
                "kind": r.kind,
                "path": r.path,
                "project": r.project,
                "files": r.files,
                "entries": r.entries,
                "private_files": r.private,
                "skipped": [{"path": p, "note": n} for p, n in r.skipped],
                "checked_at": r.checked_at,
            }
            for r in roots
        ],
    }


def _print_status(store: IndexStore, roots: list[RootStatus]) -> None:
    size = store.path.stat().st_size if store.path.exists() else 0
    out = [f"Index: {tilde(store.path)} (schema {schema_version(store.conn)}, {size:,} bytes)"]
    if not roots:
        out.append("  nothing indexed yet (no memory folders found)")
    for r in roots:
        name = f"{r.kind} {r.project}".strip()
        out.append(
            f"  {name}: {tilde(Path(r.path))} — {r.files} files, {r.entries} entries"
            + (f", {r.private} private" if r.private else "")
            + (f", {len(r.skipped)} skipped" if r.skipped else "")
        )
        out.extend(f"    skipped: {n or p}" for p, n in r.skipped)
    sys.stdout.write("\n".join(out) + "\n")


def _print_stats(stats: RefreshStats, rebuilt: bool) -> None:
    verb = "Rebuilt" if rebuilt else "Indexed"
    rate = stats.scanned / stats.seconds if stats.seconds > 0 else 0.0
    sys.stdout.write(
        f"{verb}: {stats.scanned} files checked, {stats.added} added, {stats.updated} updated, "
        f"{stats.removed} removed, {stats.skipped} skipped, {stats.entries} entries written "
        f"in {stats.seconds:.2f}s ({rate:,.0f} files/s)\n"
    )


def _execute(store: IndexStore, args: argparse.Namespace) -> None:
    if args.rebuild:
        clear_index(store.conn)
    stats = _refresh_all(store, _roots(store, args.all_projects))
    status = index_status(store.conn)
    if args.json:
        emit_json({"refresh": _stats_json(stats), **_status_json(store, status)})
    elif args.status:
        _print_status(store, status)
    else:
        _print_stats(stats, args.rebuild)


def run(args: argparse.Namespace) -> int:
    """Refresh (or rebuild) the index for this project and global memory; report or show status.

    A database found damaged on the way is moved aside and the run repeated on a fresh one.
    """
    for attempt in (1, 2):
        try:
            store = open_index_store()
        except StoreError as exc:
            raise CliError(str(exc)) from None
        for text in store.notices:
            notice(text)
        try:
            _execute(store, args)
            return 0
        except sqlite3.DatabaseError as exc:
            store.conn.close()
            if attempt == 2 or not is_corruption(exc):
                raise CliError(describe_error(store.path, exc)) from None
            notice(move_aside(store.path))
        finally:
            store.conn.close()
    return 1
