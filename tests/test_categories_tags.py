"""Category grammar, validation, tag editing and the keyword classifier."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conkeeper.domain.categories import (
    MEMORY_CATEGORIES,
    RETRO_CATEGORIES,
    TagRef,
    add_tag,
    classify,
    format_tag,
    parse_tag_line,
    remove_tag,
    validate_category,
)
from conkeeper.domain.memory import parse_entries


def test_category_sets_match_the_spec() -> None:
    assert MEMORY_CATEGORIES == ("decision", "pattern", "bugfix", "convention", "learning")
    assert RETRO_CATEGORIES == ("efficiency", "quality", "ux", "knowledge", "architecture")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("<!-- @category: decision -->", TagRef("category", "decision")),
        ("   <!-- @tag: api-v2 -->\r", TagRef("tag", "api-v2")),
        ("<!--@category:Bugfix-->", TagRef("category", "bugfix")),
        ("<!-- @category: decision --> and more", None),
        ("text <!-- @category: decision -->", None),
        ("<!-- @category: 2fast -->", None),
        ("<!-- @category: two words -->", None),
        ("<!-- @categories: decision -->", None),
        ("<!-- Example: @category: decision -->", None),
        ("", None),
    ],
)
def test_parse_tag_line(line: str, expected: TagRef | None) -> None:
    assert parse_tag_line(line) == expected


def test_validation_names_the_allowed_values() -> None:
    assert validate_category("ux", "retro") == "ux"
    assert validate_category("ux", "any") == "ux"
    with pytest.raises(ValueError, match="decision, pattern, bugfix, convention, learning"):
        validate_category("ux", "memory")
    with pytest.raises(ValueError, match="invalid tag name"):
        validate_category("Decision")
    with pytest.raises(ValueError, match="invalid tag name"):
        format_tag("tag", "has space")
    assert format_tag("tag", "api-v2") == "<!-- @tag: api-v2 -->"


DOC = "# Notes\n<!-- @tag: old -->\nbody\n\n- item one\n  continued\n- item two\n"


def test_add_tag_after_heading_tags_and_after_bullet_continuation() -> None:
    tagged = add_tag(DOC, 1, "category", "decision")
    assert tagged.split("\n")[:3] == [
        "# Notes",
        "<!-- @tag: old -->",
        "<!-- @category: decision -->",
    ]
    tagged = add_tag(tagged, 6, "category", "pattern")
    lines = tagged.split("\n")
    assert lines[6:9] == ["  continued", "<!-- @category: pattern -->", "- item two"]
    bullet = next(e for e in parse_entries(tagged) if e.line_start == 6)
    assert bullet.categories == ("pattern",) and bullet.kind == "bullet"


def test_add_tag_is_idempotent_and_remove_restores_bytes() -> None:
    once = add_tag(DOC, 5, "category", "learning")
    assert add_tag(once, 5, "category", "learning") == once
    assert remove_tag(once, 5, "category", "learning") == DOC
    assert remove_tag(DOC, 5, "category", "learning") == DOC
    assert remove_tag(DOC, 1, "tag", "old") == DOC.replace("<!-- @tag: old -->\n", "")


def test_tag_editing_keeps_crlf_and_a_missing_final_newline() -> None:
    crlf = DOC.replace("\n", "\r\n")
    tagged = add_tag(crlf, 7, "category", "bugfix")
    assert tagged == crlf + "<!-- @category: bugfix -->\r\n"
    assert remove_tag(tagged, 7, "category", "bugfix") == crlf
    no_eol = "# H\r\nbody\r\n- last"
    tagged = add_tag(no_eol, 3, "tag", "x")
    assert tagged == no_eol + "\r\n<!-- @tag: x -->"
    assert remove_tag(tagged, 3, "tag", "x") == no_eol


def test_add_tag_on_a_line_that_is_not_an_entry_is_refused() -> None:
    for line in (3, 4, 6, 99):
        with pytest.raises(ValueError, match="not a heading or a top-level bullet"):
            add_tag(DOC, line, "category", "decision")


@pytest.mark.skipif(shutil.which("grep") is None, reason="needs grep")
def test_plain_grep_finds_tagged_entries(tmp_path: Path) -> None:
    path = tmp_path / "active-context.md"
    path.write_text(add_tag(DOC, 5, "category", "decision"), encoding="utf-8")
    proc = subprocess.run(
        ["grep", "-n", "@category: decision", str(path)], capture_output=True, text=True
    )
    assert proc.returncode == 0
    assert proc.stdout.strip() == "7:<!-- @category: decision -->"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        (
            "We decided to use SQLite with WAL instead of Postgres; it must run without a server.",
            "decision",
        ),
        ("Chose argparse over click to keep the core dependency-free.", "decision"),
        (
            "Fixed the crash in session start when the transcript was missing; root cause was an "
            "unchecked open().",
            "bugfix",
        ),
        ("Resolved the flaky failure in test_index by closing the connection.", "bugfix"),
        ("Always use snake_case for function names; never abbreviate module names.", "convention"),
        ("Commit messages use the imperative mood and a 50-character summary line.", "convention"),
        ("Pattern: every outbound HTTP call goes through a retry wrapper with backoff.", "pattern"),
        (
            "TIL: git worktrees share one commondir, so the identity must come from there.",
            "learning",
        ),
        ("Turns out pytest only collects files under testpaths.", "learning"),
    ],
)
def test_classifier_is_sure_on_clear_entries(text: str, category: str) -> None:
    verdict = classify(text)
    assert (verdict.category, verdict.unsure) == (category, False)
    assert 0.6 <= verdict.confidence <= 1


@pytest.mark.parametrize(
    "text",
    [
        "Updated the README.",
        "Meeting notes from Tuesday",
        "Fixed the bug we decided to ignore last week",  # bugfix and decision compete
        "There was an error in the log",  # one weak word is not enough
        "",
    ],
)
def test_classifier_says_unsure_instead_of_guessing(text: str) -> None:
    verdict = classify(text)
    assert verdict.unsure and verdict.category is None
    assert verdict.confidence < 0.6


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("The test suite ran slowly and we retried the same command five times", "efficiency"),
        ("Added a regression test and a lint rule for the bug", "quality"),
        ("The error message was confusing to the user", "ux"),
        ("Missing documentation for the config keys; had to research the defaults", "knowledge"),
        (
            "Coupling between the hook module and the storage layer made the design rigid",
            "architecture",
        ),
    ],
)
def test_retro_classifier(text: str, category: str) -> None:
    verdict = classify(text, "retro")
    assert verdict.category == category and not verdict.unsure
    assert set(verdict.scores) == set(RETRO_CATEGORIES)


def test_ties_are_unsure_and_keep_no_guess() -> None:
    verdict = classify("decided; fixed")
    assert verdict.unsure and verdict.best_guess is None
    assert verdict.scores["decision"] == verdict.scores["bugfix"]
