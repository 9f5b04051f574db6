"""A project's identity on the team server: the same on every machine and every clone.

Why it exists: the local database names a project by its work-tree path, which differs per
machine. The team server needs a name every teammate's clone shares: the ``origin`` remote's
URL, normalized so the ssh and https forms of one repository (``git@github.com:acme/app.git``,
``https://github.com/acme/app``, ``ssh://git@github.com/acme/app.git``, and the ssh URL with a
colon path ``ssh://git@github.com:acme/app.git``) are one project. The project's
``team_project_id`` setting (committed in ``.memory-config.md``) overrides it.

Two spellings only the machine knows are resolved the way git itself would connect: the URL is
read with git's ``url.<base>.insteadOf`` rewrites applied (``git remote get-url``), and an ssh
host alias (``git@github-work:acme/app.git`` with ``Host github-work`` / ``HostName github.com``
in the ssh config) is resolved by ssh itself (``ssh -G``, which reads the config, ``Include``
and ``Match`` included, and connects to nothing), with the ssh command git uses for the
repository (``GIT_SSH_COMMAND`` or ``core.sshCommand``, when it is ssh).

A key travels in every push and search (a search's URL, which a proxy may log), so one holding
a secret or a private marker (a token pasted as ``team_project_id``) is refused here, before
anything leaves the machine (:class:`KeyRefused`), as every text a sync sends is gated.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

from conkeeper.services.team.gate import text_problem

_SCP_LIKE = re.compile(r"^(?:(?P<user>[^@/]+)@)?(?P<host>[^:/]+):(?P<path>(?!/).+)$")
_URL = re.compile(
    # the userinfo runs to the last "@" before the path, as git and curl read it (a password
    # may hold an "@" of its own); a port may be empty ("host:/path")
    r"^(?P<scheme>[a-z][a-z0-9+.-]*)://(?:[^/]*@)?(?P<host>[^/:@]+)(?::\d*)?(?P<path>/.*)?$",
    re.IGNORECASE,
)
# An ssh URL whose path follows the host after a colon, as in the scp form
# (``ssh://git@host:acme/shop.git``): the same repository as ``git@host:acme/shop.git``.
_SSH_COLON_PATH = re.compile(
    r"^(?P<scheme>ssh|git\+ssh|ssh\+git)://(?:[^/]*@)?(?P<host>[^/:@]+):(?P<path>(?!\d*(?:/|$)).+)$",
    re.IGNORECASE,
)
SSH_SCHEMES = ("ssh", "git+ssh", "ssh+git")


def _host_and_path(text: str) -> tuple[str | None, str, str] | None:
    """A remote URL's scheme (``None`` for the scp form), host as written and path, or
    ``None`` when ``text`` is not a remote URL."""
    for pattern in (_URL, _SSH_COLON_PATH):
        match = pattern.match(text)
        if match:
            return match["scheme"].lower(), match["host"], match["path"] or ""
    scp = _SCP_LIKE.match(text)
    return (None, scp["host"], scp["path"]) if scp else None


def normalize_origin(url: str) -> str | None:
    """``host/owner/repo`` (lower case, no scheme, user, port, ``.git`` or trailing slash) for
    a git remote URL; ``None`` when it is not one. The path is lower-cased too: the forges
    (GitHub, GitLab, Bitbucket, Gitea) treat ``Acme/Shop`` and ``acme/shop`` as one repository,
    and a clone made from a hand-typed or copied URL must not split a team's project in two."""
    parts = _host_and_path(url.strip())
    if parts is None:
        return None
    _scheme, host, path = parts
    path = path.strip("/").lower()
    if path.endswith(".git"):
        path = path[:-4]
    path = path.strip("/")
    if not path:
        return None
    return f"{host.lower()}/{path}"


def ssh_host(url: str) -> str | None:
    """The host an ssh remote URL names as written (an alias, maybe), else ``None`` (https,
    git, file and what is not a remote)."""
    parts = _host_and_path(url.strip())
    if parts is None:
        return None
    scheme, host, _path = parts
    return host if scheme is None or scheme in SSH_SCHEMES else None


def origin_url(root: Path) -> str | None:
    """The ``origin`` remote's URL of the repository at ``root`` as git connects to it (its
    ``insteadOf`` rewrites applied), ``None`` without one."""
    value = _git(root, "remote", "get-url", "origin")
    return value or _git(root, "config", "--get", "remote.origin.url")


def _git(root: Path, *args: str) -> str | None:
    """One git command's output at ``root``, ``None`` when it fails or says nothing."""
    return _output(["git", "-C", str(root), *args])


def _output(argv: list[str]) -> str | None:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=5, check=False, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    return value if done.returncode == 0 and value else None


def resolved_ssh_host(root: Path, host: str) -> str:
    """The host ssh really connects to for ``host`` (an alias's ``HostName``), asked of ssh
    itself with the command git uses for this repository; ``host`` when ssh cannot say."""
    answer = _output([*_ssh_command(root), "-G", "--", host])
    for line in (answer or "").splitlines():
        key, _, value = line.partition(" ")
        if key.lower() == "hostname" and value.strip():
            return value.strip()
    return host


def _ssh_command(root: Path) -> list[str]:
    """``GIT_SSH_COMMAND`` or ``core.sshCommand`` when it runs ssh (a ``-F`` config file or an
    ``-o`` kept), else plain ``ssh``: a wrapper script may not know ``-G``."""
    command = os.environ.get("GIT_SSH_COMMAND") or _git(root, "config", "--get", "core.sshCommand")
    try:
        words = shlex.split(command or "")
    except ValueError:
        words = []
    if words and os.path.basename(words[0]) == "ssh":
        return words
    return ["ssh"]


class KeyRefused(ValueError):
    """A project's key holds a secret or a private marker: it may not leave the machine (the
    message says which setting to change, and holds no part of the key)."""


def project_key(root: Path, override: str = "") -> str | None:
    """The team-server key of the project at ``root``: ``override`` (the ``team_project_id``
    setting) when set, else the normalized ``origin`` URL (an ssh alias resolved to its host);
    ``None`` when it has neither. :class:`KeyRefused` when the key holds a secret or a private
    marker (it would be sent in every push and search)."""
    key = _key(root, override)
    if key is not None and text_problem(key):
        setting = "team_project_id" if override.strip() else "the git origin URL"
        raise KeyRefused(
            f"this project's team key ({setting}) holds a secret or a private marker, so it "
            "is not sent; set another with 'conkeeper config set team_project_id NAME'"
        )
    return key


def _key(root: Path, override: str) -> str | None:
    """:func:`project_key` before its privacy check."""
    if override.strip():
        return override.strip()
    url = origin_url(root)
    key = normalize_origin(url) if url else None
    host = ssh_host(url) if url and key else None
    if key is None or host is None:
        return key
    real = resolved_ssh_host(root, host).lower()
    return real + key[len(host) :] if real != host.lower() else key
