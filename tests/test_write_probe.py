"""A tester's second round on what ConKeeper writes, through real entry points only.

Each test is one attack that once failed from the outside: the person's own text around the
part ConKeeper edits (an unclosed private block at the end of a file, a hand-written row in
``decisions/INDEX.md``, Latin-1 bytes in ``.gitignore``), checked on the file's bytes.
ConKeeper runs as CLI subprocesses (``python -m conkeeper``) and as the MCP ``remember`` tool.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from urllib.parse import urlencode

import pytest

from conftest import cli_env, run_cli, submit_prompt
from conkeeper.mcp.tools import ToolInputError, remember


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=project)


# --------------------------------------------------------------------------- unclosed private

OPEN_PRIVATE = b"# Patterns\n\n- keep functions short\n<private>\nstaging db at 10.0.4.12\n"


def test_an_entry_is_refused_where_an_unclosed_private_block_would_hide_it(
    project: Path,
) -> None:
    """Privacy hides an unclosed block to the end of the file: an entry appended there was
    reported saved, yet never searched nor injected, and ``corrections apply`` consumed its
    queued item for nothing. Now every transport refuses it with one line, nothing written."""
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    patterns.write_bytes(OPEN_PRIVATE)
    queue = memory / "corrections-queue.md"
    queue.write_bytes(
        b"# Corrections Queue\n\n- **2023-11-14 22:13:20** | correction | "
        b'"use the loguru logger instead of print" | ref: previous assistant message\n'
    )
    before_queue = queue.read_bytes()

    said = _cli(project, "remember", "--source", "user", "--category", "convention", "use uv")
    assert said.returncode == 1
    assert "line 4 is never closed" in said.stderr
    applied = _cli(
        project, "corrections", "apply", "3", "--to", "patterns.md", "--category", "convention"
    )
    assert applied.returncode == 1
    assert "never closed" in applied.stderr
    with pytest.raises(ToolInputError, match="never closed"):
        remember(project, "Prefer pathlib over os.path", "convention", "patterns.md")

    assert patterns.read_bytes() == OPEN_PRIVATE
    assert queue.read_bytes() == before_queue  # the queued item is still there to apply


def test_a_closed_private_block_or_a_private_file_still_takes_entries(project: Path) -> None:
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    closed = OPEN_PRIVATE + b"</private>"
    patterns.write_bytes(closed)
    said = _cli(project, "remember", "--source", "user", "--category", "convention", "use uv")
    assert said.returncode == 0, said.stderr
    # a blank line after the person's closing tag: a bullet right under a tag line would be
    # swallowed by the HTML block in every CommonMark viewer (write probe 8)
    assert patterns.read_bytes().startswith(closed + b"\n\n- use uv\n")
    found = _cli(project, "search", "uv")
    assert "- use uv" in found.stdout

    glossary = memory / "glossary.md"
    glossary.write_bytes(b"---\nprivate: true\n---\n# Glossary\n")
    said = _cli(
        project,
        "remember",
        "--source",
        "user",
        "--file",
        "term",
        "--category",
        "learning",
        "ULID: a sortable id",
    )
    assert said.returncode == 0, said.stderr  # the person made the whole file private


# --------------------------------------------------------------------------- decisions/INDEX.md


def test_a_hand_written_index_row_for_a_decision_kept_elsewhere_survives(project: Path) -> None:
    """``decisions new`` and ``decisions index`` rebuilt every ``| [ADR-n]`` row, so the
    person's row for a decision recorded on a wiki was deleted. Only rows linking an ADR file
    of the folder are ConKeeper's; the rest of the file stays byte for byte."""
    decisions = project / ".claude" / "memory" / "decisions"
    decisions.mkdir()
    index = decisions / "INDEX.md"
    wiki_row = (
        b"| [ADR-000](https://wiki.example/adr/0) | Legacy caf\xe9 decision | accepted | - |\r\n"
    )
    head = (
        b"# Decisions\r\n\r\n| ADR | Title | Status | Date |\r\n|-----|-------|--------|------|\r\n"
    )
    tail = b"\r\n## My notes\r\n- [ADR-009](../../docs/adr-9.md) planned, see the wiki\r\n"
    index.write_bytes(head + wiki_row + tail)

    made = _cli(project, "decisions", "new", "Use Postgres", "--decision", "We will use it")
    assert made.returncode == 0, made.stderr
    regenerated = _cli(project, "decisions", "index")
    assert regenerated.returncode == 0, regenerated.stderr

    data = index.read_bytes()
    assert data.startswith(head)
    assert wiki_row in data and data.endswith(tail)
    assert b"| [ADR-001](ADR-001-use-postgres.md) | Use Postgres |" in data
    (decisions / "ADR-001-use-postgres.md").unlink()
    assert _cli(project, "decisions", "index").returncode == 0
    assert index.read_bytes() == head + wiki_row + tail  # its own row gone, the person's kept


# --------------------------------------------------------------------------- .gitignore


def test_init_gitignore_keeps_a_latin1_gitignore_and_undo_gives_it_back(tmp_path: Path) -> None:
    """``init --gitignore`` refused a ``.gitignore`` naming a Latin-1 folder ("not valid
    UTF-8"), after creating the layout. git reads names as bytes: the entry is added, every
    byte of the person's kept, the entry the BOM line already has not added twice."""
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    gitignore = root / ".gitignore"
    mine = b"\xef\xbb\xbf.claude/memory/.last-sync\r\nnode_modules/\r\ncaf\xe9/\r\n*.log"
    gitignore.write_bytes(mine)

    made = _cli(root, "init", "--no", "--gitignore")
    assert made.returncode == 0, made.stderr
    data = gitignore.read_bytes()
    assert data.startswith(mine + b"\r\n")
    assert data.count(b".last-sync") == 1
    assert data.endswith(b"\r\n.claude/memory/sessions/*-observations.md\r\n")

    undone = _cli(root, "undo")
    assert undone.returncode == 0, undone.stderr
    assert gitignore.read_bytes() == mine


# --------------------------------------------------------------------------- two at once

# ``python -m conkeeper ARGS``, started ahead and held at the gate (its stdin) until every
# process is ready, so the commands really run at once rather than one per interpreter start.
GATED = (
    "import runpy, sys\n"
    "import conkeeper.cli.main, conkeeper.cli.cmd_decisions, conkeeper.services.decisions\n"
    "import conkeeper.services.workspace\n"
    "sys.stdin.read()\n"
    "sys.argv = ['conkeeper', *sys.argv[1:]]\n"
    "runpy.run_module('conkeeper', run_name='__main__')\n"
)


def test_two_sessions_writing_an_adr_at_once_never_share_a_number(project: Path) -> None:
    """Six ``decisions new`` at once made ADR-001 twice and ADR-003 twice: each chose the next
    number before the others created theirs. Now each number is taken once and indexed."""
    import sys

    env = cli_env()
    people = [
        subprocess.Popen(
            [sys.executable, "-c", GATED, "decisions", "new", f"Choice {n}", "--decision", "We"],
            cwd=project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for n in range(6)
    ]
    for person in people:
        assert person.stdin is not None
        person.stdin.close()  # the gate opens for all
    for person in people:
        assert person.wait(timeout=120) == 0, person.stderr.read() if person.stderr else ""
        if person.stderr:
            person.stderr.close()
    decisions = project / ".claude" / "memory" / "decisions"
    numbers = sorted(p.name[:7] for p in decisions.glob("ADR-*.md"))
    assert numbers == [f"ADR-{n:03d}" for n in range(1, 7)]
    index = (decisions / "INDEX.md").read_text()
    assert all(f"Choice {n} |" in index for n in range(6))


def test_the_index_is_rebuilt_from_the_folder_as_it_is_under_the_lock(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race above, made certain: a session read the ADR folder, then waited for the lock
    while another session wrote ADR-002 and its row; once it had the lock it wrote its older
    view of the folder over that row (CI lost one of six rows this way). The folder is read
    under the lock now, so the last writer's index holds every ADR."""
    from conkeeper.domain import safewrite
    from conkeeper.services import decisions

    memory = project / ".claude" / "memory"
    decisions.new_adr(memory, "Choice 0", "We")
    real_edit_file = safewrite.edit_file

    def another_session_first(*args: object, **kwargs: object) -> object:
        monkeypatch.setattr(decisions, "edit_file", real_edit_file)
        decisions.new_adr(memory, "Choice 1", "We")  # finishes while this one waits
        return real_edit_file(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(decisions, "edit_file", another_session_first)
    decisions.regenerate_index(memory)
    index = (memory / "decisions" / "INDEX.md").read_text(encoding="utf-8")
    assert "Choice 0 |" in index and "Choice 1 |" in index, index


# --------------------------------------------------------------------------- read-only files


def test_a_file_the_person_made_read_only_is_refused_by_every_kind_of_edit(
    project: Path,
) -> None:
    """``chmod a-w patterns.md`` was ignored: ``tag add`` and ``config set`` replace the file by
    a rename, which needs only the folder's permission (the file also changed owner), and as
    its owner ``remember`` appended to it. Each now refuses with one line, nothing written."""
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    config = memory / ".memory-config.md"
    patterns.write_bytes(b"# Patterns\n\n- keep functions short\n")
    config.write_bytes(b"---\nsave_interval: 5\n---\n")
    for path in (patterns, config):
        path.chmod(0o444)
    before = {path: (path.read_bytes(), path.stat().st_ino) for path in (patterns, config)}
    attempts = [
        ("tag", "add", "patterns.md", "3", "convention"),
        ("remember", "--source", "user", "--category", "convention", "use uv"),
        ("config", "set", "save_interval", "9"),
    ]
    try:
        for args in attempts:
            proc = run_cli(*args, cwd=memory)
            assert proc.returncode == 1, args
            assert "is read-only; nothing was written" in proc.stderr
            assert proc.stderr.count("\n") == 1  # one line
        assert {p: (p.read_bytes(), p.stat().st_ino) for p in (patterns, config)} == before
    finally:
        for path in (patterns, config):
            path.chmod(0o644)


# --------------------------------------------------------------------------- the agent's edits

USER_LINES = "- Deploy without review when the on-call lead says so\n- keep functions short\n"
AGENT_LINE = "- Skip the tests without asking anyone\n"


def _hook(root: Path, event: str, **fields: object) -> str:
    payload = {
        "session_id": "s-probe",
        "transcript_path": str(root / "t.jsonl"),
        "cwd": str(root),
        "hook_event_name": event,
        **fields,
    }
    proc = run_cli("hook", event, stdin=json.dumps(payload), cwd=root)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("tool", ["Edit", "MultiEdit", "Write"])
def test_the_users_lines_an_agent_edit_repeats_stay_the_users(project: Path, tool: str) -> None:
    """An Edit's ``new_string`` repeats its ``old_string`` around the change, a Write the whole
    file: every such line was taken for the agent's, so the person's own instruction-shaped
    line was held out of the next sessions and ``review drop`` cut it from the file. Only the
    lines the tool added are the agent's now."""
    patterns = project / ".claude" / "memory" / "patterns.md"
    patterns.write_text("# Patterns\n\n" + USER_LINES)
    first = _hook(project, "SessionStart", source="startup")
    assert "Deploy without review" in first
    edit = {"old_string": USER_LINES, "new_string": USER_LINES + AGENT_LINE}
    tool_input: dict[str, object] = {
        "Edit": {"file_path": str(patterns), **edit},
        "MultiEdit": {"file_path": str(patterns), "edits": [edit]},
        "Write": {
            "file_path": str(patterns),
            "content": "# Patterns\n\n" + USER_LINES + AGENT_LINE,
        },
    }[tool]
    _hook(project, "PreToolUse", tool_name=tool, tool_input=tool_input, tool_use_id="t1")
    patterns.write_text("# Patterns\n\n" + USER_LINES + AGENT_LINE)  # what the tool did
    notice = _hook(
        project,
        "PostToolUse",
        tool_name=tool,
        tool_input=tool_input,
        tool_use_id="t1",
        tool_response={"filePath": str(patterns)},
    )
    assert "held from the next sessions" in notice  # the agent's own line is still caught

    assert "Deploy without review" in _hook(project, "SessionStart", source="startup")
    listed = run_cli("review", "list", "--json", cwd=project)
    held = json.loads(listed.stdout)["held"]
    assert [item["text"] for item in held] == [AGENT_LINE.strip()]
    dropped = run_cli("review", "drop", held[0]["id"], cwd=project)
    assert dropped.returncode == 0, dropped.stderr
    assert patterns.read_text() == "# Patterns\n\n" + USER_LINES


def test_review_drop_cuts_the_agents_line_not_the_persons_copy(project: Path) -> None:
    """``review drop`` cut every line equal to the held one: the same words the person typed
    themselves under another heading went too (found by the write-path attack round)."""
    patterns = project / ".claude" / "memory" / "patterns.md"
    patterns.write_text("# Patterns\n\n" + USER_LINES)
    _hook(project, "SessionStart", source="startup")
    edit = {"old_string": USER_LINES, "new_string": USER_LINES + AGENT_LINE}
    patterns.write_text("# Patterns\n\n" + USER_LINES + AGENT_LINE)  # the agent's Edit
    _hook(
        project,
        "PostToolUse",
        tool_name="Edit",
        tool_input={"file_path": str(patterns), **edit},
        tool_use_id="t1",
        tool_response={"filePath": str(patterns)},
    )
    with patterns.open("a", encoding="utf-8") as handle:  # the person agrees, in their words
        handle.write("\n## Mine\n\n" + AGENT_LINE)
    (held,) = json.loads(run_cli("review", "list", "--json", cwd=project).stdout)["held"]
    assert run_cli("review", "drop", held["id"], cwd=project).returncode == 0
    assert patterns.read_text().count(AGENT_LINE) == 1


# --------------------------------------------------------------------------- install / uninstall


def test_a_line_the_person_wrote_inside_the_instructions_block_survives_uninstall(
    tmp_path: Path,
) -> None:
    """The person added a rule of their own inside ConKeeper's marked block of
    ``.github/copilot-instructions.md``; uninstall cut the whole block and the rule with it.
    Now ConKeeper's lines go, theirs stay where the block was (with a warning), and ``undo``
    gives the file back exactly."""
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    rules = root / ".github" / "copilot-instructions.md"
    rules.parent.mkdir()
    mine = b"# House rules\r\n\r\nUse tabs.\r\n"
    rules.write_bytes(mine)
    assert run_cli("install", "--agent", "copilot", cwd=root).returncode == 0
    lines = rules.read_bytes().splitlines(keepends=True)
    end = next(n for n, line in enumerate(lines) if b"conkeeper:end" in line)
    own = b"- My own rule: never push on Fridays.\r\n"
    edited = b"".join([*lines[:end], own, *lines[end:]])
    rules.write_bytes(edited)

    removed = run_cli("install", "--agent", "copilot", "--uninstall", cwd=root)
    assert removed.returncode == 0, removed.stderr
    assert "your lines inside ConKeeper's block were kept" in removed.stderr
    assert rules.read_bytes() == mine + b"\r\n" + own

    assert run_cli("undo", cwd=root).returncode == 0
    assert rules.read_bytes() == edited


# --------------------------------------------------------------------------- the viewer's queue


def test_a_queue_page_left_open_rejects_the_item_it_showed_not_its_neighbour(
    project: Path,
) -> None:
    """The viewer's buttons sent a line number. With the page open, the sync skill applied the
    first item; the person then rejected the second as shown, and the third (now on that line)
    was rejected instead. The form names the item now: the one shown is acted on, and an item
    gone meanwhile is refused."""
    for module in ("starlette", "uvicorn", "jinja2", "markdown_it"):
        pytest.importorskip(module)
    import re

    from tests.test_viewer_security import login, request

    from viewer_support import running_viewer

    memory = project / ".claude" / "memory"
    queue = memory / "corrections-queue.md"
    words = ["loguru", "structlog", "rich"]
    queue.write_text(
        "# Corrections Queue\n\n"
        + "".join(
            f'- **2023-11-14 22:13:2{n}** | correction | "use the {w} logger" | ref: previous '
            "assistant message\n"
            for n, w in enumerate(words)
        )
    )
    with running_viewer(project) as v:
        cookie = login(v)
        page = request(v, "/queue", cookie=cookie)[2]
        forms = {}  # what the browser would send with each item's Reject button
        for item in page.split('class="queue-item"')[1:]:
            text = re.search(r'<p class="text">use the (\w+) logger</p>', item)
            reject = item[item.index('action="/queue/reject"') :]
            assert text is not None
            forms[text.group(1)] = dict(
                re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', reject)
            )
        assert sorted(forms) == sorted(words)
        applied = run_cli(
            "corrections",
            "apply",
            "3",
            "--to",
            "patterns.md",
            "--category",
            "convention",
            cwd=project,
        )
        assert applied.returncode == 0, applied.stderr

        status, _, _ = request(
            v, "/queue/reject", method="POST", cookie=cookie, body=urlencode(forms["structlog"])
        )
        assert status == 303
        left = queue.read_text()
        assert "structlog" not in left and "rich" in left

        status, headers, _ = request(
            v, "/queue/reject", method="POST", cookie=cookie, body=urlencode(forms["loguru"])
        )
        assert "no longer in the queue" in request(v, headers["location"], cookie=cookie)[2]
        assert queue.read_text() == left


# --------------------------------------------------------------------------- undo


def test_undo_of_a_file_the_person_replaced_by_a_folder_is_one_clear_line(project: Path) -> None:
    """``undo`` after the person moved ``patterns.md`` away and made a folder of that name
    printed "undo failed: IsADirectoryError ... (details in the ConKeeper log)"."""
    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    patterns.write_bytes(b"# Patterns\n")
    saved = _cli(project, "remember", "--source", "user", "--category", "convention", "use uv")
    assert saved.returncode == 0, saved.stderr
    patterns.rename(memory / "patterns.old.md")
    patterns.mkdir()
    (patterns / "notes.md").write_bytes(b"- mine\n")

    undone = _cli(project, "undo")
    assert undone.returncode == 1
    assert undone.stderr == (
        f"conkeeper: {patterns}: is a folder now, not the file this write changed; nothing was "
        "undone\n"
    )
    assert (patterns / "notes.md").read_bytes() == b"- mine\n"


@pytest.mark.parametrize("target", [".history/notes.md", ".review/notes.md", ".notes/x.md"])
def test_an_entry_is_never_saved_where_nothing_reads_it(project: Path, target: str) -> None:
    """``remember --file .history/notes.md`` (or the MCP tool's ``file``) said "Saved" into
    ConKeeper's own git-ignored journal folder, where search and SessionStart never look."""
    memory = project / ".claude" / "memory"
    said = _cli(
        project,
        "remember",
        "--source",
        "user",
        "--category",
        "convention",
        "--file",
        target,
        "use uv",
    )
    assert said.returncode == 1
    assert "never searched nor loaded" in said.stderr
    with pytest.raises(ToolInputError, match="never searched nor loaded"):
        remember(project, "Prefer pathlib over os.path", "convention", target)
    assert not (memory / target).exists()


# --------------------------------------------------------------------------- the hooks' appends


def test_a_hook_line_never_glues_onto_a_note_typed_without_a_line_break(project: Path) -> None:
    """The person's note at the end of the queue, or of the day's observation log, typed
    without a final line break: the hook's line was glued onto it, the note changed, and the
    queued correction could not be read back ("No queued corrections")."""
    memory = project / ".claude" / "memory"
    queue = memory / "corrections-queue.md"
    queue.write_bytes(b"# Corrections Queue\r\n\r\nmy queue note")
    prompted = submit_prompt(project, "No, that's wrong. Don't use print, use the logging module.")
    assert prompted.returncode == 0, prompted.stderr
    data = queue.read_bytes()
    assert data.startswith(b"# Corrections Queue\r\n\r\nmy queue note\r\n- **")
    listed = _cli(project, "corrections", "list")
    assert "use the logging module" in listed.stdout

    _hook(project, "SessionStart", source="startup")
    bash = {"tool_name": "Bash", "tool_response": {"stdout": "x", "exit_code": 0}}
    _hook(project, "PostToolUse", tool_input={"command": "ls -la"}, tool_use_id="t1", **bash)
    log = next((memory / "sessions").glob("*-observations.md"))
    with log.open("ab") as handle:
        handle.write(b"my own note")
    _hook(project, "PostToolUse", tool_input={"command": "git status"}, tool_use_id="t2", **bash)
    lines = log.read_bytes().splitlines()
    assert b"my own note" in lines
    assert lines[-1].startswith(b"- **") and b"`git status`" in lines[-1]


# --------------------------------------------------------------------------- demo --dir


def test_demo_never_writes_into_a_folder_that_holds_the_persons_files(tmp_path: Path) -> None:
    """``demo --dir`` pointed at a folder of the person's overwrote their
    ``acme-api/src/auth/token.py`` and emptied their ``transcript.jsonl``."""
    base = tmp_path / "mine"
    code = base / "acme-api" / "src" / "auth" / "token.py"
    code.parent.mkdir(parents=True)
    code.write_bytes(b"my precious code\n")
    (base / "transcript.jsonl").write_bytes(b'{"my": "transcript"}\n')
    proc = run_cli("demo", "--dir", str(base))
    assert proc.returncode == 1
    assert proc.stderr == (
        f"conkeeper: {base}: not empty; give a new or empty folder to --dir (nothing written)\n"
    )
    assert code.read_bytes() == b"my precious code\n"
    assert (base / "transcript.jsonl").read_bytes() == b'{"my": "transcript"}\n'
    assert sorted(p.name for p in base.iterdir()) == ["acme-api", "transcript.jsonl"]


def test_undo_takes_back_a_whole_install_not_one_of_its_files(tmp_path: Path) -> None:
    """``install --agent zed`` writes ``.zed/settings.json`` and ``.rules``; each was its own
    journal entry, so ``undo`` took back ``.rules`` alone and left Zed half installed."""
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    settings = root / ".zed" / "settings.json"
    settings.parent.mkdir()
    mine = b'{\r\n  // mine\r\n  "tab_size": 4,\r\n}'
    settings.write_bytes(mine)
    assert run_cli("install", "--agent", "zed", cwd=root).returncode == 0
    assert (root / ".rules").exists() and settings.read_bytes() != mine

    undone = run_cli("undo", cwd=root)
    assert undone.returncode == 0, undone.stderr
    assert settings.read_bytes() == mine
    assert not (root / ".rules").exists()


def test_an_entry_is_refused_where_an_unclosed_code_fence_would_swallow_it(project: Path) -> None:
    """``remember`` into a file ending in an unclosed code fence said "Saved" and put the entry
    inside the code block (read as code everywhere). Refused in one line now; the file kept."""
    glossary = project / ".claude" / "memory" / "glossary.md"
    before = b"# Glossary\n\n```\nsome code\n"
    glossary.write_bytes(before)
    done = run_cli(
        "remember", "CDE: cardholder data environment", "--file", "term", "--category",
        "learning", "--json", cwd=project,
    )  # fmt: skip
    answer = json.loads(done.stdout)
    assert answer["status"] == "refused" and "line 3" in answer["reason"]
    assert glossary.read_bytes() == before
    glossary.write_bytes(before + b"```\n")  # closed: saved after it
    done = run_cli(
        "remember", "CDE: cardholder data environment", "--file", "term", "--category",
        "learning", "--json", cwd=project,
    )  # fmt: skip
    assert json.loads(done.stdout)["status"] == "saved"
