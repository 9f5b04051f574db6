"""``conkeeper hook [--host NAME] EVENT``: the command an agent runs for every hook event.

Deliberately thin and import-light (the hook path pays for every import): it hands the event
name to :func:`conkeeper.hooks.runner.run_hook`, which reads the payload on stdin. A missing
or unknown event is logged and exits 0, because a non-zero exit would disturb the agent.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The event name, e.g. ``PostToolUse`` (any case; ``post-tool-use`` works too), and the
    agent whose contract the payload follows."""
    parser.add_argument(
        "--host",
        default=None,
        help="the agent running the hook: claude-code (default), codex, gemini, cursor, "
        "copilot, windsurf or cline",
    )
    parser.add_argument(
        "event",
        nargs="?",
        default="",
        help="SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, "
        "PreCompact, Stop, SubagentStop or SessionEnd",
    )


def run(args: argparse.Namespace) -> int:
    """Run the hook; the exit code is 0, or 2 when a handler blocks."""
    from conkeeper.hooks.runner import run_hook

    return run_hook(args.event, host=args.host)
