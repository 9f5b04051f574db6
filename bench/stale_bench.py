"""Stale-entry benchmark: precision and recall of ``conkeeper stale`` flags, and its run time.

Generates a git project with 5,000 commits (through ``git fast-import``) and 200 memory files
whose entries are planted with known labels:

stale  — cites a file deleted later; a file renamed later; a function removed from its cited
         file later; a ``make`` target removed later; a file rewritten substantially after the
         entry was written.
fresh  — cites an existing file and symbol; a file that changed heavily *before* the entry was
         written; a file renamed before the entry (cited by its new name); a ``make`` target
         that exists; an entry rewritten late in history whose file changed heavily between
         the memory file's first commit and that rewrite (tests per-line dating).

Background noise: thousands of small commits on files no entry cites. A flag on an entry
counts as a true positive when the entry is labelled stale. Time is measured in-process
(``find_stale``, median of runs, no cache) and as the whole ``conkeeper stale --no-cache``
process; the spec's budget is 150 ms for the check.

Usage: ``python bench/stale_bench.py [--commits 5000] [--memory-files 200] [--runs 7]``.
Prints a table and writes ``bench/results/stale_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
sys.path.insert(0, str(SRC))
RESULTS = ROOT / "bench" / "results" / "stale_bench.json"
BUDGET_MS = 150.0
STALE_KINDS = ("deleted", "renamed", "symbol", "make", "changed")
FRESH_KINDS = ("exists", "changed-before", "renamed-before", "make-ok", "rewritten")


def module_text(name: str, functions: list[str], extra: int = 0) -> str:
    """A small Python module defining ``functions`` plus ``extra`` filler lines."""
    lines = [f'"""Module {name}."""', ""]
    for func in functions:
        lines += [f"def {func}(value):", f"    return value + {len(func)}", ""]
    lines += [f"CONSTANT_{i} = {i}" for i in range(extra)]
    return "\n".join(lines) + "\n"


class Repo:
    """Builds a fast-import stream: a dict of current files and a list of commits."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.stream: list[bytes] = []
        self.count = 0
        self.clock = 1_700_000_000

    def commit(self, message: str, changes: dict[str, str | None], renames=()) -> None:
        self.count += 1
        self.clock += 600
        out = [
            "commit refs/heads/main",
            f"mark :{self.count}",
            f"committer Bench <bench@example.com> {self.clock} +0000",
        ]
        msg = message.encode()
        body = [("\n".join(out) + "\n").encode(), f"data {len(msg)}\n".encode() + msg + b"\n"]
        if self.count > 1:
            body.append(f"from :{self.count - 1}\n".encode())
        for old, new in renames:
            body.append(f"R {old} {new}\n".encode())
            self.files[new] = self.files.pop(old)
        for path, text in changes.items():
            if text is None:
                body.append(f"D {path}\n".encode())
                self.files.pop(path, None)
            else:
                data = text.encode()
                body.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
                self.files[path] = text
        self.stream.append(b"".join(body) + b"\n")

    def write(self, root: Path) -> None:
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
        subprocess.run(
            ["git", "-C", str(root), "fast-import", "--quiet"],
            input=b"".join(self.stream),
            check=True,
        )
        subprocess.run(["git", "-C", str(root), "checkout", "-q", "-f", "main"], check=True)


def build(root: Path, commits: int, memory_files: int, seed: int = 7) -> list[dict]:
    """Generate the project; return the planted entries with labels."""
    rng = random.Random(seed)
    repo = Repo()
    per_kind = max(1, memory_files * 3 // (len(STALE_KINDS) + len(FRESH_KINDS)))
    planted: list[dict] = []
    modules: dict[str, list[str]] = {}

    def new_module(tag: str, n: int) -> str:
        path = f"src/{tag}/mod_{tag}_{n}.py"
        funcs = [f"{tag}_fn_{n}_{k}" for k in range(3)]
        modules[path] = funcs
        return path

    initial: dict[str, str] = {}
    for kind in STALE_KINDS + FRESH_KINDS:
        for n in range(per_kind):
            path = new_module(kind.replace("-", "_"), n)
            initial[path] = module_text(path, modules[path], extra=10)
    noise = [f"src/noise/n{i}.py" for i in range(200)]
    for path in noise:
        initial[path] = module_text(path, [f"noise_{path[-6:-3]}"], extra=5)
    targets = [f"target-{i}" for i in range(per_kind * 2)]
    initial["Makefile"] = "".join(f"{t}:\n\techo {t}\n" for t in targets)
    repo.commit("initial import", initial)

    def noise_commits(count: int) -> None:
        for _ in range(count):
            path = rng.choice(noise)
            text = repo.files[path] + f"VALUE_{rng.randrange(10**6)} = 1\n"
            repo.commit(f"tweak {path}", {path: text})

    before = max(10, commits * 2 // 5 - 4 * per_kind)
    noise_commits(before // 2)
    # history that happens before memory is written (must not make entries stale)
    for n in range(per_kind):
        path = f"src/changed_before/mod_changed_before_{n}.py"
        repo.commit("rewrite before", {path: module_text(path, modules[path], extra=80)})
        old = f"src/renamed_before/mod_renamed_before_{n}.py"
        new = old.replace(".py", "_new.py")
        repo.commit("rename before", {}, renames=[(old, new)])
        modules[new] = modules.pop(old)
        path = f"src/rewritten/mod_rewritten_{n}.py"
    noise_commits(before // 2)

    memory: dict[str, list[str]] = {
        f".claude/memory/area-{i:03d}.md": [] for i in range(memory_files)
    }
    names = sorted(memory)
    slot = 0

    def add(kind: str, label: str, text: str) -> None:
        nonlocal slot
        name = names[slot % len(names)]
        slot += 1
        memory[name].append(text)
        planted.append({"file": name, "kind": kind, "label": label, "text": text})

    for n in range(per_kind):
        m = f"src/deleted/mod_deleted_{n}.py"
        add("deleted", "stale", f"- Helpers for deletion live in `{m}`.")
        m = f"src/renamed/mod_renamed_{n}.py"
        add("renamed", "stale", f"- Renaming logic: see `{m}` first.")
        m = f"src/symbol/mod_symbol_{n}.py"
        add("symbol", "stale", f"- Use `{modules[m][1]}()` from `{m}` for lookups.")
        add("make", "stale", f"- Run `make {targets[n]}` before a release.")
        m = f"src/changed/mod_changed_{n}.py"
        add("changed", "stale", f"- The retry policy is in `{m}` (three attempts).")
        m = f"src/exists/mod_exists_{n}.py"
        add("exists", "fresh", f"- Parsing goes through `{modules[m][0]}()` in `{m}`.")
        m = f"src/changed_before/mod_changed_before_{n}.py"
        add("changed-before", "fresh", f"- Constants are defined in `{m}`.")
        m = f"src/renamed_before/mod_renamed_before_{n}_new.py"
        add("renamed-before", "fresh", f"- The renamed module `{m}` keeps the old API.")
        add("make-ok", "fresh", f"- `make {targets[per_kind + n]}` builds the docs.")
        m = f"src/rewritten/mod_rewritten_{n}.py"
        add("rewritten", "fresh", f"- PLACEHOLDER {n} about `{m}` (old wording).")

    def memory_text(name: str) -> str:
        return "# Notes\n\n## Entries\n" + "\n".join(memory[name]) + "\n"

    repo.commit("memory", {name: memory_text(name) for name in names})
    after = max(10, commits - repo.count - 4 * per_kind - 2)
    noise_commits(after // 2)
    for n in range(per_kind):
        repo.commit("delete", {f"src/deleted/mod_deleted_{n}.py": None})
        old = f"src/renamed/mod_renamed_{n}.py"
        repo.commit("rename", {}, renames=[(old, old.replace(".py", "_v2.py"))])
        m = f"src/symbol/mod_symbol_{n}.py"
        funcs = [f for k, f in enumerate(modules[m]) if k != 1]
        repo.commit("drop function", {m: module_text(m, funcs, extra=10)})
        m = f"src/changed/mod_changed_{n}.py"
        repo.commit("rewrite", {m: module_text(m, modules[m], extra=90)})
        m = f"src/rewritten/mod_rewritten_{n}.py"
        repo.commit("rewrite", {m: module_text(m, modules[m], extra=90)})
    remaining = [t for n, t in enumerate(targets) if n >= per_kind]
    repo.commit("drop targets", {"Makefile": "".join(f"{t}:\n\techo {t}\n" for t in remaining)})
    noise_commits(max(0, commits - repo.count - 1))
    for item in planted:  # the late rewrite of the "rewritten" entries only
        if item["kind"] == "rewritten":
            new = item["text"].replace("(old wording)", "(rewritten after the change)")
            idx = memory[item["file"]].index(item["text"])
            memory[item["file"]][idx] = new
            item["text"] = new
    touched = sorted({i["file"] for i in planted if i["kind"] == "rewritten"})
    repo.commit("memory rewrite", {name: memory_text(name) for name in touched})
    repo.write(root)
    for item in planted:
        lines = memory_text(item["file"]).splitlines()
        item["line"] = lines.index(item["text"]) + 1
    return planted


def _cpu_ms() -> float:
    """CPU time of this process and its finished children (git), in ms: less sensitive than
    wall time to other load on a shared machine."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return 1000 * (own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime)


def score(planted: list[dict], findings: list[dict]) -> dict:
    flagged = {(f["file"], int(f["line"])) for f in findings}
    labels = {(p["file"], p["line"]): p for p in planted}
    tp = sum(1 for key in flagged if key in labels and labels[key]["label"] == "stale")
    fp = sum(1 for key in flagged if key not in labels or labels[key]["label"] == "fresh")
    stale_total = sum(1 for p in planted if p["label"] == "stale")
    per_kind = {}
    for kind in STALE_KINDS + FRESH_KINDS:
        items = [p for p in planted if p["kind"] == kind]
        per_kind[kind] = {
            "entries": len(items),
            "flagged": sum(1 for p in items if (p["file"], p["line"]) in flagged),
        }
    return {
        "flags": len(flagged),
        "true_positives": tp,
        "false_positives": fp,
        "precision": tp / len(flagged) if flagged else 1.0,
        "recall": tp / stale_total if stale_total else 1.0,
        "per_kind": per_kind,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--memory-files", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=7, help="noise commits' random seed")
    args = parser.parse_args()
    from conkeeper.services.freshness.stale import find_stale

    with tempfile.TemporaryDirectory(prefix="ck-stale-") as tmp:
        root = args.keep or Path(tmp) / "project"
        started = time.perf_counter()
        planted = build(root, args.commits, args.memory_files, args.seed)
        built_s = time.perf_counter() - started
        commits = int(
            subprocess.check_output(["git", "-C", str(root), "rev-list", "--count", "HEAD"])
        )
        memory_dir = root / ".claude" / "memory"
        times, cpu, report = [], [], None
        for _ in range(args.runs):
            before = _cpu_ms()
            report = find_stale(root, memory_dir)
            cpu.append(_cpu_ms() - before)
            times.append(report.elapsed_ms)
        assert report is not None
        env = dict(os.environ, PYTHONPATH=str(SRC), CONKEEPER_HOME=str(Path(tmp) / "data"))
        proc_times = []
        for _ in range(max(3, args.runs // 2)):
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "conkeeper", "stale", "--no-cache", "--json"],
                cwd=root,
                env=env,
                capture_output=True,
                check=True,
            )
            proc_times.append((time.perf_counter() - t0) * 1000)
        quality = score(planted, [f.as_dict() for f in report.findings])
    result = {
        "commits": commits,
        "memory_files": args.memory_files,
        "entries_planted": len(planted),
        "entries_checked": report.entries,
        "git_calls": report.git_calls,
        "check_median_ms": statistics.median(times),
        "check_max_ms": max(times),
        "check_cpu_median_ms": statistics.median(cpu),
        "load_average": os.getloadavg()[0],
        "process_median_ms": statistics.median(proc_times),
        "budget_ms": BUDGET_MS,
        "build_s": round(built_s, 1),
        "seed": args.seed,
        **quality,
    }
    print(
        f"Stale-entry benchmark: {commits} commits, {args.memory_files} memory files, "
        f"{len(planted)} planted entries (generated in {built_s:.1f}s)"
    )
    print(f"{'kind':<16}{'label':<8}{'entries':>8}{'flagged':>9}")
    for kind, row in quality["per_kind"].items():
        label = "stale" if kind in STALE_KINDS else "fresh"
        print(f"{kind:<16}{label:<8}{row['entries']:>8}{row['flagged']:>9}")
    print(
        f"precision {quality['precision']:.3f}  recall {quality['recall']:.3f}  "
        f"({quality['true_positives']} TP, {quality['false_positives']} FP)"
    )
    verdict = "PASS" if result["check_median_ms"] <= BUDGET_MS else "FAIL"
    print(
        f"check (in-process, {args.runs} runs): median {result['check_median_ms']:.1f} ms "
        f"wall, {result['check_cpu_median_ms']:.1f} ms CPU (Python + git), max "
        f"{result['check_max_ms']:.1f} ms, {report.git_calls} git calls; budget "
        f"{BUDGET_MS:.0f} ms: {verdict} (load average {result['load_average']:.1f})"
    )
    print(
        f"whole process `conkeeper stale --no-cache --json`: median "
        f"{result['process_median_ms']:.1f} ms"
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"results: {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
