"""Round 26's classes of missed duplicates through the real ``conkeeper consolidate``: one value
in other number and unit forms ("1 year" and "12 months", "10 000" and "10,000", "a quarter of
an hour", "EUR 20,000" and "20 000 €", "Priority-one" and "P1"), technical words one concept in
other words (:mod:`conkeeper.services.upkeep.freshness.synonyms`: a reservation is a booking,
a URL a link), and what must stay apart though its values agree (amounts in two currencies,
two things of one product with one value).

Why it exists: most labelled duplicates ``consolidate`` missed over twenty-nine authors say one
rule in other words or other number forms; ``--apply`` deletes one side of every merge, so the
forms that now meet must not bring two rules together. The pairs here are new, written for the
classes (none is a labelled pair); every pair of the first two lists and
the first two never-merged pairs failed on main (main read no pair in the third).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from consolidate_support import apply_keeps_both, kinds, one_file, proposals

# one value in two number or unit forms: a duplicate (main read a contradiction or no pair)
NUMBER_FORMS = [
    (
        "Scanned permit files are retained for 1 year.",
        "Scanned permit files are retained for 12 months.",
    ),
    (
        "The archive keeps scanned applications for 5 years.",
        "The archive keeps scanned applications for 60 months.",
    ),
    (
        "Applicant uploads are capped at 10 000 files per case.",
        "Applicant uploads are capped at 10,000 files per case.",
    ),
    (
        "The portal session ends after a quarter of an hour without activity.",
        "The portal session ends after 15 minutes without activity.",
    ),
    (
        "Building permits above EUR 20,000 are reviewed by the council.",
        "Building permits above 20 000 € go to the council for review.",
    ),
    (
        "Priority-one tickets are answered within 2 hours.",
        "P1 tickets are answered within 2 hours.",
    ),
    ("Priority-one outages page the on-call engineer.", "P1 outages page the on-call engineer."),
]

# technical words one concept in other words (the synonyms table)
OTHER_WORDS = [
    ("Every reservation gets a confirmation mail.", "Every booking gets a confirmation mail."),
    (
        "Put the URL of the dataset in the ticket.",
        "Put the link to the dataset in the ticket.",
    ),
]

# values that agree but rules that differ: never merged, and --apply keeps both lines
NEVER_MERGED = [
    (
        "Refunds above $5,000 need a second approver.",
        "Refunds above €5,000 need a second approver.",
    ),
    ("Postgres backups are kept 35 days.", "Postgres WAL archives are kept 35 days."),
    ("The export limit is 10 000 rows.", "The export limit is 20 000 rows."),
]


@pytest.mark.parametrize(("first", "second"), NUMBER_FORMS + OTHER_WORDS)
def test_one_rule_in_other_forms_is_merged(tmp_path: Path, first: str, second: str) -> None:
    """One rule said with another number form or another word for the same thing: one
    duplicate, and ``--apply`` leaves one of the two lines."""
    path = one_file(tmp_path, first, second)
    found = proposals(tmp_path)
    assert [p["kind"] for p in found] == ["duplicate"]
    removed = str(found[0]["remove_text"]).removeprefix("- ")
    result = run_cli("consolidate", "--apply", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    assert removed not in text
    assert (first if removed == second else second) in text


@pytest.mark.parametrize(("first", "second"), NEVER_MERGED)
def test_agreeing_values_of_two_rules_are_never_merged(
    tmp_path: Path, first: str, second: str
) -> None:
    """Two currencies, two things of one product, two counts written with spaces: no merge,
    and ``--apply`` keeps both lines."""
    path = one_file(tmp_path, first, second)
    assert "duplicate" not in kinds(tmp_path)
    apply_keeps_both(tmp_path, path, first, second)


def test_two_counts_written_with_spaces_are_two_values(tmp_path: Path) -> None:
    """ "10 000" and "20 000" are the numbers 10000 and 20000 (main read "10" and "000" and
    saw no pair): a contradiction naming both."""
    one_file(tmp_path, "The export limit is 10 000 rows.", "The export limit is 20 000 rows.")
    found = proposals(tmp_path)
    assert [p["kind"] for p in found] == ["contradiction"]
    assert "10000" in str(found[0]["reason"]) and "20000" in str(found[0]["reason"])
