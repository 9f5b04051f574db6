"""Issue 20 round 25: the three classes left over by round 24, each through the real
UserPromptSubmit hook (a subprocess with Claude Code's payload). Every prompt here was written
for these tests (in no data set); on main before round 25 each flagged one was missed and each
unflagged one was queued, at the level named."""

from __future__ import annotations

from pathlib import Path

from conftest import submit_prompt
from conkeeper.domain.corrections_queue import parse_queue


def _queued(project: Path, level: str, *prompts: str) -> list[tuple[str, str]]:
    """Each prompt submitted through the hook at ``level``; the queue's (label, text) items."""
    config = project / ".claude" / "memory" / ".memory-config.md"
    config.write_text(f"---\ncorrection_sensitivity: {level}\n---\n", encoding="utf-8")
    for prompt in prompts:
        assert submit_prompt(project, prompt, session="leftovers-1").returncode == 0
    queue = project / ".claude" / "memory" / "corrections-queue.md"
    if not queue.exists():
        return []
    return [(item.label, item.text) for item in parse_queue(queue.read_text(encoding="utf-8"))]


def test_a_bare_no_then_a_prohibition_is_queued_but_a_declined_offer_is_not(
    project: Path,
) -> None:
    # "No!" alone, then "Do not ...": the scorer read "do not" as a task's spec and vetoed the
    # rule's match at low and medium (probability .15 and .54)
    items = _queued(
        project,
        "low",
        "No! Do not push to main directly.",
        "No. Don't bother with a changelog entry for this one.",
        "No. Do not force-push the release branch.",
    )
    assert [label for label, _ in items] == ["correction", "correction"]
    assert "push to main" in items[0][1] and "force-push" in items[1][1]


def test_closing_the_days_work_is_not_queued_but_a_complaint_that_closes_it_is(
    project: Path,
) -> None:
    # "Stop here for today" scored .87 on "stop" and "here" (flagged at every level)
    items = _queued(
        project,
        "medium",
        "Stop here for today",
        "Stop there for tonight, good work.",
        "Stop here for today, you broke the build again.",
    )
    assert [label for label, _ in items] == ["friction"]
    assert "broke the build" in items[0][1]


def test_words_in_other_languages_quotation_marks_are_quoted_not_the_users_own(
    project: Path,
) -> None:
    # a reviewer's verdict in « », „ " or 「」 was read as the user's (« » flagged at low,
    # 「」 at high); the same words said to the agent are still a correction
    items = _queued(
        project,
        "high",
        "Ревьюер написал: «Это неправильно, откати». Что скажешь?",
        "レビューで「このやり方は間違っている、元に戻して」と言われました。どう思いますか？",
        "Это неправильно, откати свой последний коммит.",
    )
    assert [label for label, _ in items] == ["correction"]
    assert "свой последний коммит" in items[0][1]
