"""The team join of one data home: server URL, token and an install id, kept 0600.

Why it exists: ``conkeeper team join URL --token TOKEN`` must keep the token out of every
project folder (it would end up in git) and readable only by its owner. It lives in
``<data home>/team/credentials.json``, written with mode 0600 from the start (never a
world-readable moment), with a random ``install_id`` that makes this machine's rows distinct.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import NamedTuple

from conkeeper.domain.paths import data_home

FILENAME = "credentials.json"


class TeamCredentials(NamedTuple):
    """Where the team server is and how this data home proves who it is."""

    url: str
    token: str
    install_id: str
    team: str = ""  # the token's team, as the server named it at join ("" before it was kept)


class CredentialsError(Exception):
    """The join is missing or unreadable; one line saying what to do."""


def team_dir() -> Path:
    """``<data home>/team``: credentials and sync marks."""
    return data_home() / "team"


def credentials_path() -> Path:
    """The credentials file of this data home."""
    return team_dir() / FILENAME


def save(url: str, token: str, team: str = "") -> TeamCredentials:
    """Store a join (keeping the install id of an earlier one); the file is created 0600."""
    old = load_optional()
    install_id = old.install_id if old else secrets.token_hex(8)
    creds = TeamCredentials(url.rstrip("/"), token, install_id, team)
    folder = team_dir()
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    path = credentials_path()
    tmp = path.with_name(f".{FILENAME}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(creds._asdict(), out)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return creds


def load_optional() -> TeamCredentials | None:
    """The join, or ``None`` when this data home has not joined (or the file is unusable)."""
    try:
        data = json.loads(credentials_path().read_text(encoding="utf-8"))
        return TeamCredentials(
            str(data["url"]), str(data["token"]), str(data["install_id"]), str(data.get("team", ""))
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load() -> TeamCredentials:
    """The join, or :class:`CredentialsError` telling the person to join first."""
    creds = load_optional()
    if creds is None:
        raise CredentialsError(
            "this machine has not joined a team server; run: conkeeper team join URL --token TOKEN"
        )
    return creds
