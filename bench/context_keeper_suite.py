"""Run the original bash ConKeeper's own test suite against this ConKeeper, through thin shims.

The bash plugin (swannysec/context-keeper) ships ~160 shell checks under ``tests/``. They call
its entry points by path: ``hooks/session-start.sh``, ``hooks/stop.sh``,
``hooks/post-tool-use.sh``, ``hooks/user-prompt-submit.sh``, ``hooks/pre-compact.sh``,
``hooks/lib-privacy.sh`` (sourced), ``tools/memory-search.sh``, and read its documents
(``hooks/hooks.json``, ``skills/*/SKILL.md``, ``core/memory/templates``, ``core/memory/schema.md``).

This script copies a checkout of that repository to a temporary folder, replaces every entry
point with a shim of a few lines that runs ConKeeper with the same stdin/argument/environment
contract (the bash hooks read ``$PWD`` as the project and may get no payload on stdin; ConKeeper
reads the payload's ``cwd``, else ``CLAUDE_PROJECT_DIR``), replaces the documents with
ConKeeper's own, runs every test script, and reports pass/fail per phase and every failing
check. The shims hold no feature logic: a check that fails because ConKeeper lacks the
behaviour is fixed in ConKeeper, never here. Nothing of the bash repository is copied into
this one; it is read from the checkout given on the command line.

Usage: ``python bench/context_keeper_suite.py PATH_TO_CHECKOUT [--original] [--keep]``.
``--original`` runs the unmodified bash plugin instead (the baseline on this machine).
Prints a table and writes ``bench/results/context_keeper_suite.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = 77  # the exit code tests/test_benches.py reads as "skipped, reason on stderr"
SRC = ROOT / "src"
RESULTS = ROOT / "bench" / "results" / "context_keeper_suite.json"
SCRIPT_TIMEOUT = 600

# bash entry point -> ConKeeper hook event (the Claude Code event names)
HOOK_SHIMS = {
    "hooks/session-start.sh": "SessionStart",
    "hooks/user-prompt-submit.sh": "UserPromptSubmit",
    "hooks/post-tool-use.sh": "PostToolUse",
    "hooks/pre-compact.sh": "PreCompact",
    "hooks/stop.sh": "Stop",
}

# A hook shim: the bash hooks take the project from $PWD and may be run with nothing on stdin;
# ConKeeper's hooks take it from the payload's cwd, else CLAUDE_PROJECT_DIR.
HOOK_TEMPLATE = """#!/usr/bin/env bash
# shim: {path} -> conkeeper hook {event}
payload=$(cat)
[ -n "$payload" ] || payload='{{}}'{rename}
printf '%s' "$payload" | CLAUDE_PROJECT_DIR="${{CLAUDE_PROJECT_DIR:-$PWD}}" \\
  "${{CONKEEPER_PYTHON:-python3}}" -m conkeeper hook {event}{redirect}
"""

# UserPromptSubmit: the bash hook reads the prompt from ``user_message``; Claude Code sends it
# as ``prompt`` (spec section 6), which is what ConKeeper reads. The shim renames the field.
PROMPT_RENAME = """
payload=$(printf '%s' "$payload" | "${CONKEEPER_PYTHON:-python3}" -c '
import json, sys
raw = sys.stdin.read()
try:
    obj = json.loads(raw)
except ValueError:
    obj = None
if isinstance(obj, dict) and "user_message" in obj and "prompt" not in obj:
    obj["prompt"] = obj.pop("user_message")
    raw = json.dumps(obj)
sys.stdout.write(raw)')"""

# Stop: the bash hook's message goes to stderr; ConKeeper's Stop speaks JSON on stdout
# (systemMessage), which is what Claude Code shows. The shim hands it to the channel the
# bash contract uses.
STOP_REDIRECT = " 1>&2"

SEARCH_SHIM = """#!/usr/bin/env bash
# shim: tools/memory-search.sh -> ConKeeper's own tools/memory-search.sh (conkeeper search)
exec bash "{ours}" "$@"
"""

PRIVACY_SHIM = """#!/usr/bin/env bash
# shim: hooks/lib-privacy.sh -> conkeeper privacy strip (the one privacy module)
strip_private() {{
    "${{CONKEEPER_PYTHON:-python3}}" -m conkeeper privacy strip /dev/stdin
}}
is_file_private() {{
    "${{CONKEEPER_PYTHON:-python3}}" -m conkeeper privacy strip --json "$1" 2>/dev/null \\
      | "${{CONKEEPER_PYTHON:-python3}}" -c \\
        'import json,sys; sys.exit(0 if json.load(sys.stdin)["private"] else 1)'
}}
"""

CONFIG_SHIM = """#!/usr/bin/env bash
# shim: hooks/lib-config.sh -- ConKeeper reads .memory-config.md itself (domain.config);
# nothing to source.
"""

# bash documents -> ConKeeper's own (relative to this repository)
DOCUMENTS = {
    "hooks/hooks.json": "hooks/hooks.json",
    "core/memory/schema.md": "src/conkeeper/domain/templates/schema.md",
    # one memory-sync skill serves every host (no per-platform copies to drift apart)
    "platforms/codex/.codex/skills/memory-sync/SKILL.md": "skills/memory-sync/SKILL.md",
    "platforms/copilot/.github/skills/memory-sync/SKILL.md": "skills/memory-sync/SKILL.md",
    "platforms/cursor/.cursor/skills/memory-sync/SKILL.md": "skills/memory-sync/SKILL.md",
}

RESULT_LINE = re.compile(r"=== Results: (\d+) passed, (\d+) failed ===")


def install_shims(tree: Path) -> list[str]:
    """Replace the bash plugin's entry points and documents in ``tree``; returns what changed."""
    changed = []
    for rel, event in HOOK_SHIMS.items():
        redirect = STOP_REDIRECT if event == "Stop" else ""
        rename = PROMPT_RENAME if event == "UserPromptSubmit" else ""
        text = HOOK_TEMPLATE.format(path=rel, event=event, redirect=redirect, rename=rename)
        _write(tree / rel, text)
        changed.append(rel)
    _write(
        tree / "tools/memory-search.sh", SEARCH_SHIM.format(ours=ROOT / "tools/memory-search.sh")
    )
    _write(tree / "hooks/lib-privacy.sh", PRIVACY_SHIM.format())
    _write(tree / "hooks/lib-config.sh", CONFIG_SHIM)
    changed += ["tools/memory-search.sh", "hooks/lib-privacy.sh", "hooks/lib-config.sh"]
    for rel, ours in DOCUMENTS.items():
        target = tree / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / ours, target)
        changed.append(rel)
    _replace_dir(tree / "skills", ROOT / "skills")
    templates = tree / "core/memory/templates"
    shutil.rmtree(templates, ignore_errors=True)
    templates.mkdir(parents=True)
    for path in sorted((SRC / "conkeeper/domain/templates").glob("*.md")):
        if path.name != "schema.md":
            shutil.copyfile(path, templates / path.name)
    changed += ["skills/", "core/memory/templates/"]
    return changed


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def _replace_dir(target: Path, source: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)


def test_scripts(tree: Path) -> list[Path]:
    """The suite's scripts: the functional flows, then each phase in order."""
    scripts = sorted((tree / "tests/functional").glob("test-*.sh"))
    return scripts + sorted((tree / "tests").glob("phase-*/test-*.sh"))


def run_script(script: Path, tree: Path, work: Path) -> dict[str, object]:
    """Run one test script in an isolated HOME/TMPDIR/CONKEEPER_HOME; parse its checks."""
    env = dict(os.environ)
    for name in ("CLAUDE_PROJECT_DIR", "CONKEEPER_DISABLE_HOOKS", "ANTHROPIC_MODEL"):
        env.pop(name, None)
    home, tmp, data = work / "home", work / "tmp", work / "data"
    for folder in (home, tmp, data):
        folder.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        TMPDIR=str(tmp),
        CONKEEPER_HOME=str(data),
        PYTHONPATH=str(SRC) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""),
    )
    started = time.monotonic()
    try:
        proc = subprocess.run(
            ["bash", str(script)],
            cwd=tree,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SCRIPT_TIMEOUT,
        )
        out, code = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out, code = str(exc.stdout or ""), -1
    passed = [line[6:] for line in out.splitlines() if line.startswith("PASS: ")]
    failed = [line[6:] for line in out.splitlines() if line.startswith("FAIL: ")]
    match = RESULT_LINE.search(out)
    return {
        "script": script.relative_to(tree).as_posix(),
        "phase": script.parent.name,
        "passed": len(passed),
        "failed": len(failed),
        "failing": failed,
        "completed": match is not None,
        "exit_code": code,
        "seconds": round(time.monotonic() - started, 1),
    }


def run_suite(checkout: Path, original: bool, keep: bool) -> dict[str, object]:
    """Copy ``checkout``, shim it (unless ``original``), run every script; the results."""
    work = Path(tempfile.mkdtemp(prefix="ck-suite-"))
    tree = work / "context-keeper"
    shutil.copytree(checkout, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    shimmed = [] if original else install_shims(tree)
    phases = []
    try:
        for index, script in enumerate(test_scripts(tree)):
            phases.append(run_script(script, tree, work / f"run-{index}"))
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return {
        "target": "bash context-keeper (original)" if original else "ConKeeper through shims",
        "checkout": str(checkout),
        "shimmed": shimmed,
        "passed": sum(int(p["passed"]) for p in phases),  # type: ignore[call-overload]
        "failed": sum(int(p["failed"]) for p in phases),  # type: ignore[call-overload]
        "phases": phases,
        "work_dir": str(work) if keep else None,
    }


def print_table(result: dict[str, object]) -> None:
    """The per-phase table and the failing checks."""
    phases: list[dict[str, object]] = result["phases"]  # type: ignore[assignment]
    print(f"{result['target']}: {result['checkout']}")
    print(f"{'phase':<28} {'pass':>5} {'fail':>5}  note")
    for phase in phases:
        note = "" if phase["completed"] else "script stopped early"
        print(f"{phase['phase']:<28} {phase['passed']:>5} {phase['failed']:>5}  {note}")
    print(f"{'total':<28} {result['passed']:>5} {result['failed']:>5}")
    for phase in phases:
        for name in phase["failing"]:  # type: ignore[attr-defined]
            print(f"FAIL [{phase['phase']}] {name}")


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run, print, write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "checkout", type=Path, nargs="?", help="a checkout of swannysec/context-keeper"
    )
    parser.add_argument(
        "--tiny", action="store_true", help="CI smoke: skips (exit 77) when no checkout is given"
    )
    parser.add_argument("--original", action="store_true", help="run the bash plugin unshimmed")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args(argv)
    if args.checkout is None:
        if args.tiny:
            print(
                "skipped: no context-keeper checkout given (it is never copied here)",
                file=sys.stderr,
            )
            return SKIPPED
        parser.error("give the path of a context-keeper checkout")
    if args.tiny and args.output == RESULTS:
        args.output = RESULTS.with_suffix(".tiny.json")
    checkout = args.checkout.resolve()
    if not (checkout / "tests").is_dir() or not (checkout / "hooks").is_dir():
        print(f"error: {checkout} is not a context-keeper checkout", file=sys.stderr)
        return 2
    result = run_suite(checkout, args.original, args.keep)
    print_table(result)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
