"""Two values are never one entry, through the real ``conkeeper consolidate``: two entries the
same but for one value after the verb (a log level, a machine type, a size, a colour, a date,
a name in capitals or in backticks) disagree, so a person chooses; ``--apply`` deletes
neither.

Why it exists: ``consolidate --apply`` deletes one side of every duplicate it proposes. Round
17 merged "Log level in production is INFO." with "... is DEBUG." (the DEBUG line deleted)
because the two share every other word. Values known to be one (a synonym, a short form)
still merge. The pairs are written as a person would write memory, in the languages the
labelled sets use.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidate_support import apply_keeps_both, one_file, proposals

VALUES = [  # (first, second, the two values as the reason names them)
    ("Log level in production is INFO.", "Log level in production is DEBUG.", "INFO", "DEBUG"),
    ("Log level in production is INFO.", "Log level in production is WARNING.", "INFO", "WARNING"),
    (
        "Das Log-Level in Produktion ist INFO.",
        "Das Log-Level in Produktion ist DEBUG.",
        "INFO",
        "DEBUG",
    ),
    (
        "El nivel de log en producción es INFO.",
        "El nivel de log en producción es DEBUG.",
        "INFO",
        "DEBUG",
    ),
    (
        "Le niveau de log en production est INFO.",
        "Le niveau de log en production est DEBUG.",
        "INFO",
        "DEBUG",
    ),
    (
        "Il livello di log in produzione è INFO.",
        "Il livello di log in produzione è DEBUG.",
        "INFO",
        "DEBUG",
    ),
    ("O nível de log em produção é INFO.", "O nível de log em produção é DEBUG.", "INFO", "DEBUG"),
    ("Poziom logów na produkcji to INFO.", "Poziom logów na produkcji to DEBUG.", "INFO", "DEBUG"),
    ("本番のログレベルはINFO。", "本番のログレベルはDEBUG。", "INFO", "DEBUG"),
    ("生产环境的日志级别是INFO。", "生产环境的日志级别是DEBUG。", "INFO", "DEBUG"),
    ("프로덕션 로그 레벨은 INFO이다.", "프로덕션 로그 레벨은 DEBUG이다.", "INFO", "DEBUG"),
    (
        "Workers run on db-standard-4 machines.",
        "Workers run on db-highmem-4 machines.",
        "db-standard-4",
        "db-highmem-4",
    ),
    (
        "CI runners use the n2-standard-8 machine type.",
        "CI runners use the e2-highcpu-8 machine type.",
        "n2-standard-8",
        "e2-highcpu-8",
    ),
    (
        "The staging cluster uses m5.large nodes.",
        "The staging cluster uses m5.xlarge nodes.",
        "m5.large",
        "m5.xlarge",
    ),
    (
        "Les workers tournent sur des machines db-standard-4.",
        "Les workers tournent sur des machines db-highmem-4.",
        "db-standard-4",
        "db-highmem-4",
    ),
    (
        "Die Worker laufen auf n2-standard-8.",
        "Die Worker laufen auf e2-highcpu-8.",
        "n2-standard-8",
        "e2-highcpu-8",
    ),
    ("The brand colour is blue.", "The brand colour is green.", "blue", "green"),
    (
        "Die Standardfarbe der Buttons ist blau.",
        "Die Standardfarbe der Buttons ist grün.",
        "blau",
        "grün",
    ),
    ("El tema por defecto es claro.", "El tema por defecto es oscuro.", "claro", "oscuro"),
    ("Le thème par défaut est clair.", "Le thème par défaut est sombre.", "clair", "sombre"),
    ("The database tier is Standard.", "The database tier is Premium.", "Standard", "Premium"),
    ("The on-call owner is ALICE.", "The on-call owner is BOB.", "ALICE", "BOB"),
    (
        "Mobile builds ship to TestFlight.",
        "Mobile builds ship to Firebase.",
        "TestFlight",
        "Firebase",
    ),
    (
        "The cutover date is 2026-03-01.",
        "The cutover date is 2026-04-01.",
        "2026-03-01",
        "2026-04-01",
    ),
]


@pytest.mark.parametrize(("first", "second", "one", "other"), VALUES)
def test_two_values_are_a_contradiction_and_apply_keeps_both(
    tmp_path: Path, first: str, second: str, one: str, other: str
) -> None:
    """The pair is a contradiction whose reason names the two values as written, and
    ``--apply`` (which resolves no contradiction by itself) leaves both lines in place."""
    path = one_file(tmp_path, first, second)
    found = proposals(tmp_path)
    assert [p["kind"] for p in found] == ["contradiction"]
    assert found[0]["reason"] == f"{one} against {other}"
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [  # the same value written two ways: one rule said twice
        ("Log level in production is INFO.", "Log level in prod is INFO."),
        ("The default log level is `INFO`.", "The default logging level is `INFO`."),
        (
            "Workers run on db-standard-4 machines.",
            "Workers run on the db-standard-4 machine type.",
        ),
        (
            "Fuzzing uses cargo-fuzz with libFuzzer and AddressSanitizer.",
            "Fuzzing uses cargo-fuzz with libFuzzer and ASan.",
        ),
    ],
)
def test_one_value_written_two_ways_still_merges(tmp_path: Path, first: str, second: str) -> None:
    """A synonym, an inflection or a short form of the value is that value: still a duplicate
    (these pin what the value rule must not take away)."""
    one_file(tmp_path, first, second)
    assert [p["kind"] for p in proposals(tmp_path)] == ["duplicate"]
