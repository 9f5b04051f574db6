"""A queued correction applied without ``--text`` becomes the rule it states, never the raw prompt.

Issue 20 ("Wrong learning"): the user's complaint was written into ``patterns.md`` as a
convention. ``reflect approve`` writes the rule (``reflection.rules.imperative_rule``);
``conkeeper corrections apply ID --to convention`` with no ``--text`` still wrote the queued
prompt ("- No, use pnpm, not npm"). Each test queues the correction through the real
UserPromptSubmit hook (a subprocess with a real-shaped payload), then lists and applies it
through the CLI.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest

from conftest import cli_env, run_cli

PATTERNS = "# Patterns\n\n## Naming\n- Modules are lowercase.\n"


def _queued(project: Path, said: str) -> str:
    """Queue ``said`` through the prompt hook; the id ``corrections list`` gives it."""
    payload = {
        "session_id": "s-1",
        "transcript_path": str(project.parent / "s-1.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": said,
    }
    assert run_cli("hook", "UserPromptSubmit", stdin=json.dumps(payload)).returncode == 0
    listing = json.loads(run_cli("corrections", "list", "--json", cwd=project).stdout)
    (item,) = listing["items"]
    assert item["text"] == said
    (project / ".claude" / "memory" / "patterns.md").write_text(PATTERNS, encoding="utf-8")
    return str(item["id"])


def _patterns(project: Path) -> str:
    return (project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")


def test_apply_without_text_writes_the_rule_not_the_prompt(project: Path) -> None:
    item = _queued(project, "No, use pnpm, not npm")
    proc = run_cli(
        "corrections", "apply", item, "--to", "convention", "--category", "convention",
        "--json", cwd=project,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["text"] == "Use pnpm, not npm."
    text = _patterns(project)
    assert "- Use pnpm, not npm.\n<!-- @category: convention -->\n<!-- @source: correction" in text
    assert "No, use pnpm" not in text


def test_the_complaint_around_the_rule_is_left_out(project: Path) -> None:
    said = "You keep forgetting the import, that's the second time. Always run ruff before pytest"
    item = _queued(project, said)
    proc = run_cli(
        "corrections", "apply", item, "--to", "convention", "--category", "convention",
        cwd=project,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = _patterns(project)
    assert "- Run ruff before pytest.\n" in text
    assert "second time" not in text and "You keep" not in text


def test_a_dont_keeps_what_it_forbids_and_the_code_spans(project: Path) -> None:
    item = _queued(
        project, "You keep passing `--no-verify` to git commit. Don't, run `make lint` first."
    )
    proc = run_cli(
        "corrections", "apply", item, "--to", "convention", "--category", "convention",
        cwd=project,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "- Do not pass `--no-verify` to git commit; run `make lint` first.\n" in _patterns(
        project
    )


def test_an_item_without_a_rule_is_refused_in_one_line_asking_for_text(project: Path) -> None:
    item = _queued(project, "no, that's wrong again, you broke the build")
    queue = project / ".claude" / "memory" / "corrections-queue.md"
    before = queue.read_bytes()
    proc = run_cli(
        "corrections", "apply", item, "--to", "convention", "--category", "convention",
        cwd=project,
    )  # fmt: skip
    assert proc.returncode != 0
    assert "--text" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert _patterns(project) == PATTERNS and queue.read_bytes() == before
    worded = run_cli(
        "corrections", "apply", item, "--to", "convention", "--category", "convention",
        "--text", "Keep the build green.", cwd=project,
    )  # fmt: skip
    assert worded.returncode == 0, worded.stderr
    assert "- Keep the build green.\n" in _patterns(project)


def test_an_agent_applying_without_text_writes_the_rule_as_the_users_correction(
    project: Path,
) -> None:
    """The rule ConKeeper reads from the user's words is still the correction the user made:
    provenance ``correction``, not ``agent-correction`` (the agent worded nothing)."""
    item = _queued(project, "No, use pnpm, not npm")
    proc = run_cli(
        "corrections", "apply", item, "--to", "convention", "--category", "convention",
        cwd=project, env=cli_env(CLAUDECODE="1"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "- Use pnpm, not npm.\n<!-- @category: convention -->\n<!-- @source: correction " in (
        _patterns(project)
    )


def test_the_viewer_approve_writes_no_raw_prompt_and_says_to_pass_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The viewer's queue approve goes through the same routing: its queued correction ("No,
    that's wrong: you bypassed the repository helper, always use it ...") states no rule of
    its own ("use it"), so nothing is written and the notice names the command with --text."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    pytest.importorskip("jinja2")
    pytest.importorskip("markdown_it")
    from test_viewer_security import csrf_token, login, request
    from viewer_support import CORRECTION, make_project, running_viewer

    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CONKEEPER_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    project = make_project(tmp_path)
    memory = project / ".claude" / "memory"
    before = {p.name: p.read_bytes() for p in memory.glob("*.md")}
    with running_viewer(project) as v:
        cookie = login(v)
        page = request(v, "/queue", cookie=cookie)[2]
        line = re.search(r'name="line" value="(\d+)"', page)
        key = re.search(r'name="key" value="([^"]+)"', page)
        assert line and key, "the queue page lists no item"
        body = urlencode(
            {
                "csrf": csrf_token(v, cookie),
                "line": line.group(1),
                "key": key.group(1),
                "target": "convention",
                "category": "convention",
            }
        )
        status, headers, _ = request(v, "/queue/apply", method="POST", cookie=cookie, body=body)
        assert status == 303
        shown = request(v, headers["location"], cookie=cookie)[2]
    assert "--text" in html.unescape(shown) and "no rule can be read" in shown
    assert {p.name: p.read_bytes() for p in memory.glob("*.md")} == before
    assert CORRECTION in (memory / "corrections-queue.md").read_text(encoding="utf-8")


def test_the_viewer_shows_the_rule_to_keep_or_reword_and_writes_what_the_person_approves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The viewer's queue form shows the rule an item states in a field the person may reword
    (empty when it states none), and approve writes the field's words, never the prompt."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from test_viewer_security import csrf_token, login, request
    from viewer_support import CORRECTION, make_project, running_viewer

    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CONKEEPER_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    project = make_project(tmp_path)
    memory = project / ".claude" / "memory"
    with running_viewer(project) as v:
        cookie = login(v)
        page = html.unescape(request(v, "/queue", cookie=cookie)[2])
        assert 'name="text" class="rule" size="60" value=""' in page  # it states no rule
        line = re.search(r'name="line" value="(\d+)"', page)
        key = re.search(r'name="key" value="([^"]+)"', page)
        assert line and key, "the queue page lists no item"
        fields = {"line": line.group(1), "key": key.group(1), "target": "convention"}
        fields |= {"category": "convention", "text": "Use the repository helper for queries."}
        body = urlencode({"csrf": csrf_token(v, cookie), **fields})
        status, _, _ = request(v, "/queue/apply", method="POST", cookie=cookie, body=body)
        assert status == 303
    written = (memory / "patterns.md").read_text(encoding="utf-8")
    assert "- Use the repository helper for queries." in written
    assert CORRECTION not in written
