"""Marks in an entry's raw text that keep two entries from being one: a change note, a Turkish
negation, a value after a label and colon, a representation after "stored as".

Why it exists: ``consolidate --apply`` deletes one side of every duplicate it proposes. The
first measurements of blind_pairs14 and blind_pairs15 found six pairs merged that say different
things while sharing most words: "Since 2025-05-20 ... `/v2`; `/v1` returns 410 Gone" against
"... under `/v1`" (a change note whose date :mod:`.wording` drops), "(2025-09-01) Switched the
driver app maps from Mapbox ...", a Turkish or Korean negation read as agreement, "Flutter
state management: Riverpod." against "...: BLoC", "stored as the last watched second" against
"saved as the percentage". Each mark here is read from the text as written (before wording
drops dates); :mod:`.relations` decides what the pair is. Pure text functions, stdlib only.
"""

from __future__ import annotations

import re

_DATE = r"\d{4}-\d{2}(?:-\d{2})?"
# A note that something changed, in the languages the labelled sets use: "since <date>"
# ("Seit", "Desde", "Depuis", "Dal", "Sinds", "Od"), a date with "from" after it
# ("2025-03-01부터", "から", "以降", "itibaren", "起"), "switched ... from", "UPDATE:",
# "returns 410", "no longer" abroad. A date stamp in brackets ("(since 2024-05)") dates the
# entry: no change. A date alone ("(2025-09-01) Switched ...") is no mark: dated log lines
# say the same thing twice.
_CHANGE = re.compile(
    r"(?<!\()\b(?:since|seit|desde|depuis|dal|dall'|sinds|od|a partir de)\s+(?:the\s+|el\s+|le\s+)?"
    + _DATE
    + r"|"
    + _DATE
    + r"\s*(?:부터|이후|から|以降|より|起|以来|itibaren|tarihinden)"
    r"|\bswitched\b[^.;]{0,60}\bfrom\b|\bmoved\b[^.;]{0,40}\bfrom\b[^.;]{0,40}\bto\b"
    r"|^\W*(?:UPDATE|UPDATED|CHANGED|NOTE: changed)\b"
    r"|\breturns?\s+(?:an?\s+|http\s+)?410\b|\b410 gone\b"
    r"|\bnicht mehr\b|\bya no\b|\bjá não\b|\bnão \w+ mais\b|\bnon più\b|\bjuż nie\b"
    r"|\bn'\w+ plus\b|\bne \w+ plus\b|\bartık\b|더 이상|不再|もはや",
    re.IGNORECASE | re.MULTILINE,
)
_UPPER_CHANGE = re.compile(r"^\W*(?:UPDATE|UPDATED|CHANGED)\b")  # capitals only: a heading


def changed(source: str) -> bool:
    """Whether the text as written notes a change ("Since 2025-05-20 ...", "(2025-09-01)
    Switched ...", "UPDATE: ...", "`/v1` returns 410 Gone", "nicht mehr")."""
    found = _CHANGE.search(source)
    if found is None:
        return False
    if found.group().lstrip(" \t-*([").upper().startswith(("UPDATE", "CHANGED", "NOTE")):
        return _UPPER_CHANGE.search(source) is not None  # "update the lockfile" is no note
    return True


# Turkish is told by its dotless i, soft g and cedilla s; its verbs negate with a suffix
# ("yapılmaz" is not done, "çalıştırılmamalı" must not be run, "gerekmiyor", "yapılmadı",
# "yapılmayacak", "yapmadan" without doing), and "değil", "yok" negate what comes before.
_TURKISH = re.compile(r"[ğışİĞŞ]")
_TURKISH_NEGATIVE = re.compile(
    r"\b(\w{3,}?m[ae](?:z|m[ae]l[ıi]|d[ıiuü]|y[ae]c[ae]k|m[ıiuü]ş|d[ae]n)\w*"
    r"|\w{3,}?m[ıiuü]yor\w*)(?=\W|$)"
    r"|\b(?:değil\w*|yok(?:tur)?)\b",
    re.IGNORECASE,
)


def turkish_negations(text: str) -> str:
    """The text with "not" after each Turkish negation, read as a negation of its clause (as
    "아니다" and "않다" are); text in no Turkish letters is returned as it is."""
    if not _TURKISH.search(text):
        return text
    return _TURKISH_NEGATIVE.sub(lambda found: f"{found.group()} not", text)


# French negation frames the verb ("ne redémarre pas", "n'est jamais", "ne se lance plus"):
# the negation word after the verb would govern what follows it ("pas tout seul"), not the verb.
_FRENCH_NEGATIVE = re.compile(
    r"\bn(?:e\s+|['\u2019]\s*)((?:[^\W\d_][\w'\u2019]*\s+){0,2}?[^\W\d_][\w'\u2019]*)"
    r"\s+(?:pas|jamais|plus|point|guère)\b",
    re.IGNORECASE,
)


def french_negations(text: str) -> str:
    """The text with each French "ne VERB pas" written "not VERB", so the negation governs
    the verb it frames, as an English "not" before it does."""
    return _FRENCH_NEGATIVE.sub(lambda found: f"not {found.group(1)}", text)


# "Flutter state management: Riverpod.": a label, then the value it is given.
_LABELLED = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?([^:：\n`]{3,60}?)(?:\*\*)?\s*[:：](?!//)\s*(\S.*)$"
)


def labelled(source: str) -> tuple[str, str] | None:
    """The label and value of an entry written "label: value" (lower case label, its spaces
    collapsed), or None."""
    found = _LABELLED.match(source)
    if found is None:
        return None
    return " ".join(found.group(1).lower().split()), found.group(2)


# What a value is kept as: "stored as the last watched second", "salvo como", "als ...
# gespeichert", "enregistré comme", "salvato come", "zapisywany jako", "olarak saklanır".
_STORE_VERB = re.compile(
    r"\b(?:stor|sav|kept|keep|persist|record|represent|encod|seriali|guard|salv|armazen"
    r"|gespeichert|speicher|abgelegt|enregistr|stock|memorizz|zapis|przechow|kaydedil|saklan)",
    re.IGNORECASE,
)
_AS_PHRASE = re.compile(r"\b(?:as|como|als|comme|come|jako)\s+([^.;,()]+)", re.IGNORECASE)


def kept_as(source: str) -> str | None:
    """What an entry says a value is stored as ("the last watched second"), or None when it
    names no storing verb or no "as"."""
    if _STORE_VERB.search(source) is None:
        return None
    found = _AS_PHRASE.search(source)
    return found.group(1) if found else None
