"""An end-to-end run of ConKeeper on a generated, realistic project: the README's main job.

It builds a throw-away git project with memory files (categories, a private block holding a
fake credential), replays a coding session through the real hook entry points (start, prompts,
tool uses with a failing and a passing test run, a correction, compaction, stop, end), then
extracts observations, indexes, searches and browses the result exactly as a user would, each
step through the ``conkeeper`` command in a subprocess with HOME and CONKEEPER_HOME pointing
inside the demo folder, so the user's real memory is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

PRIVATE_MARKER = "demo-db-password-Zq81"
SESSION_ID = "demo-session-0001"

MEMORY_FILES: dict[str, str] = {
    "active-context.md": """# Active Context

## Current focus
Refresh tokens for the public API: rotate on every use, expire after 7 days.
<!-- @category: decision -->

## Open questions
- Should revoked refresh tokens be kept for audit? Ask the security team.
""",
    "patterns.md": """# Patterns

## Error handling
Always raise `AuthError` from `src/auth/token.py`; never return `None` for an invalid token.
<!-- @category: convention -->

## Testing
Run `pytest -q tests/test_token.py` before every commit touching auth.
<!-- @category: pattern -->
""",
    "product-context.md": f"""# Product Context

## Staging access
<private>
Staging database password: {PRIVATE_MARKER}
</private>
The staging API runs at https://staging.acme.example with seeded users.
""",
    "decisions/ADR-001-jwt-refresh.md": """# ADR-001: JWT refresh token rotation
<!-- @category: decision -->

## Decision
We chose rotating refresh tokens stored in Redis with a 7-day TTL, because stateless
refresh tokens cannot be revoked.
""",
}


def _tool(
    tool: str, tool_input: dict[str, object], response: object, use_id: str
) -> list[tuple[str, dict[str, object]]]:
    base: dict[str, object] = {"tool_name": tool, "tool_input": tool_input, "tool_use_id": use_id}
    post = {**base, "tool_response": response}
    return [("PreToolUse", base), ("PostToolUse", post)]


def session_events(project: Path, transcript: Path) -> list[tuple[str, dict[str, object]]]:
    """The replayed session: (event name, event-specific payload fields)."""
    token_py = str(project / "src/auth/token.py")
    test_py = str(project / "tests/test_token.py")
    failing = {
        "stdout": "FAILED tests/test_token.py::test_refresh_rotates - KeyError: 'jti'",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "exit_code": 1,
    }
    passing = {
        "stdout": "3 passed in 0.12s",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "exit_code": 0,
    }
    events: list[tuple[str, dict[str, object]]] = [
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "Add refresh token rotation to src/auth/token.py"}),
    ]
    events += _tool("Read", {"file_path": token_py}, {"type": "text"}, "toolu_01")
    events += _tool("Grep", {"pattern": "def refresh", "path": "src"}, {"numFiles": 1}, "toolu_02")
    events += _tool(
        "Edit",
        {"file_path": token_py, "old_string": "a", "new_string": "b"},
        {"filePath": token_py},
        "toolu_03",
    )
    events += _tool("Bash", {"command": "pytest -q tests/test_token.py"}, failing, "toolu_04")
    events += _tool(
        "Edit",
        {"file_path": token_py, "old_string": "b", "new_string": "c"},
        {"filePath": token_py},
        "toolu_05",
    )
    events += _tool("Bash", {"command": "pytest -q tests/test_token.py"}, passing, "toolu_06")
    events += [
        (
            "PostToolUseFailure",
            {
                "tool_name": "Bash",
                "tool_use_id": "toolu_07",
                "tool_input": {"command": "curl -s https://staging.acme.example"},
                "error": "Could not resolve host: staging.acme.example",
                "is_interrupt": False,
            },
        ),
        ("UserPromptSubmit", {"prompt": "no, use snake_case for method names in token.py"}),
    ]
    events += _tool(
        "Write",
        {"file_path": test_py, "content": "def test_rotation(): ..."},
        {"filePath": test_py},
        "toolu_08",
    )
    events += _tool(
        "Bash",
        {"command": "git commit -am 'Rotate refresh tokens on use'"},
        {
            "stdout": "[main 1a2b3c4] Rotate refresh tokens on use",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "exit_code": 0,
        },
        "toolu_09",
    )
    events += [
        ("PreCompact", {"trigger": "auto", "custom_instructions": ""}),
        ("SessionStart", {"source": "compact"}),
        ("Stop", {"stop_hook_active": False, "last_assistant_message": "Rotation is in place."}),
        ("SessionEnd", {"reason": "prompt_input_exit"}),
    ]
    return events


@dataclass
class Demo:
    """State of one demo run: its folders, environment and what each step reported."""

    base: Path
    out: TextIO
    env: dict[str, str] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    @property
    def project(self) -> Path:
        return self.base / "acme-api"

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def conkeeper(self, *args: str, stdin: str = "", check: bool = True) -> str:
        """Run ``conkeeper ARGS`` in the demo project and return its stdout."""
        proc = subprocess.run(
            [sys.executable, "-m", "conkeeper", *args],
            input=stdin.encode(),
            cwd=self.project,
            env=self.env,
            capture_output=True,
            timeout=300,
            check=False,
        )
        if check and proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip().splitlines()
            self.failures.append(
                f"conkeeper {' '.join(args)}: exit {proc.returncode}: {err[-1] if err else ''}"
            )
        return proc.stdout.decode(errors="replace")


def _environment(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CONKEEPER"))}
    env.update(
        HOME=str(base / "home"),
        CONKEEPER_HOME=str(base / "data"),
        XDG_DATA_HOME=str(base / "home/.local/share"),
        PYTHONIOENCODING="utf-8",
    )
    src = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH", "")]))
    return env


def _check_empty(base: Path) -> None:
    """Refuse a folder that holds anything: the demo writes its project, home and data there
    whole, and ``--dir`` pointed at a person's folder overwrote their ``acme-api`` files and
    emptied their ``transcript.jsonl`` (found attacking the demo from outside)."""
    if base.exists() and not base.is_dir():
        raise DemoError(f"{base}: not a folder; give a new or empty folder to --dir")
    if base.is_dir() and any(base.iterdir()):
        raise DemoError(f"{base}: not empty; give a new or empty folder to --dir (nothing written)")


def _make_project(demo: Demo) -> None:
    project = demo.project
    (project / "src/auth").mkdir(parents=True, exist_ok=True)
    (project / "tests").mkdir(exist_ok=True)
    (project / "src/auth/token.py").write_text(
        "def refresh(token):\n    return token\n", encoding="utf-8"
    )
    (project / "tests/test_token.py").write_text(
        "def test_refresh():\n    assert True\n", encoding="utf-8"
    )
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q"], cwd=project, check=False, env=demo.env)
    else:
        (project / ".git").mkdir(exist_ok=True)


def _write_memory(demo: Demo) -> None:
    memory = demo.project / ".claude/memory"
    for rel, text in MEMORY_FILES.items():
        path = memory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _replay(demo: Demo) -> dict[str, int]:
    transcript = demo.base / "transcript.jsonl"
    transcript.write_text("", encoding="utf-8")
    counts = {"events": 0, "contexts": 0, "blocked": 0}
    for event, fields in session_events(demo.project, transcript):
        payload = {
            "session_id": SESSION_ID,
            "transcript_path": str(transcript),
            "cwd": str(demo.project),
            "hook_event_name": event,
            **fields,
        }
        proc = subprocess.run(
            [sys.executable, "-m", "conkeeper", "hook", event],
            input=json.dumps(payload).encode(),
            cwd=demo.project,
            env=demo.env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        counts["events"] += 1
        counts["blocked"] += proc.returncode == 2
        if proc.stdout.strip():
            counts["contexts"] += 1
            try:
                json.loads(proc.stdout)
            except ValueError:
                demo.failures.append(f"hook {event} printed invalid JSON")
        if proc.returncode not in (0, 2):
            demo.failures.append(f"hook {event} exited {proc.returncode}")
    return counts


def _section(demo: Demo, title: str, body: str, max_lines: int = 40) -> None:
    demo.say(f"\n=== {title} ===")
    lines = body.rstrip().splitlines()
    for line in lines[:max_lines]:
        demo.say(line)
    if len(lines) > max_lines:
        demo.say(f"... ({len(lines) - max_lines} more lines)")


def _route_correction(demo: Demo) -> None:
    """Apply the queued correction as a convention, as the memory-sync skill would."""
    listing = demo.conkeeper("corrections", "list", "--json")
    try:
        items = json.loads(listing)["items"]
    except (ValueError, KeyError):
        demo.failures.append("corrections list --json printed no queue")
        return
    if not items:
        demo.failures.append("the correction was not queued")
        return
    output = demo.conkeeper(
        "corrections", "apply", str(items[0]["id"]), "--to", "convention",
        "--category", "convention", "--text", "Use snake_case for method names.",
    )  # fmt: skip
    _section(demo, "conkeeper corrections apply (as /memory-sync would)", output)


def _check_privacy(demo: Demo, outputs: list[str]) -> None:
    leaks = [o for o in outputs if PRIVATE_MARKER in o]
    db_files = list((demo.base / "data").glob("conkeeper.db*"))
    leaks += [str(p) for p in db_files if PRIVATE_MARKER.encode() in p.read_bytes()]
    if leaks:
        demo.failures.append("private text leaked into output or the database")
    demo.say(f"\nPrivacy: the private marker appears in {len(leaks)} outputs or database files.")


class DemoError(Exception):
    """The demo cannot run where it was asked to; the message is one line for a person."""


def run_demo(base: Path, out: TextIO) -> int:
    """Run every step in ``base`` (created if missing, else empty); return 0 when all steps
    succeeded."""
    demo = Demo(base=base.resolve(), out=out)
    _check_empty(demo.base)
    demo.base.mkdir(parents=True, exist_ok=True)
    demo.env = _environment(demo.base)
    demo.say(f"ConKeeper demo in {demo.base}")
    steps: list[tuple[str, Callable[[], str]]] = [
        ("conkeeper init --yes", lambda: demo.conkeeper("init", "--yes")),
    ]
    _make_project(demo)
    for title, step in steps:
        _section(demo, title, step())
    _write_memory(demo)
    counts = _replay(demo)
    demo.say(
        f"\nReplayed {counts['events']} hook events through 'conkeeper hook'; "
        f"{counts['contexts']} added context, {counts['blocked']} blocked."
    )
    log = sorted((demo.project / ".claude/memory/sessions").glob("*-observations.md"))
    _section(demo, "observation log", log[0].read_text(encoding="utf-8") if log else "(none)")
    queue = demo.project / ".claude/memory/corrections-queue.md"
    _section(
        demo, "corrections queue", queue.read_text(encoding="utf-8") if queue.exists() else "(none)"
    )
    _route_correction(demo)
    outputs = []
    for args in (
        ("extract", "--all-pending"),
        ("index",),
        ("search", "refresh token"),
        ("search", "--category", "decision", "redis"),
        ("search", "--sessions", "pytest"),
        ("search", "staging password"),
        ("sessions",),
        ("observations",),
        ("privacy", "check"),
    ):
        output = demo.conkeeper(*args, check=args[0] != "privacy")
        outputs.append(output)
        _section(demo, "conkeeper " + " ".join(args), output)
    _check_privacy(demo, outputs)
    if demo.failures:
        demo.say("\nDemo finished with problems:")
        for failure in demo.failures:
            demo.say(f"- {failure}")
        return 1
    demo.say("\nDemo finished: every step succeeded.")
    return 0
