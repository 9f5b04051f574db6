"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round four: cases a checker
would try that still came out wrong through the real entry points (hooks run as subprocesses
with each host's payloads, then the CLI), each failing before its fix.

* ``consolidate --apply`` deleted the entry with more detail of two about the same names:
  "Dates are stored in UTC." was kept and "Dates are stored in UTC, displayed in the user's
  time zone." removed (the pair was a duplicate "about the same names", whose merge kept the
  first line, not the longer one);
* ``reflect approve`` wrote "Print nahi." into ``patterns.md`` from corrections in Hindi written
  in Latin script ("hamesha `logging` use karo, print nahi": always use logging, not print):
  the clause "print nahi" was read as an English order opening on "print", and the rule lost
  what to use; such clauses are not read by the English readings, and approval asks for the
  rule in the user's words.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from test_e2e_session import set_up_project
from test_reflect_facts import NamedSession, _bash, _edit, _reflect


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


def test_a_correction_in_hindi_is_no_english_order(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a4a4a4a4-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to src/cart.py")
    texts = (
        "tumne phir se print use kiya. hamesha `logging` use karo, print nahi",
        "phir se print()! hamesha `logging` use karo, print nahi",
    )
    for text in texts:
        _edit(s, "src/cart.py")
        _bash(s, "pytest -q")
        s.prompt(text)
    for _ in range(3):
        _bash(s, "ruff check .")
    report = _reflect(s, "--write")
    (theme,) = [r for r in report["recommendations"] if r["kind"] == "correction-theme"]
    assert "nahi" not in theme["rule"], theme
    number = str(theme["number"])
    refused = run_cli("reflect", "approve", number, cwd=s.project, env=s.env)
    assert refused.returncode != 0 and "--text" in refused.stderr
    rule = "Use `logging`, not print()."
    approved = run_cli("reflect", "approve", number, "--text", rule, cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert f"- {rule}\n" in patterns and "nahi" not in patterns
