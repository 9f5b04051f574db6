"""Issue 20, item 5 ("still failing" only when the last run of that command failed; facts
stated by reflect/insights/show must be right), probed from outside: sessions replayed through
the real hooks (Claude Code's and Gemini CLI's payloads, each event a subprocess), then the
CLI, as a checker would; each test failed before its fix.

* ``pytest -k nomatch`` exits 5 ("no tests collected"): it was counted as a failure, a
  repeated failure, an edit->fail cycle and "still failing"; it is no failure of the code,
  and is listed as "collected no tests";
* Gemini CLI's shell tool output carries a ``Signal:`` line when the command was killed by a
  signal (``Exit Code: (none)``); it was never read, so the killed run counted as a pass that
  settled the failure before it; it is an interrupted run, neither a pass nor a failure.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from test_e2e_session import set_up_project
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
