"""Per-session hook state: counters and once-only flags shared by parallel hook processes.

Claude Code runs matching hooks in parallel and each hook is a fresh process, so anything a
hook must remember between calls (the prompt number, the save-reminder counter, whether the
sync nudge or the hard block already fired, tool start times for durations) lives in a small
JSON file per session under ``<data home>/state/<sha1(project identity)[:16]>/<session>.json``.
Every change is a read-modify-write under an exclusive ``flock`` on that file, so two hooks
never lose each other's update, written whole to a temporary file renamed over it (a hook
that waited for the lock and finds the name moved on locks the new file): a full disk leaves
the old state, never a torn one. A damaged file is treated as empty (fail open, logged).

Keys in use (both hook owners): ``prompt_number``, ``tool_count_since_save``,
``sync_nudged``, ``hard_blocked``, ``last_sync_at``, ``last_save_at``, ``reflect_suggested``,
``tool_starts`` ({tool_use_id: start_ms}), ``private_turn``.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from conkeeper.domain.paths import ProjectLocation, state_dir
from conkeeper.domain.textio import locked

try:  # CPython's built-in SHA-1: the same digest as hashlib's without loading OpenSSL (~3 ms)
    from _sha1 import sha1
except ImportError:  # pragma: no cover - interpreters built without it
    from hashlib import sha1

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from typing import Any, TypeVar

    T = TypeVar("T")

STATE_MAX_AGE_DAYS = 14
MAX_STATE_BYTES = 1024 * 1024
MAX_TOOL_STARTS = 256
ROOT_MARK = b"\\u0000root"  # a JSON string's escaped NUL: no path or text the state keeps has it


def project_key(identity: str) -> str:
    """The folder name for a project's state files: a short hash of its identity."""
    digest: str = sha1(identity.encode("utf-8", "replace")).hexdigest()
    return digest[:16]


def project_state_dir(identity: str, env: Mapping[str, str] | None = None) -> Path:
    """Where one project's session state files live."""
    return state_dir(env) / project_key(identity)


def forget_project_state(identity: str, env: Mapping[str, str] | None = None) -> None:
    """Remove a forgotten project's session state files (they name its folders)."""
    import shutil

    shutil.rmtree(project_state_dir(identity, env), ignore_errors=True)


class SessionState:
    """The state file of one host session of one project.

    Nothing touches the disk until :meth:`read` or :meth:`update` is called, so creating one is
    free. ``session_id`` must already be sanitised (``domain.session_id.sanitize_session_id``).
    ``live_root``: the project's root when it is named after a credential (a digest identity):
    the file holds :data:`ROOT_MARK` wherever the state names it, and is read back with the
    root put back in, so the state works as before while the path stays in memory.
    """

    def __init__(
        self,
        identity: str,
        session_id: str,
        env: Mapping[str, str] | None = None,
        *,
        live_root: str = "",
    ) -> None:
        self.identity = identity
        self.session_id = session_id
        self.path = project_state_dir(identity, env) / f"{session_id}.json"
        self._root = json.dumps(live_root)[1:-1].encode("utf-8") if live_root else b""

    def _unmask(self, data: bytes) -> bytes:
        return data.replace(ROOT_MARK, self._root) if self._root else data

    def _mask(self, data: bytes) -> bytes:
        return data.replace(self._root, ROOT_MARK) if self._root else data

    def read(self) -> dict[str, Any]:
        """A snapshot of the state (empty when there is none yet); no lock is needed to read."""
        try:
            with open(self.path, "rb") as handle:
                return _decode(self._unmask(handle.read(MAX_STATE_BYTES + 1)))
        except FileNotFoundError:
            return {}

    def get(self, key: str, default: Any = None) -> Any:
        """One value from a snapshot of the state."""
        return self.read().get(key, default)

    def update(self, fn: Callable[[dict[str, Any]], T]) -> T:
        """Apply ``fn`` to the state atomically with respect to other hook processes.

        ``fn`` receives the current state as a dict, mutates it in place and may return a
        value, which ``update`` returns. The file is replaced only when the state changed, by
        a whole new file renamed over it under the lock (:func:`_replace`): a write that fails
        part way (a full disk) leaves the old state as it was, never a torn file read as empty.
        """
        while True:
            with self._locked_file() as handle:
                if not _still_named(handle.fileno(), self.path):
                    continue  # replaced while we waited for the lock: lock the new file
                before = handle.read(MAX_STATE_BYTES + 1)
                state = _decode(self._unmask(before))
                result = fn(state)
                after = json.dumps(state, sort_keys=True, separators=(",", ":")).encode("utf-8")
                after = self._mask(after)
                if after != before:
                    _replace(self.path, after)
                return result

    @contextlib.contextmanager
    def _locked_file(self) -> Iterator[Any]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        with os.fdopen(fd, "r+b") as handle, locked(handle):
            yield handle


def _still_named(fd: int, path: Path) -> bool:
    """Whether the locked descriptor is still the file ``path`` names (another hook may have
    renamed a new state over it while this one waited for the lock)."""
    held = os.fstat(fd)
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    return (held.st_ino, held.st_dev) == (now.st_ino, now.st_dev)


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``; on any
    failure the temporary file goes and ``path`` keeps its old bytes (the error propagates)."""
    spare = f"{path}.{os.getpid()}.tmp"
    try:
        fd = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            view = memoryview(data)
            while view:  # a short write (a file-size limit) is a failure, never a cut state
                written = os.write(fd, view)
                if written <= 0:
                    raise OSError(28, "No space left on device")
                view = view[written:]
        finally:
            os.close(fd)
        os.replace(spare, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(spare)
        raise


def _decode(data: bytes) -> dict[str, Any]:
    if not data or len(data) > MAX_STATE_BYTES:
        return {}
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        from conkeeper.storage.logfile import log

        log("hook state file was damaged; starting it afresh", level="WARNING")
        return {}
    return value if isinstance(value, dict) else {}


def now_ms() -> int:
    """Current time in Unix milliseconds (the unit of every time stored in state)."""
    return int(time.time() * 1000)


def note_tool_start(data: dict[str, Any], tool_use_id: str, stamp: int) -> None:
    """Inside an ``update``: record a tool's start time (the oldest dropped past a limit)."""
    starts = data.get("tool_starts")
    starts = starts if isinstance(starts, dict) else {}
    starts[tool_use_id] = stamp
    if len(starts) > MAX_TOOL_STARTS:  # tools whose PostToolUse never came
        for key in sorted(starts, key=lambda k: starts[k])[: len(starts) - MAX_TOOL_STARTS]:
            del starts[key]
    data["tool_starts"] = starts


def pop_tool_start(data: dict[str, Any], tool_use_id: str) -> int | None:
    """Inside an ``update``: remove and return the recorded start time of a tool use."""
    starts = data.get("tool_starts")
    if not isinstance(starts, dict) or tool_use_id not in starts:
        return None
    value = starts.pop(tool_use_id)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def latest_session_state(
    identity: str, env: Mapping[str, str] | None = None, *, live_root: str = ""
) -> SessionState | None:
    """The most recently touched session state of a project (for ``conkeeper sync mark``,
    which runs outside any hook and so does not know the session id); ``live_root`` as for
    :class:`SessionState`."""
    folder = project_state_dir(identity, env)
    best: tuple[float, Path] | None = None
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    for entry in entries:
        if not entry.name.endswith(".json"):
            continue
        with contextlib.suppress(OSError):
            mtime = entry.stat().st_mtime
            if best is None or mtime > best[0]:
                best = (mtime, Path(entry.path))
    if best is None:
        return None
    return SessionState(identity, best[1].stem, env, live_root=live_root)


def record_sync(
    location: ProjectLocation,
    session_id: str | None = None,
    *,
    save_only: bool = False,
    env: Mapping[str, str] | None = None,
) -> SessionState | None:
    """Record that memory was synced (or, with ``save_only``, just saved) in a session.

    A save resets the save-reminder counter; a sync also sets ``last_sync_at``, which the
    context monitor reads to decide that the hard block is no longer needed. Without
    ``session_id`` the project's most recently active session is used; returns the state
    written, or ``None`` when the project has no session state at all.
    """
    if session_id:
        state: SessionState | None = SessionState(location.identity, session_id, env)
    else:
        state = latest_session_state(location.identity, env)
    if state is None:
        return None
    stamp = now_ms()

    def apply(data: dict[str, Any]) -> None:
        data["tool_count_since_save"] = 0
        data["last_save_at"] = stamp
        if not save_only:
            data["last_sync_at"] = stamp

    state.update(apply)
    return state


REVIEW_FILE = "consolidate.review"  # not .json: never taken for a session's state
LISTING_FILE = "corrections.listing"  # the queue items the last 'corrections list' showed


def write_project_record(
    identity: str, name: str, data: dict[str, Any], env: Mapping[str, str] | None = None
) -> None:
    """Write one of a project's own records (``name`` in its state folder), whole or not at all
    (a temporary file renamed over it)."""
    folder = project_state_dir(identity, env)
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{name}.{os.getpid()}.tmp"
    temporary.write_bytes(json.dumps(data, sort_keys=True).encode("utf-8"))
    os.replace(temporary, folder / name)


def read_project_record(
    identity: str, name: str, env: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """One of a project's own records, or ``None`` when there is none (or it does not read)."""
    try:
        with open(project_state_dir(identity, env) / name, "rb") as handle:
            data = _decode(handle.read(MAX_STATE_BYTES + 1))
    except OSError:
        return None
    return data or None


def prune_old_state(
    max_age_days: int = STATE_MAX_AGE_DAYS, env: Mapping[str, str] | None = None
) -> int:
    """Delete session state files untouched for ``max_age_days`` and empty project folders.

    Called opportunistically at SessionStart; returns how many files were removed and never
    raises (a race with another process deleting the same file is harmless).
    """
    cutoff = time.time() - max_age_days * 86400
    removed = 0
    root = state_dir(env)
    try:
        folders = [e for e in os.scandir(root) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return 0
    for folder in folders:
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder.path):
                if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
                        removed += 1
            with contextlib.suppress(OSError):
                os.rmdir(folder.path)  # only succeeds when empty
    return removed


def move_project_files(old: str, new: str, env: Mapping[str, str] | None = None) -> None:
    """Move a project's hook state and handoff folders (``handoffs/<key>``, keyed alike) from
    identity ``old`` to ``new`` (schema 8: a folder named after a credential), with the old
    identity's path written in their files replaced by the new identity. Nothing is moved over
    an existing folder."""
    from conkeeper.domain.paths import data_home

    for parent in (state_dir(env), data_home(env) / "handoffs"):
        source, target = parent / project_key(old), parent / project_key(new)
        if not source.is_dir() or target.exists():
            continue
        for path in sorted(source.iterdir()):
            with contextlib.suppress(OSError, UnicodeDecodeError):
                text = path.read_text(encoding="utf-8")
                _replace_whole(path, _without(text, old, new))
        with contextlib.suppress(OSError):
            os.replace(source, target)


def _replace_whole(path: Path, text: str) -> None:
    """Write ``text`` as ``path`` in one rename (a hook reading the file during the schema 8
    move sees the old bytes or the new, never half of them)."""
    spare = path.with_name(f".{path.name}.{os.getpid()}.moving")
    spare.write_text(text, encoding="utf-8")
    os.replace(spare, path)


def _without(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` (as written plainly or in JSON) replaced by ``new``."""
    for spelled in {old, json.dumps(old)[1:-1]}:
        text = text.replace(spelled, new)
    return text
