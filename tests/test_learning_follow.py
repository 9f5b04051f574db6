"""Issue 20 ("what ConKeeper learns is right"), what the ninth learning probe left: sessions
replayed through the real hooks (Claude Code's payloads, each event a subprocess), then the CLI;
each test failed before its fix.

* "Siempre debes usar pnpm, no npm", "Devi sempre usare pnpm, non npm", "Du musst immer pnpm
  verwenden, nicht npm", "Vous devez toujours utiliser pnpm, pas npm" became rules kept in the
  second person (or none); a rule is impersonal, in the language's own rule form (its
  infinitive: "Siempre usar pnpm, no npm.", "Immer pnpm verwenden, nicht npm.");
* "ok from now on use pnpm" gave no rule at all: the detector flags nothing (it reproaches
  nothing), and "from now on" hid the order; a standing choice (also "d'ora in poi", "ab
  jetzt", "a partir de ahora") is a correction to `reflect`, its rule without the lead;
* "Altijd pnpm gebruiken, niet npm", "Zawsze używaj pnpm, nie npm" (and "je moet", "musisz",
  "voortaan", "od teraz") gave no rule: Dutch and Polish rules are read like the others;
* ``reflect`` said "Pick up `make lint`, still failing" after `make -C . lint` passed (and
  `npm --prefix . test`, `cargo test --manifest-path ./Cargo.toml`, `pytest ./tests` after
  `npm test`, `cargo test`, `pytest tests`): the same command written another way settles its
  failure; a run in another folder (`make -C docs lint`) never does;
* ``insights`` showed "cargo test 50% (1/2)" for one failure and one Ctrl-C: an interrupted
  run (Ctrl-C, a killed tool) is neither a pass nor a failure;
* ``stale`` showed an entry that is only a fenced block by its fence line ("```python"), and
  said a name cited without a file was "in py/cart.py" (the alphabetically first holder) for
  an entry about the Ruby code: the holder is chosen by the entry's language or folder words,
  else all are listed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from test_e2e_session import set_up_project
from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write
from test_learning_probe9 import _corrected_session, _gemini, _shell
from test_reflect_facts import NamedSession, _edit


def _rules(s: NamedSession) -> list[str]:
    result = run_cli("reflect", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    found: list[dict[str, Any]] = json.loads(result.stdout)["recommendations"]
    return [r["rule"] for r in found if r["kind"] == "correction-theme"]


SECOND_PERSON = {
    "Otra vez npm. Siempre debes usar pnpm, no npm": "Siempre usar pnpm, no npm.",
    "Ancora npm! Devi sempre usare pnpm, non npm": "Sempre usare pnpm, non npm.",
    "Nein, du musst immer pnpm verwenden, nicht npm": "Immer pnpm verwenden, nicht npm.",
    "Non, vous devez toujours utiliser pnpm, pas npm": "Toujours utiliser pnpm, pas npm.",
}


def test_a_rule_told_as_you_must_in_another_language_is_impersonal(tmp_path: Path) -> None:
    for n, (said, expected) in enumerate(SECOND_PERSON.items()):
        s = _corrected_session(tmp_path / str(n), f"sess-you-000{n}", [said, said])
        assert _rules(s) == [expected], said


def test_a_standing_choice_from_now_on_becomes_a_rule(tmp_path: Path) -> None:
    said = {
        "ok from now on use pnpm": "Use pnpm.",
        "d'ora in poi usa pnpm": "Usa pnpm.",
        "a partir de ahora usa pnpm": "Usa pnpm.",
        "Ab jetzt immer pnpm verwenden": "Immer pnpm verwenden.",
    }
    for n, (text, expected) in enumerate(said.items()):
        s = _corrected_session(tmp_path / str(n), f"sess-now-000{n}", [text])
        assert _rules(s) == [expected], text


DUTCH_AND_POLISH = {
    "Weer npm. Altijd pnpm gebruiken, niet npm": "Altijd pnpm gebruiken, niet npm.",
    "Znowu npm. Zawsze używaj pnpm, nie npm": "Zawsze używaj pnpm, nie npm.",
    "Weer npm. Je moet altijd pnpm gebruiken, niet npm": "Altijd pnpm gebruiken, niet npm.",
    "Znowu npm. Musisz zawsze używać pnpm, nie npm": "Zawsze używać pnpm, nie npm.",
}


def test_a_rule_in_dutch_or_polish_is_read(tmp_path: Path) -> None:
    for n, (said, expected) in enumerate(DUTCH_AND_POLISH.items()):
        s = _corrected_session(tmp_path / str(n), f"sess-nlpl-000{n}", [said, said])
        assert _rules(s) == [expected], said


def test_a_standing_choice_in_dutch_or_polish_becomes_a_rule(tmp_path: Path) -> None:
    said = {
        "Voortaan altijd pnpm gebruiken": "Altijd pnpm gebruiken.",
        "od teraz używaj pnpm": "Używaj pnpm.",
    }
    for n, (text, expected) in enumerate(said.items()):
        s = _corrected_session(tmp_path / str(n), f"sess-nlpl-now-000{n}", [text])
        assert _rules(s) == [expected], text


def _gemini_session(root: Path, runs: list[tuple[str, str, int | None]]) -> None:
    """A Gemini CLI session in ``root``: a task, four edits, then each shell ``runs``."""
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=root).returncode == 0
    _gemini(root, "SessionStart", source="startup")
    _gemini(root, "BeforeAgent", prompt="Add the coupon endpoint to src/cart.py")
    edit = {"file_path": str(root / "src" / "cart.py"), "old_string": "a", "new_string": "b"}
    for _ in range(4):
        _gemini(
            root,
            "AfterTool",
            tool_name="replace",
            tool_input=edit,
            tool_response={"llmContent": "ok"},
        )
    for command, output, exit_code in runs:
        _shell(root, command, output, exit_code)
    _gemini(root, "AfterAgent", prompt_response="Done.", stop_hook_active=False)
    _gemini(root, "SessionEnd", reason="exit")


RERUN_ANOTHER_WAY = [
    ("make lint", "src/cart.py:3:1: F401 `os` imported but unused", 2, "make -C . lint"),
    ("npm test", "Tests: 1 failed, 4 passed, 5 total", 1, "npm --prefix . test"),
    (
        "cargo test",
        "test result: FAILED. 3 passed; 1 failed",
        101,
        "cargo test --manifest-path ./Cargo.toml",
    ),
    ("pytest tests", "1 failed, 4 passed in 0.5s", 1, "pytest ./tests"),
]


def test_a_failure_rerun_with_its_folder_as_an_option_is_settled(tmp_path: Path) -> None:
    for n, (failed, output, code, rerun) in enumerate(RERUN_ANOTHER_WAY):
        root = tmp_path / str(n) / "shop"
        _gemini_session(root, [(failed, output, code), (rerun, "ok: all passed", 0)])
        result = run_cli("reflect", "--session", "gem-lint-1", cwd=root)
        assert result.returncode == 0, result.stderr
        assert "1 failures" in result.stdout, result.stdout
        assert "still failing" not in result.stdout, result.stdout


def test_a_failure_is_never_settled_by_another_folder_s_run(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    _gemini_session(
        root,
        [
            ("make lint", "src/cart.py:3:1: F401 `os` imported but unused\nmake: *** Error 1", 2),
            ("make -C docs lint", "All checks passed!", 0),
        ],
    )
    result = run_cli("reflect", "--session", "gem-lint-1", cwd=root)
    assert result.returncode == 0, result.stderr
    assert "`make lint`, still failing" in result.stdout, result.stdout


def test_an_interrupted_run_is_neither_a_pass_nor_a_failure_in_insights(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-ctrlc-001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to src/cart.py")
    _edit(s, "src/cart.py")
    failed = "Exit code 101\ntest result: FAILED. 3 passed; 1 failed"
    s.tool("Bash", {"command": "cargo test"}, error=failed)
    s.tool("Bash", {"command": "cargo test"}, error="Interrupted by user", interrupt=True)
    killed = {"stdout": "", "stderr": "", "interrupted": True, "isImage": False}
    s.tool("Bash", {"command": "cargo test"}, killed)
    s.hook("Stop", stop_hook_active=False)
    s.hook("SessionEnd", reason="exit")
    result = run_cli("insights", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    rows = {row["command"]: row for row in json.loads(result.stdout)["commands"]}
    assert (rows["cargo test"]["runs"], rows["cargo test"]["failures"]) == (1, 1), rows
    text = run_cli("insights", cwd=s.project, env=s.env)
    assert "100%  (1/1)" in text.stdout and "(1/3)" not in text.stdout, text.stdout


TWO_CARTS = {
    "py/cart.py": "class Cart:\n    def apply_coupon(self, code):\n        pass\n",
    "rb/cart.rb": "class Cart\n  def apply_coupon(code)\n  end\nend\n",
}
CITED_IN_RUBY = """# Patterns

- In the Ruby code, `apply_coupon` redeems a code.

```python
cart.apply_coupon("X")
```

- Coupons: `apply_coupon` takes the code as typed.
"""


def test_stale_names_the_file_the_entry_is_about_and_a_fenced_entry_by_its_code(
    tmp_path: Path,
) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in TWO_CARTS.items():
        write(root, rel, text)
    commit(root, "code", T0)
    write(root, ".claude/memory/patterns.md", CITED_IN_RUBY)
    commit(root, "memory", T0 + DAY)
    for rel, text in TWO_CARTS.items():
        write(root, rel, text.replace("apply_coupon", "redeem"))
    commit(root, "Rename apply_coupon", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    gone = "when this entry was written; now nowhere in the code"
    assert found[3]["detail"] == f"in rb/cart.rb {gone}", found[3]
    assert found[5]["detail"] == f"in py/cart.py {gone}", found[5]
    assert found[5]["summary"] == 'cart.apply_coupon("X")', found[5]
    assert found[9]["detail"] == f"in py/cart.py and rb/cart.rb {gone}", found[9]
    shown = run_cli("stale", "--no-cache", cwd=root)
    assert "```" not in shown.stdout, shown.stdout
