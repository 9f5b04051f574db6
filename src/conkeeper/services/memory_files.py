"""Memory files for agents: list them and read their visible text, confined to the memory folders.

Why it exists: a front door that hands memory to an agent (the MCP server's ``read_memory`` tool
and resources, later the viewer) must never give out what privacy hides, nor any file outside
``.claude/memory/`` (project) or ``~/.claude/memory/`` (global). This module is the one place
that turns a path an agent asked for into a file inside a memory root — refusing absolute paths,
``..``, NUL bytes and symlinks that lead out of the root — and returns only its visible lines
(:func:`conkeeper.domain.privacy.clean_for_injection`: private content cut, credentials
redacted, ConKeeper's wrapper tags escaped), without what SessionStart holds back from an agent
(:func:`conkeeper.services.context.withhold_agent_orders`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from conkeeper.domain.memory import memory_file_kind
from conkeeper.domain.messages import clean_path
from conkeeper.domain.paths import global_memory_dir, locate_project
from conkeeper.domain.privacy import analyze, clean_for_injection
from conkeeper.domain.textio import MemoryFileError, is_within, read_text

SCOPES = ("project", "global")
# How search shows paths: a hit's path can be passed back as it is.
_DISPLAY_PREFIXES = {"project": ".claude/memory/", "global": "~/.claude/memory/"}
MAX_LISTED = 2000


class MemoryAccessError(Exception):
    """The file cannot be given out (outside the memory folder, missing, unreadable); one line."""


@dataclass(frozen=True)
class MemoryFileRef:
    """A memory file an agent may read: its scope, path inside the root, and kind."""

    scope: str
    path: str
    kind: str


@dataclass(frozen=True)
class VisibleMemory:
    """What an agent may see of one memory file."""

    scope: str
    path: str
    kind: str
    text: str
    private_file: bool
    hidden_lines: int
    held_lines: int = 0  # agent-written entries and lines withheld until the user keeps them


def memory_root(cwd: Path, scope: str) -> Path:
    """The memory folder of ``scope``: the project holding ``cwd``, or the user's global one."""
    if scope not in SCOPES:
        raise MemoryAccessError(f"unknown scope '{scope}'; use 'project' or 'global'")
    return locate_project(cwd).memory_dir if scope == "project" else global_memory_dir()


def split_display_path(path: str, scope: str) -> tuple[str, str]:
    """``(scope, relative path)`` for a path as search shows it (``~/.claude/memory/x.md`` is
    global, ``.claude/memory/x.md`` project) or as given relative to ``scope``'s root."""
    text = path.strip().replace("\\", "/")
    for name in ("global", "project"):  # the global prefix contains the project one
        prefix = _DISPLAY_PREFIXES[name]
        if text.startswith(prefix):
            return name, text[len(prefix) :]
    return scope, text


def resolve_memory_path(root: Path, relative: str) -> Path:
    """The file ``relative`` names inside ``root``; refuses anything that could leave it."""
    if not relative or "\x00" in relative:
        raise MemoryAccessError("give the path of a memory file, e.g. 'patterns.md'")
    pure = PurePosixPath(relative)
    if not pure.parts:
        raise MemoryAccessError("give the path of a memory file, e.g. 'patterns.md'")
    if pure.is_absolute() or relative.startswith("~") or ":" in pure.parts[0]:
        raise MemoryAccessError(f"{relative}: give a path relative to the memory folder")
    if ".." in pure.parts:
        raise MemoryAccessError(f"{relative}: '..' is not allowed in a memory path")
    if pure.suffix.lower() != ".md":
        raise MemoryAccessError(f"{relative}: only Markdown memory files (.md) can be read")
    target = root.joinpath(*pure.parts)
    if not is_within(target, root):
        raise MemoryAccessError(f"{relative}: leads outside the memory folder; refused")
    return target


def read_visible(
    cwd: Path, path: str, scope: str = "project", *, withhold: bool = True
) -> VisibleMemory:
    """The visible text of one memory file (private lines removed, secrets redacted) and, with
    ``withhold`` (for an agent), without what SessionStart holds back; the person's own viewer
    passes ``withhold=False`` and sees the file as it is."""
    scope, relative = split_display_path(path, scope)
    root = memory_root(cwd, scope)
    relative = _named_file(root, relative)
    target = resolve_memory_path(root, relative)
    if not target.is_file():
        raise MemoryAccessError(f"{relative}: no such file in the {scope} memory folder")
    try:
        text = read_text(target)
    except MemoryFileError as exc:
        raise MemoryAccessError(str(exc)) from None
    report = analyze(text)
    visible = "" if report.file_private else str(clean_for_injection(text))
    hidden = report.total_lines if report.file_private else report.hidden_line_count
    held = 0
    rel = PurePosixPath(*PurePosixPath(relative).parts).as_posix()
    if visible and withhold:
        visible, held = _withhold(root, rel, visible, every=scope == "global")
        if memory_file_kind(rel) in RECORD_KINDS:
            visible, logged = _withhold_logged(visible)
            held += logged
        visible = _hidden_runs(visible, reveal=False)
    elif visible:
        visible = _hidden_runs(_mark_agent_writing(root, rel, visible), reveal=True)
    return VisibleMemory(
        scope, clean_path(rel), memory_file_kind(rel), visible, report.file_private, hidden, held
    )


def _named_file(root: Path, relative: str) -> str:
    """The file ``relative`` names: itself, or for a name shown with a credential redacted
    (``[REDACTED:<kind>].md``, as listings, search hits and resource URIs show a file named
    after a key) the one file of ``root`` shown under that name; unchanged when none or
    several are (the caller then finds no such file)."""
    if "[REDACTED:" not in relative or not root.is_dir():
        return relative
    found = [ref.path for ref in _refs(root, "") if clean_path(ref.path) == relative]
    return found[0] if len(found) == 1 else relative


def _hidden_runs(visible: str, *, reveal: bool) -> str:
    """Runs of characters that show nothing yet carry a message (a snippet pasted from a page
    can hold one in the person's own line): removed for an agent, which must never take them
    in, decoded for the person, who must see what their file holds."""
    if visible.isascii():
        return visible
    from conkeeper.domain.hidden_text import reveal_hidden, strip_hidden_runs

    return reveal_hidden(visible) if reveal else strip_hidden_runs(visible)


def _withhold(root: Path, rel: str, visible: str, *, every: bool) -> tuple[str, int]:
    """What SessionStart holds back from this file, withheld here too (an agent that asks for
    the file must not read verbatim the order its session start left out)."""
    from conkeeper.services.context import withhold_agent_orders
    from conkeeper.storage.agent_edits import held_keys

    return withhold_agent_orders(visible, held_keys(root, rel), every=every)


FORGED_TAG_MARK = "_(a source tag an agent wrote with its own edit tools: not ConKeeper's)_"


def _mark_agent_writing(root: Path, rel: str, visible: str) -> str:
    """The person's own view of a file (the viewer) with what an agent wrote into it with its
    own tools, and the user has not kept, said so: each list item ends in SessionStart's mark,
    and a ``@source`` tag line of the agent's making is shown as such, never as provenance (a
    tag is plain text: "``<!-- @source: user-cli ... -->``" written by an agent read as the
    person's own entry)."""
    from conkeeper.storage.agent_edits import held_keys, line_key

    keys = held_keys(root, rel)
    if not keys:
        return visible
    from conkeeper.domain.provenance import is_source_tag
    from conkeeper.services.context import mark_agent_lines

    lines = [
        FORGED_TAG_MARK if is_source_tag(line) and line_key(line) in keys else line
        for line in visible.splitlines()
    ]
    ending = "\n" if visible.endswith("\n") else ""
    return "\n".join(mark_agent_lines(lines, keys)) + ending


# files ConKeeper writes from what tools, pages and prompts said: the observation log, the
# corrections queue, retros (their lines are records of outside text, not the user's notes)
RECORD_KINDS = frozenset({"observations", "queue", "retro"})
LOGGED_HELD_MARK = "[held: this logged text reads like an instruction; the user can open the file]"


def _withhold_logged(visible: str) -> tuple[str, int]:
    """A record file's text with each line that reads like an order replaced by a marker (a
    logged command, a queued prompt, a retro's quoted error), as search marks them."""
    from conkeeper.services.quarantine import reads_as_order

    out: list[str] = []
    held = 0
    for line in visible.splitlines():
        if len(line.strip()) >= 12 and reads_as_order(line):
            out.append(LOGGED_HELD_MARK)
            held += 1
        else:
            out.append(line)
    ending = "\n" if visible.endswith("\n") else ""
    return "\n".join(out) + ending, held


def list_memory_files(cwd: Path, scopes: tuple[str, ...] = SCOPES) -> list[MemoryFileRef]:
    """Every Markdown file of the memory folders in ``scopes``, sorted, symlinks out skipped;
    a name holding a credential is listed redacted (:func:`read_visible` opens it by that)."""
    found: list[MemoryFileRef] = []
    for scope in scopes:
        root = memory_root(cwd, scope)
        if not root.is_dir():
            continue
        for ref in _refs(root, scope):
            if len(found) >= MAX_LISTED:
                return found
            found.append(MemoryFileRef(scope, clean_path(ref.path), ref.kind))
    return found


def _refs(root: Path, scope: str) -> list[MemoryFileRef]:
    """The Markdown files under ``root`` by their real names, sorted, symlinks out skipped."""
    found = []
    for file in sorted(root.rglob("*.md")):
        rel = file.relative_to(root).as_posix()
        if file.is_file() and is_within(file, root) and ".." not in rel:
            found.append(MemoryFileRef(scope, rel, memory_file_kind(rel)))
    return found
