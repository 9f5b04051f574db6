"""``conkeeper sessions|summary|observations|facts|show|timeline``: progressive retrieval (F12).

One module serves the six commands (``add_arguments(parser, name)``). Each prints a compact,
agent-friendly text (or ``--json``) and ends with an estimated token cost, so an agent can
budget before fetching the next level. Scope is the current project unless ``--all-projects``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from collections.abc import Callable, Mapping
from typing import Any

from conkeeper.cli.output import CliError, emit_json, estimate_tokens, opened_store

# What a level's handler returns: the ``--json`` payload and the text for a person.
Rendered = tuple[Mapping[str, Any], str]
Handler = Callable[[sqlite3.Connection, argparse.Namespace, "int | None", str], Rendered]

LEVELS = {
    "sessions": 1,
    "summary": 2,
    "observations": 3,
    "facts": 4,
    "show": 5,
    "timeline": 0,
}


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    """Options of one retrieval command (``name`` picks which)."""
    parser.add_argument("--json", action="store_true", help="print JSON for programs")
    parser.add_argument(
        "--all-projects", action="store_true", help="every project, not only the current one"
    )
    if name == "sessions":
        parser.add_argument("--limit", type=int, default=20, help="most sessions (default 20)")
        parser.add_argument("--offset", type=int, default=0, help="skip this many (paging)")
        parser.add_argument(
            "--since", metavar="DATE", help="started on/after DATE (2026-01-31, 7d, 2w, today...)"
        )
        parser.add_argument(
            "--until", metavar="DATE", help="started before the end of DATE (or before 7d ago)"
        )
    elif name == "summary":
        parser.add_argument("session", help="session id, host session id or a unique prefix")
    elif name == "observations":
        parser.add_argument("--session", help="only this session")
        parser.add_argument("--type", dest="type_", help="decision|bugfix|feature|refactor|...")
        parser.add_argument("--concept", help="only observations tagged with this concept")
        parser.add_argument("--file", help="only observations touching this file or folder")
        parser.add_argument("--limit", type=int, default=50, help="most rows (default 50)")
        parser.add_argument(
            "--no-subtitles",
            dest="subtitles",
            action="store_false",
            help="titles only (level 3 lists type, title and subtitle by default)",
        )
        parser.add_argument("--subtitles", action="store_true", help=argparse.SUPPRESS)
    elif name == "facts":
        parser.add_argument("query", nargs="+", help="words to find in atomic facts")
        parser.add_argument("--session", help="only this session")
        parser.add_argument("--limit", type=int, default=20, help="most observations")
    elif name == "show":
        parser.add_argument("ids", nargs="+", type=int, metavar="ID", help="observation ids")
    elif name == "timeline":
        parser.add_argument("id", type=int, metavar="ID", help="the observation to centre on")
        parser.add_argument("--before", type=int, default=5, help="observations before")
        parser.add_argument("--after", type=int, default=5, help="observations after")


def _when(ms: int | None) -> str:
    if not ms:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000))


def run(args: argparse.Namespace) -> int:
    """Open the store, run the level's query, print it with its token cost."""
    from conkeeper.services.workspace import project_scope
    from conkeeper.storage.observations import SessionNotFound

    with opened_store(reading=True) as conn:
        scope = project_scope(conn, all_projects=args.all_projects)
        label = scope.label
        handler = _HANDLERS[args.command]
        try:
            payload, text = handler(conn, args, scope.row_filter, label)
        except SessionNotFound as exc:
            raise CliError(str(exc)) from None
        except (LookupError, ValueError) as exc:
            raise CliError(str(exc).strip("'\"")) from None
    payload = {"level": LEVELS[args.command], "scope": label, **payload}
    if args.json:
        payload["estimated_tokens"] = estimate_tokens(json.dumps(payload, ensure_ascii=False))
        emit_json(payload)
    else:
        print(text.rstrip("\n"))
        print(f"(~{estimate_tokens(text)} tokens)")
    return 0


def _sessions(
    conn: sqlite3.Connection, args: argparse.Namespace, project_id: int | None, label: str
) -> Rendered:
    from conkeeper.cli.output import date_flag
    from conkeeper.services.observations.retrieval import list_sessions

    since = date_flag("--since", args.since) if args.since else None
    until = date_flag("--until", args.until, end=True) if args.until else None
    items = list_sessions(conn, project_id, args.limit, args.offset, since_ms=since, until_ms=until)
    if not items:
        return {"sessions": []}, f"No sessions recorded for {label}.\n"
    lines = [f"Sessions ({label}, newest first):"]
    for s in items:
        where = f" [{s['project']}]" if project_id is None else ""
        lines.append(
            f"#{s['id']}  {_when(s['started_at'])}  {s['status']:<9} {s['observations']:>3} obs"
            f"  {_clip(s['title'], 90)}{where}"
        )
    lines.append("Next: conkeeper summary ID · conkeeper observations --session ID")
    return {"sessions": items}, "\n".join(lines) + "\n"


def _summary(
    conn: sqlite3.Connection, args: argparse.Namespace, project_id: int | None, label: str
) -> Rendered:
    from conkeeper.services.observations.retrieval import get_summary

    data = get_summary(conn, args.session, project_id)
    session, summary = data["session"], data["summary"]
    head = f"Session #{session['id']} ({session['status']}, {_when(session['started_at'])}): "
    head += _clip(session["title"] or "(untitled)", 120)
    if summary is None:
        return data, head + "\nNo summary yet (run: conkeeper extract --session ID).\n"
    lines = [head]
    fields: Mapping[str, Any] = summary
    for key in ("request", "investigated", "learned", "completed", "next_steps", "notes"):
        if fields[key]:
            lines.append(f"{key.replace('_', ' ').capitalize()}: {fields[key]}")
    for key in ("files_read", "files_edited"):
        if fields[key]:
            lines.append(f"{key.replace('_', ' ').capitalize()}: {', '.join(fields[key])}")
    return data, "\n".join(lines) + "\n"


def _observations(
    conn: sqlite3.Connection, args: argparse.Namespace, project_id: int | None, label: str
) -> Rendered:
    from conkeeper.services.observations.retrieval import list_observations

    items = list_observations(
        conn,
        project_id,
        session=args.session,
        type_=args.type_,
        concept=args.concept,
        file=args.file,
        limit=args.limit,
    )
    if not args.subtitles:
        for item in items:
            item.pop("subtitle", None)
    if not items:
        return {"observations": []}, f"No observations match in {label}.\n"
    lines = []
    for o in items:
        lines.append(
            f"#{o['id']}  {_when(o['created_at'])}  {o['type']:<9}  {o['title']}"
            f"  [s{o['session_id']} p{o['prompt_number']}]"
        )
        if args.subtitles and o.get("subtitle"):
            lines.append(f"      {o['subtitle']}")
    lines.append("Next: conkeeper show ID... (full) · conkeeper facts QUERY")
    return {"observations": items}, "\n".join(lines) + "\n"


def _facts(
    conn: sqlite3.Connection, args: argparse.Namespace, project_id: int | None, label: str
) -> Rendered:
    from conkeeper.services.observations.retrieval import search_facts

    query = " ".join(args.query)
    items = search_facts(conn, query, project_id, session=args.session, limit=args.limit)
    if not items:
        return {"query": query, "results": []}, f"No facts match '{query}' in {label}.\n"
    lines = []
    for o in items:
        lines.append(f"#{o['id']}  {o['type']:<9}  {o['title']}")
        lines.extend(f"  - {fact}" for fact in o["facts"])
    return {"query": query, "results": items}, "\n".join(lines) + "\n"


def _show(
    conn: sqlite3.Connection, args: argparse.Namespace, project_id: int | None, label: str
) -> Rendered:
    from conkeeper.services.observations.retrieval import get_observations

    items, missing = get_observations(conn, args.ids, project_id)
    if not items:
        raise CliError(f"no observation {', '.join(map(str, missing))} in {label}")
    blocks = []
    for o in items:
        lines = [
            f"#{o['id']} [{o['type']}] {o['title']}",
            f"Session #{o['session_id']} prompt {o['prompt_number']} · {_when(o['created_at'])}"
            f" · {o['project']} · extractor {o['extractor']}",
        ]
        if o["subtitle"]:
            lines.append(o["subtitle"])
        lines.extend(f"  - {fact}" for fact in o["facts"])
        if o["narrative"]:
            lines.append(o["narrative"])
        if o["concepts"]:
            lines.append("Concepts: " + ", ".join(o["concepts"]))
        if o["files"]:
            lines.append("Files: " + ", ".join(o["files"]))
        blocks.append("\n".join(lines))
    text = "\n\n".join(blocks) + "\n"
    if missing:
        text += f"Not found: {', '.join(map(str, missing))}\n"
    return {"observations": items, "missing": missing}, text


def _timeline(
    conn: sqlite3.Connection, args: argparse.Namespace, project_id: int | None, label: str
) -> Rendered:
    from conkeeper.services.observations.retrieval import timeline

    data = timeline(conn, args.id, project_id, args.before, args.after)
    lines = []
    previous_session = None
    for o in data["items"]:
        if o["session_id"] != previous_session:
            lines.append(f"— session #{o['session_id']}")
            previous_session = o["session_id"]
        mark = ">" if o["anchor"] else " "
        lines.append(f"{mark} #{o['id']}  {_when(o['created_at'])}  {o['type']:<9}  {o['title']}")
    return data, "\n".join(lines) + "\n"


def _clip(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_HANDLERS: dict[str, Handler] = {
    "sessions": _sessions,
    "summary": _summary,
    "observations": _observations,
    "facts": _facts,
    "show": _show,
    "timeline": _timeline,
}
