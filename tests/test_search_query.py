"""The query language and ranking: stemming, phrases, prefixes, identifiers, OR, field weights,
recency — and that no text at all can make FTS5 raise a syntax error."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conkeeper.services.search import query as query_scan
from conkeeper.services.search.engine import (
    MAX_TERMS,
    SearchError,
    SearchHit,
    SearchRequest,
    build_match,
    echo_query,
    format_markdown,
    register_source,
    search,
)
from conkeeper.storage import index as idx

DOCS = {
    "running.md": "# Runner\nThe nightly job keeps running the migrations.\n",
    "config.md": "# Config\nCall parse_config before load.\nThe parseConfig helper is legacy.\n",
    "paths.md": "# Paths\nTokens are refreshed in src/auth/token.py on expiry.\n",
    "phrase.md": "# Phrase\nThe token budget is tight.\nBudget for the token is elsewhere.\n",
    "prefix.md": "# Prefix\nWe migrated the schema last week.\n",
    "heading.md": "# Kumquat\nA section about fruit.\n",
    "body.md": "# Fruit basket\nOne kumquat sits in the basket with other fruit.\n",
}


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, idx.IndexStore]:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    mem = root / ".claude/memory"
    mem.mkdir(parents=True)
    for name, text in DOCS.items():
        (mem / name).write_text(text, encoding="utf-8")
    return root, idx.open_index_store(tmp_path / "db.sqlite")


def paths(world: tuple[Path, idx.IndexStore], query: str, **kw: object) -> list[str]:
    root, store = world
    hits = search(SearchRequest(query=query, cwd=root, **kw), store).hits  # type: ignore[arg-type]
    return [h.path.rsplit("/", 1)[-1] for h in hits]


def test_case_insensitive_and_stemmed(world: tuple[Path, idx.IndexStore]) -> None:
    assert paths(world, "RUN") == ["running.md"]
    assert paths(world, "runs") == ["running.md"]
    assert "prefix.md" in paths(world, "migrate")  # "migrated" and "migrations" share a stem


def test_quoted_phrase_requires_adjacency(world: tuple[Path, idx.IndexStore]) -> None:
    assert paths(world, '"token budget"') == ["phrase.md"]
    assert paths(world, '"budget token"') == []
    assert paths(world, "budget token") == ["phrase.md"]


def test_prefix(world: tuple[Path, idx.IndexStore]) -> None:
    assert set(paths(world, "migr*")) == {"running.md", "prefix.md"}
    assert paths(world, "kumq*")[0] in {"heading.md", "body.md"}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("parse_config", {"config.md"}),
        ("parseConfig", {"config.md"}),
        ("config", {"config.md"}),
        ("src/auth/token.py", {"paths.md"}),
        ("auth", {"paths.md"}),
        ("token.py", {"paths.md"}),
    ],
)
def test_identifiers_by_parts_and_whole(
    world: tuple[Path, idx.IndexStore], query: str, expected: set[str]
) -> None:
    assert set(paths(world, query)) == expected


def test_identifier_spellings_find_each_other(world: tuple[Path, idx.IndexStore]) -> None:
    root, store = world
    hits = search(SearchRequest(query="parseConfig", cwd=root), store).hits
    lines = {ln.line for h in hits for ln in h.lines if ln.match}
    assert lines == {2, 3}  # both the snake_case and the camelCase line


def test_or_between_terms(world: tuple[Path, idx.IndexStore]) -> None:
    found = set(paths(world, "kumquat OR migrations"))
    assert found == {"heading.md", "body.md", "running.md", "prefix.md"}  # migrat- stem
    assert paths(world, "kumquat AND fruit")[0] in {"heading.md", "body.md"}


def test_heading_outranks_body(world: tuple[Path, idx.IndexStore]) -> None:
    assert paths(world, "kumquat") == ["heading.md", "body.md"]


def test_recent_files_rank_higher_when_text_ties(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    mem = root / ".claude/memory"
    mem.mkdir(parents=True)
    text = "# Note\nThe walrus protocol is documented here.\n"
    for name in ("old.md", "new.md"):
        (mem / name).write_text(text, encoding="utf-8")
    year_ago = 1_000_000_000
    os.utime(mem / "old.md", (year_ago, year_ago))
    store = idx.open_index_store(tmp_path / "db.sqlite")
    hits = search(SearchRequest(query="walrus", cwd=root), store).hits
    assert [h.path.rsplit("/", 1)[-1] for h in hits] == ["new.md", "old.md"]
    assert hits[0].score > hits[1].score
    assert hits[0].score / hits[1].score < 1.3  # a mild boost, not a override


def test_empty_query_raises_search_error(world: tuple[Path, idx.IndexStore]) -> None:
    root, store = world
    for query in ("", "  ", "\x00\x00"):
        with pytest.raises(SearchError):
            search(SearchRequest(query=query, cwd=root), store)


def test_punctuation_only_query_finds_nothing_quietly(world: tuple[Path, idx.IndexStore]) -> None:
    assert paths(world, "()*-:") == []


def test_build_match_quotes_every_term() -> None:
    plan = build_match('say "hello world" parse_config run* (x) AND y OR z -w a:b NOT')
    assert plan.match == (
        '("say" OR "said") AND "hello world" AND "parse config" AND "run"* AND "x" AND '
        '("y" OR "z") AND "w" AND "a b" AND "not"'
    )
    camel = build_match("parseConfig").match
    assert camel == '("parseconfig" OR "parse config")'
    assert build_match('"unclosed quote').match == '"unclosed" AND "quote"'


def test_contractions_and_framing_words_are_dropped_from_questions() -> None:
    plan = build_match("Why wouldn't Joanna mention the pets she described?")
    assert plan.terms == ('"joanna"', '"pets"')
    assert build_match("mention").match == '"mention"'  # alone, a word is still searched


def test_build_match_caps_terms() -> None:
    plan = build_match(" ".join(f"w{i}" for i in range(1000)))
    assert plan.truncated and plan.match.count(" AND ") == MAX_TERMS - 1


def test_echo_query_is_one_short_line() -> None:
    assert echo_query("a\nb\x00c") == "a b c"
    assert len(echo_query("x" * 10_000)) == 200


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_no_text_raises_an_fts_error(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize='porter unicode61')")
    conn.execute("INSERT INTO t VALUES ('parse config', 'hello world token')")
    plan = build_match(text)
    if not plan.empty:
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (plan.match,)).fetchall()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.text(alphabet=st.sampled_from(list('ab "()*:-^_\x00ANDORNT')), min_size=1, max_size=40))
def test_any_query_through_the_service_is_safe(
    world: tuple[Path, idx.IndexStore], text: str
) -> None:
    root, store = world
    if not text.replace("\x00", "").strip():
        return
    response = search(SearchRequest(query=text, cwd=root), store)
    format_markdown(response)
    response.to_json()


class _StubSource:
    """A non-file source, as observations will register one."""

    names = ("observation",)

    def search(self, ctx: object) -> list[SearchHit]:
        return [
            SearchHit(
                "observation",
                "observations",
                0,
                "Fixed kumquat crash",
                "kumquat fixed",
                ("bugfix",),
                (),
                1e6,
                ref="obs:1",
            )
        ]


def test_extra_sources_plug_in_and_merge_by_score(world: tuple[Path, idx.IndexStore]) -> None:
    root, store = world
    register_source(_StubSource())
    try:
        req = SearchRequest(query="kumquat", cwd=root, extra_sources=("observation",))
        response = search(req, store)
        assert response.hits[0].ref == "obs:1"
        assert "### obs:1\n**observations:** kumquat fixed\n" in format_markdown(response)
        plain = search(SearchRequest(query="kumquat", cwd=root), store)
        assert all(h.source == "memory" for h in plain.hits)
    finally:
        from conkeeper.services.search import engine as module

        module._SOURCES[:] = [s for s in module._SOURCES if not isinstance(s, _StubSource)]


# The query scanners are string code (a search does not import re); each must equal its pattern.
SCRIPT_CHARS = st.sampled_from(
    [*"aZbYzA09_'sS?!.,;:- \t", "é", "É", "ß", "中", "٣", "²", "Ⅻ", "ǅ", "\u0301", "ｱ"]
)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=SCRIPT_CHARS, max_size=30))
def test_the_query_scanners_equal_their_regular_expressions(text: str) -> None:
    assert query_scan.words(text) == re.findall(r"[^\W_]+", text)
    assert query_scan.has_word(text) == bool(re.search(r"[^\W_]", text))
    possessive = re.sub(r"\A(\w+)'[sS]([?!.,;:]*)\Z", r"\1", text)
    assert query_scan.without_possessive(text) == possessive
    assert query_scan.is_camel(text) == bool(re.search(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]", text))
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W\d_A-Za-z]+", text)
    assert query_scan.camel_parts(text) == parts


@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("parseConfig", ["parse", "Config"]),
        ("HTTPServer2x", ["HTTP", "Server", "2", "x"]),
        ("getURLForID", ["get", "URL", "For", "ID"]),
        ("XMLHttpRequest", ["XML", "Http", "Request"]),
    ],
)
def test_camel_case_words_split_where_a_reader_would(word: str, parts: list[str]) -> None:
    assert query_scan.is_camel(word)
    assert query_scan.camel_parts(word) == parts


def test_term_forms_read_back_what_build_match_wrote() -> None:
    """The team search asks PostgreSQL for the same terms: each term's quoted forms come back
    as written (a phrase, a prefix, irregular forms, identifier parts)."""
    plan = query_scan.build_match('bought parseConfig "Balance Pose" conf* x OR y')
    forms = [query_scan.term_forms(term) for term in plan.terms]
    assert forms[0] == [("buy", False), ("bought", False)]
    assert forms[1] == [("parseconfig", False), ("parse config", False)]
    assert forms[2] == [("balance pose", False)]
    assert query_scan.term_forms('"a ""b"""*') == [('a "b"', True)]  # a quote inside a form
    assert forms[3] == [("conf", True)]
    assert forms[4] == [("x", False), ("y", False)]


@given(st.text(max_size=60))
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
def test_term_forms_never_fail_and_match_the_terms(text: str) -> None:
    for term in query_scan.build_match(text).terms:
        forms = query_scan.term_forms(term)
        assert forms and all(form for form, _prefix in forms)
        rebuilt = " OR ".join(
            '"' + form.replace('"', '""') + '"' + ("*" if prefix else "") for form, prefix in forms
        )
        assert rebuilt == term
