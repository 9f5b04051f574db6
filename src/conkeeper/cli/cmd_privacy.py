"""``conkeeper privacy strip|redact|check``: see exactly what privacy hides, before it matters.

``strip`` shows what ConKeeper may index or inject from a file, ``redact`` shows what capture
would store of a text, and ``check`` reviews a memory folder before it is committed — all
through :mod:`conkeeper.domain.privacy`, the same code every other path uses.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json
from conkeeper.domain import privacy, secrets
from conkeeper.domain.messages import clean_path
from conkeeper.domain.textio import MemoryFileError, read_text
from conkeeper.services.upkeep.privacy_audit import AuditResult, FileAudit, audit_path
from conkeeper.services.workspace import current_project

EXIT_CLEAN = 0
EXIT_SECRETS = 1
EXIT_CANNOT_CHECK = 2

CHECK_EPILOG = """\
exit status:
  0  no unprotected secrets found
  1  likely secrets outside <private> content were found (use as a pre-commit check)
  2  the path could not be checked

The report names files, line numbers and reasons only: it never prints hidden text, and shows
at most the first 4 characters of a likely secret."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``strip``, ``redact`` and ``check``; ``conkeeper privacy`` alone means ``check``."""
    parser.add_argument("--json", action="store_true", help="print JSON")
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    strip = sub.add_parser(
        "strip", help="Print a file as ConKeeper may show it: private content cut, secrets redacted"
    )
    strip.add_argument("file", metavar="FILE", type=Path)
    redact = sub.add_parser("redact", help="Print stdin with secrets replaced by [REDACTED:kind]")
    check = sub.add_parser(
        "check",
        help="Review memory files: hidden blocks, warnings, unprotected secrets",
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "path",
        metavar="PATH",
        nargs="?",
        type=Path,
        help="a memory file or folder (default: this project's memory folder)",
    )
    for action in (strip, redact, check):
        # SUPPRESS keeps a --json given before the action from being reset by the sub-parser.
        action.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    parser.set_defaults(action=None, path=None)


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action."""
    if args.action == "strip":
        return _strip(args.file, args.json)
    if args.action == "redact":
        return _redact(args.json)
    return _check(args.path, args.json)


def _write(text: str) -> None:
    """Write exactly ``text`` as UTF-8, whatever the terminal's encoding or platform newline."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def _strip(path: Path, as_json: bool) -> int:
    try:
        text = read_text(path)
    except MemoryFileError as exc:
        raise CliError(str(exc), EXIT_CANNOT_CHECK) from None
    visible = privacy.clean_for_injection(text)  # exactly what may be injected or shown
    if as_json:
        emit_json({"path": str(path), "private": privacy.is_private_file(text), "text": visible})
    else:
        _write(visible)
    return 0


def _redact(as_json: bool) -> int:
    text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    redacted = secrets.redact(text)
    if as_json:
        found = [{"kind": m.kind, "line": m.line} for m in secrets.find_secrets(text)]
        emit_json({"text": redacted, "redactions": found})
    else:
        _write(redacted)
    return 0


def _check(path: Path | None, as_json: bool) -> int:
    target = path if path is not None else current_project().memory_dir
    if path is None and not target.is_dir():
        raise CliError(
            f"no memory folder at {target}; run 'conkeeper init' or give a PATH", EXIT_CANNOT_CHECK
        )
    try:
        result = audit_path(target)
    except MemoryFileError as exc:
        raise CliError(str(exc), EXIT_CANNOT_CHECK) from None
    if as_json:
        emit_json(_check_payload(result))
    else:
        _write(_check_text(result))
    return EXIT_SECRETS if result.unprotected_secrets else EXIT_CLEAN


def _file_payload(audit: FileAudit) -> dict[str, object]:
    report = audit.report
    return {
        "path": audit.name,
        "error": audit.error,
        "private": bool(report and report.file_private),
        "reason": report.reason if report else None,
        "total_lines": report.total_lines if report else 0,
        "hidden_blocks": report.block_count if report else 0,
        "hidden_lines": report.hidden_line_count if report else 0,
        "hidden_ranges": [
            {"start": r.start, "end": r.end, "reason": r.reason}
            for r in (report.hidden_ranges if report else [])
        ],
        "warnings": [_warning(w) for w in (report.warnings if report else [])],
        "secrets": [{"kind": s.kind, "line": s.line, "hint": s.hint} for s in audit.secrets],
    }


def _check_payload(result: AuditResult) -> dict[str, object]:
    return {
        "path": clean_path(str(result.root)),
        "files": [_file_payload(audit) for audit in result.files],
        "notes": [clean_path(note) for note in result.notes],
        "unprotected_secrets": result.unprotected_secrets,
        "ok": result.unprotected_secrets == 0,
    }


def _check_text(result: AuditResult) -> str:
    count = len(result.files)
    root = clean_path(str(result.root))
    lines = [f"Privacy check of {root} ({count} file{'s' if count != 1 else ''})"]
    width = max((len(audit.name) for audit in result.files), default=0)
    for audit in result.files:
        lines.append(f"  {audit.name:<{width}}  {_file_status(audit)}")
        lines.extend(_file_details(audit))
    lines.extend(f"  note: {clean_path(note)}" for note in result.notes)
    lines.append(_summary(result))
    return "\n".join(lines) + "\n"


def _file_status(audit: FileAudit) -> str:
    report = audit.report
    if report is None:
        return f"not checked: {audit.error}"
    if report.file_private:
        return f"private file ({report.reason})"
    parts = []
    if report.block_count:
        blocks = report.block_count
        parts.append(f"{blocks} private block{'s' if blocks != 1 else ''}")
    if audit.secrets:
        found = len(audit.secrets)
        parts.append(f"{found} unprotected secret{'s' if found != 1 else ''}")
    return ", ".join(parts) if parts else "ok, nothing hidden"


def _file_details(audit: FileAudit) -> list[str]:
    report = audit.report
    if report is None or report.file_private:
        return [f"      warning: {_warning(w)}" for w in (report.warnings if report else [])]
    details = [f"      hidden: {_describe_range(r)}" for r in report.hidden_ranges]
    details += [
        f"      line {s.line}: possible {s.kind} ({s.hint}) is not inside <private>"
        if s.line
        else f"      file name: possible {s.kind}: rename the file"
        for s in audit.secrets
    ]
    details += [f"      warning: {_warning(w)}" for w in report.warnings]
    return details


def _warning(text: str) -> str:
    """A warning about a file, which may quote its text (a front matter value): credentials
    redacted. Not ``clean_message``: a warning names ``<private>`` tags, and must stay whole."""
    from conkeeper.domain.secrets import redact

    return redact(text)


def _describe_range(hidden: privacy.HiddenRange) -> str:
    where = (
        f"line {hidden.start}"
        if hidden.start == hidden.end
        else f"lines {hidden.start}-{hidden.end}"
    )
    return f"{where} ({hidden.reason})"


def _summary(result: AuditResult) -> str:
    found = result.unprotected_secrets
    if not found:
        return "No unprotected secrets found."
    files = sum(1 for audit in result.files if audit.secrets)
    return (
        f"{found} likely secret{'s' if found != 1 else ''} outside private content in {files} "
        f"file{'s' if files != 1 else ''}: wrap {'them' if found != 1 else 'it'} in "
        "<private> … </private>, move it out of memory, or rotate the credential."
    )
