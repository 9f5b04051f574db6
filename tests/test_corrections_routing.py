"""Applying and rejecting queued corrections through ``conkeeper corrections apply|reject``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from conkeeper.domain.provenance import today
from conkeeper.services.analysis.corrections import QUEUE_HEADER, format_queue_line
from conkeeper.services.analysis.routing import RoutingError, apply_item

PATTERNS = "# Patterns\n\n## Naming\n- Modules are lowercase.\n"


def _project(tmp_path: Path, *texts: str) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    (root / ".git").mkdir()
    (memory / "patterns.md").write_text(PATTERNS, encoding="utf-8")
    lines = [
        format_queue_line("correction", t, when=1_700_000_000 + i) for i, t in enumerate(texts)
    ]
    (memory / "corrections-queue.md").write_text(QUEUE_HEADER + "".join(lines), encoding="utf-8")
    return root, memory


def _lines(root: Path) -> list[int]:
    listing = json.loads(run_cli("corrections", "list", "--json", cwd=root).stdout)
    return [item["line"] for item in listing["items"]]


def test_apply_writes_the_rule_with_its_tag_and_dequeues(tmp_path: Path) -> None:
    root, memory = _project(tmp_path, "no, use snake_case for method names", "try again")
    first, second = _lines(root)
    before = today()  # the tag's day: this one, or the next when the command ran past midnight
    proc = run_cli(
        "corrections", "apply", str(first), "--to", "convention", "--category", "convention",
        "--text", "Use snake_case for method names.", "--json", cwd=root,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["target"] == "patterns.md"
    assert (memory / "patterns.md").read_text(encoding="utf-8") in {
        PATTERNS + "- Use snake_case for method names.\n<!-- @category: convention -->\n"
        f"<!-- @source: correction {day} -->\n"  # who wrote it: a correction you approved
        for day in (before, today())
    }
    queue = (memory / "corrections-queue.md").read_text(encoding="utf-8")
    assert "snake_case" not in queue and "try again" in queue
    assert queue.startswith(QUEUE_HEADER)
    assert _lines(root) == [second - 1]


def test_an_agents_wording_of_a_correction_is_tagged_as_the_agents(tmp_path: Path) -> None:
    """The memory-sync skill has the agent apply queued corrections; with ``--text`` the rule is
    in the agent's words, yet it was tagged "a correction you approved" and injected as the
    user's own. It is tagged ``agent-correction`` now (the queued words applied as they are stay
    the user's correction, written as the rule they state) and SessionStart says an agent
    worded it."""
    from conftest import cli_env, session_start_context

    root, memory = _project(tmp_path, "no, use snake_case for method names", "use pnpm here")
    first, _ = _lines(root)
    agent = cli_env(CLAUDECODE="1")
    before = today()  # the tag's day: this one, or the next when the command ran past midnight
    reworded = run_cli(
        "corrections", "apply", str(first), "--to", "convention", "--category", "convention",
        "--text", "Method names are snake_case.", cwd=root, env=agent,
    )  # fmt: skip
    assert reworded.returncode == 0, reworded.stderr
    (second,) = _lines(root)  # listed again: the line moved up when the first item left
    verbatim = run_cli(
        "corrections", "apply", str(second), "--to", "convention", "--category",
        "convention", cwd=root, env=agent,
    )  # fmt: skip
    assert verbatim.returncode == 0, verbatim.stderr
    text = (memory / "patterns.md").read_text(encoding="utf-8")
    assert any(
        f"- Method names are snake_case.\n<!-- @category: convention -->\n"
        f"<!-- @source: agent-correction {day} -->\n" in text
        for day in (before, today())
    )
    assert "- Use pnpm here.\n<!-- @category: convention -->\n<!-- @source: correction" in text
    context = session_start_context(root)
    assert "an agent, rewording a correction of yours" in context, context


def test_reject_only_removes_the_item(tmp_path: Path) -> None:
    root, memory = _project(tmp_path, "that's wrong, revert it")
    (line,) = _lines(root)
    proc = run_cli("corrections", "reject", str(line), cwd=root)
    assert proc.returncode == 0 and "Rejected" in proc.stdout
    assert _lines(root) == []
    assert (memory / "patterns.md").read_text(encoding="utf-8") == PATTERNS


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["apply", "99", "--to", "patterns.md", "--category", "convention"], "no queued item"),
        (["apply", "{line}", "--to", "../../etc/passwd.md", "--category", "pattern"], "outside"),
        (["apply", "{line}", "--to", "schema.md", "--category", "pattern"], "not a file for"),
        (["apply", "{line}", "--to", "patterns.md", "--category", "nonsense"], "unknown category"),
    ],
)
def test_bad_requests_change_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    root, memory = _project(tmp_path, "no, use tabs")
    (line,) = _lines(root)
    before = (memory / "corrections-queue.md").read_bytes()
    proc = run_cli("corrections", *[a.format(line=line) for a in args], cwd=root)
    assert proc.returncode != 0 and message in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert (memory / "corrections-queue.md").read_bytes() == before
    assert (memory / "patterns.md").read_text(encoding="utf-8") == PATTERNS


def test_unclear_category_asks_for_one(tmp_path: Path) -> None:
    _root, memory = _project(tmp_path, "Run ruff before pytest")  # a rule, of no clear kind
    with pytest.raises(RoutingError, match="pass --category"):
        apply_item(memory, 4, "patterns.md")


def test_lines_appended_by_a_hook_meanwhile_survive(tmp_path: Path) -> None:
    root, memory = _project(tmp_path, "no, use pathlib instead of os.path")
    (line,) = _lines(root)
    queue = memory / "corrections-queue.md"
    late = format_queue_line("friction", "still failing", when=1_800_000_000)
    with open(queue, "a", encoding="utf-8") as handle:
        handle.write(late)
    result = apply_item(memory, line, "patterns.md", category="convention")
    assert result.action == "applied"
    assert queue.read_text(encoding="utf-8") == QUEUE_HEADER + late


def test_a_queued_correction_keeps_its_pipes_and_quotes_end_to_end(project: Path) -> None:
    """The prompt hook queues the user's words; list gives them back as written, apply writes
    the rule they state with its code span and quotes intact."""
    said = 'no, use `a | b` and "quoted" paths, not C:\\tmp'
    payload = {
        "session_id": "s-1",
        "transcript_path": str(project.parent / "s-1.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": said,
    }
    assert run_cli("hook", "UserPromptSubmit", stdin=json.dumps(payload)).returncode == 0
    memory = project / ".claude" / "memory"
    assert "\\|" in (memory / "corrections-queue.md").read_text(encoding="utf-8")
    listing = json.loads(run_cli("corrections", "list", "--json", cwd=project).stdout)
    (item,) = listing["items"]
    assert item["text"] == said
    (memory / "patterns.md").write_text(PATTERNS, encoding="utf-8")
    proc = run_cli(
        "corrections", "apply", str(item["line"]), "--to", "convention",
        "--category", "convention", cwd=project,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rule = 'Use `a | b` and "quoted" paths, not C:\\tmp.'
    assert f"- {rule}\n" in (memory / "patterns.md").read_text(encoding="utf-8")


def test_items_applied_one_after_another_by_the_ids_listed_once(tmp_path: Path) -> None:
    """The memory-sync skill lists the queue once, then applies or rejects the items the user
    approved one by one. By line number the second act named another item (the first left the
    queue, every later line moved up); by id each act names the item the user approved."""
    project, _ = _project(tmp_path, "use snake_case", "tabs, not spaces", "no ORMs")
    listed = json.loads(run_cli("corrections", "list", "--json", cwd=project).stdout)["items"]
    first, second, third = (item["id"] for item in listed)
    run_cli("corrections", "reject", first, cwd=project)
    applied = run_cli(
        "corrections",
        "apply",
        third,
        "--to",
        "convention",
        "--category",
        "convention",
        "--text",
        "Do not use an ORM.",  # "no ORMs" states no rule ConKeeper writes without your words
        "--json",
        cwd=project,
    )
    assert json.loads(applied.stdout)["item"]["text"] == "no ORMs"
    left = json.loads(run_cli("corrections", "list", "--json", cwd=project).stdout)["items"]
    assert [(item["id"], item["text"]) for item in left] == [(second, "tabs, not spaces")]
    gone = run_cli("corrections", "reject", first, cwd=project)
    assert gone.returncode != 0
    assert "no queued item" in gone.stderr and "Traceback" not in gone.stderr
