"""How well the local extractor captures replayed sessions with known outcomes, and at what
token cost compared with the raw log.

Each recording in ``tests/data/sessions/*.json`` is replayed through the real capture path
(redaction, truncation) into a temporary store, extracted, and scored against its
``expected`` block: files, failures (error text in a fact), fixes (a bugfix naming the file),
commits (message in a fact) and observation types. Token costs use the CLI's estimate
(about four characters a token) for level 3 (titles), level 5 (full) and the raw log.

Run: ``python bench/extraction_quality.py``; writes bench/results/extraction_quality.json.
``--tiny`` (CI smoke) scores only the first recording.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def _share(found: int, total: int) -> str:
    return f"{found}/{total}" if total else "—"


def score(conn, session_id: int, expected: dict) -> dict:
    from conkeeper.domain.observations import json_list

    rows = conn.execute(
        "SELECT type, title, subtitle, facts, narrative, files FROM observations "
        "WHERE session_id = ?",
        (session_id,),
    ).fetchall()
    files = {f for r in rows for f in json_list(r["files"])}
    texts = " ".join(r["subtitle"] + " " + " ".join(json_list(r["facts"])) for r in rows)
    bugfix_files = {f for r in rows if r["type"] == "bugfix" for f in json_list(r["files"])}
    types = {r["type"] for r in rows}
    return {
        "observations": len(rows),
        "files": (sum(f in files for f in expected["files"]), len(expected["files"])),
        "failures": (sum(f in texts for f in expected["failures"]), len(expected["failures"])),
        "fixes": (
            sum(x["file"] in bugfix_files for x in expected["fixes"]),
            len(expected["fixes"]),
        ),
        "commits": (sum(c in texts for c in expected["commits"]), len(expected["commits"])),
        "types": (len(set(expected["types"]) & types), len(expected["types"])),
        "rows": rows,
    }


def token_costs(rows, raw: str) -> dict:
    from conkeeper.cli.output import estimate_tokens
    from conkeeper.domain.observations import json_list

    titles = "\n".join(f"#0 {r['type']} {r['title']}" for r in rows)
    full = "\n\n".join(
        "\n".join(
            [
                r["title"],
                r["subtitle"],
                *json_list(r["facts"]),
                r["narrative"],
                ", ".join(json_list(r["files"])),
            ]
        )
        for r in rows
    )
    return {
        "raw_tokens": estimate_tokens(raw),
        "level3_tokens": estimate_tokens(titles),
        "level5_tokens": estimate_tokens(full),
    }


def main() -> int:
    """Replay, extract and score every recording; print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="only the first recording (CI)")
    args = parser.parse_args()
    recordings = sorted((ROOT / "tests" / "data" / "sessions").glob("*.json"))
    if args.tiny:
        recordings = recordings[:1]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CONKEEPER_HOME"] = tmp
        os.environ["HOME"] = tmp
        from conkeeper.services.observations.extract import extract_session
        from conkeeper.services.observations.replay import load_recording, raw_log_text, replay
        from conkeeper.storage.store import open_store

        conn = open_store()
        results = []
        for path in recordings:
            recording = load_recording(path)
            session_id = replay(conn, recording)
            extract_session(conn, session_id)
            scored = score(conn, session_id, recording["expected"])
            costs = token_costs(scored.pop("rows"), raw_log_text(recording))
            results.append({"session": path.stem, **scored, **costs})
        conn.close()
    header = (
        f"{'session':<24} {'obs':>3} {'files':>6} {'fails':>6} {'fixes':>6} {'commits':>7} "
        f"{'types':>6} {'raw tok':>8} {'L3 tok':>7} {'L5 tok':>7} {'L5/raw':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r['session']:<24} {r['observations']:>3} {_share(*r['files']):>6} "
            f"{_share(*r['failures']):>6} {_share(*r['fixes']):>6} {_share(*r['commits']):>7} "
            f"{_share(*r['types']):>6} {r['raw_tokens']:>8} {r['level3_tokens']:>7} "
            f"{r['level5_tokens']:>7} {r['level5_tokens'] / r['raw_tokens']:>7.1%}"
        )
    totals = {
        k: (sum(r[k][0] for r in results), sum(r[k][1] for r in results))
        for k in ("files", "failures", "fixes", "commits", "types")
    }
    raw = sum(r["raw_tokens"] for r in results)
    l3 = sum(r["level3_tokens"] for r in results)
    l5 = sum(r["level5_tokens"] for r in results)
    print("-" * len(header))
    print(
        f"{'total':<24} {sum(r['observations'] for r in results):>3} "
        + " ".join(
            f"{_share(*totals[k]):>{w}}"
            for k, w in (("files", 6), ("failures", 6), ("fixes", 6), ("commits", 7), ("types", 6))
        )
        + f" {raw:>8} {l3:>7} {l5:>7} {l5 / raw:>7.1%}"
    )
    out = ROOT / "bench" / "results" / "extraction_quality.json"
    if args.tiny:
        out = out.with_suffix(".tiny.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "sessions": results,
        "totals": totals,
        "raw_tokens": raw,
        "level3_tokens": l3,
        "level5_tokens": l5,
    }
    out.write_text(json.dumps(payload, indent=2))
    print(f"\nwrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
