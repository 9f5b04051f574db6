"""Pairs the first measurement of train_pairs6 read wrongly, as classes, through the real
``conkeeper consolidate``: a failed thing as the object of a negated verb ("Never retry a failed
delivery") is no negated failure, a named secret after its class noun is one case of the rule
for every secret, durations in Russian and Swedish are durations, and two entries opening with
different years speak of two periods.

Why it exists: train_pairs6's first measurement merged "Retry failed HL7 deliveries
automatically" with "Never retry a failed HL7 delivery automatically" and a rule for every secret
with a note about one named secret; ``--apply`` would have deleted one rule each time (the worst
error). It also read "35 дней" against "five weeks" as two values and two years' figures as a
contradiction. The last pairs pin duplicates these mends must not take away.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidate_support import apply_keeps_both, kinds, one_file

# a failed thing the negated verb acts on: the failed ones are the ones never retried
FAILED_OBJECTS = [
    (
        "Retry failed webhook deliveries automatically.",
        "Never retry a failed webhook delivery automatically.",
    ),
    (
        "Requeue failed export jobs at night.",
        "Don't requeue a failed export job; the owner reruns it by hand.",
    ),
    (
        "Resend failed invoice emails automatically.",
        "Never resend a failed invoice email automatically; support contacts the customer.",
    ),
]

# a secret named by a code span after its class noun, against the rule for every secret
NAMED_MEMBERS = [
    (
        "The HL7 listener reads its MLLP TLS certificate password from the Key Vault secret "
        "`hl7-mllp-cert-pass`.",
        "All secrets come from Key Vault.",
    ),
    (
        "The LIS bridge reads its MLLP TLS certificate password from the Key Vault secret "
        "`lis-mllp-cert-pass`.",
        "All secrets come from Key Vault.",
    ),
]

# two periods: what held in one year and what held in another
OTHER_YEARS = [
    (
        "In 2024 the release train left every three weeks.",
        "In 2025 the release train left every two weeks.",
    ),
    ("During 2024 the peak load was 900 req/s.", "During 2025 the peak load was 1400 req/s."),
]

# one duration written two ways, in Russian and Swedish
SAME_DURATIONS = [
    ("Резервные копии хранятся 35 дней.", "Резервные копии хранятся 5 недель."),
    ("Loggar sparas i 14 dagar.", "Loggar sparas i 2 veckor."),
    ("Sessionen löper ut efter 60 minuter.", "Sessionen löper ut efter 1 timme."),
]


@pytest.mark.parametrize(("first", "second"), FAILED_OBJECTS)
def test_negated_verb_on_a_failed_thing_is_a_contradiction(
    tmp_path: Path, first: str, second: str
) -> None:
    """A person chooses, and ``--apply`` keeps both lines."""
    path = one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["contradiction"]
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(("first", "second"), NAMED_MEMBERS)
def test_named_secret_and_rule_for_every_secret_are_never_merged(
    tmp_path: Path, first: str, second: str
) -> None:
    """No merge is proposed, so ``--apply`` deletes neither line."""
    path = one_file(tmp_path, first, second)
    assert "duplicate" not in kinds(tmp_path)
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(("first", "second"), OTHER_YEARS)
def test_entries_about_two_years_are_neither_merged_nor_opposed(
    tmp_path: Path, first: str, second: str
) -> None:
    """Nothing is proposed, and ``--apply`` keeps both lines."""
    path = one_file(tmp_path, first, second)
    assert kinds(tmp_path) == []
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(("first", "second"), SAME_DURATIONS)
def test_one_duration_in_two_units_abroad_merges(tmp_path: Path, first: str, second: str) -> None:
    """Thirty-five days are five weeks, fourteen "dagar" two "veckor", sixty "minuter"
    one "timme": one rule twice."""
    one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["duplicate"]


@pytest.mark.parametrize(
    ("first", "second", "kind"),
    [  # the mends must leave these as they were (main read the second pair as a contradiction:
        # "a failed payment" after "never" flipped twice, "Failed payments" once)
        ("Don't merge with a failing build.", "Never merge with a failing build.", "duplicate"),
        (
            "Never retry a failed payment automatically.",
            "Failed payments are never retried automatically.",
            "duplicate",
        ),
        (
            "Restart crashed pods automatically.",
            "Never restart a crashed pod automatically.",
            "contradiction",
        ),
        ("Логи хранятся 30 дней.", "Логи хранятся 90 дней.", "contradiction"),
        (
            "In 2024 the release train left every three weeks.",
            "In 2024 the release train left every 3 weeks.",
            "duplicate",
        ),
    ],
)
def test_pairs_left_as_they_were(tmp_path: Path, first: str, second: str, kind: str) -> None:
    """A duplicate or a contradiction these mends do not touch is still proposed as one."""
    one_file(tmp_path, first, second)
    assert kinds(tmp_path) == [kind]
