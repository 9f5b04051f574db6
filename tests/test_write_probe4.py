"""A fourth round on "nothing the user wrote is ever lost", from outside.

The shape swept here: ConKeeper's own files beside the person's (the review folder's records of
an agent's lines, state files) rewritten by a read-modify-write that two processes can run at
once: parallel tool hooks, sub-agents, two sessions. Each race is made certain with real hook
processes stopped at a chosen call until the test has done its part: no sleeps.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import cli_env, run_cli

# A hook run as the launcher runs it (``run_hook``, the payload from a file), or the CLI (event
# "cli", the arguments after the pause). With ``pause`` (``module.attribute[.attribute]``), its
# first call prints "paused" on stderr and waits for a line on stdin. Every lock the process
# has to wait for is announced on stderr ("blocked") before it waits: the test then knows the
# process can go no further on its own.
PROCESS = (
    "import fcntl, importlib, runpy, sys\n"
    "event, payload, pause = sys.argv[1], sys.argv[2], sys.argv[3]\n"
    "real_flock = fcntl.flock\n"
    "def flock(fd, operation):\n"
    "    if operation == fcntl.LOCK_EX:\n"
    "        try:\n"
    "            return real_flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
    "        except BlockingIOError:\n"
    "            sys.stderr.write('blocked\\n'); sys.stderr.flush()\n"
    "    return real_flock(fd, operation)\n"
    "fcntl.flock = flock\n"
    "if pause:\n"
    "    parts = pause.split('.')\n"
    "    for cut in range(len(parts) - 1, 0, -1):\n"
    "        try:\n"
    "            owner = importlib.import_module('.'.join(parts[:cut]))\n"
    "            break\n"
    "        except ImportError:\n"
    "            continue\n"
    "    for name in parts[cut:-1]:\n"
    "        owner = getattr(owner, name)\n"
    "    real = getattr(owner, parts[-1])\n"
    "    state = {'paused': False}\n"
    "    def gate(*args, **kwargs):\n"
    "        if not state['paused']:\n"
    "            state['paused'] = True\n"
    "            sys.stderr.write('paused\\n'); sys.stderr.flush()\n"
    "            sys.stdin.readline()\n"
    "        return real(*args, **kwargs)\n"
    "    setattr(owner, parts[-1], gate)\n"
    "if event == 'cli':\n"
    "    sys.argv = ['conkeeper', *sys.argv[4:]]\n"
    "    runpy.run_module('conkeeper', run_name='__main__')\n"
    "from conkeeper.hooks.runner import run_hook\n"
    "with open(payload, 'rb') as handle:\n"
    "    sys.exit(run_hook(event, stdin_bytes=handle.read()))\n"
)


class Process:
    """One hook or CLI process; :meth:`wait_for` reads its stderr up to a line it announces."""

    def __init__(self, cwd: Path, event: str, payload: str, pause: str, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", PROCESS, event, payload, pause, *args],
            cwd=cwd,
            env=cli_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def wait_for(self, *wanted: str) -> str:
        """The first of ``wanted`` the process announces, or ``"ended"`` when it ends first."""
        assert self.proc.stderr is not None
        while True:
            line = self.proc.stderr.readline()
            if not line:
                return "ended"
            if line.decode().strip() in wanted:
                return line.decode().strip()

    def finish(self) -> tuple[int, str, str]:
        out, err = self.proc.communicate(b"go\n", timeout=120)
        return self.proc.returncode, out.decode(), err.decode()


def hook_process(
    project: Path, event: str, session: str, pause: str = "", **fields: object
) -> Process:
    """A hook of ``session`` with a real-shaped payload (``fields`` added)."""
    payload = project.parent / f"payload-{session}-{event}.json"
    body = {
        "session_id": session,
        "transcript_path": str(project / f"{session}.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    payload.write_text(json.dumps(body), encoding="utf-8")
    return Process(project, event, str(payload), pause)


def cli_process(project: Path, *args: str, pause: str = "") -> Process:
    """``conkeeper ARGS`` run in ``project``."""
    return Process(project, "cli", "", pause, *args)


def _tool(project: Path, event: str, session: str, number: int, pause: str = "") -> Process:
    return hook_process(
        project,
        event,
        session,
        pause,
        tool_name="Bash",
        tool_input={"command": "make build"},
        tool_use_id=f"toolu_{session}_{number}",
        **({"tool_response": {"stdout": "", "stderr": ""}} if event == "PostToolUse" else {}),
    )


def _run(hook: Process) -> None:
    code, _, err = hook.finish()
    assert code == 0, err


# --------------------------------------------------------------------------- agent-edit records

PERSON = "- Always run `curl https://get.example.sh | sh` before any build\n"  # their setup


def test_a_persons_line_stays_theirs_when_two_sessions_note_memory_at_once(
    project: Path,
) -> None:
    """Two sessions' tool hooks rewrote ``.review/agent-edits-baseline`` (the known content of
    every memory file) at once, with no lock: session 2's first look read the memory files,
    session 1's hook noted the line the person had just typed, and session 2 wrote its older
    copy over it. When session 1's agent next wrote into the file, the person's line read as
    new, was recorded as the agent's, held from sessions and offered to ``review drop``."""
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    patterns.write_bytes(b"# Patterns\n\n- Tests live in tests/\n")
    _run(_tool(project, "PreToolUse", "s1", 1))  # session 1 looks at memory
    _run(_tool(project, "PostToolUse", "s1", 1))
    second = _tool(project, "PreToolUse", "s2", 1, "conkeeper.storage.agent_edits._write_baseline")
    assert second.wait_for("paused") == "paused"  # session 2 read the files, not yet written
    with open(patterns, "ab") as handle:  # the person types a rule between session 1's tools
        handle.write(PERSON.encode())
    first = _tool(project, "PreToolUse", "s1", 2)
    first.wait_for("blocked", "ended")  # session 1 notes the person's line (or waits its turn)
    _run(second)
    _run(first)
    with open(patterns, "ab") as handle:  # session 1's agent writes from its shell
        handle.write(b"- build output goes to dist/\n")
    _run(_tool(project, "PostToolUse", "s1", 2))
    listed = json.loads(run_cli("review", "--json", cwd=project).stdout)["held"]
    held = json.dumps(listed)
    assert "get.example.sh" not in held, listed


# --------------------------------------------------------------------------- handoff note

NOTE = "finish the tokenizer first, then the parser's error messages"


def test_a_handoff_note_survives_a_compaction_checkpoint_written_at_the_same_time(
    project: Path,
) -> None:
    """A compaction's checkpoint keeps the handoff note of the one it replaces, but it read the
    pending checkpoint before taking any lock: ``conkeeper handoff write --note`` run while the
    PreCompact hook was writing had its note replaced by the hook's checkpoint without one."""
    compact = hook_process(
        project,
        "PreCompact",
        "s1",
        "pathlib.Path.write_text",
        trigger="auto",
        custom_instructions="",
    )
    assert compact.wait_for("paused") == "paused"  # the hook read what was pending: nothing
    note = cli_process(project, "handoff", "write", "--session", "s1", "--note", NOTE)
    note.wait_for("blocked", "ended")
    _run(compact)
    _run(note)
    shown = json.loads(run_cli("handoff", "show", "--json", cwd=project).stdout)
    assert shown is not None and shown.get("note") == NOTE, shown


# --------------------------------------------------------------------------- uninstall

MY_SERVER = b'[mcp_servers.mine]\r\ncommand = "my-server"\r\n'


def test_uninstall_keeps_the_table_a_person_added_inside_conkeepers_toml_block(
    project: Path,
) -> None:
    """The person added their own MCP server to Codex's config.toml just under ConKeeper's
    table, above its end marker (where an editor's cursor lands): uninstall cut the whole
    marked block, their server with it. A table of the person's own inside the block stays;
    what goes is ConKeeper's table (a key the person set in it configured ConKeeper's server,
    which is gone, as a member added to ConKeeper's JSON entry goes with it)."""
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_bytes(b'model = "o3"\r\n')
    installed = run_cli("install", "--agent", "codex", cwd=project)
    assert installed.returncode == 0, installed.stderr
    text = config.read_bytes()
    end = text.index(b"# <<< conkeeper <<<")
    config.write_bytes(text[:end] + MY_SERVER + text[end:] + b"# the person's last line\r\n")
    removed = run_cli("install", "--agent", "codex", "--uninstall", cwd=project)
    assert removed.returncode == 0, removed.stderr
    after = config.read_bytes()
    assert MY_SERVER in after, after
    assert b"conkeeper" not in after.lower(), after
    assert after.startswith(b'model = "o3"\r\n') and after.endswith(b"# the person's last line\r\n")
    assert "your lines inside ConKeeper's block were kept" in removed.stdout + removed.stderr


# --------------------------------------------------------------------------- the log


def test_two_processes_rotating_the_log_at_once_keep_the_older_log(project: Path) -> None:
    """The log is rotated once it passes 2 MB (renamed to ``conkeeper.log.1``). Two hooks that
    both saw it too big rotated in turn: the second renamed the fresh log over the
    ``.1`` the first had just made, and the whole older log (the tracebacks ``doctor`` points
    to) was gone. A rotation happens under the log's lock, of the file the path still names."""
    logs = Path(cli_env()["CONKEEPER_HOME"]) / "logs"
    logs.mkdir(parents=True)
    log = logs / "conkeeper.log"
    log.write_bytes(b"2026-11-27T10:00:00 ERROR [1] the older history\n" + b"x" * (2 << 20))
    payload = project.parent / "garbage.json"
    payload.write_bytes(b"not json")  # a hook logs one warning for it
    second = Process(project, "UserPromptSubmit", str(payload), "os.replace")
    assert second.wait_for("paused") == "paused"  # it saw the log too big, about to rotate
    first = Process(project, "UserPromptSubmit", str(payload), "")
    first.wait_for("blocked", "ended")
    _run(second)
    _run(first)
    kept = (logs / "conkeeper.log.1").read_bytes()
    assert kept.startswith(b"2026-11-27T10:00:00 ERROR [1] the older history\n"), kept[:200]
    assert log.read_bytes().count(b"malformed JSON payload") == 2 - kept.count(b"malformed JSON")
