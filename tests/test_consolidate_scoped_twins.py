"""Scoped twins through the real ``conkeeper consolidate``: two entries that say the same of
two different scopes (web and TV players, US and EU buckets, Q3 and Q4, v1 and v2) are two
rules, never one said twice, and two rules for two scopes with values of their own are no
contradiction; one subject given two values ("the Standard tier", "the Premium tier") is one.

Why it exists: ``consolidate --apply`` deletes one side of every duplicate it proposes, so a
twin merged is a scope's rule lost (round 16 left "The web player uses HLS with 6-second
segments" / "The TV player ..." merged). The pairs are written as a person would write
memory, in the languages the labelled sets use.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli


def _folder(tmp_path: Path, first: str, second: str) -> Path:
    """A fresh memory folder holding one entry in each of two files."""
    memory = tmp_path / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "patterns.md").write_text(f"# Patterns\n\n- {first}\n", encoding="utf-8")
    (memory / "active-context.md").write_text(f"# Active Context\n\n- {second}\n", "utf-8")
    return memory


def _proposed(tmp_path: Path, first: str, second: str) -> list[str]:
    """The kinds ``conkeeper consolidate`` proposes for two entries in a fresh memory folder."""
    _folder(tmp_path, first, second)
    result = run_cli("consolidate", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return [p["kind"] for p in json.loads(result.stdout)["proposals"]]


TWINS = [  # one noun narrowed by a different scope word, the rest said the same
    (
        "The web player uses HLS with 6-second segments.",
        "The TV player uses HLS with 6-second segments.",
    ),
    ("The US bucket keeps backups for 30 days.", "The EU bucket keeps backups for 30 days."),
    ("US customers are billed in USD on the 1st.", "EU customers are billed in USD on the 1st."),
    (
        "The Q3 release freeze starts two weeks before launch.",
        "The Q4 release freeze starts two weeks before launch.",
    ),
    (
        "The v1 webhooks sign payloads with HMAC-SHA256.",
        "The v2 webhooks sign payloads with HMAC-SHA256.",
    ),
    (
        "Backups for the DE region run nightly at 02:00 UTC.",
        "Backups for the FR region run nightly at 02:00 UTC.",
    ),
    ("2024 invoices are archived in Glacier.", "2025 invoices are archived in Glacier."),
    ("The EU API gateway rate-limits at 100 rps.", "The US API gateway rate-limits at 100 rps."),
    (
        "El reproductor web usa HLS con segmentos de 6 segundos.",
        "El reproductor de TV usa HLS con segmentos de 6 segundos.",
    ),
    (
        "Der Web-Player nutzt HLS mit 6-Sekunden-Segmenten.",
        "Der TV-Player nutzt HLS mit 6-Sekunden-Segmenten.",
    ),
    (
        "Il player web usa HLS con segmenti da 6 secondi.",
        "Il player TV usa HLS con segmenti da 6 secondi.",
    ),
    (
        "Aplikacja webowa używa HLS z 6-sekundowymi segmentami.",
        "Aplikacja TV używa HLS z 6-sekundowymi segmentami.",
    ),
    ("Webプレーヤーは6秒セグメントのHLSを使う。", "TVプレーヤーは6秒セグメントのHLSを使う。"),
    ("웹 플레이어는 6초 세그먼트 HLS를 사용한다.", "TV 플레이어는 6초 세그먼트 HLS를 사용한다."),
    ("The admin dashboard uses React 18.", "The customer dashboard uses React 18."),
    ("The billing service logs to Datadog.", "The search service logs to Datadog."),
    ("H1 planning starts in December.", "H2 planning starts in December."),
    (
        "Les factures pour la Belgique sont envoyées le 1er.",
        "Les factures pour la Suisse sont envoyées le 1er.",
    ),
    ("米国向けの請求書は毎月1日に送る。", "欧州向けの請求書は毎月1日に送る。"),
    ("Los pedidos de México se facturan en MXN.", "Los pedidos de Colombia se facturan en MXN."),
]


@pytest.mark.parametrize(("first", "second"), TWINS)
def test_scoped_twins_are_two_rules(tmp_path: Path, first: str, second: str) -> None:
    """Each twin is its scope's only rule: nothing is proposed, and ``--apply`` keeps both."""
    assert _proposed(tmp_path, first, second) == []
    memory = tmp_path / ".claude" / "memory"
    result = run_cli("consolidate", "--apply", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert first in (memory / "patterns.md").read_text(encoding="utf-8")
    assert second in (memory / "active-context.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("first", "second"),
    [  # a short form or a synonym narrowing the noun: one rule written twice
        (
            "The RN app uses Redux Toolkit for state.",
            "The React Native app uses Redux Toolkit for state.",
        ),
        (
            "The prod DB is backed up every 6 hours.",
            "The production database is backed up every 6 hours.",
        ),
        (
            "La base de datos de prod se respalda cada 6 horas.",
            "La base de datos de producción se respalda cada 6 horas.",
        ),
        (
            "The JS SDK is published to npm on every tag.",
            "The JavaScript SDK is published to npm on every tag.",
        ),
        ("K8s manifests live in the infra repo.", "Kubernetes manifests live in the infra repo."),
        ("The FE app is built with Vite.", "The frontend app is built with Vite."),
        (
            "The GH Actions runners use Ubuntu 22.04.",
            "The GitHub Actions runners use Ubuntu 22.04.",
        ),
        ("Postgres backups run nightly at 02:00.", "PostgreSQL backups run nightly at 02:00."),
        (
            "The staging env uses a single replica.",
            "The staging environment uses a single replica.",
        ),
    ],
)
def test_a_short_form_or_synonym_still_merges(tmp_path: Path, first: str, second: str) -> None:
    """The twin guard leaves one thing named two ways a duplicate (these merged before the
    guard too: they pin what it must not take away)."""
    assert _proposed(tmp_path, first, second) == ["duplicate"]


@pytest.mark.parametrize(
    ("first", "second"),
    [  # the scope a "for" names (or Japanese "向け"), each with a value of its own
        (
            "Booking records for Spanish properties are kept for 5 years.",
            "Booking records for German properties are kept for 10 years.",
        ),
        (
            "Buchungsdaten für spanische Objekte werden 5 Jahre aufbewahrt.",
            "Buchungsdaten für deutsche Objekte werden 10 Jahre aufbewahrt.",
        ),
        (
            "Les réservations pour les hôtels français sont gardées 5 ans.",
            "Les réservations pour les hôtels allemands sont gardées 10 ans.",
        ),
        (
            "Los registros para propiedades españolas se guardan 5 años.",
            "Los registros para propiedades alemanas se guardan 10 años.",
        ),
        (
            "Reservas para hoteles en España se guardan 5 años.",
            "Reservas para hoteles en Alemania se guardan 10 años.",
        ),
        (
            "I dati per i clienti italiani sono conservati 5 anni.",
            "I dati per i clienti tedeschi sono conservati 10 anni.",
        ),
        (
            "De gegevens voor Nederlandse klanten worden 5 jaar bewaard.",
            "De gegevens voor Duitse klanten worden 10 jaar bewaard.",
        ),
        (
            "Dane dla klientów z Polski są przechowywane 5 lat.",
            "Dane dla klientów z Niemiec są przechowywane 10 lat.",
        ),
        (
            "Os dados para clientes brasileiros ficam 5 anos.",
            "Os dados para clientes portugueses ficam 10 anos.",
        ),
        ("欧州向けの予約データは5年間保存する。", "日本向けの予約データは10年間保存する。"),
        ("The v1 API returns dates as ISO strings.", "The v2 API returns dates as ISO strings."),
    ],
)
def test_values_for_two_scopes_are_no_contradiction(
    tmp_path: Path, first: str, second: str
) -> None:
    """Five years for Spanish properties and ten for German ones are two rules, both true."""
    assert _proposed(tmp_path, first, second) == []


@pytest.mark.parametrize(
    ("first", "second"),
    [  # one subject, two values after the verb
        (
            "The Redis cluster runs on the Standard tier.",
            "The Redis cluster runs on the Premium tier.",
        ),
        (
            "Le cluster Redis tourne sur le tier Standard.",
            "Le cluster Redis tourne sur le tier Premium.",
        ),
    ],
)
def test_one_subject_on_two_tiers_is_a_contradiction(
    tmp_path: Path, first: str, second: str
) -> None:
    """The Redis cluster is on one tier: the two entries disagree, a person chooses, and the
    proposal names the two values as written."""
    assert _proposed(tmp_path, first, second) == ["contradiction"]
    result = run_cli("consolidate", "--json", cwd=tmp_path)
    reason = json.loads(result.stdout)["proposals"][0]["reason"]
    assert reason in ("Standard against Premium", "Premium against Standard")
