"""Lines an agent wrote straight into a memory file with its own edit tools.

Why it exists: ``remember`` holds instruction-shaped text for review, but an agent (or a page
it read) can skip ``remember`` and write ``patterns.md`` with its Write or Edit tool. Untagged
lines read as the user's own, so the next SessionStart would inject them. The PostToolUse hook
records a short key of every line such an edit wrote (:func:`record`); SessionStart leaves out
recorded lines that read like instructions, and ``conkeeper review`` lists them, to keep
(:func:`approve`) or to remove from the file.

An agent can also skip its edit tools and write a memory file from a shell command
(``echo ... >> patterns.md``), which names no file the hook could read. So every PostToolUse of
a tool that can write (:func:`changed_files`) compares the memory files' size and change time
(``st_ctime``: ``mv``, ``cp -p`` and ``touch -d`` keep or set the modification time, no command
sets this one) with those seen at the previous tool call (kept in the session's state), and a
file changed while the tool ran has its new lines recorded the same way
(:func:`record_changes`): lines not in the file's last known content
(``agent-edits-baseline``, the keys of every line, kept per file). A file changed between tool
calls (the user's own editor) only refreshes that content.

Where: ``<memory folder>/.review/agent-edits`` (one ``KEY<TAB>FILE`` line per written line,
appended), ``agent-edits-approved`` (keys the user kept), ``agent-edits-baseline`` and
``agent-edits-places`` (the line above each written line: :func:`agents_copy` tells the agent's
copy from one the person typed later, for ``review drop``), in the review folder, which its
own ``.gitignore`` keeps out of git. A key is a hash of the line with its whitespace collapsed,
so a line the user edits by hand is theirs again.

Cost: the hook path (standard library only): a ``scandir`` of the memory folder per tool call;
files are read only when one changed.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Collection, Iterator
from pathlib import Path

REVIEW_DIR = ".review"
RECORDED = "agent-edits"
APPROVED = "agent-edits-approved"
BASELINE = "agent-edits-baseline"
LOCK = "agent-edits.lock"  # held while the baseline is read and rewritten (:func:`baseline_lock`)
PLACES = "agent-edits-places"  # KEY<TAB>KEY OF THE LINE ABOVE<TAB>FILE: where a line was written
SKIPPED_DIRS = frozenset({REVIEW_DIR, "sessions"})  # ConKeeper's own folders in the memory folder
MAX_MEMORY_FILE_BYTES = 2 * 1024 * 1024  # a larger file is not diffed
IGNORE = "# ConKeeper's review queue: held memory entries, never committed\n*\n"
KEY_CHARS = 16  # the length of a key (:func:`line_key`) at the start of each sidecar line


def line_key(line: str) -> str:
    """The key of one line: its text with whitespace collapsed, hashed (16 hex digits)."""
    import hashlib

    digest = hashlib.sha256(" ".join(line.split()).encode("utf-8", "replace")).hexdigest()
    return digest[:KEY_CHARS]


def written_keys(written: str) -> set[str]:
    """The keys of the non-blank lines of ``written``, each as written and as every reader
    shows it after privacy cleaning (:func:`conkeeper.domain.privacy.shown_forms`: an inline
    ``<private>`` span cut, a token redacted), so a reader that compares cleaned lines finds
    the line too."""
    from conkeeper.domain.privacy import shown_forms

    keys: set[str] = set()
    for line, forms in zip(written.splitlines(), shown_forms(written), strict=True):
        if line.strip():
            keys.add(line_key(line))
            keys.update(line_key(form) for form in forms)
    return keys


def record(memory_dir: Path, relative: str, written: str) -> int:
    """Append the keys of the non-blank lines of ``written`` (what an agent's edit put into
    ``relative``, :func:`written_keys`); returns how many. Errors propagate: the hook fails
    open around it."""
    keys = written_keys(written)
    if not keys:
        return 0
    folder = review_folder(memory_dir)
    rel = relative.replace("\t", " ").replace("\n", " ")
    data = "".join(f"{key}\t{rel}\n" for key in sorted(keys)).encode("utf-8", "replace")
    _append(folder / RECORDED, data)
    _record_places(memory_dir, relative, written)
    return len(keys)


def _record_places(memory_dir: Path, relative: str, written: str) -> None:
    """Note where each line of ``written`` sits in ``relative`` now (the key of the non-blank
    line above it): the person may type the same line themselves later, and ``review drop``
    must cut the agent's copy, not theirs (:func:`places`)."""
    wanted = {line_key(line) for line in written.splitlines() if line.strip()}
    lines = _file_lines(memory_dir, relative) or []
    rel = relative.replace("\t", " ").replace("\n", " ")
    found = [f"{key}\t{above}\t{rel}\n" for key, above in _keyed_with_above(lines) if key in wanted]
    if found:
        _append(review_folder(memory_dir) / PLACES, "".join(found).encode("utf-8", "replace"))


def _keyed_with_above(lines: list[str]) -> list[tuple[str, str]]:
    """Each non-blank line's key with the key of the non-blank line above it (``""`` at the
    top), in file order."""
    out: list[tuple[str, str]] = []
    above = ""
    for line in lines:
        if line.strip():
            key = line_key(line)
            out.append((key, above))
            above = key
    return out


def places(memory_dir: Path, relative: str) -> frozenset[tuple[str, str]]:
    """Where an agent wrote its lines into ``relative``: (the line's key, the key of the line
    above it) as each was written."""
    wanted = relative.replace("\t", " ").replace("\n", " ")
    found = set()
    for line in _record_lines(memory_dir / REVIEW_DIR / PLACES):
        key, _, rest = line.partition("\t")
        above, _, rel = rest.partition("\t")
        if rel == wanted:
            found.add((key, above))
    return frozenset(found)


def agents_copy(memory_dir: Path, relative: str, lines: list[str], copies: list[int]) -> int:
    """Which of ``copies`` (indexes into ``lines``, the file's lines, all the same text) is the
    copy the agent wrote: the last one under the line it was written under, else the last."""
    written = places(memory_dir, relative)
    if len(copies) > 1 and written:
        above: dict[int, str] = {}
        previous = ""
        for index, line in enumerate(lines):
            if line.strip():
                above[index] = previous
                previous = line_key(line)
        matching = [n for n in copies if (line_key(lines[n]), above.get(n, "")) in written]
        if matching:
            return matching[-1]
    return copies[-1]


def approve(memory_dir: Path, line: str) -> None:
    """Mark ``line`` (in each form a reader shows it) as kept by the user: SessionStart
    injects it from now on."""
    keys = written_keys(line) or {line_key(line)}
    _append(review_folder(memory_dir) / APPROVED, "".join(f"{k}\n" for k in sorted(keys)).encode())


def held_keys(memory_dir: Path, relative: str | None = None) -> frozenset[str]:
    """The keys recorded for ``memory_dir`` (with ``relative``: for that file of it) and not
    approved (empty when none were). A line is the agent's in the file it wrote it into: the
    person's own copy of the same text in another file stays theirs."""
    folder = memory_dir / REVIEW_DIR
    recorded = _keys(folder / RECORDED, relative)
    if not recorded:
        return frozenset()
    return frozenset(recorded - _keys(folder / APPROVED))


Prints = dict[str, list[int]]  # memory file (relative) -> [size, change time in ns]


def fingerprints(memory_dir: Path) -> Prints:
    """Size and change time of every Markdown file in ``memory_dir`` and its subfolders one
    level down (hidden files and ConKeeper's own folders aside): what :func:`changed_files`
    compares. A symlink that stays inside the folder is followed (SessionStart reads through
    it), and its own change time counts as the file's: ``patterns.md`` made a link to an
    unwatched file (``sessions/notes.md``) is a change of ``patterns.md``."""
    prints: Prints = {}
    for path, relative, links in _markdown_files(memory_dir):
        try:
            info = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            prints[relative] = [info.st_size, max([info.st_ctime_ns, *links])]
    return prints


Found = tuple[str, str, list[int]]  # path, relative name, change times of the links on the way


def _markdown_files(memory_dir: Path) -> list[Found]:
    out: list[Found] = []
    try:
        top = list(os.scandir(memory_dir))
    except OSError:
        return out
    inside: list[str] = []  # the folder's real path, worked out only when a link is met
    for entry in top:
        if entry.name.startswith("."):  # .memory-config.md and ConKeeper's own files
            continue
        links = _link_times(entry, memory_dir, inside)
        if links is None:
            continue
        if entry.name.endswith(".md") and _is_file(entry):
            out.append((entry.path, entry.name, links))
        elif entry.name not in SKIPPED_DIRS and _is_dir(entry):
            try:
                inner = list(os.scandir(entry.path))
            except OSError:
                continue
            for sub in inner:
                more = _link_times(sub, memory_dir, inside)
                if more is not None and sub.name.endswith(".md") and _is_file(sub):
                    out.append((sub.path, f"{entry.name}/{sub.name}", links + more))
    return out


def _is_file(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is (or links to) a file; a symlink loop is none (``is_file`` raises
    ELOOP for it, and that failed every hook while the loop stood in the memory folder)."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is (or links to) a folder; a symlink loop is none."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _link_times(entry: os.DirEntry[str], memory_dir: Path, inside: list[str]) -> list[int] | None:
    """``[]`` for an entry that is no symlink, the link's own change time for one that leads
    somewhere inside ``memory_dir``, ``None`` for one that leads out (never followed)."""
    if not entry.is_symlink():
        return []
    if not inside:
        inside.append(os.path.realpath(memory_dir))
    target = os.path.realpath(entry.path)
    if not target.startswith(inside[0] + os.sep):
        return None
    try:
        return [entry.stat(follow_symlinks=False).st_ctime_ns]
    except OSError:
        return None


# Where agents read standing instructions, besides a project's top-level names: the folders
# whose files each host loads as rules (``domain.paths.AGENT_INSTRUCTION_DIRS``) and these.
INSTRUCTION_FILES_BELOW = (".github/copilot-instructions.md", ".claude/CLAUDE.md")
# The user's own instruction files, which the hosts load in every project.
INSTRUCTION_FILES_HOME = (".claude/CLAUDE.md", ".codex/AGENTS.md", ".gemini/GEMINI.md")


def instruction_prints(
    root: Path, names: Collection[str], folders: Collection[str], home: str | None = None
) -> Prints:
    """Size and change time of the project's agent-instruction files (``names`` at the top of
    ``root``, :data:`INSTRUCTION_FILES_BELOW`, and the files of each of ``folders``, one level)
    and the user's own in ``home`` (:data:`INSTRUCTION_FILES_HOME`, named ``~/...``): what the
    tool hooks compare to tell that a command changed one, whatever it said. Files deeper in
    the tree (``src/api/CLAUDE.md``) are not looked at: a walk would cost every tool call."""
    prints: Prints = {}
    places = [
        (name, os.path.join(root, name)) for name in (*sorted(names), *INSTRUCTION_FILES_BELOW)
    ]
    if home:
        places += [(f"~/{name}", os.path.join(home, name)) for name in INSTRUCTION_FILES_HOME]
    for shown, path in places:
        try:
            info = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            prints[shown] = [info.st_size, info.st_ctime_ns]
    for folder in folders:
        try:
            entries = list(os.scandir(os.path.join(root, folder)))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_file():
                    info = entry.stat()
                    prints[folder + entry.name] = [info.st_size, info.st_ctime_ns]
            except OSError:
                continue
    return prints


def changed_during(before: object, now: Prints, since_ns: int) -> list[str]:
    """The files of ``now`` that are new or changed since ``before`` (a look taken before the
    tool ran) and changed at or after ``since_ns``, or that ``before`` had and ``now`` lacks."""
    if not isinstance(before, dict):
        return []
    changed = [rel for rel, print_ in now.items() if before.get(rel) != print_]
    gone = [rel for rel in before if rel not in now]
    return sorted([rel for rel in changed if now[rel][1] >= since_ns] + gone)


def review_print(memory_dir: Path) -> list[object]:
    """What the review records hold, cheaply (one ``scandir``, two ``stat`` calls): the held
    items' file names, and the size and inode of the record of an agent's lines and of the
    user's approvals (``None`` for a missing one). :func:`released` compares two."""
    folder = os.path.join(memory_dir, REVIEW_DIR)
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json"))
    except OSError:
        names = []
    return [names, _size_and_inode(folder, RECORDED), _size_and_inode(folder, APPROVED)]


def _size_and_inode(folder: str, name: str) -> list[int] | None:
    try:
        info = os.stat(os.path.join(folder, name), follow_symlinks=False)
    except OSError:
        return None
    return [info.st_size, info.st_ino]


def released(before: object, now: list[object]) -> bool:
    """Whether held text left the review records between two :func:`review_print` looks: a
    held item gone (approved or dropped), the record of an agent's lines shrunk, replaced or
    removed, or the user's approvals grown or replaced. Holding more is no release."""
    if not isinstance(before, list) or len(before) != 3:
        return False
    names, recorded, approved = before
    now_names = now[0] if isinstance(now[0], list) else []
    if isinstance(names, list) and not set(names) <= set(now_names):
        return True
    now_recorded, now_approved = now[1], now[2]
    if isinstance(recorded, list) and (
        not isinstance(now_recorded, list)
        or now_recorded[1] != recorded[1]
        or now_recorded[0] < recorded[0]
    ):
        return True
    if not isinstance(now_approved, list):
        return False
    if not isinstance(approved, list):
        return True
    return bool(now_approved[1] != approved[1] or now_approved[0] > approved[0])


def changed_files(before: object, now: Prints) -> list[str]:
    """The files of ``now`` whose print differs from ``before`` (the state's copy from the
    previous look; none when there was none)."""
    if not isinstance(before, dict):
        return []
    return sorted(rel for rel, print_ in now.items() if before.get(rel) != print_)


def record_changes(
    memory_dir: Path,
    changed: list[str],
    now: Prints,
    since_ns: int | None,
    new_files: Collection[str] = (),
    accounted: Collection[str] = (),
) -> tuple[int, list[str]]:
    """For each ``changed`` file: when it changed at or after ``since_ns`` (the tool's start),
    record its lines missing from its last known content (none for one of ``new_files``, which
    did not exist at the last look), but those whose key is in ``accounted`` (ConKeeper's own
    journaled writes meanwhile), as the agent's, and the entries an agent's ``@source`` tag
    followed at the last look that stay but lost the tag (:func:`untagged_lines`: a whole-file
    Write, ``sed -i`` or a script took it out, so the entry would read as the person's); then
    make its current content the known one. Returns how many lines were recorded and the files
    whose entries lost their tag. Errors propagate (the hook fails open around it)."""
    with baseline_lock(memory_dir):
        return _record_changes(memory_dir, changed, now, since_ns, new_files, accounted)


def _record_changes(
    memory_dir: Path,
    changed: list[str],
    now: Prints,
    since_ns: int | None,
    new_files: Collection[str],
    accounted: Collection[str] = (),
) -> tuple[int, list[str]]:
    baseline = _baseline(memory_dir)
    recorded = 0
    untagged: list[str] = []
    for relative in changed:
        lines = _file_lines(memory_dir, relative)
        if lines is None:
            continue
        keys = _content_keys(lines)
        known = set() if relative in new_files else baseline.get(relative)
        if known is not None and since_ns is not None and now[relative][1] >= since_ns:
            added = [
                line
                for line in lines
                if line.strip() and line_key(line) not in known and line_key(line) not in accounted
            ]
            lost = untagged_lines(lines, known, keys)
            recorded += record(memory_dir, relative, "\n".join(added + lost))
            if lost:
                untagged.append(relative)
        baseline[relative] = keys
    _write_baseline(memory_dir, baseline)
    return recorded, untagged


TAGGED = "t:"  # the prefix of a baseline key whose line an agent's @source tag followed
UNAPPROVED = "u:"  # ... and of one whose agent tag did not say "approved"


def _content_keys(lines: list[str]) -> set[str]:
    """The baseline's keys of a file's lines: each non-blank line's, and :data:`TAGGED` (and
    :data:`UNAPPROVED` for a tag without ``approved``) before the key of each entry line an
    agent's source tag follows (:func:`agent_tagged`)."""
    keys = {line_key(line) for line in lines if line.strip()}
    for index, approved in agent_tagged(lines):
        keys.add(TAGGED + line_key(lines[index]))
        if not approved:
            keys.add(UNAPPROVED + line_key(lines[index]))
    return keys


def agent_tagged(lines: list[str]) -> list[tuple[int, bool]]:
    """The indexes of the entry lines an agent's ``<!-- @source: agent-... -->`` tag follows
    (the last non-blank line above the tag that is no comment: the entry's bullet), each with
    whether the tag says the person approved it."""
    from conkeeper.domain.provenance import parse_source_tag

    found: list[tuple[int, bool]] = []
    for index, line in enumerate(lines):
        if "@source" not in line:
            continue
        tag = parse_source_tag(line)
        if tag is None or not tag.from_agent:
            continue
        above = index - 1
        while above >= 0 and (not lines[above].strip() or lines[above].lstrip().startswith("<!--")):
            above -= 1
        if above >= 0:
            found.append((above, tag.approved))
    return found


def untagged_lines(lines: list[str], known: Collection[str], keys: Collection[str]) -> list[str]:
    """The lines of ``lines`` an agent's tag followed at the last look (``known``) that it no
    longer follows, or whose unapproved tag now says ``approved`` (approving is the person's
    act: :mod:`conkeeper.services.review`) (``keys``: the file's keys now,
    :func:`_content_keys`)."""
    lost = {key[2:] for key in known if key.startswith((TAGGED, UNAPPROVED)) and key not in keys}
    if not lost:
        return []
    return [line for line in lines if line.strip() and line_key(line) in lost]


def remember_contents(memory_dir: Path, files: list[str]) -> None:
    """Make the current content of ``files`` their known content (the session's first look)."""
    with baseline_lock(memory_dir):
        baseline = _baseline(memory_dir)
        for relative in files:
            lines = _file_lines(memory_dir, relative)
            if lines is not None:
                baseline[relative] = _content_keys(lines)
        _write_baseline(memory_dir, baseline)


@contextlib.contextmanager
def baseline_lock(memory_dir: Path) -> Iterator[None]:
    """Hold the review folder's lock while the baseline is read, its files read and the
    baseline rewritten: tool hooks of parallel tools, sub-agents and other sessions rewrite it
    at once, and one's older copy must never land over another's newer one (a person's line
    dropped from it reads as the agent's the next time the agent writes the file)."""
    from conkeeper.domain.textio import locked

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(review_folder(memory_dir) / LOCK, flags, 0o644)
    with os.fdopen(fd, "r+b") as handle, locked(handle):
        yield


def known_keys(memory_dir: Path, relative: str) -> frozenset[str] | None:
    """The keys of ``relative``'s lines at the last look (``None`` when it was never seen)."""
    found = _baseline(memory_dir).get(relative)
    return None if found is None else frozenset(found)


def keys_outside(memory_dir: Path, relative: str, pieces: list[str]) -> frozenset[str] | None:
    """The keys of the lines ``relative`` holds outside the text an edit just put in (one
    occurrence of each of ``pieces`` taken out): lines that were in the file before the edit,
    for an edit made before any look at the file (the session's first). ``None`` when the
    file cannot be read or a piece is not in it."""
    lines = _file_lines(memory_dir, relative)
    if lines is None:
        return None
    text = "\n".join(lines)
    for piece in pieces:
        trimmed = piece.strip("\n")
        if trimmed not in text:
            return None
        text = text.replace(trimmed, "\n", 1)
    return frozenset(line_key(line) for line in text.splitlines() if line.strip())


def _file_lines(memory_dir: Path, relative: str) -> list[str] | None:
    """The lines of a memory file (through a symlink only when it stays inside
    ``memory_dir``, as :func:`fingerprints` follows it), or ``None``."""
    path = os.path.join(memory_dir, relative)
    if os.path.islink(path):
        path = os.path.realpath(path)
        if not path.startswith(os.path.realpath(memory_dir) + os.sep):
            return None
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
        )
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_MEMORY_FILE_BYTES + 1)
    if len(data) > MAX_MEMORY_FILE_BYTES:
        return None
    return data.decode("utf-8", "replace").splitlines()


def _baseline(memory_dir: Path) -> dict[str, set[str]]:
    path = memory_dir / REVIEW_DIR / BASELINE
    try:
        data = path.read_bytes() if not path.is_symlink() else b""
    except OSError:
        return {}
    out: dict[str, set[str]] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        key, _, relative = line.partition("\t")
        if relative:
            out.setdefault(relative, set()).add(key)
    return out


def _write_baseline(memory_dir: Path, baseline: dict[str, set[str]]) -> None:
    """Replace the baseline sidecar (ConKeeper's own file, in the review folder) atomically."""
    folder = review_folder(memory_dir)
    text = "".join(
        f"{key}\t{relative}\n"
        for relative in sorted(baseline)
        for key in sorted(baseline[relative])
    )
    temporary = folder / f".{BASELINE}.{os.getpid()}"
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, folder / BASELINE)


def held_by_file(memory_dir: Path) -> dict[str, frozenset[str]]:
    """:func:`held_keys` for every file at once (the record read once): file -> keys."""
    folder = memory_dir / REVIEW_DIR
    lines = _record_lines(folder / RECORDED)
    if not lines:
        return {}
    approved = _keys(folder / APPROVED)
    found: dict[str, set[str]] = {}
    for line in lines:
        found.setdefault(line[KEY_CHARS + 1 :], set()).add(line[:KEY_CHARS])
    return {rel: frozenset(keys - approved) for rel, keys in found.items()}


def _keys(path: Path, relative: str | None = None) -> set[str]:
    """The keys at the start of each line of a record (with ``relative``: of the lines that
    name that file after the tab)."""
    lines = _record_lines(path)
    if relative is None:
        return {line[:KEY_CHARS] for line in lines}
    wanted = relative.replace("\t", " ").replace("\n", " ")
    return {line[:KEY_CHARS] for line in lines if line[KEY_CHARS + 1 :] == wanted}


def review_folder(memory_dir: Path) -> Path:
    """The review folder of ``memory_dir``, created with the ``.gitignore`` that keeps it out
    of git; :class:`OSError` when it is a symlink (never written through)."""
    folder = memory_dir / REVIEW_DIR
    if folder.is_symlink():
        raise OSError(f"{folder}: is a symlink; ConKeeper will not write through it")
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        _append(ignore, IGNORE.encode())
    return folder


def _append(path: Path, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _record_lines(path: Path) -> list[str]:
    """The lines of a record file (none when it is missing or no regular file)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return []
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return []
        # read whole: a record read only so far let a flood of an agent's lines push the keys
        # written after it out of sight (45,000 keys, 1.3 MB, are read in about 34 ms)
        data = handle.read()
    return data.decode("utf-8", "replace").splitlines()
