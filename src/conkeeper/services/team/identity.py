"""A project's identity on the team server: the same on every machine and every clone.

Why it exists: the local database names a project by its work-tree path, which differs per
machine. The team server needs a name every teammate's clone shares: the ``origin`` remote's
URL, normalized so the ssh and https forms of one repository (``git@github.com:acme/app.git``,
``https://github.com/acme/app``, ``ssh://git@github.com/acme/app.git``) are one project. The
project's ``team_project_id`` setting (committed in ``.memory-config.md``) overrides it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_SCP_LIKE = re.compile(r"^(?:(?P<user>[^@/]+)@)?(?P<host>[^:/]+):(?P<path>(?!/).+)$")
_URL = re.compile(
    r"^(?P<scheme>[a-z][a-z0-9+.-]*)://(?:[^@/]*@)?(?P<host>[^/:]+)(?::\d+)?(?P<path>/.*)?$",
    re.IGNORECASE,
)


def normalize_origin(url: str) -> str | None:
    """``host/owner/repo`` (lower case, no scheme, user, port, ``.git`` or trailing slash) for
    a git remote URL; ``None`` when it is not one. The path is lower-cased too: the forges
    (GitHub, GitLab, Bitbucket, Gitea) treat ``Acme/Shop`` and ``acme/shop`` as one repository,
    and a clone made from a hand-typed or copied URL must not split a team's project in two."""
    text = url.strip()
    if not text:
        return None
    match = _URL.match(text)
    if match:
        host, path = match["host"], match["path"] or ""
    else:
        scp = _SCP_LIKE.match(text)
        if scp is None:
            return None
        host, path = scp["host"], scp["path"]
    path = path.strip("/").lower()
    if path.endswith(".git"):
        path = path[:-4]
    path = path.strip("/")
    if not path:
        return None
    return f"{host.lower()}/{path}"


def origin_url(root: Path) -> str | None:
    """The ``origin`` remote's URL of the repository at ``root`` (``None`` without one)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "config", "--get", "remote.origin.url"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    return value if done.returncode == 0 and value else None


def project_key(root: Path, override: str = "") -> str | None:
    """The team-server key of the project at ``root``: ``override`` (the ``team_project_id``
    setting) when set, else the normalized ``origin`` URL; ``None`` when it has neither."""
    if override.strip():
        return override.strip()
    url = origin_url(root)
    return normalize_origin(url) if url else None
