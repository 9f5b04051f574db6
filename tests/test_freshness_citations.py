"""What a memory entry cites: shapes recognised, prose left alone, and a parser that never
raises (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conkeeper.services.upkeep.freshness.citations import find_citations, split_entries


def cited(text: str) -> set[tuple[str, str]]:
    return {(c.kind, c.value) for c in find_citations(text)}


def test_shapes() -> None:
    text = (
        "Tokens refresh in `src/auth/token.py:42` via `refresh_token()` on `TokenStore`; "
        "run `make test-auth` or `npm run build`, set `DATABASE_URL`, see ./docs/setup.md "
        "and `python -m app.cli serve`."
    )
    assert cited(text) == {
        ("path", "src/auth/token.py"),
        ("symbol", "refresh_token"),
        ("symbol", "TokenStore"),
        ("command", "test-auth"),
        ("command", "build"),
        ("key", "DATABASE_URL"),
        ("path", "docs/setup.md"),
        ("command", "app.cli"),
    }


def test_prose_urls_and_absolute_paths_are_not_citations() -> None:
    text = (
        "We and/or they decided, e.g. yesterday, to read https://example.com/a/b.py and "
        "`/etc/hosts`, `~/notes.md`, `../outside.py`, `print()`, `git status`, `True`."
    )
    assert cited(text) == set()


def test_entries_skip_comments_front_matter_and_split_table_rows() -> None:
    text = (
        "---\nprivate: false\n---\n# Title\n<!--\nguidance `src/example.py`\n-->\n"
        "- uses `src/a.py`\n  and `src/b.py`\n\n| x | `src/c.py` |\n| y | `src/d.py` |\n"
    )
    entries = split_entries(text)
    assert [(e.start, e.end) for e in entries] == [(8, 9), (11, 11), (12, 12)]
    assert [c.value for c in entries[0].citations] == ["src/a.py", "src/b.py"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab/._-`()|#<!->~ \n*0123456789:")), max_size=400))
def test_split_entries_never_raises_and_stays_in_range(text: str) -> None:
    lines = text.splitlines()
    for entry in split_entries(text, every=True):
        assert 1 <= entry.start <= entry.end <= len(lines)
        for citation in entry.citations:
            if citation.kind == "path":
                assert not citation.value.startswith(("/", "~")) and ".." not in citation.value
