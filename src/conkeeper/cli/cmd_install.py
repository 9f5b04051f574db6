"""``conkeeper install``: register ConKeeper's hooks in a Claude Code settings file.

For people who installed ConKeeper with pip rather than as a plugin. The work (merging, backup,
idempotence, uninstall) lives in :mod:`conkeeper.services.install`; this only parses and prints.
"""

from __future__ import annotations

import argparse

from conkeeper.cli.output import CliError, emit_json, warn


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare scope, uninstall, dry-run and JSON options."""
    parser.add_argument(
        "--scope",
        choices=("user", "project", "local"),
        default="user",
        help="user: ~/.claude/settings.json (default); project: <project>/.claude/settings.json;"
        " local: <project>/.claude/settings.local.json",
    )
    parser.add_argument(
        "--uninstall", action="store_true", help="remove ConKeeper's hooks (and nothing else)"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="say what would change without writing"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


_MESSAGES = {
    "installed": "installed ConKeeper hooks ({events}) in {path}",
    "updated": "updated ConKeeper hooks in {path}",
    "unchanged": "ConKeeper hooks are already installed in {path}; nothing changed",
    "uninstalled": "removed ConKeeper hooks from {path}",
    "not-installed": "no ConKeeper hooks in {path}; nothing changed",
}


def run(args: argparse.Namespace) -> int:
    """Install or uninstall, then report what happened."""
    from conkeeper.services.install import InstallError, install

    try:
        result = install(args.scope, uninstall=args.uninstall, dry_run=args.dry_run)
    except InstallError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        emit_json(result.as_dict())
        return 0
    for message in result.warnings:
        warn(message)
    text = _MESSAGES[result.action].format(path=result.path, events=", ".join(result.events))
    if args.dry_run and result.changed:
        text = f"dry run (nothing written): {result.action} would apply to {result.path}"
    print(text)
    if result.backup:
        print(f"backup of the previous file: {result.backup}")
    return 0
