"""Files that document the memory format are not search results, and the files `conkeeper init`
creates are clean for `conkeeper privacy check`."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

SCHEMA_EXAMPLE_WORDS = "staging password"  # inside the schema template's <private> example


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def test_schema_and_config_files_are_not_indexed(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert run_cli("init", "--yes", cwd=root).returncode == 0
    assert run_cli("init", "--global", "--yes", cwd=root).returncode == 0
    memory = root / ".claude" / "memory"
    assert SCHEMA_EXAMPLE_WORDS.split()[1] in (memory / "schema.md").read_text(encoding="utf-8")
    # the same words in a real memory file and in a nested schema.md are found
    (memory / "patterns.md").write_text(
        "# Patterns\n\n## Staging\nThe staging password rotates monthly.\n", encoding="utf-8"
    )
    (memory / "sessions" / "schema.md").write_text(
        "# Session notes\nstaging password reset\n", encoding="utf-8"
    )
    proc = run_cli(
        "search",
        "--json",
        "--global",
        "--sessions",
        "--since",
        "2000-01-01",
        SCHEMA_EXAMPLE_WORDS,
        cwd=root,
    )
    assert proc.returncode == 0, proc.stderr
    paths = {r["path"] for r in json.loads(proc.stdout)["results"]}
    assert paths == {".claude/memory/patterns.md", ".claude/memory/sessions/schema.md"}
    for word in ("token_budget", "auto_load"):  # settings documented in .memory-config.md
        out = run_cli("search", "--global", word, cwd=root).stdout
        assert out.startswith("No results found"), out
    status = json.loads(run_cli("index", "--status", "--json", cwd=root).stdout)
    assert "schema.md" not in json.dumps(status).replace("sessions/schema.md", "")


def test_fresh_init_passes_privacy_check_without_warnings(tmp_path: Path) -> None:
    root = _project(tmp_path)
    for args in (("init", "--yes"), ("init", "--global", "--yes")):
        assert run_cli(*args, cwd=root).returncode == 0
    for target in (root / ".claude" / "memory", Path(tmp_path / "home" / ".claude" / "memory")):
        proc = run_cli("privacy", "check", "--json", str(target), cwd=root)
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        assert report["files"], report
        assert [(f["path"], f["warnings"]) for f in report["files"] if f["warnings"]] == []
        text = run_cli("privacy", "check", str(target), cwd=root).stdout
        assert "warning" not in text.lower() and "inline <private>" not in text
