"""Observation benchmarks: local extraction speed, transcript import throughput, and the
progressive-retrieval queries on a store with 100k observations.

Budgets (issue 5): a 500-tool-use session extracts in ≤ 1 s; level-1 and level-3 queries have a
median ≤ 20 ms with 100k observations; import reports MB/s over 100 MB of transcripts.

Run: ``python bench/observations_bench.py [--mb 100] [--observations 100000]``;
writes bench/results/observations_bench.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

FILES = [f"src/pkg{d}/mod{m}.py" for d in range(8) for m in range(12)]
PROMPTS = [
    "fix the failing date parsing test",
    "add an export endpoint for reports",
    "refactor the queue consumer",
    "why is the cache slow",
    "decide between redis and sqlite",
]


def synthetic_turns(tool_uses: int, seed: int = 7):
    """A realistic mix: reads, greps, edits, failing then passing tests, commits, noise."""
    from conkeeper.domain.observations import ToolEvent, Turn

    rng = random.Random(seed)
    turns, event_id, prompt = [], 0, 0
    while event_id < tool_uses:
        prompt += 1
        turn = Turn(prompt, rng.choice(PROMPTS) + f" (step {prompt})")
        for _ in range(rng.randint(10, 30)):
            event_id += 1
            roll = rng.random()
            path = rng.choice(FILES)
            if roll < 0.35:
                event = ToolEvent(
                    event_id,
                    prompt,
                    f"t{event_id}",
                    "Read",
                    "read",
                    (path,),
                    "",
                    "success",
                    created_at=event_id,
                )
            elif roll < 0.45:
                event = ToolEvent(
                    event_id,
                    prompt,
                    f"t{event_id}",
                    "Grep",
                    "search",
                    (),
                    f"def {rng.choice(['parse', 'load', 'save'])}_",
                    "success",
                    created_at=event_id,
                )
            elif roll < 0.7:
                tool = "Write" if rng.random() < 0.2 else "Edit"
                event = ToolEvent(
                    event_id,
                    prompt,
                    f"t{event_id}",
                    tool,
                    "write",
                    (path,),
                    "",
                    "success",
                    created_at=event_id,
                )
            elif roll < 0.85:
                failed = rng.random() < 0.4
                event = ToolEvent(
                    event_id,
                    prompt,
                    f"t{event_id}",
                    "Bash",
                    "execute",
                    (),
                    "python -m pytest -q tests/",
                    "failure" if failed else "success",
                    "FAILED tests/test_x.py::test_y - AssertionError" if failed else None,
                    1 if failed else 0,
                    created_at=event_id,
                )
            elif roll < 0.9:
                event = ToolEvent(
                    event_id,
                    prompt,
                    f"t{event_id}",
                    "Bash",
                    "execute",
                    (),
                    f'git commit -am "feat: step {prompt}"',
                    "success",
                    created_at=event_id,
                )
            else:
                event = ToolEvent(
                    event_id,
                    prompt,
                    f"t{event_id}",
                    "Bash",
                    "execute",
                    (),
                    "git status",
                    "success",
                    created_at=event_id,
                )
            turn.events.append(event)
            if event_id >= tool_uses:
                break
        turns.append(turn)
    return turns


def bench_extraction(tool_uses: int = 500, runs: int = 5) -> dict:
    from conkeeper.services.observations.local_extractor import (
        extract_observations,
        summarize_session,
    )

    turns = synthetic_turns(tool_uses)
    timings, found = [], []
    for _ in range(runs):
        start = time.perf_counter()
        found = extract_observations(turns, "/home/dev/p")
        summarize_session(turns, found)
        timings.append(time.perf_counter() - start)
    return {
        "tool_uses": tool_uses,
        "observations": len(found),
        "median_s": statistics.median(timings),
        "max_s": max(timings),
    }


def bench_extraction_with_store(tool_uses: int = 500) -> dict:
    """The same session stored as tool_events, then ``extract_session`` (read, extract, write)."""
    from conkeeper.domain.paths import locate_project
    from conkeeper.services.observations.extract import extract_session
    from conkeeper.storage.store import ensure_project, open_store

    conn = open_store()
    project = ensure_project(conn, locate_project(tempfile.gettempdir()))
    conn.execute(
        "INSERT INTO sessions(host_session_id, project_id, started_at, status) "
        "VALUES ('bench-500', ?, 1, 'completed')",
        (project,),
    )
    session_id = conn.execute("SELECT id FROM sessions WHERE host_session_id='bench-500'")
    session_id = session_id.fetchone()[0]
    conn.execute("BEGIN")
    for turn in synthetic_turns(tool_uses):
        conn.execute(
            "INSERT INTO prompts(session_id, prompt_number, text, created_at) VALUES (?, ?, ?, 1)",
            (session_id, turn.prompt_number, turn.prompt),
        )
        for e in turn.events:
            conn.execute(
                "INSERT INTO tool_events(session_id, prompt_number, tool_use_id, tool_name, "
                "action, paths, input_summary, status, error, exit_code, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    e.prompt_number,
                    e.tool_use_id,
                    e.tool_name,
                    e.action,
                    json.dumps(list(e.paths)),
                    e.input_summary,
                    e.status,
                    e.error,
                    e.exit_code,
                    e.created_at,
                ),
            )
    conn.execute("COMMIT")
    start = time.perf_counter()
    result = extract_session(conn, session_id)
    elapsed = time.perf_counter() - start
    conn.close()
    return {"tool_uses": tool_uses, "observations": result.added, "seconds": elapsed}


def _transcript_lines(session: int, project: Path, rng: random.Random, target: int):
    """JSONL lines of one generated session of about ``target`` bytes."""
    base = {"cwd": str(project), "sessionId": f"s{session}", "version": "2.0.30"}
    size, n = 0, 0
    while size < target:
        n += 1
        ts = f"2025-06-01T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        prompt = {
            **base,
            "type": "user",
            "timestamp": ts,
            "uuid": f"u{n}",
            "message": {"role": "user", "content": rng.choice(PROMPTS)},
        }
        lines = [prompt]
        for k in range(rng.randint(3, 10)):
            tid = f"toolu_{session}_{n}_{k}"
            path = rng.choice(FILES)
            kind = rng.random()
            if kind < 0.5:
                use = {
                    "type": "tool_use",
                    "id": tid,
                    "name": "Read",
                    "input": {"file_path": f"{project}/{path}"},
                }
                output = "\n".join(
                    f"{i:6}→    line {i} of {path}" for i in range(rng.randint(50, 400))
                )
                error = False
            elif kind < 0.75:
                use = {
                    "type": "tool_use",
                    "id": tid,
                    "name": "Edit",
                    "input": {
                        "file_path": f"{project}/{path}",
                        "old_string": "a" * 200,
                        "new_string": "b" * 220,
                    },
                }
                output, error = "The file has been updated.", False
            else:
                use = {
                    "type": "tool_use",
                    "id": tid,
                    "name": "Bash",
                    "input": {"command": "python -m pytest -q"},
                }
                error = rng.random() < 0.3
                output = (
                    ("Exit code 1\n" if error else "")
                    + "." * 2000
                    + "\n"
                    + ("FAILED tests/test_a.py::test_b - AssertionError\n" * 5 if error else "ok\n")
                )
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "timestamp": ts,
                    "message": {"id": f"msg_{tid}", "role": "assistant", "content": [use]},
                }
            )
            result = {"type": "tool_result", "tool_use_id": tid, "content": output}
            if error:
                result["is_error"] = True
            lines.append(
                {
                    **base,
                    "type": "user",
                    "timestamp": ts,
                    "message": {"role": "user", "content": [result]},
                }
            )
        for line in lines:
            text = json.dumps(line) + "\n"
            size += len(text)
            yield text


def bench_import(total_mb: int, tmp: Path) -> dict:
    from conkeeper.services.observations.transcripts import find_transcripts, import_transcripts
    from conkeeper.storage.store import open_store

    rng = random.Random(11)
    project = tmp / "proj"
    (project / ".git").mkdir(parents=True)
    folder = tmp / "transcripts" / "-proj"
    folder.mkdir(parents=True)
    per_file = 2_000_000
    files = max(1, total_mb * 1_000_000 // per_file)
    for i in range(files):
        with open(folder / f"{i:08d}-bench.jsonl", "w") as out:
            out.writelines(_transcript_lines(i, project, rng, per_file))
    paths = find_transcripts(tmp / "transcripts")
    total = sum(p.stat().st_size for p in paths)
    conn = open_store()
    report = import_transcripts(conn, paths)
    start = time.perf_counter()
    rerun = import_transcripts(conn, paths)
    rerun_s = time.perf_counter() - start
    conn.close()
    data = report.to_dict()
    return {
        "files": len(paths),
        "mb": round(total / 1e6, 1),
        "seconds": round(report.seconds, 2),
        "mb_per_s": round(total / 1e6 / report.seconds, 2),
        "tool_events": data["tool_events"],
        "observations": data["observations"],
        "rerun_unchanged_s": round(rerun_s, 3),
        "rerun_unchanged": rerun.count("unchanged"),
    }


def build_large_store(count: int) -> tuple[int, list[int]]:
    """``count`` observations over 5 projects and many sessions; returns a project and ids."""
    from conkeeper.domain.observations import Observation, normalize_observation
    from conkeeper.storage.observations import insert_observation
    from conkeeper.storage.store import open_store

    rng = random.Random(3)
    conn = open_store()
    conn.execute("BEGIN")
    projects = []
    for p in range(5):
        conn.execute(
            "INSERT INTO projects(identity, root, name, created_at, last_seen_at) "
            "VALUES (?, ?, ?, 1, 1)",
            (f"/p{p}", f"/p{p}", f"p{p}"),
        )
        projects.append(conn.execute("SELECT last_insert_rowid()").fetchone()[0])
    sessions: list[tuple[int, int]] = []
    words = ["parser", "cache", "auth", "queue", "export", "retry", "token", "index", "schema"]
    concepts = ["testing", "caching", "authentication", "database", "api", "performance"]
    kinds = ["decision", "bugfix", "feature", "refactor", "discovery"]
    ids = []
    for i in range(count):
        if i % 20 == 0:
            project = projects[rng.randrange(5)]
            conn.execute(
                "INSERT INTO sessions(host_session_id, project_id, started_at, title) "
                "VALUES (?, ?, ?, ?)",
                (f"h{i}", project, 1_600_000_000_000 + i * 1000, f"session {i}"),
            )
            sessions.append((conn.execute("SELECT last_insert_rowid()").fetchone()[0], project))
        session, project = sessions[-1]
        a, b = rng.sample(words, 2)
        obs = normalize_observation(
            Observation(
                type=rng.choice(kinds),
                title=f"Change {a} handling for {b} {i}",
                subtitle=f"Made {a} more robust when {b} fails",
                facts=[
                    f"src/{a}/{b}.py: {a}_{b}() retries {i % 7} times before failing",
                    f"{b.capitalize()} errors now logged with context {i}",
                ],
                narrative=f"The {a} code path called {b} without retries. " * 5,
                concepts=rng.sample(concepts, 2),
                files=[f"src/{a}/{b}.py", f"tests/test_{a}.py"],
                prompt_number=i % 20,
            )
        )
        new = insert_observation(conn, session, project, obs, "local", 1_600_000_000_000 + i * 1000)
        if new:
            ids.append(new)
    conn.execute("COMMIT")
    conn.close()
    return projects[0], ids


def timed(fn, runs: int = 60) -> float:
    fn()  # warm
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def bench_queries(count: int) -> dict:
    from conkeeper.services.observations import retrieval
    from conkeeper.storage.store import open_store

    start = time.perf_counter()
    project, ids = build_large_store(count)
    built = time.perf_counter() - start
    conn = open_store()
    session = str(
        conn.execute(
            "SELECT session_id FROM observations WHERE project_id = ? ORDER BY id LIMIT 1 OFFSET ?",
            (project, min(1000, count // 20)),
        ).fetchone()[0]
    )
    queries = {
        "L1 sessions (project)": lambda: retrieval.list_sessions(conn, project, 20),
        "L1 sessions (all projects)": lambda: retrieval.list_sessions(conn, None, 20),
        "L3 observations (project)": lambda: retrieval.list_observations(conn, project),
        "L3 --type bugfix": lambda: retrieval.list_observations(conn, project, type_="bugfix"),
        "L3 --concept caching": lambda: retrieval.list_observations(
            conn, project, concept="caching"
        ),
        "L3 --file src/auth/cache.py": lambda: retrieval.list_observations(
            conn, project, file="src/auth/cache.py"
        ),
        "L3 --session": lambda: retrieval.list_observations(conn, project, session=session),
        "L4 facts 'retries context'": lambda: retrieval.search_facts(
            conn, "retries context", project, limit=20
        ),
        "L5 show 5 ids": lambda: retrieval.get_observations(conn, ids[:5]),
        "timeline": lambda: retrieval.timeline(conn, ids[len(ids) // 2], None),
    }
    results = {name: round(timed(fn), 3) for name, fn in queries.items()}
    conn.close()
    return {"observations": len(ids), "build_s": round(built, 1), "median_ms": results}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=100, help="transcript megabytes to import")
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--tiny", action="store_true", help="1 MB, 500 observations (CI smoke)")
    args = parser.parse_args()
    if args.tiny:
        args.mb, args.observations = 1, 500
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CONKEEPER_HOME"] = str(Path(tmp) / "a")
        os.environ["HOME"] = tmp
        results["extraction"] = bench_extraction()
        results["extraction_with_store"] = bench_extraction_with_store()
        os.environ["CONKEEPER_HOME"] = str(Path(tmp) / "b")
        results["import"] = bench_import(args.mb, Path(tmp))
        os.environ["CONKEEPER_HOME"] = str(Path(tmp) / "c")
        results["queries"] = bench_queries(args.observations)
    ex, es, im, q = (
        results[k] for k in ("extraction", "extraction_with_store", "import", "queries")
    )
    rows = [
        (
            "local extraction, 500 tool uses (pure)",
            f"{ex['median_s'] * 1000:.1f} ms",
            "≤ 1 s",
            ex["median_s"] <= 1.0,
        ),
        (
            "extract_session, 500 tool uses (DB read+write)",
            f"{es['seconds'] * 1000:.1f} ms",
            "≤ 1 s",
            es["seconds"] <= 1.0,
        ),
        (
            f"import {im['mb']} MB / {im['files']} files",
            f"{im['mb_per_s']} MB/s ({im['seconds']} s)",
            "report",
            True,
        ),
        ("re-import unchanged", f"{im['rerun_unchanged_s'] * 1000:.0f} ms", "report", True),
    ]
    for name, ms in q["median_ms"].items():
        level13 = name.startswith(("L1", "L3"))
        rows.append(
            (
                f"{name} @ {q['observations']} obs",
                f"{ms:.2f} ms",
                "≤ 20 ms" if level13 else "report",
                ms <= 20 or not level13,
            )
        )
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'result':>22}  {'budget':>8}  ok")
    for name, value, budget, ok in rows:
        print(f"{name:<{width}}  {value:>22}  {budget:>8}  {'yes' if ok else 'NO'}")
    results["all_within_budget"] = all(r[3] for r in rows)
    out = ROOT / "bench" / "results" / "observations_bench.json"
    if args.tiny:
        out = out.with_suffix(".tiny.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"\nwrote {out.relative_to(ROOT)}")
    return 0 if results["all_within_budget"] or args.tiny else 1


if __name__ == "__main__":
    raise SystemExit(main())
