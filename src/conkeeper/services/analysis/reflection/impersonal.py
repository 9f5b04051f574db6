"""A rule told to the agent in the second person, in another language, made impersonal.

Why it exists: a rule approved from a correction is read by every later session, so it must be
a self-contained statement, not the user's words to one agent. "Siempre debes usar pnpm, no
npm", "Devi sempre usare pnpm", "Du musst immer pnpm verwenden", "Vous devez toujours utiliser
pnpm" keep the "you must" of the moment; each language states a standing rule with the bare
infinitive ("Siempre usar pnpm, no npm", "Sempre usare pnpm", "Immer pnpm verwenden",
"Toujours utiliser pnpm", "Altijd pnpm gebruiken", "Zawsze używać pnpm"), and a prohibition
keeps its negation in the language's place ("Tu ne dois pas utiliser npm" -> "Ne pas utiliser
npm"). English "you must" is read by :mod:`.rules` itself.
"""

from __future__ import annotations

import re

# (subject pronoun, modal of obligation told to "you", negation that may come with it)
_LANGUAGES = (
    (  # Spanish
        r"tú|tu|usted|ustedes|vosotros",
        r"debes|debéis|deberías|deberíais|tienes\s+que|tenéis\s+que|has\s+de",
        r"no|nunca",
    ),
    (  # Italian
        r"tu|voi|lei",
        r"devi|dovete|dovresti|dovreste",
        r"non|mai",
    ),
    (  # Portuguese
        r"você|vocês|tu|vós",
        r"deves|deveis|deverias|tens\s+que|tens\s+de|precisas\s+de|"
        r"(?<=você\s)(?:deve|deveria|tem\s+que|tem\s+de|precisa)|"
        r"(?<=vocês\s)(?:devem|deveriam|têm\s+que|precisam)",
        r"não|nunca",
    ),
    (  # French
        r"tu|vous",
        r"dois|devez|devrais|devriez",
        r"ne|n'",
    ),
    (  # German
        r"du|ihr",
        r"musst|müsst|sollst|sollt|solltest|solltet|darfst(?=\s+(?:nicht|nie|niemals|kein))|"
        r"dürft(?=\s+(?:nicht|nie|niemals|kein))",
        r"",
    ),
    (  # Dutch
        r"je|jij|u|jullie",
        r"moet|moeten|zou\s+moeten|mag(?=\s+(?:geen|niet|nooit))|mogen(?=\s+(?:geen|niet|nooit))",
        r"",
    ),
    (  # Polish
        r"ty|wy",
        r"musisz|musicie|powinieneś|powinnaś|powinniście|powinnyście|"
        r"(?<=nie\s)(?:możesz|możecie)",
        r"nie",
    ),
)
_ADVERB = (
    r"siempre|nunca|sempre|mai|toujours|jamais|immer|nie|niemals|altijd|nooit|zawsze|nigdy|"
    r"aquí|qui|aqui|ici|hier"
)


def _pattern(pronoun: str, modal: str, negation: str) -> re.Pattern[str]:
    """The opening of a clause that tells "you" what to do in one language: an adverb, the
    pronoun, a negation and the modal, in the orders the language puts them (the pronoun
    before the modal, or after it when an adverb opens the clause: "Immer musst du ...")."""
    neg = rf"(?P<neg>(?:{negation})\s*)?" if negation else r"(?P<neg>)"
    return re.compile(
        rf"^(?P<lead>(?:{_ADVERB})[\s,]+)?(?:(?:{pronoun})\s+)?{neg}(?:{modal})"
        rf"(?:\s+(?:{pronoun}))?(?P<after>\s+(?:pas|jamais|plus)\b)?\s+(?=\S)",
        re.IGNORECASE,
    )


_PATTERNS = tuple(_pattern(*language) for language in _LANGUAGES)
# the answer before the rule ("No, siempre debes ...", "Nein, du musst ..."): not the rule's
_ANSWER = re.compile(r"^(?:no|non|nein|nee|não|nie)\s*[,.!;:]+\s*", re.IGNORECASE)


def impersonal(clause: str) -> str:
    """``clause`` without the "you must" that opens it, in Spanish, Italian, Portuguese,
    French, German, Dutch or Polish: what is left is the infinitive rule of the language
    ("Siempre debes usar pnpm, no npm" -> "Siempre usar pnpm, no npm"). Any other clause is
    returned as it is."""
    said = _ANSWER.sub("", clause)
    for pattern in _PATTERNS:
        found = pattern.match(said)
        if found is None:
            continue
        lead = found["lead"] or ""
        negation = (found["neg"] or "").strip()
        if negation.lower() in {"ne", "n'"}:  # "tu ne dois pas utiliser" -> "ne pas utiliser"
            negation = "ne" + (found["after"] or " pas")
        elif found["after"]:
            return clause  # "pas" without "ne": not the shape read here
        words = [w for w in (lead.strip(" ,"), negation.strip()) if w]
        rest = said[found.end() :]
        return " ".join([*words, rest]) if words else rest
    return clause
