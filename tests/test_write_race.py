"""Nothing the user wrote is lost (issue 19): a person appends to ``patterns.md`` and to the
corrections queue with plain ``open(..., 'a')`` while, at the same time, the MCP ``remember`` tool
writes to ``patterns.md``, the UserPromptSubmit hook (a real subprocess with Claude Code's payload)
queues corrections, and ``conkeeper corrections apply`` / ``reject`` (the real CLI) rewrite the
queue. Afterwards every line each of them wrote, and every entry ``remember`` confirmed, is there.

No sleeps for timing: the writers run loops over counts; the person appends a line every couple
of milliseconds (paced by waiting on the stop event) until the others are done.
"""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import threading
from pathlib import Path

from conftest import cli_env

SEEDS = 12  # queued items that apply/reject remove (half each)
REMEMBERS = 40
PROMPTS = 10


def _word(n: int, salt: str) -> str:
    """A made-up word no other entry shares (so the duplicate check never refuses one)."""
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n, 26)
        letters += "abcdefghijklmnopqrstuvwxyz"[rest]
    return f"zq{salt}{letters}"


def _entry(n: int, salt: str) -> str:
    return " ".join(_word(n * 4 + k, salt) for k in range(4))


def _person(patterns: str, queue: str, stop: object, done: object, count: object) -> None:
    """Append a line to each file in turn, with no lock, until ``stop`` is set (at least 300)."""
    n = 0
    while n < 300 or not stop.is_set():  # type: ignore[attr-defined]
        target = patterns if n % 2 == 0 else queue
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(f"- person line {n}\n")
        n += 1
        if n >= 300:
            stop.wait(0.002)  # type: ignore[attr-defined]  # a person's pace, not a timing
    count.value = n  # type: ignore[attr-defined]
    done.set()  # type: ignore[attr-defined]


def _remember(cwd: str, results: object) -> None:
    """The MCP ``remember`` tool (what the stdio and HTTP servers call), REMEMBERS times."""
    from conkeeper.mcp.tools import remember

    saved = []
    for n in range(REMEMBERS):
        text = _entry(n, "m")
        reply = remember(Path(cwd), text, "convention", "patterns.md")
        if reply.get("path") == "patterns.md":
            saved.append(text)
    results.put(saved)  # type: ignore[attr-defined]


def _hook_prompts(project: Path, queued: list[str]) -> None:
    for n in range(PROMPTS):
        word = _word(n, "h")
        payload = {
            "session_id": "race-1",
            "transcript_path": str(project / "t.jsonl"),
            "cwd": str(project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": f"no, use the {word} logger instead of print",
        }
        subprocess.run(
            [sys.executable, "-m", "conkeeper", "hook", "UserPromptSubmit"],
            input=json.dumps(payload).encode(),
            env=cli_env(),
            cwd=project,
            capture_output=True,
            timeout=120,
            check=True,
        )
        queued.append(word)


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conkeeper", *args],
        env=cli_env(),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _route_seeds(project: Path, applied: list[str], routed: list[str]) -> None:
    """``corrections apply`` the even seeds and ``corrections reject`` the odd ones (the
    line numbers are looked up with ``corrections list --json`` each time)."""
    for n in range(SEEDS):
        seed = _entry(n, "s")
        items = json.loads(_cli(project, "corrections", "list", "--json").stdout)["items"]
        line = next(i["line"] for i in items if i["text"] == seed)
        if n % 2 == 0:
            rule = _entry(n, "r")
            args = ["apply", str(line), "--to", "patterns.md", "--category", "convention"]
            proc = _cli(project, "corrections", *args, "--text", rule)
            assert proc.returncode == 0, proc.stderr
            applied.append(rule)
        else:
            proc = _cli(project, "corrections", "reject", str(line))
            assert proc.returncode == 0, proc.stderr
        routed.append(seed)


def test_a_person_appending_loses_nothing_while_conkeeper_writes(project: Path) -> None:
    from conkeeper.services.analysis.corrections.queue import append_to_queue

    memory = project / ".claude" / "memory"
    patterns = memory / "patterns.md"
    patterns.write_text("# Patterns\n\n## Conventions\n", encoding="utf-8")
    for n in range(SEEDS):
        append_to_queue(memory, "correction", _entry(n, "s"), source="user-cli")
    queue = memory / "corrections-queue.md"

    ctx = multiprocessing.get_context("spawn")
    stop, done, count = ctx.Event(), ctx.Event(), ctx.Value("i", 0)
    results = ctx.Queue()
    person = ctx.Process(target=_person, args=(str(patterns), str(queue), stop, done, count))
    agent = ctx.Process(target=_remember, args=(str(project), results))
    person.start()
    agent.start()
    queued: list[str] = []
    applied: list[str] = []
    routed: list[str] = []
    try:
        hooks = threading.Thread(target=_hook_prompts, args=(project, queued))
        hooks.start()
        _route_seeds(project, applied, routed)
        hooks.join()
        saved = results.get(timeout=300)
    finally:
        stop.set()
        agent.join(timeout=300)
        person.join(timeout=300)
    assert done.is_set() and person.exitcode == 0 and agent.exitcode == 0

    pattern_text = patterns.read_text(encoding="utf-8")
    queue_text = queue.read_text(encoding="utf-8")
    person_lines = count.value
    lost_person = [
        n
        for n in range(person_lines)
        if f"- person line {n}\n" not in (pattern_text if n % 2 == 0 else queue_text)
    ]
    lost_saved = [t for t in saved if f"- {t}\n" not in pattern_text]
    lost_applied = [t for t in applied if f"- {t}\n" not in pattern_text]
    lost_queued = [w for w in queued if w not in queue_text]
    left_routed = [s for s in routed if f'"{s}"' in queue_text]
    assert len(saved) == REMEMBERS and len(queued) == PROMPTS and len(routed) == SEEDS
    assert (lost_person, lost_saved, lost_applied, lost_queued, left_routed) == ([], [], [], [], [])
    assert person_lines >= 300
