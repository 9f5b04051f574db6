"""Viewer benchmark: server time of every page with 100k observations in the database.

Target (issue 14): every page renders in ≤ 150 ms of server time with 100k observations. Each
request goes through the whole application (security guard, routing, services, templates,
privacy on every printed value) in-process over ASGI, so the figure is server time without the
network or the browser. The memory folder holds 200 files for the memory and search pages.

Run: ``python bench/viewer_bench.py [--observations 100000] [--runs 30]``; needs the ``viewer``
extra; writes bench/results/viewer_bench.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

TARGET_MS = 150.0


def _memory_files(memory: Path, count: int) -> None:
    for i in range(count):
        folder = memory / ("sessions" if i % 4 == 0 else "notes")
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"# Notes {i}", "", "## Conventions", "<!-- @category: convention -->"]
        lines += [
            f"- Use the cache helper for module {i}-{j} when tokens expire" for j in range(30)
        ]
        (folder / f"2026-01-{i % 28 + 1:02d}-notes-{i}.md").write_text("\n".join(lines) + "\n")
    (memory / "corrections-queue.md").write_text(
        "# Corrections Queue\n\n"
        + "".join(
            f'- **2026-11-2{i % 9} 10:00:00** | correction | "use the repository helper {i}" | '
            "ref: previous assistant message\n"
            for i in range(20)
        )
    )


async def _get(app: Any, path: str, cookie: str, host: str) -> tuple[int, float]:
    raw_path, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": raw_path,
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "headers": [(b"host", host.encode()), (b"cookie", cookie.encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8),
    }
    status = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    start = time.perf_counter()
    await app(scope, receive, send)
    return status, (time.perf_counter() - start) * 1000


def bench(observations: int, runs: int) -> dict[str, Any]:
    from conkeeper.domain.paths import ProjectLocation
    from conkeeper.viewer.app import create_app
    from conkeeper.viewer.security import COOKIE_NAME, Secrets
    from observations_bench import build_large_store

    start = time.perf_counter()
    project_id, ids = build_large_store(observations)
    built = time.perf_counter() - start
    from conkeeper.storage.store import open_store

    conn = open_store()
    own = conn.execute(
        "SELECT id FROM observations WHERE project_id = ? ORDER BY id DESC LIMIT 1", (project_id,)
    ).fetchone()[0]
    conn.close()
    root = Path(os.environ["HOME"]) / "p0"
    memory = root / ".claude" / "memory"
    _memory_files(memory, 200)
    keys = Secrets()
    app = create_app(ProjectLocation(root, "/p0", memory), Path(os.environ["HOME"]), keys, 8)
    cookie = f"{COOKIE_NAME}={keys.session}"
    pages = {
        "timeline": "/",
        "timeline ?type=bugfix": "/?type=bugfix",
        "timeline ?concept=caching": "/?concept=caching",
        "timeline ?file=src/auth/cache.py": "/?file=src/auth/cache.py",
        "observation (full record)": f"/observation/{own}",
        "observation fragment": f"/observation/{own}?fragment=1",
        "search (memory)": "/search?q=cache+helper+tokens",
        "search (with sessions)": "/search?q=why+does+the+cache+retry&sessions=1",
        "memory list (200 files)": "/memory",
        "memory file": "/memory/file?path=notes/2026-01-02-notes-1.md",
        "retros": "/retros",
        "corrections queue": "/queue",
    }
    loop = asyncio.new_event_loop()
    medians: dict[str, float] = {}
    first: dict[str, float] = {}
    for name, path in pages.items():
        status, cold = loop.run_until_complete(_get(app, path, cookie, "127.0.0.1:8"))
        assert status == 200, (name, status)
        first[name] = round(cold, 2)
        samples = [
            loop.run_until_complete(_get(app, path, cookie, "127.0.0.1:8"))[1] for _ in range(runs)
        ]
        medians[name] = round(statistics.median(samples), 2)
    loop.close()
    return {
        "observations": len(ids),
        "build_s": round(built, 1),
        "median_ms": medians,
        "first_ms": first,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--tiny", action="store_true", help="200 observations, 3 runs (CI smoke)")
    args = parser.parse_args()
    if args.tiny:
        args.observations, args.runs = 200, 3
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CONKEEPER_HOME"] = str(Path(tmp) / "data")
        os.environ["HOME"] = tmp
        result = bench(args.observations, args.runs)
    width = max(len(name) for name in result["median_ms"])
    print(f"Viewer server time, median of {args.runs}, {result['observations']} observations")
    print(f"{'page':<{width}}  {'first':>10}  {'median':>10}  target     ok")
    for name, ms in result["median_ms"].items():
        cold = result["first_ms"][name]
        verdict = "yes" if ms <= TARGET_MS else "NO"
        print(f"{name:<{width}}  {cold:>7.2f} ms  {ms:>7.2f} ms  ≤ {TARGET_MS:.0f} ms  {verdict}")
    result["target_ms"] = TARGET_MS
    result["all_within_target"] = all(ms <= TARGET_MS for ms in result["median_ms"].values())
    out = ROOT / "bench" / "results" / "viewer_bench.json"
    if args.tiny:
        out = out.with_suffix(".tiny.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0 if result["all_within_target"] or args.tiny else 1


if __name__ == "__main__":
    raise SystemExit(main())
