"""The memory folders of the projects ConKeeper has started sessions in, for all projects.

Why it exists: an agent's shell command in one project can write into another project's memory
through a path no reading of its text finds (``$(printf ...)``, base64, a script file it wrote
and runs, a ``make`` target); that project's next SessionStart then injected the line as the
person's note. The tool hooks watch every folder listed here around each agent shell command
(:mod:`conkeeper.hooks.on_tool`), whatever the command says. SessionStart adds its project's
folder; ``<data home>/state/memory-folders`` holds one absolute path a line, newest last.
Standard library only: the hook path reads it.
"""

from __future__ import annotations

import os

from conkeeper.domain.paths import state_dir, stored_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

FILE = "memory-folders"
MAX_FOLDERS = 8  # the newest this many are watched (a folder started again moves to the end);
# each costs a scandir before and after every agent shell command (about 0.2 ms here): with 16
# the hook A/B put PostToolUse (Bash) at +1.8-2.5 ms, at the edge of its +2 ms target; a folder
# outside the list is still covered at its next look (``hooks.memory_look.take_changes``)


def note(folder: str, env: Mapping[str, str] | None = None) -> None:
    """Put ``folder`` last in the list (written whole, or not at all), unless it is last. A
    folder named after a credential is not written down (its own sessions still watch it)."""
    if stored_path(folder) != folder:
        return
    known = _read(env)
    if known and known[-1] == folder:
        return
    others = [line for line in known if line != folder]
    _write([*others[-(MAX_FOLDERS - 1) :], folder], env)


def drop_named_after_keys(env: Mapping[str, str] | None = None) -> None:
    """Drop the folders named after a credential that an earlier version wrote down."""
    known = _read(env)
    kept = [line for line in known if stored_path(line) == line]
    if kept != known:
        _write(kept, env)


def forget(root: str, env: Mapping[str, str] | None = None) -> None:
    """Drop the folders inside ``root`` (a forgotten project) from the list."""
    known = _read(env)
    kept = [line for line in known if line != root and not line.startswith(root.rstrip("/") + "/")]
    if kept != known:
        _write(kept, env)


def _write(folders: list[str], env: Mapping[str, str] | None) -> None:
    """Replace the list with ``folders``, written whole or not at all."""
    path = _path(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{FILE}.{os.getpid()}.tmp")
    temporary.write_text("".join(f"{line}\n" for line in folders), encoding="utf-8")
    os.replace(temporary, path)


def known(env: Mapping[str, str] | None = None) -> list[str]:
    """The folders noted, newest last (those that no longer exist included)."""
    return _read(env)[-MAX_FOLDERS:]


def _read(env: Mapping[str, str] | None) -> list[str]:
    try:
        with open(_path(env), encoding="utf-8", errors="replace") as handle:
            return [line.rstrip("\n") for line in handle if line.startswith("/")]
    except OSError:
        return []


def _path(env: Mapping[str, str] | None) -> Path:
    return state_dir(env) / FILE
