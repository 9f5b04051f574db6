"""Round 28's classes through the real ``conkeeper consolidate``: an exception stated as the
one case a rule lets through ("the only writes permitted", "only ... are allowed"), and a thing
one entry says is left out of a view and the other says is in it ("excluded from" against
"included in", "omitted" against "listed", "exclus" against "inclus"), in several languages.

Why it exists: main merged such pairs as duplicates, so ``--apply`` deleted a rule (issue 20:
a proposal that deletes the correct entry is the worst error). The pairs here are new, written
for the classes, none of them a measured pair; every pair in the first two lists is merged on
main. The last list pins a rule and its exception abroad: never a merge.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidate_support import apply_keeps_both, kinds, one_file

# a rule and the one case it lets through: main merged them, --apply deleted one
EXCEPTION_MERGED_ON_MAIN = [
    (
        "Emergency schema rollbacks are the only production migrations permitted during the "
        "freeze.",
        "No production migrations during the freeze.",
    ),
    (
        "Only security patches are permitted as merges to the release branch after code freeze.",
        "Never merge to the release branch after code freeze.",
    ),
    (
        "Data restores are the only writes permitted on the archive cluster.",
        "Never write to the archive cluster.",
    ),
]

# left out of a view against in it: main merged them, --apply deleted one
LEFT_OUT_MERGED_ON_MAIN = [
    (
        "Internal cost centres are omitted from the invoice PDF.",
        "Internal cost centres are listed on the invoice PDF.",
    ),
    (
        "Les numéros de carte sont exclus de l'export comptable.",
        "Les numéros de carte sont inclus dans l'export comptable.",
    ),
    (
        "Die Kartennummern sind im Buchhaltungsexport enthalten.",
        "Die Kartennummern werden aus dem Buchhaltungsexport ausgeschlossen.",
    ),
    (
        "Los números de tarjeta se excluyen del informe mensual de ventas.",
        "Los números de tarjeta están incluidos en el informe mensual de ventas.",
    ),
    (
        "Draft posts are left out of the RSS feed.",
        "Draft posts are shown in the RSS feed.",
    ),
]

# a rule and its exception abroad: never a duplicate
EXCEPTION_ABROAD = [
    (
        "Seuls les correctifs de sécurité sont autorisés sur la branche de release après le gel.",
        "Rien n'est fusionné sur la branche de release après le gel.",
    ),
    (
        "Nur signierte Release-Tags dürfen auf den öffentlichen Mirror gepusht werden.",
        "Niemals auf den öffentlichen Mirror pushen.",
    ),
    (
        "Solo se permiten despliegues de parches críticos los viernes.",
        "Nunca se hacen despliegues los viernes.",
    ),
    ("金曜日のデプロイは緊急修正のみ許可されています。", "金曜日はデプロイしません。"),
    ("紧急修复是周五唯一允许的部署。", "周五不部署。"),
]


@pytest.mark.parametrize(("first", "second"), EXCEPTION_MERGED_ON_MAIN + EXCEPTION_ABROAD)
def test_a_rule_and_its_only_exception_are_never_merged(
    tmp_path: Path, first: str, second: str
) -> None:
    """No duplicate proposed, and ``--apply`` keeps both lines."""
    path = one_file(tmp_path, first, second)
    assert "duplicate" not in kinds(tmp_path)
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(("first", "second"), LEFT_OUT_MERGED_ON_MAIN)
def test_left_out_against_included_is_a_contradiction(
    tmp_path: Path, first: str, second: str
) -> None:
    """One contradiction, no merge, and ``--apply`` keeps both lines for a person to choose."""
    path = one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["contradiction"]
    apply_keeps_both(tmp_path, path, first, second)


def test_the_same_omission_in_other_words_is_still_one_entry(tmp_path: Path) -> None:
    """Both entries on the same side ("excluded from" and "excludes") stay a duplicate."""
    one_file(
        tmp_path,
        "Customer email addresses are excluded from the nightly analytics export.",
        "The nightly analytics export excludes customer email addresses.",
    )
    assert kinds(tmp_path) == ["duplicate"]
