"""One test per privacy rule: block tags, fences, nesting, front matter, captured text."""

from __future__ import annotations

import time

import pytest

from conkeeper.domain.privacy import (
    CONTEXT_MARKER_TAG,
    REASON_AMBIGUOUS,
    REASON_BLOCK,
    REASON_STRAY,
    REASON_UNCLOSED,
    HiddenRange,
    analyze,
    blank_private,
    clean_captured,
    exposed_secrets,
    is_private_file,
    mask_hint,
    strip_private,
    visible_lines,
)

AWS_KEY = "AKIAQ3EGRTXZB7YKM2WD"


def doc(*lines: str) -> str:
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- block tags


def test_block_is_hidden_with_its_tag_lines() -> None:
    text = doc("keep 1", "<private>", "secret", "</private>", "keep 2")
    assert strip_private(text) == "keep 1\nkeep 2\n"
    assert blank_private(text) == "keep 1\n\n\n\nkeep 2\n"
    assert visible_lines(text) == [(1, "keep 1"), (5, "keep 2")]
    report = analyze(text)
    assert report.hidden_ranges == [HiddenRange(2, 4, REASON_BLOCK)]
    assert report.warnings == []
    assert report.total_lines == 5
    assert report.block_count == 1
    assert report.hidden_line_count == 3


@pytest.mark.parametrize(
    ("opening", "closing"),
    [
        ("  <PRIVATE>  ", "\t</Private>"),
        ("<private >", "</ private>"),
        ("\ufeff<private>", "</private>\u200b"),
        ("<Private>", "< /PRIVATE >"),
    ],
)
def test_tags_tolerate_case_and_surrounding_whitespace(opening: str, closing: str) -> None:
    text = doc("a", opening, "secret", closing, "b")
    assert strip_private(text) == "a\nb\n"


@pytest.mark.parametrize(
    "line",
    ["text <private>", "<private> text", "> <private>", "<private>>", "<!-- <private> -->"],
)
def test_inline_open_tag_not_alone_hides_to_its_close_not_as_a_block(line: str) -> None:
    text = doc("a", line, "still hidden", "x </private> back")
    assert strip_private(text).splitlines()[-1] == " back"
    assert "still hidden" not in strip_private(text)
    report = analyze(text)
    assert not any(r.reason == REASON_BLOCK for r in report.hidden_ranges)


def test_near_miss_word_is_not_a_tag() -> None:
    assert "still visible" in strip_private(doc("a", "<privately>", "still visible"))


def test_inline_span_in_a_memory_file_is_cut_and_quoted_tags_stay() -> None:
    text = doc(
        "my key is <private>abc</private> here",
        "Use `<private>` tags",
        "<private>only a span</private>",
    )
    assert strip_private(text) == "my key is  here\nUse `<private>` tags\n\n"
    assert analyze(text).warnings == []


def test_unclosed_inline_span_hides_to_the_end_and_is_reported() -> None:
    text = doc("a", "key <private>abc", "more", "b")
    assert strip_private(text) == "a\nkey \n"
    warnings = analyze(text).warnings
    assert warnings == ["line 2: inline <private> is never closed; everything after it is hidden"]


def test_nested_blocks_close_only_at_depth_zero() -> None:
    text = doc("a", "<private>", "s1", "<private>", "s2", "</private>", "s3", "</private>", "b")
    assert strip_private(text) == "a\nb\n"
    assert analyze(text).hidden_ranges == [HiddenRange(2, 8, REASON_BLOCK)]


def test_unclosed_block_hides_to_end_of_file_with_warning() -> None:
    text = doc("a", "<private>", "s1", "s2")
    assert strip_private(text) == "a\n"
    report = analyze(text)
    assert report.hidden_ranges == [HiddenRange(2, 4, REASON_UNCLOSED)]
    assert report.warnings == ["line 2: <private> is never closed; everything after it is hidden"]


def test_unclosed_nested_block_hides_to_end() -> None:
    text = doc("<private>", "<private>", "s", "</private>", "still secret")
    assert strip_private(text) == ""


def test_stray_close_tag_is_hidden_and_reported() -> None:
    text = doc("a", "</private>", "b")
    assert strip_private(text) == "a\nb\n"
    report = analyze(text)
    assert report.hidden_ranges == [HiddenRange(2, 2, REASON_STRAY)]
    assert report.warnings == [
        "line 2: </private> without an open <private>; the tag line is hidden"
    ]


# ----------------------------------------------------------------------------- code fences


@pytest.mark.parametrize(
    ("fence", "closer"),
    [
        ("```", "```"),
        ("~~~", "~~~~ "),
        ("````python", "`````"),
        ("   ```", "```"),
        ("~~~~ x", "~~~~"),
    ],
)
def test_tags_inside_a_code_fence_are_code(fence: str, closer: str) -> None:
    text = doc("Example:", fence, "<private>", "shown", "</private>", closer, "after")
    assert strip_private(text) == text
    assert analyze(text).hidden_ranges == []


def test_fence_closes_only_with_same_char_and_enough_length() -> None:
    text = doc("````", "~~~~~", "<private>", "code", "````", "<private>", "hidden", "</private>")
    assert strip_private(text) == doc("````", "~~~~~", "<private>", "code", "````")


def test_a_shorter_fence_inside_a_fence_makes_the_pairing_a_guess() -> None:
    """CommonMark reads the inner ``` as content, a person may read it as a new block: the
    tags count, and everything they may mean as private is hidden."""
    text = doc(
        "````", "```", "~~~~~", "<private>", "code", "````", "<private>", "hidden", "</private>"
    )
    assert strip_private(text) == doc("````", "```", "~~~~~")


def test_backtick_fence_info_with_backtick_is_not_a_fence() -> None:
    text = doc("```inline``` code", "<private>", "secret", "</private>", "```")
    assert "secret" not in strip_private(text)


def test_four_space_indented_fence_is_not_a_fence() -> None:
    text = doc("    ```", "<private>", "secret", "</private>", "    ```")
    assert "secret" not in strip_private(text)


def test_fence_that_never_closes_protects_no_tag() -> None:
    text = doc("```python", "print()", "<private>", "secret", "</private>", "end")
    assert strip_private(text) == doc("```python", "print()", "end")
    assert any("code fence is never closed" in w for w in analyze(text).warnings)


def test_fence_inside_private_block_cannot_end_it_or_leak() -> None:
    text = doc("<private>", "```", "s1", "```", "s2", "</private>", "visible")
    assert strip_private(text) == "visible\n"


def test_unbalanced_fence_inside_block_does_not_swallow_close_tag() -> None:
    text = doc("<private>", "```", "secret", "</private>", "after")
    assert strip_private(text) == "after\n"


def test_fenced_close_tag_inside_block_hides_under_both_readings() -> None:
    # Reading fences inside the block, the first </private> is code and the block ends at the
    # last one; reading without fences it ends early. Either way 'secret' must stay hidden.
    text = doc("<private>", "```", "</private>", "```", "secret", "</private>", "after")
    assert strip_private(text) == "after\n"
    report = analyze(text)
    assert HiddenRange(4, 5, REASON_AMBIGUOUS) in report.hidden_ranges
    assert HiddenRange(6, 6, REASON_STRAY) in report.hidden_ranges
    assert any("ambiguous" in w for w in report.warnings)


def test_fenced_open_tag_inside_block_keeps_nesting_counted() -> None:
    text = doc("<private>", "```", "<private>", "```", "</private>", "secret", "</private>", "x")
    assert strip_private(text) == "x\n"


# ----------------------------------------------------------------------------- line endings


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r", "\u2028"])
def test_every_line_ending_is_a_line_break(eol: str) -> None:
    text = eol.join(["a", "<private>", "secret", "</private>", "b"]) + eol
    assert strip_private(text) == "a\nb\n"
    assert clean_captured(text) == "a\nb"


def test_mixed_line_endings_keep_line_numbers_in_blank_private() -> None:
    text = "a\r\n<private>\rsecret\n</private>\r\nb"
    assert blank_private(text) == "a\n\n\n\nb"
    assert visible_lines(text) == [(1, "a"), (5, "b")]


def test_no_tags_means_no_change() -> None:
    text = "# Title\n\nSome `code` and <b>html</b>.\n```\nx\n```\n"
    assert strip_private(text) == text
    assert blank_private(text) == text
    assert analyze(text).hidden_ranges == []


def test_empty_text() -> None:
    assert strip_private("") == ""
    assert blank_private("") == ""
    assert analyze("").total_lines == 0
    assert clean_captured("") is None
    assert clean_captured(" \n\t") is None


# ----------------------------------------------------------------------------- front matter


@pytest.mark.parametrize(
    "text",
    [
        "---\nprivate: true\n---\nsecret\n",
        "\ufeff---\nprivate: true\n---\nsecret\n",
        "---\r\nprivate: true\r\n---\r\nsecret\r\n",
        "---\rprivate: yes\r---\rsecret",
        '---\nprivate: "true"\n---\nsecret\n',
        "---\nprivate: 'yes'\n---\nsecret\n",
        "---\nPrivate: True\n---\nsecret\n",
        "---\nPRIVATE: ON   # keep out\n---\nsecret\n",
        "---\ntitle: x\nprivate: 1\n...\nsecret\n",
        "---\nprivate: true\nsecret with no closing front matter\n",
        "\n\n---\nprivate: true\n---\nsecret\n",
    ],
)
def test_private_front_matter_hides_the_file(text: str) -> None:
    assert is_private_file(text)
    report = analyze(text)
    assert report.file_private
    assert report.reason and "private" in report.reason
    assert report.hidden_ranges[0].start == 1
    assert report.hidden_ranges[0].end == report.total_lines
    assert strip_private(text) == ""
    assert "secret" not in blank_private(text)
    assert blank_private(text).count("\n") >= report.total_lines - 1
    assert visible_lines(text) == []
    assert clean_captured(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "---\nprivate: false\n---\nbody\n",
        "---\nprivate: no\n---\nbody\n",
        "---\nPrivate: 'False' # reviewed\n---\nbody\n",
        "---\ntitle: private: true\n---\nbody\n",
        "---\nnotes:\n  private: false\n---\nbody\n",
        "body\n---\nprivate: true\n---\n",
        "private: true\nbody\n",
    ],
)
def test_files_not_marked_private_keep_their_content(text: str) -> None:
    assert not is_private_file(text)
    assert "body" in strip_private(text)


def test_unrecognised_private_value_is_treated_as_private() -> None:
    text = "---\nprivate: maybe\n---\nbody\n"
    report = analyze(text)
    assert report.file_private
    assert report.warnings and "treated as private" in report.warnings[0]
    assert strip_private(text) == ""


def test_unclosed_front_matter_is_named_in_the_reason() -> None:
    report = analyze("---\nprivate: true\nbody\n")
    assert report.reason is not None and "not closed" in report.reason


# ----------------------------------------------------------------------------- captured text


def test_inline_private_span_is_removed_from_captured_text() -> None:
    assert clean_captured("my token is <private>abc</private> ok") == "my token is  ok"


def test_nested_and_multiline_inline_spans() -> None:
    text = "a <private>x <PRIVATE>y</private> z</private> b\nc <private>\nd\n</private> e"
    assert clean_captured(text) == "a  b\nc  e"


def test_unclosed_inline_span_hides_to_the_end() -> None:
    assert clean_captured("keep <private> secret\nmore secret") == "keep"


def test_fully_private_prompt_is_not_stored() -> None:
    assert clean_captured("<private>everything</private>") is None
    assert clean_captured("  <private>\neverything\n</private>\n") is None
    assert clean_captured("<private>") is None


def test_block_lines_in_captured_text_are_removed_even_with_inline_close() -> None:
    text = "ask\n<private>\nsecret1 then </private> oops\nsecret2\n</private>\nthanks"
    assert clean_captured(text) == "ask\nthanks"


def test_tags_in_code_still_count_in_captured_text() -> None:
    text = "how do I\n```\n<private>\n```\nsecret"
    cleaned = clean_captured(text)
    assert cleaned is not None and "secret" not in cleaned


def test_context_marker_is_removed() -> None:
    assert CONTEXT_MARKER_TAG == "conkeeper-memory"
    text = 'before\n<conkeeper-memory project="x">\nold memory\n</conkeeper-memory>\nafter'
    assert clean_captured(text) == "before\n\nafter"
    assert clean_captured("<conkeeper-memory>only injected</conkeeper-memory>") is None


def test_captured_secrets_are_redacted() -> None:
    cleaned = clean_captured(f"use {AWS_KEY} please")
    assert cleaned == "use [REDACTED:aws-access-key] please"


def test_removing_a_span_cannot_hide_a_secret_from_redaction() -> None:
    cleaned = clean_captured(f"{AWS_KEY[:8]}<private>x</private>{AWS_KEY[8:]}")
    assert cleaned is not None and AWS_KEY not in cleaned


# ----------------------------------------------------------------------------- secrets report


def test_exposed_secrets_ignore_private_content() -> None:
    text = doc("visible " + AWS_KEY, "<private>", "hidden " + AWS_KEY, "</private>")
    found = exposed_secrets(text)
    assert [(m.kind, m.line) for m in found] == [("aws-access-key", 1)]
    assert exposed_secrets("---\nprivate: true\n---\n" + AWS_KEY) == []


def test_mask_hint_reveals_little() -> None:
    assert mask_hint(AWS_KEY) == "AKIA…"
    assert mask_hint("hunter2") == "h…"
    assert mask_hint("abc") == "…"


# ----------------------------------------------------------------------------- speed


def test_two_hundred_files_scan_fast() -> None:
    block = doc(
        "# Notes", "- item with `code`", "<private>", "token", "</private>", "```", "x", "```"
    )
    text = block * 60  # ~480 lines, a large memory file
    start = time.process_time()  # this process's CPU: other work on the machine does not count
    for _ in range(200):
        strip_private(text)
    assert time.process_time() - start < 2.0


def test_pathological_input_stays_linear() -> None:
    lines = ["`" * n for n in range(200, 3, -1)] + ["<" * 5000, "<private " * 2000]
    text = "\n".join(lines * 20)
    start = time.process_time()
    analyze(text)
    clean_captured(text + "<private>" * 20000)
    assert time.process_time() - start < 2.0


@pytest.mark.parametrize(
    "text",
    [
        "---\n  private: true\n---\nsecret\n",
        "---\ntitle: x\n  private: true\n---\nsecret\n",
        "---\nnotes:\n  private: true\n---\nsecret\n",
        "---\n\tprivate: yes\n---\nsecret\n",
        "---\n- private: true\n---\nsecret\n",
        "---\nprivate: false\n  private: true\n---\nsecret\n",
    ],
)
def test_an_indented_or_listed_private_flag_hides_the_file(text: str) -> None:
    """Fail closed: a ``private: true`` the flat parser reads as nested still hides the file,
    even beside a plain ``private: false`` (when in doubt, hide)."""
    assert is_private_file(text)
    assert strip_private(text) == ""
    assert clean_captured(text) is None
    report = analyze(text)
    assert report.file_private
    assert any("written unusually" in w for w in report.warnings)


@pytest.mark.parametrize("fence", ["```", "~~~", "````"])
@pytest.mark.parametrize("gap", [[], ["between"]])
def test_a_private_block_after_an_odd_number_of_fences_stays_hidden(
    fence: str, gap: list[str]
) -> None:
    """Two blocks and a stray fence, then a well-formed block and a later code block: read in
    order the stray fence pairs with the later block's opener and the private block would be
    code. Which fence is the stray one is a guess, so the block is hidden."""
    lines = [
        "<private>",
        "first",
        "</private>",
        *gap,
        fence,
        "<private>",
        "second",
        "</private>",
        "text",
        "<private>",
        "SECRET",
        "</private>",
        fence,
        "code",
        fence,
        "end",
    ]
    text = "\n".join(lines) + "\n"
    for out in (strip_private(text), blank_private(text), clean_captured(text) or ""):
        assert "SECRET" not in out
        assert "second" not in out
    assert "end" in strip_private(text)
    assert any("no partner" in w for w in analyze(text).warnings)


def test_a_fenced_example_still_shows_when_every_fence_pairs() -> None:
    text = "intro\n```\n<private>\nexample\n</private>\n```\nafter\n"
    assert "example" in strip_private(text)
