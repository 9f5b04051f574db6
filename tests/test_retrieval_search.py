"""One search returns memory entries and observations/summaries/prompts, each labelled."""

from __future__ import annotations

from pathlib import Path

import conkeeper.services.observations.search_source  # noqa: F401 - registers the source
from conkeeper.domain.paths import locate_project
from conkeeper.services.observations.extract import extract_session
from conkeeper.services.observations.replay import load_recording, relocate, replay
from conkeeper.services.search.engine import SearchRequest, search
from conkeeper.storage.store import open_store

DATA = Path(__file__).parent / "data" / "sessions"


def test_search_merges_memory_and_observations(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    (root / ".git").mkdir()
    (memory / "patterns.md").write_text("# Patterns\n\n## Discounts\nApply discount before tax.\n")
    conn = open_store()
    rec = relocate(
        load_recording(DATA / "bugfix_cart_discount.json"), locate_project(root).identity
    )
    extract_session(conn, replay(conn, rec))
    conn.close()
    response = search(
        SearchRequest(
            query="discount", cwd=root, extra_sources=("observation", "summary", "prompt")
        )
    )
    sources = {hit.source for hit in response.hits}
    assert {"memory", "observation", "summary", "prompt"} <= sources
    obs = next(h for h in response.hits if h.source == "observation")
    assert obs.ref.startswith("obs:") and obs.heading.startswith("#")
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    scoped = search(SearchRequest(query="discount", cwd=elsewhere, extra_sources=("observation",)))
    assert not [h for h in scoped.hits if h.source == "observation"]
