"""Writing the search index: memory files read, blanked, parsed into section rows and stored.

Why it exists: this is the costly half of keeping the index in step with the files, and it is
needed only when a file changed. :func:`conkeeper.storage.index.refresh_root` imports it then,
so a no-change search never loads the parser or the privacy module.

Pipeline for one file: read bytes → sha256 → decode (binary / unreadable / oversized files
are *skipped* with a note; invalid UTF-8 is indexed with U+FFFD and a note naming it) →
:func:`conkeeper.domain.privacy.clean_for_index` (hidden lines become empty, line numbers kept)
→ :func:`conkeeper.domain.memory.parse_entries` → one row per section (long sections are cut
into chunks of :data:`CHUNK_LINES` lines). Raw text never reaches the
database: private content is gone before the first ``INSERT``.

Incremental rule: a file whose size and mtime match its row is unchanged; otherwise its content
hash decides (a touched but identical file only gets its stamp updated). A file modified within
:data:`~conkeeper.storage.index_scan.RACY_WINDOW_NS` of indexing is stored with mtime 0 so the
next check hashes it again. Files that disappear leave the index in the same transaction.

Privacy hygiene: when a re-indexed file now hides content it did not hide before, FTS5 segments
are merged (``optimize``) and the WAL truncated (:func:`scrub`), so text that has just become
private does not linger in free pages or old segments.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sqlite3
import sys
import time
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from stat import S_ISREG
from typing import Literal, NamedTuple

from conkeeper.domain.categories import parse_tag_line
from conkeeper.domain.memory import Entry, parse_entries
from conkeeper.domain.privacy import clean_for_index
from conkeeper.domain.textio import MAX_MEMORY_FILE_BYTES, MemoryFileError, decode_lenient
from conkeeper.storage.index_scan import (
    RACY_WINDOW_NS,
    FileKind,
    FileStat,
    IndexRoot,
    Progress,
    RefreshStats,
    file_kind,
    file_time_ms,
)
from conkeeper.storage.index_spans import Span, encode_spans
from conkeeper.storage.store import transaction

PARALLEL_MIN_FILES = 300  # below this, starting worker processes costs more than it saves
MAX_WORKERS = 4
CHUNK_LINES = 40  # long sections (observation logs) are indexed in chunks of this many lines
# identifiers worth splitting: snake_case, camelCase, PascalCase with an inner capital
_WORDISH = re.compile(r"[^\W_]+(?:_+[^\W_]+)*")
# one leading character class each, so the scan rejects ordinary characters at C speed
_SNAKE_HINT = re.compile(r"_")
_CAMEL_HINT = re.compile(r"[A-Z](?:(?<=[a-z0-9][A-Z])|(?=[A-Z][a-z]))")
_IDENT_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


class EntryRow(NamedTuple):
    """One row of ``index_entries`` plus its FTS text, already in the form SQL takes.

    A tuple of plain values, so big builds can pass rows between processes cheaply.
    """

    line_start: int
    line_end: int
    heading_path: str
    categories: str  # space padded, " a b ", for LIKE '% a %'
    tags: str
    spans: str  # conkeeper.storage.index_spans text, or ""
    heading: str
    body: str
    terms: str


@dataclass
class PreparedFile:
    """A file read, hashed and turned into rows, ready to be written in one transaction."""

    stat: FileStat
    kind: FileKind
    sha256: str
    status: Literal["ok", "private", "skipped"]
    note: str | None = None
    rows: list[EntryRow] = field(default_factory=list)
    hides_text: bool = False  # privacy removed something: old versions must be scrubbed


def identifiers(text: str) -> dict[str, tuple[str, str]]:
    """Every snake_case / camelCase identifier in ``text`` → its split and whole forms.

    ``parseConfig`` → ``("parse config", "parseconfig")``, like ``parse_config``: indexing both
    forms lets either spelling (or one part) find both; the tokenizer already splits paths on
    ``/`` and ``.``. A cheap pattern finds the rare spots that look like an identifier (a letter
    before ``_``, a lower-case letter before a capital); only those are expanded and split.
    """
    out: dict[str, tuple[str, str]] = {}
    hints = [m.start() for m in _SNAKE_HINT.finditer(text)] if "_" in text else []
    hints.extend(m.start() for m in _CAMEL_HINT.finditer(text))
    covered = -1
    for start in sorted(hints):
        if start < covered:
            continue
        left = start
        while left > 0 and (text[left - 1].isalnum() or text[left - 1] == "_"):
            left -= 1
        match = _WORDISH.search(text, left)
        if match is None:
            break
        covered = match.end()
        ident = match.group()
        if ident in out:
            continue
        parts = _ident_parts(ident)
        if len(parts) > 1:
            out[ident] = (" ".join(parts), "".join(parts))
    return out


def _ident_parts(ident: str) -> list[str]:
    """Lower-case parts of an identifier: split on ``_``, and on case changes in ASCII pieces."""
    parts: list[str] = []
    for piece in ident.split("_"):
        if piece.isascii():
            parts.extend(p.lower() for p in _IDENT_PART.findall(piece))
        elif piece:
            parts.append(piece.lower())
    return parts


def identifier_terms(text: str) -> list[str]:
    """The ``terms`` words for ``text``: split and whole forms of its identifiers."""
    return list(dict.fromkeys(w for pair in identifiers(text).values() for w in pair))


@dataclass
class _FileText:
    """A blanked file split into lines, with comment lines emptied and tag lines located."""

    lines: list[str]  # comment and tag lines already emptied
    tags: dict[int, tuple[str, str]]  # 1-based line -> (kind, name)
    idents: dict[str, tuple[str, str]] = field(default_factory=dict)

    def terms(self, text: str) -> list[str]:
        """Identifier forms occurring in ``text`` (a section of this file)."""
        found = [pair for ident, pair in self.idents.items() if ident in text]
        return list(dict.fromkeys(w for pair in found for w in pair))


def _file_text(blanked: str) -> _FileText:
    """Split once, empty HTML comment lines (tags, template notes) and record the tags.

    Only lines containing ``<!--`` are looked at in Python; fenced code keeps its comments.
    """
    lines = blanked.split("\n")
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    tags: dict[int, tuple[str, str]] = {}
    if "<!--" not in blanked:
        return _FileText(lines, tags)
    fenced = _fenced_lines(lines) if ("```" in blanked or "~~~" in blanked) else set()
    closing = -1
    line_no = counted = 0
    pos = blanked.find("<!--")
    while pos >= 0:  # visit each line holding "<!--" once, found by str.find, not a line loop
        line_no += blanked.count("\n", counted, pos)
        counted = pos
        eol = blanked.find("\n", pos)
        pos = -1 if eol < 0 else blanked.find("<!--", eol)
        i = line_no
        line = lines[i]
        if i <= closing or i in fenced or not line.lstrip().startswith("<!--"):
            continue
        ref = parse_tag_line(line) if "@" in line else None
        if ref is not None:
            tags[i + 1] = (ref.kind, ref.name)
        elif "-->" not in line[line.index("<!--") + 4 :]:
            closing = _comment_end(lines, i)
            for j in range(i + 1, closing + 1):
                lines[j] = ""
        lines[i] = ""
    return _FileText(lines, tags)


def _comment_end(lines: list[str], start: int) -> int:
    for j in range(start + 1, len(lines)):
        if "-->" in lines[j]:
            return j
    return len(lines) - 1


def _fenced_lines(lines: list[str]) -> set[int]:
    inside: set[int] = set()
    fence = ""
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if fence:
            inside.add(i)
            if stripped.startswith(fence):
                fence = ""
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            inside.add(i)
    return inside


def _section_rows(
    ft: _FileText,
    section: Entry,
    end: int,
    bullets: list[Entry],
    tag_lines: list[int],
    inherited: list[str],
) -> tuple[list[EntryRow], list[str]]:
    """Rows for one section's own lines ``section.line_start..end``, cut into chunks, and the
    categories its subsections inherit (its own plus those it inherited)."""
    start = section.line_start
    labelled = [b for b in bullets if start <= b.line_start <= end] if bullets else bullets
    own_cats, own_tags = _section_labels(ft, start, end, labelled, tag_lines, inherited)
    section_span: Span | None = None
    if own_cats or own_tags:
        section_span = (start, end, tuple(own_cats), tuple(own_tags))
    path = " > ".join(section.heading_path)
    lines = ft.lines
    rows = []
    for first in range(start, end + 1, CHUNK_LINES):
        last = min(end, first + CHUNK_LINES - 1)
        body = "\n".join(lines[first - 1 : last])
        if not body or body.isspace():
            continue
        spans = _chunk_spans(section_span, labelled, first, last)
        rows.append(_chunk_row(ft, first, last, path, section.heading, body, spans))
    return rows, list(dict.fromkeys(own_cats))


def _section_labels(
    ft: _FileText,
    start: int,
    end: int,
    labelled: list[Entry],
    tag_lines: list[int],
    inherited: list[str],
) -> tuple[list[str], list[str]]:
    """The categories and tags that qualify a whole section: those inherited from its
    ancestors plus its tag lines that do not belong to one of its bullets (a bullet's own
    labels qualify only that bullet)."""
    own_cats: list[str] = list(inherited)
    own_tags: list[str] = []
    if tag_lines:
        first_tag, last_tag = bisect_left(tag_lines, start), bisect_right(tag_lines, end)
        for lineno in tag_lines[first_tag:last_tag]:
            if not any(b.line_start <= lineno <= b.line_end for b in labelled):
                kind, name = ft.tags[lineno]
                (own_cats if kind == "category" else own_tags).append(name)
    return own_cats, own_tags


def _chunk_spans(
    section_span: Span | None, labelled: list[Entry], first: int, last: int
) -> list[Span]:
    """The labelled line ranges a chunk ``first..last`` overlaps: the whole section's (when it
    has labels) and each labelled bullet's, so a search can tell which lines a label covers."""
    spans: list[Span] = []
    if section_span is not None:
        spans.append(section_span)
    if labelled:
        spans.extend(
            (b.line_start, b.line_end, tuple(b.categories), tuple(b.tags))
            for b in labelled
            if b.line_start <= last and b.line_end >= first
        )
    return spans


def _chunk_row(
    ft: _FileText,
    first: int,
    last: int,
    path: str,
    heading: str,
    body: str,
    spans: list[Span],
) -> EntryRow:
    """One chunk's row; its labels are the union of its spans' ones, and are also put in the
    FTS text so a search for a category or tag finds the chunk."""
    terms = ft.terms(heading + "\n" + body) if ft.idents else []
    if not spans:
        return EntryRow(first, last, path, "", "", "", heading, body, " ".join(terms))
    cats = list(dict.fromkeys(n for s in spans for n in s[2]))
    tags = list(dict.fromkeys(n for s in spans for n in s[3]))
    return EntryRow(
        first,
        last,
        path,
        _padded(cats),
        _padded(tags),
        encode_spans(spans),
        heading,
        body,
        " ".join([*terms, *cats, *tags]),
    )


def entry_rows(blanked: str) -> list[EntryRow]:
    """Index rows for a file's privacy-blanked text: one per section (or chunk of one)."""
    ft = _file_text(blanked)
    ft.idents = identifiers(blanked)
    entries = parse_entries(blanked, plain_bullets=False)
    sections = [e for e in entries if e.kind == "section"]
    bullets = [e for e in entries if e.kind == "bullet"]
    tag_lines = sorted(ft.tags)
    rows: list[EntryRow] = []
    count = len(ft.lines)
    # A category on a heading qualifies everything under it (an ADR tagged ``decision`` is a
    # decision down to its "## Consequences"), so subsections inherit their ancestors' ones.
    ancestors: list[tuple[int, list[str]]] = []
    for i, section in enumerate(sections):
        end = section.line_end
        if i + 1 < len(sections):
            end = min(end, sections[i + 1].line_start - 1)
        depth = len(section.heading_path)
        while ancestors and ancestors[-1][0] >= depth:
            ancestors.pop()
        inherited = ancestors[-1][1] if ancestors else []
        section_rows, cats = _section_rows(
            ft, section, min(end, count), bullets, tag_lines, inherited
        )
        rows.extend(section_rows)
        ancestors.append((depth, cats))
    return rows


def prepare_file(stat: FileStat, kind: FileKind, data: bytes, digest: str) -> PreparedFile:
    """Decode, blank private content and parse one file's bytes into rows (never raises)."""
    try:
        text, note = decode_lenient(data, stat.rel)  # bad UTF-8: replaced, and named in note
    except MemoryFileError as exc:
        return PreparedFile(stat, kind, digest, "skipped", str(exc))
    blanked = clean_for_index(text)  # private content blanked, secrets redacted
    redacted = blanked.count("[REDACTED:") > text.count("[REDACTED:")
    hides = blanked != text and (redacted or _visible_count(blanked) < _visible_count(text))
    try:
        rows = entry_rows(blanked)
    except Exception as exc:  # a parser bug must not stop the whole index; say which file
        return PreparedFile(stat, kind, digest, "skipped", f"{stat.rel}: cannot be parsed ({exc})")
    if not rows and hides and not blanked.strip():
        return PreparedFile(stat, kind, digest, "private", None, [], True)
    return PreparedFile(stat, kind, digest, "ok", note, rows, hides)


def _visible_count(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def _read(stat: FileStat) -> bytes | str:
    """The file's bytes, or a one-line note saying why it cannot be indexed."""
    if stat.size > MAX_MEMORY_FILE_BYTES:
        return f"{stat.rel}: {stat.size} bytes is over the {MAX_MEMORY_FILE_BYTES}-byte limit"
    try:
        # O_NONBLOCK: opening a FIFO named like a memory file must not block search forever
        fd = os.open(stat.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as handle:
            if not S_ISREG(os.fstat(fd).st_mode):
                return f"{stat.rel}: not a regular file (a FIFO, socket or device)"
            return handle.read()
    except PermissionError:
        return f"{stat.rel}: permission denied"
    except FileNotFoundError:
        if os.path.islink(stat.path):
            return f"{stat.rel}: a symlink to a file that does not exist"
        return f"{stat.rel}: went away while it was indexed"
    except OSError as exc:
        return f"{stat.rel}: cannot be read ({exc.strerror or exc})"


@dataclass
class Plan:
    """What a refresh will write: files to (re)insert, stamps to update, rows to delete."""

    prepared: list[PreparedFile] = field(default_factory=list)
    touched: list[tuple[FileStat, int]] = field(default_factory=list)  # (stat, file id)
    removed: list[int] = field(default_factory=list)
    scrub: bool = False


def plan_refresh(
    root: IndexRoot,
    files: dict[str, FileStat],
    known: dict[str, tuple[int, int, int, str]],
    stats: RefreshStats,
    progress: Progress | None,
) -> Plan:
    plan = Plan(removed=[fid for rel, (fid, *_rest) in known.items() if rel not in files])
    todo = [s for rel, s in files.items() if _stamp(known.get(rel)) != (s.size, s.mtime_ns)]
    stats.unchanged = len(files) - len(todo)
    jobs = [(s, file_kind(root, s.rel), known[s.rel][3] if s.rel in known else "") for s in todo]
    for done, (stat, result) in enumerate(_prepare_all(jobs), start=1):
        if result is None:  # same content, new stamp
            plan.touched.append((stat, known[stat.rel][0]))
        else:
            plan.scrub = plan.scrub or (stat.rel in known and result.hides_text)
            plan.prepared.append(result)
        if progress is not None:
            progress(done, len(todo))
    stats.removed = len(plan.removed)
    stats.touched = len(plan.touched)
    stats.added = sum(1 for p in plan.prepared if p.stat.rel not in known)
    stats.updated = len(plan.prepared) - stats.added
    stats.skipped = sum(1 for p in plan.prepared if p.status == "skipped")
    stats.entries = sum(len(p.rows) for p in plan.prepared)
    return plan


_Job = tuple[FileStat, FileKind, str]  # the file, its kind, the sha256 already indexed ("" if none)


def _prepare_one(job: _Job) -> tuple[FileStat, PreparedFile | None]:
    """Read, hash and parse one file; ``None`` when its content is what the index already has."""
    stat, kind, old_digest = job
    data = _read(stat)
    if isinstance(data, str):
        return stat, PreparedFile(stat, kind, "", "skipped", data)
    digest = hashlib.sha256(data).hexdigest()
    if digest == old_digest:
        return stat, None
    return stat, prepare_file(stat, kind, data, digest)


def _prepare_chunk(jobs: list[_Job]) -> list[tuple[FileStat, PreparedFile | None]]:
    return [_prepare_one(job) for job in jobs]


def _prepare_all(jobs: list[_Job]) -> Iterator[tuple[FileStat, PreparedFile | None]]:
    """Prepare files in this process, or — for big builds on a multi-core Linux machine — in
    worker processes (parsing is CPU-bound Python; the database is only written by the caller).
    """
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    if len(jobs) < PARALLEL_MIN_FILES or workers < 2 or sys.platform != "linux":
        yield from map(_prepare_one, jobs)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = max(16, len(jobs) // (workers * 4))
    chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
    context = multiprocessing.get_context("fork")
    done = 0
    try:
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            for chunk in pool.map(_prepare_chunk, chunks):
                done += len(chunk)
                yield from chunk
    except (OSError, RuntimeError):  # no processes allowed here: finish in this process
        yield from map(_prepare_one, jobs[done:])


def _stamp(row: tuple[int, int, int, str] | None) -> tuple[int, int]:
    return (-1, -1) if row is None else (row[1], row[2])


def _stored_mtime(mtime_ns: int, now_ns: int) -> int:
    """The mtime to store: 0 when the file changed so recently that a same-tick edit could hide."""
    return 0 if now_ns - mtime_ns < RACY_WINDOW_NS else mtime_ns


def write_plan(conn: sqlite3.Connection, root_id: int, plan: Plan, current: str | None) -> None:
    """Apply ``plan`` in one short ``BEGIN IMMEDIATE`` transaction (then scrub if needed)."""
    now_ns = time.time_ns()
    stamp = now_ns // 1_000_000
    conn.execute("PRAGMA secure_delete = ON")
    with transaction(conn):
        conn.executemany("DELETE FROM index_files WHERE id = ?", [(fid,) for fid in plan.removed])
        conn.executemany(
            "UPDATE index_files SET size = ?, mtime_ns = ?, file_time = ? WHERE id = ?",
            [
                (s.size, _stored_mtime(s.mtime_ns, now_ns), file_time_ms(s.rel, s.mtime_ns), fid)
                for s, fid in plan.touched
            ],
        )
        _insert_files(conn, root_id, plan.prepared, now_ns, stamp)
        conn.execute(
            "UPDATE index_roots SET checked_at = ?, fingerprint = ? WHERE id = ?",
            (stamp, current, root_id),
        )
    if plan.scrub:
        scrub(conn)


def _insert_files(
    conn: sqlite3.Connection,
    root_id: int,
    prepared: list[PreparedFile],
    now_ns: int,
    stamp: int,
) -> None:
    if not prepared:
        return
    conn.executemany(
        "DELETE FROM index_files WHERE root_id = ? AND rel_path = ?",
        [(root_id, p.stat.rel) for p in prepared],
    )
    entry_params: list[tuple[object, ...]] = []
    fts_params: list[tuple[object, ...]] = []
    next_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM index_entries").fetchone()[0])
    insert_file = (
        "INSERT INTO index_files(root_id, rel_path, kind, size, mtime_ns, sha256, file_time, "
        "status, note, entries, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    for p in prepared:
        stat = p.stat
        cur = conn.execute(
            insert_file,
            (
                root_id,
                stat.rel,
                p.kind,
                stat.size,
                _stored_mtime(stat.mtime_ns, now_ns),
                p.sha256,
                file_time_ms(stat.rel, stat.mtime_ns),
                p.status,
                p.note,
                len(p.rows),
                stamp,
            ),
        )
        file_id = cur.lastrowid
        for row in p.rows:
            next_id += 1
            entry_params.append((next_id, file_id, *row[:6]))
            fts_params.append((next_id, *row[6:]))
    conn.executemany(
        "INSERT INTO index_entries(id, file_id, line_start, line_end, heading_path, categories, "
        "tags, spans) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        entry_params,
    )
    conn.executemany(
        "INSERT INTO index_fts(rowid, heading, body, terms) VALUES (?, ?, ?, ?)", fts_params
    )


def _padded(names: Iterable[str]) -> str:
    """Names joined and space padded (``" a b "``), so ``LIKE '% a %'`` matches whole names."""
    joined = " ".join(names)
    return f" {joined} " if joined else ""


def scrub(conn: sqlite3.Connection) -> None:
    """Remove traces of deleted text: merge FTS5 segments and truncate the WAL (best effort)."""
    conn.execute("PRAGMA secure_delete = ON")
    with transaction(conn):
        conn.execute("INSERT INTO index_fts(index_fts) VALUES ('optimize')")
    with contextlib.suppress(sqlite3.DatabaseError):
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
