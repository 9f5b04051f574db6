"""Stale memory entries: citations checked against the work tree and git history.

Memory that was right last month and is wrong today is worse than none: the agent trusts it.
For every entry of the curated memory files (not session logs, not the queue) that cites a
file, a symbol, a command or a config key, this decides whether it still holds:

* ``deleted`` / ``renamed`` — the cited file is gone; the commit that removed it is the
  evidence, and a rename names the new path;
* ``missing`` — a cited path under an existing project folder that git never knew;
* ``symbol-gone`` — a cited symbol or key no longer occurs in the cited file (and where it
  lives now, if anywhere), or, for a project-looking symbol cited without a file, nowhere in
  the tracked code;
* ``command-gone`` — a ``make`` target or npm script no longer defined, a ``python -m``
  module no longer present;
* ``changed`` — the cited file changed substantially in commits after the entry's lines were
  last written (the entry's lines dated like ``git blame`` does, from the same log).

Git is asked at most four questions per run (``ls-files``, one pathspec-limited ``log -p``,
``diff-tree`` for renames, ``grep`` for symbols), never one per entry. Results are cached in
the data home keyed by ``HEAD`` and the memory and cited files' stamps, so SessionStart reads
them in a millisecond when nothing moved.
"""

from __future__ import annotations

import json
import os
import re
import time
import zlib
from pathlib import Path

from conkeeper.domain.privacy import blank_private, is_private_file
from conkeeper.domain.records import Record
from conkeeper.domain.textio import MemoryFileError, read_text
from conkeeper.services.freshness.citations import (
    COMMAND,
    KEY,
    PATH,
    SYMBOL,
    Entry,
    is_config_path,
    split_entries,
)
from conkeeper.services.freshness.gitrepo import read_head, run_git
from conkeeper.services.freshness.history import Change, Commit, History, read_history, renames_in

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

MAX_MEMORY_BYTES = 512 * 1024
MAX_CODE_BYTES = 2 * 1024 * 1024
SUBSTANTIAL_MIN_LINES = 20
SUBSTANTIAL_SHARE = 0.3
SUBSTANTIAL_MIN_COMMITS = 1
CACHE_VERSION = 2
REASONS = ("deleted", "renamed", "missing", "symbol-gone", "command-gone", "changed")


class Finding(Record):
    """One entry that is possibly stale: where it is, what it cites, why, and the evidence."""

    __slots__ = ("citation", "commit", "date", "detail", "file", "line", "reason", "summary")

    def __init__(
        self,
        file: str,
        line: int,
        summary: str,
        citation: str,
        reason: str,
        detail: str,
        commit: str = "",
        date: str = "",
    ) -> None:
        self.file = file
        self.line = line
        self.summary = summary
        self.citation = citation
        self.reason = reason
        self.detail = detail
        self.commit = commit
        self.date = date

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly form (``conkeeper stale --json``, the cache)."""
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Finding:
        """The inverse of :meth:`as_dict`."""
        return cls(**{name: data.get(name, "") for name in cls.__slots__})  # type: ignore[arg-type]

    def one_line(self) -> str:
        """``file:line `citation` — detail (commit, date)`` for notes and listings."""
        evidence = f" ({self.commit}, {self.date})" if self.commit else ""
        return f"{self.file}:{self.line} `{self.citation}`: {self.detail}{evidence}"


class Report(Record):
    """The outcome of a run: findings, entries and citations checked, git calls made, time."""

    __slots__ = ("cached", "citations", "elapsed_ms", "entries", "findings", "git", "git_calls")

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.entries = 0
        self.citations = 0
        self.git = False
        self.git_calls = 0
        self.elapsed_ms = 0.0
        self.cached = False

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly form."""
        return {
            "findings": [f.as_dict() for f in self.findings],
            "entries_checked": self.entries,
            "citations_checked": self.citations,
            "git": self.git,
            "git_calls": self.git_calls,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "cached": self.cached,
        }


# --------------------------------------------------------------------------- memory side


SKIPPED_FILES = frozenset({"schema.md", "corrections-queue.md", ".memory-config.md"})


def is_checked_memory_file(rel: str) -> bool:
    """Curated knowledge (not logs, session records, the queue, the config, the schema or the
    generated ADR index): the same split as ``domain.memory.memory_file_kind``, without its
    import cost on the SessionStart path."""
    top, _, rest = rel.partition("/")
    if not rest:
        return rel not in SKIPPED_FILES
    if top == "sessions":
        return False
    return not (top == "decisions" and rest == "INDEX.md")


def memory_files(memory_dir: Path) -> list[Path]:
    """The curated memory files whose entries are checked (sorted, no symlinks out)."""
    found = []
    try:
        root = memory_dir.resolve()
    except OSError:
        return []
    for folder, dirs, files in os.walk(memory_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            rel = path.relative_to(memory_dir).as_posix()
            if not name.endswith(".md") or not is_checked_memory_file(rel):
                continue
            try:
                path.resolve().relative_to(root)
            except (ValueError, OSError):
                continue
            found.append(path)
    return found


def _entries(path: Path) -> list[Entry]:
    try:
        text = read_text(path, max_bytes=MAX_MEMORY_BYTES)
    except MemoryFileError:
        return []
    if is_private_file(text):
        return []
    return split_entries(blank_private(text))


# --------------------------------------------------------------------------- code side


class _Tree(Record):
    """The work tree as git knows it: tracked files, and suffix lookups for short paths."""

    __slots__ = ("dirs", "files", "root")

    def __init__(self, root: Path, files: list[str] | None) -> None:
        self.root = root
        self.files: set[str] = set(files or ())
        self.dirs: set[str] = set()
        for name in self.files:
            parts = name.split("/")[:-1]
            for index in range(1, len(parts) + 1):
                self.dirs.add("/".join(parts[:index]))

    def resolve(self, path: str) -> str | None:
        """The project-relative file or folder ``path`` names now, or ``None``."""
        clean = path.rstrip("/")
        if (self.root / clean).exists():
            return clean
        if clean in self.files or clean in self.dirs:
            return clean
        suffix = "/" + clean
        for name in self.files:
            if name.endswith(suffix):
                return name
        for name in self.dirs:
            if name.endswith(suffix):
                return name
        return None

    def plausible(self, path: str) -> bool:
        """True when a missing ``path`` sits under a folder this project has (so it is this
        project's path, not an illustration or another project's)."""
        head = path.split("/", 1)[0]
        return "/" in path.rstrip("/") and (head in self.dirs or (self.root / head).is_dir())


def _read_code(root: Path, rel: str) -> str:
    path = root / rel
    try:
        if path.is_dir():
            return ""
        with open(path, "rb") as handle:
            return handle.read(MAX_CODE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _word(symbol: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w$])" + re.escape(symbol) + r"(?![\w$])")


def _date(commit: Commit) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(commit.time))


def _pathspec(path: str) -> str:
    clean = path.rstrip("/")
    if "/" in clean or "." in clean:
        return f":(glob)**/{clean}"
    return clean


# --------------------------------------------------------------------------- the checker


class _Checker:
    """One run over a project: collects entries, asks git, produces findings."""

    def __init__(self, root: Path, memory_dir: Path) -> None:
        self.root = root
        self.memory_dir = memory_dir
        self.memory_prefix = _relative(memory_dir, root) + "/"
        self.report = Report()
        self.history: History | None = None
        self.tree = _Tree(root, None)
        self.code: dict[str, str] = {}
        self.grep: dict[str, set[str]] = {}
        self.renames: dict[tuple[str, str], str] = {}
        self.memory_mtime: dict[str, float] = {}

    def git(self, args: list[str], **kwargs: object) -> str | None:
        self.report.git_calls += 1
        return run_git(self.root, args, **kwargs)  # type: ignore[arg-type]

    def run(self, files: Iterable[Path]) -> Report:
        started = time.perf_counter()
        entries: list[tuple[str, Entry]] = []
        for path in files:
            rel = _relative(path, self.root)
            self.memory_mtime[rel] = _mtime(path)
            entries.extend((rel, entry) for entry in _entries(path))
        self.report.entries = len(entries)
        self.report.citations = sum(len(e.citations) for _, e in entries)
        if entries:
            self._ask_git(entries)
            for rel, entry in entries:
                self._check_entry(rel, entry)
        self.report.elapsed_ms = (time.perf_counter() - started) * 1000
        return self.report

    # -- git questions ------------------------------------------------------------------

    def _ask_git(self, entries: list[tuple[str, Entry]]) -> None:
        listing = self.git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        if listing is None:
            return
        self.report.git = True
        self.tree = _Tree(self.root, [n for n in listing.split("\0") if n])
        specs = [self.memory_prefix.rstrip("/")]
        for _, entry in entries:
            for citation in entry.citations:
                if citation.kind == PATH:
                    found = self.tree.resolve(citation.value)
                    specs.append(found if found else _pathspec(citation.value))
                elif citation.kind == COMMAND and citation.tool in ("make", "npm"):
                    specs.append("Makefile" if citation.tool == "make" else "package.json")
        self.report.git_calls += 1
        self.history = read_history(self.root, self.memory_prefix, specs)
        self._ask_renames()
        self._ask_grep(entries)

    def _ask_renames(self) -> None:
        if self.history is None:
            return
        deleting = [
            change.commit.hash
            for path, changes in self.history.changes.items()
            for change in changes[:1]
            if change.status == "D" and not path.startswith(self.memory_prefix)
        ]
        if deleting:
            self.report.git_calls += 1
            self.renames = renames_in(self.root, deleting)

    def _ask_grep(self, entries: list[tuple[str, Entry]]) -> None:
        symbols = sorted(
            {
                c.value
                for _, entry in entries
                for c in entry.citations
                if c.kind in (SYMBOL, KEY) and len(c.value) >= 3
            }
        )
        if not symbols:
            return
        args = ["grep", "-I", "-F", "-w", "-o", "--untracked"]
        for symbol in symbols:
            args += ["-e", symbol]
        args += ["--", ".", f":(exclude){self.memory_prefix.rstrip('/')}"]
        output = self.git(args, timeout=10.0)
        for line in (output or "").splitlines():
            name, _, match = line.rpartition(":")
            if name:
                self.grep.setdefault(match, set()).add(name)

    # -- per entry ----------------------------------------------------------------------

    def _entry_time(self, rel: str, entry: Entry) -> float:
        """When the entry's lines were last written: the newest commit that added one of
        them; now when one is uncommitted; the file's mtime without git history."""
        history = self.history
        if history is None or rel not in history.added_lines:
            return self.memory_mtime.get(rel, time.time())
        newest = 0
        for line in entry.lines:
            if not line.strip():
                continue
            commit = history.line_commit(rel, line)
            if commit is None:
                return time.time()
            newest = max(newest, commit.time)
        return float(newest)

    def _add(self, rel: str, entry: Entry, citation: str, reason: str, detail: str, commit=None):
        self.report.findings.append(
            Finding(
                rel,
                entry.start,
                entry.summary,
                citation,
                reason,
                detail,
                commit.short if commit else "",
                _date(commit) if commit else "",
            )
        )

    def _check_entry(self, rel: str, entry: Entry) -> None:
        cited_files: list[str] = []
        flagged = False
        for citation in entry.citations:
            if citation.kind != PATH:
                continue
            found = self.tree.resolve(citation.value) if self.report.git else None
            if found is None and not self.report.git:
                found = citation.value if (self.root / citation.value).exists() else None
            if found is None:
                flagged |= self._missing(rel, entry, citation.value)
            else:
                cited_files.append(found)
        for citation in entry.citations:
            if citation.kind in (SYMBOL, KEY):
                flagged |= self._symbol(rel, entry, citation.value, citation.kind, cited_files)
            elif citation.kind == COMMAND:
                flagged |= self._command(rel, entry, citation.value, citation.tool)
        if not flagged:
            since = self._entry_time(rel, entry)
            for path in cited_files:
                if self._changed(rel, entry, path, since):
                    break

    def _missing(self, rel: str, entry: Entry, path: str) -> bool:
        change, old = self._deletion(path)
        if change is not None:
            new = self.renames.get((change.commit.hash, old))
            if new:
                gone = "" if (self.root / new).exists() else ", which is gone too"
                self._add(rel, entry, path, "renamed", f"renamed to {new}{gone}", change.commit)
            else:
                self._add(rel, entry, path, "deleted", f"deleted: {old}", change.commit)
            return True
        if self.report.git and self.tree.plausible(path):
            self._add(rel, entry, path, "missing", "not in the work tree or its git history")
            return True
        return False

    def _deletion(self, path: str) -> tuple[Change | None, str]:
        """The newest change deleting the cited file (or a file under a cited folder)."""
        if self.history is None:
            return None, path
        clean = path.rstrip("/")
        best: tuple[Change | None, str] = (None, path)
        for name, changes in self.history.changes.items():
            exact = name == clean or name.endswith("/" + clean)
            if not exact and not (name.startswith(clean + "/") or f"/{clean}/" in name):
                continue
            latest = changes[0]
            if latest.status != "D":
                continue
            if best[0] is None or latest.commit.time > best[0].commit.time:
                best = (latest, name)
        return best

    def _symbol(self, rel: str, entry: Entry, name: str, kind: str, files: list[str]) -> bool:
        files = [f for f in files if not f.startswith(self.memory_prefix)]
        if kind == KEY:
            files = [f for f in files if is_config_path(f)] or files
            if not files:
                return False  # a bare snake_case word: too ambiguous to judge
        if files:
            pattern = _word(name)
            for path in files:
                if pattern.search(self._code(path)):
                    return False
            where = sorted(self.grep.get(name, ()))
            elsewhere = f"; now in {where[0]}" if where else ""
            commit = self._removal(files, name)
            shown = ", ".join(files[:2])
            self._add(rel, entry, name, "symbol-gone", f"no longer in {shown}{elsewhere}", commit)
            return True
        if not self.report.git or name in self.grep:
            return False
        self._add(rel, entry, name, "symbol-gone", "not found anywhere in the tracked code")
        return True

    def _removal(self, files: list[str], name: str) -> Commit | None:
        """The newest commit whose removed lines in ``files`` mention ``name``."""
        if self.history is None:
            return None
        pattern = _word(name)
        best: Commit | None = None
        for path in files:
            for change in self.history.changes.get(path, ()):
                if any(pattern.search(text) for text in change.removed_text):
                    if best is None or change.commit.time > best.time:
                        best = change.commit
                    break
        return best

    def _command(self, rel: str, entry: Entry, value: str, tool: str) -> bool:
        if tool == "make":
            text = self._code("Makefile") if (self.root / "Makefile").is_file() else None
            if text is None:
                return False
            target = re.compile(
                r"^(?:[^:#=\n]*\s)?" + re.escape(value) + r"(?:\s[^:#=\n]*)?::?(?!=)", re.MULTILINE
            )
            if target.search(text):
                return False
            commit = self._latest("Makefile")
            self._add(
                rel, entry, f"make {value}", "command-gone", "no such target in Makefile", commit
            )
            return True
        if tool == "npm":
            if not (self.root / "package.json").is_file():
                return False
            try:
                scripts = json.loads(self._code("package.json")).get("scripts") or {}
            except (ValueError, AttributeError):
                return False
            if value in scripts:
                return False
            self._add(
                rel,
                entry,
                f"npm run {value}",
                "command-gone",
                "no such script in package.json",
                self._latest("package.json"),
            )
            return True
        if tool == "python -m":
            return self._module(rel, entry, value)
        return False

    def _module(self, rel: str, entry: Entry, module: str) -> bool:
        parts = module.split(".")
        for base in ("", "src/"):
            top = self.root / (base + parts[0])
            if not top.exists() and not (self.root / f"{base}{parts[0]}.py").exists():
                continue
            stem = base + "/".join(parts)
            candidates = (f"{stem}.py", f"{stem}/__init__.py", f"{stem}/__main__.py")
            if any((self.root / c).exists() for c in candidates):
                return False
            self._add(
                rel,
                entry,
                f"python -m {module}",
                "command-gone",
                f"module {module} not found under {base or './'}",
            )
            return True
        return False

    def _latest(self, path: str) -> Commit | None:
        if self.history is None:
            return None
        changes = self.history.changes.get(path)
        return changes[0].commit if changes else None

    def _changed(self, rel: str, entry: Entry, path: str, since: float) -> bool:
        if self.history is None:
            return False
        after = [c for c in self.history.changes.get(path, ()) if c.commit.time > since]
        if len(after) < SUBSTANTIAL_MIN_COMMITS:
            return False
        churn = sum(c.added + c.removed for c in after)
        size = self._code(path).count("\n") + 1
        if churn < max(SUBSTANTIAL_MIN_LINES, SUBSTANTIAL_SHARE * size):
            return False
        detail = (
            f"{path} changed in {len(after)} commit(s) since this entry was written ({churn} lines)"
        )
        self._add(rel, entry, path, "changed", detail, after[0].commit)
        return True

    def _code(self, rel: str) -> str:
        if rel not in self.code:
            self.code[rel] = _read_code(self.root, rel)
        return self.code[rel]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return time.time()


def find_stale(root: Path, memory_dir: Path) -> Report:
    """Check every curated memory file of the project at ``root`` (no cache)."""
    return _Checker(root, memory_dir).run(memory_files(memory_dir))


# --------------------------------------------------------------------------- cache


def _signature(root: Path, memory_dir: Path) -> str:
    """``HEAD`` plus the size and mtime of every checked memory file, folded to a string."""
    head = read_head(root) or "-"
    crc = 0
    count = 0
    for path in memory_files(memory_dir):
        try:
            st = path.stat()
        except OSError:
            continue
        count += 1
        crc = zlib.crc32(f"{path.name}:{st.st_size}:{st.st_mtime_ns};".encode(), crc)
    return f"v{CACHE_VERSION}:{head}:{count}:{crc:08x}"


def cache_path(identity: str, env: Mapping[str, str] | None = None) -> Path:
    """Where a project's cached report lives in the data home."""
    from conkeeper.domain.paths import data_home

    key = f"{zlib.crc32(identity.encode('utf-8', 'replace')):08x}"
    return data_home(env) / "freshness" / f"{key}.json"


def cached_stale(
    root: Path,
    memory_dir: Path,
    identity: str,
    *,
    env: Mapping[str, str] | None = None,
    refresh: bool = True,
) -> Report | None:
    """The project's report from the cache when ``HEAD`` and the memory files are unchanged;
    otherwise a fresh run (stored for next time), or ``None`` when ``refresh`` is off."""
    signature = _signature(root, memory_dir)
    path = cache_path(identity, env)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("signature") == signature and data.get("root") == str(root):
            report = Report()
            report.findings = [Finding.from_dict(f) for f in data.get("findings", ())]
            report.entries = int(data.get("entries_checked", 0))
            report.citations = int(data.get("citations_checked", 0))
            report.git = bool(data.get("git"))
            report.cached = True
            return report
    except (OSError, ValueError, TypeError, AttributeError):
        pass
    if not refresh:
        return None
    report = find_stale(root, memory_dir)
    store = report.as_dict()
    store.update({"signature": signature, "root": str(root), "written_at": time.time()})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(store), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
    return report
