"""The memory-file parser: entries, spans, tags, and robustness on any text."""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conkeeper.domain.categories import MEMORY_CATEGORIES, add_tag, remove_tag
from conkeeper.domain.memory import Entry, parse_entries, parse_file, parse_nodes
from conkeeper.domain.textio import MemoryFileError

SAMPLE = """\
---
private: false
title: Patterns
---
Intro paragraph before any heading.

# Patterns
<!-- @category: pattern -->

## Error handling
- Always wrap HTTP calls in with_retry()
  three attempts, exponential backoff
<!-- @category: convention -->
<!-- @tag: http -->
- Fixed the BOM crash

  (loose continuation)
* Third item

```python
# not a heading
<!-- @category: decision -->
```
<!--
## Example heading inside a comment
-->
## Closing ##
"""


def by_kind(entries: list[Entry], kind: str) -> list[Entry]:
    return [e for e in entries if e.kind == kind]


def test_sections_bullets_spans_and_tags() -> None:
    entries = parse_entries(SAMPLE)
    sections = by_kind(entries, "section")
    assert [s.heading_path for s in sections] == [
        (),
        ("Patterns",),
        ("Patterns", "Error handling"),
        ("Patterns", "Closing"),
    ]
    preamble, top, errors, closing = sections
    assert (preamble.line_start, preamble.text) == (5, "Intro paragraph before any heading.")
    assert (top.line_start, top.line_end, top.categories) == (7, 8, ("pattern",))
    assert (errors.line_start, errors.line_end) == (10, 26)
    # A section's categories include its bullets' so search by category finds the section.
    assert errors.categories == ("convention",)
    assert errors.tags == ("http",)
    # Real tag lines are not text; code blocks are kept verbatim.
    assert "@category: convention" not in errors.text and "@tag" not in errors.text
    assert "# not a heading\n<!-- @category: decision -->" in errors.text
    assert "Example heading" not in errors.text
    assert closing.line_start == closing.line_end == 27

    bullets = by_kind(entries, "bullet")
    assert [(b.line_start, b.line_end) for b in bullets] == [(11, 14), (15, 17), (18, 18)]
    assert (
        bullets[0].text
        == "- Always wrap HTTP calls in with_retry()\n  three attempts, exponential backoff"
    )
    assert bullets[0].categories == ("convention",) and bullets[0].tags == ("http",)
    assert bullets[1].categories == () and bullets[1].text.endswith("(loose continuation)")
    assert all(b.heading_path == ("Patterns", "Error handling") for b in bullets)


def test_crlf_and_bom_give_the_same_entries() -> None:
    plain = parse_entries(SAMPLE)
    assert parse_entries(SAMPLE.replace("\n", "\r\n")) == plain
    assert parse_entries("\ufeff" + SAMPLE) == plain


def test_unclosed_front_matter_is_content_not_hidden() -> None:
    entries = parse_entries("---\nkey: value\n# Heading\nbody\n")
    assert [e.heading for e in entries if e.kind == "section"] == ["", "Heading"]


def test_thematic_breaks_and_nested_bullets_are_not_top_level_bullets() -> None:
    text = "# H\n---\n* * *\n- top\n  - nested\n   - deeper\n1. first\n2) second\n10.no\n"
    bullets = by_kind(parse_entries(text), "bullet")
    assert [b.line_start for b in bullets] == [4, 7, 8]
    assert bullets[0].line_end == 6


def test_tag_grammar_is_strict_about_the_whole_line() -> None:
    text = (
        "# H\n"
        "see <!-- @category: decision --> inline\n"
        "<!-- @category: Decision -->\n"
        "<!--@tag:x1-y-->\n"
        "<!-- @category: 9bad -->\n"
        "<!-- @category: decision --> trailing\n"
    )
    (section,) = parse_entries(text)
    assert section.categories == ("decision",)
    assert section.tags == ("x1-y",)


def test_indented_fence_inside_bullet_hides_headings() -> None:
    text = "# H\n- item\n  ```\n# fake\n  ```\n- next\n"
    entries = parse_entries(text)
    assert [e.heading for e in entries if e.kind == "section"] == ["H"]
    assert [b.line_start for b in by_kind(entries, "bullet")] == [2, 6]


def _parse_pathological(scale: int) -> tuple[float, int]:
    """CPU seconds to parse inputs that trip quadratic parsers, at ``scale`` (and entries)."""
    huge_line = "# " + "#" * (40 * scale) + " x " + " " * (40 * scale) + "#"
    many = "\n".join(f"## H{i}\n- item {i}\n<!-- @category: pattern -->" for i in range(scale))
    started = time.process_time()
    parse_entries(huge_line)
    parse_entries("<!--" + "-" * (60 * scale))
    parse_entries("- " + "<!-- @tag: a -->" * (4 * scale))
    entries = parse_entries(many)
    return time.process_time() - started, len(entries)


def test_enormous_lines_and_files_parse_in_linear_time() -> None:
    # Linear, judged by growth rather than a wall-clock limit (which a loaded machine breaks):
    # four times the input may cost about four times the CPU, never the sixteen of a quadratic.
    small, small_entries = _parse_pathological(6_250)
    large, large_entries = _parse_pathological(25_000)
    assert (small_entries, large_entries) == (12_500, 50_000)
    assert large < 8 * max(small, 0.05)


def test_parse_file_reports_bad_files_in_one_line(tmp_path: Path) -> None:
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"# H\x00\x01\x02")
    latin = tmp_path / "latin.md"
    latin.write_bytes("# Café\n".encode("latin-1"))
    for path in (binary, latin, tmp_path / "missing.md", tmp_path):
        with pytest.raises(MemoryFileError) as info:
            parse_file(path)
        assert "\n" not in str(info.value)
    good = tmp_path / "good.md"
    good.write_text("# H\n- x\n", encoding="utf-8")
    assert [e.kind for e in parse_file(good)] == ["section", "bullet"]


# --- properties -------------------------------------------------------------------------------

NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)
WORDS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
    max_size=30,
)


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[tuple[int, str, str]]]:
    """Markdown with known real tag lines (line, kind, name) and decoy tags in code/comments."""
    lines: list[str] = []
    real: list[tuple[int, str, str]] = []
    for _ in range(draw(st.integers(0, 25))):
        block = draw(
            st.sampled_from(["heading", "bullet", "para", "tag", "blank", "fence", "comment"])
        )
        if block == "heading":
            lines.append("#" * draw(st.integers(1, 6)) + " " + draw(WORDS).strip("#"))
        elif block == "bullet":
            lines.append(draw(st.sampled_from(["- ", "* ", "+ ", "1. "])) + draw(WORDS))
            if draw(st.booleans()):
                lines.append("  " + draw(WORDS))
        elif block == "para":
            word = draw(WORDS)
            lines.append("text " + word)
        elif block == "tag":
            kind = draw(st.sampled_from(["category", "tag"]))
            name = draw(NAMES)
            lines.append(f"<!-- @{kind}: {name} -->")
            real.append((len(lines), kind, name))
        elif block == "blank":
            lines.append("")
        elif block == "fence":
            lines += ["```", "# decoy", "<!-- @category: decoy -->", "```"]
        else:
            lines += ["<!--", "## decoy heading", "- decoy bullet", "-->"]
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"])), real


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_never_raises_and_spans_are_sane(text: str) -> None:
    entries = parse_entries(text)
    # lines end at LF, or at CR in a file that has no LF (an old Mac file)
    line_count = len(re.split(r"\r\n|\r|\n", text))  # lines end at LF, CRLF or a lone CR
    sections = [e for e in entries if e.kind == "section"]
    assert [s.line_start for s in sections] == sorted({s.line_start for s in sections})
    for entry in entries:
        assert 1 <= entry.line_start <= entry.line_end <= line_count


@settings(max_examples=300, deadline=None)
@given(documents())
def test_every_real_tag_line_is_found_exactly_once(doc: tuple[str, list]) -> None:
    text, real = doc
    found = [
        (lineno, ref.kind, ref.name)
        for section in parse_nodes(text)
        for node in (section, *section.children)
        for lineno, ref in node.own_tags
    ]
    assert Counter(found) == Counter(real)
    entries = parse_entries(text)
    categories = {c for e in entries for c in e.categories}
    assert categories == {name for _, kind, name in real if kind == "category"}
    assert "decoy" not in categories
    assert not any("decoy" in e.heading for e in entries)
    assert parse_entries(text.replace("\n", "\r\n")) == entries


@settings(max_examples=200, deadline=None)
@given(documents(), st.data())
def test_add_then_remove_tag_round_trips(doc: tuple[str, list], data: st.DataObject) -> None:
    text, _ = doc
    starts = [
        node.start
        for section in parse_nodes(text)
        for node in (section, *section.children)
        if node.addressable
    ]
    if not starts:
        return
    line = data.draw(st.sampled_from(starts))
    name = data.draw(st.sampled_from(MEMORY_CATEGORIES))
    tagged = add_tag(text, line, "category", name)
    entry = next(e for e in parse_entries(tagged) if e.line_start == line)
    assert name in entry.categories
    assert add_tag(tagged, line, "category", name) == tagged  # no duplicates
    if tagged != text:
        assert remove_tag(tagged, line, "category", name) == text
        new, old = tagged.split("\n"), text.split("\n")
        assert len(new) == len(old) + 1
        assert any(
            new[:i] + new[i + 1 :] == old and new[i] == f"<!-- @category: {name} -->"
            for i in range(len(new))
        )


WHITESPACE = [chr(c) for c in range(0x110000) if chr(c).isspace() and chr(c) != "\n"]


@pytest.mark.parametrize("space", WHITESPACE)
def test_tag_lines_behind_any_leading_whitespace_still_count(space: str) -> None:
    # str.strip() removes every Unicode space, so such a line is still a tag line
    (section,) = parse_entries(f"# H\n{space}<!-- @category: decision -->\n")
    assert section.categories == ("decision",)


@pytest.mark.parametrize(
    ("line", "is_bullet"),
    [
        ("- item", True),
        ("- - -", False),
        ("-  -  -", False),
        ("*\t*\t*", False),
        ("* * * *", False),
        ("- -", True),
        ("+ + +", True),
        ("- - x", True),
        ("* *-*", True),
        (" - item", True),
        ("  - item", False),
    ],
)
def test_thematic_breaks_versus_bullets(line: str, is_bullet: bool) -> None:
    entries = parse_entries(f"# H\n{line}\n")
    assert [e.line_start for e in entries if e.kind == "bullet"] == ([2] if is_bullet else [])
    assert entries[0].text == line


def test_plain_bullets_can_be_left_out() -> None:
    every = parse_entries(SAMPLE)
    labelled = parse_entries(SAMPLE, plain_bullets=False)
    assert labelled == [e for e in every if e.kind == "section" or e.categories or e.tags]
