"""Running git for the freshness checks, and reading ``HEAD`` without running it.

Every freshness feature asks git a handful of questions per run, never one per entry: each
call here is bounded by a timeout and returns ``None`` when git is missing, the folder is not a
repository, or the call fails, so callers degrade to "cannot tell" instead of raising. Reading
``HEAD`` from the files in ``.git`` (linked worktrees and packed refs included) costs no process
and keys the SessionStart cache.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

GIT_TIMEOUT_S = 5.0
_GIT_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")


def run_git(
    root: Path, args: Sequence[str], *, stdin: str | None = None, timeout: float = GIT_TIMEOUT_S
) -> str | None:
    """``git -C root ARGS`` output decoded as UTF-8 (errors replaced), or ``None`` on failure.

    Pagers, colours, external diff drivers and path quoting are switched off, so the output is
    machine-readable whatever the user's git configuration says.
    """
    import subprocess  # not at import time: SessionStart reads the cache without git

    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROP}
    env.update({"GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"})
    command = [
        "git",
        "-C",
        str(root),
        "-c",
        "core.quotePath=false",
        "-c",
        "color.ui=false",
        "-c",
        "log.showSignature=false",
        *args,
    ]
    try:
        proc = subprocess.run(
            command,
            input=stdin.encode("utf-8") if stdin is not None else None,
            capture_output=True,
            timeout=timeout,
            check=False,
            env=env,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", errors="replace")


def run_git_parallel(
    root: Path,
    calls: Sequence[tuple[Sequence[str], str | None]],
    timeout: float = GIT_TIMEOUT_S,
    during: Callable[[], None] | None = None,
) -> list[str | None]:
    """Several independent ``run_git`` calls at once (``(args, stdin)`` each), in order.

    Git spends most of its time reading objects, so on a multi-core machine the wall time is
    the slowest call rather than the sum. ``during`` runs in this thread while git works (the
    caller's own parsing, overlapped with git's). One call without ``during`` runs inline.
    """
    if len(calls) <= 1 and during is None:
        return [run_git(root, args, stdin=stdin, timeout=timeout) for args, stdin in calls]
    import threading

    results: list[str | None] = [None] * len(calls)

    def work(index: int, args: Sequence[str], stdin: str | None) -> None:
        results[index] = run_git(root, args, stdin=stdin, timeout=timeout)

    threads = [
        threading.Thread(target=work, args=(i, args, stdin), daemon=True)
        for i, (args, stdin) in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    try:
        if during is not None:
            during()
    finally:
        for thread in threads:
            thread.join(timeout + 1)
    return results


def git_dir(root: Path) -> Path | None:
    """The git directory of the work tree at ``root`` (a linked worktree's private one)."""
    marker = root / ".git"
    try:
        if marker.is_dir():
            return marker
        if marker.is_file():
            first = marker.read_text(encoding="utf-8", errors="replace").splitlines()[0]
            if first.startswith("gitdir:"):
                target = Path(first.split(":", 1)[1].strip())
                return target if target.is_absolute() else (root / target)
    except (OSError, IndexError):
        return None
    return None


def _common_dir(gitdir: Path) -> Path:
    try:
        rel = (gitdir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return gitdir
    path = Path(rel)
    return path if path.is_absolute() else gitdir / path


def _resolve_ref(gitdir: Path, ref: str) -> str | None:
    for base in (gitdir, _common_dir(gitdir)):
        try:
            value = (base / ref).read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if len(value) >= 40:
            return value[:40]
    try:
        packed = (_common_dir(gitdir) / "packed-refs").read_text(encoding="utf-8")
    except OSError:
        return None
    for line in packed.splitlines():
        if line.endswith(" " + ref) and len(line) > 41:
            return line[:40]
    return None


def read_head(root: Path) -> str | None:
    """The commit ``HEAD`` points at, read from ``.git`` without starting git (``None`` when
    there is no repository or no commit yet)."""
    gitdir = git_dir(root)
    if gitdir is None:
        return None
    try:
        head = (gitdir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if head.startswith("ref:"):
        return _resolve_ref(gitdir, head[4:].strip())
    return head[:40] if len(head) >= 40 else None
