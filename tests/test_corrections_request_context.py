"""Hard negatives of the classes that made the regex rules misfire on unseen prompts, pinned
with sentences found in no data file: praise said "again", work that "still" continues, a
"don't ..." that is part of a request for new work, the user's own mistake, questions about
how something works. Corrections of the same shapes stay flagged at low and medium."""

from __future__ import annotations

import pytest

from conkeeper.services.analysis.corrections import detect

NEGATIVES = [
    # praise or thanks with "again" / "still"
    "Again, superb job on the migration. Next: the audit log.",
    "Once again, excellent refactor. Let's move to the billing module.",
    "Great, again all green. Let's write the release notes.",
    "Still the same plan as agreed: the indexer first, then search.",
    "Same ticket, next step: expose the stats on the dashboard.",
    # a don't/never/avoid inside a request for new work or a spec
    "Please write the migration guide. Don't mention the internal flags.",
    "Can you add a cron job that never runs on weekends?",
    "Add an endpoint for health checks. Never return stack traces from it.",
    "Could you write an integration test for the uploader? Don't mock S3, use the local stub.",
    "Next up, the thumbnailer: don't write temp files, keep it in memory.",
    "Implement the webhook sender; do not retry on 4xx, only on 5xx.",
    # the user's own mistake
    "My mistake, I sent you the wrong log file. Here is the right one.",
    "Sorry, I copied the wrong branch name; it's feature/export.",
    "I gave you the wrong column earlier, it is created_at. Keep going.",
    # questions about how something works
    "How does it still pick the old config when the env var is set?",
    "Why does the queue fail again after a restart? I want to understand the design.",
]

POSITIVES = [
    "You mocked S3 again in the uploader test. Don't mock it, use the local stub.",
    "No, don't write temp files, keep everything in memory like we agreed.",
    "Why did you add a retry on 404s? Do not retry on 4xx.",
    "Write the exporter, but don't use pandas again, we removed it last week.",
    "You put the wrong column in the index, it should be created_at.",
    "The parser you wrote still drops the last line.",
    "Again, you left debug prints in the handler. Remove them.",
    "Still failing after your change, the same AssertionError in test_export.",
]


@pytest.mark.parametrize("level", ["low", "medium"])
@pytest.mark.parametrize("text", NEGATIVES)
def test_requests_praise_and_own_mistakes_are_not_flagged(text: str, level: str) -> None:
    found = detect(text, level)
    assert found.label is None, (found.pattern, found.confidence)


@pytest.mark.parametrize("level", ["low", "medium"])
@pytest.mark.parametrize("text", POSITIVES)
def test_corrections_of_the_same_shapes_still_flag(text: str, level: str) -> None:
    assert detect(text, level).label is not None


def test_a_dont_inside_a_request_flags_once_the_prompt_blames_the_agent() -> None:
    request = "Can you write unit tests for the mailer? Don't mock the clock, use the fake one."
    assert detect(request, "low").label is None
    blamed = "You mocked the clock again. " + request
    assert detect(blamed, "low").label == "correction"


def test_rules_alone_drop_the_request_dont() -> None:
    found = detect(
        "Write a small CLI for the report. Don't use click, argparse is enough.",
        "medium",
        model=False,
    )
    assert found.label is None and found.pattern.startswith("dont")
