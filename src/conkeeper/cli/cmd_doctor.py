"""``conkeeper doctor``: check the installation and print what to fix (exit 1 on any FAIL)."""

from __future__ import annotations

import argparse

from conkeeper.cli.output import emit_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the JSON option."""
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")


def run(args: argparse.Namespace) -> int:
    """Run every check; one OK/WARN/FAIL line each, with the fix indented below."""
    from conkeeper.services.upkeep.doctor import FAIL, run_checks

    checks = run_checks()
    failed = any(c.status == FAIL for c in checks)
    if args.json:
        emit_json({"ok": not failed, "checks": [c.as_dict() for c in checks]})
        return 1 if failed else 0
    for check in checks:
        print(f"{check.status:<4}  {check.name}: {check.detail}")
        if check.fix:
            print(f"      fix: {check.fix}")
    warned = sum(c.status != "OK" for c in checks)
    print("doctor: " + ("problems found" if failed else f"ready ({warned} warning(s))"))
    return 1 if failed else 0
