"""Every benchmark in ``bench/`` still runs: each one, at its tiny size, as a process.

Why: a benchmark nobody runs rots silently (``session_start_bench.py`` once imported a function
that had moved, and crashed for weeks). The files are found by globbing, so a new benchmark is
covered the day it lands. The convention each one follows:

* ``--tiny`` runs it on a small generated data set in seconds (timings at that size are not
  judged: the exit code is 0 whatever the budgets say), needing no network and no downloaded
  data, and writes ``bench/results/<name>.tiny.json`` rather than the real results;
* a benchmark that needs something this machine may lack (a service, a checkout it never
  copies) exits with :data:`SKIPPED` and says why on stderr; the test then skips with that reason.

Helper scripts that are not benchmarks (run by one) are listed in :data:`HELPERS`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SKIPPED = 77
HELPERS = {"search_floor.py": "the floor search_bench.py times; run by it"}
BENCHES = sorted(
    p.name for p in BENCH.glob("*.py") if not p.name.startswith("_") and p.name not in HELPERS
)
# Any HTTP(S) request through the standard library to another host fails fast instead of
# reaching out; loopback (a bench's own server) stays direct.
NO_NETWORK = {
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "no_proxy": "127.0.0.1,localhost,::1",
    "NO_PROXY": "127.0.0.1,localhost,::1",
}


def test_the_glob_finds_the_benchmarks() -> None:
    """The discovery itself works (a broken glob would make every other test vanish)."""
    assert "session_start_bench.py" in BENCHES
    assert "locomo_bench.py" in BENCHES
    assert "search_floor.py" not in BENCHES


@pytest.mark.parametrize("name", BENCHES)
def test_bench_runs_tiny(name: str, tmp_path: Path) -> None:
    """``python bench/NAME --tiny`` exits 0 (or skips with a reason) in a fresh data home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CONKEEPER"))}
    env.update(
        HOME=str(tmp_path / "home"),
        CONKEEPER_HOME=str(tmp_path / "data"),
        XDG_DATA_HOME=str(tmp_path / "home" / ".local" / "share"),
        **NO_NETWORK,
    )
    (tmp_path / "home").mkdir(exist_ok=True)
    started = time.time()
    proc = subprocess.run(
        [sys.executable, str(BENCH / name), "--tiny"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode == SKIPPED:
        pytest.skip(f"{name}: {proc.stderr.strip() or 'skipped without a reason'}")
    assert proc.returncode == 0, (
        f"{name} --tiny failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    assert proc.stdout.strip(), f"{name} --tiny printed no table"
    results = BENCH / "results" / f"{Path(name).stem}.tiny.json"
    if results.exists() and results.stat().st_mtime >= started - 1:
        json.loads(results.read_text(encoding="utf-8"))
