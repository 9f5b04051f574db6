"""Search ranking beyond a section's best line (issue 9): a section's other matching lines count
as evidence when ordering files, and a term is weighed by its rarity among lines as well as among
sections — through the real ``conkeeper search`` command and the service it calls."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_search_questions import first_block

from conftest import run_cli
from conkeeper.domain.ranking import LINE_COUNT_SHARE
from conkeeper.services.search.engine import (
    LINE_IDF_SHARE,
    SearchContext,
    SearchHit,
    SearchRequest,
    build_match,
    hit_rank,
    search,
)
from conkeeper.services.search.engine import HitLine as Line
from conkeeper.storage import index as idx


def cli_json(proj: Path, *args: str) -> dict:
    proc = run_cli("search", "--json", *args, cwd=proj)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def write(proj: Path, name: str, text: str) -> None:
    (proj / ".claude" / "memory" / name).write_text(text, encoding="utf-8")


# Every section holds both "kids" and "like", so their idf over sections is the same; "like" is
# on most lines, "kids" on one: among lines, "kids" is the rarer word and the better evidence.
FAMILY = "".join(
    f"## Week {n}\n\n- we like the park\n- the weather was mild\n- they like the beach\n"
    f"- rain in the evening\n- we like pancakes\n- a quiet sunday\n- the kids built a raft\n\n"
    for n in range(1, 4)
)


def test_a_word_rare_among_lines_outweighs_one_on_every_line(project: Path) -> None:
    write(project, "family.md", "# Family\n\n" + FAMILY)
    payload = cli_json(project, "what do the kids like?")
    first = next(ln for r in payload["results"] for ln in r["lines"] if ln["match"])
    assert "kids built a raft" in first["text"]
    out = run_cli("search", "what do the kids like?", cwd=project).stdout
    assert any("kids built a raft" in line for line in first_block(out))
    assert out.rstrip().endswith("file.")


def test_line_rarity_is_blended_once_per_search(project: Path) -> None:
    write(project, "family.md", "# Family\n\n" + FAMILY)
    store = idx.open_index_store(project.parent / "db.sqlite")
    plan = build_match("kids like")
    request = SearchRequest(query="kids like", cwd=project)
    ctx = SearchContext(store.conn, plan, request, {}, 0, 30, _weights=(1.0, 1.0))
    ctx.blend_line_rarity([1, 9], 10)
    kids, like = ctx.weights()
    assert kids > like > 1.0 - LINE_IDF_SHARE
    # The fallback context keeps the first blend: hits from both phases share one scale.
    again = ctx.replace(plan=plan)
    again.blend_line_rarity([9, 1], 10)
    assert again.weights() == (kids, like)
    # No lines found: the section idf stands.
    fresh = SearchContext(store.conn, plan, request, {}, 0, 30, _weights=(1.0, 2.0))
    fresh.blend_line_rarity([0, 0], 0)
    assert fresh.weights() == (1.0, 2.0)
    store.conn.close()


def _hit(lines: int, cover: float = 1.0, score: float = 1.0) -> SearchHit:
    shown = tuple(Line(i + 1, f"line {i}", True, cover) for i in range(lines))
    return SearchHit("memory", "a.md", 1, "", "", (), (), score, shown, cover=cover)


def test_hit_rank_counts_every_matching_line_log_damped() -> None:
    one, four, nine = _hit(1), _hit(4), _hit(9)
    assert hit_rank(one, 1.0) < hit_rank(four, 1.0) < hit_rank(nine, 1.0)
    # Damped: the ninth matching line adds less than the second did.
    assert hit_rank(nine, 1.0) - hit_rank(four, 1.0) < 2.5 * (
        hit_rank(four, 1.0) - hit_rank(one, 1.0)
    )
    # A clearly better best line still wins over many weak lines.
    assert hit_rank(_hit(1, cover=1.0), 1.0) > hit_rank(_hit(30, cover=0.5), 1.0)
    assert LINE_COUNT_SHARE > 0


GATEWAY_BUSY = """# Gateway week

## Ops
- the deploy gateway restarted at noon
- lunch was late again today for everyone in the office on the third floor
- the gateway certificate was renewed by the platform team after the audit
- coffee machine repaired and the kitchen was cleaned by the facilities crew
- the gateway logs now rotate every day and are shipped to the archive bucket
- tea supplies ordered for the whole floor and the meeting rooms upstairs too
- the gateway moved to the new racks in the second data centre this week
"""
GATEWAY_ONCE = """# Deploy note

## Ops
- the deploy gateway restarted at noon
"""


def test_a_section_with_more_matching_lines_is_listed_first(project: Path) -> None:
    # Both best lines hold the whole query; the busy section (longer, so BM25 favours the short
    # one) says more about the gateway on other, non-adjacent lines.
    write(project, "busy.md", GATEWAY_BUSY)
    write(project, "once.md", GATEWAY_ONCE)
    store = idx.open_index_store(project.parent / "db.sqlite")
    response = search(SearchRequest(query="deploy gateway", cwd=project, limit=5), store)
    store.conn.close()
    assert [h.path.rsplit("/", 1)[-1] for h in response.hits] == ["busy.md", "once.md"]
    assert response.hits[0].lines[0].text == "- the deploy gateway restarted at noon"
