"""``conkeeper doctor``: find out why memory is not being captured, and say what to fix.

Hooks fail open by design (spec §1.2), so a broken installation is silent from the agent's side.
The doctor is where a person finds out: every check returns OK, WARN or FAIL with one line on
what was found and, when it is not OK, one line on what to do. Checks never modify anything
except a probe file in the data home, which they remove again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from conkeeper.domain.messages import disk_full_message
from conkeeper.domain.paths import (
    data_home,
    db_path,
    global_memory_dir,
    locate_project,
    log_dir,
)

OK, WARN, FAIL = "OK", "WARN", "FAIL"
MIN_PYTHON = (3, 10)
LOG_TAIL_BYTES = 256 * 1024


@dataclass
class Check:
    """The outcome of one check: status, what was found, and what to do about it."""

    name: str
    status: str
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        """A JSON-friendly form for ``--json``."""
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


def check_python() -> Check:
    """The running interpreter must be 3.10 or newer (the hooks use the same one)."""
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info[:2] < MIN_PYTHON:
        return Check("python", FAIL, f"Python {version}", "install Python 3.10 or newer")
    return Check("python", OK, f"Python {version} at {sys.executable}")


def check_sqlite() -> Check:
    """SQLite must provide FTS5, which search depends on."""
    from conkeeper.storage.health import fts5_available

    version = sqlite3.sqlite_version
    if not fts5_available():
        return Check(
            "sqlite",
            FAIL,
            f"SQLite {version} without FTS5",
            "use a Python whose sqlite3 module has FTS5 (python.org, Homebrew and most Linux "
            "builds do); set CONKEEPER_PYTHON to it for the plugin",
        )
    return Check("sqlite", OK, f"SQLite {version} with FTS5")


def check_data_home(env: Mapping[str, str] | None = None) -> Check:
    """The data home must be a writable folder (database, logs, hook state live there)."""
    home = data_home(env)
    if home.exists() and not home.is_dir():
        return Check("data home", FAIL, f"{home} is a file", "move it aside or set CONKEEPER_HOME")
    probe = home / f".doctor-probe-{os.getpid()}"
    try:
        home.mkdir(parents=True, exist_ok=True)
        probe.write_text("ok", encoding="utf-8")
    except OSError as exc:
        return _unwritable_home(home, exc)
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
    return Check("data home", OK, f"{home} is writable")


def _unwritable_home(home: Path, exc: OSError) -> Check:
    """The failed data-home check: a full disk (or a file-size limit) named as such, with the
    mount point to free space on; anything else is a permissions problem."""
    full = disk_full_message(exc, str(home))
    if full is None and exc.errno == errno.EFBIG:
        full = f"a file-size limit stops writes under {home}: raise it (ulimit -f) and retry"
    if full is not None:
        return Check("data home", FAIL, f"{home} is not writable ({exc.strerror or exc})", full)
    return Check(
        "data home",
        FAIL,
        f"{home} is not writable ({exc.strerror or exc})",
        f"fix the permissions of {home} or set CONKEEPER_HOME to a writable folder",
    )


def check_database(env: Mapping[str, str] | None = None) -> Check:
    """The database must open and migrate; a newer file is reported, not touched, and a
    damaged one is restored (backup, row journal, salvage) with what was restored said."""
    from conkeeper.services.workspace import open_or_restore
    from conkeeper.storage.health import journal_mode
    from conkeeper.storage.store import SCHEMA_VERSION, StoreError, schema_version

    path = db_path(env)
    notices: list[str] = []
    try:
        conn = open_or_restore(path, on_notice=notices.append)
    except StoreError as exc:
        return Check("database", FAIL, str(exc), "see the message; memory files are unaffected")
    if notices:
        conn.close()
        return Check(
            "database",
            WARN,
            notices[0],
            "check your sessions ('conkeeper sessions'); 'conkeeper export --all -o FILE' "
            "keeps a copy of your own",
        )
    try:
        version = schema_version(conn)
        journal = journal_mode(conn)
    finally:
        conn.close()
    detail = f"{path} (schema {version}/{SCHEMA_VERSION}, journal {journal})"
    return _behind_backup(path) or Check("database", OK, detail)


def _behind_backup(path: Path) -> Check | None:
    """A database lacking sessions its backup holds (deleted or replaced by an older copy, then
    made anew by the next hook): sound to SQLite, so nothing else notices; the next backup
    restores them (``storage.recovery``)."""
    from conkeeper.storage.recovery import sessions_only_in_backup

    missing = sessions_only_in_backup(path)
    if not missing:
        return None
    return Check(
        "database",
        WARN,
        f"{path} lacks {missing} session(s) its backup holds (deleted or replaced?)",
        "'conkeeper backup' restores them from the backup and the row journal",
    )


def check_backup(env: Mapping[str, str] | None = None) -> Check:
    """When the session history was last backed up, and how much the row journal holds since."""
    import time

    from conkeeper.storage.recovery import backup_folder, last_backup, last_restore

    path = db_path(env)
    restored = last_restore(path)
    if restored is not None:
        return Check(
            "backup", WARN, f"lately {restored}", "check your sessions ('conkeeper sessions')"
        )
    info = last_backup(path)
    journal = backup_folder(path) / "journal.jsonl"
    pending = journal.stat().st_size if journal.exists() else 0
    since = f"; {pending / 1024:,.0f} KB journaled since" if pending else ""
    if info is None:
        if not pending:
            return Check("backup", OK, "nothing recorded yet")
        return Check(
            "backup",
            OK,
            f"no backup yet; the row journal holds the history{since}",
            "'conkeeper backup' takes one now",
        )
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.taken_at))
    return Check("backup", OK, f"{info.path} from {when}{since}")


def _memory_root_check(name: str, root: Path, required: bool) -> Check:
    if root.exists() and not root.is_dir():
        return Check(name, FAIL, f"{root} is a file, not a folder", "move it aside, then init")
    if not root.exists():
        fix = "run 'conkeeper init'" + (" --global" if name == "global memory" else "")
        status = WARN if required else OK
        detail = f"{root} does not exist" + ("" if required else " (optional)")
        return Check(name, status, detail, fix if required else "")
    if not os.access(root, os.W_OK | os.X_OK):
        return Check(
            name, FAIL, f"{root} is not writable", f"fix the permissions: chmod u+rwx {root}"
        )
    swept = _swept(root)
    problems = memory_file_problems(root, injected=_injected_files(name))
    if problems:
        shown = "; ".join(problems[:MAX_NAMED])
        more = f"; and {len(problems) - MAX_NAMED} more" if len(problems) > MAX_NAMED else ""
        return Check(
            name,
            WARN,
            f"{len(problems)} memory file(s) not read whole: {shown}{more}{swept}",
            "re-save each as UTF-8 text, fix its permissions (chmod u+r) or split it",
        )
    return Check(name, OK, f"{root}{swept}")


MAX_NAMED = 10


def _swept(root: Path) -> str:
    """Remove the temporary names that killed writes left under ``root`` (a second name of a
    new file among them) and say which, for the check's line; "" when there were none."""
    from conkeeper.domain.safewrite import sweep_tree

    removed = [Path(p).relative_to(root).as_posix() for p in sweep_tree(root)]
    if not removed:
        return ""
    return f"; removed {len(removed)} leftover temporary file(s) of killed writes: " + ", ".join(
        removed[:MAX_NAMED]
    )


def _injected_files(name: str) -> frozenset[str]:
    """The files SessionStart injects from this root (held to its smaller size limit)."""
    from conkeeper.services.context import GLOBAL_FILES, PROJECT_FILES

    return frozenset(GLOBAL_FILES if name == "global memory" else PROJECT_FILES)


def _memory_files(root: Path) -> list[Path]:
    """Every Markdown file under ``root`` (symlinked folders not followed), sorted."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(Path(folder) / f for f in files if f.endswith(".md"))
    return sorted(found)


def memory_file_problems(root: Path, injected: frozenset[str] = frozenset()) -> list[str]:
    """One line per memory file under ``root`` that search or SessionStart cannot read whole:
    over a read limit, not readable, binary, or not valid UTF-8 (read with replacements). Every
    file is named, so nothing drops out of the agent's view without a word."""
    from conkeeper.domain.textio import (
        MAX_MEMORY_FILE_BYTES,
        MemoryFileError,
        MemoryFileMissing,
        read_text_lenient,
    )
    from conkeeper.services.context import MAX_FILE_BYTES

    problems: list[str] = []
    for path in _memory_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            size = path.stat().st_size
        except OSError:
            size = 0  # gone since the walk (passed over below), or a broken link (named below)
        if rel in injected and MAX_FILE_BYTES < size <= MAX_MEMORY_FILE_BYTES:
            problems.append(
                f"{path}: {size} bytes is over SessionStart's {MAX_FILE_BYTES}-byte limit; "
                "it is searched but not loaded at session start"
            )
        try:
            _text, note = read_text_lenient(path)
        except MemoryFileMissing:
            continue
        except MemoryFileError as exc:
            problems.append(str(exc))
            continue
        if note:
            problems.append(note)
    return problems


def check_memory_roots(cwd: Path, env: Mapping[str, str] | None = None) -> list[Check]:
    """Project and global memory folders: folders (not files), writable, every memory file
    readable whole (size, permissions, UTF-8)."""
    location = locate_project(cwd)
    return [
        _memory_root_check("project memory", location.memory_dir, required=True),
        _memory_root_check("global memory", global_memory_dir(env), required=False),
    ]


RECENT_MS = 14 * 24 * 3600 * 1000


def hook_activity(cwd: Path, env: Mapping[str, str] | None = None) -> dict[str, int]:
    """When each agent's hooks last recorded a session for this project (ms since epoch).

    This is the only evidence of hooks registered where no file says so, such as a plugin
    loaded with ``claude --plugin-dir``. Read-only; an unreadable database means no evidence.
    """
    from conkeeper.storage.sessions import last_session_by_host
    from conkeeper.storage.store import StoreError, open_store

    path = db_path(env)
    if not path.exists():
        return {}
    try:
        conn = open_store(path)
    except StoreError:
        return {}
    try:
        return last_session_by_host(conn, locate_project(cwd).identity)
    except sqlite3.Error:
        return {}
    finally:
        conn.close()


def _ago(ms: int) -> str:
    import time

    minutes = max(0, int((time.time() * 1000 - ms) / 60000))
    if minutes < 120:
        return f"{minutes} min ago"
    hours = minutes // 60
    return f"{hours} h ago" if hours < 48 else f"{hours // 24} days ago"


def check_hooks(cwd: Path, env: Mapping[str, str] | None = None) -> Check:
    """Claude Code's hooks must be registered once: by the plugin or by a settings install.

    A plugin loaded with ``--plugin-dir`` leaves no trace in any settings file, so recent
    sessions recorded by Claude Code hooks count as proof too; and with no Claude Code hooks at
    all it is only a warning when another agent is set up.
    """
    import time

    from conkeeper.services.setup.install import HOOK_SPECS, installed_scopes, plugin_installed

    plugin = plugin_installed(env) or bool((env or os.environ).get("CLAUDE_PLUGIN_ROOT"))
    scopes = installed_scopes(cwd, env)
    wanted = {s.event for s in HOOK_SPECS}
    if plugin and scopes:
        return Check(
            "hooks",
            WARN,
            f"plugin and settings ({', '.join(scopes)}) both register ConKeeper: hooks run twice",
            "keep one: 'conkeeper install --uninstall --scope S' or '/plugin uninstall conkeeper'",
        )
    if plugin:
        return Check("hooks", OK, "installed by the Claude Code plugin")
    if scopes:
        missing = sorted(wanted - {e for events in scopes.values() for e in events})
        where = ", ".join(scopes)
        if missing:
            return Check(
                "hooks",
                WARN,
                f"settings ({where}) lack {', '.join(missing)}",
                "run 'conkeeper install' again to update them",
            )
        return Check("hooks", OK, f"installed in settings ({where})")
    last = hook_activity(cwd, env).get("claude-code")
    if last is not None and time.time() * 1000 - last < RECENT_MS:
        return Check(
            "hooks",
            OK,
            f"Claude Code hooks are firing (last session {_ago(last)}); registered outside the "
            "settings files, e.g. by a plugin loaded with 'claude --plugin-dir'",
        )
    fix = (
        "'/plugin marketplace add <repo>' + '/plugin install conkeeper@conkeeper', or "
        "'conkeeper install'"
    )
    from conkeeper.services.setup.agent_install import installed_agents

    if installed_agents(cwd, env):
        return Check("hooks", WARN, "no ConKeeper hooks for Claude Code (other agents set up)", fix)
    return Check("hooks", FAIL, "no ConKeeper hooks found (plugin, settings or any agent)", fix)


def check_agents(cwd: Path, env: Mapping[str, str] | None = None) -> list[Check]:
    """One line per other agent ConKeeper is installed in: what is there, and whether its
    hooks have recorded a session yet."""
    from conkeeper.hosts import get_host
    from conkeeper.services.setup.agent_install import installed_agents

    activity = hook_activity(cwd, env)
    checks = []
    for agent, scopes in installed_agents(cwd, env).items():
        host = get_host(agent)
        parts = "; ".join(f"{scope}: {', '.join(p)}" for scope, p in scopes.items())
        has_hooks = any("hooks" in p for p in scopes.values())
        last = activity.get(agent)
        seen = f"; last session {_ago(last)}" if last is not None else ""
        if host.EVENTS and not has_hooks:
            checks.append(
                Check(
                    f"agent {agent}",
                    WARN,
                    f"{host.TITLE} ({parts}) without hooks",
                    f"run 'conkeeper install --agent {agent}' again",
                )
            )
        elif has_hooks and last is None:
            checks.append(
                Check(
                    f"agent {agent}",
                    OK,
                    f"{host.TITLE} ({parts}); no session recorded yet — start one to verify",
                )
            )
        else:
            checks.append(Check(f"agent {agent}", OK, f"{host.TITLE} ({parts}){seen}"))
    return checks


def check_config(cwd: Path, env: Mapping[str, str] | None = None) -> Check:
    """Configuration warnings (invalid values, unknown keys) that hooks only log."""
    from conkeeper.domain.config import load_config

    loaded = load_config(locate_project(cwd).root, env)
    if loaded.warnings:
        first = loaded.warnings[0]
        more = f" (+{len(loaded.warnings) - 1} more)" if len(loaded.warnings) > 1 else ""
        return Check("config", WARN, first + more, "run 'conkeeper config show' and fix the keys")
    return Check("config", OK, "no warnings")


def check_extractor(cwd: Path, env: Mapping[str, str] | None = None) -> Check:
    """Which extractor turns tool events into observations, and today's LLM budget use."""
    from conkeeper.domain.config import load_config
    from conkeeper.services.observations.budget import budget_status
    from conkeeper.storage.store import StoreError, open_store

    config = load_config(locate_project(cwd).root, env).config
    try:
        conn = open_store(db_path(env))
    except StoreError as exc:
        return Check("extractor", WARN, f"budget unknown: {exc}", "see the database check")
    try:
        status = budget_status(conn, config)
    finally:
        conn.close()
    if status["exhausted"]:
        return Check(
            "extractor",
            WARN,
            status["message"],
            "raise llm_daily_call_budget / llm_daily_token_budget, or wait until tomorrow",
        )
    if status["last_error"] and config.extractor != "local":
        return Check(
            "extractor",
            WARN,
            f"{status['message']}; last error: {status['last_error']}",
            "check llm_base_url / llm_model and the provider's credentials",
        )
    return Check("extractor", OK, status["message"])


def _read_tail(path: Path, limit: int) -> str:
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - limit))
        return handle.read().decode("utf-8", errors="replace")


def check_log(env: Mapping[str, str] | None = None) -> Check:
    """Recent errors in ConKeeper's log, where failing hooks report (they never show the agent)."""
    from conkeeper.storage.logfile import LOG_NAME

    path = log_dir(env) / LOG_NAME
    if not path.exists():
        return Check("log", OK, "no log file yet")
    try:
        tail = _read_tail(path, LOG_TAIL_BYTES)
    except OSError as exc:
        return Check("log", WARN, f"{path} cannot be read ({exc.strerror or exc})")
    errors = [line for line in tail.splitlines() if " ERROR [" in line]
    if not errors:
        return Check("log", OK, f"{path}: no recent errors")
    return Check(
        "log",
        WARN,
        f"{len(errors)} recent error(s) in {path}; last: {errors[-1][:160]}",
        f"read {path} for the tracebacks; report a bug if it keeps happening",
    )


def check_freshness(cwd: Path, env: Mapping[str, str] | None = None) -> Check:
    """Memory entries whose cited files, symbols or commands moved on (``conkeeper stale``)."""
    from conkeeper.services.upkeep.freshness.stale import cached_stale

    location = locate_project(cwd)
    if not location.memory_dir.is_dir():
        return Check("memory freshness", OK, "no project memory to check")
    report = cached_stale(location.root, location.memory_dir, location.identity, env=env)
    count = len(report.findings) if report else 0
    if not count:
        return Check("memory freshness", OK, "no possibly stale entries")
    return Check(
        "memory freshness",
        WARN,
        f"{count} possibly stale memory entr{'y' if count == 1 else 'ies'}",
        "run 'conkeeper stale' and update or remove them",
    )


def check_mcp_server(env: Mapping[str, str] | None = None) -> Check:
    """ConKeeper's MCP server (the plugin's, and every agent's MCP registration) needs the
    ``mcp`` SDK in the Python that runs it; a server that exits at start is silent in the
    agent, so say here which Python has it, or in one line what is missing."""
    import shutil

    from conkeeper.services.setup.launcher import (
        MCP_EXTRA_HINT,
        listed_interpreters,
        mcp_can_start,
    )

    if mcp_can_start(None):
        return Check("mcp server", OK, f"the 'mcp' package is installed for {sys.executable}")
    environ = os.environ if env is None else env
    pythons = listed_interpreters(env)
    found = [environ.get("CONKEEPER_PYTHON", ""), *pythons, shutil.which("python3") or ""]
    for python in dict.fromkeys(p for p in found if p and os.path.exists(p)):
        if mcp_can_start(python):
            return Check("mcp server", OK, f"the 'mcp' package is installed for {python}")
    return Check(
        "mcp server",
        WARN,
        f"no Python here has the 'mcp' package ({sys.executable} included): ConKeeper's MCP "
        "server (the Claude Code plugin's, agents' MCP registrations) exits at start",
        f"{MCP_EXTRA_HINT}, or set CONKEEPER_PYTHON to a Python that has it",
    )


def run_checks(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> list[Check]:
    """Every check, in the order a person would fix them; a crashing check becomes FAIL."""
    where = cwd or Path.cwd()
    steps: list[tuple[str, Callable[[], Check | list[Check]]]] = [
        ("python", check_python),
        ("sqlite", check_sqlite),
        ("data home", lambda: check_data_home(env)),
        ("database", lambda: check_database(env)),
        ("backup", lambda: check_backup(env)),
        ("memory roots", lambda: check_memory_roots(where, env)),
        ("hooks", lambda: check_hooks(where, env)),
        ("agents", lambda: check_agents(where, env)),
        ("mcp server", lambda: check_mcp_server(env)),
        ("config", lambda: check_config(where, env)),
        ("extractor", lambda: check_extractor(where, env)),
        ("log", lambda: check_log(env)),
        ("memory freshness", lambda: check_freshness(where, env)),
    ]
    results: list[Check] = []
    for name, step in steps:
        try:
            outcome = step()
        except Exception as exc:  # a doctor must report, never crash
            outcome = Check(name, FAIL, f"check crashed: {type(exc).__name__}: {exc}")
        results.extend(outcome if isinstance(outcome, list) else [outcome])
    return results
