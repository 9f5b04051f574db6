"""One ``git log -p`` over the memory folder and the files memory cites, parsed once.

Blaming each memory file and logging each cited file would cost one git process per file; on
a project with hundreds of memory files that is seconds. Instead one pathspec-limited
``git log -p -U0`` gives, newest commit first, every change to the memory files and to every
cited file. From it:

* **entry age** — the newest commit that added each line of a memory file (what ``git blame``
  reports for a line still present: a line's current text appears as an added line in the
  commit that last wrote it; a line found in no commit is uncommitted, i.e. edited just now);
* **churn** — lines added and removed in each cited file per commit, with its status
  (added, modified, deleted), and the removed lines, so "``parse_config`` was removed in
  commit X" can be shown as evidence.

Renames are resolved separately (:func:`renames_in`), in one ``git diff-tree --stdin`` over
just the commits that deleted a cited file.
"""

from __future__ import annotations

import re

from conkeeper.domain.records import Record
from conkeeper.services.freshness.gitrepo import run_git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

REMOVED_TEXT_CAP = 256 * 1024
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_COMMIT_MARK = "\x1e"


class Commit(Record):
    """A commit in the log: full hash, commit time (Unix seconds), subject."""

    __slots__ = ("hash", "subject", "time")

    def __init__(self, hash: str, time: int, subject: str) -> None:
        self.hash = hash
        self.time = time
        self.subject = subject

    @property
    def short(self) -> str:
        """The abbreviated hash shown to people."""
        return self.hash[:10]


class Change(Record):
    """One commit's change to one file: status ``A``/``M``/``D``, lines added and removed, and
    the removed lines' text (capped) for symbol evidence."""

    __slots__ = ("added", "commit", "removed", "removed_text", "status")

    def __init__(self, commit: Commit, status: str) -> None:
        self.commit = commit
        self.status = status
        self.added = 0
        self.removed = 0
        self.removed_text: list[str] = []


class History(Record):
    """The parsed log: changes per file (newest first) and, for memory files, the newest
    commit that added each line text."""

    __slots__ = ("added_lines", "changes", "commits")

    def __init__(self) -> None:
        self.commits: list[Commit] = []
        self.changes: dict[str, list[Change]] = {}
        self.added_lines: dict[str, dict[str, Commit]] = {}

    def line_commit(self, path: str, line: str) -> Commit | None:
        """The newest commit that added ``line`` (stripped of trailing space) to ``path``."""
        return self.added_lines.get(path, {}).get(line.rstrip())


def _diff_path(header: str) -> str:
    """The file of a ``diff --git a/X b/X`` line (no renames, so both sides are equal)."""
    rest = header[len("diff --git ") :]
    if rest.startswith('"'):
        rest = rest.replace('"', "")
    half = (len(rest) - 5) // 2
    return rest[2 : 2 + half] if half > 0 else rest


class _Parser:
    """A line-by-line parser of ``git log -p -U0`` with commit header lines marked."""

    def __init__(self, memory_prefix: str, history: History) -> None:
        self.memory_prefix = memory_prefix
        self.history = history
        self.commit: Commit | None = None
        self.change: Change | None = None
        self.path = ""
        self.minus = 0
        self.plus = 0

    def feed(self, line: str) -> None:
        if self.minus or self.plus:
            self._hunk_line(line)
        elif line.startswith(_COMMIT_MARK):
            parts = line[1:].split("\x1f", 2)
            if len(parts) == 3 and parts[1].isdigit():
                self.commit = Commit(parts[0], int(parts[1]), parts[2])
                self.history.commits.append(self.commit)
                self.change = None
        elif line.startswith("diff --git ") and self.commit is not None:
            self.path = _diff_path(line)
            self.change = Change(self.commit, "M")
            self.history.changes.setdefault(self.path, []).append(self.change)
        elif self.change is not None:
            self._file_line(line)

    def _file_line(self, line: str) -> None:
        assert self.change is not None
        if line.startswith("new file mode"):
            self.change.status = "A"
        elif line.startswith("deleted file mode"):
            self.change.status = "D"
        else:
            match = _HUNK.match(line)
            if match:
                self.minus = int(match.group(1)) if match.group(1) is not None else 1
                self.plus = int(match.group(2)) if match.group(2) is not None else 1

    def _hunk_line(self, line: str) -> None:
        change = self.change
        assert change is not None and self.commit is not None
        if line.startswith("-") and self.minus:
            self.minus -= 1
            change.removed += 1
            if not self.path.startswith(self.memory_prefix) and (
                len(change.removed_text) * 80 < REMOVED_TEXT_CAP
            ):
                change.removed_text.append(line[1:])
        elif line.startswith("+") and self.plus:
            self.plus -= 1
            change.added += 1
            if self.path.startswith(self.memory_prefix):
                lines = self.history.added_lines.setdefault(self.path, {})
                lines.setdefault(line[1:].rstrip(), self.commit)
        elif line.startswith("\\"):
            return  # "\ No newline at end of file"
        else:  # counts disagree with the text: stop treating lines as hunk lines
            self.minus = self.plus = 0
            self.feed(line)


def read_history(root: Path, memory_prefix: str, pathspecs: Iterable[str]) -> History | None:
    """The parsed ``git log -p`` of ``pathspecs`` (memory folder first), or ``None`` when git
    cannot tell (not a repository, no commits, git missing)."""
    specs = list(dict.fromkeys(pathspecs))
    args = [
        "log",
        "-p",
        "-U0",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        "--format=" + _COMMIT_MARK + "%H\x1f%ct\x1f%s",
        "--",
        *specs,
    ]
    output = run_git(root, args, timeout=20.0)
    if output is None:
        return None
    history = History()
    parser = _Parser(memory_prefix, history)
    for line in output.split("\n"):
        parser.feed(line)
    return history


def renames_in(root: Path, commits: Iterable[str]) -> dict[tuple[str, str], str]:
    """``{(commit, old path): new path}`` for the renames in ``commits`` (one git call)."""
    wanted = list(dict.fromkeys(commits))
    if not wanted:
        return {}
    output = run_git(
        root,
        ["diff-tree", "--stdin", "-r", "-M", "--name-status", "-z"],
        stdin="\n".join(wanted) + "\n",
    )
    if output is None:
        return {}
    found: dict[tuple[str, str], str] = {}
    tokens = output.split("\0")
    index = 0
    commit = ""
    while index < len(tokens):
        token = tokens[index].strip()
        if len(token) == 40 and all(c in "0123456789abcdef" for c in token):
            commit = token
            index += 1
        elif token[:1] in ("R", "C") and index + 2 < len(tokens):
            if token[0] == "R":
                found[(commit, tokens[index + 1])] = tokens[index + 2]
            index += 3
        elif token:
            index += 2
        else:
            index += 1
    return found


def commits_since(root: Path) -> list[tuple[str, int]] | None:
    """Every commit reachable from ``HEAD`` as ``(hash, time)``, newest first (one call)."""
    output = run_git(root, ["log", "--format=%H %ct"], timeout=10.0)
    if output is None:
        return None
    rows = []
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            rows.append((parts[0], int(parts[1])))
    return rows
