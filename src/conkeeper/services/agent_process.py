"""Whether a command was started by a coding agent, read from its own environment and from the
processes that started it.

Why it exists: approving a held entry, writing as the user and changing where data goes are
the user's acts. An agent's own variable (``CLAUDECODE``...) told them apart, but an agent with
a shell could unset it (``env -u CLAUDECODE conkeeper review approve ID``), and a host that sets
none (or whose pre-tool hook does not fire) left nothing to read, so an agent's child process
released what it had been held for. The processes above the command still show it: the shell
the agent started keeps the variable in the environment it was started with (which no later
``unset`` changes), and the agent's own program (``claude``, ``codex``, ``gemini``...) is an
ancestor. A person's terminal, script, cron job or CI runner has neither, so it keeps working.

A command that left its parents (``setsid``, ``nohup`` after its shell exited, a double fork,
``setsid script``/``tmux`` started detached) has init or a session manager above it and its
variables may be gone; what still tells it is when it started. The hooks note the span of each
agent shell command (:mod:`conkeeper.storage.agent_shells`); a process among the command and its
parents that stands detached (a session leader without a terminal, or a child of init) and
started inside such a span is taken for the agent's. The trade: a person's own detached process
(a tmux server, a daemon) started while an agent's shell command ran counts as the agent's too,
and is told to use a terminal it did not start or the viewer.

What this cannot see (said where the rule is documented): an agent inside an editor whose
terminal is the person's too and that sets no variable of its own (Zed's agent, Windsurf's
Cascade, Cline's "background exec" mode, whose shell the editor's extension host starts; Cline's
terminal mode sets ``CLINE_ACTIVE`` and Copilot's agent ``COPILOT_AGENT``); a detached
command of a host without a pre-tool hook (no span is noted: Zed) or started by a detached one
after its shell command ended (``nohup sh -c 'sleep 60; ...'`` is caught: its ``sh`` started
inside the span); a system without ``/proc`` (only the command's own variables are read there).
"""

from __future__ import annotations

import os

from conkeeper.services.remember import agent_environment

# Agent command-line programs: the name they run under (their executable, or the script an
# interpreter runs) and the npm packages they come in. Editors (zed, code, cursor, windsurf) are
# not here: the person's own terminal runs under them too.
AGENT_PROGRAMS = frozenset(
    {"claude", "codex", "gemini", "copilot", "cursor-agent", "cline", "opencode", "aider", "qwen"}
)
AGENT_PACKAGES = (
    "@anthropic-ai/claude-code",
    "@openai/codex",
    "@google/gemini-cli",
    "@github/copilot",
    "@qwen-code/qwen-code",
    "opencode-ai",
)
INTERPRETERS = frozenset({"node", "nodejs", "bun", "deno", "python", "python3", "env"})
MAX_DEPTH = 64  # far above any real chain (terminal, shell, make, script...); stops a loop


def agent_marker() -> str | None:
    """Why this command counts as an agent's, as a phrase (``"CLAUDECODE is set"``,
    ``"CLAUDECODE is set in process 812 (bash) that started it"``, ``"it runs under claude,
    process 790"``), or ``None`` when nothing says so."""
    own = agent_environment()
    if own is not None:
        return f"{own} is set"
    return _ancestor_marker(os.getppid()) or _detached_marker(os.getpid())


def process_marker(pid: int) -> str | None:
    """Why process ``pid`` (another process: the viewer's peer) counts as an agent's, read from
    its own environment, program and parents, or from a detached process among them that
    started while an agent's shell command ran; ``None`` when nothing says so."""
    return _ancestor_marker(pid) or _detached_marker(pid)


def _ancestor_marker(pid: int) -> str | None:
    """The first process from ``pid`` up to the first (``init``) that carries an agent's variable
    or is an agent's program, described; ``None`` when none does or ``/proc`` cannot be read."""
    seen: set[int] = set()
    while pid > 1 and pid not in seen and len(seen) < MAX_DEPTH:
        seen.add(pid)
        stat = _read(pid, "stat")
        if stat is None:
            return None
        name, parent = _name_and_parent(stat)
        variable = agent_environment(_environment(pid))
        if variable is not None:
            return f"{variable} is set in process {pid} ({name}) that started it"
        program = _agent_program(_read(pid, "cmdline") or b"", name)
        if program is not None:
            return f"it runs under {program}, process {pid}"
        pid = parent
    return None


def _detached_marker(pid: int) -> str | None:
    """The first detached process from ``pid`` up (a session leader without a terminal, or a
    child of init) that started while an agent's shell command ran, described; else None."""
    detached = _detached_starts(pid)
    if not detached:
        return None
    import time

    from conkeeper.storage.agent_shells import windows

    spans = windows(int(time.time() * 1000))
    for found, name, started in detached:
        if any(start - _SLACK_MS <= started <= end + _SLACK_MS for start, end in spans):
            return (
                f"process {found} ({name}) above it left an agent's shell command: it started "
                "while that command ran"
            )
    return None


_SLACK_MS = (
    2000  # process start times rest on the boot time (whole seconds); the hooks on the clock
)


def _detached_starts(pid: int) -> list[tuple[int, str, int]]:
    """``(pid, name, start in Unix ms)`` of each detached process from ``pid`` up to init."""
    from conkeeper.storage.agent_shells import boot_ms

    boot = boot_ms()
    found: list[tuple[int, str, int]] = []
    seen: set[int] = set()
    while pid > 1 and pid not in seen and len(seen) < MAX_DEPTH and boot is not None:
        seen.add(pid)
        stat = _read(pid, "stat")
        if stat is None:
            break
        name, parent = _name_and_parent(stat)
        fields = stat.rpartition(b")")[2].split()
        try:
            session, tty, ticks = int(fields[3]), int(fields[4]), int(fields[19])
        except (IndexError, ValueError):
            break
        if (session == pid and tty == 0) or parent == 1:
            found.append((pid, name, boot + ticks * 1000 // os.sysconf("SC_CLK_TCK")))
        pid = parent
    return found


def _read(pid: int, what: str) -> bytes | None:
    try:
        with open(f"/proc/{pid}/{what}", "rb") as handle:
            return handle.read(1 << 20)
    except OSError:  # gone, another user's, or no /proc
        return None


def _name_and_parent(stat: bytes) -> tuple[str, int]:
    """``comm`` and the parent's pid from ``/proc/PID/stat`` (the name may hold spaces and
    parentheses: the fields after it start at the last ``)``)."""
    head, _, tail = stat.rpartition(b")")
    name = head.partition(b"(")[2].decode("utf-8", "replace")
    fields = tail.split()
    try:
        return name, int(fields[1])
    except (IndexError, ValueError):
        return name, 0


def _environment(pid: int) -> dict[str, str]:
    """The environment process ``pid`` was started with (what a later ``unset`` leaves)."""
    data = _read(pid, "environ") or b""
    pairs = (item.partition(b"=") for item in data.split(b"\0") if b"=" in item)
    return {
        key.decode("utf-8", "replace"): value.decode("utf-8", "replace") for key, _, value in pairs
    }


def _agent_program(cmdline: bytes, name: str) -> str | None:
    """The agent program a process runs (its name, its first argument's or its script's under
    an interpreter, or an agent's npm package in its path), or ``None``."""
    args = [arg.decode("utf-8", "replace") for arg in cmdline.split(b"\0") if arg]
    candidates = [name, *args[:1]]
    if args and _base(args[0]) in INTERPRETERS:
        candidates += [arg for arg in args[1:3] if not arg.startswith("-")]
    for candidate in candidates:
        if _base(candidate) in AGENT_PROGRAMS:
            return _base(candidate)
        for package in AGENT_PACKAGES:
            if package in candidate:
                return package
    return None


def _base(path: str) -> str:
    """A program's bare name: ``/usr/local/bin/claude`` and ``claude.js`` are ``claude``;
    ``python3.12`` is ``python3``."""
    base = path.rsplit("/", 1)[-1].lower()
    for suffix in (".js", ".mjs", ".cjs", ".exe"):
        base = base.removesuffix(suffix)
    return "python3" if base.startswith("python3") else base
