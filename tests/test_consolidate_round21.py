"""Duplicates round 21 closes, as classes, through the real ``conkeeper consolidate``: one
frequency written two ways ("once per minute" / "every 60 seconds", "twice a year" / "every 6
months"), a common technical name against its short form ("Severity 1" / "SEV1", "99th
percentile" / "p99", "estimated time of arrival" / "ETA", "GitLab" / "GL"), and a restriction
in brackets ("`UTF-8` (only)") read as the restriction it is.

Why it exists: the held-out error analysis of round 21 (all twenty-one authors' missed
duplicates) found these spellings keeping one rule written twice apart, and "once per minute"
against "every 60 seconds" even read as two values (a contradiction). The pairs here are new,
written for the classes (none is a labelled pair), and the last ones pin what must stay apart:
two different frequencies, two different encodings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from consolidate_support import apply_keeps_both, kinds, one_file

# one frequency, two spellings
SAME_FREQUENCIES = [
    (
        "The status dashboards refresh once per minute.",
        "The status dashboards refresh every 60 seconds.",
    ),
    (
        "Rotate the webhook signing key twice a year.",
        "Rotate the webhook signing key every 6 months.",
    ),
    ("The search cache is flushed every 24 hours.", "The search cache is flushed daily."),
    ("Usage reports are emailed 3 times a day.", "Usage reports are emailed every 8 hours."),
]

# a common technical name and its short form
SAME_NAMES = [
    ("ETA updates go out by SMS.", "Estimated time of arrival updates go out by text message."),
    (  # "RO" is read-only since round 24
        "The GL mirror is RO; send PRs on GH.",
        "The GitLab mirror is read-only; send pull requests on GitHub.",
    ),
    (
        "SEV1 incidents: ack in 5 min.",
        "Severity 1 incidents must be acknowledged within five minutes.",
    ),
    ("Search API: p95 < 200 ms.", "Search API: 95th percentile under 200 milliseconds."),
]

# a restriction in brackets
BRACKETED_ONLY = [
    ("Export file encoding → `UTF-8` (only)", "Export file encoding: UTF-8 only."),
    (
        "Ship builds through the release pipeline (only).",
        "Ship builds only through the release pipeline.",
    ),
]


@pytest.mark.parametrize(("first", "second"), SAME_FREQUENCIES + SAME_NAMES + BRACKETED_ONLY)
def test_one_rule_in_two_spellings_merges(tmp_path: Path, first: str, second: str) -> None:
    """The pair is proposed as one duplicate."""
    one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["duplicate"]


def test_merge_keeps_the_detailed_entry(tmp_path: Path) -> None:
    """``--apply`` removes the short copy and keeps the one that says more."""
    short = "Rotate the webhook signing key twice a year."
    long = (
        "Rotate the webhook signing key every 6 months; the new key is published in the "
        "partner portal a week before the switch."
    )
    path = one_file(tmp_path, short, long)
    assert kinds(tmp_path) == ["duplicate"]
    result = run_cli("consolidate", "--apply", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    assert long in text
    assert short not in text


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "The status dashboards refresh every 30 seconds.",
            "The status dashboards refresh once per minute.",
        ),
        (
            "Rotate the webhook signing key twice a year.",
            "Rotate the webhook signing key every 3 months.",
        ),
        ("Export file encoding → `UTF-8` (only)", "Export file encoding: `Latin-1` only."),
        ("Search API: p95 < 200 ms.", "Search API: 99th percentile under 200 milliseconds."),
    ],
)
def test_different_values_are_never_merged(tmp_path: Path, first: str, second: str) -> None:
    """Two frequencies or two encodings: no merge, and ``--apply`` keeps both lines."""
    path = one_file(tmp_path, first, second)
    assert "duplicate" not in kinds(tmp_path)
    apply_keeps_both(tmp_path, path, first, second)


# a short rule restated in a longer entry whose clause carries a bracketed aside
ASIDES = [
    (
        "The billing export runs at 04:00 UTC.",
        "billing export (`jobs/export.py`, cron `billing_export`) runs at 04:00 UTC and takes "
        "about ten minutes",
    ),
    (
        "El informe nocturno se genera a las 02:00 UTC.",
        "El informe nocturno (`reports/nightly.py`, cola `reports`) se genera a las 02:00 UTC "
        "y tarda unos veinte minutos.",
    ),
]


@pytest.mark.parametrize(("short", "long"), ASIDES)
def test_rule_restated_around_an_aside_keeps_the_longer(
    tmp_path: Path, short: str, long: str
) -> None:
    """A comma inside brackets parts no clause: the longer entry is the short one with more
    detail, and ``--apply`` keeps it."""
    path = one_file(tmp_path, short, long)
    assert kinds(tmp_path) == ["duplicate"]
    result = run_cli("consolidate", "--apply", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    assert long in text
    assert short not in text


def test_a_reason_after_the_aside_is_no_part_of_the_rule(tmp_path: Path) -> None:
    """What follows the end of the clause an aside sits in (", since ...") is not read as
    that clause: "need a migration file" is not said by a rule about compatibility whose
    reason mentions migrating, and ``--apply`` keeps both lines."""
    first = "Schema changes need a migration file."
    second = (
        "A schema change has to stay compatible with the deployed app version (N-1), since we "
        "roll out code after migrating."
    )
    path = one_file(tmp_path, first, second)
    assert "duplicate" not in kinds(tmp_path)
    apply_keeps_both(tmp_path, path, first, second)
