"""Shared set-up for the viewer tests: a scratch project with real data, and a running viewer.

The project is filled through the real entry points (hooks as subprocesses with Claude-Code-
shaped payloads, then ``conkeeper extract``), with a private marker planted in a private block,
an inline span, a ``private: true`` file, a prompt and a tool output, and a plainly typed secret,
so the tests can check that none of them ever reaches a page.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conftest import cli_env, run_cli

MARKER = "ZEBRA-ORCHID-5521"
SECRET = "ghp_" + "R8d2kLq0Wm4Zx7Tb1Yc9Vn3Hs6Pf5Ja2Ge8K"
SESSION = "5b7c2f10-9d3e-4a61-8c2b-0e4f6a1d9c33"
# round 7: "No, that's wrong: always use the repository helper ..." alone reads to the scorer
# as a convention stated for new work and its rule match is vetoed at low; the agent's act named
CORRECTION = (
    "No, that's wrong: you bypassed the repository helper, always use it for database access."
)

MEMORY = {
    "patterns.md": (
        "# Patterns\n\n## Error handling\n<!-- @category: convention -->\n"
        "- Wrap storage errors in StoreError with one line for the user.\n"
        f"- The build box is <private>{MARKER}-span</private> (office only).\n"
    ),
    "product-context.md": (
        "# Product Context\n\n## Staging\n"
        f"<private>\nThe vendor contract is {MARKER}-block.\n</private>\n"
        "Staging runs at https://staging.example.test.\n"
        f"Token typed plainly by mistake: {SECRET}\n"
    ),
    "secret-notes.md": f"---\nprivate: true\n---\n# Notes\n{MARKER}-file\n",
    "decisions/ADR-001-token-refresh.md": (
        "# ADR-001: Rotate refresh tokens on every use\n<!-- @category: decision -->\n\n"
        "## Decision\nRefresh tokens are single-use; a reused token revokes the family.\n"
    ),
    "sessions/2026-11-20-retro.md": (
        "# Session Retrospective — 2026-11-20\n\n## Improvement Backlog\n"
        "- [ ] Add a pre-commit hook running ruff\n<!-- @category: efficiency -->\n"
    ),
}


def make_project(tmp_path: Path) -> Path:
    """A git project with memory files, a queued correction and one recorded session."""
    project = tmp_path / "shop-api"
    (project / ".git").mkdir(parents=True)
    memory = project / ".claude" / "memory"
    for name, text in MEMORY.items():
        path = memory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    _replay_session(project, tmp_path / "transcript.jsonl")
    return project


def _hook(project: Path, transcript: Path, event: str, **fields: object) -> None:
    payload = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    proc = run_cli("hook", event, cwd=project, stdin=json.dumps(payload))
    assert proc.returncode == 0, proc.stderr


def _replay_session(project: Path, transcript: Path) -> None:
    transcript.write_text("", encoding="utf-8")
    _hook(project, transcript, "SessionStart", source="startup")
    _hook(
        project,
        transcript,
        "UserPromptSubmit",
        prompt=f"Fix the refresh bug <private>{MARKER}-prompt</private>",
    )
    _hook(
        project,
        transcript,
        "PostToolUseFailure",
        tool_name="Bash",
        tool_input={"command": "pytest tests/test_tokens.py", "description": "Run token tests"},
        tool_use_id="toolu_01",
        error="Exit code 1\nFAILED tests/test_tokens.py::test_refresh_reuse - AssertionError",
    )
    _hook(
        project,
        transcript,
        "PostToolUse",
        tool_name="Edit",
        tool_input={
            "file_path": str(project / "src" / "tokens.py"),
            "old_string": "a",
            "new_string": "b",
        },
        tool_response={"filePath": str(project / "src" / "tokens.py")},
        tool_use_id="toolu_02",
    )
    _hook(
        project,
        transcript,
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "pytest tests/test_tokens.py", "description": "Run token tests"},
        tool_response={"stdout": "4 passed in 0.21s", "stderr": "", "interrupted": False},
        tool_use_id="toolu_03",
    )
    _hook(project, transcript, "UserPromptSubmit", prompt=CORRECTION)
    _hook(project, transcript, "SessionEnd", reason="other")
    proc = run_cli("extract", cwd=project)
    assert proc.returncode == 0, proc.stderr


class Viewer:
    """A running ``conkeeper viewer`` process and the URL it printed."""

    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc = proc
        self.url = url
        self.base, _, query = url.partition("/?")
        self.token = query.removeprefix("token=")
        self.port = int(self.base.rsplit(":", 1)[1])


@contextmanager
def running_viewer(project: Path, **env: str) -> Iterator[Viewer]:
    """Start ``conkeeper viewer --no-open`` in ``project`` (``env`` added to its environment)
    and stop it afterwards."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "viewer", "--no-open"],
        cwd=project,
        env=cli_env(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("ConKeeper viewer: http://127.0.0.1:"), first + (
            proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
        )
        yield Viewer(proc, first.split(": ", 1)[1].strip())
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
