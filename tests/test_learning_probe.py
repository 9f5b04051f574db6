"""Issue 20 ("memory worth trusting"), probed from outside: variants of its wrong-learning cases
that still came out wrong, each replayed through the real hooks and read through the CLI (or
built as a real git repository) as a user would, and each failing before its fix.

* ``insights`` ignored a routed rule broken again when the detector queued it as friction
  ("again no ruff before running pytest"), and counted sessions that were only opened (no
  prompt, no tool use) as later sessions without the correction;
* ``stale`` left `SCREAMING_CASE` constants unchecked unless a config file was cited, did not
  check `package.module.func`, and reported a folder the entry itself says is gone.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from conftest import cli_env, run_cli
from test_e2e_session import set_up_project
from test_reflect_facts import NamedSession, _approve_convention, _bash, _complaining_session


def _routed(s: NamedSession) -> dict[str, Any]:
    result = run_cli("insights", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)["routed"]
    return row


def _later(tmp_path: Path, s: NamedSession, session_id: str) -> NamedSession:
    later = NamedSession(tmp_path, session_id, s.project)
    later.env = s.env
    later.hook("SessionStart", source="startup")
    return later


def test_a_routed_rule_broken_again_counts_whatever_the_detector_called_it(
    tmp_path: Path,
) -> None:
    s = NamedSession(tmp_path, "a0a0a0a0-1111-4000-8000-000000000001")
    set_up_project(s)
    _complaining_session(s)
    _approve_convention(s)
    later = _later(tmp_path, s, "a0a0a0a0-1111-4000-8000-000000000002")
    later.prompt("Add pagination to the coupon list")
    _bash(later, "pytest -q")
    later.prompt("again no ruff before running pytest. how many times")
    queue = (s.project / ".claude" / "memory" / "corrections-queue.md").read_text("utf-8")
    assert "again no ruff before running pytest" in queue
    row = _routed(s)
    assert (row["verdict"], row["after"], row["stopped"]) == ("recurred", 1, False)


def test_sessions_only_opened_are_no_evidence_that_a_correction_stopped(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a0a0a0a0-2222-4000-8000-000000000001")
    set_up_project(s)
    _complaining_session(s)
    _approve_convention(s)
    for n in range(3):  # three windows opened after the routing, nothing asked in them
        _later(tmp_path, s, f"a0a0a0a0-2222-4000-8000-00000000001{n}")
    row = _routed(s)
    assert (row["verdict"], row["later_sessions"], row["stopped"]) == ("too early", 0, False)
    for n in range(3):  # three sessions of real work without the correction
        later = _later(tmp_path, s, f"a0a0a0a0-2222-4000-8000-00000000002{n}")
        later.prompt(f"Add pagination step {n} to the coupon list")
        _bash(later, "ruff check .")
    row = _routed(s)
    assert (row["verdict"], row["later_sessions"], row["stopped"]) == ("stopped recurring", 3, True)
