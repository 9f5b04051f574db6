"""Review a memory folder for privacy before it is committed or shared.

Backs ``conkeeper privacy check`` (and anything else that wants the same review, such as a
doctor or a pre-commit hook): for every Markdown file it reports what privacy hides — by line
numbers and reasons only — and the likely secrets that privacy does *not* protect, masked so
the report itself can be pasted anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from conkeeper.domain import privacy
from conkeeper.domain.messages import clean_path
from conkeeper.domain.textio import MemoryFileError, is_within, read_text

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__"})


@dataclass(frozen=True)
class SecretFinding:
    """A likely secret outside private content: its kind, line and a masked hint, never the
    secret itself."""

    kind: str
    line: int
    hint: str


@dataclass
class FileAudit:
    """The privacy review of one file; ``error`` says why it could not be read."""

    path: Path
    name: str  # path relative to the audited root, for display
    report: privacy.PrivacyReport | None = None
    secrets: list[SecretFinding] = field(default_factory=list)
    error: str | None = None


@dataclass
class AuditResult:
    """The review of a file or a folder tree of Markdown files."""

    root: Path
    files: list[FileAudit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def unprotected_secrets(self) -> int:
        """How many likely secrets sit outside private content, over all files."""
        return sum(len(f.secrets) for f in self.files)


def audit_text(text: str) -> tuple[privacy.PrivacyReport, list[SecretFinding]]:
    """Privacy report and unprotected secrets of one text."""
    report = privacy.analyze(text)
    if report.file_private:
        return report, []
    blanked = privacy.blank_private(text)
    findings = [
        SecretFinding(m.kind, m.line, privacy.mask_hint(blanked[m.start : m.end]))
        for m in privacy.exposed_secrets(text)
    ]
    return report, findings


def audit_file(path: Path, name: str) -> FileAudit:
    """Review one file; an unreadable or binary file is reported, not raised. A credential in
    the file's name is shown redacted and counted as a finding on line 0 (renaming fixes it)."""
    shown = clean_path(name)
    audit = FileAudit(path=path, name=shown)
    try:
        text = read_text(path)
    except MemoryFileError as exc:
        audit.error = clean_path(str(exc).removeprefix(f"{path}: "))
        return audit
    audit.report, audit.secrets = audit_text(text)
    if shown != name:
        audit.secrets.insert(0, SecretFinding(_name_kind(shown), 0, "in the file's name"))
    return audit


def _name_kind(shown: str) -> str:
    """The kind of the first credential redacted in a file name (``[REDACTED:<kind>]``)."""
    return shown.split("[REDACTED:", 1)[-1].split("]", 1)[0] if "[REDACTED:" in shown else "secret"


def audit_path(path: Path) -> AuditResult:
    """Review ``path``: one file, or every ``*.md`` file below a folder (symlinks leading outside
    it are skipped with a note). Raises :class:`MemoryFileError` when ``path`` does not exist."""
    if not path.exists():
        raise MemoryFileError(f"{path}: no such file or folder")
    result = AuditResult(root=path)
    if not path.is_dir():
        result.files.append(audit_file(path, path.name))
        return result
    for file in _markdown_files(path, result.notes):
        result.files.append(audit_file(file, file.relative_to(path).as_posix()))
    return result


def _markdown_files(root: Path, notes: list[str]) -> Iterator[Path]:
    """``*.md`` files below ``root`` in a stable order, without following symlinked folders."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for name in dirnames:
            if (here / name).is_symlink() and not is_within(here / name, root):
                notes.append(f"{_rel(here / name, root)}: symlink leading outside {root}; skipped")
        for name in sorted(filenames):
            candidate = here / name
            if not name.lower().endswith(".md"):
                continue
            if candidate.is_symlink() and not is_within(candidate, root):
                notes.append(f"{_rel(candidate, root)}: symlink leading outside {root}; skipped")
                continue
            yield candidate


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()
