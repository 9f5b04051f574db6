"""History and undo of ConKeeper's writes to files a person owns (``conkeeper history|undo``).

Every write goes through :mod:`conkeeper.domain.safewrite`, which journals it beside the files:
the memory folder's ``.history`` (project, or global with ``global_scope``) and the data home's
``history`` (agent configs). This module merges those journals for a person and undoes one
entry by the id it shows: plain digits for the memory journal, ``c`` + digits for the agent
config journal.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from conkeeper.domain import safewrite
from conkeeper.domain.messages import clean_path
from conkeeper.domain.paths import ProjectLocation, global_memory_dir

CONFIG_PREFIX = "c"


class HistoryError(Exception):
    """An id that names no write, or nothing to undo; one line for a person."""


class _Journal:
    """One journal as a person sees it: id prefix, label, folder, where its paths are shown from."""

    def __init__(
        self, prefix: str, label: str, folder: Path, base: Path | None, memory: Path | None = None
    ) -> None:
        self.prefix = prefix
        self.label = label
        self.folder = folder
        self.base = base
        self.memory = memory  # the memory folder whose writes this journal may stand in for
        self.memory_label = ""

    def stands_in(self, entry: safewrite.JournalEntry) -> bool:
        """Whether ``entry`` is a memory write this (data home) journal took for a memory
        journal that could not be written (``safewrite.journal_folder``)."""
        return self.memory is not None and any(_within(p, self.memory) for p in entry.paths)

    def label_of(self, entry: safewrite.JournalEntry) -> str:
        """The journal a person should read ``entry`` as being in."""
        if self.stands_in(entry):
            return f"{self.memory_label} (journaled in the data home: its own journal failed)"
        return self.label

    def shown_of(self, entry: safewrite.JournalEntry, path: str) -> str:
        """``path`` as shown for ``entry``: relative to the memory folder for a memory write,
        a credential in its names redacted (a file named after a key)."""
        if self.memory is not None and self.stands_in(entry) and _within(path, self.memory):
            return clean_path(
                Path(
                    os.path.relpath(os.path.realpath(path), os.path.realpath(self.memory))
                ).as_posix()
            )
        return clean_path(self.shown(path))

    def shown(self, path: str) -> str:
        """``path`` relative to the memory folder, or with ``~`` for the home folder."""
        if self.base is not None:
            try:
                return Path(path).relative_to(self.base).as_posix()
            except ValueError:
                pass
        home = os.path.expanduser("~")
        return "~" + path[len(home) :] if path.startswith(home + os.sep) else path


def _within(path: str, folder: Path) -> bool:
    """Whether ``path`` lies in ``folder`` (as written, or once links are resolved)."""
    for inner, outer in ((path, str(folder)), (os.path.realpath(path), os.path.realpath(folder))):
        if Path(inner).is_relative_to(outer):
            return True
    return False


def _journals(location: ProjectLocation, global_scope: bool) -> tuple[_Journal, _Journal]:
    """The memory journal (project, or global) and the agent-config journal, which also holds
    the memory's writes its own journal could not take."""
    memory = global_memory_dir() if global_scope else location.memory_dir
    label = "global memory" if global_scope else "project memory"
    config = _Journal(
        CONFIG_PREFIX, "agent config", Path(safewrite.config_journal_dir()), None, memory
    )
    config.memory_label = label
    return (_Journal("", label, Path(safewrite.memory_journal_dir(memory)), memory), config)


def list_history(
    location: ProjectLocation, *, global_scope: bool = False, limit: int | None = None
) -> list[dict[str, Any]]:
    """Journaled writes, newest first: ``id``, ``time`` (local ISO), ``command``, ``source``,
    ``files``, ``journal`` and ``undone``/``undoes`` (which undo reverted which write)."""
    rows: list[tuple[float, int, dict[str, Any]]] = []
    for journal in _journals(location, global_scope):
        prefix = journal.prefix
        entries = safewrite.read_journal(journal.folder)
        undone = safewrite.undone_ids(entries)
        for entry in entries:
            rows.append(
                (
                    entry.time,
                    entry.id,
                    {
                        "id": f"{prefix}{entry.id}",
                        "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(entry.time)),
                        "command": entry.command,
                        "source": entry.source,
                        "files": [journal.shown_of(entry, p) for p in entry.paths],
                        "journal": journal.label_of(entry),
                        "undone": str(entry.id) in undone,
                        "interrupted": entry.pending,
                        "undoes": None if entry.undoes is None else f"{prefix}{entry.undoes}",
                    },
                )
            )
    rows.sort(key=lambda row: (row[0], row[1]), reverse=True)
    items = [row[2] for row in rows]
    return items if limit is None else items[:limit]


def undo_write(
    location: ProjectLocation,
    ident: str | None = None,
    *,
    global_scope: bool = False,
    source: str = "user-cli",
) -> dict[str, Any]:
    """Undo the write ``ident`` (default: the newest one not undone yet that is not a hook's
    log line, across the journals); raises :class:`safewrite.UndoConflict` (with a diff, nothing
    changed) or :class:`HistoryError`. Returns what was undone, as :func:`list_history` shows it."""
    journals = _journals(location, global_scope)
    number: int | None
    if ident is None:
        chosen = _newest(journals)
        if chosen is None:
            raise HistoryError("nothing to undo: no journaled write that is not undone yet")
        journal, number = chosen[0], None  # chosen again under the journal's lock (two undos)
    else:
        text = ident.strip().lower()
        journal = journals[1] if text.startswith(CONFIG_PREFIX) else journals[0]
        digits = text[len(journal.prefix) :]
        if not digits.isdigit():
            raise HistoryError(f"'{ident}' is not a write id; see 'conkeeper history'")
        number = int(digits)
    try:
        entry = safewrite.undo(journal.folder, number, source=source)
    except safewrite.UndoConflict:
        raise
    except safewrite.WriteError as exc:
        shown = f"write {journal.prefix}{number}"
        raise HistoryError(str(exc).replace(f"write {number}", shown)) from None
    memory = journals[0].base
    if memory is not None:  # an undone approval of the memory is held again
        from conkeeper.services.instruction_hold import release_undone_hold
        from conkeeper.services.review import restore_approved

        for member in entry.batch:
            if journal.base is not None or journal.stands_in(member):
                restore_approved(memory, member.command)
                release_undone_hold(memory, member.command)  # an undone hold: its lines are back
    paths = list(dict.fromkeys(p for member in entry.batch for p in member.paths))
    if entry.command.startswith("install --agent") and "--uninstall" not in entry.command:
        from conkeeper.services.setup.install_records import forget_undone

        forget_undone(paths)  # the install's records and empty folders go with it
    return {
        "id": f"{journal.prefix}{entry.id}",
        "with": [f"{journal.prefix}{m.id}" for m in entry.batch if m is not entry],
        "command": entry.command,
        "source": entry.source,
        "files": [journal.shown_of(entry, p) for p in paths],
        "journal": journal.label_of(entry),
    }


def _newest(journals: tuple[_Journal, _Journal]) -> tuple[_Journal, int] | None:
    best: tuple[float, _Journal, int] | None = None
    for journal in journals:
        entry = safewrite.newest_undoable(safewrite.read_journal(journal.folder))
        if entry is not None and (best is None or entry.time > best[0]):
            best = (entry.time, journal, entry.id)
    return None if best is None else (best[1], best[2])
