"""``conkeeper insights [--since DATE] [--json]``: trends across sessions, drawn as a compact
terminal chart (the same data as ``--json``, which the viewer can reuse).

The numbers come from :func:`conkeeper.services.analysis.reflection.insights.insights`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from conkeeper.cli.output import date_flag, emit_json

BAR_WIDTH = 24
DEFAULT_DAYS = 30
# a routed rule shown longer than this is cut with "…" ("src/log.p" read as another file)
RULE_CHARS = 60


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--since`` and ``--json``."""
    parser.add_argument(
        "--since",
        metavar="DATE",
        help=f"sessions since DATE: 2026-01-31, 7d, 2w, today, yesterday "
        f"(default: {DEFAULT_DAYS} days ago)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")


def _since_ms(text: str | None) -> int:
    if text is None:
        return int((time.time() - DEFAULT_DAYS * 86400) * 1000)
    return date_flag("--since", text)


def run(args: argparse.Namespace) -> int:
    """Compute the insights for the current project and print them."""
    from conkeeper.cli.output import opened_store
    from conkeeper.domain.config import load_config
    from conkeeper.domain.paths import locate_project
    from conkeeper.services.analysis.reflection.insights import first_routing, insights
    from conkeeper.storage.reflection import project_sessions
    from conkeeper.storage.store import find_project

    location = locate_project(Path.cwd())
    since = _since_ms(args.since)
    sensitivity = load_config(location.root).config.correction_sensitivity
    with opened_store() as conn:
        project_id = find_project(conn, location.identity)
        sessions = project_sessions(conn, project_id, since) if project_id is not None else []
        routed = first_routing(location.memory_dir)
        history = []
        if project_id is not None and routed is not None and routed < since:
            history = project_sessions(conn, project_id, routed)
        data = insights(
            conn, location.memory_dir, sessions, sensitivity=sensitivity, history=history
        )
    data = {
        "project": location.name,
        "since": time.strftime("%Y-%m-%d", time.localtime(since / 1000)),
        **data,
    }
    if args.json:
        emit_json(data)
    else:
        sys.stdout.write(render(data))
    return 0


def bar(value: float, top: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of eighth blocks, ``value`` out of ``top``."""
    if top <= 0 or value <= 0:
        return ""
    eighths = max(1, round(value / top * width * 8))
    full, rest = divmod(eighths, 8)
    return "█" * full + (" ▏▎▍▌▋▊▉"[rest] if rest else "")


def render(data: dict) -> str:
    """The compact chart: one line per session, then the tables."""
    sessions = data["sessions"]
    lines = [f"ConKeeper insights — {data['project']}, since {data['since']}"]
    if not sessions:
        return "\n".join([*lines, "No sessions captured in this period.", ""])
    top = max(max(s["corrections"] + s["friction"] for s in sessions), 1)
    lines.append(f"\n{'session':<20} corrections █ friction ░{'':<6} fail rate")
    for s in sessions:
        signal = bar(s["corrections"], top, BAR_WIDTH // 2) + "░" * min(
            s["friction"] * (BAR_WIDTH // 2) // top, BAR_WIDTH // 2
        )
        rate = s["failures"] / s["tool_uses"] if s["tool_uses"] else 0.0
        lines.append(
            f"{s['date']} {s['session'][:8]:<9} {signal:<{BAR_WIDTH}} "
            f"{s['corrections']:>2}c {s['friction']:>2}f  {rate:>4.0%} of {s['tool_uses']}"
        )
    if data["tools"]:
        lines.append("\nfailure rate per tool")
        for row in data["tools"][:8]:
            lines.append(
                f"  {row['tool']:<14} {bar(row['failure_rate'], 1.0, 16):<16} "
                f"{row['failure_rate']:>4.0%}  ({row['failures']}/{row['uses']})"
            )
    if data["commands"]:
        lines.append("\nfailure rate per command")
        for row in data["commands"][:8]:
            lines.append(
                f"  {row['command'][:14]:<14} {bar(row['failure_rate'], 1.0, 16):<16} "
                f"{row['failure_rate']:>4.0%}  ({row['failures']}/{row['runs']})"
            )
    if data["repeated_failures"]:
        lines.append("\nmost repeated failures")
        for row in data["repeated_failures"]:
            lines.append(f"  {row['count']:>3}× in {row['sessions']} session(s)  {row['failure']}")
    if data["themes"]:
        lines.append("\nmost corrected themes")
        for row in data["themes"]:
            named = f"{row['theme']}: " if row["theme"] else ""  # "use it instead" names none
            lines.append(f'  {row["count"]:>3}×  {named}"{row["quotes"][0]}"')
    if data["routed"]:
        lines.append("\nrouted corrections")
        for row in data["routed"]:
            verdict = {
                "recurred": f"recurred {row['after']}×",
                "too early": f"too early to tell ({row['later_sessions']} later session(s))",
            }.get(str(row["verdict"]), "stopped recurring")
            rule = str(row["rule"])
            shown = rule if len(rule) <= RULE_CHARS else rule[: RULE_CHARS - 1].rstrip() + "…"
            lines.append(f"  {row['routed_on']} → {row['routed_to']}: {verdict}  ({shown})")
    if data["claude_facets"]:
        lines.append("\nClaude Code facets")
        for row in data["claude_facets"]:
            lines.append(f"  {str(row['session'])[:8]}  outcome: {row.get('outcome', '?')}")
    return "\n".join(lines) + "\n"
