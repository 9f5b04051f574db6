"""Query understanding for search: a person's or agent's text turned into safe FTS5 expressions.

Why it exists: agents ask questions ("when did we buy the figurines?"), not keyword lists. A
question's stopwords and question words are not in the text that answers it, and its verbs are
often in another form than the answer's ("buy" / "bought"). This module decides what a query
asks for, so :mod:`conkeeper.services.search.engine` can run it: every term is quoted (quotes,
parentheses, ``AND``, ``-``, ``*``, ``:`` or NUL bytes can never raise a syntax error);
``"quoted phrases"``, ``prefix*``, ``OR`` between terms and identifiers (``parse_config``,
``parseConfig``, ``src/auth/token.py``) work as typed; plain words that are stopwords or question
words are dropped (unless nothing else is left); a plain word with irregular forms matches them
all (a small table, :data:`_IRREGULAR`; regular endings are the porter stemmer's job).

The plan carries two expressions: ``match`` (every term: AND) and ``any_match`` (any term: OR),
which search uses as a ranked fallback when the AND query finds too little, plus each term's own
expression (``terms``) so lines can be scored by which terms they contain.
"""

from __future__ import annotations

from conkeeper.domain.records import FrozenRecord

MAX_TERMS = 32
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")
_TRAILING = frozenset("?!.,;:")


# The scanners below are plain string code, not regular expressions: a search is a fresh
# process, and ``re`` (with ``enum``) would cost it about 6 ms to import. Each one equals the
# pattern in its docstring (a property test checks them against ``re``).


def words(text: str) -> list[str]:
    """Runs of letters and digits in any script (``[^\\W_]+``): ``_`` and punctuation split."""
    out: list[str] = []
    start = -1
    for i, char in enumerate(text):
        if char.isalnum():
            if start < 0:
                start = i
        elif start >= 0:
            out.append(text[start:i])
            start = -1
    if start >= 0:
        out.append(text[start:])
    return out


def has_word(text: str) -> bool:
    """True when ``text`` holds a letter or digit (``[^\\W_]``)."""
    return any(char.isalnum() for char in text)


def without_possessive(token: str) -> str:
    """``John's`` / ``John's?`` -> ``John`` (``\\A(\\w+)'[sS][?!.,;:]*\\Z``), else ``token``."""
    mark = token.find("'")
    if mark < 1 or token[mark + 1 : mark + 2] not in ("s", "S"):
        return token
    head, tail = token[:mark], token[mark + 2 :]
    if all(c.isalnum() or c == "_" for c in head) and all(c in _TRAILING for c in tail):
        return head
    return token


def is_camel(word: str) -> bool:
    """An inner capital (``[a-z0-9][A-Z]|[A-Z][A-Z][a-z]``): ``parseConfig``, ``HTTPServer``."""
    for i in range(len(word) - 1):
        a, b, c = word[i], word[i + 1], word[i + 2 : i + 3]
        if b in _UPPER and (a in _LOWER or a in _DIGITS or (a in _UPPER and c in _LOWER)):
            return True
    return False


def camel_parts(word: str) -> list[str]:
    """The parts of a camel-case word, as
    ``[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\\W\\d_A-Za-z]+`` finds them:
    ``HTTPServer2x`` -> ``HTTP``, ``Server``, ``2``, ``x``."""
    parts: list[str] = []
    i, n = 0, len(word)
    while i < n:
        char = word[i]
        if char in _UPPER:
            end = _run(word, i, _UPPER)
            if end < n and word[end] in _LOWER:
                end = end - 1 if end - i > 1 else _run(word, end, _LOWER)
        elif char in _LOWER:
            end = _run(word, i, _LOWER)
        elif char in _DIGITS:
            end = _run(word, i, _DIGITS)
        elif _is_other_letter(char):
            end = i + 1
            while end < n and _is_other_letter(word[end]):
                end += 1
        else:
            i += 1
            continue
        parts.append(word[i:end])
        i = end
    return parts


def _run(word: str, start: int, chars: frozenset[str]) -> int:
    end = start
    while end < len(word) and word[end] in chars:
        end += 1
    return end


def _is_other_letter(char: str) -> bool:
    """A word character that is not a decimal digit, ``_`` or an ASCII letter."""
    return char.isalnum() and not char.isdecimal() and char not in _UPPER and char not in _LOWER


# English stopwords and question words: words a question carries that the answer rarely does.
# "not", "no" and "never" are kept: they change what is asked.
_STOPWORD_TEXT = """a about above after again against all am an and any are as at be because
    been before
    being below between both but by can could did do does doing down during each else ever
    few for from further had has have having he her here hers herself him himself his how i
    if in into is it its itself just let me more most my myself of off on once only or other
    our ours ourselves out over own same she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up upon us
    very was we were what whatever when whenever where whereas wherever whether which while
    who whoever whom whose why will with would you your yours yourself yourselves ago also
    anyone anything been many much might must shall something somewhere thing things via
    whats wheres whos hows im ive youre theyre dont didnt doesnt isnt wasnt arent werent
    kind sort likely probably perhaps maybe wouldnt couldnt shouldnt cant wont havent hasnt
    hadnt aint done mention mentions mentioned describe describes described"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# Irregular forms the porter stemmer cannot join: each group is one term. Regular forms
# ("walked", "walking", "boxes") need nothing here.
_IRREGULAR_GROUPS = """
arise arose arisen|awake awoke awoken|be was were been|bear bore born borne|beat beaten|
become became|begin began begun|bend bent|bet|bind bound|bite bit bitten|bleed bled|
blow blew blown|break broke broken|breed bred|bring brought|build built|burn burnt|
buy bought|catch caught|choose chose chosen|cling clung|come came|cost|creep crept|cut|
deal dealt|dig dug|do did done|draw drew drawn|dream dreamt|drink drank drunk|
drive drove driven|eat ate eaten|fall fell fallen|feed fed|feel felt|fight fought|
find found|flee fled|fly flew flown|forbid forbade forbidden|forget forgot forgotten|
forgive forgave forgiven|freeze froze frozen|get got gotten|give gave given|go went gone goes|
grind ground|grow grew grown|hang hung|have has had|hear heard|hide hid hidden|hit|
hold held|hurt|keep kept|kneel knelt|know knew known|lay laid|lead led|lean leant|
leap leapt|learn learnt|leave left|lend lent|let|lie lay lain|light lit|lose lost|
make made|mean meant|meet met|pay paid|prove proven|put|quit|read|ride rode ridden|
ring rang rung|rise rose risen|run ran|say said|see saw seen|seek sought|sell sold|
send sent|set|shake shook shaken|shine shone|shoot shot|show shown|shrink shrank shrunk|
shut|sing sang sung|sink sank sunk|sit sat|sleep slept|slide slid|speak spoke spoken|
speed sped|spend spent|spin spun|split|spread|spring sprang sprung|stand stood|
steal stole stolen|stick stuck|sting stung|strike struck|string strung|strive strove striven|
swear swore sworn|sweep swept|swim swam swum|swing swung|take took taken|teach taught|
tear tore torn|tell told|think thought|throw threw thrown|understand understood|
wake woke woken|wear wore worn|weave wove woven|weep wept|win won|wind wound|
withdraw withdrew withdrawn|write wrote written|
child children|person people|man men|woman women|mouse mice|foot feet|tooth teeth|
goose geese|ox oxen|die dice|leaf leaves|life lives|knife knives|wife wives|wolf wolves|
half halves|shelf shelves|calf calves|thief thieves|analysis analyses|crisis crises|
criterion criteria|phenomenon phenomena|datum data|index indices|matrix matrices
"""
_irregular: dict[str, tuple[str, ...]] | None = None


def irregular_forms(word: str) -> tuple[str, ...]:
    """Every form of ``word`` in the irregular table (including itself), or ``(word,)``."""
    global _irregular
    if _irregular is None:
        table: dict[str, tuple[str, ...]] = {}
        for group in _IRREGULAR_GROUPS.replace("\n", "").split("|"):
            forms = tuple(group.split())
            for form in forms:
                table[form] = tuple(dict.fromkeys([*table.get(form, ()), *forms]))
        _irregular = table
    return _irregular.get(word, (word,))


class QueryPlan(FrozenRecord):
    """A user's text turned into FTS5: ``match`` (all terms) and ``any_match`` (any term) are
    safe to pass to ``MATCH``; ``terms`` holds each term's own expression, in query order.

    ``needles`` are lower-case word fragments used to point at matching lines when FTS5's
    highlighter has nothing to mark (a stem, identifier part or category matched).
    """

    __slots__ = ("dropped", "labels", "match", "needles", "terms", "text", "truncated")
    text: str
    match: str
    needles: tuple[str, ...]
    truncated: bool
    terms: tuple[str, ...]
    dropped: tuple[str, ...]  # stopwords left out of the query
    labels: tuple[str, ...]  # a listing (no words): the categories and tags every entry carries

    def __init__(
        self,
        text: str,
        match: str,
        needles: tuple[str, ...],
        truncated: bool = False,
        terms: tuple[str, ...] = (),
        dropped: tuple[str, ...] = (),
        labels: tuple[str, ...] = (),
    ) -> None:
        self._set(text=text, match=match, needles=needles, truncated=truncated)
        self._set(terms=terms, dropped=dropped, labels=labels)

    @property
    def listing(self) -> bool:
        """True for :func:`label_listing`: every entry with the labels, no words to match."""
        return bool(self.labels)

    @property
    def empty(self) -> bool:
        """True when the text held nothing searchable (only punctuation, say)."""
        return not self.match

    @property
    def any_match(self) -> str:
        """Any one term: the fallback when requiring every term finds too little."""
        if len(self.terms) < 2:
            return self.match
        return " OR ".join(f"({t})" if " OR " in t else t for t in self.terms)


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def _term(raw: str, prefix: bool, phrase: bool) -> tuple[str, list[str]] | None:
    """The FTS5 expression and needles for one raw word (or phrase) of the query."""
    found = words(raw)
    if not found:
        return None
    star = "*" if prefix else ""
    lowered = [w.lower() for w in found]
    if len(found) == 1 and is_camel(found[0]):  # parseConfig: whole, or its parts
        parts = [p.lower() for p in camel_parts(found[0])]
        whole = _quote(lowered[0]) + star
        return f"{whole} OR {_quote(' '.join(parts))}{star}", [lowered[0], *parts]
    if len(found) == 1 and not prefix and not phrase:
        forms = irregular_forms(lowered[0])
        if len(forms) > 1:
            return " OR ".join(_quote(f) for f in forms), list(forms)
    return _quote(" ".join(lowered)) + star, lowered


def _tokens(text: str) -> list[tuple[str, bool]]:
    """Split query text into ``(token, is_phrase)``; unmatched quotes are plain text."""
    out: list[tuple[str, bool]] = []
    parts = text.split('"')
    closed = len(parts) % 2 == 1
    for i, part in enumerate(parts):
        phrase = i % 2 == 1 and (closed or i < len(parts) - 1)
        if phrase:
            out.append((part, True))
        else:
            out.extend((word, False) for word in part.split())
    return out


def _is_stopword(token: str, phrase: bool) -> bool:
    """A plain word (not a phrase, prefix, identifier or acronym) in :data:`STOPWORDS`."""
    if phrase or token.endswith("*") or (token.isupper() and len(token) > 1):
        return False
    found = words(token.replace("'", ""))  # "didn't" is one word: "didnt"
    return len(found) == 1 and found[0].lower() in STOPWORDS


def label_listing(labels: tuple[str, ...]) -> QueryPlan:
    """The plan of ``search --category NAME`` with no words: every memory-file entry carrying
    each of ``labels`` (the index puts an entry's categories and tags in its ``terms``
    column, so the match names that column only)."""
    match = " AND ".join(f"terms : {_quote(name.lower())}" for name in labels)
    return QueryPlan("", match, (), labels=tuple(labels))


def build_match(text: str, max_terms: int = MAX_TERMS) -> QueryPlan:
    """Parse ``text`` (any string at all) into a :class:`QueryPlan`; never raises."""
    clean = text.replace("\x00", " ").replace("\u2019", "'")
    tokens = _tokens(clean)
    meaningful = [
        t
        for t in tokens
        if not (not t[1] and t[0] in ("AND", "OR")) and not _is_stopword(t[0].strip("?!.,;"), t[1])
    ]
    drop = bool(meaningful) and any(has_word(t[0]) for t in meaningful)
    pieces: list[str] = []
    needles: list[str] = []
    dropped: list[str] = []
    pending_or = False
    truncated = False
    for token, phrase in tokens:
        if not phrase and token in ("AND", "OR"):
            pending_or = token == "OR" and bool(pieces)
            continue
        if drop and _is_stopword(token.strip("?!.,;"), phrase):
            dropped.append(token)
            continue
        if len(pieces) >= max_terms:
            truncated = True
            break
        prefix = not phrase and token.endswith("*")
        if not phrase:  # "John's" asks about John: the text may say "John" as well
            token = without_possessive(token)
        term = _term(token.rstrip("*") if prefix else token, prefix, phrase)
        if term is None:
            continue
        if pending_or:
            pieces[-1] = f"{pieces[-1]} OR {term[0]}"
        else:
            pieces.append(term[0])
        needles.extend(term[1])
        pending_or = False
    pieces = list(dict.fromkeys(pieces))
    match = " AND ".join(f"({p})" if " OR " in p else p for p in pieces)
    return QueryPlan(
        text, match, tuple(dict.fromkeys(needles)), truncated, tuple(pieces), tuple(dropped)
    )


def term_forms(term: str) -> list[tuple[str, bool]]:
    """The quoted forms of one expression of :attr:`QueryPlan.terms`, as ``(text, prefix)``:
    ``"buy" OR "bought"`` -> ``[("buy", False), ("bought", False)]``, ``"pars"*`` ->
    ``[("pars", True)]``. The team search asks PostgreSQL for the same terms with them."""
    out: list[tuple[str, bool]] = []
    i, n = 0, len(term)
    while i < n:
        if term[i] != '"':
            i += 1
            continue
        j, chars = i + 1, []
        while j < n and not (term[j] == '"' and term[j + 1 : j + 2] != '"'):
            chars.append(term[j])
            j += 2 if term[j] == '"' else 1  # "" is one quote inside a quoted form
        out.append(("".join(chars), term[j + 1 : j + 2] == "*"))
        i = j + 1
    return out
