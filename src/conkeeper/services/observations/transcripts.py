"""Importing Claude Code transcripts (F18): backfill sessions, prompts, tool events,
observations and summaries from ``~/.claude/projects/*/*.jsonl``.

Transcript shape (reverse-engineered by the community; no official schema): one JSON object per
line. ``type`` ``user`` lines carry ``message.content`` as a string (a prompt) or a list of
blocks (``text``, ``tool_result`` with ``tool_use_id``/``is_error``, ``image``) plus an optional
``toolUseResult``; ``assistant`` lines carry ``message.content`` blocks (``text``, ``thinking``,
``tool_use`` with ``id``/``name``/``input``), and one API response spans several lines with the
same ``message.id``. Every line has ``cwd``, ``sessionId`` and an ISO ``timestamp``. Other types
(``summary``, ``system``, ``file-history-snapshot``, ``queue-operation``, future ones) are
skipped; ``isSidechain`` lines belong to sub-agents and are skipped too.

Guarantees: one file is one session, imported in one transaction (no partial rows); re-running
is idempotent (sessions keyed by project + host session id, prompts by number, tool events by
``tool_use_id``, observations by content hash) and skips unchanged files by size and mtime;
every text goes through :func:`conkeeper.domain.privacy.clean_captured` and the capture
module's redaction; a fully private prompt is not stored and its turn's tool uses are skipped;
a damaged line is counted, its number reported, and skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from conkeeper.domain.paths import ProjectLocation, home_dir, locate_project
from conkeeper.domain.privacy import CleanText
from conkeeper.domain.session_id import without_secret
from conkeeper.storage.store import ensure_project, now_ms, transaction
from conkeeper.storage.transcripts import import_stamp, record_import

KNOWN_SKIPPED_TYPES = frozenset(
    {"summary", "system", "file-history-snapshot", "queue-operation", "progress"}
)
MAX_RESULT_CHARS = 8000
MAX_PROMPT_CHARS = 20000
MAX_HOST_ID_CHARS = 200
REPORTED_DAMAGED_LINES = 20


@dataclass
class ParsedTool:
    """One ``tool_use`` block and, once seen, its ``tool_result``."""

    id: str
    name: str
    input: dict[str, Any]
    at: int
    result_text: str | None = None
    is_error: bool = False
    result_meta: Any = None
    result_at: int | None = None


@dataclass
class ParsedTurn:
    """A user prompt (``None`` before the first one) and the tool uses that followed it."""

    prompt: str | None
    at: int
    tools: list[ParsedTool] = field(default_factory=list)


@dataclass
class ParsedTranscript:
    """Everything the importer keeps from one JSONL file."""

    host_session_id: str
    cwd: str | None = None
    started_at: int | None = None
    ended_at: int | None = None
    title_hint: str | None = None
    turns: list[ParsedTurn] = field(default_factory=list)
    lines: int = 0
    damaged: list[int] = field(default_factory=list)
    unknown_types: int = 0
    sidechain: int = 0


@dataclass
class FileReport:
    """What importing one file did."""

    path: str
    status: str  # imported | updated | known | forgotten | unchanged | empty | failed
    session_id: int | None = None
    prompts: int = 0
    private_prompts: int = 0
    tool_events: int = 0
    observations: int = 0
    lines: int = 0
    damaged: list[int] = field(default_factory=list)
    unknown_types: int = 0
    error: str | None = None


@dataclass
class ImportReport:
    """Totals over a whole import run."""

    files: list[FileReport] = field(default_factory=list)
    bytes: int = 0
    seconds: float = 0.0

    def count(self, status: str) -> int:
        """Files with ``status``."""
        return sum(1 for f in self.files if f.status == status)

    def total(self, attr: str) -> int:
        """Sum of an integer attribute over files."""
        return sum(getattr(f, attr) for f in self.files)

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``."""
        return {
            "files": len(self.files),
            "imported": self.count("imported"),
            "updated": self.count("updated"),
            "known": self.count("known"),
            "forgotten": self.count("forgotten"),
            "unchanged": self.count("unchanged"),
            "empty": self.count("empty"),
            "failed": self.count("failed"),
            "prompts": self.total("prompts"),
            "private_prompts": self.total("private_prompts"),
            "tool_events": self.total("tool_events"),
            "observations": self.total("observations"),
            "damaged_lines": self.total_damaged(),
            "unknown_types": self.total("unknown_types"),
            "bytes": self.bytes,
            "seconds": round(self.seconds, 3),
            "mb_per_s": round(self.bytes / 1e6 / self.seconds, 2) if self.seconds else None,
            "details": [
                {
                    "path": f.path,
                    "status": f.status,
                    "session_id": f.session_id,
                    "damaged_lines": f.damaged[:REPORTED_DAMAGED_LINES],
                    "error": f.error,
                }
                for f in self.files
                if f.status not in ("unchanged", "known")
            ],
        }

    def total_damaged(self) -> int:
        """Damaged lines over all files."""
        return sum(len(f.damaged) for f in self.files)


def default_transcripts_dir(env: Mapping[str, str] | None = None) -> Path:
    """Claude Code's transcripts folder, ``~/.claude/projects``."""
    return home_dir(env) / ".claude" / "projects"


def find_transcripts(path: Path) -> list[Path]:
    """The session files under ``path`` (a file is itself); sub-agent transcripts excluded."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        return []
    found = [p for p in path.rglob("*.jsonl") if "subagents" not in p.parts and p.is_file()]
    return sorted(found)


# --------------------------------------------------------------------------- parsing


def parse_time(value: object) -> int | None:
    """Unix ms of an ISO-8601 timestamp (``Z`` suffix accepted), or ``None``."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        return int(datetime.fromisoformat(text).timestamp() * 1000)
    except ValueError:
        return None


def _block_text(content: object) -> str:
    """Text of a tool_result's content (string or blocks); images and binary are named only."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif block.get("type") in ("image", "document"):
                parts.append(f"[{block['type']}]")
        text = "\n".join(parts)
    else:
        text = "" if content is None else str(content)
    return text[:MAX_RESULT_CHARS].replace("\x00", "")


def _command_prompt(text: str) -> str:
    """``<command-name>/x</command-name>...<command-args>y</command-args>`` as ``/x y``."""
    import re

    name = re.search(r"<command-name>(.*?)</command-name>", text, re.DOTALL)
    args = re.search(r"<command-args>(.*?)</command-args>", text, re.DOTALL)
    return " ".join(
        p for p in (name and name.group(1).strip(), args and args.group(1).strip()) if p
    )


def _prompt_text(entry: dict[str, Any], content: object) -> str | None:
    """The user's prompt in a ``user`` entry, or ``None`` when it is not one."""
    if (
        entry.get("isMeta")
        or entry.get("isCompactSummary")
        or entry.get("isVisibleInTranscriptOnly")
    ):
        return None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        text = "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    else:
        return None
    stripped = text.strip()
    if not stripped or stripped.startswith("[Request interrupted by user"):
        return None
    if stripped.startswith(("<local-command-stdout>", "<local-command-stderr>", "Caveat:")):
        return None
    if "<command-name>" in stripped:
        stripped = _command_prompt(stripped)
    return stripped[:MAX_PROMPT_CHARS] or None


def _iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with open(path, "rb") as handle:
        yield from enumerate(handle, start=1)


_DAMAGED = object()


def _decode_line(raw: bytes) -> object:
    """One JSON line; invalid UTF-8 and raw control characters are tolerated (binary output
    pasted into a transcript), anything else that is not JSON is damaged."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        pass
    try:
        return json.loads(raw.decode("utf-8", errors="replace"), strict=False)
    except (ValueError, RecursionError):
        return _DAMAGED


def parse_transcript(path: Path, on_bytes: Callable[[int], None] | None = None) -> ParsedTranscript:
    """Read one transcript, tolerating damaged lines, unknown types and huge outputs."""
    parsed = ParsedTranscript(host_session_id=without_secret(path.stem)[:MAX_HOST_ID_CHARS])
    tools: dict[str, ParsedTool] = {}
    current: ParsedTurn | None = None
    for number, raw in _iter_lines(path):
        if on_bytes is not None:
            on_bytes(len(raw))
        parsed.lines = number
        if not raw.strip():
            continue
        entry = _decode_line(raw)
        if entry is _DAMAGED:
            parsed.damaged.append(number)
            continue
        if not isinstance(entry, dict):
            parsed.damaged.append(number)
            continue
        current = _take_entry(parsed, entry, tools, current)
    return parsed


def _take_entry(
    parsed: ParsedTranscript,
    entry: dict[str, Any],
    tools: dict[str, ParsedTool],
    current: ParsedTurn | None,
) -> ParsedTurn | None:
    """Fold one decoded line into ``parsed``; returns the turn later tool uses belong to."""
    kind = entry.get("type")
    if kind not in ("user", "assistant"):
        _note_other_entry(parsed, entry, kind)
        return current
    if entry.get("isSidechain") is True:
        parsed.sidechain += 1
        return current
    at = _note_time_and_place(parsed, entry)
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if kind == "user":
        return _take_user_entry(parsed, entry, content, tools, current, at)
    return _take_tool_uses(parsed, content, tools, current, at)


def _note_other_entry(parsed: ParsedTranscript, entry: dict[str, Any], kind: object) -> None:
    """A line that is neither a prompt nor a reply: a summary gives the session a title hint;
    types we do not know are counted so the import report can say something was skipped."""
    if kind == "summary" and isinstance(entry.get("summary"), str):
        parsed.title_hint = parsed.title_hint or entry["summary"][:300]
    elif kind not in KNOWN_SKIPPED_TYPES:
        parsed.unknown_types += 1


def _note_time_and_place(parsed: ParsedTranscript, entry: dict[str, Any]) -> int:
    """The entry's time (the last known one when it has none), widening the session's span,
    and the first working directory seen; the time is returned for the turn and tools."""
    at = parse_time(entry.get("timestamp")) or (parsed.ended_at or 0)
    if parsed.cwd is None and isinstance(entry.get("cwd"), str) and entry["cwd"]:
        parsed.cwd = entry["cwd"]
    if at:
        parsed.started_at = at if parsed.started_at is None else min(parsed.started_at, at)
        parsed.ended_at = at if parsed.ended_at is None else max(parsed.ended_at, at)
    return at


def _take_user_entry(
    parsed: ParsedTranscript,
    entry: dict[str, Any],
    content: object,
    tools: dict[str, ParsedTool],
    current: ParsedTurn | None,
    at: int,
) -> ParsedTurn | None:
    """A user line is either a typed prompt, which starts a new turn, or the results of
    earlier tool uses, which are attached to those tools."""
    prompt = _prompt_text(entry, content)
    if prompt is not None:
        turn = ParsedTurn(prompt, at)
        parsed.turns.append(turn)
        return turn
    _take_results(content, entry.get("toolUseResult"), tools, at)
    return current


def _take_tool_uses(
    parsed: ParsedTranscript,
    content: object,
    tools: dict[str, ParsedTool],
    current: ParsedTurn | None,
    at: int,
) -> ParsedTurn | None:
    """The tool uses of an assistant line, each recorded once; tool uses before any prompt
    get a prompt-less turn so they are not lost."""
    if not isinstance(content, list):
        return current
    for block in content:
        tool = _tool_use(block, tools, at)
        if tool is None:
            continue
        if current is None:
            current = ParsedTurn(None, at)
            parsed.turns.append(current)
        tools[block["id"]] = tool  # the full id: results name it, ParsedTool.id is cut
        current.tools.append(tool)
    return current


def _tool_use(block: object, tools: dict[str, ParsedTool], at: int) -> ParsedTool | None:
    """A ``tool_use`` block as a new :class:`ParsedTool`; ``None`` for other blocks, blocks
    without an id and ids already seen (a tool use is recorded once)."""
    if not isinstance(block, dict) or block.get("type") != "tool_use":
        return None
    tool_id = block.get("id")
    if not isinstance(tool_id, str) or not tool_id or tool_id in tools:
        return None
    return ParsedTool(
        id=tool_id[:200],
        name=str(block.get("name") or "unknown")[:100],
        input=tool_input if isinstance(tool_input := block.get("input"), dict) else {},
        at=at,
    )


def _take_results(content: object, meta: object, tools: dict[str, ParsedTool], at: int) -> None:
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        tool = tools.get(str(block.get("tool_use_id")))
        if tool is None or tool.result_text is not None:
            continue
        tool.result_text = _block_text(block.get("content"))
        tool.is_error = block.get("is_error") is True
        tool.result_meta = meta if isinstance(meta, dict) else None
        tool.result_at = at


# --------------------------------------------------------------------------- storing


def _outcome(tool: ParsedTool) -> tuple[str, CleanText | None, int | None]:
    """The outcome of a transcript's tool use (a piped test run's read from its summary)."""
    from conkeeper.services.capture.events import piped_test_outcome

    output = tool.result_meta if isinstance(tool.result_meta, dict) else tool.result_text
    return piped_test_outcome(tool.input, _reported_outcome(tool), output)


def _reported_outcome(tool: ParsedTool) -> tuple[str, CleanText | None, int | None]:
    from conkeeper.domain.privacy import label
    from conkeeper.services.capture.events import outcome_from_failure, outcome_from_response

    if tool.result_text is None:
        return "interrupted", label("no result recorded in the transcript"), None
    interrupted = "[Request interrupted by user" in (tool.result_text or "")[:200] or (
        isinstance(tool.result_meta, dict) and tool.result_meta.get("interrupted") is True
    )
    if tool.is_error or interrupted:
        return outcome_from_failure(tool.result_text, interrupted)
    if isinstance(tool.result_meta, dict):
        return outcome_from_response(tool.result_meta)
    return outcome_from_response(tool.result_text)


def _continue_cut_token(tool: ParsedTool, cut: str | None) -> str | None:
    """Hide the rest of a token the previous tool output cut off at its end (``cut``, its
    kind) where this output starts with it, as the PostToolUse hook does; the kind of a token
    this output cuts off in turn."""
    from conkeeper.services.capture.events import continue_cut_token, token_cut_at_end

    tool.result_text = continue_cut_token(cut, tool.result_text)
    tool.result_meta = continue_cut_token(cut, tool.result_meta)
    meta = tool.result_meta
    return token_cut_at_end(meta if isinstance(meta, dict) else tool.result_text)


def store_transcript(
    conn: sqlite3.Connection,
    parsed: ParsedTranscript,
    location: ProjectLocation,
    path: Path,
    report: FileReport,
    extractor: str = "local",
) -> int:
    """Write one parsed transcript (caller holds the transaction); returns ``sessions.id``."""
    from conkeeper.domain.privacy import clean_captured
    from conkeeper.services.capture.events import build_event, store_event
    from conkeeper.services.observations.extract import extract_session
    from conkeeper.storage import sessions

    project_id = ensure_project(conn, location)
    stamp = parsed.started_at or now_ms()
    session_id = sessions.ensure_imported_session(
        conn, project_id, parsed.host_session_id, stamp, parsed.ended_at or stamp, path_key(path)
    )
    number = 0
    cut: str | None = None  # a token the previous tool output cut off at its end: its kind
    for turn in parsed.turns:
        if turn.prompt is not None:
            number += 1
            text = clean_captured(turn.prompt)
            if text is None:
                report.private_prompts += 1
                continue  # a private turn: neither the prompt nor its tool uses are stored
            if sessions.add_prompt(conn, session_id, number, text, turn.at or now_ms()):
                report.prompts += 1
            sessions.set_title_if_missing(conn, session_id, text)
        for tool in turn.tools:
            cut = _continue_cut_token(tool, cut)
            event = build_event(
                tool_name=tool.name,
                tool_input=tool.input,
                tool_use_id=tool.id,
                outcome=_outcome(tool),
                root=location.root,
                duration_ms=(tool.result_at - tool.at) if tool.result_at and tool.at else None,
                now=(tool.at or now_ms()) / 1000,
            )
            if store_event(conn, session_id, number, event):
                report.tool_events += 1
    if parsed.title_hint:
        hint = clean_captured(parsed.title_hint)
        if hint:
            sessions.set_subtitle_if_missing(conn, session_id, hint)
    result = extract_session(conn, session_id, extractor=extractor, summarize=True)
    report.observations += result.added
    return session_id


def _unchanged(conn: sqlite3.Connection, path: Path, stat: os.stat_result) -> bool:
    return import_stamp(conn, path_key(path)) == (stat.st_size, stat.st_mtime_ns)


def path_key(path: Path) -> str:
    """The transcript's path as it is stored and shown: a path holding a credential (a file
    named after a token) is kept as a digest, which still names that one file."""
    return without_secret(str(path))


def import_file(
    conn: sqlite3.Connection,
    path: Path,
    *,
    force: bool = False,
    extractor: str = "local",
    on_bytes: Callable[[int], None] | None = None,
) -> FileReport:
    """Import one transcript file in one transaction; never raises for bad content."""
    report = FileReport(path=path_key(path), status="imported")
    try:
        stat = path.stat()
    except OSError as exc:
        report.status, report.error = "failed", f"cannot read: {exc.strerror or exc}"
        return report
    if not force and _unchanged(conn, path, stat):
        report.status = "unchanged"
        if on_bytes is not None:
            on_bytes(stat.st_size)
        return report
    try:
        parsed = parse_transcript(path, on_bytes)
    except OSError as exc:
        report.status, report.error = "failed", f"cannot read: {exc.strerror or exc}"
        return report
    report.lines, report.damaged, report.unknown_types = (
        parsed.lines,
        parsed.damaged,
        parsed.unknown_types,
    )
    if parsed.cwd is None or not parsed.turns:
        report.status = "empty"
        return report
    location = locate_project(parsed.cwd)
    from conkeeper.storage.hygiene import session_forgotten
    from conkeeper.storage.sessions import find_session_by_identity

    if session_forgotten(conn, location.identity, parsed.host_session_id, parsed.started_at):
        report.status = "forgotten"  # a person forgot this session: it stays forgotten
        return report
    known = find_session_by_identity(conn, location.identity, parsed.host_session_id)
    try:
        with transaction(conn):
            report.session_id = store_transcript(conn, parsed, location, path, report, extractor)
            if known is not None:
                new_rows = report.prompts or report.tool_events or report.observations
                report.status = "updated" if new_rows else "known"
            record_import(
                conn,
                path_key(path),
                stat.st_size,
                stat.st_mtime_ns,
                report.session_id,
                parsed.lines,
                len(parsed.damaged),
            )
    except Exception as exc:
        from conkeeper.storage.logfile import log_exception

        log_exception(f"import of {path} failed")
        report.status, report.error = "failed", f"{type(exc).__name__}: {exc}"
        report.prompts = report.tool_events = report.observations = 0
    return report


def import_transcripts(
    conn: sqlite3.Connection,
    paths: list[Path],
    *,
    force: bool = False,
    extractor: str = "local",
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Import every file in ``paths``; one bad file never stops the others.

    ``progress(done_bytes, total_bytes)`` is called as the files are read (a front door draws
    it; this service never writes to the terminal).
    """
    report = ImportReport()
    started = time.perf_counter()
    total = 0
    for path in paths:
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    done = 0

    def count(nbytes: int) -> None:
        nonlocal done
        done += nbytes
        if progress is not None:
            progress(min(done, total), total)

    for path in paths:
        before = done
        report.files.append(
            import_file(conn, path, force=force, extractor=extractor, on_bytes=count)
        )
        report.bytes += done - before
    if progress is not None:
        progress(total, total)
    report.seconds = time.perf_counter() - started
    return report
