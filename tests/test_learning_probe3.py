"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round three: cases a
checker would try that still came out wrong through the real entry points (hooks run as
subprocesses with Claude Code's payloads, then the CLI), each failing before its fix.

* ``stale`` called a name cited without a file "now nowhere in the code" when the file that
  defined it had only left git's view (a vendored folder moved into ``.gitignore``): the name
  was looked for in tracked files only, though the file still sat in the work tree;
* ``reflect`` said a test was "still failing when the work stopped" when the last run of that
  command passed but was written another way: in a subshell (``(cd api && pytest -q)``), with
  ``env``/``timeout``/``time`` in front, or through ``bash -c '...'``;
* ``reflect`` made "Non, on n'utilise pas print, ..." the rule (the answer word of a
  correction in French kept at its head), and found "no rule stated" in "I said to run
  `make fmt` before committing", whose rule is the order it repeats;
* ``reflect`` proposed "Run ruff before pytest." again when the project's ``CLAUDE.md`` (or
  ``AGENTS.md``, or the user's ``~/.claude/CLAUDE.md``) already says it: only memory files
  counted as known, not the instruction files the agent loads in every session;
* ``insights`` said a routed "Run ruff before pytest." "stopped recurring" after three later
  sessions that never reached that work (a question about the README, a frontend build):
  any session with a prompt counted as one without the correction;
* ``show`` tied a resumed session's failure to its first prompt: the session's hook state
  (its prompt count) is pruned after 14 idle days, the prompt was stored under the next free
  number, but the tool uses that followed kept the restarted count (prompt 1, weeks before);
* ``reflect approve`` wrote "Run `make lint` before you push." after the user had put the
  command right later in the session ("the target is `make check`, not `make lint`");
* ``consolidate --apply`` made merges it had never shown: a line the person added after
  reading the proposals ("- Logging goes through structlog, not print().") was removed as a
  duplicate, unseen; and ``--keep FILE:LINE`` named whatever entry sat at that line now, so a
  line added above the pair made it keep the entry the person had chosen to remove.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from test_e2e_session import set_up_project
from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write
from test_reflect_facts import (
    FAILURE,
    NamedSession,
    _approve_convention,
    _bash,
    _complaining_session,
    _edit,
    _reflect,
)


def test_a_name_still_defined_in_a_file_git_ignores_is_not_gone(tmp_path: Path) -> None:
    root = tmp_path / "legacy"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "vendor/payloads/compat.py", "def decode_legacy(raw):\n    return raw\n")
    write(root, "src/totals.py", "def grand_total(lines):\n    return 0\n")
    commit(root, "code", T0)
    write(
        root,
        ".claude/memory/patterns.md",
        "# Patterns\n\n- Old payloads go through `decode_legacy`.\n"
        "- Totals: `grand_total` sums the lines.\n",
    )
    commit(root, "memory", T0 + DAY)
    # the vendored folder leaves git's view but stays in the work tree; a real rename beside it
    write(root, ".gitignore", "vendor/\n")
    git(root, "rm", "-r", "-q", "--cached", "vendor")
    write(root, "src/totals.py", "def total(lines):\n    return 0\n")
    commit(root, "vendor/ is fetched, not committed; rename the total", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    assert sorted(found) == [4], found  # the renamed total only
    assert found[4]["citation"] == "grand_total"
    # once the ignored file loses the name too, it is gone
    write(root, "vendor/payloads/compat.py", "def decode(raw):\n    return raw\n")
    found = by_line(stale_json(root))
    assert sorted(found) == [3, 4], found
    assert found[3]["detail"] == (
        "in vendor/payloads/compat.py when this entry was written; now nowhere in the code"
    )


def _read(s: NamedSession, path: str) -> None:
    target = str(s.project / path)
    content = {"filePath": target, "content": "x", "numLines": 1, "startLine": 1, "totalLines": 1}
    s.tool("Read", {"file_path": target}, {"type": "text", "file": content})


def _still_failing(s: NamedSession) -> list[str]:
    report = _reflect(s)
    return [r["what"] for r in report["recommendations"] if "still failing" in json.dumps(r)]


@pytest.mark.parametrize(
    ("failed", "passed"),
    [
        ("cd api && pytest -q", "(cd api && pytest -q)"),
        ("pytest -q", "env PYTHONPATH=src pytest -q"),
        ("pytest -q", "timeout 300 pytest -q"),
        ("uv run pytest tests/test_cart.py", "time uv run pytest tests/test_cart.py"),
        ("cd api && pytest -q", "bash -c 'cd api && pytest -q'"),
    ],
)
def test_a_pass_written_another_way_is_the_last_run_of_that_command(
    tmp_path: Path, failed: str, passed: str
) -> None:
    s = NamedSession(tmp_path, "c3c3c3c3-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the discount rounding in src/cart.py")
    for _ in range(3):
        _read(s, "src/cart.py")
    _edit(s, "src/cart.py")
    _bash(s, failed, error=FAILURE)
    assert _still_failing(s) == [
        "Pick up `tests/test_cart.py::test_discount`, still failing when the work stopped"
    ]
    _edit(s, "src/cart.py")
    _bash(s, passed)
    assert _still_failing(s) == []
    _bash(s, passed.replace("pytest", "pytest --lf"), error=FAILURE)  # and it fails again
    assert len(_still_failing(s)) == 1


@pytest.mark.parametrize(
    ("texts", "rule"),
    [
        (["non, on n'utilise pas print, utilise toujours le module `logging`",
          "encore print() ! utilise toujours le module `logging`"],
         "On n'utilise pas print, utilise toujours le module `logging`."),
        (["you edited dist/ again. dist/ is generated, edit src/ and run `npm run build`",
          "wrong, dist/ is generated, edit src/ and run `npm run build`"],
         "dist/ is generated, edit src/ and run `npm run build`."),
        (["I need you to run `make fmt` before every commit",
          "you skipped it again, I need you to run `make fmt` before every commit"],
         "Run `make fmt` before every commit."),
        (["I said to run `make fmt` before committing",
          "you didn't run `make fmt` again before committing"],
         "Run `make fmt` before committing."),
    ],
)  # fmt: skip
def test_the_rule_leaves_out_what_only_answers_or_reproaches(
    tmp_path: Path, texts: list[str], rule: str
) -> None:
    s = NamedSession(tmp_path, "c4c4c4c4-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to src/cart.py")
    for text in texts:
        _edit(s, "src/cart.py")
        s.prompt(text)
    report = _reflect(s, "--write")
    (theme,) = [r for r in report["recommendations"] if r["kind"] == "correction-theme"]
    assert theme["rule"] == rule
    approved = run_cli("reflect", "approve", str(theme["number"]), cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text("utf-8")
    assert f"- {rule}" in patterns


@pytest.mark.parametrize(
    ("where", "text"),
    [
        ("CLAUDE.md", "# Shop API\n\n## Workflow\n- Always run ruff before pytest.\n"),
        ("AGENTS.md", "# Agents\n\n1. Run `ruff check .` before `pytest`\n"),
        ("~/.claude/CLAUDE.md", "Run ruff before pytest, in every project.\n"),
    ],
)
def test_a_rule_the_instruction_files_already_state_is_not_proposed_again(
    tmp_path: Path, where: str, text: str
) -> None:
    s = NamedSession(tmp_path, "c5c5c5c5-0000-4000-8000-000000000001")
    set_up_project(s)
    home = Path(s.env["HOME"])
    path = home / where[2:] if where.startswith("~/") else s.project / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    _complaining_session(s)
    report = _reflect(s)
    assert [r["kind"] for r in report["recommendations"]] == []
    (known,) = report["already_known"]
    assert known["in"] == where, known
    shown = run_cli("reflect", cwd=s.project, env=s.env).stdout
    assert f"Already in memory ({where}):" in shown


def _routed_row(s: NamedSession) -> dict[str, object]:
    result = run_cli("insights", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)["routed"]
    return dict(row)


def test_sessions_that_never_reached_the_rules_work_are_no_evidence_it_stopped(
    tmp_path: Path,
) -> None:
    s = NamedSession(tmp_path, "c6c6c6c6-0000-4000-8000-000000000001")
    set_up_project(s)
    _complaining_session(s)
    convention, _retro = _approve_convention(s)
    assert convention["rule"] == "Run ruff before pytest."
    elsewhere = [
        ("What does the README say about deploys?", None),
        ("Build the frontend bundle", "npm run build"),
        ("Bump the node version in .nvmrc", "cat .nvmrc"),
    ]
    for n, (prompt, command) in enumerate(elsewhere):
        later = NamedSession(tmp_path, f"c6c6c6c6-0000-4000-8000-00000000001{n}", s.project)
        later.env = s.env
        later.hook("SessionStart", source="startup")
        later.prompt(prompt)
        _read(later, "README.md")
        if command:
            _bash(later, command)
    row = _routed_row(s)
    assert (row["verdict"], row["later_sessions"], row["stopped"]) == ("too early", 0, False)
    for n in range(3):  # three sessions that ran the tests, with no complaint
        later = NamedSession(tmp_path, f"c6c6c6c6-0000-4000-8000-00000000002{n}", s.project)
        later.env = s.env
        later.hook("SessionStart", source="startup")
        later.prompt(f"Add coupon expiry check {n}")
        _edit(later, "src/cart.py")
        _bash(later, "python -m pytest tests/test_cart.py")
    row = _routed_row(s)
    assert (row["verdict"], row["later_sessions"], row["stopped"]) == ("stopped recurring", 3, True)


def test_a_session_resumed_after_its_state_was_pruned_ties_events_to_the_new_prompt(
    tmp_path: Path,
) -> None:
    s = NamedSession(tmp_path, "c7c7c7c7-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to src/cart.py")
    _edit(s, "src/cart.py")
    _bash(s, "pytest tests/test_cart.py")
    s.prompt("Now add the discount cap")
    _edit(s, "src/cart.py")
    _bash(s, "pytest tests/test_cart.py")
    # fifteen days idle: the session's state file and the pruning marker age
    weeks_ago = time.time() - 15 * 86400
    for path in (s.data_home / "state").rglob("*"):
        if path.is_file() and (s.session_id in path.name or path.name == ".last-prune"):
            os.utime(path, (weeks_ago, weeks_ago))
    other = NamedSession(tmp_path, "c7c7c7c7-0000-4000-8000-000000000002", s.project)
    other.env = s.env
    other.hook("SessionStart", source="startup")  # prunes the idle session's state
    assert not any(s.session_id in p.name for p in (s.data_home / "state").rglob("*"))
    s.hook("SessionStart", source="resume")
    s.prompt("The rounding is off by a cent, fix it")
    _edit(s, "src/cart.py")
    _bash(s, "pytest tests/test_cart.py", error=FAILURE)
    s.hook("SessionEnd", reason="other")
    extracted = run_cli("extract", "--json", cwd=s.project, env=s.env)
    assert extracted.returncode == 0, extracted.stderr
    listed = json.loads(run_cli("observations", "--json", cwd=s.project, env=s.env).stdout)
    failing = [o for o in listed["observations"] if "test_discount" in json.dumps(o)]
    assert failing, listed
    shown = run_cli("show", str(failing[0]["id"]), cwd=s.project, env=s.env).stdout
    assert re.search(r'While working on "The rounding is off by a cent', shown), shown
    assert "Add the coupon endpoint" not in shown


@pytest.mark.parametrize(
    ("texts", "fix", "rule"),
    [
        (["no, run `make lint` before you push",
          "lint failed again. run `make lint` before you push"],
         "sorry, my bad: the target is `make check`, not `make lint`",
         "Run `make check` before you push."),
        (["use `npm run fmt` before committing",
          "you forgot again. use `npm run fmt` before committing"],
         "one more thing: not `npm run fmt`, it's `npm run format`",
         "Use `npm run format` before committing."),
    ],
)  # fmt: skip
def test_a_rule_says_the_command_the_user_settled_on_later(
    tmp_path: Path, texts: list[str], fix: str, rule: str
) -> None:
    s = NamedSession(tmp_path, "c8c8c8c8-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to src/cart.py")
    for text in texts:
        _edit(s, "src/cart.py")
        s.prompt(text)
    _bash(s, "git status")
    s.prompt(fix)
    report = _reflect(s, "--write")
    (theme,) = [r for r in report["recommendations"] if r["kind"] == "correction-theme"]
    assert theme["rule"] == rule
    approved = run_cli("reflect", "approve", str(theme["number"]), cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text("utf-8")
    assert f"- {rule}" in patterns


PATTERNS = """# Patterns

Notes kept by the team. Edit freely.

## Testing
- Run the test suite with `make test`.
- Use `make test` to run the tests.

## Money
- Money is always `Decimal`, never float.
- Always use float for prices in the analytics export (speed matters there).

## Logging
- Log with `structlog`; never `print()`.
"""


def _consolidate(root: Path, *args: str) -> Any:
    done = run_cli("consolidate", *args, "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_consolidate_acts_only_on_the_pairs_it_showed(project: Path) -> None:
    patterns = project / ".claude" / "memory" / "patterns.md"
    patterns.write_text(PATTERNS, "utf-8")
    shown = _consolidate(project)
    kinds = sorted(p["kind"] for p in shown["proposals"])
    assert kinds == ["contradiction", "duplicate"], shown
    # while the proposals are read, the person adds a line of their own
    mine = "- Logging goes through structlog, not print()."
    patterns.write_text(patterns.read_text("utf-8") + mine + "\n", "utf-8")
    applied = _consolidate(project, "--apply")
    text = patterns.read_text("utf-8")
    assert mine in text and "- Log with `structlog`; never `print()`." in text
    assert "- Use `make test` to run the tests." not in text  # the merge that was shown
    assert applied["held"] == ["patterns.md:15"], applied
    # the contradiction as shown: Decimal at line 9, the analytics export's float at 10; the
    # person keeps the export's exception (line 10) ...
    shown = _consolidate(project)
    (pair,) = [p for p in shown["proposals"] if p["kind"] == "contradiction"]
    assert [e["where"] for e in pair["entries"]] == ["patterns.md:9", "patterns.md:10"]
    # ... after adding a line above the pair: line 10 now holds the Decimal entry
    text = patterns.read_text("utf-8")
    patterns.write_text(text.replace("## Money\n", "## Money\n- Totals round half-even.\n"))
    _consolidate(project, "--keep", "patterns.md:10")
    text = patterns.read_text("utf-8")
    assert "float for prices in the analytics export" in text
    assert "- Money is always `Decimal`, never float." not in text
    assert "- Totals round half-even." in text


def test_outside_git_a_top_level_file_seen_before_and_gone_is_missing(project: Path) -> None:
    (project / "docker-compose.yml").write_text("services: {}\n", "utf-8")
    (project / "src").mkdir()
    (project / "src" / "cart.py").write_text("def total(): pass\n", "utf-8")
    patterns = project / ".claude" / "memory" / "patterns.md"
    patterns.write_text(
        "# Patterns\n\n- Local services come up from `docker-compose.yml`.\n"
        "- Seed data is loaded from `seeds.sql`.\n"  # never there: an example, not stale
        "- Cart totals are in `src/cart.py`.\n",
        "utf-8",
    )
    assert by_line(stale_json(project)) == {}
    (project / "docker-compose.yml").unlink()
    found = by_line(stale_json(project))
    assert sorted(found) == [3], found
    assert (found[3]["reason"], found[3]["detail"]) == ("missing", "not in the work tree")
    # still reported after an unrelated edit invalidates the cached report
    patterns.write_text(patterns.read_text("utf-8") + "- Prices are `Decimal`.\n", "utf-8")
    assert sorted(by_line(stale_json(project))) == [3]
