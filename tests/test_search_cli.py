"""Seed 003's test expectations through the real entry points: ``conkeeper search`` and
``tools/memory-search.sh`` (run with bash), plus the output layout, JSON and filters."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

from conftest import cli_env, run_cli

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "memory-search.sh"
TODAY = date.today().isoformat()

ACTIVE = """# Active Context

## Current Focus
<!-- @category: decision -->
We decided the token budget is 4000 for standard sessions.
Next line gives context.

## Open questions
- How large should the token cache be?

<private>
The token for staging is hunter2-token
</private>
"""

ADR = """# ADR-003: Search
<!-- @category: decision -->
Use SQLite FTS5 because the token counts must be ranked.
"""

PATTERNS = """# Patterns

## Error handling
<!-- @category: pattern -->
Always wrap database access; the token refresh path retries twice.
"""

PRIVATE_FILE = """---
private: true
---
# Private notes
token rotation secrets live here
"""


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    """A project with memory files, a session file and global memory."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    mem = root / ".claude" / "memory"
    files = {
        "active-context.md": ACTIVE,
        "decisions/ADR-003-search.md": ADR,
        "patterns.md": PATTERNS,
        "private-notes.md": PRIVATE_FILE,
        f"sessions/{TODAY}-auth.md": "# Session\nDebugged the token refresh in the auth flow.\n",
    }
    for rel, text in files.items():
        (mem / rel).parent.mkdir(parents=True, exist_ok=True)
        (mem / rel).write_text(text, encoding="utf-8")
    home = Path(os.environ["HOME"])
    (home / ".claude" / "memory").mkdir(parents=True)
    (home / ".claude" / "memory" / "preferences.md").write_text(
        "# Preferences\n- Prefer short token names in globals\n", encoding="utf-8"
    )
    return root


def search(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = run_cli("search", *args, cwd=root)
    assert "Traceback" not in proc.stderr
    return proc


def files_in(output: str) -> list[str]:
    return re.findall(r"^### (.+)$", output, flags=re.M)


# --- seed test 1: basic search finds matches in project memory files


def test_basic_search_finds_project_memory(proj: Path) -> None:
    proc = search(proj, "token")
    assert proc.returncode == 0
    assert set(files_in(proc.stdout)) == {
        ".claude/memory/active-context.md",
        ".claude/memory/decisions/ADR-003-search.md",
        ".claude/memory/patterns.md",
    }
    assert "**Line 5:** We decided the token budget is 4000 for standard sessions." in proc.stdout


# --- seed test 2 and 3: --global and --sessions widen the scope


def test_global_flag_includes_global_memory(proj: Path) -> None:
    assert "~/.claude/memory/preferences.md" not in search(proj, "token").stdout
    out = search(proj, "--global", "token").stdout
    assert "### ~/.claude/memory/preferences.md" in out
    assert "**Line 2:** - Prefer short token names in globals" in out


def test_sessions_flag_includes_session_files(proj: Path) -> None:
    session = f".claude/memory/sessions/{TODAY}-auth.md"
    assert session not in search(proj, "refresh").stdout
    out = search(proj, "--sessions", "refresh").stdout
    assert f"### {session}" in out


def test_sessions_are_limited_to_recent_days(proj: Path) -> None:
    old = (date.today() - timedelta(days=45)).isoformat()
    mem = proj / ".claude/memory/sessions"
    (mem / f"{old}-old.md").write_text("# Old\nrefresh from long ago\n", encoding="utf-8")
    out = search(proj, "--sessions", "refresh").stdout
    assert f"{old}-old.md" not in out
    config = proj / ".claude/memory/.memory-config.md"
    config.write_text("---\nsessions_days: 60\n---\n", encoding="utf-8")
    assert f"{old}-old.md" in search(proj, "--sessions", "refresh").stdout


# --- seed test 4: --category filters to entries with that tag


def test_category_filter(proj: Path) -> None:
    out = search(proj, "--category", "decision", "token").stdout
    assert set(files_in(out)) == {
        ".claude/memory/active-context.md",
        ".claude/memory/decisions/ADR-003-search.md",
    }
    assert "cache" not in out  # the untagged bullet in active-context is filtered out
    assert "<!-- @category: decision -->" in out
    pattern = search(proj, "--category", "pattern", "token").stdout
    assert files_in(pattern) == [".claude/memory/patterns.md"]
    none = search(proj, "--category", "bugfix", "token")
    assert none.stdout == 'No results found for "token" in project memory (category: bugfix).\n'


# --- seed tests 5 and 6: privacy


def test_private_block_content_is_excluded(proj: Path) -> None:
    out = search(proj, "--global", "--sessions", "hunter2").stdout
    assert out.startswith("No results found")
    assert "hunter2" not in search(proj, "token").stdout
    assert "staging" not in search(proj, "--json", "token").stdout


def test_private_front_matter_file_is_excluded_entirely(proj: Path) -> None:
    assert search(proj, "rotation").stdout.startswith("No results found")
    assert "private-notes.md" not in search(proj, "token").stdout


# --- seed test 9: empty query or no matches


@pytest.mark.parametrize("query", ["", "   ", "\t"])
def test_empty_query_prints_usage_and_fails(proj: Path, query: str) -> None:
    proc = search(proj, query)
    assert proc.returncode == 2
    assert "usage:" in proc.stderr and "empty" in proc.stderr
    assert proc.stdout == ""


def test_no_matches_prints_the_exact_sentence(proj: Path) -> None:
    proc = search(proj, "xylophone")
    assert proc.returncode == 0
    assert proc.stdout == 'No results found for "xylophone" in project memory.\n'
    wide = search(proj, "--global", "--sessions", "xylophone").stdout
    assert wide == (
        'No results found for "xylophone" in project memory, global memory, session files '
        "(last 30 days), observations, session summaries and prompts.\n"
    )


# --- seed test 10: structured output


def test_output_layout_is_the_seeds(proj: Path) -> None:
    out = search(proj, "budget").stdout
    assert out == (
        '## Results for: "budget"\n'
        "\n"
        "### .claude/memory/active-context.md\n"
        "<!-- @category: decision -->\n"
        "**Line 5:** We decided the token budget is 4000 for standard sessions.\n"
        "  Line 6: Next line gives context.\n"
        "\n"
        "---\n"
        "Found 1 match across 1 file.\n"
    )


def test_results_are_grouped_by_file_and_counted(proj: Path) -> None:
    out = search(proj, "--global", "--sessions", "token").stdout
    headers = files_in(out)
    assert len(headers) == len(set(headers)) == 5
    matches = len(re.findall(r"^\*\*Line \d+:\*\*", out, flags=re.M))
    count = re.search(r"^Found (\d+) matches across (\d+) files\.$", out, flags=re.M)
    assert count is not None and int(count.group(2)) == 5
    assert int(count.group(1)) <= matches  # context lines are shown but not counted
    assert out.rstrip().splitlines()[-2] == "---"


def test_json_has_the_same_results(proj: Path) -> None:
    text = search(proj, "--global", "token").stdout
    data = json.loads(search(proj, "--global", "--json", "token").stdout)
    assert data["files"] == len(files_in(text))
    assert f"Found {data['matches']} matches" in text
    first = data["results"][0]
    assert set(first) >= {"path", "line", "heading", "snippet", "categories", "score", "source"}
    assert {r["source"] for r in data["results"]} == {"memory", "global"}
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)


def test_limit(proj: Path) -> None:
    data = json.loads(search(proj, "--json", "--limit", "1", "token").stdout)
    assert len(data["results"]) == 1
    assert search(proj, "--limit", "0", "token").returncode == 2


# --- the index is never stale


def test_edits_and_deletions_are_seen_without_reindexing(proj: Path) -> None:
    assert search(proj, "token").returncode == 0
    patterns = proj / ".claude/memory/patterns.md"
    patterns.write_text("# Patterns\n\n## Queues\nUse a durable kumquat queue.\n", "utf-8")
    assert "### .claude/memory/patterns.md" in search(proj, "kumquat").stdout
    assert "patterns.md" not in search(proj, "token").stdout
    (proj / ".claude/memory/decisions/ADR-003-search.md").unlink()
    assert "ADR-003" not in search(proj, "token").stdout
    new = proj / ".claude/memory/decisions/ADR-004-cache.md"
    new.write_text("# ADR-004\nAdopt the kumquat cache.\n", "utf-8")
    assert "ADR-004-cache.md" in search(proj, "kumquat").stdout


# --- filters


def test_tag_since_and_kind_filters(proj: Path) -> None:
    mem = proj / ".claude/memory"
    (mem / "glossary.md").write_text(
        "# Glossary\n- WAL: write-ahead token log\n  <!-- @tag: storage -->\n- TTL: token life\n",
        "utf-8",
    )
    tagged = search(proj, "--tag", "storage", "token").stdout
    assert files_in(tagged) == [".claude/memory/glossary.md"]
    assert "TTL" not in tagged
    old = 1_500_000_000
    os.utime(mem / "patterns.md", (old, old))
    recent = search(proj, "--since", "2020-01-01", "token").stdout
    assert "patterns.md" not in recent and "active-context.md" in recent
    assert "patterns.md" in search(proj, "--since", "2015-01-01", "token").stdout
    only_sessions = search(proj, "--kind", "session", "token").stdout
    assert files_in(only_sessions) == [f".claude/memory/sessions/{TODAY}-auth.md"]
    bad = search(proj, "--since", "last tuesday", "token")
    assert bad.returncode == 2 and "--since" in bad.stderr


def test_all_projects_searches_every_known_project(proj: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / ".claude/memory").mkdir(parents=True)
    (other / ".claude/memory/active-context.md").write_text(
        "# Other\nThe other project also tracks its token usage.\n"
        "<private>\nzanzibar\n</private>\n",
        "utf-8",
    )
    assert search(other, "token").returncode == 0  # the store now knows this project
    here = search(proj, "token").stdout
    assert "other" not in here
    everywhere = search(proj, "--all-projects", "token").stdout
    assert "### .claude/memory/active-context.md" in everywhere
    assert any(f.endswith("other/.claude/memory/active-context.md") for f in files_in(everywhere))
    assert search(proj, "--all-projects", "zanzibar").stdout.startswith("No results found")
    data = json.loads(search(proj, "--all-projects", "--json", "token").stdout)
    assert {r["project"] for r in data["results"]} == {"proj", "other"}


# --- hostile queries


@pytest.mark.parametrize(
    "query",
    [
        '"unclosed token',
        "token)",
        "(token",
        "token AND",
        "NOT token",
        "-token",
        "token*",
        "a:b",
        "NEAR(token budget)",
        "*",
        '""',
        "token OR",
        "^token",
        "{token}",
    ],
)
def test_operator_characters_are_text(proj: Path, query: str) -> None:
    proc = search(proj, "--json", "--", query)
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)


def test_huge_query_is_handled(proj: Path) -> None:
    query = ("token " * 20000)[:100_000]
    proc = search(proj, query)
    assert proc.returncode == 0
    assert proc.stdout.startswith('## Results for: "token token')
    assert len(proc.stdout.splitlines()[0]) < 250
    assert "cut to its first" in proc.stderr


# --- tools/memory-search.sh (seed tests 7 and 8: runs on this platform's bash)


def run_script(root: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = cli_env()
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        ["bash", str(SCRIPT), *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_script_runs_with_the_seed_flags(proj: Path) -> None:
    assert os.access(SCRIPT, os.X_OK)
    direct = search(proj, "--global", "--sessions", "--category", "decision", "token").stdout
    proc = run_script(proj, "--global", "--sessions", "--category", "decision", "token")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == direct
    assert "<!-- @category: decision -->" in proc.stdout


def test_script_passes_other_flags_and_multiword_queries(proj: Path) -> None:
    proc = run_script(proj, "--json", "--limit", "1", "token", "budget")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["query"] == "token budget" and len(data["results"]) == 1
    dash = run_script(proj, "--", "-token")
    assert dash.returncode == 0 and "Results for" in dash.stdout


def test_script_empty_query_and_missing_category(proj: Path) -> None:
    empty = run_script(proj, "   ")
    assert empty.returncode == 2 and "usage" in empty.stderr
    missing = run_script(proj, "token", "--category")
    assert missing.returncode == 2 and "--category needs a name" in missing.stderr
    none = run_script(proj, "xylophone")
    assert none.stdout.startswith('No results found for "xylophone"')


def test_script_works_without_an_installed_command(proj: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    tools = [shutil.which(t) for t in ("dirname", "bash")]
    for tool in filter(None, tools):
        (bin_dir / Path(tool).name).symlink_to(tool)
    env_path = str(bin_dir)
    assert shutil.which("conkeeper", path=env_path) is None
    proc = run_script(proj, "budget", path=env_path)
    assert proc.returncode == 0, proc.stderr
    assert "Found 1 match across 1 file." in proc.stdout
