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
counts as a true positive when the entry is labelled stale.

A second generator (``shapes``, written after the detector and never used to tune it) plants
other shapes: folders several levels deep, short (suffix) citations, methods and classes cited
by name, files moved across folders, renamed then deleted, and files touched by many tiny
commits after the entry (fresh: not substantial); its noise lands in the cited folders.

Time is measured as CPU (the process and its git children, ``getrusage``; the machine is shared,
so wall time is noise) and wall time, in process (``find_stale``, median of runs, no cache) and
as the whole ``conkeeper stale --no-cache --json`` process, interleaved with a bare
``python -c pass`` to show the interpreter's own start-up cost. The spec's budget: 150 ms.

Usage: ``python bench/stale_bench.py [--commits 5000] [--memory-files 200] [--runs 7]
[--generator original|shapes|both]``. Prints a table per generator and writes
``bench/results/stale_bench.json`` (the original generator's figures at the top level, the
other's under its name).
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
from collections.abc import Callable
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


def _planter(
    pattern: str, count: int, planted: list[dict]
) -> tuple[dict[str, list[str]], Callable[[str, str, str], None]]:
    """``count`` empty memory files named by ``pattern``, and ``add(kind, label, text)``, which
    deals entries over them in turn and records each in ``planted`` with its label."""
    memory: dict[str, list[str]] = {pattern.format(i): [] for i in range(count)}
    names = sorted(memory)

    def add(kind: str, label: str, text: str) -> None:
        name = names[len(planted) % len(names)]
        memory[name].append(text)
        planted.append({"file": name, "kind": kind, "label": label, "text": text})

    return memory, add


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

    memory, add = _planter(".claude/memory/area-{:03d}.md", memory_files, planted)

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

    repo.commit("memory", {name: memory_text(name) for name in sorted(memory)})
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


SHAPES_STALE_KINDS = (
    "nested-deleted",
    "short-deleted",
    "method-gone",
    "class-gone",
    "moved-across",
    "renamed-then-deleted",
    "nested-changed",
)
SHAPES_FRESH_KINDS = (
    "tiny-commits",
    "method-ok",
    "short-exists",
    "moved-before",
    "nested-touched",
)


def class_text(name: str, cls: str, methods: list[str], extra: int = 0, bump: int = 0) -> str:
    """A module with one class holding ``methods``, a version line and ``extra`` filler."""
    lines = [f'"""Module {name}."""', "", f"VERSION = {bump}", "", f"class {cls}:"]
    for method in methods:
        lines += [f"    def {method}(self, value):", f"        return value + {len(method)}", ""]
    lines += [f"SETTING_{i} = {i}" for i in range(extra)]
    return "\n".join(lines) + "\n"


def build_shapes(root: Path, commits: int, memory_files: int, seed: int = 11) -> list[dict]:
    """A second, differently shaped project (the detector was not tuned on it): nested
    folders several levels deep, short (suffix) citations, methods and classes cited by name,
    files moved across folders, renamed then deleted, and files touched by many tiny commits
    after the entry (not substantial: fresh). Noise commits land in the same folders as the
    cited files, so a folder-level filter cannot skip them."""
    rng = random.Random(seed)
    repo = Repo()
    kinds = SHAPES_STALE_KINDS + SHAPES_FRESH_KINDS
    per_kind = max(1, memory_files * 3 // len(kinds))
    areas = [f"pkg/{a}/{b}/{c}" for a in ("core", "web") for b in ("io", "model") for c in "xyz"]
    files: dict[str, tuple[str, list[str]]] = {}  # path -> (class, methods)
    initial: dict[str, str] = {}

    def place(kind: str, n: int) -> str:
        tag = kind.replace("-", "_")
        path = f"{areas[(n + len(tag)) % len(areas)]}/{tag}_{n}.py"
        cls = "".join(part.title() for part in tag.split("_")) + f"Store{n}"
        methods = [f"{tag}_load_{n}", f"{tag}_save_{n}", f"{tag}_drop_{n}"]
        files[path] = (cls, methods)
        initial[path] = class_text(path, cls, methods, extra=60)
        return path

    paths = {kind: [place(kind, n) for n in range(per_kind)] for kind in kinds}
    noise = [f"{areas[i % len(areas)]}/noise_{i}.py" for i in range(240)]
    for path in noise:
        initial[path] = f"NOISE = {len(path)}\n"
    repo.commit("initial import", initial)

    def noise_commits(count: int) -> None:
        for _ in range(count):
            path = rng.choice(noise)
            repo.commit(
                f"tweak {path}", {path: repo.files[path] + f"N{rng.randrange(10**6)} = 1\n"}
            )

    noise_commits(commits // 4)
    moved_before: dict[str, str] = {}
    for old in paths["moved-before"]:
        new = old.replace("pkg/core/", "lib/").replace("pkg/web/", "lib/")
        repo.commit("move before", {}, renames=[(old, new)])
        moved_before[old] = new
        files[new] = files.pop(old)
    noise_commits(commits // 4)

    planted: list[dict] = []
    memory, add = _planter(".claude/memory/topics/area-{:03d}.md", memory_files, planted)

    for n in range(per_kind):
        p = paths["nested-deleted"][n]
        add("nested-deleted", "stale", f"- Deep helper: `{p}`.")
        p = paths["short-deleted"][n]
        short = "/".join(p.split("/")[-2:])
        add("short-deleted", "stale", f"- The {n}th exporter sits in `{short}`.")
        p = paths["method-gone"][n]
        cls, methods = files[p]
        add("method-gone", "stale", f"- Call `{cls}.{methods[2]}()` in `{p}` to purge.")
        p = paths["class-gone"][n]
        add("class-gone", "stale", f"- `{files[p][0]}` in `{p}` caches rows.")
        p = paths["moved-across"][n]
        add("moved-across", "stale", f"- Serialisers: `{p}`.")
        p = paths["renamed-then-deleted"][n]
        add("renamed-then-deleted", "stale", f"- Legacy bridge in `{p}`.")
        p = paths["nested-changed"][n]
        add("nested-changed", "stale", f"- The layout of `{p}` is fixed.")
        p = paths["tiny-commits"][n]
        add("tiny-commits", "fresh", f"- Version constants live in `{p}`.")
        p = paths["method-ok"][n]
        cls, methods = files[p]
        add("method-ok", "fresh", f"- `{cls}.{methods[0]}()` in `{p}` loads rows.")
        p = paths["short-exists"][n]
        short = "/".join(p.split("/")[-2:])
        add("short-exists", "fresh", f"- Readers: `{short}`.")
        new = moved_before[paths["moved-before"][n]]
        add("moved-before", "fresh", f"- After the move, `{new}` holds the codec.")
        p = paths["nested-touched"][n]
        add("nested-touched", "fresh", f"- `{files[p][1][1]}()` is in `{p}`.")

    def memory_text(name: str) -> str:
        return "# Topic\n\n## Notes\n\n" + "\n".join(memory[name]) + "\n"

    repo.commit("memory", {name: memory_text(name) for name in sorted(memory)})
    noise_commits(commits // 8)
    for n in range(per_kind):
        repo.commit("delete", {paths["nested-deleted"][n]: None})
        repo.commit("delete", {paths["short-deleted"][n]: None})
        p = paths["method-gone"][n]
        cls, methods = files[p]
        repo.commit("drop method", {p: class_text(p, cls, methods[:2], extra=60)})
        p = paths["class-gone"][n]
        cls, methods = files[p]
        repo.commit("rename class", {p: class_text(p, cls + "V2", methods, extra=60)})
        old = paths["moved-across"][n]
        new = "src/serial/" + old.rsplit("/", 1)[-1]
        repo.commit("move", {}, renames=[(old, new)])
        old = paths["renamed-then-deleted"][n]
        new = old.replace(".py", "_old.py")
        repo.commit("rename", {}, renames=[(old, new)])
        p = paths["nested-changed"][n]
        cls, methods = files[p]
        repo.commit("rewrite", {p: class_text(p, cls, methods, extra=160)})
        p = paths["method-ok"][n]
        cls, methods = files[p]
        repo.commit("touch", {p: class_text(p, cls, methods, extra=62)})
        p = paths["nested-touched"][n]
        cls, methods = files[p]
        repo.commit("touch", {p: class_text(p, cls, methods, extra=61)})
    for bump in range(1, 13):  # many tiny commits: the version line bumped twelve times
        for p in paths["tiny-commits"]:
            cls, methods = files[p]
            repo.commit("bump", {p: class_text(p, cls, methods, extra=60, bump=bump)})
    for n in range(per_kind):
        p = paths["renamed-then-deleted"][n].replace(".py", "_old.py")
        repo.commit("delete renamed", {p: None})
    noise_commits(max(0, commits - repo.count))
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
    """Precision and recall of the flags against the planted labels, and flags per kind."""
    flagged = {(f["file"], int(f["line"])) for f in findings}
    labels = {(p["file"], p["line"]): p for p in planted}
    tp = sum(1 for key in flagged if key in labels and labels[key]["label"] == "stale")
    fp = sum(1 for key in flagged if key not in labels or labels[key]["label"] == "fresh")
    stale_total = sum(1 for p in planted if p["label"] == "stale")
    per_kind: dict[str, dict] = {}
    for item in planted:
        row = per_kind.setdefault(
            item["kind"], {"label": item["label"], "entries": 0, "flagged": 0}
        )
        row["entries"] += 1
        row["flagged"] += (item["file"], item["line"]) in flagged
    return {
        "flags": len(flagged),
        "true_positives": tp,
        "false_positives": fp,
        "precision": tp / len(flagged) if flagged else 1.0,
        "recall": tp / stale_total if stale_total else 1.0,
        "per_kind": per_kind,
    }


GENERATORS = {"original": build, "shapes": build_shapes}


def _process_run(root: Path, env: dict[str, str], argv: list[str]) -> tuple[float, float]:
    """Wall and CPU ms (the process and its git children) of one ``python ARGV`` in ``root``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *argv], cwd=root, env=env, capture_output=True, check=True)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = 1000 * (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return wall, cpu


def measure(mode: str, args: argparse.Namespace, tmp: Path) -> dict:
    """Generate one project, run the check in process and as a whole process, score it."""
    from conkeeper.services.upkeep.freshness.stale import find_stale

    root = (args.keep / mode) if args.keep else tmp / mode
    if root.exists():
        import shutil

        shutil.rmtree(root)
    seed = args.seed if mode == "original" else args.seed + 4
    started = time.perf_counter()
    planted = GENERATORS[mode](root, args.commits, args.memory_files, seed)
    built_s = time.perf_counter() - started
    commits = int(subprocess.check_output(["git", "-C", str(root), "rev-list", "--count", "HEAD"]))
    memory_dir = root / ".claude" / "memory"
    find_stale(root, memory_dir)  # warm the page cache and imports
    times, cpu, report = [], [], None
    for _ in range(args.runs):
        before = _cpu_ms()
        report = find_stale(root, memory_dir)
        cpu.append(_cpu_ms() - before)
        times.append(report.elapsed_ms)
    assert report is not None
    stale_argv = ["-m", "conkeeper", "stale", "--no-cache", "--json"]
    # As an installed package runs: with its bytecode cached (kept out of the source tree).
    env = dict(os.environ, PYTHONPATH=str(SRC), CONKEEPER_HOME=str(tmp / "data"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    _process_run(root, env, stale_argv)  # compiles the bytecode once
    proc, base = [], []
    for _ in range(max(3, args.runs)):  # interleaved: the interpreter alone, then the check
        base.append(_process_run(root, env, ["-c", "pass"]))
        proc.append(_process_run(root, env, stale_argv))
    return {
        "generator": mode,
        "commits": commits,
        "memory_files": args.memory_files,
        "entries_planted": len(planted),
        "entries_checked": report.entries,
        "git_calls": report.git_calls,
        "check_median_ms": statistics.median(times),
        "check_max_ms": max(times),
        "check_cpu_median_ms": statistics.median(cpu),
        "process_median_ms": statistics.median(w for w, _ in proc),
        "process_cpu_median_ms": statistics.median(c for _, c in proc),
        "interpreter_median_ms": statistics.median(w for w, _ in base),
        "interpreter_cpu_median_ms": statistics.median(c for _, c in base),
        "load_average": os.getloadavg()[0],
        "budget_ms": BUDGET_MS,
        "build_s": round(built_s, 1),
        "seed": seed,
        **score(planted, [f.as_dict() for f in report.findings]),
    }


def show(result: dict, runs: int) -> None:
    """Print one generator's table and timing lines."""
    print(
        f"\n[{result['generator']}] {result['commits']} commits, {result['memory_files']} "
        f"memory files, {result['entries_planted']} planted entries "
        f"(generated in {result['build_s']:.1f}s, seed {result['seed']})"
    )
    print(f"{'kind':<22}{'label':<8}{'entries':>8}{'flagged':>9}")
    for kind, row in result["per_kind"].items():
        print(f"{kind:<22}{row['label']:<8}{row['entries']:>8}{row['flagged']:>9}")
    print(
        f"precision {result['precision']:.3f}  recall {result['recall']:.3f}  "
        f"({result['true_positives']} TP, {result['false_positives']} FP)"
    )
    check = result["check_cpu_median_ms"]
    print(
        f"check in process (find_stale, median of {runs}): {check:.1f} ms CPU (Python + git), "
        f"{result['check_median_ms']:.1f} ms wall (max {result['check_max_ms']:.1f}), "
        f"{result['git_calls']} git calls"
    )
    process = result["process_cpu_median_ms"]
    verdict = "PASS" if process <= BUDGET_MS else "FAIL"
    print(
        f"whole process `conkeeper stale --no-cache --json`: {process:.1f} ms CPU, "
        f"{result['process_median_ms']:.1f} ms wall; target <= {BUDGET_MS:.0f} ms: {verdict}"
    )
    print(
        f"  (the bare interpreter, `python -c pass`, costs "
        f"{result['interpreter_cpu_median_ms']:.1f} ms CPU, "
        f"{result['interpreter_median_ms']:.1f} ms wall here; load average "
        f"{result['load_average']:.1f})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--memory-files", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--tiny", action="store_true", help="60 commits, 20 memory files, 1 run (CI smoke)"
    )
    parser.add_argument("--keep", type=Path, default=None, help="build the projects here")
    parser.add_argument("--seed", type=int, default=7, help="noise commits' random seed")
    parser.add_argument(
        "--generator", choices=("original", "shapes", "both"), default="both", help="which project"
    )
    args = parser.parse_args()
    if args.tiny:
        args.commits, args.memory_files, args.runs = 60, 20, 1
    results_path = RESULTS.with_suffix(".tiny.json") if args.tiny else RESULTS
    modes = ["original", "shapes"] if args.generator == "both" else [args.generator]
    with tempfile.TemporaryDirectory(prefix="ck-stale-") as tmp:
        results = [measure(mode, args, Path(tmp)) for mode in modes]
    for result in results:
        show(result, args.runs)
    data = dict(results[0])
    for extra in results[1:]:
        data[extra["generator"]] = extra
    results_path.parent.mkdir(parents=True, exist_ok=True)
    results_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"results: {results_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
