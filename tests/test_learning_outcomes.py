"""Issue 20, item 5 ("still failing" only when the last run of that command failed; facts
stated by reflect/insights/show must be right), probed from outside: sessions replayed through
the real hooks (Claude Code's and Gemini CLI's payloads, each event a subprocess), then the
CLI, as a checker would; each test failed before its fix.

* ``pytest -k nomatch`` exits 5 ("no tests collected"): it was counted as a failure, a
  repeated failure, an edit->fail cycle and "still failing"; it is no failure of the code,
  and is listed as "collected no tests";
* Gemini CLI's shell tool output carries a ``Signal:`` line when the command was killed by a
  signal (``Exit Code: (none)``); it was never read, so the killed run counted as a pass
  (``insights``: pytest 50%, 1 of 2 runs failed); it is an interrupted run, neither a pass nor
  a failure.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from test_e2e_session import set_up_project
from test_learning_probe9 import _gemini, _shell
from test_reflect_facts import NamedSession, _bash, _edit

NO_TESTS = (
    "Exit code 5\n========================= test session starts =========================\n"
    "collected 12 items / 12 deselected / 0 selected\n\n"
    "=========================== 12 deselected in 0.02s ============================"
)


def test_a_pytest_run_that_collected_no_tests_is_no_failure(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "d5d5d5d5-0000-4000-8000-000000000005")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount in src/cart.py")
    for _ in range(3):
        _edit(s, "src/cart.py")
        _bash(s, "pytest -q -k nomatch", error=NO_TESTS)
    s.hook("Stop", stop_hook_active=False)
    s.hook("SessionEnd", reason="exit")
    reflected = run_cli("reflect", "--json", "--depth", "thorough", cwd=s.project, env=s.env)
    assert reflected.returncode == 0, reflected.stderr
    said = json.dumps(json.loads(reflected.stdout)["recommendations"])
    assert "still failing" not in said and "fail" not in said.lower(), said
    insights = run_cli("insights", "--json", cwd=s.project, env=s.env)
    assert insights.returncode == 0, insights.stderr
    report = json.loads(insights.stdout)
    assert report["repeated_failures"] == [] and "exit code 5" not in json.dumps(report), report
    assert [row["failures"] for row in report["sessions"] + report["tools"]] == [0, 0], report
    extracted = run_cli("extract", "--json", cwd=s.project, env=s.env)
    assert extracted.returncode == 0, extracted.stderr
    listed = run_cli("observations", "--json", cwd=s.project, env=s.env)
    for found in json.loads(listed.stdout)["observations"]:
        shown = run_cli("show", str(found["id"]), cwd=s.project, env=s.env)
        assert shown.returncode == 0, shown.stderr
        assert "fail" not in shown.stdout.lower() and "exit code 5" not in shown.stdout


def test_a_gemini_shell_command_killed_by_a_signal_is_interrupted(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=root).returncode == 0
    _gemini(root, "SessionStart", source="startup")
    _gemini(root, "BeforeAgent", prompt="Fix the discount in src/cart.py")
    edit = {"file_path": str(root / "src" / "cart.py"), "old_string": "a", "new_string": "b"}
    _gemini(
        root, "AfterTool", tool_name="replace", tool_input=edit, tool_response={"llmContent": "ok"}
    )
    _shell(root, "pytest -q", "FAILED tests/test_cart.py::test_discount - assert 1 == 2", 1)
    _gemini(
        root, "AfterTool", tool_name="replace", tool_input=edit, tool_response={"llmContent": "ok"}
    )
    _killed(root, "pytest -q", "....", 15)  # no pass: the failure before it stands
    _gemini(root, "AfterAgent", prompt_response="Done.", stop_hook_active=False)
    _gemini(root, "SessionEnd", reason="exit")
    insights = run_cli("insights", "--json", cwd=root)
    assert insights.returncode == 0, insights.stderr
    report = json.loads(insights.stdout)
    pytest_runs = [row for row in report["commands"] if row["command"] == "pytest"]
    assert pytest_runs == [  # the killed run is no pass: not "50% (1/2)"
        {"command": "pytest", "runs": 1, "failures": 1, "failure_rate": 1.0}
    ], report["commands"]
    shell = [row for row in report["tools"] if row["tool"] == "Bash"]
    assert [(row["uses"], row["failures"]) for row in shell] == [(1, 1)], report["tools"]


def _killed(root: Path, command: str, output: str, signal: int) -> None:
    """Gemini CLI's run_shell_command result for a command a signal killed."""
    _shell(root, command, output, signal=signal)
