"""Memory files handed to agents (``services.memory_files``) and the entry write path
(``services.analysis.routing.add_entry``): confined to the memory folders, private text and
credentials never out, never in. These run without the MCP extra."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conkeeper.services.analysis.routing import RoutingError, add_entry
from conkeeper.services.memory_files import (
    MemoryAccessError,
    list_memory_files,
    read_visible,
    resolve_memory_path,
    split_display_path,
)

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def memory(project: Path) -> Path:
    folder = project / ".claude" / "memory"
    (folder / "patterns.md").write_text(
        f"# Patterns\n- keep it\n<private>\nhidden plan\n</private>\ntoken {SECRET}\n",
        encoding="utf-8",
    )
    (folder / "locked.md").write_text("---\nprivate: true\n---\nall hidden\n", encoding="utf-8")
    (project / "outside.md").write_text("# outside\n", encoding="utf-8")
    (folder / "link.md").symlink_to(project / "outside.md")
    (folder / "inner.md").symlink_to(folder / "patterns.md")
    return folder


def test_read_visible_strips_private_and_redacts(project: Path, memory: Path) -> None:
    seen = read_visible(project, "patterns.md")
    assert "keep it" in seen.text and "hidden plan" not in seen.text and SECRET not in seen.text
    assert "[REDACTED:github-token]" in seen.text and seen.hidden_lines == 3
    locked = read_visible(project, ".claude/memory/locked.md")  # a path as search shows it
    assert locked.private_file and locked.text == "" and locked.path == "locked.md"
    assert "keep it" in read_visible(project, "inner.md").text  # a link inside the folder


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("link.md", "outside the memory folder"),
        ("../outside.md", "'..'"),
        ("/etc/passwd.md", "relative"),
        ("~/x.md", "relative"),
        ("C:/x.md", "relative"),
        ("notes.txt", ".md"),
        ("", "give the path"),
        ("a\x00.md", "give the path"),
        ("missing.md", "no such file"),
    ],
)
def test_refusals_are_one_line(project: Path, memory: Path, path: str, reason: str) -> None:
    with pytest.raises(MemoryAccessError) as caught:
        read_visible(project, path)
    assert reason in str(caught.value) and "\n" not in str(caught.value)


def test_listing_skips_links_out(project: Path, memory: Path) -> None:
    listed = {(ref.scope, ref.path) for ref in list_memory_files(project)}
    assert ("project", "patterns.md") in listed and ("project", "inner.md") in listed
    assert ("project", "link.md") not in listed


def test_display_paths_pick_the_scope() -> None:
    assert split_display_path("~/.claude/memory/preferences.md", "project") == (
        "global",
        "preferences.md",
    )
    assert split_display_path(".claude/memory/a/b.md", "global") == ("project", "a/b.md")
    assert split_display_path("b.md", "global") == ("global", "b.md")


@settings(
    max_examples=300,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.text(alphabet=st.sampled_from(list("ab./\\~:\x00.md")), max_size=20))
def test_resolved_paths_never_leave_the_root(tmp_path: Path, relative: str) -> None:
    root = tmp_path / "memory"
    root.mkdir(exist_ok=True)
    try:
        target = resolve_memory_path(root, relative)
    except MemoryAccessError:
        return
    assert target.resolve().is_relative_to(root.resolve())
    assert target.suffix == ".md"


def test_add_entry_refuses_secrets_and_private_text(memory: Path) -> None:
    before = (memory / "patterns.md").read_text(encoding="utf-8")
    for text, reason in (
        (f"use token {SECRET}", "credential"),
        ("keep <private>the vault code</private> safe", "private text"),
        ("   ", "empty"),
    ):
        with pytest.raises(RoutingError, match=reason):
            add_entry(memory, "patterns.md", text, "convention")
    assert (memory / "patterns.md").read_text(encoding="utf-8") == before
    path, category = add_entry(memory, "term", "  CK   means ConKeeper ", "learning")
    assert (path, category) == ("glossary.md", "learning")
    assert (
        (memory / "glossary.md")
        .read_text(encoding="utf-8")
        .endswith("- CK means ConKeeper\n<!-- @category: learning -->\n")
    )
