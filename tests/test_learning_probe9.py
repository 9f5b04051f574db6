"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round nine: sessions
replayed through the real hooks (Claude Code's payloads, each event a subprocess), then the CLI,
as a checker would; each test failed before its fix.

* "No, use the v1 API here, not v2" and "wrong: use the v2 API, not v3" share their words, and
  single-link clustering made one theme of them: ``reflect`` proposed "Use the v1 API here, not
  v2." as corrected 2×, quoting the correction that asks for v2 as its evidence, and
  ``insights`` counted them as one theme; rules that disagree (one rejects what the other asks
  for) never share a theme, not even through a third correction linked to both;
* corrections that point back at the conversation ("no, use the same one as before", "use the
  one we discussed", "Always use the version I mentioned", "non, utilise-le toujours",
  "それを使ってください") became rules ("Use the same one as before.", "Use the version.",
  "Utilise-le toujours.") that name nothing a later session can find; such a rule is not
  proposed, and a theme with no word at all ("no, use it instead") is no convention "about ''";
* ``stale`` called `fetchOrders` "in src/client.ts when this entry was written; now nowhere in
  the code" after the client moved into a generated folder git ignores (``src/gen/``, built
  by ``make gen``): the name is still defined in the work tree, only out of git's view; the
  files git ignores in the folders that held a name are searched before it is called gone;
* in a Gemini CLI session ``ruff check .`` failed and ``uv run ruff check .`` then passed (and
  ``mypy src`` / ``PYTHONPATH=src mypy src``): ``reflect`` said "Pick up `ruff check .`, still
  failing when the work stopped"; only test runners were recognised written another way; the
  same program line in the same folder, behind variables, wrappers or a launcher, is the same
  command (a piped one is not: its exit code is the pipe's last command's);
* ``consolidate`` called "Use pnpm, not npm, for installs." a contradiction of "Use pnpm for
  installs." (the "not" read as rejecting the installs), and so "Not negotiable: dates are
  stored in UTC." of "Dates are stored in UTC." and "Run `make lint`, not just ruff, before
  pushing." of "Run `make lint` before pushing."; each offered ``--keep`` to delete one of two
  entries that agree. An alternative set aside between commas is rejected alone, an emphatic
  lead-in ("Not negotiable:", "No exceptions:", "Don't forget:") negates nothing, and "not just
  X" adds to X (measured on the 6,267 labelled pairs of ``tests/data/consolidate``: one pair
  mended, none changed for the worse);
* ``insights`` showed a routed rule cut at 60 characters mid-word, "(Don't use print for
  debugging; use the logger from src/log.p)": a file that does not exist; a longer rule is cut
  with "…";
* ``stale`` reported "Never edit `src/app/legacy.py`; it was removed." as missing ("not in the
  work tree or its recent history", and outside git "not in the work tree"): the entry says
  the file is gone in the clause after it ("it was removed", "it's gone"); that is the entry
  being true;
* "In this session, always use the staging database" became the standing rule "Use the staging
  database." (the clause that scoped it dropped), and "今回は npm じゃなくて pnpm を使ってください"
  ("this time, pnpm not npm") a rule kept with its "this time"; "use the API key I gave you
  earlier" became "Use the API key I gave you earlier."; a correction for now only is no rule,
  nor one naming a thing only the conversation holds;
* ``stale`` never read `Cart().apply_coupon(code="X")`, `new Cart().applyCoupon("X")` or Go's
  method expression `(*Cart).ApplyCoupon` as citations ("7 of 7 entries citing code" with ten
  such entries), so their renamed functions went unreported; a span of code cites the names it
  calls, as a line of a fenced block does, and a method expression its member with its type;
* "You must not push to main directly; open a PR" became the rule "Open a PR.": the
  prohibition, told to the agent as "you must not", was dropped as a complaint; it is read as
  "Do not push to main directly";
* ``consolidate --apply`` deleted the only rule "- Use pnpm for installing packages." as a
  duplicate "with more detail" of a fenced example lower in the file (```` ```md ```` holding the
  same bullet), keeping the example; a fenced block on its own is no entry to merge or keep;
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import cli_env, run_cli
from test_e2e_session import set_up_project
from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write
from test_reflect_facts import NamedSession, _approve_convention, _edit


def _corrected_session(tmp_path: Path, sid: str, prompts: list[str]) -> NamedSession:
    """A Claude Code session: a task, then each of ``prompts`` after an edit of the agent."""
    s = NamedSession(tmp_path, sid)
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to src/cart.py")
    for text in prompts:
        _edit(s, "src/cart.py")
        s.prompt(text)
    s.hook("Stop", stop_hook_active=False)
    s.hook("SessionEnd", reason="exit")
    return s


def _conventions(s: NamedSession) -> list[dict[str, Any]]:
    result = run_cli("reflect", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)["recommendations"]
    return [r for r in found if r["kind"] == "correction-theme"]


def _insight_themes(s: NamedSession) -> list[dict[str, Any]]:
    result = run_cli("insights", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    themes: list[dict[str, Any]] = json.loads(result.stdout)["themes"]
    return themes


def test_rules_that_disagree_never_share_a_theme(tmp_path: Path) -> None:
    s = _corrected_session(
        tmp_path,
        "sess-chain-0001",
        [
            "No, use the v1 API here, not v2",
            "wrong: use the v2 API, not v3",
            "no, the payments client must use the v1 API",
        ],
    )
    conventions = _conventions(s)
    for convention in conventions:
        evidence = " ".join(convention["why"])
        assert not ("not v2" in evidence and "use the v2 API" in evidence), convention
    rules = {c["rule"] for c in conventions}
    assert "Use the v2 API, not v3." in rules
    assert any(r.startswith("Use the v1 API") for r in rules), rules
    for theme in _insight_themes(s):
        quotes = " ".join(theme["quotes"])
        assert not ("not v2" in quotes and "use the v2 API" in quotes), theme


POINTING_BACK = [
    "No, use the same one as before",
    "no!! use the one we discussed",
    "Wrong. Always use the version I mentioned.",
    "non, utilise-le toujours",
    "違います、それを使ってください",
    "no, use it instead",
]


def test_a_rule_that_points_back_at_the_conversation_is_never_proposed(tmp_path: Path) -> None:
    s = _corrected_session(tmp_path, "sess-back-0001", POINTING_BACK)
    report = run_cli("reflect", cwd=s.project, env=s.env)
    assert report.returncode == 0, report.stderr
    assert "about ''" not in report.stdout
    for convention in _conventions(s):
        rule = convention["rule"]
        assert "no rule stated" in rule, rule  # no rule read from words that name nothing
    insights = run_cli("insights", cwd=s.project, env=s.env)
    assert "  : " not in insights.stdout  # a theme named by no word is shown by its quote
    listed = run_cli("corrections", "list", cwd=s.project, env=s.env)
    assert "same one as before" in listed.stdout, listed.stdout
    applied = run_cli("corrections", "apply", "1", cwd=s.project, env=s.env)
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert "same one as before" not in patterns and "Use the same" not in patterns, applied


GENERATED = """# Patterns

- The API client is generated by `make gen`; never edit it by hand.
- `fetchOrders` pages through all orders.
- `cancelOrder` needs the order's version.
"""


def test_a_name_now_defined_only_in_a_generated_ignored_file_is_not_gone(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    client = "export class ApiClient {\n  fetchOrders() {}\n  cancelOrder() {}\n}\n"
    write(root, "src/client.ts", client)
    write(root, ".gitignore", "src/gen/\n")
    commit(root, "client", T0)
    write(root, ".claude/memory/patterns.md", GENERATED)
    commit(root, "memory", T0 + DAY)
    (root / "src" / "client.ts").unlink()
    write(root, "src/gen/client.ts", client.replace("cancelOrder", "cancel"))
    commit(root, "Generate the API client into src/gen", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    assert 4 not in found, found[4]  # still defined, in the generated client
    assert found[5]["citation"] == "cancelOrder"  # renamed by the generator: gone
    assert (
        found[5]["detail"]
        == "in src/client.ts when this entry was written; now nowhere in the code"
    )


def _gemini(root: Path, event: str, **fields: object) -> None:
    body = {"session_id": "gem-lint-1", "transcript_path": str(root / "chat.json")}
    body.update(cwd=str(root), hook_event_name=event, timestamp="2026-11-28T01:00:00Z", **fields)
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "hook", "--host", "gemini", event],
        input=json.dumps(body),
        cwd=root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def _shell(
    root: Path, command: str, output: str, exit_code: int | None = None, signal: int | None = None
) -> None:
    """Gemini CLI's run_shell_command, before and after (a ``signal`` killed it: no exit code)."""
    code = "(none)" if exit_code is None else str(exit_code)
    killed = "(none)" if signal is None else str(signal)
    content = f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\n"
    response = {
        "llmContent": content + f"Exit Code: {code}\nSignal: {killed}",
        "returnDisplay": output,
    }
    tool_input = {"command": command, "description": "check the code"}
    _gemini(root, "BeforeTool", tool_name="run_shell_command", tool_input=tool_input)
    _gemini(
        root,
        "AfterTool",
        tool_name="run_shell_command",
        tool_input=tool_input,
        tool_response=response,
    )


def test_a_lint_rerun_behind_a_launcher_or_a_variable_settles_its_failure(tmp_path: Path) -> None:
    root = tmp_path / "shop"
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
    _shell(root, "ruff check .", "src/cart.py:3:1: F401 `os` imported but unused", 1)
    _shell(root, "mypy src", "src/cart.py:9: error: Incompatible return value type", 1)
    _gemini(
        root, "AfterTool", tool_name="replace", tool_input=edit, tool_response={"llmContent": "ok"}
    )
    _shell(root, "uv run ruff check .", "All checks passed!")
    _shell(root, "PYTHONPATH=src mypy src", "Success: no issues found in 12 source files")
    _gemini(root, "AfterAgent", prompt_response="Fixed.", stop_hook_active=False)
    _gemini(root, "SessionEnd", reason="exit")
    result = run_cli("reflect", "--session", "gem-lint-1", cwd=root)
    assert result.returncode == 0, result.stderr
    assert "1 failures" not in result.stdout and "2 failures" in result.stdout, result.stdout
    assert "still failing" not in result.stdout, result.stdout


AGREEING = """# Patterns

Notes the team agreed on; keep this paragraph.

## Tooling
- Use pnpm, not npm, for installs.
- Not negotiable: dates are stored in UTC.
- Run `make lint`, not just ruff, before pushing.
"""
AGREEING_TOO = """# Conventions

- Use pnpm for installs.
- Dates are stored in UTC.
- Run `make lint` before pushing.
"""


def test_entries_that_agree_are_no_contradiction(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".claude/memory/patterns.md", AGREEING)
    write(root, ".claude/memory/conventions.md", AGREEING_TOO)
    commit(root, "memory", T0)
    result = run_cli("consolidate", "--json", cwd=root)
    assert result.returncode == 0, result.stderr
    proposals = json.loads(result.stdout)["proposals"]
    assert [p for p in proposals if p["kind"] == "contradiction"] == [], proposals
    assert run_cli("consolidate", "--apply", cwd=root).returncode == 0
    memory = root / ".claude" / "memory"
    both = (memory / "patterns.md").read_text() + (memory / "conventions.md").read_text()
    assert "Notes the team agreed on; keep this paragraph." in both
    for rule in ("pnpm", "UTC", "`make lint`"):
        assert rule in both, both  # a merge keeps one copy of each rule


def test_a_routed_rule_cut_short_in_insights_says_so(tmp_path: Path) -> None:
    s = _corrected_session(
        tmp_path,
        "sess-cut-00001",
        [
            "No, don't use print for debugging, use the logger from src/log.py",
            "print again! I said use the logger from src/log.py",
        ],
    )
    convention, _ = _approve_convention(s)
    rule = convention["rule"]
    assert len(rule) > 60 and rule.endswith("src/log.py."), rule
    shown = run_cli("insights", cwd=s.project, env=s.env).stdout
    line = next(x for x in shown.splitlines() if "→ patterns.md" in x)
    assert "src/log.p)" not in line and line.endswith("…)"), line


SAID_GONE = """# Patterns

- Never edit `src/app/legacy.py`; it was removed.
- `scripts/seed.sh` seeded the old database, it's gone now.
- Settings come from `src/app/settings.py`.
"""


def test_a_path_the_next_clause_says_is_gone_is_not_missing(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    write(root, "src/app/main.py", "def run():\n    pass\n")
    write(root, ".claude/memory/patterns.md", SAID_GONE)
    outside = stale_json(root, "--no-cache")["findings"]
    assert [f["citation"] for f in outside] == ["src/app/settings.py"], outside
    git(root, "init", "-q")
    write(root, "src/app/legacy.py", "x = 1\n")
    write(root, "scripts/seed.sh", "echo seed\n")
    commit(root, "code and memory", T0)
    (root / "src" / "app" / "legacy.py").unlink()
    (root / "scripts" / "seed.sh").unlink()
    commit(root, "Drop the legacy module and the seed script", T0 + DAY)
    inside = stale_json(root, "--no-cache")["findings"]
    assert [f["citation"] for f in inside] == ["src/app/settings.py"], inside


def test_a_correction_for_this_session_only_is_no_standing_rule(tmp_path: Path) -> None:
    s = _corrected_session(
        tmp_path,
        "sess-now-00001",
        [
            "No, in this session, always use the staging database",
            "wrong database! this time use the staging database, not prod",
            "違う、今回は npm じゃなくて pnpm を使ってください",
            "no, use the API key I gave you earlier",
        ],
    )
    rules = [c["rule"] for c in _conventions(s)]
    assert rules, rules
    for rule in rules:
        assert "no rule stated" in rule, rule


CALL_CODE = {
    "py/cart.py": "class Cart:\n    def apply_coupon(self, code):\n        pass\n"
    "    def compute_total(self):\n        return 0\n",
    "java/Cart.java": "public class Cart {\n    public void applyCoupon(String code) {}\n}\n",
    "go/cart.go": "package cart\n\ntype Cart struct{}\n\n"
    "func (c *Cart) ApplyCoupon(code string) error { return nil }\n",
}
CALLS_CITED = """# Patterns

- Python: `Cart().apply_coupon(code="X")` redeems a code.
- Java: `new Cart().applyCoupon("X")` does the same.
- Go: `(*Cart).ApplyCoupon` is the method value handlers take.
- Totals: `Cart().compute_total()` sums the lines.
"""


def test_a_call_on_a_new_object_or_a_method_expression_is_checked(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in CALL_CODE.items():
        write(root, rel, text)
    commit(root, "code", T0)
    write(root, ".claude/memory/patterns.md", CALLS_CITED)
    commit(root, "memory", T0 + DAY)
    for rel, text in CALL_CODE.items():
        renamed = text.replace("apply_coupon", "redeem").replace("applyCoupon", "redeem")
        write(root, rel, renamed.replace("ApplyCoupon", "Redeem"))
    commit(root, "Rename the coupon methods", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    cited = {line: f["citation"] for line, f in found.items()}
    assert cited == {3: "apply_coupon", 4: "applyCoupon", 5: "ApplyCoupon"}, found


def test_a_prohibition_told_as_you_must_not_keeps_what_it_forbids(tmp_path: Path) -> None:
    s = _corrected_session(
        tmp_path,
        "sess-must-0001",
        [
            "Wrong. You must not push to main directly; open a PR",
            "Wrong. You can't push to main directly; open a PR",
        ],
    )
    rules = [c["rule"] for c in _conventions(s)]
    assert rules == ["Do not push to main directly; open a PR."], rules


FENCED_EXAMPLE = """# Patterns

- Use pnpm for installing packages.

How a convention is written here:

```md
- Use pnpm for installing packages.
```
"""


def test_consolidate_never_removes_a_rule_for_its_fenced_example(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".claude/memory/patterns.md", FENCED_EXAMPLE)
    commit(root, "memory", T0)
    shown = run_cli("consolidate", "--json", cwd=root)
    assert json.loads(shown.stdout)["proposals"] == [], shown.stdout
    assert run_cli("consolidate", "--apply", cwd=root).returncode == 0
    patterns = (root / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert patterns == FENCED_EXAMPLE


def test_an_alternative_named_before_the_purpose_is_no_contradiction(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    write(
        root,
        ".claude/memory/patterns.md",
        "# Patterns\n\n- Use pnpm instead of npm for installs.\n"
        "- Prefer `ruff` over flake8 for linting.\n",
    )
    write(
        root,
        ".claude/memory/conventions.md",
        "# Conventions\n\n- Use pnpm for installs.\n- Use `ruff` for linting.\n",
    )
    commit(root, "memory", T0)
    result = run_cli("consolidate", "--json", cwd=root)
    proposals = json.loads(result.stdout)["proposals"]
    assert [p for p in proposals if p["kind"] == "contradiction"] == [], proposals
