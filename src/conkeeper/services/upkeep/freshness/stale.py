"""Stale memory entries: citations checked against the work tree and git history.

Memory that was right last month and is wrong today is worse than none: the agent trusts it.
For every entry of the curated memory files (not session logs, not the queue) that cites a
file, a symbol, a command or a config key, this decides whether it still holds:

* ``deleted`` / ``renamed`` — the cited file is gone; the commit that removed it is the
  evidence, and a rename names the new path (and the cited names the renamed file lost);
* ``missing`` — a cited path under an existing project folder that git never knew (outside
  git: that is not in the work tree);
* ``symbol-gone`` — a cited symbol or key (``apply_coupon()`` and `` `apply_coupon` `` alike)
  no longer occurs in the cited file (and where it lives now, if anywhere), or, for a
  project-looking symbol cited without a file, was in the code when the entry was written and
  is nowhere in it now (a name the code never had is a convention for code to come or a
  library's); never a name the entry says to avoid or calls removed ("never call `x`");
* ``command-gone`` — a ``make`` target or npm script no longer defined, a ``python -m``
  module no longer present;
* ``changed`` — the cited file changed substantially in commits after the entry's lines were
  last written (the entry's lines dated like ``git blame`` does, from the same log).

Git is asked a fixed handful of questions per run, never one per entry, in two parallel
rounds: the file list and the memory folder's history (while the memory files are parsed
here); then the commits since the oldest entry (tree diffs limited to the cited folders), the
churn since each entry, the symbol search and the changes since the last sync. A third, small
call runs only when a cited file was deleted, to tell a move from a deletion. Results are
cached in the data home keyed by ``HEAD`` and the memory and cited files' stamps, so
SessionStart reads them in a millisecond when nothing moved.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import time
from pathlib import Path

from conkeeper.domain.privacy import blank_private, is_private_file
from conkeeper.domain.records import Record
from conkeeper.domain.textio import MemoryFileError, decode_text
from conkeeper.services.upkeep.freshness.citations import (
    COMMAND,
    KEY,
    PATH,
    SYMBOL,
    Citation,
    Entry,
    is_config_path,
    is_prose_path,
    named_as_gone,
    named_to_avoid,
    split_entries,
)
from conkeeper.services.upkeep.freshness.gitrepo import read_head, run_git, run_git_parallel
from conkeeper.services.upkeep.freshness.health import (
    parse_sync,
    read_last_sync,
    sync_args,
)
from conkeeper.services.upkeep.freshness.history import (
    RENAMES_ARGS,
    Commit,
    Event,
    History,
    churn_args,
    churn_stdin,
    events_args,
    history_args,
    parse_churn,
    parse_events,
    parse_history,
    parse_renames,
    pathspec,
)
from conkeeper.services.upkeep.freshness.report import (
    Finding,
    Report,
    load_cached,
    memory_files,
    previously_seen,
    store_cached,
    work_tree_stamps,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Mapping

# (memory file, entry, name, cited files and folders/, detail, evidence commit)
_Misplaced = tuple[str, Entry, str, tuple[str, ...], str, "Commit | None"]

MAX_MEMORY_BYTES = 512 * 1024
MAX_CODE_BYTES = 2 * 1024 * 1024
SUBSTANTIAL_MIN_LINES = 20
SUBSTANTIAL_SHARE = 0.3
MAX_BASES = 64
MAX_GREP_TREES = 16  # commits whose trees one run searches for symbols cited without a file
BASE_PERIODS = (86400, 7 * 86400, 30 * 86400, 91 * 86400, 365 * 86400, 10 * 365 * 86400)
REASONS = ("deleted", "renamed", "missing", "symbol-gone", "command-gone", "changed")


# --------------------------------------------------------------------------- memory side


def _entries(path: Path, text: str | None) -> list[Entry]:
    if text is None or is_private_file(text):
        return []
    return split_entries(blank_private(text))


# --------------------------------------------------------------------------- code side


class _Tree(Record):
    """The work tree as git knows it: tracked files, and suffix lookups for short paths."""

    __slots__ = ("by_name", "dirs", "files", "prefix", "resolved", "root")

    def __init__(self, root: Path, files: list[str] | None) -> None:
        self.root = root
        self.prefix = str(root) + os.sep
        self.files: set[str] = set(files or ())
        self.dirs: set[str] = set()
        self.by_name: dict[str, list[str]] = {}
        self.resolved: dict[str, str | None] = {}
        dirs, by_name = self.dirs, self.by_name
        for name in self.files:
            slash = name.rfind("/")
            by_name.setdefault(name[slash + 1 :], []).append(name)
            folder = name[:slash] if slash > 0 else ""
            while folder and folder not in dirs:  # each folder once, deepest first
                dirs.add(folder)
                slash = folder.rfind("/")
                by_name.setdefault(folder[slash + 1 :], []).append(folder)
                folder = folder[:slash] if slash > 0 else ""

    def resolve(self, path: str) -> str | None:
        """The project-relative file or folder ``path`` names now (a short path may name a
        file deeper in the tree: ``auth/token.py``), or ``None``."""
        if path not in self.resolved:
            self.resolved[path] = self._resolve(path.rstrip("/"))
        return self.resolved[path]

    def _resolve(self, clean: str) -> str | None:
        if clean in self.files or clean in self.dirs or os.path.exists(self.prefix + clean):
            return clean
        suffix = "/" + clean
        for name in self.by_name.get(clean.rsplit("/", 1)[-1], ()):
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
        if not path.is_file():  # a folder, or a FIFO that would block the read forever
            return ""
        with open(path, "rb") as handle:
            return handle.read(MAX_CODE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def has_word(text: str, word: str) -> bool:
    """True when ``word`` occurs in ``text`` as a whole identifier (not inside a longer one)."""
    start = text.find(word)
    size = len(word)
    while start >= 0:
        before = text[start - 1] if start else " "
        after = text[start + size : start + size + 1] or " "
        if not (before.isalnum() or before in "_$") and not (after.isalnum() or after in "_$"):
            return True
        start = text.find(word, start + 1)
    return False


# the files that define what a cited command runs: make targets, package scripts, tox envs
COMMAND_FILES = {
    "make": ("Makefile",),
    "npm": ("package.json",),
    "tox": ("tox.ini", "tox.toml", "pyproject.toml", "setup.cfg"),
}
# what a file holds when it configures tox (a `pyproject.toml` or `setup.cfg` may not)
_TOX_CONFIG = {"tox.ini": "", "tox.toml": "", "pyproject.toml": "tool.tox", "setup.cfg": "[tox:"}
# the environments tox makes up without a definition: `py`, `py312`, `py3.12`, `pypy3`
_TOX_OWN = re.compile(r"py|py\d(?:\.?\d{1,2})?|pypy\d?(?:\.?\d{1,2})?")

_MAKE_RULE = re.compile(r"^([^:#=\n]+)::?(?!=)", re.MULTILINE)


def make_targets(makefile: str) -> set[str]:
    """The targets a Makefile's rule lines define (``a b: deps`` defines ``a`` and ``b``;
    ``X := 1`` is an assignment, not a rule)."""
    return {word for match in _MAKE_RULE.finditer(makefile) for word in match.group(1).split()}


def npm_scripts(package_json: str) -> Container[str] | None:
    """The script names of a ``package.json`` (``None`` when it cannot be read as JSON: then
    nothing is judged)."""
    try:
        scripts = json.loads(package_json).get("scripts") or {}
    except (ValueError, AttributeError):
        return None
    return scripts if isinstance(scripts, dict) else None


def _date(commit: Commit) -> str:
    """The local day of a finding's commit (worked out for each one: a cache per UTC hour gave
    a commit at 23:50 in a half-hour zone, UTC+5:30, the date of one at 00:10)."""
    return time.strftime("%Y-%m-%d", time.localtime(commit.time))


def _newest_per_period(dating: list[tuple[int, str]], cap: int) -> list[tuple[int, str]]:
    """``dating`` (sorted ``(time, commit)``) when it holds at most ``cap``; else the newest
    commit of each period of a fixed calendar grid (a day, a week, a month... the finest that
    fits): which commit stands for a period depends only on that period's own commits."""
    if len(dating) <= cap:
        return dating
    for width in BASE_PERIODS:
        newest: dict[int, tuple[int, str]] = {}
        for when, commit in dating:
            newest[when // width] = (when, commit)  # sorted: the last one is the newest
        if len(newest) <= cap or width == BASE_PERIODS[-1]:
            return sorted(newest.values())
    return dating


def _matches_by_tree(output: str | None) -> dict[tuple[str, str], set[str]]:
    """``git grep -o`` over commits (``<commit>:<path>:<match>`` lines) as ``(commit, match)
    -> paths``."""
    found: dict[tuple[str, str], set[str]] = {}
    for line in (output or "").splitlines():
        commit, _, rest = line.partition(":")
        path, _, match = rest.rpartition(":")
        if path:
            found.setdefault((commit, match), set()).add(path)
    return found


def _redact_summaries(findings: list[Finding]) -> None:
    """Redact secrets from what is stored and shown (one pass over all summaries)."""
    if not findings:
        return
    from conkeeper.domain.secrets import redact

    joined = "\n".join(f.summary for f in findings)
    cleaned = redact(joined).split("\n")
    if len(cleaned) != len(findings):  # a redaction spanning lines: fall back to one by one
        cleaned = [redact(f.summary) for f in findings]
    for finding, text in zip(findings, cleaned, strict=True):
        finding.summary = text


# --------------------------------------------------------------------------- the checker


class _Checker:
    """One run over a project: collects entries, asks git, produces findings."""

    def __init__(self, root: Path, memory_dir: Path, seen: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.memory_dir = memory_dir
        self.seen_before = seen  # cited paths an earlier check saw in the work tree
        self.present: set[str] = set()  # ... and those this one sees
        self.memory_prefix = _relative(memory_dir, root) + "/"
        self.report = Report()
        self.history: History | None = None
        self.events: dict[str, list[Event]] = {}
        self.by_base: dict[str, list[str]] | None = None
        self.on_disk: dict[str, list[str]] | None = None  # files by name, walked outside git
        self.deletions: dict[str, tuple[Event | None, str]] = {}
        self.staged: dict[str, str] | None = None  # renames in the index, not yet committed
        self.tree = _Tree(root, None)
        self.code: dict[str, str] = {}
        self.grep: dict[str, set[str]] = {}
        self.grepped: set[str] = set()
        self.parsed: dict[str, Container[str] | None] = {}  # Makefile targets, npm scripts
        self.churn: dict[str, dict[str, int]] = {}
        self.bases: list[tuple[int, str]] = []
        self.dated: dict[tuple[str, int], tuple[float, str]] = {}
        self.memory_mtime: dict[str, float] = {}
        # symbols cited without a file, each with the class cited as holding it ("" for none)
        self.unanchored: list[tuple[str, Entry, str, str]] = []
        # symbols missing from the files cited with them but in other code now: stale only if
        # a cited file held them when the entry was written (asked with the ones above)
        self.misplaced: list[_Misplaced] = []
        self.looked_at: set[str] = set()  # work-tree paths the answer depends on (the cache)

    def run(self, files: Iterable[Path]) -> Report:
        started = time.perf_counter()
        paths = list(files)
        entries: list[tuple[str, Entry]] = []

        def read_memory() -> None:
            for path in paths:
                rel = _relative(path, self.root)
                self.memory_mtime[rel], text = _read_memory(path)
                entries.extend((rel, entry) for entry in _entries(path, text))

        if paths:
            self._ask_git(entries, read_memory)
            for rel, entry in entries:
                self._check_entry(rel, entry)
            if self.unanchored or self.misplaced:
                self._confirm_unanchored()
            _redact_summaries(self.report.findings)
        self.report.watched = work_tree_stamps(self.root, self.looked_at)
        self.report.seen = sorted(self.present)
        self.report.entries = len(entries)
        self.report.citations = sum(len(e.citations) for _, e in entries)
        self.report.elapsed_ms = (time.perf_counter() - started) * 1000
        return self.report

    # -- git questions (a constant number of calls) ----------------------------------------

    def _ask_git(self, entries: list[tuple[str, Entry]], read_memory: Callable[[], None]) -> None:
        """Two rounds of git calls, each round's calls run in parallel (a third, small one
        only when a cited file was deleted): the file list and the memory folder's history,
        while the memory files are read and parsed here; then the commits since the oldest
        entry, the churn since each entry's commit, the symbol search and the changes since
        the last sync."""
        calls: list[tuple[list[str], str | None]] = [
            (["ls-files", "-z", "--cached", "--others", "--exclude-standard"], None),
            (history_args(self.memory_prefix), None),
        ]
        self.report.git_calls += len(calls)
        outputs = run_git_parallel(self.root, calls, timeout=20.0, during=read_memory)
        if outputs[0] is None:
            return
        self.report.git = True
        self.tree = _Tree(self.root, [n for n in outputs[0].split("\0") if n])
        self.history = parse_history(outputs[1], self.memory_prefix)
        for rel, entry in entries:
            self.dated[(rel, entry.start)] = self._date_entry(rel, entry)
        last_sync = read_last_sync(self.memory_dir)
        self.report.last_sync = last_sync.time if last_sync else None
        oldest = min(
            [when for when, _ in self.dated.values()] + self._memory_changed_times(),
            default=time.time(),
        )
        head = read_head(self.root)
        self.bases = self._pick_bases(head)
        spec = pathspec(self._history_paths(entries), self.tree.dirs)
        calls = [(events_args(int(oldest) - 1, spec), None)]
        churn = bool(head and self.bases and spec != [])
        if churn:
            calls.append((churn_args(spec), churn_stdin(head or "", [c for _, c in self.bases])))
        grep_args = self._grep_args(entries)
        if grep_args:
            calls.append((grep_args, None))
        if last_sync:
            calls.append((sync_args(last_sync), None))
        self.report.git_calls += len(calls)
        outputs = run_git_parallel(self.root, calls, timeout=20.0)
        times: list[int] = []
        self.events = parse_events(outputs[0], times, self._event_filter(entries)) or {}
        if churn:
            self.churn = parse_churn(outputs[1], head or "", [c for _, c in self.bases])
        if grep_args:
            self._parse_grep(outputs[1 + churn], grep_args[grep_args.index("-e") + 1 :: 2])
        if last_sync:
            self.report.sync = parse_sync(outputs[-1], self.memory_prefix)
        self._health(times, last_sync.time if last_sync else 0.0)
        self._find_moves(entries)

    def _history_paths(self, entries: list[tuple[str, Entry]]) -> set[str]:
        """The paths whose history the checks read: each cited file or folder as it is now,
        a missing one as cited and, for a short one (``auth/token.py``), the folders of
        that name the project has; the files cited commands are defined in."""
        paths: set[str] = set()
        for _, entry in entries:
            for citation in entry.citations:
                if citation.kind == COMMAND and citation.tool in COMMAND_FILES:
                    paths.update(COMMAND_FILES[citation.tool])
                if citation.kind != PATH:
                    continue
                found = self.tree.resolve(citation.value)
                if found is not None:
                    paths.add(found)
                    continue
                clean = citation.value.rstrip("/")
                paths.add(clean)
                if "/" in clean:
                    folder = clean.rsplit("/", 1)[0]
                    suffix = "/" + folder
                    for name in self.tree.by_name.get(folder.rsplit("/", 1)[-1], ()):
                        if name.endswith(suffix) and name in self.tree.dirs:
                            paths.add(name + "/")
        return paths

    def _event_filter(self, entries: list[tuple[str, Entry]]) -> Callable[[str], bool]:
        """Which paths of the commit log the checks can ask about: those named like a cited
        file (a short citation matches by its end) or under a cited folder; the folders the
        log was limited to hold many more."""
        names: set[str] = {"Makefile", "package.json"}
        folders: list[str] = []
        for _, entry in entries:
            for citation in entry.citations:
                if citation.kind != PATH:
                    continue
                found = self.tree.resolve(citation.value)
                clean = (found or citation.value).rstrip("/")
                base = clean.rsplit("/", 1)[-1]
                if found in self.tree.dirs or (found is None and "." not in base):
                    folders.append("/" + clean + "/")
                else:
                    names.add(base)

        def keep(path: str) -> bool:
            if path[path.rfind("/") + 1 :] in names:
                return True
            return bool(folders) and any(folder in "/" + path for folder in folders)

        return keep

    def _find_moves(self, entries: list[tuple[str, Entry]]) -> None:
        """Tell moves from deletions: the log's rename detection sees only the folders it was
        limited to, so each commit that deleted a cited file is compared with its parent
        once more, whole (one call for all of them; none when nothing cited was deleted)."""
        deleting: dict[str, list[tuple[str, Event]]] = {}
        for _, entry in entries:
            for citation in entry.citations:
                if citation.kind != PATH or self.tree.resolve(citation.value) is not None:
                    continue
                event, name = self._deletion(citation.value)
                if event is not None and event.status == "D":
                    deleting.setdefault(event.commit.hash, []).append((name, event))
        if not deleting:
            return
        self.report.git_calls += 1
        output = run_git(self.root, RENAMES_ARGS, stdin="".join(f"{c}\n" for c in deleting))
        renames = parse_renames(output)
        for commit, moved in deleting.items():
            for name, event in moved:
                new = renames.get((commit, name))
                if new:
                    event.status, event.new_path = "R", new

    def _memory_changed_times(self) -> list[float]:
        """When each tracked memory file last changed in git."""
        if self.history is None:
            return []
        return [
            float(self.history.changes[rel][0].commit.time)
            for rel in self.memory_mtime
            if self.history.changes.get(rel)
        ]

    def _health(self, times: list[int], synced: float) -> None:
        """Commits since each tracked memory file last changed (or was last synced)."""
        if self.history is None:
            return
        times.sort()
        for rel in self.memory_mtime:
            changes = self.history.changes.get(rel)
            if not changes:
                continue
            since = max(changes[0].commit.time, synced)
            newer = len(times) - bisect.bisect_right(times, since)
            self.report.health[rel[len(self.memory_prefix) :]] = newer

    def _pick_bases(self, head: str | None) -> list[tuple[int, str]]:
        """The commits churn is measured from: each entry's own dating commit while there are
        at most :data:`MAX_BASES`; beyond that, the newest dating commit of each period of a
        fixed calendar grid (a day, a week, a month... the finest that fits). An entry uses
        the oldest base not older than itself, so churn is never over-counted, and its base
        depends only on the entries of its own period: writing or editing an unrelated entry
        today leaves the bases, and so the reasons, of older entries as they were."""
        dating = sorted({(int(t), c) for t, c in self.dated.values() if c and c != head})
        return _newest_per_period(dating, MAX_BASES)

    def _grep_args(self, entries: list[tuple[str, Entry]]) -> list[str]:
        symbols = sorted(
            {
                c.value
                for _, entry in entries
                for c in entry.citations
                if c.kind in (SYMBOL, KEY) and len(c.value) >= 3
            }
        )
        if not symbols:
            return []
        args = ["grep", "-I", "-F", "-w", "-o", "--untracked"]
        for symbol in symbols:
            args += ["-e", symbol]
        return [*args, "--", ".", f":(exclude){self.memory_prefix.rstrip('/')}"]

    def _parse_grep(self, output: str | None, symbols: list[str]) -> None:
        """Where each symbol occurs; ``grepped`` holds the symbols the search answered for
        (a failed search leaves it empty, and the files are read instead)."""
        if output is None:
            return
        self.grepped.update(symbols)
        for line in output.splitlines():
            name, _, match = line.rpartition(":")
            if name:
                self.grep.setdefault(match, set()).add(name)

    # -- per entry ----------------------------------------------------------------------

    def _date_entry(self, rel: str, entry: Entry) -> tuple[float, str]:
        """When the entry's lines were last written and by which commit: the newest commit
        that added one of them; now when one is uncommitted; the file's mtime without
        history."""
        history = self.history
        if history is None or rel not in history.added_lines:
            return self.memory_mtime.get(rel, time.time()), ""
        newest: Commit | None = None
        for line in entry.lines:
            if not line.strip():
                continue
            commit = history.line_commit(rel, line)
            if commit is None:
                return time.time(), ""
            if newest is None or commit.time > newest.time:
                newest = commit
        return (float(newest.time), newest.hash) if newest else (time.time(), "")

    def _add(
        self,
        rel: str,
        entry: Entry,
        citation: str,
        reason: str,
        detail: str,
        commit: Commit | None = None,
    ) -> None:
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
        since = self.dated.get((rel, entry.start), (self.memory_mtime.get(rel, 0.0), ""))
        text = "\n".join(entry.lines)
        for citation in entry.citations:
            if citation.kind != PATH or named_as_gone(text, citation):
                continue
            self.looked_at.add(citation.value)
            found = self.tree.resolve(citation.value) if self.report.git else None
            if found is None and not self.report.git:
                found = citation.value if (self.root / citation.value).exists() else None
            if found is not None or citation.value in self.seen_before:
                self.present.add(citation.value)
            if found is None:
                flagged = flagged or self._missing(rel, entry, citation.value)
            else:
                cited_files.append(found)
        for citation in entry.citations:  # one finding per entry is enough to review it
            if flagged:
                return
            if citation.kind in (SYMBOL, KEY):
                if named_to_avoid(text, citation):
                    continue  # "never call `x`": x being gone is the rule kept
                flagged = self._symbol(rel, entry, citation, cited_files)
            elif citation.kind == COMMAND:
                flagged = self._command(rel, entry, citation.value, citation.tool)
        if not flagged:
            for path in cited_files:
                if self._changed(rel, entry, path, since):
                    break

    def _missing(self, rel: str, entry: Entry, path: str) -> bool:
        event, old = self._deletion(path)
        if event is not None:
            if event.status == "R":
                new = self._follow(event.new_path)
                if (self.root / new).exists():
                    gone = self._names_not_in(entry, new)
                else:
                    gone = ", which is gone too"
                self._add(rel, entry, path, "renamed", f"renamed to {new}{gone}", event.commit)
            else:
                self._add(rel, entry, path, "deleted", f"deleted: {old}", event.commit)
            return True
        moved = self._staged_move(path) if self.report.git else None
        if moved is not None:
            gone = self._names_not_in(entry, moved)
            self._add(rel, entry, path, "renamed", f"renamed to {moved} (staged){gone}")
            return True
        if self.tree.plausible(path) or path in self.seen_before:
            where = "the work tree or its recent history" if self.report.git else "the work tree"
            self._add(rel, entry, path, "missing", f"not in {where}{self._elsewhere(path)}")
            return True
        return False

    def _elsewhere(self, path: str) -> str:
        """Outside git (no history tells a move), the files of the cited file's name elsewhere
        in the project ("; a file of that name is at lib/cart.py"): a file moved is told from
        one deleted by the reader, who sees where to look. Empty in git, or when none is."""
        if self.report.git:
            return ""
        if self.on_disk is None:
            self.on_disk = _files_by_name(self.root)
        name = path.rstrip("/").rsplit("/", 1)[-1]
        found = sorted(self.on_disk.get(name, ()))
        if not found:
            return ""
        self.looked_at.update(found)
        more = f" and {len(found) - MAX_ELSEWHERE} more" if len(found) > MAX_ELSEWHERE else ""
        shown = ", ".join(found[:MAX_ELSEWHERE]) + more
        return f"; a file of that name is at {shown}"

    def _staged_move(self, path: str) -> str | None:
        """Where a ``git mv`` not yet committed moved the cited file (one ``git diff
        --cached`` call, asked only when a cited file is gone and no commit moved it): it is
        renamed, not missing."""
        if self.staged is None:
            self.report.git_calls += 1
            args = ["diff", "--cached", "-M", "--name-status", "-z", "--no-ext-diff"]
            self.staged = parse_staged_renames(run_git(self.root, args))
        clean = path.rstrip("/")
        new = self.staged.get(clean)
        if new is None:  # a short path (``cart.py``, ``shop/cart.py``)
            found = [n for old, n in self.staged.items() if old.endswith("/" + clean)]
            new = found[0] if len(found) == 1 else None
        return new if new is not None and (self.root / new).exists() else None

    def _names_not_in(self, entry: Entry, new: str) -> str:
        """What a renamed file lost of the names ``entry`` cites (", and `apply_coupon` is
        not in it"): none of the entry's other cited files holds them either. Told with the
        rename, or a reader moves the path and keeps a name the code no longer has."""
        text = "\n".join(entry.lines)
        files = [new]
        for citation in entry.citations:
            found = self.tree.resolve(citation.value) if citation.kind == PATH else None
            if found is not None and found not in files:
                files.append(found)
        gone = [
            citation.value
            for citation in entry.citations
            if citation.kind == SYMBOL
            and not named_to_avoid(text, citation)
            and not any(
                self._has_symbol(f, citation.value, self.grep.get(citation.value, set()))
                for f in files
            )
        ]
        if not gone:
            return ""
        names = ", ".join(f"`{name}`" for name in dict.fromkeys(gone))
        return f", and {names} {'is' if len(gone) == 1 else 'are'} not in it"

    def _follow(self, path: str) -> str:
        """Where a renamed file lives now, following later renames (a few hops at most)."""
        for _ in range(8):
            events = self.events.get(path) or []
            if not events or events[0].status != "R":
                return path
            path = events[0].new_path
        return path

    def _deletion(self, path: str) -> tuple[Event | None, str]:
        """The newest deletion or rename of the cited file (or of a file under a cited
        folder) among the commits since the oldest entry."""
        if path not in self.deletions:
            self.deletions[path] = self._find_deletion(path)
        return self.deletions[path]

    def _find_deletion(self, path: str) -> tuple[Event | None, str]:
        clean = path.rstrip("/")
        best: tuple[Event | None, str] = (None, path)
        candidates = [clean] if clean in self.events else []
        if not candidates:  # a short path (``auth/token.py``) or a folder
            suffix, inner = "/" + clean, clean + "/"
            candidates = [
                name
                for name in self._event_names(clean.rsplit("/", 1)[-1])
                if name.endswith(suffix)
            ] or [name for name in self.events if name.startswith(inner) or f"/{inner}" in name]
        for name in candidates:
            # the newest deletion or rename, not the newest change: a maintenance branch that
            # still changed the file and was merged back (the deletion kept) comes later
            latest = next((e for e in self.events[name] if e.status in ("D", "R")), None)
            if latest is None:
                continue
            if best[0] is None or latest.commit.time > best[0].commit.time:
                best = (latest, name)
        return best

    def _event_names(self, base: str) -> list[str]:
        """The paths in the commit log whose last part is ``base`` (indexed on first use)."""
        if self.by_base is None:
            self.by_base = {}
            for name in self.events:
                self.by_base.setdefault(name.rsplit("/", 1)[-1], []).append(name)
        return self.by_base.get(base, [])

    def _symbol(self, rel: str, entry: Entry, citation: Citation, files: list[str]) -> bool:
        """Whether a cited symbol (or config key) is gone; adds the finding when it is.

        Only code holds a name: a changelog or a documentation page (:func:`is_prose_path`)
        that still mentions it neither keeps it alive nor is where it went.

        With cited code files or folders it is looked for there; without, a symbol is looked
        for in all tracked code (a key alone is too ambiguous to judge). A member cited with
        its class (`CartService.applyCoupon`) counts where that class is named too: another
        class's method of the same name neither keeps the entry fresh nor is where it went.
        """
        name, kind, owner = citation.value, citation.kind, citation.owner
        folders, files = self._cited_code(files)
        if kind == KEY:
            # An UPPER_CASE name is looked up in a cited config file; otherwise it is a
            # constant (`MAX_ITEMS`) or an environment variable, stale only when it was in
            # the code when the entry was written and is nowhere now (asked below).
            files = [f for f in files if is_config_path(f)]
            folders = []
        if files or folders:
            return self._gone_from_cited(rel, entry, name, files, folders, owner)
        if not self.report.git or self._held_by(name, owner):
            return False
        self.unanchored.append((rel, entry, name, owner))  # gone only if it was: asked below
        return False

    def _held_by(self, name: str, owner: str) -> list[str]:
        """The files the search found ``name`` in, those naming ``owner`` too when it has one
        (a method is where its class is: `fun Cart.applyCoupon`, `void Cart::apply()`)."""
        where = sorted(p for p in self.grep.get(name, ()) if not is_prose_path(p))
        if not owner:
            return where
        holders = self.grep.get(owner, set())
        return [path for path in where if self._has_symbol(path, owner, holders)]

    def _confirm_unanchored(self) -> None:
        """Report the symbols cited without a file that are nowhere in the code now but were
        when their entry was written (one ``git grep`` over those commits' trees).

        A name that never was in the code is a convention for code to come ("use
        `json_normalize` to flatten payloads") or about a library, not a sign the entry went
        stale; only a name that was there and is gone now is."""
        trees = self._trees_when_written()
        misplaced = [item for item in self.misplaced if trees.get((item[0], item[1].start))]
        wanted: dict[tuple[str, int], list[tuple[str, str]]] = {}
        owners: dict[tuple[str, int, str], str] = {}
        for rel, entry, name, owner in self.unanchored:
            commit = trees.get((rel, entry.start), "")
            if commit:
                wanted.setdefault((rel, entry.start), []).append((name, commit))
                owners[(rel, entry.start, name)] = owner
        names = sorted(
            {n for pairs in wanted.values() for n, _ in pairs}
            | set(owners.values())
            | {item[2] for item in misplaced}
        )
        names = [n for n in names if n]
        commits = sorted(
            {c for pairs in wanted.values() for _, c in pairs}
            | {trees[(item[0], item[1].start)] for item in misplaced}
        )
        if not names:
            return
        args = ["grep", "-I", "-F", "-w", "-o"]
        for name in names:
            args += ["-e", name]
        args += [*commits, "--", ".", f":(exclude){self.memory_prefix.rstrip('/')}"]
        self.report.git_calls += 1
        output = run_git(self.root, args, timeout=20.0)
        was_in = _matches_by_tree(output)
        self._confirm_misplaced(misplaced, trees, was_in)
        flagged = {(f.file, f.line) for f in self.report.findings}
        gone: list[tuple[str, Entry, str, str, set[str]]] = []
        for rel, entry, _, _ in self.unanchored:
            key = (rel, entry.start)
            if key in flagged:
                continue
            for name, commit in wanted.get(key, ()):
                owner = owners.get((rel, entry.start, name), "")
                paths = {p for p in was_in.get((commit, name), ()) if not is_prose_path(p)}
                if owner:
                    paths = paths & was_in.get((commit, owner), set())
                if paths and not self._still_on_disk(name, paths, owner):
                    gone.append((rel, entry, name, owner, paths))
                    flagged.add(key)
                    break
        ignored = self._ignored_holders(gone)
        for rel, entry, name, owner, paths in gone:
            if not any(name in held and (not owner or owner in held) for held in ignored):
                shown = _holders_shown(paths, entry)
                self._add(rel, entry, name, "symbol-gone", _gone_detail(shown, owner))
        self.report.findings.sort(key=lambda f: (f.file, f.line))

    def _ignored_holders(self, gone: list[tuple[str, Entry, str, str, set[str]]]) -> list[set[str]]:
        """For the names about to be called gone, the names each file git ignores holds now,
        searched in the top folders that held them (one ``git grep`` over ignored files): a
        client generated into ``src/gen/`` (in ``.gitignore``) still defines `fetchOrders`;
        it is not "nowhere in the code"."""
        if not gone:
            return []
        names = sorted({n for _, _, name, owner, _ in gone for n in (name, owner) if n})
        tops = sorted({p.split("/", 1)[0] if "/" in p else "." for *_, ps in gone for p in ps})
        args = ["grep", "--untracked", "--no-exclude-standard", "-I", "-F", "-w", "-l"]
        for name in names:
            args += ["-e", name]
        args += ["--", *tops, f":(exclude){self.memory_prefix.rstrip('/')}"]
        self.report.git_calls += 1
        found = (run_git(self.root, args, timeout=20.0) or "").splitlines()
        untracked = [path for path in found if path not in self.tree.files]
        return [{n for n in names if has_word(self._code(path), n)} for path in untracked]

    def _confirm_misplaced(
        self,
        misplaced: list[_Misplaced],
        trees: Mapping[tuple[str, int], str],
        was_in: Mapping[tuple[str, str], set[str]],
    ) -> None:
        """Report the names gone from the files cited with them that one of those files held
        when the entry was written (a name the entry set beside a file it never lived in, "the
        `_mod` fixture; `soft_str` is re-exported by `__init__.py`", is no sign of change).
        Such a finding outranks the entry's "changed" one, as it did when judged in line."""
        strong = {(f.file, f.line) for f in self.report.findings if f.reason != "changed"}
        for rel, entry, name, cited, detail, commit in misplaced:
            key = (rel, entry.start)
            held = was_in.get((trees[key], name), set())
            if key in strong or not any(_within(path, cited) for path in held):
                continue
            self.report.findings = [f for f in self.report.findings if (f.file, f.line) != key]
            self._add(rel, entry, name, "symbol-gone", detail, commit)
            strong.add(key)

    def _still_on_disk(self, name: str, paths: set[str], owner: str = "") -> bool:
        """Whether a file that held ``name`` (and ``owner``) when its entry was written still
        holds it in the work tree though git no longer searches it (a vendored or generated
        folder moved into ``.gitignore``): the name is still defined, only out of git's view."""
        return any(
            p not in self.tree.files
            and has_word(self._code(p), name)
            and (not owner or has_word(self._code(p), owner))
            for p in paths
        )

    def _trees_when_written(self) -> dict[tuple[str, int], str]:
        """For each entry citing a symbol without a file (or beside files that lack it), the
        commit whose tree shows the code as it was when the entry was written: its own dating
        commit, or with more of those than :data:`MAX_GREP_TREES` the newest one of its period
        of a fixed calendar grid (as for churn, so an unrelated entry written today never
        changes an older entry's finding); none for an entry not committed yet."""
        entries = [(rel, entry) for rel, entry, _, _ in self.unanchored]
        entries += [(item[0], item[1]) for item in self.misplaced]
        dating = {
            (rel, entry.start): self.dated.get((rel, entry.start), (0.0, ""))
            for rel, entry in entries
        }
        commits = sorted({(int(when), commit) for when, commit in dating.values() if commit})
        commits = _newest_per_period(commits, MAX_GREP_TREES)
        trees: dict[tuple[str, int], str] = {}
        for key, (when, commit) in dating.items():
            if commit:
                later = [c for t, c in commits if c == commit or t >= int(when)]
                trees[key] = later[0] if later else ""
        return trees

    def _cited_code(self, cited: list[str]) -> tuple[list[str], list[str]]:
        """``(folders, files)`` among the paths an entry cites, leaving out the memory files
        themselves (a symbol is looked for in code, not in the notes that mention it)."""
        memory = self.memory_prefix.rstrip("/")
        code = [f for f in cited if f != memory and not f.startswith(self.memory_prefix)]
        folders = [
            f
            for f in code
            if f in self.tree.dirs
            or (f not in self.tree.files and os.path.isdir(self.tree.prefix + f))
        ]
        return folders, [f for f in code if f not in folders]

    def _gone_from_cited(
        self,
        rel: str,
        entry: Entry,
        name: str,
        files: list[str],
        folders: list[str],
        owner: str = "",
    ) -> bool:
        """Whether ``name`` is in none of the cited files and under none of the cited
        folders; the finding says where it lives now, when it still exists elsewhere (with
        its class, when the entry cites one)."""
        where_now = self.grep.get(name, set())
        if folders and any(w.startswith(d + "/") for d in folders for w in where_now):
            return False  # still somewhere under a cited folder
        if any(self._has_symbol(path, name, where_now) for path in files):
            return False
        shown_paths = files or folders
        where = self._held_by(name, owner)
        elsewhere = f"; now in {where[0]}" if where else ""
        commit = self._latest(shown_paths, self._since(rel, entry))
        detail = f"no longer in {', '.join(shown_paths[:2])}{elsewhere}"
        if where and self.report.git and self.dated.get((rel, entry.start), (0.0, ""))[1]:
            cited = (*files, *(d.rstrip("/") + "/" for d in folders))
            self.misplaced.append((rel, entry, name, cited, detail, commit))
            return False  # "the `_mod` fixture ... `__init__.py`": never in the cited file
        self._add(rel, entry, name, "symbol-gone", detail, commit)
        return True

    def _has_symbol(self, path: str, name: str, where_now: set[str]) -> bool:
        """Whether ``name`` occurs in the file ``path``: the search's answer for the files it
        searched, else the file read (an ignored file, a symbol not searched for, a search
        that failed)."""
        if path in where_now:
            return True
        if name in self.grepped and path in self.tree.files:
            return False
        return has_word(self._code(path), name)

    def _command(self, rel: str, entry: Entry, value: str, tool: str) -> bool:
        if tool == "make":
            if "Makefile" not in self.tree.files and not self._code("Makefile"):
                return False
            if "Makefile" not in self.parsed:
                self.parsed["Makefile"] = make_targets(self._code("Makefile"))
            if value in (self.parsed["Makefile"] or ()):
                return False
            commit = self._latest(["Makefile"], self._since(rel, entry))
            self._add(
                rel, entry, f"make {value}", "command-gone", "no such target in Makefile", commit
            )
            return True
        if tool == "npm":
            if "package.json" not in self.tree.files and not self._code("package.json"):
                return False
            if "package.json" not in self.parsed:
                self.parsed["package.json"] = npm_scripts(self._code("package.json"))
            scripts = self.parsed["package.json"]
            if scripts is None or value in scripts:
                return False
            commit = self._latest(["package.json"], self._since(rel, entry))
            detail = "no such script in package.json"
            self._add(rel, entry, f"npm run {value}", "command-gone", detail, commit)
            return True
        if tool == "python -m":
            return self._module(rel, entry, value)
        if tool == "tox":
            return self._tox_env(rel, entry, value)
        return False

    def _tox_env(self, rel: str, entry: Entry, name: str) -> bool:
        """Whether the tox environment ``name`` is gone from the project's tox configuration
        (adds the finding): each of its factors (``py312-django``) must be named there or be
        one tox makes up itself (``py312``, ``pypy3``). Without a configuration nothing is
        judged."""
        texts = {f: self._code(f) for f in COMMAND_FILES["tox"]}
        found = [f for f, text in texts.items() if text and _TOX_CONFIG[f] in text]
        if not found:
            return False
        config = "\n".join(texts[f] for f in found)
        factors = [f for f in name.split("-") if not _TOX_OWN.fullmatch(f)]
        if all(has_word(config, factor) for factor in factors):
            return False
        commit = self._latest(found, self._since(rel, entry))
        detail = f"no such environment in {' or '.join(found)}"
        self._add(rel, entry, f"tox -e {name}", "command-gone", detail, commit)
        return True

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
            detail = f"module {module} not found under {base or './'}"
            self._add(rel, entry, f"python -m {module}", "command-gone", detail)
            return True
        return False

    def _latest(self, paths: list[str], since: float | None = None) -> Commit | None:
        """The evidence commit for ``paths``: the first commit after ``since`` (when the entry
        was written) that touched one of them, so later edits of those files, which have
        nothing to do with the finding, do not change it; the newest one when none came
        after (or without ``since``)."""
        best: Commit | None = None
        first: Commit | None = None
        for path in paths:
            events = self.events.get(path) or []
            if events and (best is None or events[0].commit.time > best.time):
                best = events[0].commit
            for event in events:  # newest first
                if since is None or event.commit.time <= since:
                    break
                if first is None or event.commit.time < first.time:
                    first = event.commit
        return first or best

    def _since(self, rel: str, entry: Entry) -> float:
        """When the entry was written (as dated for this run)."""
        return self.dated.get((rel, entry.start), (self.memory_mtime.get(rel, 0.0), ""))[0]

    def _churn(self, path: str, since: tuple[float, str]) -> int | None:
        """Lines of ``path`` changed since the entry, from the oldest base commit that is not
        older than the entry (``None`` when no base applies)."""
        when, commit = since
        for base_time, base in self.bases:
            if base_time >= int(when) or base == commit:
                return self.churn.get(base, {}).get(path, 0)
        return None

    def _changed(self, rel: str, entry: Entry, path: str, since: tuple[float, str]) -> bool:
        after = [e for e in self.events.get(path, ()) if e.commit.time > since[0]]
        if not after:
            return False
        churn = self._churn(path, since)
        if churn is None or churn < SUBSTANTIAL_MIN_LINES:
            return False
        size = self._code(path).count("\n") + 1
        if churn < max(SUBSTANTIAL_MIN_LINES, SUBSTANTIAL_SHARE * size):
            return False
        detail = (
            f"{path} changed in {len(after)} commit(s) since this entry was written ({churn} lines)"
        )
        self._add(rel, entry, path, "changed", detail, after[0].commit)
        return True

    def _code(self, rel: str) -> str:
        self.looked_at.add(rel)
        if rel not in self.code:
            self.code[rel] = _read_code(self.root, rel)
        return self.code[rel]


MAX_ELSEWHERE = 3  # files of a missing file's name named in its finding
MAX_WALKED = 20000  # files looked at outside git, nearest folders first


def _files_by_name(root: Path) -> dict[str, list[str]]:
    """The project's files by name, outside git (no file list to ask): folders walked breadth
    first, hidden ones and symbolic links left out, at most :data:`MAX_WALKED` files."""
    by_name: dict[str, list[str]] = {}
    queue, seen = [root], 0
    while queue and seen < MAX_WALKED:
        folder = queue.pop(0)
        try:
            children = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for child in children:
            if child.name.startswith(".") or child.is_symlink():
                continue
            if child.is_dir():
                queue.append(Path(child.path))
            elif child.is_file():
                seen += 1
                by_name.setdefault(child.name, []).append(_relative(Path(child.path), root))
    return by_name


def _within(path: str, cited: tuple[str, ...]) -> bool:
    """Whether ``path`` is one of the cited files or under one of the cited folders (those
    end with ``/``)."""
    return any(path == c or (c.endswith("/") and path.startswith(c)) for c in cited)


# the languages an entry may name, with their files' extensions ("the Ruby code", "```ruby")
_LANGUAGE_FILES = {
    "python": ("py", "pyi"),
    "ruby": ("rb", "rake"),
    "rails": ("rb", "erb"),
    "java": ("java",),
    "kotlin": ("kt", "kts"),
    "typescript": ("ts", "tsx", "mts", "cts"),
    "javascript": ("js", "jsx", "mjs", "cjs"),
    "node": ("js", "mjs", "cjs", "ts"),
    "rust": ("rs",),
    "golang": ("go",),
    "swift": ("swift",),
    "php": ("php",),
    "scala": ("scala",),
    "elixir": ("ex", "exs"),
    "csharp": ("cs",),
    "c#": ("cs",),
    "c++": ("cc", "cpp", "cxx", "hh", "hpp", "h"),
    "dart": ("dart",),
    "lua": ("lua",),
    "perl": ("pl", "pm"),
}
_LANGUAGE_NAME = re.compile(
    r"(?<![\w#+])(?:" + "|".join(re.escape(n) for n in _LANGUAGE_FILES) + r")(?![\w#+])", re.I
)
_GO = re.compile(r"(?<![\w.])Go(?!\w)|```go\b")  # "Go" capitalised: "go" is a verb
MAX_HOLDERS_SHOWN = 3


def _holders_shown(paths: set[str], entry: Entry) -> str:
    """Which of the files that held a name cited without a file the report names: the one the
    entry points at by its language ("the Ruby code", a ```ruby block) or a folder it names,
    else all of them (the first few and how many more); never the alphabetically first of
    files in other languages, which may be code the entry is not about."""
    text = " ".join([entry.heading, *entry.lines])
    extensions = {e for n in _LANGUAGE_NAME.findall(text) for e in _LANGUAGE_FILES[n.lower()]}
    if _GO.search(text):
        extensions.add("go")
    words = set(re.findall(r"[\w.-]+", text.lower()))

    def hints(path: str) -> int:
        folders = path.lower().split("/")[:-1]
        return 2 * (path.rsplit(".", 1)[-1].lower() in extensions) + sum(
            folder in words for folder in folders if len(folder) > 1
        )

    ranked = sorted(paths, key=lambda p: (-hints(p), p))
    if len(ranked) == 1 or hints(ranked[0]) > hints(ranked[1]):
        return ranked[0]
    chosen = sorted(p for p in ranked if hints(p) == hints(ranked[0]))
    if len(chosen) > MAX_HOLDERS_SHOWN:
        more = len(chosen) - MAX_HOLDERS_SHOWN
        return ", ".join(chosen[:MAX_HOLDERS_SHOWN]) + f" and {more} more"
    return ", ".join(chosen[:-1]) + " and " + chosen[-1]


def _gone_detail(shown: str, owner: str) -> str:
    """Why a symbol cited without a file is gone: where it was, and that no code (no code
    naming its class, for a member cited with one) holds it now."""
    if owner:
        return f"in {shown} with `{owner}` when this entry was written; no file holds both now"
    return f"in {shown} when this entry was written; now nowhere in the code"


def _relative(path: Path, root: Path) -> str:
    text, base = str(path), str(root)
    if text.startswith(base + os.sep):
        return text[len(base) + 1 :].replace(os.sep, "/")
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _read_memory(path: Path) -> tuple[float, str | None]:
    """A memory file's mtime and text (``None`` when it cannot be read or is too large)."""
    try:
        if not path.is_file():  # a FIFO would block the read (and doctor) forever
            return time.time(), None
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if stat.st_size > MAX_MEMORY_BYTES:
                return stat.st_mtime, None
            data = handle.read()
    except OSError:
        return time.time(), None
    try:
        return stat.st_mtime, decode_text(data, path)
    except MemoryFileError:
        return stat.st_mtime, None


def find_stale(root: Path, memory_dir: Path, seen: frozenset[str] = frozenset()) -> Report:
    """Check every curated memory file of the project at ``root`` (no cache). ``seen``: cited
    paths an earlier check saw in the work tree (:func:`report.previously_seen`); one of them
    gone is reported missing wherever it sat (`docker-compose.yml`, a file under a folder
    that went with it, one git never tracked), when git's history does not say more."""
    return _Checker(root, memory_dir, seen).run(memory_files(memory_dir))


# --------------------------------------------------------------------------- cache


def cached_stale(
    root: Path,
    memory_dir: Path,
    identity: str,
    *,
    env: Mapping[str, str] | None = None,
    refresh: bool = True,
    fresh: bool = False,
) -> Report | None:
    """The project's report from the cache when ``HEAD`` and the memory files are unchanged;
    otherwise a fresh run (stored for next time), or ``None`` when ``refresh`` is off.
    ``fresh`` (``stale --no-cache``) checks again whatever the cache holds, still with the
    record of the cited paths earlier checks saw: that record is no cached result (outside
    git it is the only sign a file now gone was there), so both runs report the same."""
    report, current = load_cached(root, memory_dir, identity, env)
    if (report is not None and not fresh) or not refresh:
        return report
    report = find_stale(root, memory_dir, previously_seen(root, identity, env))
    store_cached(report, root, identity, current, env)
    return report


def parse_staged_renames(output: str | None) -> dict[str, str]:
    """``{old: new}`` from ``git diff --cached -M --name-status -z`` (``R100 old new``)."""
    fields = (output or "").split("\0")
    renames: dict[str, str] = {}
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i]
        if status.startswith(("R", "C")) and i + 2 < len(fields):
            if status.startswith("R"):
                renames[fields[i + 1]] = fields[i + 2]
            i += 3
        else:
            i += 2
    return renames
