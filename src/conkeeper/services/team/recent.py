"""The "from your team" cache: teammates' newest decisions and bug fixes for SessionStart.

Why it exists: SessionStart may show a short block of what teammates recently decided or fixed
in this project, but a hook never touches the network. The sync (outside every hook) asks the
server and writes ``<data home>/team/recent/<project identity, escaped>.json``; SessionStart
only reads that small file. Imported on the hook path: standard library only, no ``hashlib``,
and any problem reads as "nothing to show".
"""

from __future__ import annotations

import json
import os

MAX_ITEMS = 5


MAX_NAME = 200  # characters of a cache file's name before ".json"


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


def _checksum(text: str) -> str:
    """FNV-1a (64 bits) of ``text``, in hex: deterministic and free of imports (the hook path
    imports no ``hashlib``)."""
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogatepass"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def read_recent(data_folder: str, identity: str) -> list[dict[str, str]]:
    """The cached items (author, type, title, when), ``[]`` when there is none or it is bad."""
    try:
        with open(cache_file(data_folder, identity), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return []
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    return [
        {key: str(item.get(key, "")) for key in ("author", "type", "title", "when")}
        for item in items[:MAX_ITEMS]
        if isinstance(item, dict)
    ]


def write_recent(data_folder: str, identity: str, items: list[dict[str, str]]) -> None:
    """Replace the cache of a project (atomically: SessionStart never reads half a file)."""
    path = cache_file(data_folder, identity)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump({"items": items[:MAX_ITEMS]}, handle, ensure_ascii=False)
    os.replace(tmp, path)


def drop_all(data_folder: str) -> int:
    """Remove every project's cached block (the server refused the token: a member removed
    from the team must not go on seeing it); how many were removed."""
    folder = cache_folder(data_folder)
    try:
        names = [name for name in os.listdir(folder) if name.endswith(".json")]
    except OSError:
        return 0
    removed = 0
    for name in names:
        try:
            os.unlink(os.path.join(folder, name))
            removed += 1
        except OSError:
            continue
    return removed
