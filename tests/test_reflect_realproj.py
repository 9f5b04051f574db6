"""``reflect`` on sessions replayed through the real hooks where the agent runs a real
project's pytest suite (markupsafe, as it printed): a failure the agent fixed and then checked
with the whole suite, written with options that take a value, is not left open; a
parametrised test's id is named whole, as pytest printed it."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from test_e2e_session import Session, set_up_project

FAILED_FILE = (
    "Exit code 1\n"
    "============================= test session starts ==============================\n"
    "collected 24 items\n\n"
    "tests/test_escape.py FFF.FFF.FFF.ssssssssssss                    [100%]\n\n"
    "=================================== FAILURES ===================================\n"
    "_ test_escape[markupsafe._native-abcd&><'\"efgh-abcd&amp;&gt;&lt;&#39;&#34;efgh] _\n"
    "E       AssertionError: assert Markup('abcd&amp;&gt;&lt;\\'&#34;efgh') == 'abcd&amp;&gt;'\n\n"
    "tests/test_escape.py:34: AssertionError\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_escape.py::test_escape[markupsafe._native-abcd&><'\"efgh-abcd&amp;&gt;"
    "&lt;&#39;&#34;efgh] - AssertionError: assert Markup('abcd&amp;&gt;&lt;\\'&#34;efgh') == ...\n"
    "=================== 9 failed, 3 passed, 12 skipped in 1.60s ===================="
)


def passed(summary: str) -> dict[str, object]:
    return {"stdout": summary + "\n", "stderr": "", "interrupted": False, "isImage": False}


def reflect(s: Session) -> dict:
    result = run_cli("reflect", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_whole_suite_run_with_valued_options_settles_the_failing_file(tmp_path: Path) -> None:
    s = Session(tmp_path)
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Speed up the pure Python escape a little")
    s.tool("Bash", {"command": "python -m pytest tests/test_escape.py"}, error=FAILED_FILE)
    s.prompt("Put the quote escaping back and run everything")
    s.tool(
        "Bash",
        {"command": "python -m pytest -p no:cacheprovider --tb short -n auto -q"},
        passed("39 passed, 41 skipped in 1.80s"),
    )
    kinds = [r["kind"] for r in reflect(s)["recommendations"]]
    assert "abandoned" not in kinds


def piped_failure(test_id: str) -> dict[str, object]:
    """What ``python -m pytest -q 2>&1 | tail -3`` printed when ``test_id`` failed (exit 0)."""
    out = f"FAILED {test_id} - AssertionError: assert Markup('3.14') == '3'\n"
    return passed(out + "1 failed, 38 passed, 41 skipped in 1.48s")


def test_a_parametrised_test_id_is_named_whole_and_each_id_counted_apart(tmp_path: Path) -> None:
    test = "tests/test_markupsafe.py::test_string_interpolation"
    first, second = (
        f"{test}[markupsafe._native-%i-3.14-3]",
        f"{test}[markupsafe._native-%.2f-3.14-3.14]",
    )
    s = Session(tmp_path)
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Format floats in Markup interpolation with the spec given")
    for name in ("__init__.py", "_native.py", "_speedups.c"):  # enough for a full reflection
        path = str(s.project / "src" / "markupsafe" / name)
        s.tool("Read", {"file_path": path}, {"type": "text", "file": {"filePath": path}})
    s.tool("Bash", {"command": "python -m pytest -q 2>&1 | tail -3"}, piped_failure(first))
    s.tool("Bash", {"command": "python -m pytest -q 2>&1 | tail -3"}, piped_failure(second))
    recommendations = reflect(s)["recommendations"]
    assert [r["kind"] for r in recommendations] == ["abandoned"]
    assert f"`{second}`" in recommendations[0]["what"]


def observations(s: Session) -> list[dict]:
    assert run_cli("extract", cwd=s.project, env=s.env).returncode == 0
    result = run_cli("observations", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["observations"]


def test_a_pass_of_other_tests_does_not_close_a_failure_the_fix_closes_later(
    tmp_path: Path,
) -> None:
    s = Session(tmp_path)
    set_up_project(s)
    native = str(s.project / "src" / "markupsafe" / "_native.py")
    edit = {"file_path": native, "old_string": "a", "new_string": "b"}
    s.hook("SessionStart", source="startup")
    s.prompt("Speed up the pure Python escape a little")
    s.tool("Edit", edit, {"filePath": native, "structuredPatch": []})
    s.tool("Bash", {"command": "python -m pytest tests/test_escape.py"}, error=FAILED_FILE)
    s.tool(
        "Bash",
        {"command": "python -m pytest -k escape_silent"},
        passed("1 passed, 1 skipped, 78 deselected in 1.66s"),
    )
    s.prompt("Put the quote escaping back and run everything")
    s.tool("Edit", edit, {"filePath": native, "structuredPatch": []})
    s.tool("Bash", {"command": "python -m pytest -q"}, passed("39 passed, 41 skipped in 1.80s"))
    bugfixes = [o for o in observations(s) if o["type"] == "bugfix"]
    assert len(bugfixes) == 1 and bugfixes[0]["prompt_number"] == 2
