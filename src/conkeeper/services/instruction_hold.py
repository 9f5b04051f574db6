"""Hold the order-shaped lines an agent added to a file its host loads as standing instructions.

Why it exists (issue 20): the host reads ``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md``, the rules
folders and the files they import into every later session itself, so ConKeeper cannot leave
an agent's order out of SessionStart as it does for memory lines; reporting it left the order
in place and the next session followed it. The lines the agent's tool added that read like
orders (the judgement ``remember`` gives an agent's text, at its bar:
:func:`conkeeper.services.quarantine.reasons`) are taken out of the file, only their bytes,
through the one write module (lock, journal: ``conkeeper undo`` puts them back), and held in
the review queue with their file, place and reasons; ``review approve`` puts them back (at
their place, or at the end of their section when the file changed since), ``review drop``
leaves them out. The hooks call :func:`hold_added` only when such a file changed.
"""

from __future__ import annotations

import binascii
import itertools
import json
import os
from pathlib import Path

from conkeeper.domain import held_lines
from conkeeper.storage.instruction_known import MAX_FILE_BYTES, read_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

HOLD_COMMAND = "hold instruction lines"  # the journal's command for a hold: + the held ids
# the journal's source of a hold: not "hook" (a hook's log lines, which a plain ``undo`` skips):
# the person takes a hold back with a plain ``conkeeper undo``
HOLD_SOURCE = "hook-hold"
MAX_REASONS = 3


class HoldError(Exception):
    """A held run that cannot be put back; the message is one line for a person."""


class HoldResult:
    """What a hold took out of one file: the file as named for the person, the held items'
    ids and how many lines they hold."""

    __slots__ = ("ids", "lines", "shown")

    def __init__(self, shown: str, ids: list[str], lines: int) -> None:
        self.shown = shown
        self.ids = ids
        self.lines = lines


def hold_added(
    memory_dir: Path,
    path: Path,
    shown: str,
    known: list[str] | None,
    carried: str,
    *,
    scope: str = "project",
) -> HoldResult | None:
    """Take the lines of ``path`` the agent added (not in its ``known`` content, carried by the
    agent's tool text ``carried``) that read like orders out of it and hold them in
    ``memory_dir``'s review queue, as ``shown``; ``None`` when none reads like one."""
    data = read_file(path)
    if data is None:
        return None
    planned = _held_runs(data, held_lines.added_lines(known, data, carried))
    if not planned:
        return None
    from conkeeper.services.review import item_id  # only when a line is held: its imports cost

    texts = {_run_text(data, run) for run, _ in planned}
    why = {_run_text(data, run): reasons for run, reasons in planned}
    ids = [item_id(scope, shown, text) for text in sorted(texts)]
    done: dict[str, object] = {}

    def cut(current: bytes) -> bytes:
        found = held_lines.added_lines(known, current, carried)
        lines = held_lines.split_lines(current)
        kept = [i for i in found if _normal(held_lines.decoded(lines[i])) in _words(texts)]
        taken = [run for run in held_lines.runs(kept) if _run_text(current, run) in texts]
        result, cuts = held_lines.cut_runs(current, taken)
        done.update(cuts=cuts, texts=[_run_text(current, run) for run in taken], after=result)
        return result

    _write(memory_dir, path, cut, f"{HOLD_COMMAND} {' '.join(ids)}", source=HOLD_SOURCE)
    return _record(memory_dir, shown, scope, done, why)


def _words(texts: set[str]) -> set[str]:
    return {word for text in texts for word in text.split("\n")}


def _normal(line: str) -> str:
    return " ".join(line.split())


def _run_text(data: bytes, run: list[int]) -> str:
    """A run's lines as held: each line's words, the lines joined by a newline."""
    lines = held_lines.split_lines(data)
    return "\n".join(_normal(held_lines.decoded(lines[index])) for index in run)


def _held_runs(data: bytes, added: list[int]) -> list[tuple[list[int], list[str]]]:
    """The runs of ``added`` lines to hold, with their reasons: each line read alone, and two
    adjacent added lines read together (an order split over two lines)."""
    if not added:
        return []
    from conkeeper.services.quarantine import reasons

    lines = [held_lines.decoded(raw) for raw in held_lines.split_lines(data)]
    why = {index: reasons(lines[index]) for index in added}
    for first, second in itertools.pairwise(added):
        if second == first + 1 and not why[first] and not why[second]:
            joined = reasons(f"{lines[first]}\n{lines[second]}", joined=True)
            if joined:
                why[first] = why[second] = joined
    held = [index for index in added if why[index]]
    return [
        (run, list(dict.fromkeys(r for i in run for r in why[i]))[:MAX_REASONS])
        for run in held_lines.runs(held)
    ]


def _write(
    memory_dir: Path, path: Path, edit: Callable[[bytes], bytes], command: str, source: str
) -> None:
    """One journaled byte edit of ``path``, journaled with ``memory_dir``'s writes (``undo``)."""
    from conkeeper.domain.safewrite import edit_file, memory_journal_dir

    edit_file(
        path,
        edit,
        command=command,
        source=source,
        follow_symlink=True,  # CLAUDE.md is often a link to AGENTS.md: the host reads through it
        journal=memory_journal_dir(memory_dir),
        limit=MAX_FILE_BYTES,
    )


def _record(
    memory_dir: Path, shown: str, scope: str, done: dict[str, object], why: dict[str, list[str]]
) -> HoldResult | None:
    """Put each cut run in the review queue with its place; what was held."""
    from conkeeper.services.review import INSTRUCTION_EDIT, hold

    cuts = done.get("cuts")
    texts = done.get("texts")
    after = done.get("after")
    if not isinstance(cuts, list) or not isinstance(texts, list) or not isinstance(after, bytes):
        return None
    ids: list[str] = []
    lines = 0
    for cut, text in zip(cuts, texts, strict=True):
        place = {
            "raw": binascii.b2a_base64(cut.raw, newline=False).decode("ascii"),
            "line": cut.line,
            "offset": cut.offset,
            "heading": cut.heading,
            "after": held_lines.digest(after),
        }
        item = hold(
            memory_dir,
            text=text,
            target=shown,
            category="",
            scope=scope,
            source=INSTRUCTION_EDIT,
            reasons=why.get(text) or [],
            place=place,
        )
        ids.append(item.id)
        lines += text.count("\n") + 1
    return HoldResult(shown, ids, lines) if ids else None


def file_of(memory_dir: Path, target: str, home: str | None) -> Path:
    """The file a held run's ``target`` names: ``~/...`` in the home folder, else in the
    project whose memory folder is ``memory_dir``; :class:`HoldError` for a name that is not an
    agent instruction file or leaves its folder (a record edited to point elsewhere)."""
    from conkeeper.domain.paths import is_agent_instruction_file

    parts = target.replace("\\", "/").split("/")
    root = memory_dir.parent.parent
    if (
        ".." in parts
        or target.startswith("/")
        or not (is_agent_instruction_file(target) or _imported(root, target))
    ):
        raise HoldError(f"{target}: not an agent instruction file of this project")
    if target.startswith("~/"):
        if not home:
            raise HoldError(f"{target}: no home folder to put it back in")
        return Path(home) / target[2:]
    return root / target


def _imported(root: Path, target: str) -> bool:
    """Whether one of the project's top-level instruction files imports ``target`` (``@path``):
    a held run from such a file goes back there, a record naming any other file is refused."""
    from conkeeper.domain.instruction_imports import imported_paths
    from conkeeper.domain.paths import AGENT_INSTRUCTION_NAMES

    for name in sorted(AGENT_INSTRUCTION_NAMES):
        data = read_file(root / name)
        text = data.decode("utf-8", "replace") if data is not None else ""
        for path in imported_paths(text) if "@" in text else []:
            if os.path.normpath(path) == os.path.normpath(target):
                return True
    return False


def put_back(memory_dir: Path, item_id: str, target: str, text: str, place: object) -> None:
    """Write a held run back into its file (``review approve``): at its place when the file is
    as the hold left it, else at the end of its section; journaled as the person's approval."""
    if not isinstance(place, dict):
        raise HoldError(f"held item {item_id}: its record has no place to put it back")
    try:
        raw = binascii.a2b_base64(str(place["raw"]).encode("ascii"))
        cut = held_lines.Cut(raw, int(place["line"]), int(place["offset"]), str(place["heading"]))
        after = str(place["after"])
    except (KeyError, ValueError, TypeError, binascii.Error):
        raise HoldError(f"held item {item_id}: its record's place is damaged") from None
    shown = "\n".join(_normal(held_lines.decoded(r)) for r in held_lines.split_lines(raw))
    if shown != text:
        raise HoldError(f"held item {item_id}: its record's bytes are not the text held")
    path = file_of(memory_dir, target, os.environ.get("HOME"))
    from conkeeper.services.review import APPROVE_COMMAND

    def edit(current: bytes) -> bytes:
        return held_lines.put_back(current, cut, after)

    _write(memory_dir, path, edit, f"{APPROVE_COMMAND} {item_id}", source="user-cli")


def release_undone_hold(memory_dir: Path, command: str) -> list[str]:
    """After ``conkeeper undo`` took a hold back (its lines are in the file again): its held
    items leave the queue, so an approval cannot write them a second time. The ids removed."""
    head, _, ids = command.partition(f"{HOLD_COMMAND} ")
    if head:
        return []
    from conkeeper.services.review import review_dir

    removed = []
    for ident in ids.split():
        record = review_dir(memory_dir) / f"{ident}.json"
        if ident.isalnum() and record.is_file() and not record.is_symlink():
            record.unlink()
            removed.append(ident)
    return removed


def record_place(record: Path) -> object:
    """The ``place`` a held run's record keeps (``None`` when unreadable)."""
    try:
        return json.loads(record.read_text(encoding="utf-8")).get("place")
    except (OSError, ValueError, AttributeError):
        return None
