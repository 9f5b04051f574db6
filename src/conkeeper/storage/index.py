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
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from conkeeper.domain.categories import parse_tag_line
from conkeeper.domain.memory import Entry, parse_entries
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
    schema_version,
)

RootKind = Literal["project", "global"]
FileKind = Literal["memory", "session", "global"]
Progress = Callable[[int, int], None]

CHUNK_LINES = 40  # long sections (observation logs) are indexed in chunks of this many lines
RACY_WINDOW_NS = 2_000_000_000
SESSIONS_DIR = "sessions"
_DATE_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
# identifiers worth splitting: snake_case, camelCase, PascalCase with an inner capital
_IDENT = re.compile(r"(?<!\w)(?=\w*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|[^\W_]_+[^\W_]))\w+")
_IDENT_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W\d_A-Za-z]+")


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
    """The :class:`IndexRoot` of a project (registering the project in the store)."""
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
    if root.kind == "global":
        row = conn.execute("SELECT id, path FROM index_roots WHERE kind = 'global'").fetchone()
    else:
        row = conn.execute(
            "SELECT id, path FROM index_roots WHERE kind = 'project' AND project_id = ?",
            (root.project_id,),
        ).fetchone()
    if row is not None and row["path"] == str(root.path):
        return int(row["id"])
    with write_transaction(conn):
        if row is not None:  # moved (or another worktree): its files are other files now
            conn.execute("DELETE FROM index_roots WHERE id = ?", (row["id"],))
        cur = conn.execute(
            "INSERT INTO index_roots(project_id, kind, path) VALUES (?, ?, ?)",
            (root.project_id, root.kind, str(root.path)),
        )
    return int(cur.lastrowid or 0)


# --------------------------------------------------------------------------- scanning


@dataclass(frozen=True)
class FileStat:
    """What the walk learned about one file without reading it."""

    rel: str
    path: Path
    size: int
    mtime_ns: int


def scan_root(root: Path) -> dict[str, FileStat]:
    """Every ``*.md`` file under ``root`` (hidden names skipped, symlinks kept inside ``root``).

    One ``os.scandir`` walk; this is the whole cost of a no-change re-check besides one SELECT.
    """
    found: dict[str, FileStat] = {}
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
            if name.startswith("."):
                continue
            _visit(entry, prefix + name, root, stack, found)
    return found


def _visit(
    entry: os.DirEntry[str],
    rel: str,
    root: Path,
    stack: list[tuple[str, str]],
    found: dict[str, FileStat],
) -> None:
    try:
        if entry.is_dir(follow_symlinks=False):
            stack.append((entry.path, rel + "/"))
            return
        if not rel.endswith(".md"):
            return
        if entry.is_symlink() and not is_within(Path(entry.path), root):
            return  # a link leading outside the memory folder is not memory
        st = entry.stat()
    except OSError:
        return
    found[rel] = FileStat(rel, Path(entry.path), st.st_size, st.st_mtime_ns)


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


@dataclass
class EntryRow:
    """One row of ``index_entries`` plus its FTS text."""

    line_start: int
    line_end: int
    heading: str
    heading_path: str
    categories: tuple[str, ...]
    tags: tuple[str, ...]
    spans: list[list[object]]
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


def identifier_terms(text: str) -> list[str]:
    """Parts and whole forms of every snake_case / camelCase identifier in ``text``.

    ``parseConfig`` gives ``parse config parseconfig`` and ``parse_config`` the same, so either
    spelling (or one part) finds both; the tokenizer already splits paths on ``/`` and ``.``.
    """
    out: dict[str, None] = {}
    for ident in dict.fromkeys(_IDENT.findall(text)):
        parts = [p.lower() for p in _IDENT_PART.findall(ident)]
        if len(parts) > 1:
            out[" ".join(parts)] = None
            out["".join(parts)] = None
    return list(out)


def _line_tags(lines: list[str], start: int, end: int) -> dict[int, tuple[str, str]]:
    """``{line: (kind, name)}`` for tag lines between 1-based ``start`` and ``end``."""
    found: dict[int, tuple[str, str]] = {}
    for lineno in range(start, end + 1):
        line = lines[lineno - 1]
        if "@" in line and line.lstrip().startswith("<!--"):
            ref = parse_tag_line(line)
            if ref is not None:
                found[lineno] = (ref.kind, ref.name)
    return found


def _blank_comments(chunk: list[str]) -> list[str]:
    """Empty out HTML comment lines (tags, template notes): they are not searchable text."""
    out: list[str] = []
    in_comment = False
    fence = ""
    for line in chunk:
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            out.append(line)
            continue
        if in_comment:
            in_comment = "-->" not in stripped
            out.append("")
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            out.append(line)
        elif stripped.startswith("<!--"):
            in_comment = "-->" not in stripped[4:]
            out.append("")
        else:
            out.append(line)
    return out


def _section_rows(
    lines: list[str], section: Entry, end: int, bullets: list[Entry]
) -> Iterator[EntryRow]:
    """Rows for one section's own lines ``section.line_start..end``, cut into chunks."""
    tag_lines = _line_tags(lines, section.line_start, end)
    inside = [b for b in bullets if section.line_start <= b.line_start <= end]
    bullet_of = {}
    for bullet in inside:
        for lineno in range(bullet.line_start, bullet.line_end + 1):
            bullet_of[lineno] = bullet
    own_cats = [n for ln, (k, n) in tag_lines.items() if k == "category" and ln not in bullet_of]
    own_tags = [n for ln, (k, n) in tag_lines.items() if k == "tag" and ln not in bullet_of]
    path = " > ".join(section.heading_path)
    for first in range(section.line_start, end + 1, CHUNK_LINES):
        last = min(end, first + CHUNK_LINES - 1)
        body_lines = _blank_comments(lines[first - 1 : last])
        if not any(s.strip() for s in body_lines):
            continue
        spans: list[list[object]] = []
        if own_cats or own_tags:
            spans.append([section.line_start, end, own_cats, own_tags])
        for bullet in inside:
            overlaps = bullet.line_start <= last and bullet.line_end >= first
            if (bullet.categories or bullet.tags) and overlaps:
                spans.append([bullet.line_start, bullet.line_end, *_names(bullet)])
        cats = tuple(dict.fromkeys(n for s in spans for n in s[2]))  # type: ignore[attr-defined]
        tags = tuple(dict.fromkeys(n for s in spans for n in s[3]))  # type: ignore[attr-defined]
        body = "\n".join(body_lines)
        terms = identifier_terms(section.heading + "\n" + body)
        yield EntryRow(
            first,
            last,
            section.heading,
            path,
            cats,
            tags,
            spans,
            body,
            " ".join([*terms, *cats, *tags]),
        )


def _names(entry: Entry) -> tuple[list[str], list[str]]:
    return list(entry.categories), list(entry.tags)


def entry_rows(blanked: str) -> list[EntryRow]:
    """Index rows for a file's privacy-blanked text: one per section (or chunk of one)."""
    lines = blanked.split("\n")
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    entries = parse_entries(blanked)
    sections = [e for e in entries if e.kind == "section"]
    bullets = [e for e in entries if e.kind == "bullet"]
    rows: list[EntryRow] = []
    for i, section in enumerate(sections):
        end = section.line_end
        if i + 1 < len(sections):
            end = min(end, sections[i + 1].line_start - 1)
        end = min(end, len(lines))
        rows.extend(_section_rows(lines, section, end, bullets))
    return rows


def prepare_file(stat: FileStat, kind: FileKind, data: bytes, digest: str) -> PreparedFile:
    """Decode, blank private content and parse one file's bytes into rows (never raises)."""
    try:
        text = decode_text(data, stat.rel)
    except MemoryFileError as exc:
        return PreparedFile(stat, kind, digest, "skipped", str(exc))
    blanked = blank_private(text)
    hides = _visible_count(blanked) < _visible_count(text)
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
        return stat.path.read_bytes()
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

    Reads and parses outside the write transaction, then writes everything in one short
    ``BEGIN IMMEDIATE`` transaction, so parallel searches never see half a file.
    """
    started = time.perf_counter()
    root_id = ensure_root(conn, root)
    files = scan_root(root.path)
    known = {
        row[0]: (row[1], row[2], row[3], row[4])
        for row in conn.execute(
            "SELECT rel_path, id, size, mtime_ns, sha256 FROM index_files WHERE root_id = ?",
            (root_id,),
        )
    }
    stats = RefreshStats(scanned=len(files), root_id=root_id)
    plan = _plan(root, files, known, stats, progress)
    if plan.prepared or plan.touched or plan.removed:
        _write(conn, root_id, plan, stats)
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
    todo = [
        s for rel, s in files.items() if known.get(rel, (0, -1, -1))[1:3] != (s.size, s.mtime_ns)
    ]
    stats.unchanged = len(files) - len(todo)
    for done, stat in enumerate(todo, start=1):
        old = known.get(stat.rel)
        data = _read(stat)
        if isinstance(data, str):
            plan.prepared.append(PreparedFile(stat, file_kind(root, stat.rel), "", "skipped", data))
        else:
            digest = hashlib.sha256(data).hexdigest()
            if old is not None and old[3] == digest:
                plan.touched.append((stat, old[0]))
            else:
                prepared = prepare_file(stat, file_kind(root, stat.rel), data, digest)
                plan.scrub = plan.scrub or (old is not None and prepared.hides_text)
                plan.prepared.append(prepared)
        if progress is not None:
            progress(done, len(todo))
    stats.removed = len(plan.removed)
    stats.touched = len(plan.touched)
    stats.added = sum(1 for p in plan.prepared if p.stat.rel not in known)
    stats.updated = len(plan.prepared) - stats.added
    stats.skipped = sum(1 for p in plan.prepared if p.status == "skipped")
    stats.entries = sum(len(p.rows) for p in plan.prepared)
    return plan


def _stamp(row: tuple[int, int, int, str] | None) -> tuple[int, int]:
    return (-1, -1) if row is None else (row[1], row[2])


def _stored_mtime(mtime_ns: int, now_ns: int) -> int:
    """The mtime to store: 0 when the file changed so recently that a same-tick edit could hide."""
    return 0 if now_ns - mtime_ns < RACY_WINDOW_NS else mtime_ns


def _write(conn: sqlite3.Connection, root_id: int, plan: _Plan, stats: RefreshStats) -> None:
    now_ns = time.time_ns()
    stamp = now_ns // 1_000_000
    conn.execute("PRAGMA secure_delete = ON")
    with write_transaction(conn):
        conn.executemany("DELETE FROM index_files WHERE id = ?", [(fid,) for fid in plan.removed])
        conn.executemany(
            "UPDATE index_files SET size = ?, mtime_ns = ? WHERE id = ?",
            [(s.size, _stored_mtime(s.mtime_ns, now_ns), fid) for s, fid in plan.touched],
        )
        _insert_files(conn, root_id, plan.prepared, now_ns, stamp)
        conn.execute("UPDATE index_roots SET checked_at = ? WHERE id = ?", (stamp, root_id))
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
    for p in prepared:
        cur = conn.execute(
            "INSERT INTO index_files(root_id, rel_path, kind, size, mtime_ns, sha256, file_time, "
            "status, note, entries, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                root_id,
                p.stat.rel,
                p.kind,
                p.stat.size,
                _stored_mtime(p.stat.mtime_ns, now_ns),
                p.sha256,
                file_time_ms(p.stat.rel, p.stat.mtime_ns),
                p.status,
                p.note,
                len(p.rows),
                stamp,
            ),
        )
        file_id = cur.lastrowid
        for row in p.rows:
            next_id += 1
            entry_params.append(
                (
                    next_id,
                    file_id,
                    row.line_start,
                    row.line_end,
                    row.heading_path,
                    _padded(row.categories),
                    _padded(row.tags),
                    json.dumps(row.spans, separators=(",", ":")) if row.spans else "",
                )
            )
            fts_params.append((next_id, row.heading, row.body, row.terms))
    conn.executemany(
        "INSERT INTO index_entries(id, file_id, line_start, line_end, heading_path, categories, "
        "tags, spans) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        entry_params,
    )
    conn.executemany(
        "INSERT INTO index_fts(rowid, heading, body, terms) VALUES (?, ?, ?, ?)", fts_params
    )


def _padded(names: Iterable[str]) -> str:
    joined = " ".join(names)
    return f" {joined} " if joined else ""


def scrub(conn: sqlite3.Connection) -> None:
    """Remove traces of deleted text: merge FTS5 segments and truncate the WAL (best effort)."""
    conn.execute("PRAGMA secure_delete = ON")
    with write_transaction(conn):
        conn.execute("INSERT INTO index_fts(index_fts) VALUES ('optimize')")
    with contextlib.suppress(sqlite3.DatabaseError):
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def clear_index(conn: sqlite3.Connection) -> None:
    """Forget every indexed file (``index --rebuild``); the next refresh re-reads them all."""
    conn.execute("PRAGMA secure_delete = ON")
    with write_transaction(conn):
        conn.execute("DELETE FROM index_fts")
        conn.execute("DELETE FROM index_roots")
        conn.execute("INSERT INTO index_fts(index_fts) VALUES ('rebuild')")
    with contextlib.suppress(sqlite3.DatabaseError):
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error (even mid-``executemany``)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


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
            return IndexStore(_open_checked(target), target, [move_aside(target)])
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
    """Rename a damaged database (and its WAL) out of the way; returns the one-line notice."""
    suffix = time.strftime("%Y%m%d-%H%M%S")
    moved = target.with_name(f"{target.name}.damaged-{suffix}")
    os.replace(target, moved)
    for extra in ("-wal", "-shm"):
        side = Path(str(target) + extra)
        if side.exists():
            with contextlib.suppress(OSError):
                os.replace(side, Path(str(moved) + extra))
    return (
        f"the database {tilde(target)} was damaged; moved it to {moved.name} and rebuilt the "
        "search index from the memory files (they are untouched)"
    )
