"""What ``conkeeper consolidate`` proposes for two entries that say the same or the opposite
thing in different words: values with units, alternatives rejected after their name, competing
tools for one job, ``prefer X over Y``; and what it leaves alone (different scopes, different
identifiers). Each pair goes through the real command, one memory folder per pair.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli

CASES = [
    # a value of one key in two units: the same value is no conflict, a different one is
    (
        "Session cookies expire after 2 hours.",
        "Session cookie expiry is 120 minutes.",
        "duplicate",
    ),
    (
        "The HTTP client timeout is 45 seconds.",
        "HTTP client timeout: 2 minutes.",
        "contradiction",
    ),
    # a number stated for the same key with few other shared words
    ("Use port 8080 for the dev server.", "The dev server listens on port 3000.", "contradiction"),
    # an alternative rejected after its name, and a competing tool for the same job
    (
        "Jenkins is gone; CI runs on GitHub Actions.",
        "Add new CI jobs to Jenkins.",
        "contradiction",
    ),
    ("The docs site is built with Sphinx.", "Write the docs in MkDocs.", "contradiction"),
    ("Prefer `httpx` over `requests`.", "Use `requests` for HTTP calls.", "contradiction"),
    # different scopes (languages) make two values compatible
    ("Indent YAML files with 2 spaces.", "Indent Python files with 4 spaces.", "none"),
    # two rules naming different identifiers are never one rule twice
    (
        "Every table has a `created_at` column.",
        "Every table has an `updated_at` column.",
        "none",
    ),
    # a negation about something the other entry never names is no conflict with it
    ("Store timestamps in UTC, never in local time.", "All timestamps are saved in UTC.", "none"),
    # a note that says a rule changed, against the older note on the same subject
    (
        "As of May the docs site is served by Netlify.",
        "The docs site is served by Surge.",
        "contradiction",
    ),
    # a bare number against a value with a unit for the same key; a duration in years
    ("Max line length is 100.", "Lines may be up to 79 characters.", "contradiction"),
    ("Audit logs are kept for one year.", "Audit log retention is 90 days.", "contradiction"),
    # competing tools added this round; "none of" negates
    ("Go services log with zap.", "Use logrus in Go services.", "contradiction"),
    ("None of the services need root.", "Some services require root.", "contradiction"),
    # the same command named on both sides, few other words shared: one rule twice
    (
        "Run `ruff check .` before every push.",
        "Before pushing, always run `ruff check .`.",
        "duplicate",
    ),
    # "don't X without Y" says "Y first"; a word in backticks negates nothing
    ("Don't merge without a green CI run.", "Merge once CI is green.", "duplicate"),
    (
        "The `unsafe` keyword is banned in the parser crate.",
        "Never write `unsafe` in the parser crate.",
        "duplicate",
    ),
    # platforms are scopes: two frame rates for two platforms are compatible
    ("Mobile builds target 30 fps.", "Desktop builds target 60 fps.", "none"),
]


@pytest.mark.parametrize(("first", "second", "expected"), CASES)
def test_consolidate_relates_entries_phrased_differently(
    tmp_path: Path, first: str, second: str, expected: str
) -> None:
    memory = tmp_path / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "patterns.md").write_text(f"# Patterns\n\n- {first}\n", encoding="utf-8")
    (memory / "active-context.md").write_text(f"# Active Context\n\n- {second}\n", "utf-8")
    result = run_cli("consolidate", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    kinds = [p["kind"] for p in json.loads(result.stdout)["proposals"]]
    assert kinds == ([] if expected == "none" else [expected])
