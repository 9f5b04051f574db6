"""``conkeeper demo``: run ConKeeper end to end on a generated project (the README's main job)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the demo's options."""
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="folder for the demo project and data (default: a new temporary folder, kept)",
    )


def run(args: argparse.Namespace) -> int:
    """Create the demo folder and run every step, printing what each one shows."""
    from conkeeper.cli.output import CliError
    from conkeeper.services.setup.demo import DemoError, run_demo

    base = args.dir or Path(tempfile.mkdtemp(prefix="conkeeper-demo-"))
    try:
        return run_demo(base, sys.stdout)
    except DemoError as exc:
        raise CliError(str(exc)) from None
