"""``conkeeper backup [--if-due] [--json]``: back up the session history now.

ConKeeper already backs the database up by itself (after a session ends, in the detached worker,
and after a command when the last backup is more than an hour old and rows came since); this
command is for a person who wants a fresh one before something risky, and for scripts. The
backup lives in ``<data home>/backups/`` beside the row journal, and is what a damaged database
is restored from (``storage.recovery``).
"""

from __future__ import annotations

import argparse

from conkeeper.cli.output import CliError, emit_json, notice


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--if-due``, ``--json``."""
    parser.add_argument(
        "--if-due",
        action="store_true",
        help="only when rows were written since a backup more than an hour old",
    )
    parser.add_argument("--json", action="store_true", help="print JSON for programs")


def run(args: argparse.Namespace) -> int:
    """Take the backup (the store is restored first if damaged); say where and how big."""
    from conkeeper.domain.paths import db_path
    from conkeeper.services.workspace import open_or_restore
    from conkeeper.storage.recovery import backup_due, make_backup
    from conkeeper.storage.store import StoreError

    target = db_path()
    try:
        open_or_restore(on_notice=notice).close()
        due = not args.if_due or backup_due(target)
        info = make_backup(target, only_if_due=args.if_due) if due else None
    except StoreError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot write the backup: {exc.strerror or exc}") from None
    if args.json:
        emit_json(
            None
            if info is None
            else {
                "path": str(info.path),
                "taken_at": info.taken_at,
                "bytes": info.size,
                "put_back_sessions": info.put_back,
                "restored": info.restored,
            }
        )
        return 0
    if info is None:
        print("No backup was due.")
        return 0
    if info.restored:
        print(info.restored)
    if info.put_back:
        print(
            f"The row journal put back {info.put_back} session(s) the database had lost "
            "(a torn write-ahead log, a crash); they are in this backup too."
        )
    print(
        f"Backed up the session history to {info.path} ({info.size / 1024:,.0f} KB); "
        "the row journal starts again from here."
    )
    return 0
