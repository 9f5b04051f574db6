"""Architecture decision records (spec F13): numbering new ADRs and regenerating the index.

An ADR is ``decisions/ADR-NNN-<slug>.md``, made from the ADR template with its title, status,
date and decision filled in and tagged ``decision``. ``decisions/INDEX.md`` is derived from the
ADR files (number, title, status, date): regenerating it replaces only its table rows (a note
the user added around the table stays). Both go through :mod:`conkeeper.domain.safewrite`.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from conkeeper.domain.memory import template_text
from conkeeper.domain.privacy import clean_for_injection, is_private_file
from conkeeper.domain.safewrite import create_file, edit_file
from conkeeper.domain.textio import MemoryFileError, read_text

DECISIONS_DIR = "decisions"
INDEX_NAME = "INDEX.md"
_ADR_FILE = re.compile(r"^ADR-(\d{3,})-[^/]*\.md$")
_TITLE = re.compile(r"^#\s+ADR-\d+:\s*(.+?)\s*$")
_FIELD = re.compile(r"^-\s+\*\*(Status|Date):\*\*\s*(.*?)\s*$")
_STATUSES = ("proposed", "accepted", "deprecated", "superseded")
PRIVATE_TITLE = "(private)"


@dataclass(frozen=True)
class AdrSummary:
    """One row of the index."""

    number: int
    title: str
    status: str
    date: str
    file: str
    by_agent: str = ""  # the date an agent wrote it (its ``@source`` tag), else ""


def slugify(title: str, max_words: int = 8) -> str:
    """A file-name slug: lowercase words joined by ``-``, at most ``max_words``."""
    words = re.findall(r"[a-z0-9]+", title.lower())[:max_words]
    return "-".join(words) or "decision"


def _adr_number(name: str) -> int:
    """The number in an ADR file name (``ADR-007-title.md`` → 7); 0 for any other name."""
    match = _ADR_FILE.match(name)
    return int(match.group(1)) if match else 0


def adr_files(memory_dir: Path) -> list[Path]:
    """The ADR files of a memory folder, by number."""
    folder = memory_dir / DECISIONS_DIR
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.is_file() and _ADR_FILE.match(p.name)]
    return sorted(found, key=lambda p: _adr_number(p.name))


def next_number(memory_dir: Path) -> int:
    """The number after the highest ADR in the folder (1 for the first)."""
    files = adr_files(memory_dir)
    return _adr_number(files[-1].name) + 1 if files else 1


def _fill_section(text: str, heading: str, body: str) -> str:
    """Replace the placeholder comment under ``## heading`` with ``body``."""
    if not body.strip():
        return text
    pattern = re.compile(rf"(^## {re.escape(heading)}\n\n)<!--.*?-->", re.MULTILINE | re.DOTALL)
    return pattern.sub(lambda m: m.group(1) + body.strip(), text, count=1)


def render_adr(
    number: int,
    title: str,
    decision: str,
    *,
    context: str = "",
    status: str,
    date: str,
    provenance: str | None = None,
) -> str:
    """The text of a new ADR from the template, with its ``@source`` tag (who wrote it, see
    :mod:`conkeeper.domain.provenance`) under the category tag when ``provenance`` is given."""
    text = template_text("adr-template.md")
    if provenance is not None:
        from conkeeper.domain.provenance import format_source_tag

        category = "<!-- @category: decision -->\n"
        text = text.replace(category, category + format_source_tag(provenance, date) + "\n", 1)
    text = text.replace("# ADR-NNN: Title", f"# ADR-{number:03d}: {' '.join(title.split())}", 1)
    text = re.sub(r"^- \*\*Status:\*\*.*$", f"- **Status:** {status}", text, count=1, flags=re.M)
    text = re.sub(r"^- \*\*Date:\*\*.*$", f"- **Date:** {date}", text, count=1, flags=re.M)
    text = _fill_section(text, "Context", context)
    return _fill_section(text, "Decision", decision)


def new_adr(
    memory_dir: Path,
    title: str,
    decision: str,
    *,
    context: str = "",
    status: str = "accepted",
    date: str | None = None,
    source: str = "user-cli",
    provenance: str | None = None,
) -> Path:
    """Write the next ``decisions/ADR-NNN-<slug>.md`` (never over an existing file) and
    regenerate the index; returns it. ``provenance`` (a source word) tags who wrote it: an
    agent's ADR says so in the file and in its index row, which SessionStart injects."""
    if not title.strip():
        raise MemoryFileError("an ADR needs a title")
    if status.split()[0] not in _STATUSES:
        raise MemoryFileError(f"unknown ADR status '{status}'; use one of {', '.join(_STATUSES)}")
    from conkeeper.domain.safewrite import write_group

    with write_group(), _numbering(memory_dir / DECISIONS_DIR):  # ADR and index: one undo step
        number = next_number(memory_dir)
        path = memory_dir / DECISIONS_DIR / f"ADR-{number:03d}-{slugify(title)}.md"
        text = render_adr(
            number,
            title,
            decision,
            context=context,
            status=status,
            date=date or time.strftime("%Y-%m-%d"),
            provenance=provenance,
        )
        create_file(path, text.encode(), command="decisions new", source=source, root=memory_dir)
        regenerate_index(memory_dir, source=source)
    return path


@contextlib.contextmanager
def _numbering(folder: Path) -> Iterator[None]:
    """Hold ``folder`` while a number is chosen and its ADR created: two sessions writing an ADR
    at once both took the next free number (two ADR-003 files). The lock is on the folder
    itself, so no lock file appears among the person's files; where a folder cannot be locked
    (Windows) the numbering is as before."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def summarize(path: Path) -> AdrSummary:
    """Number, title, status and date of one ADR file (blank when a line is missing).

    Only what privacy lets through is read: a ``private: true`` ADR is listed as
    ``(private)``, a title inside a private block is not seen, secrets are redacted.
    """
    number = _adr_number(path.name)
    text = read_text(path)
    if is_private_file(text):
        return AdrSummary(number, PRIVATE_TITLE, "", "", path.name)
    from conkeeper.domain.provenance import parse_source_tag

    title, fields, by_agent = "", {"Status": "", "Date": ""}, ""
    for line in clean_for_injection(text).splitlines()[:30]:
        tag = parse_source_tag(line) if "@source" in line else None
        if tag is not None and tag.from_agent and not by_agent:
            by_agent = tag.date
        elif not title and (m := _TITLE.match(line)):
            title = m.group(1)
        elif m := _FIELD.match(line):
            fields[m.group(1)] = m.group(2)
    if not title:  # a title privacy hid is "(private)"; a missing one falls back to the name
        hidden = any(_TITLE.match(line) for line in text.splitlines()[:60])
        title = PRIVATE_TITLE if hidden else path.stem
    return AdrSummary(number, title, fields["Status"], fields["Date"], path.name, by_agent)


def render_index(rows: list[AdrSummary]) -> str:
    """``decisions/INDEX.md``: the template's preamble and one table row per ADR."""
    text = template_text("decisions-index.md").rstrip("\n") + "\n"
    cell = lambda value: value.replace("|", "/")  # noqa: E731
    for r in rows:
        status = f"{r.status} (written by an agent, {r.by_agent})" if r.by_agent else r.status
        text += (
            f"| [ADR-{r.number:03d}]({r.file}) | {cell(r.title)} | {cell(status)} "
            f"| {cell(r.date)} |\n"
        )
    return text


# A row ConKeeper owns links an ADR file of this folder, as render_index writes it; a row the
# person wrote for a decision kept elsewhere (a wiki, another repository) is theirs and stays.
_INDEX_ROW = re.compile(rb"^\|\s*\[ADR-\d+\]\((?:\./)?ADR-\d+[^)/\\:]*\.md\)")
_TABLE_RULE = re.compile(rb"^\|\s*:?-{3,}")


def regenerate_index(memory_dir: Path, source: str = "user-cli") -> Path:
    """Bring ``decisions/INDEX.md``'s table rows in line with the ADR files (unreadable ADRs
    are left out): only the row lines change; a missing index is made from the template. The
    ADR files are read under the index's write lock: read before it, a session that wrote
    ADR-004 could replace the rows another session had just written for ADR-005 and ADR-006
    with its older view of the folder."""

    def edit(current: bytes) -> bytes:
        fresh = render_index(_summaries(memory_dir)).encode()
        if not current.strip():
            return fresh
        rows = [line for line in fresh.splitlines(keepends=True) if _INDEX_ROW.match(line)]
        return replace_rows(current, rows)

    index = memory_dir / DECISIONS_DIR / INDEX_NAME
    edit_file(index, edit, command="decisions index", source=source, root=memory_dir)
    return index


def _summaries(memory_dir: Path) -> list[AdrSummary]:
    """The summary of every readable ADR file (an unreadable one is left out)."""
    rows = []
    for path in adr_files(memory_dir):
        try:
            rows.append(summarize(path))
        except MemoryFileError:
            continue
    return rows


def replace_rows(current: bytes, new_rows: list[bytes]) -> bytes:
    """``current`` with its ADR table rows replaced by ``new_rows`` (where the first old row
    was, else after the table's rule line, else at the end); every other line kept."""
    lines = current.splitlines(keepends=True)
    crlf = b"\r\n" in current
    rows = [r.replace(b"\n", b"\r\n") if crlf else r for r in new_rows]
    old = [i for i, line in enumerate(lines) if _INDEX_ROW.match(line)]
    if old:
        at = old[0]
    else:
        rules = [i for i, line in enumerate(lines) if _TABLE_RULE.match(line)]
        at = rules[-1] + 1 if rules else len(lines)
    kept = [line for i, line in enumerate(lines) if i not in set(old)]
    if at and at <= len(kept) and not kept[at - 1].endswith((b"\n", b"\r")):
        kept[at - 1] += b"\r\n" if crlf else b"\n"
    return b"".join(kept[:at] + rows + kept[at:])
