"""Search that answers questions (issue 9): natural-language questions, irregular forms, line
ranking, the visible ``--sessions`` window and the read path's import budget — through the real
``conkeeper search`` command and the service it calls."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from pathlib import Path

import pytest

from conftest import run_cli
from conkeeper.domain.memory import MEMORY_LAYOUT, memory_file_kind
from conkeeper.domain.paths import locate_project
from conkeeper.services.search.engine import SearchRequest, build_match, search, term_weights
from conkeeper.storage import index as idx
from conkeeper.storage.index_scan import NOT_INDEXED

TEAM = """# Team

## People
- Maria leads the platform group.
- Anthony joined the team in March as the release manager.
- Maria reviews every schema change.

## Purchases
- We bought the figurines for the demo booth in May.
- The children's section of the docs was rewritten.
- The nightly job ran out of memory twice last week.
"""

LONG = """# Cache notes

## Cache
- cache warmed on start
- cache size is 64 MB
- cache keys include the tenant
- cache misses are logged
- cache entries expire after an hour
- cache stampede fixed by the token refresh lock in the gateway
"""


@pytest.fixture
def proj(project: Path) -> Path:
    memory = project / ".claude" / "memory"
    (memory / "team.md").write_text(TEAM, encoding="utf-8")
    (memory / "cache.md").write_text(LONG, encoding="utf-8")
    return project


def cli_json(proj: Path, *args: str) -> dict:
    proc = run_cli("search", "--json", *args, cwd=proj)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def match_lines(payload: dict) -> list[str]:
    return [ln["text"] for r in payload["results"] for ln in r["lines"] if ln["match"]]


def test_question_words_and_stopwords_do_not_block_a_match(proj: Path) -> None:
    assert build_match("Who is Anthony?").match == '"anthony"'
    lines = match_lines(cli_json(proj, "Who is Anthony?"))
    assert lines and "Anthony joined" in lines[0]


def test_a_question_falls_back_to_its_best_partial_matches(proj: Path) -> None:
    # "platform" and "group" are there, "budget" is not: AND finds nothing, OR ranks the rest.
    lines = match_lines(cli_json(proj, "What is the budget of the platform group?"))
    assert lines and "platform group" in lines[0]


def test_keyword_queries_still_require_every_word(proj: Path) -> None:
    both = cli_json(proj, "maria", "schema")
    assert [r["heading"] for r in both["results"]] == ["People"]
    assert match_lines(both)[0] == "- Maria reviews every schema change."
    # No entry holds both words: rather than nothing, the entries holding either one.
    either = match_lines(cli_json(proj, "maria", "figurines"))
    assert any("figurines" in t for t in either) and any("Maria" in t for t in either)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did we buy the figurines?", "bought the figurines"),
        ("Which child docs changed?", "children's section"),
        ("Why does the nightly job run out of memory?", "job ran out"),
    ],
)
def test_irregular_forms_are_found(proj: Path, question: str, expected: str) -> None:
    lines = match_lines(cli_json(proj, question))
    assert lines and expected in lines[0]


def test_irregular_table_keeps_phrases_prefixes_and_identifiers_as_typed() -> None:
    assert build_match('"we bought"').match == '"we bought"'
    assert build_match("buy*").match == '"buy"*'
    assert build_match("parse_config").match == '"parse config"'
    assert build_match("bought").match == '("buy" OR "bought")'


def test_the_line_holding_most_of_the_query_comes_first(proj: Path) -> None:
    payload = cli_json(proj, "why did the cache stampede need a token lock?")
    first = payload["results"][0]
    assert first["lines"][0]["match"] and "stampede" in first["lines"][0]["text"]
    out = run_cli("search", "cache stampede token lock", cwd=proj).stdout
    best = [line for line in first_block(out) if "stampede" in line]
    assert best and best[0].startswith("**Line 9:**")
    assert out.rstrip().endswith("files.") or out.rstrip().endswith("file.")


def test_rare_terms_outweigh_common_ones(proj: Path) -> None:
    root = proj
    store = idx.open_index_store(root.parent / "db.sqlite")
    response = search(SearchRequest(query="cache tenant", cwd=root, limit=5), store)
    lines = [ln.text for h in response.hits for ln in h.lines if ln.match]
    assert lines[0] == "- cache keys include the tenant"


REVIEW = """# Deploy review

- the canary rollout paused at ten percent
- lunch arrived late
- the rollback script restored the previous image
- the coffee machine is fixed
- the pager woke everyone
"""
DRILL = """# Drill

- canary rollout drill: read the canary rollout runbook before a canary rollout
"""
MISC = """# Misc

- the pager moved to a new desk
- the printer jammed
- a rollback of the wiki theme
"""


def test_the_session_covering_the_whole_question_is_listed_first(proj: Path) -> None:
    # Both files' best line holds "canary rollout"; the drill repeats it (higher BM25) and is
    # newer, but only the review also holds "rollback" and "pager", on other lines.
    folder = proj / ".claude" / "memory" / "sessions"
    folder.mkdir()
    for name, text in (("05-review", REVIEW), ("09-drill", DRILL), ("07-misc", MISC)):
        (folder / f"2026-01-{name}.md").write_text(text, encoding="utf-8")
    question = "why did the canary rollout need a rollback and the pager?"
    payload = cli_json(proj, "--sessions", "--all-time", question)
    files = [r["path"].rsplit("/", 1)[-1] for r in payload["results"]]
    assert files[:2] == ["2026-01-05-review.md", "2026-01-09-drill.md"]
    assert "canary rollout paused" in match_lines(payload)[0]


def test_idf_is_judged_over_the_memory_searched(tmp_path: Path, project: Path) -> None:
    # "deploy" is everywhere in another project's memory but rare in this one: searching this
    # project, it must weigh as a rare word.
    (project / ".claude" / "memory" / "notes.md").write_text(
        "# A\n\n- deploy on friday\n\n# B\n\n- lunch\n\n# C\n\n- coffee\n", encoding="utf-8"
    )
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / ".claude" / "memory").mkdir(parents=True)
    noisy = "".join(f"# H{i}\n\n- deploy step {i}\n\n" for i in range(30))
    (other / ".claude" / "memory" / "deploys.md").write_text(noisy, encoding="utf-8")
    store = idx.open_index_store(tmp_path / "db.sqlite")
    roots = [idx.project_root(store.conn, locate_project(p)) for p in (other, project)]
    mine = [idx.refresh_root(store.conn, root).root_id for root in roots][-1]
    terms = ('"deploy"', '"lunch"')
    scoped = term_weights(store.conn, terms, [mine])
    everywhere = term_weights(store.conn, terms)
    assert scoped[0] > 2 * everywhere[0]


def _session(proj: Path, days_ago: int, text: str) -> None:
    day = (date.today() - timedelta(days=days_ago)).isoformat()
    folder = proj / ".claude" / "memory" / "sessions"
    folder.mkdir(exist_ok=True)
    (folder / f"{day}-notes.md").write_text(f"# Session\n\n- {text}\n", encoding="utf-8")


def test_the_sessions_window_is_never_silent(proj: Path) -> None:
    _session(proj, 2, "rollback of the gateway deploy")
    _session(proj, 200, "gateway deploy froze the queue")
    _session(proj, 400, "gateway deploy needed a manual step")
    out = run_cli("search", "--sessions", "gateway deploy", cwd=proj)
    assert "rollback of the gateway" in out.stdout and "froze" not in out.stdout
    assert "2 older session files not searched" in out.stdout
    assert "--all-time" in out.stdout
    everything = run_cli("search", "--sessions", "--all-time", "gateway deploy", cwd=proj)
    assert "froze the queue" in everything.stdout and "manual step" in everything.stdout
    assert "not searched" not in everything.stdout
    since = run_cli("search", "--sessions", "--since", "300d", "gateway deploy", cwd=proj)
    assert "froze the queue" in since.stdout and "manual step" not in since.stdout
    payload = cli_json(proj, "--sessions", "gateway deploy")
    assert any("2 older session files not searched" in n for n in payload["notices"])
    none = run_cli("search", "--sessions", "manual step", cwd=proj)
    assert "No results found" in none.stdout and "not searched" in none.stdout


def test_not_indexed_names_follow_the_memory_layout() -> None:
    layout = {
        item.path
        for items in MEMORY_LAYOUT.values()
        for item in items
        if memory_file_kind(item.path) in ("config", "schema")
    }
    assert layout == NOT_INDEXED


def first_block(out: str) -> list[str]:
    """The first block of the text output: the run of adjacent shown lines (matches and
    context) at the top of the first file, in line order."""
    block: list[str] = []
    for line in out.splitlines():
        found = re.match(r"(?:\*\*Line (\d+):\*\*|  Line (\d+):) ", line)
        if found is None:
            if block:
                break
            continue
        number = int(found.group(1) or found.group(2))
        if block and number != int(re.findall(r"Line (\d+):", block[-1])[0]) + 1:
            break
        block.append(line)
    return block
