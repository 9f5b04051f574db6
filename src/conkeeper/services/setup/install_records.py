"""Install records: what ``conkeeper install --agent`` did to each file, kept in the data home.

Why it exists: uninstall must give the user's file back byte for byte, and remove only what
install inserted when the user changed other parts since. So for every file it changes, install
keeps, in one file ``<data home>/installs/<key>.json``, the bytes before (absent when install
created the file), the bytes it wrote, the byte spans it inserted and the folders it created.
The file is written whole and renamed into place, so a kill or a second install at the same
moment leaves the old record or the new one, never the bytes before of one install beside the
spans of another (records of older versions kept these in ``.orig`` and ``.installed`` files
beside it, still read). These are ConKeeper's own files (the agent configs themselves are
written through :mod:`conkeeper.domain.safewrite`); a record is dropped on uninstall.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conkeeper.domain.paths import data_home

RECORD_VERSION = 3  # 2: bytes in .orig/.installed beside the .json (read, never written)


@dataclass
class Record:
    """What install did to one file: the bytes before and after, and the spans it inserted."""

    existed: bool
    original: bytes | None
    installed: bytes | None  # None: an older record that kept only the original
    spans: tuple[tuple[int, int], ...]
    dirs: list[str]


def records_dir(env: Mapping[str, str] | None = None) -> Path:
    """``<data home>/installs``."""
    return data_home(env) / "installs"


def _key(path: Path) -> str:
    return hashlib.sha256(str(path.absolute()).encode()).hexdigest()[:24]


def load_record(path: Path, env: Mapping[str, str] | None = None) -> Record | None:
    """The record of ``path``, or ``None`` (none, or unreadable)."""
    folder = records_dir(env)
    key = _key(path)
    try:
        meta = json.loads((folder / f"{key}.json").read_text("utf-8"))
        existed = bool(meta.get("existed"))
        if meta.get("version") == RECORD_VERSION:
            original = base64.b64decode(meta["original"]) if existed else None
            installed: bytes | None = base64.b64decode(meta["installed"])
        else:
            original, installed = _legacy_bytes(folder, key, meta, existed)
        spans = tuple((int(s), int(e)) for s, e in meta.get("spans", []))
        return Record(existed, original, installed, spans, [str(d) for d in meta.get("dirs", [])])
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def _legacy_bytes(
    folder: Path, key: str, meta: dict[str, object], existed: bool
) -> tuple[bytes | None, bytes | None]:
    """The bytes of a record an older version kept in files beside its ``.json``."""
    original = (folder / f"{key}.orig").read_bytes() if existed else None
    installed = (folder / f"{key}.installed").read_bytes() if meta.get("version") == 2 else None
    return original, installed


def save_record(
    path: Path,
    original: bytes | None,
    installed: bytes | None,
    spans: tuple[tuple[int, int], ...],
    dirs: list[str],
    env: Mapping[str, str] | None = None,
) -> None:
    """Keep what install did to ``path``, replacing an earlier record in one rename."""
    from conkeeper.domain.safewrite import TEMP_SUFFIX, seam, sweep_temps

    folder = records_dir(env)
    folder.mkdir(parents=True, exist_ok=True)
    sweep_temps(str(folder))  # records of installs killed before their rename
    key = _key(path)
    meta = {
        "version": RECORD_VERSION,
        "path": str(path),
        "existed": original is not None,
        "original": base64.b64encode(original or b"").decode("ascii"),
        "installed": base64.b64encode(installed or b"").decode("ascii"),
        "dirs": dirs,
        "spans": [list(s) for s in spans],
    }
    tmp = folder / f".{key}.json.{os.getpid()}.0{TEMP_SUFFIX}"
    try:
        with open(tmp, "wb") as handle:
            handle.write(json.dumps(meta).encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        seam("record")
        os.replace(tmp, folder / f"{key}.json")
    finally:
        tmp.unlink(missing_ok=True)
    for suffix in (".orig", ".installed"):  # an older version's files, superseded
        (folder / f"{key}{suffix}").unlink(missing_ok=True)


def forget_record(path: Path, env: Mapping[str, str] | None = None) -> list[str]:
    """Drop a file's record; returns the folders install created, to remove when empty."""
    from conkeeper.domain.safewrite import sweep_temps

    record = load_record(path, env)
    sweep_temps(str(records_dir(env)))  # records of installs killed before their rename
    for suffix in (".json", ".orig", ".installed"):
        (records_dir(env) / f"{_key(path)}{suffix}").unlink(missing_ok=True)
    return record.dirs if record else []


def forget_undone(paths: list[str], env: Mapping[str, str] | None = None) -> None:
    """After ``undo`` took an install back: drop the record of each file that holds its bytes
    from before the install again (gone, when install created it), and remove the folders
    install created for it once empty, as uninstall does. Found undoing an install: its
    ``.cursor/rules`` folder and its records stayed behind."""
    leftover: list[str] = []
    for text in paths:
        path = Path(text)
        record = load_record(path, env)
        if record is None:
            continue
        try:
            current: bytes | None = path.read_bytes()
        except FileNotFoundError:
            current = None
        except OSError:
            continue
        if current == record.original:
            leftover += forget_record(path, env)
    for folder in sorted(set(leftover), key=len, reverse=True):
        try:
            Path(folder).rmdir()  # only when empty
        except OSError:
            continue
