"""SessionEnd: mark the session ended and hand anything slow to a detached process.

The host gives SessionEnd about 1.5 s in total, so this hook only updates one row. Turning the
session's tool events into observations and a summary (``conkeeper extract``, when this
installation has it, followed by a team sync when the project shares with a team) runs in a
new process session with no pipes back to the hook, so the hook
exits at once and the host never waits for it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

from conkeeper.hooks.payload import HookContext, HookResult

EXTRACT_MODULE = "conkeeper.cli.cmd_extract"
# Set to 0 to start nothing detached (automation, tests that run the worker's steps themselves).
DETACHED_ENV = "CONKEEPER_DETACHED"


def handle(ctx: HookContext) -> HookResult | None:
    """End the session row (kept for later when the database will not take it: locked past
    the hook's wait, damaged), then start the extractor detached."""
    from conkeeper.storage.sessions import end_session
    from conkeeper.storage.store import now_ms

    if ctx.location is None:
        return None
    ended_at = now_ms()
    try:
        end_session(ctx.store(), ctx.session_id(), ctx.payload.reason, ended_at=ended_at)
    except Exception as exc:
        ctx.log(f"could not mark the session ended: {exc}", "WARNING")
        from conkeeper.storage.pending import SESSION_END

        reason = (ctx.payload.reason or "")[:100] or None
        ctx.keep_for_later(SESSION_END, {"ended_at": ended_at, "end_reason": reason})
    if importlib.util.find_spec(EXTRACT_MODULE) is not None:
        args = ["extract", "--session", ctx.payload.session_id, "--quiet", "--backup-if-due"]
        start_detached(ctx, [*args, "--team-sync"] if _team_sync_on(ctx) else args)
    return None


def _team_sync_on(ctx: HookContext) -> bool:
    """Whether the project shares with a team this data home has joined: the detached worker
    then pushes after extracting (the hook itself never touches the network)."""
    from conkeeper.domain.paths import data_folder

    if not ctx.config.team_sync:
        return False
    return os.path.isfile(os.path.join(data_folder(ctx.env), "team", "credentials.json"))


def start_detached(ctx: HookContext, args: list[str]) -> int | None:
    """Run ``conkeeper ARGS`` in its own process session; returns its pid (None on failure).

    Output goes to ``<data home>/logs/background.log``; stdin is closed, no descriptors are
    inherited, and the hook does not wait. ``CONKEEPER_DETACHED=0`` starts nothing.
    """
    from conkeeper.domain.paths import log_dir

    if ctx.env.get(DETACHED_ENV) == "0":
        ctx.log(f"not starting 'conkeeper {' '.join(args)}': {DETACHED_ENV}=0")
        return None
    env = dict(ctx.env)
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH", "")]))
    try:
        folder = log_dir(ctx.env)
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "background.log", "ab") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "conkeeper", *args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                cwd=str(ctx.location.root) if ctx.location else None,
                env=env,
                close_fds=True,
                start_new_session=True,
            )
    except OSError as exc:
        ctx.log(f"could not start 'conkeeper {' '.join(args)}': {exc}", "WARNING")
        return None
    ctx.log(f"started 'conkeeper {' '.join(args)}' detached (pid {proc.pid})")
    return proc.pid
