"""Benchmark secret redaction: quality on the labelled corpus and speed on large logs.

Why: redaction runs on every captured text (prompts, tool output, observations), so it must
catch credentials without mangling ordinary output, and stay fast on megabytes of logs.

Prints per-kind recall, overall recall and the false-positive rate on hard negatives for the
tuning corpus and, apart, for the blind set (``blind.jsonl``: written before the detector learned
its classes and never tuned on, so its figures estimate quality on unseen text), the first-call
cost of ``redact`` on typical hook inputs in a fresh process (patterns compile lazily, only when
their hint words occur), throughput on a generated 5 MB mixed log (and on adversarial inputs, to
show the scan stays linear), and writes bench/results/redaction_quality.json.
Run: ``python bench/redaction_quality.py`` (``--quality-only`` skips the timings).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from conkeeper.domain.secrets import SECRET_KINDS, find_secrets, redact  # noqa: E402

DATA = ROOT / "tests" / "data" / "secrets"
RESULTS = Path(__file__).resolve().parent / "results" / "redaction_quality.json"
LOG_BYTES = 5 * 1024 * 1024
SECRET_LINE_SHARE = 0.03


def load_generator() -> ModuleType:
    """The corpus generator doubles as the source of fresh secrets for the mixed log."""
    spec = importlib.util.spec_from_file_location("secrets_make_corpus", DATA / "make_corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def covered(text: str, value: str) -> bool:
    """Some occurrence of ``value`` is inside one match and gone from the redacted text."""
    matches = find_secrets(text)
    pos = text.find(value)
    while pos >= 0:
        if any(m.start <= pos and m.end >= pos + len(value) for m in matches):
            return value not in redact(text)
        pos = text.find(value, pos + 1)
    return False


def load_cases(name: str) -> list[dict]:
    """One labelled JSONL set from tests/data/secrets."""
    text = (DATA / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def corpus_quality(cases: list[dict]) -> dict:
    """Per-kind and overall recall on positives; false-positive rate on negatives."""
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    missed: list[str] = []
    for case in cases:
        for secret in case["secrets"]:
            total[secret["kind"]] += 1
            hit = covered(case["text"], secret["value"])
            found[secret["kind"]] += hit
            if not hit:
                missed.append(case["note"])
    negatives = [c for c in cases if not c["secrets"]]
    flagged = [c["note"] for c in negatives if redact(c["text"]) != c["text"]]
    return {
        "per_kind": {k: {"found": found[k], "total": total[k]} for k in SECRET_KINDS if total[k]},
        "recall": sum(found.values()) / max(1, sum(total.values())),
        "missed": missed,
        "labelled_secrets": sum(total.values()),
        "negatives": len(negatives),
        "false_positives": flagged,
        "false_positive_rate": len(flagged) / max(1, len(negatives)),
    }


def ordinary_line(rng: random.Random, gen: ModuleType, n: int) -> str:
    """A log line of the kind tools print all day: requests, builds, git, tests, tracebacks."""
    sha, uid = gen.chars(rng, gen.HEX, 40), gen._uuid(rng)
    choices = [
        f"2024-06-{n % 28 + 1:02d}T12:{n % 60:02d}:07Z INFO GET /api/v1/items/{n} 200 "
        f"{rng.randint(1, 900)}ms request_id={uid}",
        f"commit {sha} (HEAD -> main, origin/main)",
        f"tests/test_api.py::test_case_{n} PASSED [{n % 100:3d}%]",
        f'  File "/app/src/service_{n % 40}.py", line {n % 500}, in handle',
        f"npm WARN deprecated pkg-{n}@1.{n % 9}.0: use pkg-next instead",
        f"sha256:{gen.chars(rng, gen.HEX, 64)} layer {n % 12} pushed",
        f"DEBUG cache hit key=user:{n}:profile ttl=300 size={rng.randint(100, 9999)}",
        f"[{n}] compiling src/components/Widget{n % 70}.tsx ({rng.randint(1, 90)} kB)",
        f"WARN token bucket refill rate=10/s burst=20 tokens_left={n % 20}",
        f"Downloading https://files.pythonhosted.org/packages/{sha[:2]}/{sha[2:4]}/lib-{n}.whl",
    ]
    return rng.choice(choices)


def mixed_log(gen: ModuleType, size: int, seed: int = 7) -> tuple[str, int]:
    """``size`` characters of log output with a secret on about 3% of the lines."""
    rng = random.Random(seed)
    lines: list[str] = []
    length = secrets = 0
    n = 0
    while length < size:
        if rng.random() < SECRET_LINE_SHARE:
            snippet, _value = gen.SNIPPETS[rng.choice(SECRET_KINDS)](rng)
            line = f"2024-06-01T00:00:00Z DEBUG loaded config {snippet}"
            secrets += 1
        else:
            line = ordinary_line(rng, gen, n)
        lines.append(line)
        length += len(line) + 1
        n += 1
    return "\n".join(lines), secrets


def throughput(text: str, repeats: int = 1) -> float:
    """MB/s of ``redact`` (best of ``repeats``), the function every capture path calls."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        redact(text)
        best = min(best, time.perf_counter() - start)
    return len(text.encode("utf-8")) / 1e6 / best


def adversarial_inputs(n: int = 1_000_000) -> dict[str, str]:
    """``n``-character (1 MB) inputs built to provoke backtracking; all must stay linear."""
    return {
        "single char": "a" * n,
        "repeated eyJ": "eyJ" * (n // 3),
        "repeated sk-": "sk-" * (n // 3),
        "BEGIN without END": "-----BEGIN RSA PRIVATE KEY-----\n" * (n // 32),
        "password= chain": "password=" * (n // 9),
        "scheme://user: chain": "a://b:" * (n // 6),
        "Bearer chain": "Bearer " * (n // 7),
        "base64 run": "QUJD" * (n // 4),
        "mysql -p chain": "mysql -p" * (n // 8),
    }


# Typical hook inputs: most tool output holds no hint word, so no pattern should compile.
HOOK_SAMPLES = {
    "ls": "ls -la src/",
    "git status": "git status\nOn branch main\nnothing to commit, working tree clean",
    "pytest": "tests/test_api.py::test_x PASSED\n" * 40,
    "python edit": "def handle(request):\n    return render(request, 'i.html', {'a': a})\n" * 10,
    "npm install": "npm WARN deprecated pkg@1.0.0: use pkg-next\nadded 312 packages in 4s\n",
    "git log": "git log --oneline -3\nc79f477 Migration 3\na1d9004 Architecture doc\n",
    "mkdir -p": "mkdir -p build && cp -r src build/",
    "yaml config": "server:\n  host: 0.0.0.0\n  port: 8080\nlog:\n  level: info\n",
}

_HOOK_PROBE = r"""
import gc, json, sys, time
from conkeeper.domain import secrets
from conkeeper.domain.lazy_re import LazyPattern
text = sys.stdin.read()
start = time.perf_counter()
secrets.redact(text)
elapsed = time.perf_counter() - start
compiled = sum(1 for o in gc.get_objects() if isinstance(o, LazyPattern) and o._compiled)
print(json.dumps({"ms": elapsed * 1e3, "compiled": compiled}))
"""


def hook_path_cost(runs: int = 15) -> dict[str, dict]:
    """First ``redact`` call in a fresh ``python -S`` process, as a hook makes it: the median
    time (lazy compilation included) and how many patterns it compiled."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    out: dict[str, dict] = {}
    for name, text in HOOK_SAMPLES.items():
        rows = [
            json.loads(
                subprocess.run(
                    [sys.executable, "-S", "-c", _HOOK_PROBE],
                    input=text,
                    capture_output=True,
                    text=True,
                    check=True,
                    env=env,
                ).stdout
            )
            for _ in range(runs)
        ]
        ms = statistics.median(r["ms"] for r in rows)
        out[name] = {"first_call_ms": ms, "patterns_compiled": rows[0]["compiled"]}
    return out


def print_quality(title: str, quality: dict) -> None:
    print(f"== {title}")
    print(f"{'kind':22} {'found':>5} {'total':>5} {'recall':>7}")
    for kind, row in quality["per_kind"].items():
        recall = row["found"] / row["total"] if row["total"] else float("nan")
        print(f"{kind:22} {row['found']:5d} {row['total']:5d} {recall:7.3f}")
    print("-" * 42)
    labelled = quality["labelled_secrets"]
    print(f"{'overall recall':22} {quality['recall']:19.3f}  ({labelled} secrets)")
    fp_rate = quality["false_positive_rate"]
    print(f"{'false-positive rate':22} {fp_rate:19.3f}  ({quality['negatives']} negatives)")
    if quality["missed"]:
        print(f"  missed: {', '.join(quality['missed'])}")
    if quality["false_positives"]:
        print(f"  false positives: {', '.join(quality['false_positives'])}")


def print_timings(hook: dict[str, dict], log_info: dict, adversarial: dict[str, float]) -> None:
    print("== hook path: first redact() in a fresh process")
    for name, row in hook.items():
        print(
            f"  {name:14} {row['first_call_ms']:7.2f} ms  "
            f"{row['patterns_compiled']} patterns compiled"
        )
    print(
        f"{'throughput (5 MB log)':22} {log_info['mb_per_s']:14.2f} MB/s"
        f"  ({log_info['secrets']} secrets, {log_info['found']} cuts)"
    )
    for name, speed in adversarial.items():
        print(f"  adversarial {name:22} {speed:8.2f} MB/s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality-only", action="store_true", help="skip the timings")
    parser.add_argument("--tiny", action="store_true", help="timings on 1/50 of the data (CI)")
    args = parser.parse_args(argv)
    results = RESULTS.with_suffix(".tiny.json") if args.tiny else RESULTS
    tuning = corpus_quality(load_cases("corpus.jsonl"))
    blind = corpus_quality(load_cases("blind.jsonl"))
    print_quality("tuning corpus (corpus.jsonl)", tuning)
    print_quality("BLIND set (blind.jsonl, never tuned on)", blind)
    payload: dict = {"python": platform.python_version(), "tuning": tuning, "blind": blind}
    if not args.quality_only:
        payload.update(timings(tiny=args.tiny))
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {results.relative_to(ROOT)}")
    return 0


def timings(tiny: bool = False) -> dict:
    """Hook-path cost, mixed-log throughput and adversarial throughput, printed and returned
    (``tiny``: one run per hook sample, 1/50 of the log and adversarial sizes)."""
    gen = load_generator()
    hook = hook_path_cost(runs=1 if tiny else 15)
    log, planted = mixed_log(gen, LOG_BYTES // 50 if tiny else LOG_BYTES)
    log_info = {
        "bytes": len(log.encode("utf-8")),
        "secrets": planted,
        "found": len(find_secrets(log)),
        "mb_per_s": throughput(log, repeats=2),
    }
    size = 20_000 if tiny else 1_000_000
    adversarial = {name: throughput(text) for name, text in adversarial_inputs(size).items()}
    print_timings(hook, log_info, adversarial)
    return {"hook_path": hook, "mixed_log": log_info, "adversarial_mb_per_s": adversarial}


if __name__ == "__main__":
    sys.exit(main())
