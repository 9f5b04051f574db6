"""Pairs that are not one entry, though they share most words, through the real ``conkeeper
consolidate``: a negation in Korean or Turkish, a change note (a dated lead, "since <date>",
"switched ... from", "UPDATE:", "returns 410", abroad), two values after one label and a colon,
two stored forms of one value, and a shorter entry that adds a rule of its own. None is merged,
so ``--apply`` deletes neither line.

Why it exists: the first measurements of blind_pairs14 and blind_pairs15 found six such pairs
merged as duplicates, one rule deleted by ``--apply`` each time (the worst error: the deleted
line may be the correct one). Each class is probed in several languages, as people write memory;
the last pairs pin duplicates these mends must not take away.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidate_support import apply_keeps_both, kinds, one_file

CONTRADICTIONS = [
    # a negation: Korean "아니다", Turkish "değil", "-mamalı", "-maz" (Japanese and Chinese too)
    ("관리자 계정에는 2단계 인증이 필수가 아니다.", "관리자 계정은 2단계 인증(2FA)이 필수다."),
    (
        "Yönetici hesaplarında iki faktörlü doğrulama zorunlu değil.",
        "Yönetici hesaplarında iki faktörlü doğrulama zorunlu.",
    ),
    (
        "Production veritabanında migration elle çalıştırılmamalı.",
        "Production veritabanında migration elle çalıştırılmalı.",
    ),
    (
        "Staging ortamına cuma günleri deploy yapılmaz.",
        "Staging ortamına cuma günleri deploy yapılır.",
    ),
    ("管理者アカウントでは二要素認証は必須ではない。", "管理者アカウントでは二要素認証が必須だ。"),
    ("管理员账户不需要双因素认证。", "管理员账户需要双因素认证。"),
    # a change note on one side naming what the other states: superseded, never a copy
    (
        "The tracking API is served under `/v1`.",
        "Since 2025-05-20 the tracking API is served under `/v2`; `/v1` returns 410 Gone.",
    ),
    (
        "Maps in the driver app use Mapbox.",
        "(2025-09-01) Switched the driver app maps from Mapbox to the Google Maps SDK.",
    ),
    (
        "Seit 2025-03-01 läuft die Suche über Meilisearch statt Algolia.",
        "Die Suche läuft über Algolia.",
    ),
    (
        "Desde 2025-03-01 la búsqueda usa Meilisearch en lugar de Algolia.",
        "La búsqueda usa Algolia.",
    ),
    ("2025-03-01부터 검색은 Algolia 대신 Meilisearch를 쓴다.", "검색은 Algolia를 쓴다."),
    # two stored forms of one value
    (
        "Video progress is stored as the last watched second.",
        "Video progress is saved as the percentage of the video watched.",
    ),
    (
        "O progresso do vídeo é salvo como o último segundo assistido.",
        "O progresso do vídeo é salvo como a porcentagem do vídeo assistida.",
    ),
    (
        "Der Videofortschritt wird als zuletzt gesehene Sekunde gespeichert.",
        "Der Videofortschritt wird als Prozentsatz des Videos gespeichert.",
    ),
]

NEITHER = [
    # two values after one label and a colon (a choice to look at, or two rules)
    (
        "Flutter state management: Riverpod.",
        "Flutter state management: BLoC (flutter_bloc) everywhere.",
    ),
    ("Flutter 상태 관리: Riverpod.", "Flutter 상태 관리: BLoC (flutter_bloc) 전체."),
    ("Search engine: Meilisearch.", "Search engine: Elasticsearch with the ICU plugin."),
    # a shorter entry that adds a requirement of its own to the same topic
    (
        "Environments pin Terraform module versions explicitly; no `ref=main` anywhere.",
        "Terraform modules are versioned with git tags.",
    ),
]


@pytest.mark.parametrize(("first", "second"), CONTRADICTIONS)
def test_negated_changed_or_other_form_is_a_contradiction(
    tmp_path: Path, first: str, second: str
) -> None:
    """The pair is a contradiction (a person chooses), and ``--apply`` keeps both lines."""
    path = one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["contradiction"]
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(("first", "second"), NEITHER)
def test_label_values_and_added_rules_are_never_merged(
    tmp_path: Path, first: str, second: str
) -> None:
    """No merge is proposed, so ``--apply`` deletes neither line."""
    path = one_file(tmp_path, first, second)
    assert "duplicate" not in kinds(tmp_path)
    apply_keeps_both(tmp_path, path, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [  # one rule said twice: the mends must leave these merged
        ("Flutter state management: Riverpod.", "Flutter state management: Riverpod everywhere."),
        (
            "Video progress is stored as the last watched second.",
            "Video progress is saved as the last second watched.",
        ),
        ("관리자 계정은 2단계 인증이 필수다.", "관리자 계정에는 2단계 인증(2FA)이 필수다."),
        (
            "Yönetici hesaplarında iki faktörlü doğrulama zorunlu değil.",
            "Yönetici hesaplarında iki faktörlü doğrulama zorunlu değildir.",
        ),
    ],
)
def test_one_rule_said_twice_still_merges(tmp_path: Path, first: str, second: str) -> None:
    """A duplicate with a label, a stored form, a Korean or a Turkish negation on both sides
    is still proposed as one."""
    one_file(tmp_path, first, second)
    assert kinds(tmp_path) == ["duplicate"]
