"""``conkeeper install [--agent NAME]``: register ConKeeper with a coding agent.

Without ``--agent`` (or with ``--agent claude-code``): ConKeeper's hooks in a Claude Code
settings file, for people who installed ConKeeper with pip rather than as a plugin
(:mod:`conkeeper.services.setup.install`). With another agent: its hooks, MCP registration and
instructions (:mod:`conkeeper.services.setup.agent_install`); what will change is printed before it
is written. This module only parses and prints.
"""

from __future__ import annotations

import argparse

from conkeeper.cli.output import CliError, emit_json, warn


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare scope, uninstall, dry-run and JSON options."""
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
    from conkeeper.hosts import canonical_host
    from conkeeper.services.setup.install import InstallError, install

    if canonical_host(args.agent) != "claude-code":
        return _run_agent(args)
    try:
        result = install(args.scope or "user", uninstall=args.uninstall, dry_run=args.dry_run)
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


_VERBS = {"create": "create", "update": "update", "delete": "remove", "unchanged": "keep"}


def _run_agent(args: argparse.Namespace) -> int:
    """Another agent: show the plan, apply it unless ``--dry-run``, then the notes."""
    from conkeeper.services.setup.agent_install import apply, plan
    from conkeeper.services.setup.install import InstallError

    try:
        result = plan(args.agent, args.scope or "project", uninstall=args.uninstall)
        if args.json:
            if not args.dry_run:
                apply(result)
            emit_json({**result.as_dict(), "dry_run": args.dry_run})
            return 0
        verb = "would" if args.dry_run else "will"
        for change in result.changes:
            print(f"{verb} {_VERBS[change.action]:<6} {change.path} ({change.what})")
            if change.warning:
                warn(f"{change.path}: {change.warning}")
            if args.dry_run and change.action != "unchanged":
                print(change.diff(), end="")
        if not args.dry_run:
            apply(result)
    except InstallError as exc:
        raise CliError(str(exc)) from None
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
