"""``conkeeper doctor``: check the installation and print what to fix (exit 1 on any FAIL)."""

from __future__ import annotations

import argparse

from conkeeper.cli.output import emit_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the JSON option."""
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")


def run(args: argparse.Namespace) -> int:
    """Run every check; one OK/WARN/FAIL line each, with the fix indented below."""
    from conkeeper.domain.messages import clean_message
    from conkeeper.services.upkeep.doctor import FAIL, run_checks

    checks = run_checks()
    failed = any(c.status == FAIL for c in checks)
    if args.json:  # a detail may quote a file it read (a config value): cleaned like an error
        shown = [{k: clean_message(v) for k, v in c.as_dict().items()} for c in checks]
        emit_json({"ok": not failed, "checks": shown})
        return 1 if failed else 0
    for check in checks:
        print(f"{check.status:<4}  {check.name}: {clean_message(check.detail)}")
        if check.fix:
            print(f"      fix: {clean_message(check.fix)}")
    warned = sum(c.status != "OK" for c in checks)
    print("doctor: " + ("problems found" if failed else f"ready ({warned} warning(s))"))
    return 1 if failed else 0
