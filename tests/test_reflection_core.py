"""The shared analysis core: themes, known memory, findings, priority, the retro format, the
observation-log fallback and privacy of the evidence."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conkeeper.domain.observations import ToolEvent
from conkeeper.services.analysis.reflection import findings as f
from conkeeper.services.analysis.reflection import retro
from conkeeper.services.analysis.reflection.evidence import Correction, Evidence, gather
from conkeeper.services.analysis.reflection.known import load_known, match
from conkeeper.services.analysis.reflection.recommend import overall_scope, priority, recommend
from conkeeper.services.analysis.reflection.themes import cluster, content_words, similar

NOW = (int(time.time()) - 3600) * 1000  # an hour ago, on a whole second


def event(n: int, action: str, summary: str = "", *, path: str = "", error: str | None = None):
    return (
        ToolEvent(
            id=n,
            prompt_number=1,
            tool_use_id=f"t{n}",
            tool_name="Bash" if action == "execute" else "Edit",
            action=action,
            paths=(path,) if path else (),
            input_summary=summary,
            status="failure" if error else "success",
            error=error,
            created_at=NOW + n,
        ),
        0,
    )


def test_corrections_on_one_convention_cluster_though_worded_differently() -> None:
    texts = [
        "stop using print statements for debugging, use the logging module",
        "no print() calls please, we log with the logger",
        "the sidebar is misaligned on mobile",
    ]
    assert cluster(texts) == [[0, 1], [2]]
    assert not similar(content_words(texts[0]), content_words(texts[2]))


def test_known_reads_patterns_decisions_and_retros_but_not_private_text(tmp_path: Path) -> None:
    (tmp_path / "decisions").mkdir()
    (tmp_path / "sessions").mkdir()
    (tmp_path / "patterns.md").write_text(
        "# Patterns\n- Use pathlib for file paths\n<private>\n- Deploy keys live in vault\n"
        "</private>\n",
        encoding="utf-8",
    )
    (tmp_path / "decisions" / "ADR-001-sqlite.md").write_text(
        "# ADR-001: SQLite for sessions\nWe keep sessions in SQLite, not JSON files.\n",
        encoding="utf-8",
    )
    (tmp_path / "sessions" / "2026-01-02-retro.md").write_text(
        "# Session Retrospective — 2026-01-02\n\n## Improvement Backlog\n"
        "- [ ] #1 Run the linter before committing → patterns.md\n",
        encoding="utf-8",
    )
    known = load_known(tmp_path)
    assert match("always use pathlib for paths", known).source == "patterns.md"
    assert match("store sessions in SQLite", known).source.startswith("decisions/")
    assert match("run the linter before each commit", known).source.endswith("-retro.md")
    assert match("deploy keys are in vault", known) is None  # private: never known, never shown
    assert load_known(tmp_path, exclude_retro="sessions/2026-01-02-retro.md")[-1].source != (
        "sessions/2026-01-02-retro.md"
    )


def test_repeated_failures_retry_loops_and_abandoned_work() -> None:
    failing = "Exit code 1\nFAILED tests/test_a.py::test_x - assert 1 == 2"
    events = []
    for i in range(3):
        events.append(event(10 * i + 1, "write", path="src/a.py"))
        events.append(event(10 * i + 2, "execute", "pytest tests/test_a.py -q", error=failing))
    found = {x.kind: x for x in f.repeated_failures(events) + f.retry_loops(events)}
    assert found[f.REPEATED_FAILURE].count == 3
    assert found[f.REPEATED_FAILURE].label == "tests/test_a.py::test_x"
    assert "assert 1 == 2" in found[f.REPEATED_FAILURE].quotes[0]
    assert found[f.RETRY_LOOP].label == "src/a.py" and found[f.RETRY_LOOP].count == 3
    assert [x.kind for x in f.abandoned_work(events)] == [f.ABANDONED]
    settled = [*events, event(99, "execute", "pytest tests/test_a.py")]
    assert f.abandoned_work(settled) == []


def test_priority_is_frequency_recency_severity_and_known_items_are_dropped() -> None:
    old = f.Finding(f.REPEATED_FAILURE, "k1", "old", 4, NOW - 14 * 86_400_000, ["q"])
    new = f.Finding(f.REPEATED_FAILURE, "k2", "new", 2, NOW, ["q"])
    theme = f.Finding(f.CORRECTION_THEME, "k3", "tabs", 2, NOW, ["q"], texts=["use tabs"])
    assert priority(old, NOW) == 2.0 and priority(new, NOW) == 4.0 and priority(theme, NOW) == 6.0
    result = recommend([old, new, theme], [], now_ms=NOW, first_number=4)
    assert [r.key for r in result.recommendations] == ["k3", "k2", "k1"]
    assert [r.number for r in result.recommendations] == [4, 5, 6]
    assert overall_scope(result.recommendations) == "BOTH"
    assert (
        recommend([old, new, theme], [], now_ms=NOW, depth="minimal").recommendations[1].key == "k2"
    )


def test_observation_log_is_read_when_the_database_has_no_events(tmp_path: Path) -> None:
    day = time.strftime("%Y-%m-%d", time.localtime(NOW / 1000))
    stamp = time.strftime("%H:%M:%S", time.localtime(NOW / 1000))
    (tmp_path / "sessions").mkdir()
    line = f"- **{stamp}** | `Bash` | execute | — | `pytest -q` | failure: 2 failed\n"
    (tmp_path / "sessions" / f"{day}-observations.md").write_text(
        f"# Observations — {day}\n\n{line}{line}", encoding="utf-8"
    )
    evidence = gather(None, tmp_path, [], scope="test", since_ms=NOW - 60_000)
    assert len(evidence.events) == 2 and evidence.failures == 2
    (finding,) = f.repeated_failures(evidence.events)
    assert finding.label == "pytest -q" and finding.count == 2


def test_evidence_from_the_queue_is_cleaned_by_the_privacy_module(tmp_path: Path) -> None:
    from conkeeper.services.analysis.corrections import append_to_queue

    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    append_to_queue(tmp_path, "correction", f"no, use the token {secret} from the env", NOW / 1000)
    evidence = gather(None, tmp_path, [], scope="test", since_ms=NOW - 60_000)
    (correction,) = evidence.corrections
    assert secret not in correction.text and "REDACTED" in correction.text
    assert isinstance(correction, Correction) and isinstance(evidence, Evidence)


items = st.lists(
    st.tuples(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
            min_size=1,
            max_size=60,
        ),
        st.sampled_from(["pending", "approved", "declined"]),
        st.sampled_from(["quality", "efficiency", None]),
    ),
    max_size=6,
)


@given(items)
def test_retro_render_parse_round_trip(rows: list) -> None:
    entries = []
    for number, (text, status, category) in enumerate(rows, start=1):
        body = retro.one_line(text).strip(" -#[]") or "x"
        entries.append(
            retro.RetroItem(
                number,
                body,
                "patterns.md",
                category if status != "declined" else None,
                status,
                "because" if status == "declined" else "",
            )
        )
    document = retro.render(
        retro.Retro(
            "2026-01-02", ["- did things"], entries, ["- Corrections: 0 detected, 0 processed"]
        )
    )
    parsed = retro.parse(document)
    assert retro.render(parsed) == document
    assert sorted((i.number, i.status) for i in parsed.items) == sorted(
        (i.number, i.status) for i in entries
    )


def test_corrections_routing_uses_the_core_to_refuse_a_known_convention(tmp_path: Path) -> None:
    from conkeeper.services.analysis.corrections import QUEUE_HEADER, format_queue_line
    from conkeeper.services.analysis.routing import RoutingError, apply_item

    (tmp_path / "patterns.md").write_text(
        "# Patterns\n- Method names are snake_case\n", encoding="utf-8"
    )
    # applied without words of the person's own, the queued item is written as its rule
    line = format_queue_line("correction", "no, use snake_case for method names", when=NOW / 1000)
    (tmp_path / "corrections-queue.md").write_text(QUEUE_HEADER + line, encoding="utf-8")
    with pytest.raises(RoutingError, match="already holds"):
        apply_item(tmp_path, 4, "convention", category="convention")
    assert (tmp_path / "patterns.md").read_text(encoding="utf-8").count("snake_case") == 1
