"""What the row journal costs the hooks (issue 19: at most 1 ms more CPU, median, per hook).

Two measurements, A/B:

* **in process**: one tool event stored the way PostToolUse stores it (``add_tool_event``), on
  a connection that journals (B) and one that does not (A); CPU per event, median of batches.
* **whole process**: the PostToolUse hook run as Claude Code runs it (a fresh
  ``python -m conkeeper hook PostToolUse`` with the payload on stdin), from the tree before the
  journal (A: ``git archive`` of ``--base``, default the merge base with ``main``) and this tree
  (B), interleaved, both precompiled; the child's CPU time (user + system), median.

Target: B - A <= 1 ms median in both. Prints a table and writes
``bench/results/journal_bench.json``; ``--tiny`` runs a few iterations (CI smoke).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
RESULTS = ROOT / "bench" / "results" / "journal_bench.json"
TARGET_MS = 1.0


def _in_process(base: Path, batches: int, per_batch: int) -> dict[str, float]:
    from conkeeper.storage.sessions import add_tool_event, ensure_session
    from conkeeper.storage.store import open_store

    out: dict[str, float] = {}
    for label, journaled in (("A no journal", False), ("B journal", True)):
        folder = base / label.split()[0]
        folder.mkdir()
        conn = open_store(folder / "conkeeper.db", journaled=journaled)
        conn.execute(
            "INSERT INTO projects(identity, root, name, created_at, last_seen_at) "
            "VALUES ('/p', '/p', 'p', 1, 1)"
        )
        session = ensure_session(conn, 1, "bench")
        samples = []
        n = 0
        for _ in range(batches):
            start = time.process_time()
            for _ in range(per_batch):
                n += 1
                conn.journal_keys.clear()  # type: ignore[attr-defined]  # one lookup per hook
                add_tool_event(
                    conn,
                    session,
                    {
                        "prompt_number": 1,
                        "tool_use_id": f"tu-{n}",
                        "tool_name": "Bash",
                        "action": "execute",
                        "paths": "[]",
                        "input_summary": f"pytest tests/test_{n}.py -q",
                        "status": "success",
                        "error": None,
                        "exit_code": 0,
                        "duration_ms": 120,
                        "created_at": 1_700_000_000_000 + n,
                    },
                )
            samples.append((time.process_time() - start) / per_batch * 1000)
        conn.close()
        out[label] = statistics.median(samples)
    return out


def _tree_before(base: Path, ref: str) -> Path:
    target = base / "before"
    target.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target / "src"


def _child_cpu_ms(cmd: list[str], data: bytes, env: dict[str, str]) -> float:
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    assert proc.stdin is not None
    proc.stdin.write(data)
    proc.stdin.close()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _whole_process(base: Path, before_src: Path, runs: int) -> dict[str, float]:
    project = base / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".claude" / "memory").mkdir(parents=True)
    trees = {"A before": before_src, "B journal": ROOT / "src"}
    envs = {}
    for label, src in trees.items():
        copy = base / f"src-{label.split()[0]}"
        subprocess.run(["cp", "-r", str(src), str(copy)], check=True)
        compileall.compile_dir(str(copy), quiet=1)
        home = base / f"home-{label.split()[0]}"
        home.mkdir()
        envs[label] = dict(
            os.environ,
            PYTHONPATH=str(copy),
            HOME=str(home),
            CONKEEPER_HOME=str(home / "data"),
            CONKEEPER_DETACHED="0",
        )
    samples: dict[str, list[float]] = {label: [] for label in trees}
    cmd = [sys.executable, "-m", "conkeeper", "hook", "PostToolUse"]
    for n in range(runs + 3):
        for label in trees:
            payload = {
                "session_id": "bench",
                "transcript_path": str(base / "t.jsonl"),
                "cwd": str(project),
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": f"pytest tests/test_{n}.py -q"},
                "tool_response": {"stdout": "1 passed", "stderr": "", "interrupted": False},
                "tool_use_id": f"tu-{n}",
            }
            cpu = _child_cpu_ms(cmd, json.dumps(payload).encode(), envs[label])
            if n >= 3:  # the first runs create the database and the session
                samples[label].append(cpu)
    journal = Path(envs["B journal"]["CONKEEPER_HOME"]) / "backups" / "journal.jsonl"
    assert journal.exists() and journal.stat().st_size > 0, "B did not journal"
    return {label: statistics.median(values) for label, values in samples.items()}


def main() -> int:
    """Run both A/B measurements, print the table, write the JSON, exit 1 over target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="a few iterations (CI smoke)")
    parser.add_argument("--runs", type=int, default=60, help="whole-process runs per side")
    parser.add_argument("--base", default="", help="git ref of the tree before (default: main)")
    args = parser.parse_args()
    runs = 5 if args.tiny else args.runs
    batches, per_batch = (5, 20) if args.tiny else (40, 200)
    found = subprocess.run(
        ["git", "-C", str(ROOT), "merge-base", "HEAD", "main"],
        check=False,
        capture_output=True,
        text=True,
    )
    ref = args.base or found.stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        inproc = _in_process(base, batches, per_batch)
        # without a tree to compare with (a shallow CI checkout), only the in-process A/B runs
        whole = _whole_process(base, _tree_before(base, ref), runs) if ref else {}
    rows = [("add_tool_event, in process (ms CPU)", inproc["A no journal"], inproc["B journal"])]
    if whole:
        rows.append(("PostToolUse, whole process (ms CPU)", whole["A before"], whole["B journal"]))
    print(f"{'measure':40} {'A':>9} {'B':>9} {'B-A':>8}  target B-A <= {TARGET_MS} ms")
    ok = True
    for name, a, b in rows:
        ok = ok and b - a <= TARGET_MS
        print(f"{name:40} {a:9.3f} {b:9.3f} {b - a:8.3f}")
    results = RESULTS.with_suffix(".tiny.json") if args.tiny else RESULTS
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(
        json.dumps(
            {
                "target_ms": TARGET_MS,
                "base": ref,
                "runs": runs,
                "in_process_ms": inproc,
                "whole_process_cpu_ms": whole,
                "within_target": ok,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return 0 if ok or args.tiny else 1  # --tiny is a smoke run: timings are not judged


if __name__ == "__main__":
    sys.exit(main())
