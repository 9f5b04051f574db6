"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round four: cases a checker
would try that still came out wrong through the real entry points (hooks run as subprocesses
with each host's payloads, then the CLI), each failing before its fix.

* ``consolidate --apply`` deleted the entry with more detail of two about the same names:
  "Dates are stored in UTC." was kept and "Dates are stored in UTC, displayed in the user's
  time zone." removed (the pair was a duplicate "about the same names", whose merge kept the
  first line, not the longer one).
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli


def test_a_merge_keeps_the_entry_with_more_detail(tmp_path: Path) -> None:
    root = tmp_path / "web"
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", "--yes", cwd=root).returncode == 0
    patterns = root / ".claude" / "memory" / "patterns.md"
    pairs = [
        ("- Dates are stored in UTC.",
         "- Dates are stored in UTC, displayed in the user's time zone."),
        ("- Logging goes through structlog.",
         "- Request logging goes through structlog with the request id bound."),
        ("- State lives in Zustand stores.", "- Global state goes in Zustand stores."),
    ]  # fmt: skip
    body = "".join(f"{short}\n{long}\n" for short, long in pairs)
    patterns.write_text(patterns.read_text(encoding="utf-8") + f"\n## Data\n\n{body}")
    shown = json.loads(run_cli("consolidate", "--json", cwd=root).stdout)["proposals"]
    assert {(p["remove_text"], p["keep_text"]) for p in shown} == set(pairs)
    assert run_cli("consolidate", "--apply", cwd=root).returncode == 0
    text = patterns.read_text(encoding="utf-8")
    for short, long in pairs:
        assert f"{long}\n" in text and f"{short}\n" not in text
