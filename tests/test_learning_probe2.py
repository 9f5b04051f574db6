"""Issue 20 ("memory worth trusting"), probed from outside, round two: routes and frames that
still came out wrong through the real entry points (an agent's ``conkeeper remember`` and
``decisions new``, hooks run as subprocesses with Claude Code's payloads), each failing before
its fix.

* ``remember --file CLAUDE.md`` (or ``AGENTS.md``, ``GEMINI.md``...) from an agent created
  ``.claude/memory/CLAUDE.md``: a file Claude Code loads as standing instructions whenever the
  agent reads a file in that folder, so a note passed as ordinary became an order outside
  every frame; ``decisions/INDEX.md``, the generated ADR table, took entries too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cli_env, run_cli

AGENT = {"CLAUDECODE": "1"}


def _agent(project: Path, *args: str) -> tuple[int, dict[str, object]]:
    done = run_cli(*args, "--json", cwd=project, env=cli_env(**AGENT))
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize(
    "target",
    ["CLAUDE.md", "AGENTS.md", "GEMINI.md", "claude.md", "notes/AGENTS.md", "decisions/INDEX.md"],
)
def test_remember_never_writes_a_file_agents_load_as_instructions(
    project: Path, target: str
) -> None:
    code, answer = _agent(
        project, "remember", "The API uses snake_case keys in JSON", "--file", target
    )
    assert code == 1 and answer["status"] == "refused", answer
    assert target.rsplit("/", 1)[-1] in str(answer["reason"])
    assert not (project / ".claude" / "memory" / target).exists()
    code, answer = _agent(project, "remember", "The API uses snake_case keys in JSON")
    assert code == 0 and answer["status"] == "saved" and answer["path"] == "patterns.md", answer
