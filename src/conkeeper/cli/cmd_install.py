"""``conkeeper install [--agent NAME]``: register ConKeeper with a coding agent.

One path for every agent (:mod:`conkeeper.services.setup.agent_install`), Claude Code included:
without ``--agent`` it is Claude Code's hooks in a settings file, for people who installed
ConKeeper with pip rather than as a plugin. What will change is printed before it is written;
``--dry-run`` shows the diff and writes nothing. This module only parses and prints.
"""

from __future__ import annotations

import argparse

from conkeeper.cli.output import CliError, emit_json, warn
from conkeeper.domain.messages import clean_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare agent, scope, uninstall, dry-run, symlink and JSON options."""
    parser.add_argument(
        "--agent",
        default="claude-code",
        metavar="NAME",
        help="claude-code (default), codex, gemini, cursor, copilot, windsurf, cline or zed",
    )
    parser.add_argument(
        "--scope",
        choices=("user", "project", "local"),
        default=None,
        help="Claude Code: user (default) ~/.claude/settings.json, project "
        "<project>/.claude/settings.json, local <project>/.claude/settings.local.json; "
        "other agents: project (default) or user",
    )
    parser.add_argument(
        "--uninstall",
        action="store_true",
        help="remove what install added (and nothing else): the original bytes come back",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="show what would change (a diff) without writing"
    )
    parser.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="edit a config file that is a symlink through the link (default: refuse, so a "
        "dotfile is never replaced by a copy)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


_VERBS = {"create": "create", "update": "update", "delete": "remove", "unchanged": "keep"}


def run(args: argparse.Namespace) -> int:
    """Show the plan, apply it unless ``--dry-run``, then the notes."""
    from conkeeper.services.setup.agent_install import apply, plan
    from conkeeper.services.setup.install import InstallError

    try:
        result = plan(
            args.agent,
            args.scope,
            uninstall=args.uninstall,
            follow_symlinks=args.follow_symlinks,
        )
        if args.json:
            if not args.dry_run:
                apply(result)
            emit_json(_shown({**result.as_dict(), "dry_run": args.dry_run}))
            return 0
        verb = "would" if args.dry_run else "will"
        for change in result.changes:
            via = f" (through the link {clean_path(str(change.link))})" if change.link else ""
            shown = clean_path(str(change.path))  # a project folder named after a key
            print(f"{verb} {_VERBS[change.action]:<6} {shown} ({change.what}){via}")
            if change.warning:
                warn(f"{shown}: {change.warning}")
            if args.dry_run and change.action != "unchanged":
                print(change.diff(), end="")
        if not args.dry_run:
            apply(result)
    except InstallError as exc:
        raise CliError(str(exc)) from None
    for message in result.warnings:
        warn(message)
    for note in result.notes:
        print(f"note: {note}")
    done = "removed from" if args.uninstall else "installed for"
    if args.dry_run:
        print("dry run: nothing written")
    elif result.changed:
        print(f"ConKeeper {done} {result.agent} ({result.scope})")
    else:
        print(f"nothing to change for {result.agent} ({result.scope})")
    return 0


def _shown(value: object) -> object:
    """``value`` (the JSON answer) with every string as :func:`clean_path` shows it: the files
    of a project whose folder is named after a credential are printed redacted."""
    if isinstance(value, str):
        return clean_path(value)
    if isinstance(value, dict):
        return {key: _shown(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shown(item) for item in value]
    return value
