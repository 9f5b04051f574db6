"""The tolerant front-matter parser shared by config and privacy."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conkeeper.domain.frontmatter import parse_bool, parse_front_matter


def test_flat_values_with_bom_crlf_quotes_and_comments() -> None:
    text = '\ufeff---\r\nprivate: "True"  # hide\r\nsave_interval: 10\r\n---\r\n# Body\r\n'
    fm = parse_front_matter(text)
    assert fm.present and fm.closed and fm.end_line == 4
    assert fm.values == {"private": "True", "save_interval": "10"}
    assert parse_bool(fm.values["private"]) is True


def test_no_front_matter() -> None:
    fm = parse_front_matter("# Title\nprivate: true\n")
    assert not fm.present and fm.values == {}


def test_unclosed_front_matter_is_still_read_and_reported() -> None:
    fm = parse_front_matter("---\nprivate: yes\n# no close")
    assert fm.present and not fm.closed
    assert fm.values["private"] == "yes"
    assert any("not closed" in e for e in fm.errors)


def test_malformed_lines_are_errors_not_exceptions() -> None:
    fm = parse_front_matter("---\njust words\nkey: 'value # not a comment'\n---\n")
    assert fm.values == {"key": "value # not a comment"}
    assert fm.errors and "line 2" in fm.errors[0]


def test_parse_bool_variants() -> None:
    for raw in ("true", "TRUE", "'yes'", '"On"', "1"):
        assert parse_bool(raw) is True
    for raw in ("false", "No", "off", "0"):
        assert parse_bool(raw) is False
    assert parse_bool("maybe") is None


@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    fm = parse_front_matter(text)
    assert fm.end_line <= len(text.splitlines()) or not fm.present
