"""Git history for the freshness checks, in a constant number of git calls.

Blaming each memory file and logging each cited file would cost one git process per file; a
pathspec-limited log over hundreds of paths costs seconds on a long history. Instead:

* :func:`history_args` / :func:`parse_history`: one ``git log -p -U0`` over the memory
  folder alone (stopping where the folder did not exist yet) gives, for each memory file,
  the newest commit that added each line text.
  That is what ``git blame`` reports for a line still present (its current text is an added
  line of the commit that last wrote it); a line found in no commit is uncommitted, i.e.
  edited just now.
* :func:`events_args` / :func:`parse_events`: one ``git log --name-status -M`` over the
  commits since the oldest entry gives, per file, the commits that added, modified, deleted
  or renamed it (with the new name). Its tree diffs are limited to a few folders around the
  cited files (:func:`pathspec`), which is what keeps a long history cheap; ``--sparse
  --full-history`` still lists every commit, for the per-file health counts.
* :data:`RENAMES_ARGS` / :func:`parse_renames`: one ``git diff-tree -M --stdin`` over the
  few commits that removed a cited file tells a move out of those folders from a deletion.
* :func:`churn_args` / :func:`parse_churn`: one ``git diff-tree --stdin --numstat`` (same
  folders) comparing a few base commits with ``HEAD`` gives the lines of each file changed
  since.
"""

from __future__ import annotations

import re

from conkeeper.domain.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Sequence

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
    """One commit's change to one memory file: status ``A``/``M``/``D``, lines added and
    removed."""

    __slots__ = ("added", "commit", "removed", "status")

    def __init__(self, commit: Commit, status: str) -> None:
        self.commit = commit
        self.status = status
        self.added = 0
        self.removed = 0


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


def history_args(memory_prefix: str) -> list[str]:
    """The ``git log -p`` arguments for the memory folder (``memory_prefix``, relative)."""
    return [
        "log",
        "-p",
        "-U0",
        "--no-renames",
        "--remove-empty",
        "--no-ext-diff",
        "--no-textconv",
        "--format=" + _COMMIT_MARK + "%H\x1f%ct\x1f%s",
        "--",
        memory_prefix.rstrip("/") or ".",
    ]


def parse_history(output: str | None, memory_prefix: str) -> History | None:
    """The parsed ``git log -p`` of the memory folder, or ``None`` when git could not tell
    (not a repository, no commits, git missing)."""
    if output is None:
        return None
    history = History()
    parser = _Parser(memory_prefix, history)
    for line in output.split("\n"):
        parser.feed(line)
    return history


class Event(Record):
    """A commit's change to one file: status ``A``/``M``/``D``/``R`` and, for a rename, the
    new path."""

    __slots__ = ("commit", "new_path", "status")

    def __init__(self, commit: Commit, status: str, new_path: str = "") -> None:
        self.commit = commit
        self.status = status
        self.new_path = new_path


MAX_PATHSPECS = 16


def pathspec(
    paths: Iterable[str], folders: Container[str], limit: int = MAX_PATHSPECS
) -> list[str] | None:
    """The folders (and top-level files) whose history covers ``paths``: each file's folder,
    each folder itself, then the deepest ones merged into their parents until at most
    ``limit`` remain. Git matches every pathspec against every tree entry it visits, so a
    handful of folders costs a fraction of hundreds of files; the caller filters by name.
    ``[]`` when there is nothing to look at, ``None`` for the whole tree (too many top-level
    folders to name).
    """
    items: set[str] = set()
    for path in paths:
        clean = path.strip("/")
        if not clean or clean == ".":
            continue
        if clean in folders or "/" not in clean:
            items.add(clean)
        else:
            items.add(clean.rsplit("/", 1)[0])
    kept = _outermost(items)
    while len(kept) > limit:
        depth = max(item.count("/") for item in kept)
        if depth == 0:
            return None
        kept = _outermost(
            {item.rsplit("/", 1)[0] if item.count("/") == depth else item for item in kept}
        )
    return sorted(kept)


def _outermost(items: set[str]) -> set[str]:
    """``items`` without those inside another one."""
    kept = set()
    for item in items:
        parts = item.split("/")
        if not any("/".join(parts[:index]) in items for index in range(1, len(parts))):
            kept.add(item)
    return kept


def events_args(since: int, paths: Sequence[str] | None = None) -> list[str]:
    """The ``git log --name-status`` arguments for the commits after Unix time ``since``,
    with tree diffs limited to ``paths`` (every commit is still listed; ``None``: the whole
    tree; empty: no diffs, the commits only)."""
    args = ["--literal-pathspecs", "log", "--format=" + _COMMIT_MARK + "%H\x1f%ct\x1f"]
    if since > 0:
        args.append(f"--since={since}")
    if paths is None:
        return [*args, "-M", "--name-status"]
    if paths:
        args += ["--sparse", "--full-history", "-M", "--name-status", "--", *paths]
    return args


def parse_events(
    output: str | None,
    times: list[int] | None = None,
    keep: Callable[[str], bool] | None = None,
) -> dict[str, list[Event]] | None:
    """``{path: [Event, ...]}`` (newest first) from :func:`events_args` output; renames are
    listed under the old path; the time of every commit seen is appended to ``times``. With
    ``keep``, other paths' additions, changes and deletions are skipped (renames are always
    kept, to follow a file through them). ``None`` when git could not tell."""
    if output is None:
        return None
    events: dict[str, list[Event]] = {}
    header = ""
    commit: Commit | None = None
    for line in output.split("\n"):
        if line.startswith(_COMMIT_MARK):
            header, commit = line, None
            if times is not None:
                stamp = line.split("\x1f", 2)[1:2]
                if stamp and stamp[0].isdigit():
                    times.append(int(stamp[0]))
            continue
        if "\t" not in line or not header:
            continue
        fields = line.split("\t")
        status = fields[0][:1]
        renamed = status == "R" and len(fields) >= 3
        if not renamed and (
            status not in "AMDT" or len(fields) < 2 or (keep is not None and not keep(fields[1]))
        ):
            continue
        if commit is None:  # made once per commit that touches a path asked about
            parts = header[1:].split("\x1f", 2)
            if len(parts) != 3 or not parts[1].isdigit():
                header = ""
                continue
            commit = Commit(parts[0], int(parts[1]), parts[2])
        if renamed:
            events.setdefault(fields[1], []).append(Event(commit, "R", fields[2]))
            events.setdefault(fields[2], []).append(Event(commit, "A"))
        else:
            events.setdefault(fields[1], []).append(Event(commit, "M" if status == "T" else status))
    return events


def churn_args(paths: Sequence[str] | None = None) -> list[str]:
    """The ``git diff-tree --stdin --numstat`` arguments, limited to ``paths`` (``None``: the
    whole tree)."""
    args = ["--literal-pathspecs", "diff-tree", "--stdin", "-r", "--no-renames", "--numstat", "-z"]
    return [*args, "--", *paths] if paths else args


RENAMES_ARGS = ("diff-tree", "--stdin", "-r", "-M", "--diff-filter=R", "--name-status")


def parse_renames(output: str | None) -> dict[tuple[str, str], str]:
    """``{(commit, old path): new path}`` from :data:`RENAMES_ARGS` output (commits on stdin,
    one a line, each compared with its first parent)."""
    renames: dict[tuple[str, str], str] = {}
    commit = ""
    for line in (output or "").split("\n"):
        if "\t" not in line:
            commit = line.strip()
            continue
        fields = line.split("\t")
        if fields[0].startswith("R") and len(fields) >= 3 and commit:
            renames[(commit, fields[1])] = fields[2]
    return renames


def churn_stdin(head: str, bases: list[str]) -> str:
    """The ``git diff-tree --stdin`` input comparing each base with ``head``."""
    return "".join(f"{head} {base}\n" for base in bases)


def parse_churn(output: str | None, head: str, bases: list[str]) -> dict[str, dict[str, int]]:
    """``{base: {path: lines added + removed between base and head}}``."""
    result: dict[str, dict[str, int]] = {base: {} for base in bases}
    if output is None:
        return result
    index = -1
    for token in output.split("\0"):
        token = token.strip("\n")
        if token == head or token.endswith("\n" + head):
            index += 1
            continue
        parts = token.split("\t", 2)
        if index < 0 or index >= len(bases) or len(parts) != 3:
            continue
        added, removed, path = parts
        if added.isdigit() and removed.isdigit():
            result[bases[index]][path] = int(added) + int(removed)
    return result
