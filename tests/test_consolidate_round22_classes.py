"""Wrong merges the first measurement of blind_pairs16 and blind_pairs17 found, closed as
classes through the real ``conkeeper consolidate``: opposite states (on/off, enabled/disabled,
sync/async, encrypted/plain text, kept/removed, public/private) in several languages, colours
and tiers wherever they sit, two products after one head noun, a value one entry extends
("AA"/"AAA", "v2"/"v2.1"), a Welsh negation, and a rule for every member against one member
or one dated event (every, cada, すべて, 全て, 所有).

Why it exists: ``consolidate --apply`` deletes one side of a duplicate, and the side deleted
may be the correct rule. The pairs here are new, written for the classes (none is a measured
pair); each was proposed as a duplicate before this round. The last ones pin duplicates that
must still merge.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidate_support import apply_keeps_both, kinds, one_file

OPPOSITE_STATES = [
    (
        "Los exports de facturas se generan de forma síncrona en la petición.",
        "Los exports de facturas se generan de forma asíncrona en la petición.",
    ),
    (
        "API tokens are stored encrypted in the settings table.",
        "API tokens are stored in plain text in the settings table.",
    ),
    (
        "Die API-Tokens werden in der Datenbank verschlüsselt gespeichert.",
        "Die API-Tokens werden in der Datenbank im Klartext gespeichert.",
    ),
    (
        "Les branches de fonctionnalité sont conservées après la fusion.",
        "Les branches de fonctionnalité sont supprimées après la fusion.",
    ),
    (
        "I repository dei servizi interni sono pubblici su GitHub.",
        "I repository dei servizi interni sono privati su GitHub.",
    ),
]

COLOURS_AND_TIERS = [
    (
        "Los pedidos urgentes se marcan en rojo en el panel.",
        "En el panel, los pedidos urgentes se marcan en azul.",
    ),
    (
        "Les commandes express sont affichées en rouge dans l'interface.",
        "Dans l'interface, la couleur des commandes express est bleue.",
    ),
]

PRODUCTS_AND_VALUES = [
    (
        "Container images are pushed to Google Artifact Registry.",
        "Container images are pushed to GitHub Container Registry.",
    ),
    ("Mobile clients must support TLS 1.2.", "Mobile clients must support TLS 1.2.1."),
]

WELSH_NEGATIONS = [
    (
        "Mae'r tîm yn defnyddio Slack ar gyfer rhybuddion.",
        "Dyw'r tîm ddim yn defnyddio Slack ar gyfer rhybuddion.",
    ),
    ("Rydyn ni'n rhyddhau ar ddydd Gwener.", "Dydyn ni ddim yn rhyddhau ar ddydd Gwener."),
]

RULE_AND_MEMBER = [
    (
        "Every P2 incident gets a post-incident review.",
        "The 2024-06-11 Kafka outage (P2) had its post-incident review on 2024-06-13.",
    ),
    (
        "全てのCloud Runサービスはasia-northeast1にデプロイする。",
        "請求サービス（Cloud Run）はasia-northeast1で稼働している。",
    ),
    (
        "All Cloud Run services are deployed to europe-west1.",
        "The label printing service (Cloud Run) runs in europe-west1.",
    ),
]


@pytest.mark.parametrize(
    ("first", "second"),
    OPPOSITE_STATES + COLOURS_AND_TIERS + PRODUCTS_AND_VALUES + WELSH_NEGATIONS,
)
def test_two_different_things_are_a_contradiction(tmp_path: Path, first: str, second: str) -> None:
    """Opposite states, colours, products, values or a negation: a contradiction for the
    person, never a merge, and ``--apply`` keeps both lines."""
    path = one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["contradiction"]
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(("first", "second"), RULE_AND_MEMBER)
def test_a_rule_and_one_member_both_hold(tmp_path: Path, first: str, second: str) -> None:
    """A rule for every member and one member (or one dated event): no merge, and
    ``--apply`` keeps both lines."""
    path = one_file(tmp_path, first, second)
    assert "duplicate" not in kinds(tmp_path)
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Feature flags default to off in production.",
            "In production, feature flags default to off.",
        ),
        (
            "Application secrets are stored in Azure Key Vault.",
            "Secrets for the application live in Azure Key Vault.",
        ),
        (
            "Every P1 incident gets a post-incident review.",
            "Each P1 incident gets a post-incident review.",
        ),
        (
            "Express shipments are shown in red in the dispatcher UI.",
            "The dispatcher UI shows express shipments in red.",
        ),
    ],
)
def test_one_rule_said_twice_still_merges(tmp_path: Path, first: str, second: str) -> None:
    """The same state, colour, product or quantifier on both sides: one duplicate."""
    one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["duplicate"]
