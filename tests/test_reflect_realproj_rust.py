"""``reflect`` and ``extract`` on sessions replayed through the real hooks (Claude Code's and
Codex's payloads) where the agent runs a real Rust crate's suite (dtolnay/semver 1.0.27, a bug
put into tilde and caret matching, then taken out): the outputs are cargo's, as it printed
them. No cargo build runs here."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from test_e2e_session import Session, set_up_project

COMPILED = (
    "   Compiling semver v1.0.27 (/work/semver)\n"
    "    Finished `test` profile [unoptimized + debuginfo] target(s) in 3.54s\n"
    "     Running unittests src/lib.rs (target/debug/deps/semver-08707e0d390c1b5c)\n\n"
    "running 0 tests\n\n"
    "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; "
    "finished in 0.00s\n\n"
    "     Running tests/test_version_req.rs (target/debug/deps/test_version_req-1bbdc54143b4)\n\n"
)


def libtest(failing: list[str], passed: int, filtered: int = 0) -> str:
    """What cargo printed for tests/test_version_req.rs with ``failing`` tests failing."""
    total = len(failing) + passed
    lines = [f"running {total} test{'s' if total != 1 else ''}"]
    lines += [f"test {name} ... FAILED" for name in failing]
    lines += ["test test_any ... ok"] * min(passed, 1)
    if failing:
        lines += ["", "failures:", ""]
        for name in failing:
            lines += [
                f"---- {name} stdout ----",
                "",
                f"thread '{name}' (19776) panicked at tests/test_version_req.rs:191:5:",
                "matched 1.3.0",
                "",
            ]
        lines += ["", "failures:", *(f"    {name}" for name in sorted(failing)), ""]
    verdict = "FAILED" if failing else "ok"
    lines.append(
        f"test result: {verdict}. {passed} passed; {len(failing)} failed; 0 ignored; "
        f"0 measured; {filtered} filtered out; finished in 0.53s"
    )
    if failing:
        lines += ["", "error: test failed, to rerun pass `--test test_version_req`"]
    return COMPILED + "\n".join(lines) + "\n"


def failed(output: str) -> str:
    """Claude Code's PostToolUseFailure ``error`` for a Bash command cargo failed (exit 101)."""
    return "Exit code 101\n" + output


def passed(output: str) -> dict[str, object]:
    return {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}


def reflect(s: Session) -> dict:
    result = run_cli("reflect", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_whole_suite_run_written_another_way_is_told_by_the_later_run(
    tmp_path: Path,
) -> None:
    s = Session(tmp_path)
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Let ~1.2 also accept later minors and ^0.2 accept 0.3; run the tests")
    both = libtest(["test_tilde", "test_caret"], 18)
    s.tool("Bash", {"command": "cargo test -- --nocapture --test-threads 1"}, error=failed(both))
    s.prompt("No, tilde must stay within the minor. Put it back")
    s.tool("Bash", {"command": "cargo test test_tilde"}, passed(libtest([], 1, 19)))
    s.tool("Bash", {"command": "cargo test"}, error=failed(libtest(["test_caret"], 19)))
    open_ = [r for r in reflect(s)["recommendations"] if r["kind"] == "abandoned"]
    assert [r["what"] for r in open_] == [
        "Pick up `cargo test`, still failing when the work stopped"
    ]


def codex_hook(s: Session, event: str, turn: str, **fields: object) -> None:
    """One Codex hook (``conkeeper hook --host codex EVENT``) with Codex's payload."""
    payload = {
        "session_id": "cdx-semver",
        "transcript_path": None,
        "cwd": str(s.project),
        "model": "gpt-5-codex",
        "turn_id": turn,
        "hook_event_name": event,
        **fields,
    }
    result = run_cli("hook", "--host", "codex", event, stdin=json.dumps(payload), env=s.env)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr


def split(output: str) -> tuple[str, str]:
    """cargo's stdout (the tests' lines) and stderr (its own: Compiling, Running, error:)."""
    own = ("   Compiling", "    Finished", "     Running", "error: test failed")
    lines = output.splitlines(keepends=True)
    return (
        "".join(line for line in lines if not line.startswith(own)),
        "".join(line for line in lines if line.startswith(own)),
    )


def codex_bash(s: Session, turn: str, use: str, command: str, output: str, code: int) -> None:
    stdout, stderr = split(output)
    response = {"exit_code": code, "stdout": stdout, "stderr": stderr}
    codex_hook(
        s,
        "PostToolUse",
        turn,
        tool_name="Bash",
        tool_use_id=use,
        tool_input={"command": command},
        tool_response=response,
    )


def shown(s: Session) -> list[str]:
    """What reflect quotes of each recommendation about a command."""
    return [q for r in reflect(s)["recommendations"] for q in r["why"] if "→" in q]


ONE = "test result: FAILED. 0 passed; 1 failed — test_tilde"
BOTH = "test result: FAILED. 18 passed; 2 failed — test_caret, test_tilde"


def test_cargo_s_failing_tests_and_counts_are_what_claude_code_shows(tmp_path: Path) -> None:
    s = Session(tmp_path)
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Let ~1.2 also accept later minors and ^0.2 accept 0.3; run the tests")
    for name in ("lib.rs", "eval.rs", "parse.rs"):
        path = str(s.project / "src" / name)
        s.tool("Read", {"file_path": path}, {"type": "text", "file": {"filePath": path}})
    tilde = libtest(["test_tilde"], 0, 19)
    s.tool("Bash", {"command": "cargo test test_tilde"}, error=failed(tilde))
    s.tool(
        "Bash", {"command": "cargo test"}, error=failed(libtest(["test_tilde", "test_caret"], 18))
    )
    assert sorted(shown(s)) == [f'"cargo test test_tilde → {ONE}"', f'"cargo test → {BOTH}"']


def test_cargo_s_failing_tests_and_counts_are_what_codex_shows(tmp_path: Path) -> None:
    s = Session(tmp_path)
    set_up_project(s)
    codex_hook(s, "SessionStart", "t1", source="startup")
    codex_hook(s, "UserPromptSubmit", "t1", prompt="Let ~1.2 also accept later minors")
    for n, name in enumerate(("lib.rs", "eval.rs", "parse.rs")):
        codex_bash(s, "t1", f"call_r{n}", f"cat src/{name}", "pub fn x() {}\n", 0)
    codex_bash(s, "t1", "call_1", "cargo test test_tilde", libtest(["test_tilde"], 0, 19), 101)
    codex_bash(s, "t1", "call_2", "cargo test", libtest(["test_tilde", "test_caret"], 18), 101)
    assert sorted(shown(s)) == [f'"cargo test test_tilde → {ONE}"', f'"cargo test → {BOTH}"']


def observations(s: Session) -> list[dict]:
    assert run_cli("extract", cwd=s.project, env=s.env).returncode == 0
    result = run_cli("observations", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["observations"]


def tilde_then_caret(s: Session) -> None:
    """Two failing tests; the first prompt's fix puts tilde right, caret still fails."""
    eval_rs = str(s.project / "src" / "eval.rs")
    edit = {"file_path": eval_rs, "old_string": "<", "new_string": "!="}
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Let ~1.2 also accept later minors and ^0.2 accept 0.3; run the tests")
    s.tool("Edit", edit, {"filePath": eval_rs, "structuredPatch": []})
    both = libtest(["test_tilde", "test_caret"], 18)
    s.tool("Bash", {"command": "cargo test"}, error=failed(both))
    s.prompt("No, tilde must stay within the minor. Put it back")
    s.tool("Edit", edit, {"filePath": eval_rs, "structuredPatch": []})
    s.tool("Bash", {"command": "cargo test test_tilde"}, passed(libtest([], 1, 19)))
    s.tool("Bash", {"command": "cargo test"}, error=failed(libtest(["test_caret"], 19)))


def test_the_fixed_failure_is_told_with_cargo_s_summary(tmp_path: Path) -> None:
    s = Session(tmp_path)
    tilde_then_caret(s)
    s.prompt("Caret on 0.x must stay within the minor too. Revert that and run everything")
    eval_rs = str(s.project / "src" / "eval.rs")
    edit = {"file_path": eval_rs, "old_string": ">=", "new_string": "=="}
    s.tool("Edit", edit, {"filePath": eval_rs, "structuredPatch": []})
    s.tool("Bash", {"command": "cargo test"}, passed(libtest([], 20)))
    fixed = [o for o in observations(s) if o["type"] == "bugfix"]
    assert [(o["prompt_number"], o["subtitle"]) for o in fixed] == [
        (3, f"cargo tests failed with {BOTH}; fixed in eval.rs")
    ]


def test_an_open_failure_is_told_by_its_last_failing_run_in_that_run_s_prompt(
    tmp_path: Path,
) -> None:
    s = Session(tmp_path)
    tilde_then_caret(s)
    open_ = [o for o in observations(s) if o["title"].startswith("Unresolved")]
    one = "test result: FAILED. 19 passed; 1 failed — test_caret"
    assert [(o["prompt_number"], o["subtitle"]) for o in open_] == [
        (2, f"{one} — still failing at the end of the session")
    ]
