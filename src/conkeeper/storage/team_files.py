"""The team sync's files beside the database, keyed by a local project's identity.

Why it exists: ``<data home>/team/marks.json`` names each project's outbox marks by its
identity, and ``<data home>/team/recent/<identity, escaped>.json`` is its cached "from your
team" block. Before schema 8 a folder named after a credential was identified by its path, so
both held the token (a mark's name, a file's name). This module names the cache file (the
hook path reads it: standard library only, no ``hashlib``) and moves a project's marks and
cache from its old identity to its digest (:func:`move_project`), which schema 8 does for the
rows it rewrites and a team sync run from such a folder does for files written since.
"""

from __future__ import annotations

import contextlib
import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

MAX_NAME = 200  # characters of a cache file's name before ".json"
MARKS_FILE = "marks.json"


def cache_file(data_folder: str, identity: str) -> str:
    """The cache file of a local project identity (its path, escaped into one file name). A
    name too long for a file keeps its end and gains a checksum of the whole identity: two
    long paths that differ only further up (two clients' checkouts of one service) must not
    share a file, or one project's session is shown the other's team block."""
    safe = "".join(ch if ch.isalnum() or ch in "-." else f"_{ord(ch):x}" for ch in identity)
    if len(safe) > MAX_NAME:
        safe = f"{_checksum(identity)}-{safe[-(MAX_NAME - 17) :]}"
    return os.path.join(cache_folder(data_folder), safe + ".json")


def cache_folder(data_folder: str) -> str:
    """Where every project's cached team block is kept."""
    return os.path.join(data_folder, "team", "recent")


def marks_file(data_folder: str) -> str:
    """The team sync's marks (``services.team.sync`` reads and writes them)."""
    return os.path.join(data_folder, "team", MARKS_FILE)


def _checksum(text: str) -> str:
    """FNV-1a (64 bits) of ``text``, in hex: deterministic and free of imports (the hook path
    imports no ``hashlib``)."""
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogatepass"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def move_project(old: str, new: str, env: Mapping[str, str] | None = None) -> None:
    """Move a project's cached team block and outbox marks from identity ``old`` to ``new``
    (nothing is moved over a file or mark already under ``new``)."""
    from conkeeper.domain.paths import data_folder

    folder = data_folder(env)
    source, target = cache_file(folder, old), cache_file(folder, new)
    if source != target and os.path.isfile(source):
        with contextlib.suppress(OSError):
            if os.path.exists(target):
                os.unlink(source)
            else:
                os.replace(source, target)
    _rename_marks(folder, lambda local: new if local == old else local)


def rekey_marks(env: Mapping[str, str] | None = None) -> None:
    """Name by its digest every mark an earlier version named by a folder holding a credential
    (the mark's name ends with the project's identity, an absolute path or a digest)."""
    from conkeeper.domain.paths import data_folder, stored_identity

    _rename_marks(data_folder(env), stored_identity)


def _rename_marks(folder: str, rename: Callable[[str], str]) -> None:
    """Rewrite ``marks.json`` with each mark's local identity passed through ``rename``
    (written whole, or not at all; unchanged marks leave the file untouched)."""
    path = marks_file(folder)
    try:
        with open(path, encoding="utf-8") as handle:
            marks = json.load(handle)
    except (OSError, ValueError):
        return
    if not isinstance(marks, dict):
        return
    renamed: dict[str, object] = {}  # a mark already under the new name is kept
    for name, mark in marks.items():
        head, local = _split(str(name))
        moved = f"{head}{rename(local)}" if local else name
        renamed.setdefault(moved, mark)
    if renamed != marks:
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(renamed, handle, sort_keys=True)
        os.replace(temporary, path)


def _split(name: str) -> tuple[str, str]:
    """A mark's name as (server, team and project key up to the ``|`` before the local
    identity; that identity) when the identity is a path (the part from the first ``|/``),
    else ``("", "")``: a digest identity is never renamed."""
    start = name.find("|/")
    return (name[: start + 1], name[start + 1 :]) if start >= 0 else ("", "")
