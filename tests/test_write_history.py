"""History, undo and limits of the write path through real entry points: ``conkeeper history``
and ``conkeeper undo`` (CLI subprocesses), MCP ``remember`` over stdio and HTTP, and
``corrections apply/reject``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

from conkeeper.domain.provenance import today
from conkeeper.domain.safewrite import edit_file, replace_span
from conkeeper.mcp.tools import remember

PATTERNS = b"# Patterns\r\n\r\n- caf\xe9 au lait is fine\r\n<private>\r\nmy note\r\n</private>\r\n"


def _setup(project: Path) -> Path:
    memory = project / ".claude" / "memory"
    (memory / "patterns.md").write_bytes(PATTERNS)
    return memory


def _history(project: Path, *extra: str) -> list[dict[str, Any]]:
    proc = run_cli("history", "--json", *extra, cwd=project)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_remember_keeps_bytes_that_are_not_utf8_and_undo_restores_byte_for_byte(
    project: Path,
) -> None:
    memory = _setup(project)
    reply = remember(project, "Run the linter before every commit", "convention", "patterns.md")
    assert reply["path"] == "patterns.md"
    after = (memory / "patterns.md").read_bytes()
    assert after.startswith(PATTERNS)  # appended: the Latin-1 byte and private block untouched
    assert after.endswith(
        b"- Run the linter before every commit\r\n<!-- @category: convention -->\r\n"
        + f"<!-- @source: agent-mcp {today()} -->\r\n".encode()  # provenance (issue 20)
    )
    (newest,) = _history(project)
    assert {k: newest[k] for k in ("id", "command", "files", "source")} == {
        "id": "1",
        "command": "remember",
        "files": ["patterns.md"],
        "source": "agent-mcp",
    }
    assert newest["time"][:2] == "20"
    proc = run_cli("undo", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["undone"]["id"] == "1"
    assert (memory / "patterns.md").read_bytes() == PATTERNS
    assert (memory / ".history" / ".gitignore").read_text().strip().endswith("*")


def test_undo_refuses_a_conflicting_later_change_with_a_diff_and_changes_nothing(
    project: Path,
) -> None:
    memory = _setup(project)
    edit_file(
        memory / "patterns.md",
        replace_span(b"caf\xe9 au lait", b"tea"),
        command="consolidate --apply",
        source="user-cli",
        root=memory,
    )
    by_hand = (memory / "patterns.md").read_bytes().replace(b"tea", b"green tea, by hand")
    (memory / "patterns.md").write_bytes(by_hand)
    proc = run_cli("undo", cwd=project)
    assert proc.returncode == 1
    assert "-- tea is fine" in proc.stderr and "+- green tea, by hand is fine" in proc.stderr
    assert "my note" not in proc.stderr  # the diff passes the privacy module
    assert "nothing was undone" in proc.stderr.splitlines()[-1]
    assert (memory / "patterns.md").read_bytes() == by_hand
    assert [e["command"] for e in _history(project)] == ["consolidate --apply"]
    data = json.loads(run_cli("undo", "1", "--json", cwd=project).stdout)
    assert data["undone"] is None and "+- green tea" in data["diff"]


def test_corrections_reject_is_journaled_and_undone_exactly(project: Path) -> None:
    from conkeeper.services.analysis.corrections.queue import append_to_queue

    memory = _setup(project)
    for text in ("use the logger", "tabs not spaces", "no print calls"):
        append_to_queue(memory, "correction", text, when=1_700_000_000.0)
    queue = memory / "corrections-queue.md"
    before = queue.read_bytes()
    line = (
        before.decode()
        .splitlines()
        .index(next(x for x in before.decode().splitlines() if "tabs not spaces" in x))
    )
    proc = run_cli("corrections", "reject", str(line + 1), cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert b"tabs not spaces" not in queue.read_bytes()
    with open(queue, "ab") as person:
        person.write(b"- a line typed by hand\n")
    newest = _history(project)[0]
    assert newest["command"].startswith("corrections dequeue") and newest["source"] == "user-cli"
    proc = run_cli("undo", newest["id"], cwd=project)  # the hand edit is later, lines apart
    assert proc.returncode == 0, proc.stderr
    assert queue.read_bytes() == before + b"- a line typed by hand\n"


def test_agent_config_writes_are_listed_apart_and_undone_by_their_id(
    project: Path, tmp_path: Path
) -> None:
    config = tmp_path / "home" / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_bytes(b"model = 'o3'\n")
    edit_file(
        config, replace_span(b"'o3'", b"'o4'"), command="install --agent codex", source="user-cli"
    )
    (entry,) = _history(project)
    assert (entry["id"], entry["files"], entry["journal"]) == (
        "c1",
        ["~/.codex/config.toml"],
        "agent config",
    )
    assert run_cli("undo", "c1", cwd=project).returncode == 0
    assert config.read_bytes() == b"model = 'o3'\n"
    assert run_cli("undo", "c1", cwd=project).stderr.strip().endswith("already undone")


def test_remember_refuses_an_oversized_entry_on_every_transport(project: Path) -> None:
    import pytest

    pytest.importorskip("mcp.server.mcpserver", reason="the 'mcp' extra is not installed")
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from tests import test_mcp_server as mcp_test  # its stdio and HTTP server helpers

    memory = _setup(project)
    huge = "word " * 2_000_000  # 10 MB
    too_long = "x" * 4_001

    async def over_stdio(client: Client) -> list[Any]:
        return [
            await client.call_tool(
                "remember", {"text": text, "category": "learning", "file": "patterns.md"}
            )
            for text in (huge, too_long)
        ]

    for result in mcp_test.over_stdio(project, over_stdio):
        assert result.is_error and "4000-character limit" in mcp_test.text_of(result)

    proc, url, token = mcp_test.start_http(project)
    try:

        async def over_http() -> Any:
            auth = {"Authorization": f"Bearer {token}"}
            async with (
                create_mcp_http_client(headers=auth) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                return await client.call_tool(
                    "remember", {"text": too_long, "category": "learning", "file": "patterns.md"}
                )

        result = asyncio.run(asyncio.wait_for(over_http(), mcp_test.TIMEOUT_S))
        assert result.is_error and "4000-character limit" in mcp_test.text_of(result)
    finally:
        proc.terminate()
        proc.communicate(timeout=30)

    from conkeeper.services.analysis.corrections.queue import append_to_queue

    append_to_queue(memory, "correction", "use the logger")
    cli = run_cli(
        "corrections", "apply", "4", "--to", "patterns.md", "--category", "learning",
        "--text", too_long, cwd=project,
    )  # fmt: skip
    assert cli.returncode == 1 and "4000-character limit" in cli.stderr
    assert (memory / "patterns.md").read_bytes() == PATTERNS


def test_no_write_pushes_a_memory_file_past_the_read_limit(project: Path) -> None:
    from conkeeper.domain.textio import MAX_MEMORY_FILE_BYTES

    memory = _setup(project)
    big = PATTERNS + b"- filler\n" * ((MAX_MEMORY_FILE_BYTES - len(PATTERNS)) // 9)
    (memory / "patterns.md").write_bytes(big)
    reply_error = None
    try:
        remember(project, "Keep one more rule about caching", "learning", "patterns.md")
    except Exception as exc:  # the MCP tool's one-sentence error
        reply_error = str(exc)
    assert reply_error is not None and "limit ConKeeper reads" in reply_error
    assert (memory / "patterns.md").read_bytes() == big


def test_history_global_lists_the_global_memory_journal(project: Path, tmp_path: Path) -> None:
    global_memory = tmp_path / "home" / ".claude" / "memory"
    global_memory.mkdir(parents=True)
    (global_memory / "patterns.md").write_bytes(b"# Global patterns\n")
    held = remember(project, "Prefer small commits", "convention", "patterns.md", scope="global")
    assert held["status"] == "held"  # an agent's global write waits for the user (issue 20)
    approved = run_cli("review", "approve", held["id"], cwd=project)
    assert approved.returncode == 0, approved.stderr
    assert _history(project) == []
    (entry,) = _history(project, "--global")
    assert (entry["id"], entry["files"], entry["journal"]) == (
        "1",
        ["patterns.md"],
        "global memory",
    )
    assert (global_memory / ".history" / "000001.json").exists()
    proc = run_cli("undo", "--global", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (global_memory / "patterns.md").read_bytes() == b"# Global patterns\n"
    text = run_cli("history", "--global", cwd=project).stdout
    assert "review approve" in text and "(undone)" in text


def test_one_command_is_one_undo_step_init_and_corrections_apply(tmp_path: Path) -> None:
    """``init`` creating several files, or ``corrections apply`` adding a rule and dequeuing it,
    is taken back by one ``undo``, which names every file it restored."""
    project = tmp_path / "fresh"
    (project / ".git").mkdir(parents=True)
    proc = run_cli("init", "--yes", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    created = [c for c in json.loads(proc.stdout)["created"] if not c.endswith("/")]
    assert len(created) >= 3
    memory = project / ".claude" / "memory"
    undone = run_cli("undo", "--json", cwd=project)
    assert undone.returncode == 0, undone.stderr
    answer = json.loads(undone.stdout)["undone"]
    assert len(answer["with"]) >= len(created) - 1  # the .gitignore lines too
    assert all(not (memory / rel).exists() for rel in created)
    assert not (project / ".gitignore").exists()

    from conkeeper.services.analysis.corrections.queue import append_to_queue

    run_cli("init", "--yes", cwd=project)
    append_to_queue(memory, "correction", "use the structured logger", when=1_700_000_000.0)
    queue, patterns = memory / "corrections-queue.md", memory / "patterns.md"
    before = (queue.read_bytes(), patterns.read_bytes())
    line = (
        queue.read_text()
        .splitlines()
        .index(next(x for x in queue.read_text().splitlines() if "structured logger" in x))
    )
    proc = run_cli(
        "corrections",
        "apply",
        str(line + 1),
        "--to",
        "patterns.md",
        "--category",
        "convention",
        cwd=project,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"structured logger" in patterns.read_bytes()
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert " with " in undone.stdout
    assert (queue.read_bytes(), patterns.read_bytes()) == before
