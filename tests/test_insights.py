"""``conkeeper insights``: trends across replayed sessions, as JSON and as a terminal chart,
including Claude Code's own session facets and whether a routed correction stopped recurring."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from test_e2e_session import SESSION, Session, set_up_project
from test_reflect_e2e import TEST_ID, replay


def test_insights_json_and_chart(tmp_path: Path) -> None:
    s = Session(tmp_path)
    set_up_project(s)
    replay(s)
    facets = Path(s.env["HOME"]) / ".claude" / "usage-data" / "facets"
    facets.mkdir(parents=True)
    (facets / f"{SESSION}.json").write_text(
        json.dumps({"outcome": "mostly_achieved", "friction_counts": {"wrong_approach": 1}}),
        encoding="utf-8",
    )
    report = run_cli("reflect", "--write", "--json", cwd=s.project, env=s.env)
    number = next(
        r["number"]
        for r in json.loads(report.stdout)["recommendations"]
        if r["kind"] == "correction-theme"
    )
    assert run_cli("reflect", "approve", str(number), cwd=s.project, env=s.env).returncode == 0

    result = run_cli("insights", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    (session,) = data["sessions"]
    assert (session["corrections"], session["failures"]) == (2, 3)
    bash = next(row for row in data["tools"] if row["tool"] == "Bash")
    assert (bash["uses"], bash["failures"]) == (4, 3)
    assert data["commands"][0] == {
        "command": "pytest",
        "runs": 4,
        "failures": 3,
        "failure_rate": 0.75,
    }
    assert data["repeated_failures"][0] == {"failure": TEST_ID, "count": 3, "sessions": 1}
    assert data["themes"][0]["count"] == 2 and "print" in data["themes"][0]["theme"]
    (routed,) = data["routed"]
    assert routed["routed_to"] == "patterns.md"
    # routed a moment ago, no later session yet: too early to say it stopped (issue 20)
    assert (routed["stopped"], routed["verdict"], routed["later_sessions"]) == (
        False,
        "too early",
        0,
    )
    assert data["claude_facets"] == [
        {"session": SESSION, "outcome": "mostly_achieved", "friction_counts": {"wrong_approach": 1}}
    ]

    chart = run_cli("insights", cwd=s.project, env=s.env)
    assert chart.returncode == 0, chart.stderr
    assert "█" in chart.stdout and "failure rate per tool" in chart.stdout
    assert "too early to tell" in chart.stdout and TEST_ID in chart.stdout
    assert "stopped recurring" not in chart.stdout


def test_insights_without_sessions_is_one_clear_line(tmp_path: Path, project: Path) -> None:
    result = run_cli("insights", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "No sessions captured" in result.stdout
    bad = run_cli("insights", "--since", "last week", cwd=project)
    assert bad.returncode != 0 and "is not a date" in bad.stderr and "Traceback" not in bad.stderr
