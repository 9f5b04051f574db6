"""The "from your team" cache: teammates' newest decisions and bug fixes for SessionStart.

Why it exists: SessionStart may show a short block of what teammates recently decided or fixed
in this project, but a hook never touches the network. The sync (outside every hook) asks the
server and writes ``<data home>/team/recent/<project identity, escaped>.json`` (named by
``storage.team_files``); SessionStart only reads that small file. Imported on the hook path:
standard library only, no ``hashlib``, and any problem reads as "nothing to show".
"""

from __future__ import annotations

import json
import os

from conkeeper.storage.team_files import cache_file, cache_folder

__all__ = ["MAX_ITEMS", "cache_file", "cache_folder", "drop_all", "read_recent", "write_recent"]

MAX_ITEMS = 5


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
