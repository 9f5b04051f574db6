"""Issue 20 ("what ConKeeper learns is right"): what learning probe 10 left, each case replayed
through the real entry points (hooks as subprocesses with each host's payload shape, then the
CLI); each test failed before its fix.

* a session's first prompt ("Parse the ledger file in src/lib.rs") was queued as a correction
  with "ref: previous assistant message": with no agent turn before it (a ``startup`` or
  ``clear`` start carries none over) there is nothing to correct; a resumed session (Claude
  Code ``source: resume``, Codex and Gemini CLI alike) keeps its corrections;
* ``consolidate`` did not pair "Always use float64 for prices in the API layer." with "Money
  is always integer cents (`int64`), never `float64`.": the words placing the first rule in a
  part ("in the API layer") diluted what the two share below the bar, though a part of the
  project lies inside a rule that holds everywhere;
* ``stale`` outside git said only "not in the work tree" of a file moved to another folder: it
  names the file of that name elsewhere in the project now;
* ``stale`` read `impl From<Order> for Invoice` as citing `From` alone and `Vec<LineItem>` as
  citing nothing: `Invoice` and `LineItem` renamed, the entries stayed "fresh";
* corrections gave no rule ("n'utilise pas `any`, utilise `unknown`", "别用 fmt.Println，用
  slog.Info。", "не используй unwrap(), используй ?", "utilise toujours `go test -race`, sinon
  ...") or lost half of it ("never use `git add -A`; stage files by name" became "Never use
  `git add -A`.": "stage" is no known verb); one order said twice, once refused, is a rule in
  any language, and after a part that forbids, a short clause with no subject says what to do
  instead, whatever its verb.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import cli_env, run_cli
from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write
from test_reflect_facts import NamedSession

OPENERS = ("Parse the ledger file in src/lib.rs", "Validate the form fields in src/form.tsx")
CORRECTION = "no, that's wrong. use snake_case for the column names"


def _queue(project: Path) -> str:
    path = project / ".claude" / "memory" / "corrections-queue.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _project(root: Path) -> None:
    (root / ".git").mkdir(parents=True)
    init = run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=root)
    assert init.returncode == 0, init.stderr


def _detected(text: str) -> bool:
    """Whether the detector alone reads ``text`` as a correction (the premise of a test)."""
    from conkeeper.services.analysis import corrections

    return corrections.detect(text, "low").label == "correction"


def test_a_sessions_first_prompt_is_no_correction(tmp_path: Path) -> None:
    for number, opener in enumerate(OPENERS):
        assert _detected(opener), opener
        s = NamedSession(tmp_path, f"sess-open-{number}")
        _project(s.project)
        s.hook("SessionStart", source="startup" if number == 0 else "clear")
        s.prompt(opener)
        assert opener not in _queue(s.project), _queue(s.project)
        s.prompt(CORRECTION)  # after the agent's turn, the same detector still queues
        assert CORRECTION in _queue(s.project)


def test_a_resumed_claude_session_keeps_its_first_correction(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-resumed")
    _project(s.project)
    s.hook("SessionStart", source="resume")
    s.prompt(OPENERS[0])
    assert OPENERS[0] in _queue(s.project)


def _host(host: str, root: Path, event: str, **fields: object) -> None:
    body = {"session_id": f"{host}-resumed", "transcript_path": None, "cwd": str(root)}
    body.update(hook_event_name=event, **fields)
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "hook", "--host", host, event],
        input=json.dumps(body),
        cwd=root,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_codex_and_gemini_sessions_queue_after_a_resume_only(tmp_path: Path) -> None:
    prompt_event = {"codex": "UserPromptSubmit", "gemini": "BeforeAgent"}
    for host, event in prompt_event.items():
        for source in ("startup", "resume"):
            root = tmp_path / host / source
            _project(root)
            _host(host, root, "SessionStart", source=source, model="m")
            _host(host, root, event, prompt=OPENERS[1], turn_id="t1")
            assert (OPENERS[1] in _queue(root)) is (source == "resume"), (host, source)


def test_consolidate_pairs_a_rule_for_a_part_with_the_rule_for_everything(tmp_path: Path) -> None:
    root = tmp_path / "api"
    _project(root)
    patterns = root / ".claude" / "memory" / "patterns.md"
    patterns.write_text(
        "# Patterns\n\n- Always use float64 for prices in the API layer.\n"
        "- Money is always integer cents (`int64`), never `float64`.\n"
        "- Handlers log with slog in the HTTP layer.\n",
        "utf-8",
    )
    done = run_cli("consolidate", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    proposals = json.loads(done.stdout)["proposals"]
    assert [p["kind"] for p in proposals] == ["contradiction"], proposals
    assert [e["where"] for e in proposals[0]["entries"]] == ["patterns.md:3", "patterns.md:4"]


def test_outside_git_a_moved_file_is_named_where_a_file_of_its_name_is(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, ".claude/memory/patterns.md", "# Patterns\n\n- Prices live in `lib/pricing.py`.\n")
    write(root, "lib/pricing.py", "def price(): pass\n")
    write(root, "lib/cart.py", "def cart(): pass\n")
    assert by_line(stale_json(root)) == {}
    (root / "src" / "shop").mkdir(parents=True)
    (root / "lib" / "pricing.py").rename(root / "src" / "shop" / "pricing.py")
    found = by_line(stale_json(root))
    assert found[3]["reason"] == "missing", found
    detail = "not in the work tree; a file of that name is at src/shop/pricing.py"
    assert found[3]["detail"] == detail


RUST_MEMORY = """# Patterns

- Orders become invoices through `impl From<Order> for Invoice`.
- An order's lines are a `Vec<LineItem>`.
"""


def test_a_rust_impl_and_a_generic_type_cite_the_types_they_name(tmp_path: Path) -> None:
    root = tmp_path / "billing"
    root.mkdir()
    git(root, "init", "-q")
    code = "pub struct {inv} {{}}\npub struct {item} {{}}\n"
    code += "pub struct Order {{ lines: Vec<{item}> }}\n"
    code += "impl From<Order> for {inv} {{ fn from(o: Order) -> Self {{ {inv} {{}} }} }}\n"
    write(root, "src/lib.rs", code.format(inv="Invoice", item="LineItem"))
    write(root, ".claude/memory/patterns.md", RUST_MEMORY)
    commit(root, "Billing and memory", T0)
    assert stale_json(root, "--no-cache")["findings"] == []
    write(root, "src/lib.rs", code.format(inv="Bill", item="OrderLine"))
    commit(root, "Rename the invoice and line types", T0 + DAY)
    found = by_line(stale_json(root, "--no-cache"))
    assert sorted(found) == [3, 4], found
    assert (found[3]["citation"], found[4]["citation"]) == ("Invoice", "LineItem"), found


RULES = {
    "n'utilise pas `any`, utilise `unknown`": "N'utilise pas `any`, utilise `unknown`.",
    "non. utilise toujours `go test -race`, sinon les data races passent inaperçues": (
        "Utilise toujours `go test -race`, sinon les data races passent inaperçues."
    ),
    "别用 fmt.Println，用 slog.Info。": "别用 fmt.Println，用 slog.Info。",
    "no, never use `git add -A`; stage files by name": (
        "Never use `git add -A`; stage files by name."
    ),
}


def test_a_correction_in_any_language_keeps_both_halves_of_its_rule(tmp_path: Path) -> None:
    for number, (said, rule) in enumerate(RULES.items()):
        root = tmp_path / f"proj-{number}"
        _project(root)
        _gemini_session(root, said)
        result = run_cli("reflect", "--session", "gemini-resumed", "--json", cwd=root)
        assert result.returncode == 0, result.stderr
        found = json.loads(result.stdout)["recommendations"]
        rules = [r["rule"] for r in found if r["kind"] == "correction-theme"]
        assert rules == [rule], (said, found)


def _gemini_session(root: Path, correction: str) -> None:
    """A Gemini CLI session: a request, the agent's edits and build, then ``correction``."""
    edit = {"file_path": str(root / "src" / "main.go"), "old_string": "a", "new_string": "b"}
    shell = {"command": "go build ./...", "description": "build"}
    done = {"llmContent": "Command: go build ./...\nOutput: \nExit Code: 0\nSignal: (none)"}
    _host("gemini", root, "SessionStart", source="startup")
    _host("gemini", root, "BeforeAgent", prompt="Add the order export in src/main.go")
    for _ in range(3):
        _host("gemini", root, "AfterTool", tool_name="replace", tool_input=edit, tool_response={})
    _host(
        "gemini",
        root,
        "AfterTool",
        tool_name="run_shell_command",
        tool_input=shell,
        tool_response=done,
    )
    _host("gemini", root, "AfterAgent", prompt_response="Done.", stop_hook_active=False)
    _host("gemini", root, "BeforeAgent", prompt=correction)
    _host("gemini", root, "AfterTool", tool_name="replace", tool_input=edit, tool_response={})
    _host("gemini", root, "AfterAgent", prompt_response="Fixed.", stop_hook_active=False)
    _host("gemini", root, "SessionEnd", reason="exit")


def test_a_russian_correction_gives_its_rule() -> None:
    """The detector does not read Russian yet (its model is retrained apart), so ``reflect``
    never sees this correction; the rule function approval uses reads it whole."""
    from conkeeper.services.analysis.reflection.rules import imperative_rule

    said = "нет. не используй unwrap(), используй ?"
    assert imperative_rule([said]) == "Не используй unwrap(), используй ?."
