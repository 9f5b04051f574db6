"""Whole-process benchmark of the capture hooks (spec §4 budgets) plus a concurrency check.

Measured the way Claude Code runs them: a fresh process per event, payload on stdin, through
the plugin's launcher ``bin/conkeeper-hook`` (and, for comparison, ``python -m conkeeper hook``).
The database is pre-filled with 100k tool events.

* PostToolUse: median <= 60 ms, p95 <= 100 ms, peak RSS <= 40 MB.
* UserPromptSubmit with a 50 MB transcript (the context monitor reads its tail): median <= 80 ms.
* Concurrency: 8 workers x 500 PostToolUse events on one project at once; every event must be
  present exactly once in the observation log and in the store, and the save reminders must
  fire exactly once per ``save_interval`` events of each session.

Bytecode: a real install (pip, or the plugin folder after its first run) has ``.pyc`` files, so
the hooks are measured from a copy of ``src/`` and ``bin/`` precompiled with ``compileall``
(rows "pyc"). For transparency the same runs are repeated from a copy without any ``.pyc``
and with ``PYTHONDONTWRITEBYTECODE=1`` (rows "no pyc"): ``python -m`` then compiles every
ConKeeper module from source on every run, while the launcher keeps bytecode under the data
home after its first run. The
repository's own ``src/`` is never written to.

Launcher (rows "launcher cost"): PostToolUse CPU through ``bin/conkeeper-hook`` in the cases
the launcher must not pay for. Bytecode: a precompiled plugin folder vs
``PYTHONDONTWRITEBYTECODE=1`` with no ``.pyc`` (the launcher keeps bytecode under the data
home); target: within 10%.
Shims: ``python3`` on PATH a symlink to the interpreter ("direct") vs a pyenv-style shim first on
PATH (a shell script that runs a few processes, as ``pyenv exec`` does, then execs Python), and
this machine's real pyenv shim when there is one; the launcher remembers the real interpreter,
target within 10% of direct. "not remembered" rows delete the memory before each call: what
every call cost before the launcher remembered.

Prints a table and writes ``bench/results/hook_bench.json`` (``--launcher-only``:
``hook_bench_launcher.json``). ``--quick`` runs fewer events;
``--runs N`` sets the runs per case (the spec asks for at least 50), ``--no-concurrency``
skips the concurrency check.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
RESULTS = ROOT / "bench" / "results" / "hook_bench.json"


def _env(base: Path, plugin: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CONKEEPER"))}
    env.update(
        HOME=str(base / "home"),
        CONKEEPER_HOME=str(base / "data"),
        PYTHONPATH=str(plugin / "src"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def _plugin_copy(base: Path, name: str, precompile: bool) -> Path:
    """A copy of ``src/`` and ``bin/`` (like the installed plugin folder), without any bytecode,
    compiled with ``compileall`` when ``precompile`` is set."""
    target = base / name
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "src", target / "src", ignore=skip)
    shutil.copytree(ROOT / "bin", target / "bin", ignore=skip)
    if precompile:
        compileall.compile_dir(str(target / "src"), quiet=1)
    return target


def _make_project(base: Path) -> Path:
    project = base / "proj"
    (project / ".git").mkdir(parents=True)
    memory = project / ".claude" / "memory"
    (memory / "sessions").mkdir(parents=True)
    for name in ("active-context", "product-context", "progress", "patterns", "glossary"):
        (memory / f"{name}.md").write_text(f"# {name}\n\n- something worth remembering\n")
    (base / "home").mkdir()
    return project


def _prefill(base: Path, project: Path, events: int) -> None:
    """Insert ``events`` tool events across 200 sessions, directly through the store."""
    os.environ["CONKEEPER_HOME"] = str(base / "data")
    from conkeeper.domain.paths import locate_project
    from conkeeper.storage.sessions import ensure_session
    from conkeeper.storage.store import ensure_project, open_store

    conn = open_store(base / "data" / "conkeeper.db")
    pid = ensure_project(conn, locate_project(project))
    sessions = [ensure_session(conn, pid, f"old-{i}") for i in range(200)]
    now = int(time.time() * 1000)
    tools = ["Bash", "Read", "Edit", "Grep", "Write", "WebFetch"]
    rows = (
        (
            sessions[i % 200],
            i // 50,
            f"toolu_old_{i}",
            tools[i % 6],
            "execute",
            f'["src/module_{i % 500}.py"]',
            f"pytest -q tests/test_{i % 300}.py",
            "failure" if i % 17 == 0 else "success",
            "exit code 1: AssertionError" if i % 17 == 0 else None,
            1 if i % 17 == 0 else 0,
            random.randint(5, 5000),
            now - (events - i) * 1000,
        )
        for i in range(events)
    )
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO tool_events(session_id, prompt_number, tool_use_id, tool_name, action, "
        "paths, input_summary, status, error, exit_code, duration_ms, created_at) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )
    conn.execute("COMMIT")
    conn.close()


def _make_transcript(path: Path, size_mb: int) -> None:
    """A JSONL transcript of about ``size_mb`` MB whose last assistant entry carries usage."""
    filler = "x" * 4000
    with open(path, "w", encoding="utf-8") as handle:
        written = 0
        n = 0
        while written < size_mb * 1024 * 1024:
            n += 1
            entry = {
                "type": "assistant" if n % 2 else "user",
                "isSidechain": False,
                "message": {
                    "id": f"msg_{n}",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [{"type": "text", "text": filler}],
                    "usage": {
                        "input_tokens": 1200,
                        "cache_creation_input_tokens": 3000,
                        "cache_read_input_tokens": 40000 + n,
                        "output_tokens": 500,
                    },
                },
            }
            line = json.dumps(entry) + "\n"
            handle.write(line)
            written += len(line)


def _command(kind: str, plugin: Path) -> list[str]:
    if kind == "launcher":
        return [str(plugin / "bin" / "conkeeper-hook")]
    return [sys.executable, "-m", "conkeeper", "hook"]


def _time_runs(
    cmd: list[str],
    event: str,
    payloads: list[bytes],
    env: dict[str, str],
    before_each: Callable[[], None] | None = None,
) -> dict:
    times = []
    cpu = []
    for data in payloads:
        if before_each is not None:
            before_each()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([*cmd, event], input=data, env=env, capture_output=True, check=False)
        times.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
        if proc.returncode != 0 or (proc.stdout and not proc.stdout.startswith(b"{")):
            raise SystemExit(f"{event} failed: {proc.returncode} {proc.stdout[:200]!r}")
    times.sort()
    return {
        "runs": len(times),
        "median_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[max(0, int(len(times) * 0.95) - 1)], 1),
        "max_ms": round(times[-1], 1),
        "cpu_median_ms": round(statistics.median(cpu), 1),
    }


def _tool_payload(project: Path, session: str, ident: str, command: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(project / "transcript.jsonl"),
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": ident,
            "tool_input": {"command": command, "description": "run"},
            "tool_response": {"stdout": "ok\n", "stderr": "", "interrupted": False},
        }
    ).encode()


def _prompt_payload(project: Path, transcript: Path, n: int) -> bytes:
    prompts = [
        "Add pagination to the orders endpoint",
        "that didn't work, the test is still failing",
        "no, use the existing logger",
        "Great, now write the docs",
    ]
    return json.dumps(
        {
            "session_id": "bench-prompt",
            "transcript_path": str(transcript),
            "cwd": str(project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompts[n % len(prompts)],
        }
    ).encode()


def _peak_rss_mb(cmd: list[str], event: str, data: bytes, env: dict[str, str]) -> float:
    """Peak RSS of one hook process, measured in a fresh child so earlier runs do not count."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[2:], input=sys.stdin.buffer.read(), capture_output=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, "x", *cmd, event],
        input=data,
        env=env,
        capture_output=True,
        check=True,
    )
    return round(int(out.stdout.strip()) / 1024, 1)


def _concurrency(base: Path, plugin: Path, project: Path, workers: int, per_worker: int) -> dict:
    env = _env(base, plugin)
    env["CONKEEPER_SAVE_INTERVAL"] = "5"
    cmd = _command("launcher", plugin)

    def worker(w: int) -> int:
        session = f"conc-{w % 4}"
        reminders = 0
        for j in range(per_worker):
            data = _tool_payload(project, session, f"toolu_c{w}_{j}", f"echo conc w{w} e{j}")
            proc = subprocess.run(
                [*cmd, "PostToolUse"], input=data, env=env, capture_output=True, check=False
            )
            if proc.returncode != 0:
                raise RuntimeError(f"exit {proc.returncode}")
            if proc.stdout:
                json.loads(proc.stdout)
                reminders += 1
        return reminders

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        reminders = sum(pool.map(worker, range(workers)))
    elapsed = time.perf_counter() - start
    expected = {f"echo conc w{w} e{j}" for w in range(workers) for j in range(per_worker)}
    seen: dict[str, int] = {}
    for f in (project / ".claude" / "memory" / "sessions").glob("*-observations.md"):
        for line in f.read_text().splitlines():
            if "`echo conc " in line:
                key = line.split("`echo conc ", 1)[1].split("`", 1)[0]
                seen["echo conc " + key] = seen.get("echo conc " + key, 0) + 1
    conn = sqlite3.connect(base / "data" / "conkeeper.db")
    rows = conn.execute(
        "SELECT input_summary, count(*) FROM tool_events WHERE tool_use_id LIKE 'toolu_c%' "
        "GROUP BY input_summary"
    ).fetchall()
    conn.close()
    in_store = dict(rows)
    total = workers * per_worker
    sessions = 4
    return {
        "events": total,
        "seconds": round(elapsed, 1),
        "log_exactly_once": set(seen) == expected and all(v == 1 for v in seen.values()),
        "store_exactly_once": set(in_store) == expected and all(v == 1 for v in in_store.values()),
        "log_lines": sum(seen.values()),
        "store_rows": sum(in_store.values()),
        "reminders": reminders,
        "reminders_expected": sessions * ((total // sessions) // 5),
    }


def _measure_entry(
    kind: str, plugin: Path, env: dict[str, str], project: Path, transcript: Path, runs: int
) -> dict:
    """PostToolUse and UserPromptSubmit through one entry point, after one warm-up run."""
    cmd = _command(kind, plugin)
    tag = f"{plugin.name}_{kind.replace(' ', '')}"
    warm = _tool_payload(project, "bench", f"toolu_warm_{tag}", "true")
    subprocess.run([*cmd, "PostToolUse"], input=warm, env=env, check=True, capture_output=True)
    posts = [
        _tool_payload(project, "bench", f"toolu_{tag}_{i}", f"pytest -q tests/t{i}.py")
        for i in range(runs)
    ]
    post = _time_runs(cmd, "PostToolUse", posts, env)
    post["peak_rss_mb"] = _peak_rss_mb(cmd, "PostToolUse", posts[0], env)
    prompts = [_prompt_payload(project, transcript, i) for i in range(runs)]
    prompt = _time_runs(cmd, "UserPromptSubmit", prompts, env)
    prompt["peak_rss_mb"] = _peak_rss_mb(cmd, "UserPromptSubmit", prompts[0], env)
    return {"PostToolUse": post, "UserPromptSubmit (50 MB transcript)": prompt}


# What a pyenv shim does before it execs Python: bash starts, "pyenv exec" resolves the version
# (a few more shells reading version files), then exec. Eight small processes is a light shim.
FAKE_SHIM = """#!/bin/sh
i=0
while [ $i -lt 8 ]; do
    /bin/sh -c 'cat "$1" >/dev/null 2>&1' shim "$HOME/.python-version"
    i=$((i + 1))
done
exec "{python}" "$@"
"""


def _path_dir(base: Path, name: str, python3: str, shim: bool) -> Path:
    """A PATH folder whose ``python3`` is the interpreter itself or a shim in front of it."""
    folder = base / "paths" / name
    folder.mkdir(parents=True)
    if shim:
        (folder / "python3").write_text(FAKE_SHIM.replace("{python}", python3))
        (folder / "python3").chmod(0o755)
    else:
        (folder / "python3").symlink_to(python3)
    return folder


def _real_shim() -> Path | None:
    """This machine's pyenv or asdf ``python3`` shim, when there is one (a shim puts the real
    interpreter's folder first on PATH, so PATH inside this process does not show it)."""
    roots = [Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv"), Path.home() / ".asdf"]
    for root in roots:
        shim = root / "shims" / "python3"
        if shim.is_file() and os.access(shim, os.X_OK):
            return shim
    return None


def _launcher_costs(base: Path, project: Path, plugins: dict[str, Path], runs: int) -> dict:
    """PostToolUse CPU through the launcher: bytecode kept or not, shims remembered or not.

    The cases run interleaved (one call of each in turn, the order rotating every round), so a
    load change on a shared machine hits every case alike; each case has its own data home, so
    what one remembers or caches never serves another. A control case repeats the baseline: its
    ratio is the noise floor."""
    real = sys.executable
    direct = _path_dir(base, "direct", real, shim=False)
    fake = _path_dir(base, "shim", real, shim=True)
    cases: dict[str, tuple[Path, list[Path], bool, bool]] = {
        # name: (plugin, PATH folders, PYTHONDONTWRITEBYTECODE, forget the interpreter each call)
        "bytecode, python3 direct": (plugins["pyc"], [direct], False, False),
        # the same case twice: the noise floor every ratio below should be read against
        "bytecode, python3 direct (control)": (plugins["pyc"], [direct], False, False),
        "DONTWRITEBYTECODE=1, no pyc": (plugins["no pyc"], [direct], True, False),
        "fake shim first, remembered": (plugins["pyc"], [fake], False, False),
        "fake shim first, not remembered": (plugins["pyc"], [fake], False, True),
    }
    shim = _real_shim()
    if shim is not None:
        kind = "pyenv" if "pyenv" in str(shim) else "asdf"
        cases[f"{kind} shim first, remembered"] = (
            plugins["pyc"],
            [shim.parent],
            False,
            False,
        )
        cases[f"{kind} shim first, not remembered"] = (
            plugins["pyc"],
            [shim.parent],
            False,
            True,
        )
    prepared = []
    for n, (name, (plugin, dirs, no_bytecode, forget)) in enumerate(cases.items()):
        env = _env(base, plugin)
        env["CONKEEPER_HOME"] = str(base / f"data-launcher-{n}")
        shutil.copyfile(base / "data" / "conkeeper.db", base / f"data-launcher-{n}.db")
        (base / f"data-launcher-{n}").mkdir()
        (base / f"data-launcher-{n}.db").rename(base / f"data-launcher-{n}" / "conkeeper.db")
        env["PATH"] = os.pathsep.join([*map(str, dirs), "/usr/bin:/bin"])
        if not no_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        for var in ("PYENV_ROOT", "PYENV_VERSION", "ASDF_DIR", "ASDF_DATA_DIR"):
            if var in os.environ:
                env[var] = os.environ[var]
        cmd = _command("launcher", plugin)
        for warm in range(2):  # remember the interpreter, fill the bytecode cache
            data = _tool_payload(project, f"bench-l{n}", f"toolu_lw{n}_{warm}", "true")
            subprocess.run(
                [*cmd, "PostToolUse"], input=data, env=env, check=True, capture_output=True
            )
        remembered = Path(env["CONKEEPER_HOME"]) / "python-path"
        forget_it = (lambda path=remembered: path.unlink(missing_ok=True)) if forget else None
        prepared.append((name, n, cmd, env, forget_it))
    samples: dict[str, list[dict]] = {name: [] for name in cases}
    for i in range(runs):
        shift = i % len(prepared)  # rotate the order so no case always runs first
        for name, n, cmd, env, forget_it in prepared[shift:] + prepared[:shift]:
            data = _tool_payload(project, f"bench-l{n}", f"toolu_l{n}_{i}", f"pytest -q t{i}.py")
            samples[name].append(_time_runs(cmd, "PostToolUse", [data], env, forget_it))
    out: dict[str, object] = {name: _merge(rows) for name, rows in samples.items()}
    out["targets"] = _launcher_ratios(out)
    return out


def _merge(rows: list[dict]) -> dict:
    """One case's single-call measurements as one row (median, p95, max, CPU median)."""
    times = sorted(r["median_ms"] for r in rows)
    return {
        "runs": len(times),
        "median_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[max(0, int(len(times) * 0.95) - 1)], 1),
        "max_ms": round(times[-1], 1),
        "cpu_median_ms": round(statistics.median(r["cpu_median_ms"] for r in rows), 1),
    }


def _launcher_ratios(out: dict) -> dict:
    """CPU ratios against the named peer, each with its 10% target."""

    def cpu(name: str) -> float | None:
        row = out.get(name)
        return row["cpu_median_ms"] if isinstance(row, dict) else None

    pairs = {  # the first case of each pair against its peer
        "control / bytecode (noise)": (
            "bytecode, python3 direct (control)",
            "bytecode, python3 direct",
        ),
        "DONTWRITEBYTECODE=1 / bytecode": (
            "DONTWRITEBYTECODE=1, no pyc",
            "bytecode, python3 direct",
        ),
        "fake shim remembered / direct": (
            "fake shim first, remembered",
            "bytecode, python3 direct",
        ),
        "pyenv shim remembered / direct": (
            "pyenv shim first, remembered",
            "bytecode, python3 direct",
        ),
        "asdf shim remembered / direct": (
            "asdf shim first, remembered",
            "bytecode, python3 direct",
        ),
    }
    ratios = {}
    for label, (case, peer) in pairs.items():
        a, b = cpu(case), cpu(peer)
        if a is not None and b:
            ratio = round(a / b, 3)
            ratios[label] = {"ratio": ratio, "target": 1.10, "met": ratio <= 1.10}
    return ratios


def _print_launcher(costs: dict) -> None:
    print(f"{'launcher cost (PostToolUse)':<34} {'median':>8} {'p95':>8} {'CPU':>6}")
    for name, r in costs.items():
        if name != "targets":
            print(f"{name:<34} {r['median_ms']:>8} {r['p95_ms']:>8} {r['cpu_median_ms']:>6}")
    for label, r in costs["targets"].items():
        verdict = "met" if r["met"] else "MISSED"
        print(f"CPU ratio {label}: {r['ratio']} (target <= {r['target']}) {verdict}")


def _print_table(results: dict, baseline: dict, load: float | None) -> None:
    print(f"machine: {os.cpu_count()} CPUs, 1-min load average {load}")
    print(
        "pyc: ConKeeper precompiled with compileall (as installed); "
        "no pyc: compiled from source on every run"
    )
    print(
        f"{'bytecode':<8} {'entry':<10} {'event':<22} {'median':>8} {'p95':>8} {'max':>8} "
        f"{'CPU':>6} {'RSS MB':>7}  budget (median / p95)"
    )
    print(
        f"{'':<8} {'python -S':<10} {'(bare start, scale)':<22} {baseline['median_ms']:>8} "
        f"{baseline['p95_ms']:>8} {baseline['max_ms']:>8} {baseline['cpu_median_ms']:>6}"
    )
    budgets = {"PostToolUse": "60 / 100 ms, 40 MB", "UserPromptSubmit (50 MB transcript)": "80 ms"}
    for mode in ("pyc", "no pyc"):
        for kind, events in results.get(mode, {}).items():
            for event, r in events.items():
                short = "UserPromptSubmit 50MB" if event.startswith("UserPrompt") else event
                print(
                    f"{mode:<8} {kind:<10} {short:<22} {r['median_ms']:>8} {r['p95_ms']:>8} "
                    f"{r['max_ms']:>8} {r['cpu_median_ms']:>6} {r['peak_rss_mb']:>7}  "
                    f"{budgets[event]}"
                )


def main() -> int:
    """Run everything, print the table, write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs (smoke test)")
    parser.add_argument(
        "--tiny", action="store_true", help="3 runs on a tiny database, precompiled only (CI)"
    )
    parser.add_argument("--runs", type=int, default=None, help="runs per case (default 60)")
    parser.add_argument("--no-concurrency", action="store_true", help="skip the concurrency check")
    parser.add_argument(
        "--no-launcher", action="store_true", help="skip the launcher cost rows (shims, bytecode)"
    )
    parser.add_argument("--launcher-only", action="store_true", help="only the launcher cost rows")
    parser.add_argument(
        "--bytecode",
        choices=("both", "pyc", "no-pyc"),
        default="both",
        help="measure with precompiled bytecode, without, or both (default)",
    )
    args = parser.parse_args()
    runs = args.runs or (3 if args.tiny else 20 if args.quick else 60)
    per_worker = 3 if args.tiny else 50 if args.quick else 500
    prefill, transcript_mb = (500, 1) if args.tiny else (100_000, 50)
    if args.tiny:
        args.bytecode, args.no_launcher = "pyc", True
    base = Path(tempfile.mkdtemp(prefix="conkeeper-hook-bench-"))
    try:
        project = _make_project(base)
        _prefill(base, project, prefill)
        transcript = project / "transcript.jsonl"
        _make_transcript(transcript, transcript_mb)
        modes = {"pyc": True, "no pyc": False}
        if args.bytecode != "both":
            modes = {args.bytecode.replace("-", " "): args.bytecode == "pyc"}
        plugins = {
            mode: _plugin_copy(base, "plugin-" + mode.replace(" ", "-"), precompiled)
            for mode, precompiled in modes.items()
        }
        print("bytecode: " + ", ".join(f"{m} = {p / 'src'}" for m, p in plugins.items()))
        results: dict[str, object] = {
            "runs_per_case": runs,
            "prefilled_tool_events": prefill,
            "bytecode": "pyc rows: src precompiled with compileall; no pyc rows: "
            "PYTHONDONTWRITEBYTECODE=1 and no .pyc in the plugin (python -m compiles ConKeeper "
            "each run; the launcher keeps bytecode under the data home)",
        }
        first_env = _env(base, next(iter(plugins.values())))
        baseline = _time_runs([sys.executable, "-S", "-c", "pass"], "", [b""] * runs, first_env)
        results["python -S -c pass (interpreter start, for scale)"] = baseline
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        results["load_average_1m"] = load
        for mode, plugin in ({} if args.launcher_only else plugins).items():
            env = _env(base, plugin)
            if mode == "pyc":  # precompiled: nothing to write, and the launcher keeps no cache
                env.pop("PYTHONDONTWRITEBYTECODE")
            results[mode] = {
                kind: _measure_entry(kind, plugin, env, project, transcript, runs)
                for kind in ("launcher", "python -m")
            }
        if not args.launcher_only:
            _print_table(results, baseline, load)
        if not args.no_launcher and len(plugins) == 2:
            costs = _launcher_costs(base, project, plugins, runs)
            results["launcher cost (PostToolUse CPU)"] = costs
            _print_launcher(costs)
        if not args.no_concurrency and not args.launcher_only:
            plugin = plugins.get("pyc") or next(iter(plugins.values()))
            conc = _concurrency(base, plugin, project, 8, per_worker)
            results["concurrency"] = conc
            print(
                f"concurrency: {conc['events']} PostToolUse events from 8 workers in "
                f"{conc['seconds']} s; log exactly once: {conc['log_exactly_once']} "
                f"({conc['log_lines']} lines); store exactly once: {conc['store_exactly_once']} "
                f"({conc['store_rows']} rows); reminders {conc['reminders']} "
                f"(expected {conc['reminders_expected']})"
            )
        target = RESULTS.with_name("hook_bench_launcher.json") if args.launcher_only else RESULTS
        if args.tiny:
            target = RESULTS.with_suffix(".tiny.json")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(results, indent=2) + "\n")
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
