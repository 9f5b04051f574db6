"""The correction/friction detector, the queue format and ``conkeeper corrections``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import run_cli
from conkeeper.services.analysis import corrections
from conkeeper.services.analysis.corrections import detect

DATA = Path(__file__).parent / "data" / "corrections"
CORPUS = DATA / "corpus.jsonl"
# Each blind set was written and committed before it was first measured; those first figures
# are the honest estimate for unseen prompts (documented in bench/corrections_quality.py). Each
# set's misses then guided a tuning round, so all are "seen" now: they are pinned at the
# issue's targets as a regression guard.
BLIND = tuple(f"blind{n}.jsonl" for n in ("", "2", "3", "4", "5", "6"))


def _corpus(names: tuple[str, ...] = ("corpus.jsonl",)) -> list[dict]:
    rows = []
    for name in names:
        text = (DATA / name).read_text(encoding="utf-8")
        rows += [json.loads(line) for line in text.splitlines() if line]
    return rows


def _scores(level: str, names: tuple[str, ...] = ("corpus.jsonl",)) -> tuple[float, float]:
    tp = fp = fn = 0
    for row in _corpus(names):
        flagged = detect(row["text"], level).label is not None
        tp += bool(row["label"]) and flagged
        fp += (not row["label"]) and flagged
        fn += bool(row["label"]) and not flagged
    return tp / max(1, tp + fp), tp / max(1, tp + fn)


def test_corpus_is_large_and_balanced() -> None:
    rows = _corpus()
    labels = [r["label"] for r in rows]
    assert len(rows) >= 200
    assert labels.count("correction") >= 60 and labels.count("friction") >= 40
    assert labels.count(None) >= 100


@pytest.mark.parametrize(
    ("level", "min_precision", "min_recall"),
    [("low", 0.95, 0.85), ("medium", 0.9, 0.9), ("high", 0.8, 0.95)],
)
def test_precision_and_recall_per_level(
    level: str, min_precision: float, min_recall: float
) -> None:
    precision, recall = _scores(level)
    assert precision >= min_precision
    assert recall >= min_recall


def test_blind_sets_are_big_enough_and_labelled() -> None:
    for name in BLIND:
        rows = _corpus((name,))
        assert len(rows) >= 80, name
        assert {row["label"] for row in rows} == {"correction", "friction", None}, name


@pytest.mark.parametrize(
    ("level", "min_precision", "min_recall"), [("low", 0.95, 0.85), ("medium", 0.92, 0.90)]
)
def test_blind_set_precision_and_recall(
    level: str, min_precision: float, min_recall: float
) -> None:
    precision, recall = _scores(level, BLIND)
    assert precision >= min_precision, precision
    assert recall >= min_recall, recall


@pytest.mark.parametrize(
    "text",
    [
        "no worries",
        "No problem!",
        "actually, that's great",
        "don't forget the tests",
        "I said hello to the team",
        "The client should try again later if the server returns 429.",
        "Is that wrong?",
        'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: that\'s wrong',
        "```\n# no, use the cache instead\n```\nexplain",
        "> that's not right\nthe reviewer wrote this; address it",
        'Set the button text to "Try again"',
    ],
)
def test_hard_negatives_are_not_flagged_at_low(text: str) -> None:
    assert detect(text, "low").label is None


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("no, use snake_case for method names", "correction"),
        ("that didn't work, the test is still failing", "friction"),
        ("I said tabs, not spaces.", "correction"),
        ("let's revert that", "friction"),
    ],
)
def test_seed_examples_are_flagged_with_confidence(text: str, label: str) -> None:
    found = detect(text, "low")
    assert found.label == label
    assert 0.8 <= found.confidence <= 1.0
    assert found.pattern


def test_sensitivity_levels_are_nested() -> None:
    for row in _corpus():
        low = detect(row["text"], "low").label is not None
        medium = detect(row["text"], "medium").label is not None
        high = detect(row["text"], "high").label is not None
        assert (not low or medium) and (not medium or high), row["text"]


def test_ignore_file_regex_comments_and_invalid_patterns(tmp_path: Path) -> None:
    (tmp_path / ".correction-ignore").write_text(
        "# comment line\n\ntry again with.*verbose\n(unclosed\n", encoding="utf-8"
    )
    patterns = corrections.load_ignore_patterns(tmp_path)
    assert len(patterns) == 2
    assert corrections.is_ignored("Try again WITH more verbose output", patterns)
    assert corrections.is_ignored("this (unclosed thing still fails", patterns)
    assert not corrections.is_ignored("try again", patterns)
    assert corrections.load_ignore_patterns(tmp_path / "missing") == []


@given(st.text(max_size=400))
def test_queue_line_is_always_one_parseable_line(text: str) -> None:
    line = corrections.format_queue_line("friction", text, when=0)
    assert line.endswith("\n") and "\n" not in line[:-1]
    body = corrections.sanitize_queue_text(text)
    assert len(body) <= 200
    assert "<!--" not in body and "-->" not in body
    assert not any(ch in body for ch in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
    items = corrections.parse_queue(line)
    assert len(items) == 1 and items[0].label == "friction" and items[0].text == body


@given(st.text(alphabet=st.sampled_from("ab |\"\\'x-"), max_size=120))
def test_queue_text_round_trips_pipes_quotes_and_backslashes(text: str) -> None:
    """The user's text is kept as written: ``|``, ``"`` and ``\\`` survive a queue line."""
    line = corrections.format_queue_line("correction", text, when=0)
    items = corrections.parse_queue(line)
    assert len(items) == 1
    assert items[0].text == " ".join(text.split())
    assert items[0].ref == "previous assistant message"


def test_queue_lines_written_before_escaping_are_still_read() -> None:
    old = (
        '- **2026-01-02 03:04:05** | correction | "use a | b, C:\\tmp\\" '
        "| ref: previous assistant message"
    )
    (item,) = corrections.parse_queue(old)
    assert item.text == "use a | b, C:\\tmp\\"


@given(st.text(max_size=300))
def test_detector_never_raises(text: str) -> None:
    for level in ("low", "medium", "high", "bogus"):
        found = detect(text, level)
        assert found.label in (None, "correction", "friction")
        assert 0.0 <= found.confidence <= 1.0


def test_queue_format_matches_the_seed(tmp_path: Path) -> None:
    corrections.append_to_queue(tmp_path, "correction", 'no, use "snake_case" | now', when=0)
    text = (tmp_path / "corrections-queue.md").read_text()
    assert text.startswith(
        "# Corrections Queue\n<!-- Auto-populated by ConKeeper UserPromptSubmit hook -->\n\n"
    )
    line = text.splitlines()[-1]
    assert re.fullmatch(
        r"- \*\*\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\*\* \| correction \| "
        r"\"no, use \\\"snake_case\\\" \\\| now\" \| ref: previous assistant message",
        line,
    )
    (item,) = corrections.read_queue(tmp_path)
    assert item.text == 'no, use "snake_case" | now'


def test_long_prompt_queues_the_matching_sentence() -> None:
    text = "Some background on the project. " * 12 + "That didn't work, the page is blank."
    found = detect(text, "low")
    assert found.label == "friction"
    assert corrections.queue_excerpt(text, found).startswith("… That didn't work")


def test_cli_detect_plain_and_json(tmp_path: Path) -> None:
    plain = run_cli("corrections", "detect", cwd=tmp_path, stdin="no, use the v2 endpoint")
    assert plain.returncode == 0
    label, confidence = plain.stdout.split()
    assert label == "correction" and 0.8 <= float(confidence) <= 1
    negative = run_cli("corrections", "detect", "--json", cwd=tmp_path, stdin="no worries")
    data = json.loads(negative.stdout)
    assert data["label"] is None and data["sensitivity"] == "low"
    high = run_cli(
        "corrections", "detect", "--sensitivity", "high", "--json", cwd=tmp_path, stdin="hmm, wait"
    )
    assert json.loads(high.stdout)["threshold"] == 0.4


def test_cli_list(tmp_path: Path) -> None:
    memory = tmp_path / ".claude" / "memory"
    memory.mkdir(parents=True)
    empty = run_cli("corrections", "list", cwd=tmp_path)
    assert empty.returncode == 0 and "No queued corrections" in empty.stdout
    corrections.append_to_queue(memory, "friction", "still failing", when=0)
    corrections.append_to_queue(memory, "correction", "no, use X", when=0)
    listed = json.loads(run_cli("corrections", "list", "--json", cwd=tmp_path).stdout)
    assert listed["count"] == 2
    assert [i["label"] for i in listed["items"]] == ["friction", "correction"]
    assert listed["items"][1]["text"] == "no, use X"


def test_pipe_in_user_text_survives_the_queue(tmp_path: Path) -> None:
    """The queue keeps a ``|`` the user typed (it used to become ``/``)."""
    corrections.append_to_queue(tmp_path, "correction", "no, pipe it: grep x | sort | uniq", when=0)
    items = corrections.read_queue(tmp_path)
    assert [item.text for item in items] == ["no, pipe it: grep x | sort | uniq"]
