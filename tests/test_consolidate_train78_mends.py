"""Classes the first measurements of train_pairs7 and train_pairs8 read wrongly, through the real
``conkeeper consolidate``: negations written around or after the verb in Italian, French and
Dutch ("non ... mai", "ne ... pas", "nooit"), an entry that denies even the lesser thing ("no
access, not even read-only"), a rule for every member of a class written in Vietnamese against
one named member, two requirements of one named thing ("Every Jenkins job must have a timeout"
/ "... an owner"), and a merge that would drop the only negation ("ne ... pas" unread).

Why it exists: each of these was proposed as a duplicate, or (the French one) as nothing, by
main (f782f19), so ``--apply``
would have deleted one rule (the worst error: the deleted one may be the correct one). The pairs
are written for these tests, not taken from the sets; the last ones pin duplicates the mends
must not take away.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidate_support import apply_keeps_both, kinds, one_file

# a rule and its negation, the negation written as Italian, French or Dutch write it
NEGATIONS_ABROAD = [
    (
        "Il gateway registra i token di accesso nei log.",
        "Il gateway non registra mai i token di accesso nei log.",
    ),
    (
        "Il job notturno cancella i backup vecchi.",
        "Il job notturno non cancella i backup vecchi, nemmeno quelli scaduti.",
    ),
    (
        "Après un déploiement, le service redémarre automatiquement.",
        "Après un déploiement, le service ne redémarre pas tout seul : il attend la fenêtre de "
        "maintenance.",
    ),
    ("De API logt volledige kaartnummers.", "De API logt nooit volledige kaartnummers."),
]

# a grant of the lesser thing against an entry that denies even that
NOT_EVEN = [
    (
        "Contractors have read-only access to the billing database.",
        "Contractors have no access to the billing database, not even read-only.",
    ),
]

# a rule for every member of a class, and one named member, in Vietnamese
NAMED_MEMBERS_ABROAD = [
    (
        "Mọi cảnh báo P1 phải được xác nhận trong 15 phút.",
        "Cảnh báo `DiskFull` là P1, nên on-call phải xác nhận trong 15 phút.",
    ),
]

# two requirements of one named thing: alike, and each says what the other does not
COMPLEMENTS = [
    ("Every Jenkins job must have a timeout.", "Every Jenkins job must have an owner."),
    (
        "Every LaunchDarkly flag must have an expiry date.",
        "Every LaunchDarkly flag must have an owner.",
    ),
    ("All Kafka topics need a schema in the registry.", "All Kafka topics need an owning team."),
]


# a negation on one side only: a merge would drop it, whatever the similarity (main merged
# these: the shared names and the store looked alike, the negation governed nothing shared)
DROPPED_NEGATIONS = [
    (
        "Symfony sessions are stored in Redis, not in the database.",
        "Redis is the Symfony queue backend.",
    ),
    (
        "Django sessions are stored in Redis, not in the database.",
        "Redis is the Django queue backend.",
    ),
]


@pytest.mark.parametrize(("first", "second"), NEGATIONS_ABROAD)
def test_a_rule_and_its_negation_abroad_is_a_contradiction(
    tmp_path: Path, first: str, second: str
) -> None:
    """A person chooses, and ``--apply`` keeps both lines."""
    path = one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["contradiction"]
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(
    ("first", "second"), NOT_EVEN + NAMED_MEMBERS_ABROAD + COMPLEMENTS + DROPPED_NEGATIONS
)
def test_pairs_that_are_no_copy_are_never_merged(tmp_path: Path, first: str, second: str) -> None:
    """No merge is proposed, so ``--apply`` deletes neither line."""
    path = one_file(tmp_path, first, second)
    assert "duplicate" not in kinds(tmp_path)
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Never log full card numbers.", "Full card numbers are never logged."),
        ("Il gateway non registra mai i token.", "I token non vengono mai registrati dal gateway."),
        (
            "Le service ne redémarre pas tout seul après une mise à jour.",
            "Après une mise à jour, le service ne redémarre pas tout seul.",
        ),
        (
            "Contractors have no access to the billing database, not even read-only.",
            "Contractors get no access to the billing database, not even read-only.",
        ),
    ],
)
def test_one_rule_said_twice_still_merges(tmp_path: Path, first: str, second: str) -> None:
    """The same rule twice, with the same negation on both sides, is still one rule."""
    one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["duplicate"]
