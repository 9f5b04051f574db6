"""A complaint written after a long paste is caught: the detector reads a prompt's closing lines
as well as its head, through the real UserPromptSubmit hook."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import submit_prompt
from conkeeper.domain.corrections_queue import parse_queue
from conkeeper.services.analysis.corrections import MAX_SCAN_CHARS, detect
from conkeeper.services.analysis.corrections.detection import strip_noise
from conkeeper.services.analysis.corrections.features import (
    pasted_share,
    prompt_segments,
    prose_segments,
    segment_bags,
    tail_after_paste,
)

LOG_LINE = "2026-11-20T10:02:11Z [build] step 4/9 failed: exit code 2; reverting workspace\n"


def _prompt(project: Path, text: str) -> subprocess.CompletedProcess[str]:
    return submit_prompt(project, text, session="tail-1")


def test_complaint_after_a_paste_longer_than_the_scan_window_is_queued(project: Path) -> None:
    paste = LOG_LINE * (2 * MAX_SCAN_CHARS // len(LOG_LINE))
    text = "Here is the build log:\n" + paste + "\nstill failing the same way after your change"
    assert len(text) > MAX_SCAN_CHARS
    assert _prompt(project, text).returncode == 0
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    (item,) = parse_queue(queue)
    assert item.label == "friction"
    assert "still failing the same way after your change" in item.text


def test_a_paste_full_of_failed_and_revert_alone_is_not_queued(project: Path) -> None:
    text = "Here is the build log:\n" + LOG_LINE * 400 + "\nsummarise what happened here"
    assert _prompt(project, text).returncode == 0
    assert not (project / ".claude" / "memory" / "corrections-queue.md").exists()


def test_closing_complaint_is_not_discounted_as_deep_prose() -> None:
    brief = "The importer reads CSV files, validates rows and writes them. " * 20
    assert detect(brief + "\n\nyou broke the date parsing again", "low").label == "friction"
    assert detect(brief + "\n\nLet's get started.", "low").label is None


TRACEBACK = "Traceback (most recent call last):\n" + "".join(
    f'  File "svc/jobs.py", line {i}, in step_{i}\n    revert_batch(failed_ids)\n'
    for i in range(150)
)


def test_a_complaint_after_a_300_line_paste_is_queued_and_the_scorer_reads_it(
    project: Path,
) -> None:
    text = (
        "Full output from the worker:\n"
        + TRACEBACK
        + "\nsince your tweak the dashboard shows zeros"
    )
    assert len(text.splitlines()) > 300
    parts, _ = prompt_segments(text)
    assert parts[-1] == ["since your tweak the dashboard shows zeros"]  # the tail is scored
    # round 21: the tail is read as the prose after a paste (no "mostly pasted" weight): the
    # retrained scorer gives it .81, over every level's veto, so the rule's match stands
    config = project / ".claude" / "memory" / ".memory-config.md"
    config.write_text("---\ncorrection_sensitivity: medium\n---\n", encoding="utf-8")
    assert _prompt(project, text).returncode == 0
    queue = (project / ".claude" / "memory" / "corrections-queue.md").read_text(encoding="utf-8")
    (item,) = parse_queue(queue)
    assert item.label == "friction"
    assert "since your tweak the dashboard shows zeros" in item.text


def test_the_prose_after_a_paste_is_read_alone_not_by_the_share_pasted_above_it() -> None:
    # round 21: the tail written after 300 pasted lines was scored with "s:mostly-pasted" (a
    # weight of -.9), a property of the prompt, not of the sentence the user wrote
    text = (
        "Full output from the worker:\n"
        + TRACEBACK
        + "\nsince your tweak the dashboard shows zeros"
    )
    prose = strip_noise(text)
    parts = prose_segments(prose)
    assert tail_after_paste(prose, parts)
    head, tail = segment_bags(parts, pasted_share(text, prose), True)
    assert "s:mostly-pasted" in head and "s:after-paste" not in head
    assert "s:after-paste" in tail and "s:mostly-pasted" not in tail
    brief = "The importer reads CSV files, validates rows and writes them. " * 20
    long_prose = strip_noise(brief + "\n\nyou broke the date parsing again")
    assert not tail_after_paste(long_prose, prose_segments(long_prose))  # no paste, no tail


def test_the_same_paste_with_a_plain_question_is_not_queued(project: Path) -> None:
    text = (
        "Full output from the worker:\n" + TRACEBACK + "\ncan you tell me which step raised first?"
    )
    assert _prompt(project, text).returncode == 0
    assert not (project / ".claude" / "memory" / "corrections-queue.md").exists()
