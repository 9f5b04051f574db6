"""The search index: memory-file sections in SQLite FTS5, kept in step with the files.

Why it exists: Markdown is the user's memory, but scanning every file for every query is slow and
cannot rank. The index is derived data that is never trusted blindly — :func:`refresh_root`
re-checks every file's stamp (one ``os.scandir`` walk compared against one ``SELECT``) and
re-indexes what changed before each search, so results are never stale.

Pipeline for one file: read bytes → sha256 → decode (binary / invalid UTF-8 / oversized files are
*skipped* with a note) → :func:`conkeeper.domain.privacy.blank_private` (hidden lines become
empty, line numbers kept) → :func:`conkeeper.domain.memory.parse_entries` → one row per section
(long sections are cut into chunks of :data:`CHUNK_LINES` lines). Raw text never reaches the
database: private content is gone before the first ``INSERT``.

Incremental rule: a file whose size and mtime match its row is unchanged; otherwise its content
hash decides (a touched but identical file only gets its stamp updated). A file modified within
:data:`RACY_WINDOW_NS` of indexing is stored with mtime 0 so the next check hashes it again —
otherwise two edits in the same clock tick with equal sizes could go unnoticed. Files that
disappear (deleted or renamed) leave the index in the same transaction.

Privacy hygiene: connections use ``PRAGMA secure_delete``; when a re-indexed file now hides
content it did not hide before, FTS5 segments are merged (``optimize``) and the WAL truncated, so
text that has just become private does not linger in free pages or old segments.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import sys
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from conkeeper.domain.categories import parse_tag_line
from conkeeper.domain.memory import MEMORY_LAYOUT, Entry, memory_file_kind, parse_entries
from conkeeper.domain.paths import (
    ProjectLocation,
    db_path,
    global_memory_dir,
    home_dir,
    project_memory_dir,
)
from conkeeper.domain.privacy import blank_private
from conkeeper.domain.textio import MAX_MEMORY_FILE_BYTES, MemoryFileError, decode_text, is_within
from conkeeper.storage.store import (
    SCHEMA_VERSION,
    StoreError,
    connect,
    describe_error,
    ensure_project,
    migrate,
    salvage,
    salvage_summary,
    schema_version,
    transaction,
)

RootKind = Literal["project", "global"]
FileKind = Literal["memory", "session", "global"]
Progress = Callable[[int, int], None]

PARALLEL_MIN_FILES = 300  # below this, starting worker processes costs more than it saves
MAX_WORKERS = 4
CHUNK_LINES = 40  # long sections (observation logs) are indexed in chunks of this many lines
RACY_WINDOW_NS = 2_000_000_000
# Bump when the rows made from a file change (parser, chunking, category inheritance): every
# root whose stored fingerprint carries another format is re-parsed once on its next refresh.
ROW_FORMAT = "rows-2"
_SPANS_JSON = json.JSONEncoder(separators=(",", ":")).encode
SESSIONS_DIR = "sessions"
# Top-level files that document the memory format rather than hold memory (schema.md,
# .memory-config.md): their examples — a <private> block in a code fence, say — are not results.
NOT_INDEXED = frozenset(
    item.path
    for items in MEMORY_LAYOUT.values()
    for item in items
    if memory_file_kind(item.path) in ("config", "schema")
)
_DATE_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
# identifiers worth splitting: snake_case, camelCase, PascalCase with an inner capital
_WORDISH = re.compile(r"[^\W_]+(?:_+[^\W_]+)*")
# one leading character class each, so the scan rejects ordinary characters at C speed
_SNAKE_HINT = re.compile(r"_")
_CAMEL_HINT = re.compile(r"[A-Z](?:(?<=[a-z0-9][A-Z])|(?=[A-Z][a-z]))")
_IDENT_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


# --------------------------------------------------------------------------- roots


@dataclass(frozen=True)
class IndexRoot:
    """One memory folder the index covers, and how its files are shown to people."""

    kind: RootKind
    path: Path  # the memory folder
    project_id: int | None
    display: str  # prefix for display paths, e.g. ".claude/memory" or "~/.claude/memory"
    project: str = ""  # project name ("" for the global root)


def project_root(
    conn: sqlite3.Connection, location: ProjectLocation, *, current: bool = True
) -> IndexRoot:
    """The :class:`IndexRoot` of a project, registering it in the store when new or moved
    (a plain SELECT otherwise: searching should not write when nothing changed)."""
    row = conn.execute(
        "SELECT id, root FROM projects WHERE identity = ?", (location.identity,)
    ).fetchone()
    if row is not None and row[1] == str(location.root):
        project_id = int(row[0])
    else:
        project_id = ensure_project(conn, location)
    return _project_root(project_id, location.root, location.name, current=current)


def _project_root(project_id: int, root: Path, name: str, *, current: bool) -> IndexRoot:
    memory = project_memory_dir(root)
    display = ".claude/memory" if current else f"{tilde(root)}/.claude/memory"
    return IndexRoot("project", memory, project_id, display, name)


def global_root() -> IndexRoot:
    """The :class:`IndexRoot` of the user's global memory, ``~/.claude/memory``."""
    return IndexRoot("global", global_memory_dir(), None, tilde(global_memory_dir()))


def known_project_roots(
    conn: sqlite3.Connection, current: ProjectLocation | None = None
) -> list[IndexRoot]:
    """Roots of every project the store knows whose memory folder still exists."""
    roots = []
    rows = conn.execute("SELECT id, identity, root, name FROM projects ORDER BY id").fetchall()
    for row in rows:
        root = Path(row["root"])
        if not project_memory_dir(root).is_dir():
            continue
        is_current = current is not None and row["identity"] == current.identity
        roots.append(_project_root(int(row["id"]), root, row["name"], current=is_current))
    return roots


def tilde(path: Path) -> str:
    """``path`` with the user's home shown as ``~`` (how people and agents read paths)."""
    text = str(path)
    home = str(home_dir())
    if home and home != os.sep and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home) :]
    return text


def ensure_root(conn: sqlite3.Connection, root: IndexRoot) -> int:
    """The ``index_roots.id`` of ``root``; a project whose folder moved starts afresh."""
    return _root_row(conn, root)[0]


def _root_row(conn: sqlite3.Connection, root: IndexRoot) -> tuple[int, str | None]:
    """``(id, fingerprint)`` of ``root``'s row, creating (or re-creating after a move) it."""
    if root.kind == "global":
        row = conn.execute(
            "SELECT id, path, fingerprint FROM index_roots WHERE kind = 'global'"
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT id, path, fingerprint FROM index_roots WHERE kind = 'project' "
            "AND project_id = ?",
            (root.project_id,),
        ).fetchone()
    if row is not None and row[1] == str(root.path):
        return int(row[0]), row[2]
    with transaction(conn):
        if row is not None:  # moved (or another worktree): its files are other files now
            conn.execute("DELETE FROM index_roots WHERE id = ?", (row[0],))
        cur = conn.execute(
            "INSERT INTO index_roots(project_id, kind, path) VALUES (?, ?, ?)",
            (root.project_id, root.kind, str(root.path)),
        )
    return int(cur.lastrowid or 0), None


def fingerprint(files: dict[str, FileStat], now_ns: int) -> str | None:
    """One hash of every file's path, size and mtime — equal means "nothing changed".

    ``None`` when a file changed within :data:`RACY_WINDOW_NS`: a second edit in the same clock
    tick could keep size and mtime, so such a root is always checked file by file.
    """
    parts = []
    for rel in sorted(files):
        stat = files[rel]
        if now_ns - stat.mtime_ns < RACY_WINDOW_NS:
            return None
        parts.append(f"{rel}\0{stat.size}\0{stat.mtime_ns}")
    digest = hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{ROW_FORMAT}:{digest}"


# --------------------------------------------------------------------------- scanning


class FileStat(NamedTuple):
    """What the walk learned about one file without reading it (a tuple: the walk is hot)."""

    rel: str
    path: str
    size: int
    mtime_ns: int


def scan_root(root: Path) -> dict[str, FileStat]:
    """Every ``*.md`` file under ``root`` (hidden names and :data:`NOT_INDEXED` skipped, symlinks
    kept inside ``root``).

    One ``os.scandir`` walk (file types come from the directory listing, one ``stat`` per
    Markdown file); this is the whole cost of a no-change re-check besides one SELECT, so the
    loop does as little as it can per file (the ``stat`` system calls are most of its time).
    """
    found: dict[str, FileStat] = {}
    stat = os.stat
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name[0] == ".":
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, prefix + name + "/"))
                    continue
                if not name.endswith(".md") or (not prefix and name in NOT_INDEXED):
                    continue
                path = entry.path
                if entry.is_symlink() and not is_within(Path(path), root):
                    continue  # a link leading outside the memory folder is not memory
                st = stat(path)
            except OSError:
                continue
            rel = prefix + name
            found[rel] = _new_stat(FileStat, (rel, path, st.st_size, st.st_mtime_ns))
    return found


# FileStat(...) runs a Python-level __new__; tuple.__new__ builds the same tuple in C.
_new_stat = tuple.__new__


def file_kind(root: IndexRoot, rel: str) -> FileKind:
    """``global`` for the global root, ``session`` under ``sessions/``, else ``memory``."""
    if root.kind == "global":
        return "global"
    return "session" if rel.startswith(SESSIONS_DIR + "/") else "memory"


def file_time_ms(rel: str, mtime_ns: int) -> int:
    """The date a file is about: a ``YYYY-MM-DD`` in its name (local midnight), else its mtime.

    Session files are named by date; their mtime changes on checkout or copy, their name does not.
    """
    match = _DATE_NAME.match(rel.rsplit("/", 1)[-1])
    if match:
        year, month, day = (int(g) for g in match.groups())
        with contextlib.suppress(ValueError, OverflowError):
            return int(time.mktime((year, month, day, 0, 0, 0, 0, 0, -1)) * 1000)
    return mtime_ns // 1_000_000


# --------------------------------------------------------------------------- entries


class EntryRow(NamedTuple):
    """One row of ``index_entries`` plus its FTS text, already in the form SQL takes.

    A tuple of plain values, so big builds can pass rows between processes cheaply.
    """

    line_start: int
    line_end: int
    heading_path: str
    categories: str  # space padded, " a b ", for LIKE '% a %'
    tags: str
    spans: str  # JSON [[start, end, [categories], [tags]], ...] or ""
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
    own_cats: list[str] = list(inherited)
    own_tags: list[str] = []
    if tag_lines:
        first_tag, last_tag = bisect_left(tag_lines, start), bisect_right(tag_lines, end)
        for lineno in tag_lines[first_tag:last_tag]:
            if not any(b.line_start <= lineno <= b.line_end for b in labelled):
                kind, name = ft.tags[lineno]
                (own_cats if kind == "category" else own_tags).append(name)
    path = " > ".join(section.heading_path)
    heading = section.heading
    lines = ft.lines
    rows = []
    for first in range(start, end + 1, CHUNK_LINES):
        last = min(end, first + CHUNK_LINES - 1)
        body = "\n".join(lines[first - 1 : last])
        if not body or body.isspace():
            continue
        spans: list[list[object]] = []
        if own_cats or own_tags:
            spans.append([start, end, own_cats, own_tags])
        if labelled:
            spans.extend(
                [b.line_start, b.line_end, list(b.categories), list(b.tags)]
                for b in labelled
                if b.line_start <= last and b.line_end >= first
            )
        terms = ft.terms(heading + "\n" + body) if ft.idents else []
        if spans:
            cats = list(dict.fromkeys(n for s in spans for n in s[2]))  # type: ignore[attr-defined]
            tags = list(dict.fromkeys(n for s in spans for n in s[3]))  # type: ignore[attr-defined]
            rows.append(
                EntryRow(
                    first,
                    last,
                    path,
                    _padded(cats),
                    _padded(tags),
                    _SPANS_JSON(spans),
                    heading,
                    body,
                    " ".join([*terms, *cats, *tags]),
                )
            )
        else:
            rows.append(EntryRow(first, last, path, "", "", "", heading, body, " ".join(terms)))
    return rows, list(dict.fromkeys(own_cats))


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
        text = decode_text(data, stat.rel)
    except MemoryFileError as exc:
        return PreparedFile(stat, kind, digest, "skipped", str(exc))
    blanked = blank_private(text)
    hides = blanked != text and _visible_count(blanked) < _visible_count(text)
    try:
        rows = entry_rows(blanked)
    except Exception as exc:  # a parser bug must not stop the whole index; say which file
        return PreparedFile(stat, kind, digest, "skipped", f"{stat.rel}: cannot be parsed ({exc})")
    if not rows and hides and not blanked.strip():
        return PreparedFile(stat, kind, digest, "private", None, [], True)
    return PreparedFile(stat, kind, digest, "ok", None, rows, hides)


def _visible_count(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def _read(stat: FileStat) -> bytes | str:
    """The file's bytes, or a one-line note saying why it cannot be indexed."""
    if stat.size > MAX_MEMORY_FILE_BYTES:
        return f"{stat.rel}: {stat.size} bytes is over the {MAX_MEMORY_FILE_BYTES}-byte limit"
    try:
        with open(stat.path, "rb") as handle:
            return handle.read()
    except PermissionError:
        return f"{stat.rel}: permission denied"
    except OSError as exc:
        return f"{stat.rel}: cannot be read ({exc.strerror or exc})"


# --------------------------------------------------------------------------- refreshing


@dataclass
class RefreshStats:
    """What one refresh did; ``changed`` says whether anything was written."""

    scanned: int = 0
    unchanged: int = 0
    added: int = 0
    updated: int = 0
    touched: int = 0
    removed: int = 0
    skipped: int = 0
    entries: int = 0
    seconds: float = 0.0
    root_id: int = 0

    @property
    def changed(self) -> bool:
        """True when the refresh wrote anything."""
        return bool(self.added or self.updated or self.touched or self.removed)

    def add(self, other: RefreshStats) -> None:
        """Accumulate another root's numbers (for multi-root commands)."""
        for name in ("scanned", "unchanged", "added", "updated", "touched", "removed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.skipped += other.skipped
        self.entries += other.entries
        self.seconds += other.seconds


@dataclass
class _Plan:
    prepared: list[PreparedFile] = field(default_factory=list)
    touched: list[tuple[FileStat, int]] = field(default_factory=list)  # (stat, file id)
    removed: list[int] = field(default_factory=list)
    scrub: bool = False


def refresh_root(
    conn: sqlite3.Connection, root: IndexRoot, *, progress: Progress | None = None
) -> RefreshStats:
    """Bring ``root``'s rows in line with its files; returns what changed.

    A no-change re-check is one directory walk plus one single-row SELECT (the root's
    fingerprint). Otherwise files are compared one by one; reading and parsing happen outside
    the write transaction, then everything is written in one short ``BEGIN IMMEDIATE``
    transaction, so parallel searches never see half a file.
    """
    started = time.perf_counter()
    root_id, stored = _root_row(conn, root)
    files = scan_root(root.path)
    current = fingerprint(files, time.time_ns())
    stats = RefreshStats(scanned=len(files), root_id=root_id)
    if current is not None and current == stored:
        stats.unchanged = len(files)
        stats.seconds = time.perf_counter() - started
        return stats
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: this SELECT is the bulk of a file-by-file check
    known = {
        row[0]: row[1:]
        for row in cursor.execute(
            "SELECT rel_path, id, size, mtime_ns, sha256 FROM index_files WHERE root_id = ?",
            (root_id,),
        )
    }
    if stored is not None and not stored.startswith(f"{ROW_FORMAT}:"):
        # Rows were made by another version of the parser: re-parse every file once.
        known = {rel: (row[0], -1, -1, "") for rel, row in known.items()}
    plan = _plan(root, files, known, stats, progress)
    if plan.prepared or plan.touched or plan.removed:
        _write(conn, root_id, plan, current)
    elif current != stored:
        with transaction(conn):
            conn.execute("UPDATE index_roots SET fingerprint = ? WHERE id = ?", (current, root_id))
    stats.seconds = time.perf_counter() - started
    return stats


def _plan(
    root: IndexRoot,
    files: dict[str, FileStat],
    known: dict[str, tuple[int, int, int, str]],
    stats: RefreshStats,
    progress: Progress | None,
) -> _Plan:
    plan = _Plan(removed=[fid for rel, (fid, *_rest) in known.items() if rel not in files])
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


def _write(conn: sqlite3.Connection, root_id: int, plan: _Plan, current: str | None) -> None:
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


def clear_index(conn: sqlite3.Connection) -> None:
    """Forget every indexed file (``index --rebuild``); the next refresh re-reads them all."""
    conn.execute("PRAGMA secure_delete = ON")
    with transaction(conn):
        conn.execute("DELETE FROM index_fts")
        conn.execute("DELETE FROM index_roots")
        conn.execute("INSERT INTO index_fts(index_fts) VALUES ('rebuild')")
    with contextlib.suppress(sqlite3.DatabaseError):
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


# --------------------------------------------------------------------------- status


@dataclass(frozen=True)
class RootStatus:
    """What ``index --status`` reports for one root."""

    kind: RootKind
    path: str
    project: str
    files: int
    entries: int
    private: int
    skipped: list[tuple[str, str]]
    checked_at: int


def index_status(conn: sqlite3.Connection) -> list[RootStatus]:
    """Per-root counts and the skipped files with their notes."""
    result = []
    roots = conn.execute(
        "SELECT r.id, r.kind, r.path, r.checked_at, coalesce(p.name, '') AS name "
        "FROM index_roots r LEFT JOIN projects p ON p.id = r.project_id ORDER BY r.kind, r.path"
    ).fetchall()
    for root in roots:
        counts = conn.execute(
            "SELECT count(*), coalesce(sum(entries), 0), "
            "coalesce(sum(status = 'private'), 0) FROM index_files WHERE root_id = ?",
            (root["id"],),
        ).fetchone()
        skipped = conn.execute(
            "SELECT rel_path, coalesce(note, '') FROM index_files "
            "WHERE root_id = ? AND status = 'skipped' ORDER BY rel_path",
            (root["id"],),
        ).fetchall()
        result.append(
            RootStatus(
                root["kind"],
                root["path"],
                root["name"],
                int(counts[0]),
                int(counts[1]),
                int(counts[2]),
                [(r[0], r[1]) for r in skipped],
                int(root["checked_at"]),
            )
        )
    return result


# --------------------------------------------------------------------------- opening


@dataclass
class IndexStore:
    """An open database for the index, and what a person should be told about how it opened.

    ``ephemeral`` means the real database could not be written (locked, read-only, newer
    schema) and an in-memory index stands in for this one run.
    """

    conn: sqlite3.Connection
    path: Path
    notices: list[str] = field(default_factory=list)
    ephemeral: bool = False


IN_MEMORY = "searching with a temporary in-memory index instead"
_CORRUPT_WORDS = ("not a database", "malformed", "corrupt", "file is encrypted")


def is_corruption(exc: BaseException) -> bool:
    """True when ``exc`` says the database file is damaged (rather than busy or read-only)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and any(w in text for w in _CORRUPT_WORDS)


def open_index_store(path: Path | None = None, *, fallback: bool = False) -> IndexStore:
    """Open the store for indexing, repairing what is merely derived.

    A damaged file is moved aside (``conkeeper.db.damaged-<time>``) and a fresh database is
    created — the index is rebuilt from the memory files on the next refresh. With ``fallback``
    (searching), a database that is locked, read-only or from a newer ConKeeper is replaced by an
    in-memory index for this run, with a notice; otherwise that raises :class:`StoreError`.
    """
    target = path or db_path()
    try:
        return IndexStore(_open_checked(target), target)
    except (sqlite3.DatabaseError, StoreError, OSError) as exc:
        if is_corruption(exc):
            notice = move_aside(target)
            return IndexStore(_open_checked(target), target, [notice])
        message = _message(target, exc)
        if not fallback:
            raise StoreError(message) from None
        notice = f"{message}; {IN_MEMORY}"
        return IndexStore(memory_store(), target, [notice], ephemeral=True)


def memory_store() -> sqlite3.Connection:
    """A throw-away, fully migrated store in memory (fallback and tests)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    migrate(conn)
    return conn


def _open_checked(target: Path) -> sqlite3.Connection:
    conn = connect(target)
    try:
        if schema_version(conn) > SCHEMA_VERSION:
            raise StoreError(
                f"{target}: written by a newer ConKeeper (schema {schema_version(conn)}, this one "
                f"knows {SCHEMA_VERSION}); upgrade ConKeeper"
            )
        migrate(conn)
        conn.execute("SELECT count(*) FROM index_roots").fetchone()
        conn.execute("SELECT rowid FROM index_fts LIMIT 1").fetchall()
    except BaseException:
        conn.close()
        raise
    return conn


def _message(target: Path, exc: BaseException) -> str:
    if isinstance(exc, StoreError):
        return str(exc)
    if isinstance(exc, sqlite3.DatabaseError):
        return describe_error(target, exc)
    return f"{target}: cannot open the database ({getattr(exc, 'strerror', None) or exc})"


def move_aside(target: Path) -> str:
    """Rename a damaged database (and its WAL) out of the way, salvage its readable rows into a
    fresh one at ``target``; returns the one-line notice."""
    suffix = time.strftime("%Y%m%d-%H%M%S")
    moved = target.with_name(f"{target.name}.damaged-{suffix}")
    os.replace(target, moved)
    for extra in ("-wal", "-shm"):
        side = Path(str(target) + extra)
        if side.exists():
            with contextlib.suppress(OSError):
                os.replace(side, Path(str(moved) + extra))
    recovered = salvage_summary(salvage(moved, target))
    return (
        f"the database {tilde(target)} was damaged; moved it to {moved.name}, {recovered} and "
        "rebuilt the search index from the memory files (they are untouched)"
    )
