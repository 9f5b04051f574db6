"""A/B cost of the poisoning defences on the hook path: CPU median, baseline against this tree.

Why: the instruction detector (``conkeeper.domain.instructions``) runs inside hooks: PostToolUse
checks an agent's own edits of memory files, SessionStart keeps instruction-shaped observation
titles, summary fields and agent entries out of the context. Issue 20 allows at most +2 ms of
CPU (median) on PostToolUse and UserPromptSubmit. This bench runs the same real-shaped payloads
through the plugin launcher (``bin/conkeeper-hook``) of a baseline tree (default: ``main``,
exported with ``git archive``, so nothing is written into another checkout) and of this tree,
alternating A and B run by run so machine load hits both alike, and prints the CPU medians and
their difference against the target. Writes ``bench/results/poisoning_hook_ab.json``.
Run: ``python bench/poisoning_hook_ab.py [--runs N] [--baseline-ref REF] [--tiny]``.

Measured 2026-11-26 on the shared 2-core machine (8 helpers running), baseline ``ck/writepath``
(this branch without its own changes), 40 runs each, three runs of the bench (CPU median delta,
ms): PostToolUse (Bash) -0.61 / +0.13 / +1.50; PostToolUse (Edit of a memory file) +1.17 /
+0.90 / -0.52; UserPromptSubmit -0.40 / -1.05 / +0.46 (target ≤ +2 ms: met in every run; the
spread is machine noise, the Bash and prompt paths run no detector). SessionStart +0.71 /
-1.32 / +2.66 (no target; it checks observation titles, summary fields and agent entries).

With the learned scorer (ck/poison2, 2026-11-26 12:41-12:50 UTC, 40 runs, baseline main merged
in): PostToolUse (Bash) +0.23, PostToolUse (Edit of a memory file) -0.25, UserPromptSubmit -7.53
(noise), SessionStart +4.35 (no target; it loads the scorer). An earlier run that let the
PostToolUse notice load the scorer measured +2.7 to +3.6 ms there (over target), so that notice
uses the phrase rules alone.

With the hashed scorer (ck/poison3, 2026-11-26, 30 runs each, baseline main; two runs):
PostToolUse (Bash) +0.15 / -14.22 (noise), PostToolUse (Edit of a memory file) +1.41 / -0.95,
UserPromptSubmit -2.33 / -2.23 (the three run no scorer; within target); SessionStart +8.14
with 16-bit weights, +2.44 with the 8-bit table shipped (no target; it decodes the table,
about 1.5 ms, and compiles the feature module when no bytecode is cached, as in this bench).

With hidden text judged only when it hides (ck/poison4, 2026-11-26 15:26 UTC, 30 runs, baseline
main): PostToolUse (Bash) +0.50, PostToolUse (Edit of a memory file) -1.69, UserPromptSubmit
-0.42 (within target), SessionStart +0.09.

With look-alike packages, precedence direction and shared-feature pruning (ck/pdet5 with main
merged, 2026-11-26 16:53-17:15 UTC, baseline main, 40-60 runs; five runs, CPU median delta ms):
PostToolUse (Bash) +0.61 / -0.16 / +0.25 / -2.27 / -2.52, PostToolUse (Edit of a memory file)
+1.22 / -1.22 / -0.47 / -7.61 / +1.16, UserPromptSubmit -0.51 / -0.48 / -2.15 / -1.05 / -4.12
(within target). SessionStart (no target) -0.35 / +2.08 / +10.05 / +7.31 with the look-alike
scan gated on a bare "use " (its pattern compiled for most notes, about 1 ms), -1.13 / -1.00
after narrowing the gate. Another run under heavier load measured Bash +8.09, a path that runs
none of this code: noise. The weights table is half the size (44 KB).

Round 6 (ck/pdet6, 2026-11-26 18:34-18:57 UTC, baseline main 9e79bba, 40 runs; three runs, the
third with the author-bagged weights shipped, CPU median delta ms): PostToolUse (Bash) +0.47 /
+1.75 / +0.26, PostToolUse (Edit of a memory file) -0.92 / -1.08 / -2.30, UserPromptSubmit
+5.25 / -1.65 / -0.40 (the first under load average 2.7 on 2 cores; this path runs no detector
code: noise), SessionStart +6.39 / +0.72 / +7.48 (no target). Weights 54 KB (13 authors).

Round 7 (ck/pdet7, 2026-11-26 21:03 UTC, baseline main 07c3751, 30 runs, weights retrained on
sixteen authors, CPU median delta ms): PostToolUse (Bash) +0.04, PostToolUse (Edit of a memory
file) +1.17, UserPromptSubmit -0.16 (within target), SessionStart +0.04 (no target). Weights
64 KB (16 authors).

Round 8 (ck/pdet8, 2026-11-26/27 23:55-00:06 UTC, baseline main dae9373, weights retrained on
eighteen authors, same design, load average about 5 on 2 cores; three runs, 30 / 30 / 40 runs,
the last two with the weights shipped, CPU median delta ms): PostToolUse (Bash) +0.18 / +0.42 /
+1.72, PostToolUse (Edit of a memory file) -0.62 / +4.23 / -1.17, UserPromptSubmit -3.70 / -4.05
/ -5.25, SessionStart +0.93 / -8.16 / -0.67 (no target). None of the three limited paths loads
the scorer (the Edit notice uses the phrase rules alone), so their spread is machine noise; the
weights table grew from 64 KB to 70 KB (18 authors).

Round 9 (ck/pdet9, 2026-11-27 03:23-03:27 UTC, baseline main as of that time, 40 runs, weights
retrained on twenty authors, three phrase rules more; load average 10-13 on 2 cores; CPU median
delta ms): PostToolUse (Bash) +0.10, PostToolUse (Edit of a memory file) -0.60, UserPromptSubmit
-0.34 (within target), SessionStart +4.19 (no target). Weights 77 KB (20 authors).

Round 10 (ck/pdet10, 2026-11-27, baseline main, 40 runs, weights retrained on twenty-two
authors, five phrase rules more (four for other languages, their hints the negated verbs' heads
so a plain English note compiles none of them); load average 11-17 on 2 cores; CPU median delta
ms, two runs, the second with main merged): PostToolUse (Bash) +2.21 / +0.88 (the first over
target on a path that runs no detector code: noise), PostToolUse (Edit of a memory file) +0.47 /
-2.03, UserPromptSubmit +0.20 / -0.44, SessionStart -5.87 / -0.11 (no target). Weights 84 KB.

Round 11 (ck/pdet11, 2026-11-27 08:17-08:30 UTC, baseline main a9fbcff, 40 runs, the table of
unsafe settings read by the scorer (each entry gated by a substring hint, compiled on first use);
load average 10-13 on 2 cores; CPU median delta ms, two runs, the second with the weights
retrained on twenty-four authors): PostToolUse (Bash) +4.24 / +1.56 (the first over target on a
path that runs no detector code: noise), PostToolUse (Edit of a memory file) +0.56 / +0.75,
UserPromptSubmit +0.47 / -1.96, SessionStart -5.23 / +10.29 (no target). ``find_instructions``
in process on train12 and blind11: median 0.80 -> 0.81 ms per entry. Weights 90 KB.

Round 12 (ck/pdet12, 2026-11-27 12:38-12:40 UTC, baseline main 20fd338, 100 runs, the scorer
reading each line of a list note, the protective-act polarity and more unsafe forms, weights
retrained on twenty-five authors; load average 1-3 on 2 cores; CPU median delta ms): PostToolUse
(Bash) -0.23, PostToolUse (Edit of a memory file) -0.26, UserPromptSubmit -0.19 (within target;
none of the three loads the scorer), SessionStart -5.12 (no target; noise). ``find_instructions``
in process (CPU time) on train12, blind11 and blind12: median 0.39 -> 0.39-0.40 ms per entry,
entries of several lines 1.36 -> 1.40 ms. Weights 92 KB.

Round 13 (ck/pdet13, 2026-11-27 15:15-15:19 UTC, baseline main 9ca9afc, 100 runs, the bilingual
glossary (``domain.instruction_glossary``) and weights retrained on twenty-six authors; load
average about 10 on 2 cores; CPU median delta ms): PostToolUse (Bash) +0.61, PostToolUse (Edit
of a memory file) -0.39, UserPromptSubmit +0.23 (within target; none of the three loads the
scorer), SessionStart +0.52 (no target). The glossary's tables are built on the scorer's first
use, about 2 ms CPU; ``find_instructions`` in process (CPU time) on train13 and blind13, two runs
each under that load: median 0.68 / 0.61 -> 0.68 / 0.65 ms per entry. Weights 97 KB.

Round 14 (ck/pdet14, 2026-11-27 17:39-17:43 UTC, 100 runs each, baseline main; weights
retrained on twenty-eight authors, one more phrase rule held outright; load about 6-8 on 2
cores, the trainer's test files running beside it): PostToolUse (Bash) -1.11, PostToolUse (Edit
of a memory file) -1.32, UserPromptSubmit -1.77 (within target), SessionStart -1.23 (no
target): no cost change beyond the noise.

Round 16 (ck/pdet16, 2026-11-27 19:52-19:57 UTC, 100 runs each, baseline main; the character
scorer mixed into the verdict with a 2^18 table, 206 KB, commit a1a1a5b, not shipped and
reverted on the branch; load about 6 on 2 cores): PostToolUse (Bash) -0.84, PostToolUse (Edit
of a memory file) +0.25, UserPromptSubmit +0.21 (within target), SessionStart +0.28 (no target).

Round 17 (ck/pdet17, 2026-11-27 20:18-20:24 UTC, 100 runs each, baseline main; the character
scorer wired in as a mix that only holds more, weight 0.1, bar 0.9365, a 2^18 table of ten
members; not shipped, see HELD_OUT_AUTHORS.md; load 8-12 on 2 cores, two test runs beside it):
PostToolUse (Bash) -0.02, PostToolUse (Edit of a memory file) -0.91, UserPromptSubmit -1.44
(within target), SessionStart -1.10 (no target).

Round 18 (ck/pdet18): not run. The same wiring with notes read together judged on the word
probability was not shipped (a benign note a test pins held; HELD_OUT_AUTHORS.md); what was
kept changes no hook path (``remember``'s reasons, ``import jsonl``'s recorded lines).

This stop, against the previous stop (418bbdb), 2026-11-27 20:58-21:00 UTC, 100 runs each, load
about 2-3 on 2 cores (the character mix shipped; agent shell spans noted; known memory folders
watched around each agent shell command; writes journaled before they change a file). A
shell command's PreToolUse is timed too (no target) and, with ``--known-projects 16``, sixteen
other projects are started first so their memory folders are watched:

    case                                   no other project   16 other projects
    PreToolUse (Bash)                      +0.84              +1.81
    PostToolUse (Bash)                     +0.72              +1.56   (target +2)
    PostToolUse (Edit of a memory file)    +0.80              +1.67   (target +2)
    UserPromptSubmit                       +0.69              +0.59   (target +2)
    SessionStart                           +1.19              +1.33

On the stop's final code (72c0a0c, 21:49-21:51 UTC, load under 1; the watch now also takes a
memory file changed inside an ended agent shell span, from any project, as the agent's):
PostToolUse (Bash) +1.59 with no other project, +2.52 and +1.80 in two runs with sixteen
(at the edge of the +2 ms target: each of the sixteen folders is listed and its files stat'ed
before and after every agent shell command); PostToolUse (Edit) +1.29 / +1.03 and +0.97;
UserPromptSubmit +0.76 / +0.59 and +0.93; PreToolUse (Bash) +0.63 / +1.47 and +1.99. The
watch then keeps the 8 newest folders, not 16 (a folder outside it is still covered at its next
look): 21:53-21:54 UTC, PostToolUse (Bash) +1.15 with no other project and +1.42 (and +1.32, the
trust tests running beside it) with sixteen; Edit +1.20 / +0.72; UserPromptSubmit +0.75 /
+1.18; PreToolUse (Bash) +0.57 / +0.96.

A note's parts read alone (ck/pdet20, round 20, 22:28-22:41 UTC, 100 runs, baseline main, load
11-12): PreToolUse (Bash) -0.37, PostToolUse (Bash) +0.02, PostToolUse (Edit) -0.11,
UserPromptSubmit -0.30 (within target), SessionStart -0.38.

Cheaper hook path (ck/hookcost, 2026-11-27 22:53-23:26 UTC, 100 runs each, load average 10-18
on 2 cores, several benches and test runs beside it; CPU median delta ms; the state file
written over then cut to its length, the watch's start in the tool hook's own state update,
no ``storage.pending`` import). Before (main de75e94) against 6a97ff9, 0 / 16 other projects:
PreToolUse (Bash) +0.03 / +0.14, PostToolUse (Bash) +0.61 / -0.29, Edit +0.88 / +0.19,
UserPromptSubmit +0.73 / +0.34, SessionStart +0.40 / +0.53. After (031fe5f) against 6a97ff9:
Pre -0.22 / +0.13, Post (Bash) -0.22 / -0.57, Edit -0.08 / +0.22, UserPromptSubmit -0.59 /
-0.08, SessionStart +0.01 / -0.62; against main de75e94: Pre -0.49 / -1.13, Post (Bash) +0.02
/ -0.91, Edit +0.08 / -1.17, UserPromptSubmit -0.81 / -0.72, SessionStart +0.09 / -1.06;
against 418bbdb with sixteen: Pre +1.12, Post (Bash) +0.87 (+1.42 and +1.32 before), Edit
+0.68, UserPromptSubmit +1.16, SessionStart +0.38. In process (CPU, 16 known projects): a
shell command's PreToolUse and PostToolUse 5.2 -> 4.4 ms, their state updates 4 -> 2 and
1.13 -> 0.40 ms.

Instruction-file hold (ck/instrfile, 2026-11-28 02:26-02:34 UTC, load average 11-14 on 2
cores, 100 runs, the project now carrying a CLAUDE.md; CPU median delta ms): against its
branch point 906160d: PreToolUse (Bash) -0.06, PostToolUse (Bash) -0.04, Edit of a memory file
+0.18, UserPromptSubmit +0.75, SessionStart +0.25; against main (moved on since, so other
branches' changes are in A): Pre +0.03, Post (Bash) -0.21, Edit -0.08, UserPromptSubmit -0.15,
SessionStart +0.49 (within target). Not in this table: a PostToolUse whose tool changed an
instruction file runs the judgement (the learned scorer's first call, about 11 ms): an Edit of
CLAUDE.md adding a benign line +16.6 ms against 906160d, one adding an order (cut, journal,
review record) +30.6 ms, 30 runs each (before dropping difflib, dataclasses and base64 from
that path: +29.3 / +30.4).

Captured text's look-alike tag check (ck/trustfollow, 2026-11-28 05:40 UTC, baseline main
22fbd99, 100 runs, load average 16 on 2 cores; CPU median delta ms): PostToolUse (Bash) +0.55,
PostToolUse (Bash, non-ASCII output: the case added for it, 3.6 KB with `<` tags) +0.43,
PostToolUse (Edit of a memory file) +0.54, UserPromptSubmit -0.84, SessionStart -0.87: within
target and noise (the ASCII paths run none of it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results" / "poisoning_hook_ab.json"
TARGET_MS = 2.0
LIMITED = (
    "PostToolUse (Bash)",
    "PostToolUse (Bash, non-ASCII output)",
    "PostToolUse (Edit of a memory file)",
    "UserPromptSubmit",
)
# a test run's output as a terminal shows it: check marks, dashes, a German message, generics
# and HTML ("<" the capture's look-alike tag check reads after), about 4 KB
NON_ASCII_OUTPUT = "".join(
    f'✓ Prüfung {n} — OrderList<String> rendered <div class="row">{n}</div> in {n % 7} ms\n'
    for n in range(48)
)


def export(ref: str, into: Path) -> Path:
    """The tree of ``ref`` unpacked into ``into`` (read from git, no checkout touched)."""
    into.mkdir(parents=True, exist_ok=True)
    archive = into / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", ref], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def project(base: Path) -> Path:
    """A git project with a small memory folder."""
    root = base / "proj"
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (memory / "patterns.md").write_text("# Patterns\n- Money is Decimal\n", encoding="utf-8")
    # an instruction file the host loads: its look (a stat per tool) is on the measured paths
    (root / "CLAUDE.md").write_text("# Project\n\n- Use pytest.\n", encoding="utf-8")
    return root


def other_projects(base: Path, count: int) -> list[Path]:
    """``count`` more projects with memory folders, each started once on each side before the
    timed runs: the projects ConKeeper knows, whose memory folders the shell hooks watch."""
    roots = []
    for n in range(count):
        root = base / f"other{n}"
        memory = root / ".claude" / "memory"
        memory.mkdir(parents=True)
        for name in ("patterns.md", "decisions.md", "gotchas.md"):
            (memory / name).write_text(f"# {name}\n- note {n}\n", encoding="utf-8")
        roots.append(root)
    return roots


def payloads(root: Path, runs: int) -> dict[str, list[bytes]]:
    """``runs`` payloads per case, each with its own tool-use id (no de-duplication); a shell
    command's PreToolUse runs before its PostToolUse (all of them first), as a host sends it."""
    common = {"session_id": "ab-1", "transcript_path": str(root / "t.jsonl"), "cwd": str(root)}
    patterns = str(root / ".claude" / "memory" / "patterns.md")
    names = ("PreToolUse (Bash)", *LIMITED, "SessionStart")
    cases: dict[str, list[bytes]] = {name: [] for name in names}
    for i in range(runs):
        cases["PreToolUse (Bash)"].append(
            _dump(common, "PreToolUse", tool_name="Bash", tool_use_id=f"b{i}",
                  tool_input={"command": f"pytest -q tests/test_{i}.py"})
        )  # fmt: skip
        cases["PostToolUse (Bash)"].append(
            _dump(common, "PostToolUse", tool_name="Bash", tool_use_id=f"b{i}",
                  tool_input={"command": f"pytest -q tests/test_{i}.py"},
                  tool_response={"stdout": "3 passed\n", "stderr": "", "interrupted": False})
        )  # fmt: skip
        cases["PostToolUse (Bash, non-ASCII output)"].append(
            _dump(common, "PostToolUse", tool_name="Bash", tool_use_id=f"u{i}",
                  tool_input={"command": f"npm test -- orders_{i}"},
                  tool_response={"stdout": NON_ASCII_OUTPUT, "stderr": "", "interrupted": False})
        )  # fmt: skip
        cases["PostToolUse (Edit of a memory file)"].append(
            _dump(common, "PostToolUse", tool_name="Edit", tool_use_id=f"e{i}",
                  tool_input={"file_path": patterns, "old_string": "# Patterns",
                              "new_string": f"# Patterns\n- Run `make deploy ENV=staging` ({i})"},
                  tool_response={"success": True})
        )  # fmt: skip
        cases["UserPromptSubmit"].append(
            _dump(common, "UserPromptSubmit", prompt=f"add pagination to the orders page ({i})")
        )
        cases["SessionStart"].append(_dump(common, "SessionStart", source="startup"))
    return cases


def _dump(common: dict[str, str], event: str, **fields: object) -> bytes:
    return json.dumps({**common, "hook_event_name": event, **fields}).encode()


def cpu_ms(launcher: Path, event: str, data: bytes, env: dict[str, str]) -> float:
    """CPU (user + system) of one hook process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [str(launcher), event], input=data, env=env, capture_output=True, check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{launcher} {event} failed: {proc.stderr[:300]!r}")
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def main(argv: list[str] | None = None) -> int:
    """Alternate baseline and this tree over every case; print and write the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--baseline-ref", default="main")
    parser.add_argument("--tiny", action="store_true", help="5 runs per case (CI)")
    parser.add_argument(
        "--known-projects", type=int, default=0,
        help="other projects started once before the timed runs (their memory folders watched)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    runs = 5 if args.tiny else args.runs
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        trees = {"A": export(args.baseline_ref, base / "a"), "B": ROOT}
        root = project(base)
        for other in other_projects(base, args.known_projects):
            start = _dump({"session_id": f"s-{other.name}", "cwd": str(other),
                           "transcript_path": str(other / "t.jsonl")},
                          "SessionStart", source="startup")  # fmt: skip
            for side in ("A", "B"):
                cpu_ms(trees[side] / "bin" / "conkeeper-hook", "SessionStart", start,
                       _env(base / side, trees[side]))  # fmt: skip
        results: dict[str, dict[str, float]] = {}
        for case, items in payloads(root, runs).items():
            event = case.split(" ")[0]
            times: dict[str, list[float]] = {"A": [], "B": []}
            for i, data in enumerate(items):
                for side in ("A", "B") if i % 2 == 0 else ("B", "A"):
                    env = _env(base / side, trees[side])
                    times[side].append(
                        cpu_ms(trees[side] / "bin" / "conkeeper-hook", event, data, env)
                    )
            a, b = statistics.median(times["A"]), statistics.median(times["B"])
            results[case] = {"baseline_cpu_ms": round(a, 2), "this_cpu_ms": round(b, 2),
                             "delta_ms": round(b - a, 2)}  # fmt: skip
    print(f"hook CPU median, {args.baseline_ref} (A) against this tree (B), {runs} runs each, "
          f"alternated, {args.known_projects} other projects known;\n"
          f"target: delta ≤ +{TARGET_MS} ms on {', '.join(LIMITED)}")  # fmt: skip
    print(f"{'case':<40} {'A ms':>7} {'B ms':>7} {'delta':>7}")
    for case, row in results.items():
        flag = "" if case not in LIMITED else (" ok" if row["delta_ms"] <= TARGET_MS else " OVER")
        print(f"{case:<40} {row['baseline_cpu_ms']:>7} {row['this_cpu_ms']:>7} "
              f"{row['delta_ms']:>+7}{flag}")  # fmt: skip
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    payload = {"runs": runs, "baseline": args.baseline_ref, "target_ms": TARGET_MS,
               "known_projects": args.known_projects, "when": when, "cases": results}  # fmt: skip
    RESULTS.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


def _env(home: Path, tree: Path) -> dict[str, str]:
    """A private HOME and data folder per side; bytecode kept out of the trees."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CONKEEPER_"))}
    home.mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), CONKEEPER_HOME=str(home / "data"), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


if __name__ == "__main__":
    raise SystemExit(main())
