"""Whether a project folder's path holds a credential, decided once and remembered by digest.

Why it exists: a project whose folder is named after a credential is stored by a digest
identity (``domain.paths.stored_identity``), and deciding that runs the secrets scanner over
the path: every rule compiled, about 9 ms, on every hook of such a folder (and of a folder
whose plain name merely looks like one, ``release2026Final``). The answer never changes for
a path, so the hooks keep it in ``<data home>/state/identities/<digest>``: the file's name is
the digest ``stored_identity`` would use (never the path), its content ``1`` (the path holds a
credential) or ``0``; and how the write journal keys the files under a project root
(``state/folders/<digest of the root>``: where its credential ends, the root redacted). Paths
no scanner would look at never reach this module. Standard library
only (``_sha256``, not ``hashlib``): the hook path imports it.
"""

from __future__ import annotations

import contextlib
import os

from conkeeper.domain.paths import DIGEST_PREFIX, state_dir, stored_identity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

FOLDER = "identities"
ROOTS = "folders"  # how the write journal keys a project root's files, by the root's digest


def identifier(env: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """``stored_identity`` for the hooks (pass it to ``domain.paths.locate_project``): the
    same answer, read from the cache when this path was decided before."""
    return lambda live: cached_identity(live, env)


def cached_identity(live: str, env: Mapping[str, str] | None = None) -> str:
    """The identity ConKeeper stores for the live identity path ``live``
    (:func:`conkeeper.domain.paths.stored_identity`), scanned once per path."""
    from conkeeper.domain.messages import may_hold_token

    if not live or not may_hold_token(live):
        return live
    digest = _digest(live)
    path = os.path.join(str(state_dir(env)), FOLDER, digest)
    try:
        with open(path, "rb") as handle:
            known = handle.read(2)
    except OSError:
        known = b""
    if known in (b"0", b"1"):
        return DIGEST_PREFIX + digest if known == b"1" else live
    stored = stored_identity(live)
    _remember(path, b"1" if stored != live else b"0")
    return stored


def remember_folder(root: str, env: Mapping[str, str] | None = None) -> None:
    """Give the write journal (``domain.safewrite.known_folder``) how files under the project
    root ``root`` are keyed, scanned once per root: ``<digest of root>`` holds where its last
    name holding a credential ends and the root up to there, redacted (never the path)."""
    from conkeeper.domain.messages import may_hold_token

    if not root or not may_hold_token(root):
        return  # a plain root: the journal never scans it, and the hook never loads it
    from conkeeper.domain import safewrite

    path = os.path.join(str(state_dir(env)), ROOTS, _digest(root))
    try:
        with open(path, encoding="utf-8") as handle:
            cut_text, _, shown = handle.read(8192).partition("\n")
        cut = int(cut_text)
    except (OSError, ValueError):
        cut, shown = safewrite.folder_key(root)
        _remember(path, f"{cut}\n{shown}".encode())
    safewrite.known_folder(root, cut, shown)


def _digest(live: str) -> str:
    """The digest ``domain.session_id.without_secret`` names such a path by."""
    import _sha256  # the C module behind hashlib.sha256, without hashlib's imports

    return str(_sha256.sha256(live.encode("utf-8", "surrogatepass")).hexdigest())[:32]


def _remember(path: str, answer: bytes) -> None:
    """Write the answer whole (a temporary file renamed over), or not at all."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as handle:
            handle.write(answer)
        os.replace(temporary, path)
