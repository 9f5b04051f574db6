"""Round 27's class through the real ``conkeeper consolidate``: two entries saying one thing is
done in opposite ways, each way said plainly ("renewed automatically" against "renewed by
hand", "UTC" against "the warehouse's wall-clock time", "hidden from shoppers" against
"displayed to shoppers"), in English, German, Spanish and French.

Why it exists: main read such pairs as nothing when their other words differ (a contradiction
missed, so the stale rule stays beside the right one), and merged them as duplicates when the
other words agree: ``--apply`` then deleted one of the two rules. The pairs here are new,
written for the class (none is a measured pair); every pair in the first two lists failed on
main, the last list pins pairs that must stay apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidate_support import apply_keeps_both, kinds, one_file

# other words around the ways: main proposed nothing
MISSED_ON_MAIN = [
    (
        "Certificates for the ingress are renewed automatically by cert-manager.",
        "Someone renews the ingress certificates by hand every quarter.",
    ),
    (
        "All timestamps in the billing ledger are UTC.",
        "Ledger timestamps carry the warehouse's wall-clock time.",
    ),
    (
        "Toutes les dates du journal d'audit sont en UTC.",
        "Les dates du journal d'audit sont en heure locale du magasin.",
    ),
]

# the same words but the ways: main merged them, and --apply deleted one rule
MERGED_ON_MAIN = [
    (
        "Die Zertifikate des Ingress werden automatisch erneuert.",
        "Die Zertifikate des Ingress werden manuell erneuert.",
    ),
    (
        "Las copias de seguridad de la base de datos se restauran automáticamente cada noche.",
        "Las copias de seguridad de la base de datos se restauran manualmente.",
    ),
    (
        "Supplier discount codes are hidden from shoppers.",
        "Supplier discount codes are displayed to shoppers at checkout.",
    ),
]

# two scopes, a rule and its exception, two subjects sharing only a way, and a push and a poll
# between three parties (not read as opposite ways): no contradiction
STAY_APART = [
    (
        "In staging, schema migrations run automatically on deploy.",
        "In production, schema migrations are run by hand by a DBA.",
    ),
    (
        "Except the legacy import table, which keeps the plant's local time.",
        "All timestamps are stored in UTC.",
    ),
    (
        "Send receipts synchronously inside the request.",
        "All async work is queued as Sidekiq jobs.",
    ),
    (
        "The SCADA gateway polls each meter every 10 s.",
        "The SCADA gateway pushes meter events to Kafka as they happen.",
    ),
]


@pytest.mark.parametrize(("first", "second"), MISSED_ON_MAIN + MERGED_ON_MAIN)
def test_opposite_ways_are_a_contradiction(tmp_path: Path, first: str, second: str) -> None:
    """One contradiction, no merge, and ``--apply`` keeps both lines for a person to choose."""
    path = one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["contradiction"]
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(("first", "second"), STAY_APART)
def test_scopes_exceptions_and_other_subjects_stay_apart(
    tmp_path: Path, first: str, second: str
) -> None:
    """Two scopes, an exception, two subjects: neither a contradiction nor a merge."""
    path = one_file(tmp_path, first, second)
    assert kinds(tmp_path) == []
    apply_keeps_both(tmp_path, path, first, second)
