"""Install records: what ``conkeeper install --agent`` did to each file, kept in the data home.

Why it exists: uninstall must give the user's file back byte for byte, and remove only what
install inserted when the user changed other parts since. So for every file it changes, install
keeps, under ``<data home>/installs/<key>.*``, the bytes before (``.orig``, absent when install
created the file), the bytes it wrote (``.installed``) and the byte spans it inserted and the
folders it created (``.json``). These are ConKeeper's own files (the agent configs themselves
are written through :mod:`conkeeper.domain.safewrite`); a record is dropped on uninstall.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conkeeper.domain.paths import data_home

RECORD_VERSION = 2


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
        original = (folder / f"{key}.orig").read_bytes() if existed else None
        installed = None
        if meta.get("version") == RECORD_VERSION:
            installed = (folder / f"{key}.installed").read_bytes()
        spans = tuple((int(s), int(e)) for s, e in meta.get("spans", []))
        return Record(existed, original, installed, spans, [str(d) for d in meta.get("dirs", [])])
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def save_record(
    path: Path,
    original: bytes | None,
    installed: bytes | None,
    spans: tuple[tuple[int, int], ...],
    dirs: list[str],
    env: Mapping[str, str] | None = None,
) -> None:
    """Keep what install did to ``path`` (replacing an earlier record)."""
    folder = records_dir(env)
    folder.mkdir(parents=True, exist_ok=True)
    key = _key(path)
    meta = {
        "version": RECORD_VERSION,
        "path": str(path),
        "existed": original is not None,
        "dirs": dirs,
        "spans": [list(s) for s in spans],
    }
    if original is not None:
        (folder / f"{key}.orig").write_bytes(original)
    else:
        (folder / f"{key}.orig").unlink(missing_ok=True)
    (folder / f"{key}.installed").write_bytes(installed or b"")
    (folder / f"{key}.json").write_text(json.dumps(meta), "utf-8")


def forget_record(path: Path, env: Mapping[str, str] | None = None) -> list[str]:
    """Drop a file's record; returns the folders install created, to remove when empty."""
    record = load_record(path, env)
    for suffix in (".json", ".orig", ".installed"):
        (records_dir(env) / f"{_key(path)}{suffix}").unlink(missing_ok=True)
    return record.dirs if record else []
