"""``conkeeper search --category NAME`` with no words lists every entry of that category (issue
22.2, as ``schema.md`` documents it), in every scope the flags select."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import cli_env, run_cli

PATTERNS = """# Patterns

## Error handling
<!-- @category: convention -->
Always raise AuthError; never return None.

## Testing
<!-- @category: pattern -->
Run pytest before every commit.

- Use snake_case for method names.
<!-- @category: convention -->
- Keep fixtures small.
"""

DECISION = """# ADR-001: Rotate refresh tokens
<!-- @category: decision -->
We rotate refresh tokens on every use.
"""

GLOBAL = """# Preferences

- Prefer tabs in Makefiles only.
<!-- @category: convention -->
"""


def _setup(project: Path, home: Path) -> None:
    memory = project / ".claude" / "memory"
    (memory / "decisions").mkdir(parents=True, exist_ok=True)
    (memory / "patterns.md").write_text(PATTERNS, encoding="utf-8")
    (memory / "decisions" / "ADR-001-rotate.md").write_text(DECISION, encoding="utf-8")
    (home / ".claude" / "memory").mkdir(parents=True)
    (home / ".claude" / "memory" / "preferences.md").write_text(GLOBAL, encoding="utf-8")


def test_category_alone_lists_every_entry_of_it(project: Path, isolated_home: Path) -> None:
    _setup(project, isolated_home)
    proc = run_cli("search", "--category", "convention", cwd=project)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "the query is empty" not in proc.stderr
    assert out.startswith('## Results for: "--category convention"')
    assert "**Line 3:** ## Error handling" in out
    assert "**Line 11:** - Use snake_case for method names." in out
    assert "Keep fixtures small" not in out and "ADR-001" not in out and "Makefiles" not in out
    assert out.rstrip().endswith("Found 2 matches across 1 file.")


def test_listing_covers_the_scopes_the_flags_select(project: Path, isolated_home: Path) -> None:
    _setup(project, isolated_home)
    out = run_cli("search", "--global", "--category", "convention", cwd=project).stdout
    assert "### ~/.claude/memory/preferences.md" in out and "Makefiles" in out
    payload = json.loads(run_cli("search", "--json", "--category", "decision", cwd=project).stdout)
    assert [r["path"] for r in payload["results"]] == [".claude/memory/decisions/ADR-001-rotate.md"]
    assert payload["results"][0]["categories"] == ["decision"]


def test_listing_respects_an_explicit_limit_and_words_still_narrow(
    project: Path, isolated_home: Path
) -> None:
    _setup(project, isolated_home)
    one = run_cli("search", "--limit", "1", "--category", "convention", cwd=project).stdout
    assert one.rstrip().endswith("Found 1 match across 1 file.")
    narrowed = run_cli("search", "--category", "convention", "snake", cwd=project).stdout
    assert "snake_case" in narrowed and "Error handling" not in narrowed


def test_no_words_and_no_category_is_still_an_error(project: Path) -> None:
    proc = run_cli("search", cwd=project)
    assert proc.returncode == 2
    assert "the query is empty" in proc.stderr and "--category NAME" in proc.stderr


def test_listing_with_sessions_includes_observations_of_that_type(tmp_path: Path) -> None:
    """On the demo's data: ``--sessions --category bugfix`` lists the bugfix observation."""
    base = tmp_path / "demo"
    assert run_cli("demo", "--dir", str(base)).returncode == 0
    env = cli_env(HOME=str(base / "home"), CONKEEPER_HOME=str(base / "data"))
    proc = run_cli("search", "--sessions", "--category", "bugfix", cwd=base / "acme-api", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "### observation #1 (bugfix) — Fix failing pytest tests in token.py" in proc.stdout
    assert "(feature)" not in proc.stdout and "summary of session" not in proc.stdout
    assert proc.stdout.rstrip().endswith("Found 1 match across 1 observation.")


def test_records_of_one_moment_are_listed_newest_first_too(project: Path, tmp_path: Path) -> None:
    """The listing is newest first by time alone: records stamped in the same millisecond (one
    extraction on a fast machine) came out oldest first, so the order, and which ones a
    ``--limit`` kept, depended on the machine's speed. The later record comes first now."""
    from conkeeper.domain.paths import locate_project

    identity = locate_project(project).identity
    key = {"project": identity, "session": "tie-1"}
    records = [
        {"kind": "project", "identity": identity, "root": str(project), "name": "proj"},
        {"kind": "session", **key, "started_at": 1_700_000_000_000, "status": "completed"},
        *(
            {**key, "kind": "observation", "type": "decision", "title": f"Cache decision {n}",
             "created_at": 1_700_000_001_000}
            for n in range(3)
        ),
    ]  # fmt: skip
    export = tmp_path / "tie.jsonl"
    export.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert run_cli("import", "jsonl", str(export), cwd=project).returncode == 0
    out = run_cli("search", "--category", "decision", "--sessions", cwd=project).stdout
    titles = [line.rsplit(" — ", 1)[1] for line in out.splitlines() if line.startswith("### ")]
    assert titles == ["Cache decision 2", "Cache decision 1", "Cache decision 0"], out
    limited = run_cli("search", "--category", "decision", "--sessions", "--limit", "1", cwd=project)
    assert "Cache decision 2" in limited.stdout and "Cache decision 0" not in limited.stdout
