"""Classes of wording in an entry's raw text that keep two entries from being one: opposite
states, colours and tiers, two products after one head noun, a value that extends another, a
Welsh negation, and a rule for every member against one member, one dated event or one
numbered member ("PR #4812", "Build 9120", "PAY-1432", "v4.2.0").

Why it exists: ``consolidate --apply`` deletes one side of every duplicate it proposes. The
first measurement of blind_pairs16 and blind_pairs17 found ten pairs merged that share most
words and say different things: "falls back to off" against "... to ON", "chiffrés" against
"stockés en clair", "synchronously" against "asynchronously", "se mantienen" against "se
eliminan", "Rydyn ni'n anfon" against "Dydyn ni byth yn anfon", "Azure Key Vault" against
"HashiCorp Vault", "level AAA" against "level AA", "red" against "orange", "Every P1 incident"
against one dated P1 outage, "すべてのCloud Runサービス" against one service "（Cloud Run）".
Each check reads a class, not a pair, in the languages the labelled sets use; :mod:`.relations`
decides what the pair is. Round 27 added opposite ways of doing one thing ("restored
automatically" against "... manually", "UTC" against "the depot's local wall-clock time"): the
cv authors' contradictions missed most often said the two ways in other words, and a pair worded
alike but for the way was merged. Round 28 read "included" as "shown" and "excluded", "omitted",
"left out" as "hidden" (blind_pairs21's first measurement merged "... diagnoses are hidden from
the dashboard summary view" with "... are included in ..."). Pure text functions, stdlib only.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_][\w'\u2019.-]*[^\W_]|[^\W_]")


def _words(text: str) -> frozenset[str]:
    """A word set written as one string (long lists stay readable)."""
    return frozenset(text.split())


_NEGATION = _words(
    """not never no don't doesn't isn't aren't nunca jamais jamás nie nicht kein keine não
    non mai niet nooit pas ne n' ddim byth instead rather than"""
)
NEGATION_REACH = 3  # words around a state a negation flips ("never publicly", "rather than")
_RESTRICTED = _words("only solo seulement nur solamente sólo")  # "the only allowed path"
_CLAUSE_END = re.compile(r"[.;,:!?\u2014]")

# Opposite states, each side a pattern of word openings in the languages the sets use.
_STATES: tuple[tuple[str, str, str], ...] = (
    (
        "on against off",
        r"\bON\b|\b(?:is|are|stays?|to|turned|switched)\s+[Oo]n(?=\s*(?:[.;,)]|$))",
        r"(?<!-)\b(?:off|OFF|Off)\b(?!-)",
    ),
    (
        "enabled against disabled",
        r"\b(?:enabled?|enables|activ[éeao]\w*|aktiviert|attivat\w*|włączon\w*|habilitad\w*)\b",
        r"\b(?:disabled?|disables|désactiv\w*|desactivad\w*|deaktiviert|disattivat\w*"
        r"|wyłączon\w*|deshabilitad\w*)\b",
    ),
    (
        "synchronous against asynchronous",
        r"\b(?:sync|synchronous(?:ly)?|synchron\w*|síncron\w*|sincron\w*|synchrone\w*)\b",
        r"\b(?:async|asynchronous(?:ly)?|asynchron\w*|asíncron\w*|asincron\w*|asynchrone\w*"
        r"|queued|en cola|in coda)\b",
    ),
    (
        "encrypted against plain text",
        r"(?<!un)\b(?:encrypted|chiffré\w*|cifrad\w*|verschlüsselt\w*|crittografat\w*"
        r"|criptografad\w*|szyfrowan\w*|versleuteld)\b",
        r"\b(?:plain\s?text|clear\s?text|en clair|in clear|in the clear|texto plano"
        r"|texto claro|klartext|im klartext|in chiaro|unencrypted|jawnym tekstem)\b",
    ),
    (
        "kept against removed",
        r"\b(?:kept|retained|se mantienen|se mantiene|se conservan|se conserva|conservé\w*"
        r"|behalten|beibehalten|mantenut\w*|mantid\w*|zachowywan\w*|permanent\w*)\b",
        r"\b(?:removed|deleted|se eliminan|se elimina|se borran|se borra|supprimé\w*"
        r"|entfernt|gelöscht|rimoss\w*|eliminat\w*|removid\w*|usuwan\w*|usunięt\w*)\b",
    ),
    (
        "allowed against forbidden",
        r"\b(?:allowed|permitted|erlaubt|permitid\w*|autorisé\w*|consentit\w*|dozwolon\w*)\b",
        r"\b(?:forbidden|prohibited|verboten|prohibid\w*|interdit\w*|vietat\w*|zabronion\w*"
        r"|proibid\w*)\b",
    ),
    (
        "public against private",
        r"\b(?:public|publicly|öffentlich\w*|públic\w*|publique\w*|pubblic\w*|publiczn\w*)\b",
        r"\b(?:private|privately|privat\w*|privad\w*|privé\w*|prywatn\w*)\b",
    ),
)
_ON_CASED = "on against off"  # read in its own case ("fall back to ON"), not as "on weekends"
_STATE_PATTERNS = tuple(
    (
        name,
        re.compile(yes, 0 if name == _ON_CASED else re.IGNORECASE),
        re.compile(no, re.IGNORECASE),
    )
    for name, yes, no in _STATES
)


def _around(text: str, start: int, end: int) -> tuple[list[str], list[str]]:
    """The words of the state's clause just before and just after it."""
    before = _CLAUSE_END.split(text[:start])[-1]
    after = _CLAUSE_END.split(text[end:])[0]
    return (
        _WORD.findall(before.lower())[-NEGATION_REACH:],
        _WORD.findall(after.lower())[:NEGATION_REACH],
    )


def _sides(text: str, index: int) -> set[bool | None]:
    """The sides of one opposite pair the text says (True: the first), each flipped by a
    negation in its clause just before or after it ("never publicly", "plaintext secrets are
    not allowed"); None for a side a restriction makes ("the only allowed path")."""
    _, yes, no = _STATE_PATTERNS[index]
    found: set[bool | None] = set()
    for pattern, side in ((yes, True), (no, False)):
        for match in pattern.finditer(text):
            before, after = _around(text, match.start(), match.end())
            if _RESTRICTED & set(before):
                found.add(None)
                continue
            negated = bool(_NEGATION & set(before)) != bool(_NEGATION & set(after))
            found.add(side != negated)
    return found


def opposite_states(text_a: str, text_b: str) -> str | None:
    """The opposite states two entries say of what they share ("enabled against disabled"),
    or None: each must say one side only, and not the same one."""
    for index, (name, _, _) in enumerate(_STATE_PATTERNS):
        sides_a, sides_b = _sides(text_a, index), _sides(text_b, index)
        said = sides_a | sides_b
        if len(sides_a) == len(sides_b) == 1 and None not in said and len(said) == 2:
            return name
    return None


# Opposite ways of doing one thing, read only where an entry says a side plainly: "never
# push" is no pull, and "without manual action" no manual step. Each side a pattern of word
# openings in the languages the sets use.
_WAYS: tuple[tuple[str, str, str], ...] = (
    (
        "automatic against manual",
        r"\b(?:automatic(?:ally)?|automatique\w*|automatisch\w*|automátic\w*|automatic\w*"
        r"|automatyczn\w*|automaticamente|automáticamente)\b",
        r"\b(?:manual(?:ly)?|by hand|manuel\w*|manuell\w*|manualmente|a mano|à la main"
        r"|ręczn\w*)\b",
    ),
    (
        "UTC against local time",
        r"\bUTC\b",
        r"\blocal(?:\s+\w+){0,2}\s+time(?:\s?zones?)?\b|\bwall[- ]clock\b|\bhora local\b"
        r"|\bheure locale\b|\bOrtszeit\b",
    ),
    (
        "shown against hidden",
        r"\b(?:shown|displayed|visible|listed|included|includes|angezeigt|sichtbar|aufgeführt"
        r"|enthalten|affiché\w*|inclus|incluse\w*|listé\w*|mostrad\w*|incluid\w*|incluy\w*"
        r"|listad\w*|mostrat\w*|inclus[oiae]|elencat\w*|exibid\w*|widoczn\w*|uwzględnion\w*"
        r"|wyświetlan\w*)\b|(?<!非)表示され|显示|顯示|列出",
        r"\b(?:hidden|invisible|excluded|excludes|omitted|left out|ausgeblendet|verborgen"
        r"|ausgeschlossen|weggelassen|caché\w*|exclu[es]?|omis\w*|ocult\w*|excluid\w*"
        r"|excluy\w*|omitid\w*|nascost\w*|esclus[oiae]|omess[oiae]|ukryt\w*|wykluczon\w*"
        r"|pomijan\w*|pominięt\w*)\b|非表示|隐藏|隱藏|不显示|不顯示",
    ),
    (
        "required against optional",
        r"\b(?:required|mandatory|compulsory|obligatori\w*|obligatoire\w*|verpflichtend"
        r"|erforderlich|wymagan\w*|obrigatóri\w*)\b",
        r"\b(?:optional\w*|opcional\w*|facultati\w*|freiwillig|opzional\w*|opcjonaln\w*)\b",
    ),
)
_WAY_PATTERNS = tuple(
    (name, re.compile(yes, re.IGNORECASE), re.compile(no, re.IGNORECASE)) for name, yes, no in _WAYS
)
_UNSAID = _NEGATION | _words("without sin sans ohne senza bez sem except unless")


def _plain_side(text: str, yes: re.Pattern[str], no: re.Pattern[str]) -> bool | None:
    """The one side of a pair of ways the text says, or None: it says neither, both, or
    one near a negation, a restriction or a "without" (whose side it then does not say)."""
    found: set[bool] = set()
    for pattern, side in ((yes, True), (no, False)):
        for match in pattern.finditer(text):
            before, after = _around(text, match.start(), match.end())
            if (_UNSAID | _RESTRICTED) & set(before + after):
                return None
            found.add(side)
    return found.pop() if len(found) == 1 else None


def opposite_ways(text_a: str, text_b: str) -> str | None:
    """Two opposite ways the entries say one thing is done ("migrations run automatically"
    against "a DBA applies them by hand", "timestamps are UTC" against "... the depot's local
    wall-clock time"), each said plainly, or the opposite states :func:`opposite_states`
    reads (a negation flipping a state); None when neither applies."""
    for name, yes, no in _WAY_PATTERNS:
        side_a, side_b = _plain_side(text_a, yes, no), _plain_side(text_b, yes, no)
        if side_a is not None and side_b is not None and side_a != side_b:
            return name
    return opposite_states(text_a, text_b)


def without_ways(text: str) -> str:
    """The text with every word of a way or state blanked out: what is left says what the
    entry is about (two entries sharing only "async" or "enabled" speak of two things)."""
    for _, yes, no in _WAY_PATTERNS + _STATE_PATTERNS:
        text = no.sub(" ", yes.sub(" ", text))
    return text


# Colours and tiers, wherever they sit in the entry ("shown in red", "the colour ... is orange").
_GRADES = re.compile(
    r"\b(?:red|orange|green|blue|yellow|purple|violet|grey|gray|black|white|pink|brown|amber"
    r"|rouge|vert|verte|bleu|bleue|jaune|noir|blanc|rot|grün|blau|gelb|schwarz|weiß|weiss"
    r"|rojo|roja|verde|azul|amarillo|amarilla|naranja|negro|blanco|rosso|rossa|giallo|gialla"
    r"|arancione|nero|bianco|czerwon\w*|zielon\w*|niebiesk\w*|żółt\w*|pomarańczow\w*"
    r"|vermelh\w*|amarel\w*|laranja|coch|gwyrdd|glas|melyn|oren"
    r"|bronze|silver|gold|platinum)\b|赤|青|緑|黄色|オレンジ|빨간|파란|초록|노란|주황",
    re.IGNORECASE,
)


def other_grades(text_a: str, text_b: str) -> tuple[str, str] | None:
    """A colour or tier each entry names and the other never does ("red" against "orange"),
    or None."""
    grades_a = {g.lower() for g in _GRADES.findall(text_a)}
    grades_b = {g.lower() for g in _GRADES.findall(text_b)}
    own_a, own_b = grades_a - grades_b, grades_b - grades_a
    if own_a and own_b:
        return min(own_a), min(own_b)
    return None


_CAPITALISED = re.compile(r"(?<![\w.])((?:[A-Z][\w-]*\s+){1,3})([A-Z][\w-]*)\b")


def _products(text: str) -> dict[str, list[str]]:
    """Each capitalised head noun with the capitalised names before it ("Azure Key Vault":
    Vault after Azure and Key), the entry's first word left out (a sentence opens capitalised)."""
    found: dict[str, list[str]] = {}
    for match in _CAPITALISED.finditer(text):
        names = match.group(1).split()
        if match.start() == len(text) - len(text.lstrip(" -*")):
            names = names[1:]
        if names:
            found.setdefault(match.group(2), names)
    return found


def _short_for(one: str, other: str) -> bool:
    """Whether one name is the other written short ("GH" for GitHub, "MS" for Microsoft):
    capitals only, the first letter shared, the rest found in order in the longer."""
    short, long = sorted((one, other), key=len)
    if not short.isupper() or short[0] != long[0].upper():
        return False
    rest = iter(long[1:].lower())
    return all(letter in rest for letter in short[1:].lower())


def other_products(text_a: str, text_b: str) -> tuple[str, str] | None:
    """Two products sharing a head noun, each opening with a name (its maker, its brand) the
    other entry never uses ("Azure Key Vault" against "HashiCorp Vault"), or None."""
    products_a, products_b = _products(text_a), _products(text_b)
    for head in sorted(products_a.keys() & products_b.keys()):
        brand_a, brand_b = products_a[head][0], products_b[head][0]
        if brand_a not in text_b and brand_b not in text_a and not _short_for(brand_a, brand_b):
            return " ".join([*products_a[head], head]), " ".join([*products_b[head], head])
    return None


_VALUE_TOKEN = re.compile(r"(?<![\w.:])(?:[A-Z]{1,4}|v?\d+(?:\.\d+)*)(?![\w:]|\.\w)")


def extended_value(text_a: str, text_b: str) -> tuple[str, str] | None:
    """The one value each entry states that the other lacks, one extending the other ("AA"
    against "AAA", "v2" against "v2.1"): two values, not one, or None. An extension by zeros
    ("8" and "8.0") is the same value; a value among others ("2.7" against "2.7.3, upgrade to
    2.8") is the same value with more detail."""
    values_a, values_b = set(_VALUE_TOKEN.findall(text_a)), set(_VALUE_TOKEN.findall(text_b))
    own_a, own_b = values_a - values_b, values_b - values_a
    if len(own_a) != 1 or len(own_b) != 1:
        return None
    (one,), (other,) = own_a, own_b
    short, long = sorted((one, other), key=len)
    rest = long[len(short) :]
    if not long.startswith(short) or not rest:
        return None
    repeated = set(rest) == {short[-1]} and short.isalpha()  # "AA" and "AAA"
    if repeated or re.fullmatch(r"(?:\.\d*[1-9]\d*)+", rest):  # "v2" and "v2.1", not "8.0"
        return one, other
    return None


_SLOT_WORD = re.compile(r"[^\W_][\w'\u2019/.-]*[^\W_]|[^\W_]")
SLOT_WORDS = 4  # words the differing part of each entry may hold ("Unleashin varianteilla")
NAME_STEM = 4  # letters a name shares with a word of the other entry in another case ending


def _capitals(word: str) -> str:
    return "".join(ch for ch in word if ch.isupper())


def _name_in(name: str, words: list[str]) -> bool:
    """Whether ``name`` is among ``words`` in some form: the same opening letters (a case
    ending: "Unleashin" is Unleash), a short form ("GH" for GitHub), the same capitals ("ASan"
    for AddressSanitizer) or the initials of the words ("RN" for React Native)."""
    stem = name[: max(NAME_STEM, len(name) - 3)].lower()
    capitals = _capitals(name)
    initials = "".join(word[0] for word in words if word[0].isupper())
    return (len(capitals) >= 2 and (capitals == name and capitals in initials)) or any(
        word.lower().startswith(stem)
        or stem.startswith(word.lower())
        or _short_for(name, word)
        or (len(capitals) >= 2 and capitals == _capitals(word))
        for word in words
        if len(word) >= min(NAME_STEM, len(name))
    )


def other_names(text_a: str, text_b: str) -> tuple[str, str] | None:
    """Two entries worded alike but for one part, each part naming a proper name (a capital
    within the sentence) the other entry never uses in any form: "Sovelluksen A/B-testit
    tehdään Optimizelyllä." against "... tehdään Unleashin varianteilla." (two tools in
    Finnish case endings, which no lexicon of names reads). Two things said of one subject,
    never one entry said twice; None when the entries differ elsewhere too, or when a part
    holds a number (a value with its unit, capitalised in German: "28 Tage", "4 Wochen")."""
    words_a, words_b = _SLOT_WORD.findall(text_a), _SLOT_WORD.findall(text_b)
    lower_a, lower_b = [w.lower() for w in words_a], [w.lower() for w in words_b]
    start = 0
    while start < min(len(lower_a), len(lower_b)) and lower_a[start] == lower_b[start]:
        start += 1
    end = 0
    while end < min(len(lower_a), len(lower_b)) - start and lower_a[-1 - end] == lower_b[-1 - end]:
        end += 1
    part_a, part_b = words_a[start : len(words_a) - end], words_b[start : len(words_b) - end]
    if not start or not (0 < len(part_a) <= SLOT_WORDS and 0 < len(part_b) <= SLOT_WORDS):
        return None
    if any(ch.isdigit() for word in (*part_a, *part_b) for ch in word):
        return None  # a value and its unit ("28 Tage", "4 Wochen"): the values' own reading
    names_a = [w for w in part_a if w[0].isupper() and not _name_in(w, words_b)]
    names_b = [w for w in part_b if w[0].isupper() and not _name_in(w, words_a)]
    if names_a and names_b:
        return " ".join(part_a), " ".join(part_b)
    return None


# Welsh negates with the verb's own form ("Dydyn ni ddim", "Dyw e ddim", "Nid yw") and "byth".
_WELSH_NEGATION = re.compile(
    r"\b(?:dydyn|dydw|dydy|dyw|dydych|dydyw|dydi|nid|ddim|byth|doedd|fydd dim)\b", re.IGNORECASE
)
_WELSH = re.compile(r"\b(?:yn|ni'n|rydyn|rydym|mae|ydyn|bydd|wedi|ar|gyda|ein)\b", re.IGNORECASE)


def welsh_negation(text_a: str, text_b: str) -> bool:
    """Whether two Welsh entries differ in a negation ("Rydyn ni'n anfon" against "Dydyn ni
    byth yn anfon")."""
    if not (_WELSH.search(text_a) and _WELSH.search(text_b)):
        return False
    return bool(_WELSH_NEGATION.search(text_a)) != bool(_WELSH_NEGATION.search(text_b))


# A rule for every member, in the languages the sets use (Japanese すべて/全て, Chinese 所有).
_UNIVERSAL = re.compile(
    r"\b(?:every|each|all|todos|todas|cada|tous|toutes|chaque|alle|jede[rsn]?|ogni|tutti"
    r"|tutte|każd\w*|wszystkie|elke|alle)\b|すべて|全て|あらゆる|所有|全部|모든",
    re.IGNORECASE,
)
_FULL_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
# One member named by its number, key or release rather than its date: "PR #4812", "MR !77",
# "PAY-1432", "build 9120", "incident nº 41", "release v2.3.1" (blind_pairs19's first
# measurement merged "PR #4812 ... was approved by Ana" with "Every PR needs an approval").
_NUMBERED = re.compile(
    r"(?<![\w#!])[#!]\d+\b|\bv\d+(?:\.\d+)+\b"
    r"|\b(?:build|run|job|pipeline|ticket|issue|incident|release|sprint|order|invoice|deploy"
    r"|lauf|auftrag|rechnung|tiket|incidente|incidencia|pedido|factura|commande|facture"
    r"|ordine|fattura|zgłoszenie|zamówienie|faktura|wydanie)"
    r"\s+(?:no\.?\s*|nr\.?\s*|n[ºo°]\.?\s*|number\s+|#)?\d+\b",
    re.IGNORECASE,
)
# A ticket key in capitals ("PAY-1432", "OPS-77"), not a standard's name ("SHA-256", "UTF-8").
_TICKET = re.compile(
    r"\b(?!(?:SHA|UTF|ISO|AES|RSA|HMAC|MD|TLS|SSL|HTTP|IPV|TCP|UDP)-)[A-Z]{2,}-\d{2,}\b"
)
_ASIDE = re.compile(r"[(（]([^()（）]{1,40})[)）]")


def _member_named(rule: str, aside: str) -> bool:
    """Whether a bracketed name ("P1", "Cloud Run") is what the rule's quantifier governs:
    a name (a capital, a digit or a word of another script first) just after "every",
    "すべての", "所有"."""
    aside = aside.strip()
    if not aside or aside[0].islower():
        return False
    return any(
        aside in rule[found.end() : found.end() + len(aside) + UNIVERSAL_GAP]
        for found in _UNIVERSAL.finditer(rule)
    )


UNIVERSAL_GAP = 3  # characters between the quantifier and the class it governs ("すべての")


def _numbered(text: str) -> bool:
    """Whether the text names one member by its number, ticket key or release."""
    return _NUMBERED.search(text) is not None or _TICKET.search(text) is not None


def member_of_rule(text_a: str, text_b: str) -> bool:
    """Whether one entry is a rule for every member and the other one member of it: a dated
    event ("The 2024-02-14 outage (P1) had its review"), a numbered one ("PR #4812", "PAY-1432",
    "build 9120", "v2.3.1") or a member named with its class in an aside
    ("ラベル印刷サービス（Cloud Run）"). Both hold; neither is the other said twice."""
    for rule, case in ((text_a, text_b), (text_b, text_a)):
        if not _UNIVERSAL.search(rule) or _UNIVERSAL.search(case):
            continue
        if _FULL_DATE.search(case) and not _FULL_DATE.search(rule):
            return True
        if _numbered(case) and not _numbered(rule):
            return True  # "PR #4812 was approved by Ana" against "Every PR needs an approval"
        if any(_member_named(rule, aside) for aside in _ASIDE.findall(case)):
            return True
    return False
