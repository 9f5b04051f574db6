"""The one privacy mechanism: what of a text may be stored, indexed, injected or sent anywhere.

Every path that moves text out of a memory file or a captured prompt/tool result calls this
module first (spec principle 3), so there is exactly one definition of "private":

* ``<private>`` and ``</private>`` alone on their own line (surrounding whitespace allowed, any
  case) hide everything between them, the tag lines included. Nesting is counted; an unclosed
  block hides to the end of the file; a stray ``</private>`` hides itself and is reported.
* A span that opens and closes on one line (``host <private>10.0.4.12</private> (VPN)``) is
  removed, tags and content, leaving the rest of the line byte for byte; a line that is only a
  span becomes an empty line. An inline ``<private>`` left open hides to its ``</private>`` on a
  later line (to the end of the file when there is none); a stray inline ``</private>`` hides
  its line up to the tag. A tag written as inline code (```<private>```) is literal.
* Tag lines and spans inside a fenced code block (CommonMark ``` / ~~~ fences) outside any
  private block are code, not tags, so documentation can show the syntax. A fence protects
  only when it is unambiguous: it is closed, and reading the file with every tag counted
  (fences ignored, a fence's lone example tag not counted) leaves its opening and closing
  lines outside every private block. A fence that pairs across private blocks protects
  nothing, and the tags inside it count, so a well-formed block never leaks whatever the
  fences before it.
* Inside a private block the end is decided twice — once ignoring fences, once honouring them —
  and a line hidden by either reading is hidden. Whatever the fences inside a block mean,
  nothing between ``<private>`` and the ``</private>`` a person may have meant ever leaks.
* ``private: true`` (or yes/on/1, any case or quoting) in the front matter hides the whole file.
  An unrecognised value also hides it: when in doubt, the text stays private. Near-misses a
  person plainly means (a quoted key, a flow mapping ``{private: true}``, zero-width characters
  before ``---``) hide it too, with a warning.
* Zero-width characters anywhere in a tag, and attributes in an opening tag
  (``<private reason="x">``), still make it a tag.
* Captured text (prompts, tool input and output, errors, LLM replies) is cleaned whole by
  :func:`clean_captured`: inline spans are cut even inside code, every tag counts whatever the
  fences, ConKeeper's own injected context (:data:`CONTEXT_MARKER_TAG`) is dropped and secrets
  are redacted via :mod:`conkeeper.domain.secrets`. Memory files read for the index or for
  injection are cleaned by :func:`clean_for_index` / :func:`clean_for_injection` (private
  content removed, secrets redacted, line numbers kept; the file on disk is never modified).

Cleaned text has the type :class:`CleanText`, which only this module constructs: the
functions that store or emit captured text accept only it, so skipping the cleaning is a type
error. Selecting a line of it (:func:`pick`), cutting it (:func:`clip`) or joining pieces of
it (:func:`join_clean`) keeps the type; anything else makes it a plain ``str`` again.

Lines are split like :meth:`str.splitlines` (``\\n``, ``\\r\\n``, lone ``\\r`` and the other
Unicode breaks), so no line ending lets a private line survive. Every scan is linear.
"""

from __future__ import annotations

import re

from conkeeper.domain.frontmatter import (
    BOM,
    parse_bool,
    parse_front_matter,
    strip_inline_comment,
    unquote,
)
from conkeeper.domain.lazy_re import LazyPattern
from conkeeper.domain.records import FrozenRecord, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from conkeeper.domain.secrets import SecretMatch

CONTEXT_MARKER_TAG = "conkeeper-memory"
"""Tag the SessionStart hook wraps injected memory in, so capture never stores it back."""

OPEN_TAG = "<private>"
CLOSE_TAG = "</private>"

REASON_BLOCK = "private block"
REASON_UNCLOSED = "unclosed <private> block (hidden to the end of the file)"
REASON_STRAY = "stray </private> tag"
REASON_AMBIGUOUS = "code fence inside a private block makes its end ambiguous; hidden to be safe"
REASON_SPAN = "inline <private> span over several lines"
REASON_SPAN_OPEN = "inline <private> never closed (hidden to the end of the file)"

_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# the breaks str.splitlines splits at and a memory file's lines do not (domain.lines)
_ODD_BREAK = LazyPattern("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060\u200e\u200f\u00ad\u180e"
_DROP_INVISIBLE = {ord(c): None for c in _INVISIBLE}
_MAX_TAG_LINE = 240
_MAX_WARNED = 10
_TAG_STARTS = "<" + _INVISIBLE
_TAG_ENDS = ">" + _INVISIBLE
_WRAPPER_TAGS = (CONTEXT_MARKER_TAG,)

_GAP = "[ \\t" + _INVISIBLE + "]*"
_INLINE_PRIVATE = LazyPattern(
    "<" + _GAP + "(/?)" + _GAP + "private(?:[ \\t" + _INVISIBLE + "][^<>\\n]{0,200})?" + _GAP + ">",
    re.IGNORECASE,
)
# The inline tag as captured text reads it: up to two spaces or line breaks (a wrapped line)
# between any two letters of ``private``, or around its ``<``, ``/`` and ``>``.
_LOOSE_GAP = "[ \\t\\r\\n" + _INVISIBLE + "]{0,2}"
_LOOSE_PRIVATE = LazyPattern(
    "<"
    + _LOOSE_GAP
    + "(/?)"
    + _LOOSE_GAP
    + _LOOSE_GAP.join("private")
    + "(?:[ \\t"
    + _INVISIBLE
    + "][^<>\\n]{0,200})?"
    + _LOOSE_GAP
    + ">",
    re.IGNORECASE,
)
_CONTEXT_MARKER = LazyPattern(
    r"<[ \t]*(/?)[ \t]*" + re.escape(CONTEXT_MARKER_TAG) + r"(?:[ \t][^>\n]{0,200})?[ \t]*>",
    re.IGNORECASE,
)
_WRAPPER_TAG = LazyPattern(
    "<(" + _GAP + "/?" + _GAP + "(?:" + "|".join(re.escape(t) for t in _WRAPPER_TAGS) + "))",
    re.IGNORECASE,
)
# any ConKeeper block tag (``<conkeeper-diff>``, ``</conkeeper-friction>``...)
_BLOCK_TAG = LazyPattern("<(" + _GAP + "/?" + _GAP + "conkeeper-)", re.IGNORECASE)
# Compatibility forms NFKC folds into ASCII, one character for one (so positions stay): the
# fullwidth block U+FF01-FF5E and the small ``﹤`` / ``﹥``. A reader that folds them sees a tag.
_COMPAT_FOLD = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0xFE64: 0x3C, 0xFE65: 0x3E}
# What a reader takes for ``<private>`` in a memory file, one character for one (positions
# stay): the compatibility forms above except the fullwidth backtick and tilde (they must not
# make code fences), angle brackets drawn like ``<`` and ``>``, and Cyrillic and Greek letters
# drawn like a letter of ``private``. HTML entities are not folded in a document: Markdown
# writes ``&lt;private&gt;`` to show the tag, not to hide anything.
_TAG_FOLD = {cp: c for cp, c in _COMPAT_FOLD.items() if cp not in (0xFF40, 0xFF5E)} | {
    ord(a): ord(b)
    for a, b in zip(
        "\u2329\u232a\u3008\u3009\u27e8\u27e9\u2039\u203a\u02c2\u02c3\u276e\u276f"
        "\u0440\u0420\u0456\u0406\u0430\u0410\u0442\u0422\u0435\u0415\u03bd\u03a1"
        "\u0391\u03a4\u0395\u0399\u03b9",
        "<><><><><><>pPiIaAtTeEvPATEIi",
        strict=True,
    )
}
# What a reader takes for a ConKeeper block tag, one character for one (positions stay): the
# compatibility forms above, angle brackets drawn like ``<`` and ``>``, dashes drawn like ``-``
# (hyphens, figure and en dash, minus, the small hyphen-minus) and Cyrillic and Greek letters
# drawn like a letter of ``conkeeper`` or ``memory``.
_BLOCK_FOLD = _COMPAT_FOLD | {
    ord(a): ord(b)
    for a, b in zip(
        "\u2329\u232a\u3008\u3009\u27e8\u27e9\u2039\u203a\u02c2\u02c3\u276e\u276f"
        "\u2010\u2011\u2012\u2013\u2212\ufe63\u2043"
        "\u0441\u0421\u043e\u041e\u043a\u041a\u0435\u0415\u0440\u0420\u0443\u0423\u041c"
        "\u03bf\u039f\u03ba\u039a\u03c1\u03a1\u0395\u039c",
        "<><><><><><>-------cCoOkKeEpPyYMoOkKpPEM",
        strict=True,
    )
}
# ``<`` and ``/`` and what is drawn like them; what may stand between the bracket, the slash
# and the tag's name
_TAG_OPENERS = "<" + "".join(chr(cp) for cp, to in _BLOCK_FOLD.items() if to == ord("<"))
_GAP_CHARS = " \t" + _INVISIBLE
_SLASHES = "/" + "".join(chr(cp) for cp, to in _BLOCK_FOLD.items() if to == ord("/"))
_FM_KEY = LazyPattern(r"""^["']?private["']?[ \t]*:[ \t]*(.*)$""", re.IGNORECASE)
_FM_FLOW = LazyPattern(r"""[{,][ \t]*["']?private["']?[ \t]*:[ \t]*([^,}]*)""", re.IGNORECASE)
_LEADING_BLANK_LINES = LazyPattern(r"\A(?:[ \t]*\n)+")
# Every way of hiding text (tags, ``private:`` front matter) spells "private"; this pattern is
# at least as lenient as each of them, so a text it does not match hides nothing.
_MENTIONS_PRIVATE = LazyPattern("private", re.IGNORECASE)


class CleanText(str):
    """Text the privacy module has cleaned: private content gone, secrets redacted.

    Only :mod:`conkeeper.domain.privacy` constructs it (a test enforces that), and the
    functions that store or emit captured text accept only it, so the type checker flags any
    path that skips the cleaning. ``str`` methods return plain ``str``: use :func:`pick`,
    :func:`clip` and :func:`join_clean` to derive clean text from clean text.
    """

    __slots__ = ()


class HiddenRange(FrozenRecord):
    """Lines ``start``..``end`` (1-based, inclusive) are hidden, and why."""

    __slots__ = ("end", "reason", "start")
    start: int
    end: int
    reason: str

    def __init__(self, start: int, end: int, reason: str) -> None:
        self._set(start=start, end=end, reason=reason)


class PrivacyReport(Record):
    """What privacy hides in one text, without any of the hidden text itself."""

    __slots__ = ("file_private", "hidden_ranges", "reason", "total_lines", "warnings")

    def __init__(
        self,
        file_private: bool = False,
        reason: str | None = None,
        hidden_ranges: list[HiddenRange] | None = None,
        warnings: list[str] | None = None,
        total_lines: int = 0,
    ) -> None:
        self.file_private = file_private
        self.reason = reason
        self.hidden_ranges: list[HiddenRange] = [] if hidden_ranges is None else hidden_ranges
        self.warnings: list[str] = [] if warnings is None else warnings
        self.total_lines = total_lines

    @property
    def hidden_line_count(self) -> int:
        """How many lines are hidden (the whole file when it is private)."""
        return sum(r.end - r.start + 1 for r in self.hidden_ranges)

    @property
    def block_count(self) -> int:
        """How many ``<private>`` blocks (closed or not) the text has."""
        return sum(r.reason in (REASON_BLOCK, REASON_UNCLOSED) for r in self.hidden_ranges)


class _Fence:
    __slots__ = ("bare", "char", "length")

    def __init__(self, char: str, length: int, bare: bool) -> None:
        self.char = char
        self.length = length
        self.bare = bare  # nothing but whitespace after the run, so it can also close a fence


class _Walk:
    """One reading of a document: hidden lines and the events found on the way."""

    __slots__ = ("blocks", "code", "distrusted", "hidden", "open_fences", "strays")

    def __init__(self, hidden: list[bool]) -> None:
        self.hidden = hidden
        self.code = [False] * len(hidden)  # inside a trusted fence outside any block
        self.blocks: list[tuple[int, int, bool]] = []  # 0-based, closed?
        self.strays: list[int] = []
        self.open_fences: list[int] = []
        self.distrusted: list[int] = []  # closable fences that protect nothing (ambiguous)


class _Analysis:
    __slots__ = ("ends_with_break", "hidden", "info", "lines", "report", "shown")

    def __init__(
        self,
        lines: list[str],
        ends_with_break: bool,
        hidden: list[bool],
        report: PrivacyReport,
        info: _Classified | None = None,
        shown: list[str] | None = None,
    ) -> None:
        self.lines = lines
        self.ends_with_break = ends_with_break
        self.hidden = hidden
        self.report = report
        self.info = info
        self.shown = lines if shown is None else shown  # lines with inline spans cut

    def visible(self) -> list[tuple[int, str]]:
        """``(0-based index, line)`` of every line that is not hidden, spans cut."""
        return [(i, line) for i, line in enumerate(self.shown) if not self.hidden[i]]


# ----------------------------------------------------------------------------- public API


def analyze(text: str) -> PrivacyReport:
    """Say what privacy hides in ``text``: file-level privacy, hidden line ranges, warnings."""
    return _analyze(text).report


def is_private_file(text: str) -> bool:
    """True when the front matter marks the whole file private (no block scan: cheap enough to
    skip private files before reading them further)."""
    lines = _strip_bom(text).splitlines()
    return _front_matter_privacy(lines)[0]


def blank_private(text: str) -> str:
    """``text`` with every hidden line emptied, keeping every other line at its line number.

    For parsers that report line numbers (the index, search, ``tag retro``): the number is the
    file's, as :mod:`conkeeper.domain.lines` counts it (LF, CRLF, lone CR), the one ``tag add``
    and the byte edits take. Hiding still reads the lines as :meth:`str.splitlines` splits
    them; a piece that ended at another Unicode break (U+2028, form feed, ...) is joined to
    the next by a space instead of starting a line. Inline spans are cut from their lines.
    Line breaks are normalised to ``\\n``; a private file becomes blank lines.
    """
    body = _strip_bom(text)
    if not _ODD_BREAK.search(body):
        return _blank_pieces(text)
    ends = [
        piece[len(line) :]
        for piece, line in zip(body.splitlines(keepends=True), body.splitlines(), strict=True)
    ]
    pieces = _blank_pieces(text).split("\n")
    return "".join(
        piece + ("\n" if end[-1:] in ("\n", "\r") else " " if end else "")
        for piece, end in zip(pieces, ends + [""] * (len(pieces) - len(ends)), strict=True)
    )


def _blank_pieces(text: str) -> str:
    """:func:`blank_private` numbered as :meth:`str.splitlines` numbers ``text``: one line per
    piece, every break (the Unicode ones too) made ``\\n`` (what :func:`shown_forms` aligns)."""
    if not _mentions_private(text):
        body = _strip_bom(text)
        lines = body.splitlines()
        ends_with_break = bool(body) and body[-1] in _LINE_BREAKS
        return "\n".join(lines) + ("\n" if lines and ends_with_break else "")
    result = _analyze(text)
    out = ["" if hide else line for line, hide in zip(result.shown, result.hidden, strict=True)]
    return "\n".join(out) + ("\n" if out and result.ends_with_break else "")


def strip_private(text: str) -> str:
    """Only the visible lines of ``text`` — what may be indexed, injected or exported.

    Inline spans are cut (a line that was only a span stays as an empty line). Line breaks are
    normalised to ``\\n`` and a leading BOM is dropped; ``''`` for a private file.
    """
    result = _analyze(text)
    kept = result.visible()
    if not kept:
        return ""
    body = "\n".join(line for _i, line in kept)
    last_has_break = kept[-1][0] < len(result.lines) - 1 or result.ends_with_break
    return body + ("\n" if last_has_break else "")


def visible_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` for every visible line, numbered as in the original text."""
    result = _analyze(text)
    return [(i + 1, line) for i, line in result.visible()]


def clean_captured(text: str) -> CleanText | None:
    """Make captured text (a prompt, tool input or output, an error, an LLM reply) safe to
    store, or ``None`` if nothing may be stored. Call it on the whole text, before anything
    selects a line from it or cuts it.

    Two readings are combined and anything either hides is cut: private block lines (also read
    with every tag counted, fences or not), and inline ``<private>…</private>`` spans (nesting
    counted, an unclosed one hides to the end, even inside code: a captured text is not a
    document and over-hiding is the safe error). ConKeeper's own injected ``<conkeeper-memory>``
    context is cut too, then secrets are redacted.
    """
    if not text or text.isspace():
        return None
    lowered = text.lower()  # no regex on the hook's common path: plain substring tests
    cuts: list[tuple[int, int]] = []
    if "private" not in lowered and CONTEXT_MARKER_TAG not in lowered:
        joined = "\n".join(_strip_bom(text).splitlines())  # no plain tag: secrets remain
    else:
        result = _analyze(text, document=False)
        if result.report.file_private:
            return None
        joined = "\n".join(result.lines)
        cuts = _line_cuts(result.lines, _captured_hidden(result))
        if "<" in joined:  # both inline tags start with "<": no regex for the common case
            cuts += _span_cuts(joined, _INLINE_PRIVATE, stray_from_start=True)
            cuts += _span_cuts(joined, _CONTEXT_MARKER)
    cuts += _disguised_span_cuts(joined, lowered)
    kept = _cut(joined, cuts) if cuts else joined
    from conkeeper.domain.secrets import redact  # imported only when text is captured

    redacted = redact(kept).rstrip()
    cleaned = _LEADING_BLANK_LINES.sub("", redacted) if redacted[:1].isspace() else redacted
    if CONTEXT_MARKER_TAG in cleaned.lower() or (
        not cleaned.isascii() and _lookalike_marker(cleaned)
    ):  # the marker's spans were cut; escape the rest, look-alike spellings too
        cleaned = escape_wrapper_tags(cleaned)
    return CleanText(cleaned) if cleaned.strip() else None


def _lookalike_marker(text: str) -> bool:
    """Whether ``text`` holds ``<conkeeper-memory`` (or its closing tag) spelled as
    :func:`escape_wrapper_tags` reads it, with a compatibility form or look-alike character
    (:data:`_BLOCK_FOLD`). Only a short window after each ``<`` (or what is drawn like it) is
    folded: the hook's path never folds a whole captured text."""
    for opener in _TAG_OPENERS:
        if opener not in text:
            continue
        for after in text.split(opener)[1:]:
            rest = after[:48].lstrip(_GAP_CHARS)
            if rest[:1] in _SLASHES:
                rest = rest[1:].lstrip(_GAP_CHARS)
            if _spells_marker(rest):
                return True
    return False


def _spells_marker(rest: str) -> bool:
    """Whether ``rest`` starts with the marker's name, each character read through
    :data:`_BLOCK_FOLD`; most ``<`` open something else, and the first letter that differs
    ends the look."""
    name = rest[: len(CONTEXT_MARKER_TAG)]
    if name.isascii() or len(name) < len(CONTEXT_MARKER_TAG):
        return name.lower() == CONTEXT_MARKER_TAG
    for char, wanted in zip(name, CONTEXT_MARKER_TAG, strict=True):
        code = ord(char)
        if chr(_BLOCK_FOLD.get(code, code)).lower() != wanted:
            return False
    return True


def clean_or_empty(text: str | None) -> CleanText:
    """:func:`clean_captured`, with ``""`` (as clean text) for missing or wholly private text."""
    return (clean_captured(text) if text else None) or CleanText("")


def clean_for_index(text: str) -> CleanText:
    """A memory file as the index may store it: :func:`blank_private` (line numbers kept) with
    every detected secret redacted, each redaction keeping the line breaks it replaced."""
    return CleanText(_redact_keeping_lines(blank_private(text)))


def clean_for_injection(text: str) -> CleanText:
    """A memory file as it may be injected or shown: :func:`strip_private`, secrets redacted,
    and ConKeeper's own wrapper tags escaped so the text cannot close the block it sits in."""
    return CleanText(escape_wrapper_tags(_redact_keeping_lines(strip_private(text))))


def shown_forms(text: str) -> list[set[str]]:
    """For each line of ``text`` (as ``str.splitlines`` numbers them), the other forms a reader
    shows it in: inline private spans cut and secrets redacted (the index and search), with
    ConKeeper's wrapper tags escaped too (MCP ``read_memory``, ``conkeeper review``), and its
    block tags escaped as well (SessionStart). An empty set for a line cleaning leaves alone.

    Why: a line an agent wrote is known by a key of its text (``storage.agent_edits``); a
    reader that compares that key with the cleaned line missed an order followed by
    ``<private>x</private>`` or carrying a token, and injected it. Read whole and, for a line
    with a tag in it, alone (the file around the line may differ from the text written)."""
    lines = text.splitlines()
    if text.isascii() and "<" not in text and not _may_hold_secret(text):
        return [set() for _ in lines]
    shown = _redact_keeping_lines(_blank_pieces(text)).split("\n")
    out: list[set[str]] = []
    for index, line in enumerate(lines):
        first = shown[index] if index < len(shown) else line
        bases = {first}
        if "<" in line or not line.isascii():
            bases.add(_redact_keeping_lines(_blank_pieces(line)).split("\n")[0])
        forms: set[str] = set()
        for base in bases:
            wrapped = escape_wrapper_tags(base)
            forms.update((base, wrapped, escape_block_tags(wrapped)))
        out.append({form for form in forms if form.strip() and form != line})
    return out


def _may_hold_secret(text: str) -> bool:
    """Whether the secret detector finds anything in ``text`` (the detector's own hint words
    keep this cheap for ordinary text)."""
    from conkeeper.domain.secrets import find_secrets

    return bool(find_secrets(text))


def escape_wrapper_tags(text: str) -> str:
    """``text`` with every ``<conkeeper-memory>`` / ``</conkeeper-memory>`` (any case or
    spacing, zero-width characters, fullwidth or small compatibility forms, look-alike
    brackets, dashes and letters) written as
    ``&lt;…`` so that it reads the same but never opens or closes the injected block."""
    return _escape_tag_opens(text, _WRAPPER_TAG)


def escape_block_tags(text: str) -> str:
    """``text`` with every ConKeeper block tag (``<conkeeper-diff>``, ``</conkeeper-team>``...,
    spelled as :func:`escape_wrapper_tags` reads them) written as ``&lt;…``: memory text can
    never open or close one of the blocks SessionStart frames."""
    return _escape_tag_opens(text, _BLOCK_TAG)


def _escape_tag_opens(text: str, pattern: LazyPattern) -> str:
    """``text`` with the ``<`` (or what is drawn like it) of each match of ``pattern`` (read
    over the text with compatibility forms and look-alikes folded, :data:`_BLOCK_FOLD`)
    written as ``&lt;``."""
    if text.isascii():
        return pattern.sub(lambda m: "&lt;" + m.group(1), text) if "<" in text else text
    folded = text.translate(_BLOCK_FOLD)
    if "<" not in folded:
        return text
    out: list[str] = []
    last = 0
    for match in pattern.finditer(folded):
        out.append(text[last : match.start()])
        out.append("&lt;")
        last = match.start() + 1
    out.append(text[last:])
    return "".join(out)


def pick(source: CleanText, piece: str) -> CleanText:
    """``piece`` as clean text: it must be a part of ``source`` (a selected line, a prefix),
    which was cleaned whole. Raises ``ValueError`` otherwise."""
    if piece not in source:
        raise ValueError("pick: the piece is not part of the cleaned text")
    return CleanText(piece)


def clip(text: CleanText, limit: int) -> CleanText:
    """Clean text as one line: whitespace collapsed, cut to ``limit`` characters with ``…``.

    Cutting happens only here, after cleaning, so a secret is never split before it is found.
    """
    flat = " ".join(text.split())
    return CleanText(flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…")


def join_clean(parts: list[CleanText], sep: str = " ") -> CleanText:
    """Clean pieces joined by ``sep`` (whitespace or punctuation only, never text)."""
    if sep.strip(" \t\n:;,|-—"):
        raise ValueError("join_clean: the separator must not carry text")
    return CleanText(sep.join(parts))


def label(prefix: str, text: CleanText | None = None) -> CleanText:
    """A fixed label made by code (``exit code 1``), cleaned, optionally followed by ``: text``.

    The label itself passes :func:`clean_captured`, so even a label built from payload data
    (a number) cannot carry private text.
    """
    head = clean_captured(prefix) or CleanText("")
    if text is None or not text:
        return head
    return CleanText(f"{head}: {text}") if head else text


def exposed_secrets(text: str) -> list[SecretMatch]:
    """Likely secrets in the visible part of ``text`` — the ones privacy does not protect.

    Offsets and line numbers refer to :func:`blank_private` of ``text``, whose lines match the
    original's.
    """
    from conkeeper.domain.secrets import find_secrets

    return find_secrets(blank_private(text))


def mask_hint(value: str) -> str:
    """A hint that helps find a secret without revealing it: at most 4 leading characters."""
    visible = min(4, len(value) // 4)
    return value[:visible] + "…"


def redact_for_matching(text: str) -> str:
    """``text`` (a tool's text a hook keeps for the turn, only to find its lines again in a
    file) with its secrets redacted read whole (a credential split over two lines) and then
    line by line, each line as :func:`redact_line` redacts it alone, so a line of the file
    cleaned by :func:`redact_line` is found in it as the raw line was in the raw text.
    ``<private>`` blocks are kept: the host loads such a block from the file, and a line the
    agent wrote inside one is held like any other."""
    whole = _redact_keeping_lines(text)
    return "\n".join(redact_line(line) for line in whole.split("\n"))


def redact_line(line: str) -> str:
    """One line with its secrets redacted (the form :func:`redact_for_matching` keeps)."""
    from conkeeper.domain.secrets import redact

    return redact(line)


def _redact_keeping_lines(text: str) -> str:
    """Secrets redacted like :func:`conkeeper.domain.secrets.redact`, but a redaction keeps
    the line breaks it replaces (a PEM block), so line numbers still match the file."""
    from conkeeper.domain.secrets import find_secrets

    for _ in range(3):  # a cut can expose a neighbour glued to it: repeat like redact() does
        matches = find_secrets(text)
        if not matches:
            break
        parts: list[str] = []
        pos = 0
        for match in matches:
            parts.append(text[pos : match.start])
            parts.append(
                f"[REDACTED:{match.kind}]" + "\n" * text.count("\n", match.start, match.end)
            )
            pos = match.end
        parts.append(text[pos:])
        text = "".join(parts)
    return text


# ----------------------------------------------------------------------------- analysis


_FOLDABLE_RE = LazyPattern("[" + "".join(chr(c) for c in _TAG_FOLD) + _INVISIBLE + "]")


def _mentions_private(text: str) -> bool:
    """Whether ``text`` may hide anything: it spells ``private``, also in folded look-alike
    letters or with invisible characters inside (a text that does not, hides nothing)."""
    if _MENTIONS_PRIVATE.search(text) is not None:
        return True
    if text.isascii() or _FOLDABLE_RE.search(text) is None:
        return False
    plain = text.translate(_TAG_FOLD).translate(_DROP_INVISIBLE)
    return _MENTIONS_PRIVATE.search(plain) is not None


def _fold_tags(lines: list[str]) -> list[str]:
    """``lines`` as tags are read in them (:data:`_TAG_FOLD`; the same list for ASCII)."""
    if all(line.isascii() or _FOLDABLE_RE.search(line) is None for line in lines):
        return lines
    return [line if line.isascii() else line.translate(_TAG_FOLD) for line in lines]


def _strip_bom(text: str) -> str:
    return text[1:] if text.startswith(BOM) else text


def _analyze(text: str, *, document: bool = True) -> _Analysis:
    """Read ``text`` once. ``document=False`` (captured text, which cuts spans its own way)
    skips the per-line inline span pass."""
    body = _strip_bom(text)
    lines = body.splitlines()
    ends_with_break = bool(body) and body[-1] in _LINE_BREAKS
    report = PrivacyReport(total_lines=len(lines))
    private, reason, fm_warnings = _front_matter_privacy(lines)
    report.warnings.extend(fm_warnings)
    if private:
        report.file_private, report.reason = True, reason
        if lines:
            report.hidden_ranges.append(HiddenRange(1, len(lines), reason or "private file"))
        return _Analysis(lines, ends_with_break, [True] * len(lines), report)
    folded = _fold_tags(lines)
    info = _classify(folded)
    hidden, code = _scan_blocks(info, report)
    report.warnings.extend(_unusual_tag_warnings(lines, info.tags))
    shown = _cut_inline_spans(lines, hidden, code, report, folded) if document else lines
    return _Analysis(lines, ends_with_break, hidden, report, info, shown)


def _front_matter_privacy(lines: list[str]) -> tuple[bool, str | None, list[str]]:
    """``(private, reason, warnings)`` from the front matter, found even after blank lines or
    invisible characters; near-miss spellings of the flag count, with a warning."""
    plain = [line.translate(_DROP_INVISIBLE) for line in lines[:400]]
    first = next((i for i, line in enumerate(plain) if line.strip()), None)
    if first is None or plain[first].strip() != "---":
        return False, None, []
    warnings = []
    if plain[first] != lines[first]:
        warnings.append(f"line {first + 1}: invisible characters before the front matter")
    fm = parse_front_matter("\n".join(plain[first:]))
    unclosed = "" if fm.closed else " (front matter not closed)"
    if "private" in fm.values:
        raw = fm.values["private"]
        if parse_bool(raw) is not False:
            return _flag_verdict(raw, unclosed, warnings)
    for line, near in _near_miss_flags(plain, first, fm.end_line):
        if parse_bool(near) is False:
            continue  # a near-miss that says "not private" never outweighs a plain flag
        warnings.append(
            f"line {line}: the private flag is written unusually; the file is treated as "
            "private (write 'private: true')"
        )
        return _flag_verdict(near, unclosed, warnings)
    return False, None, []


def _flag_verdict(raw: str, unclosed: str, warnings: list[str]) -> tuple[bool, str, list[str]]:
    """The file is private: why, from a flag value that is true or unrecognised."""
    if parse_bool(raw) is True:
        return True, f"front matter sets private: {raw}{unclosed}", warnings
    warnings.append(
        f"front matter 'private: {raw}' is not true or false; the file is treated as private"
    )
    return True, f"front matter sets private to an unrecognised value{unclosed}", warnings


def _near_miss_flags(plain: list[str], first: int, end_line: int) -> list[tuple[int, str]]:
    """``(line number, raw value)`` of every ``private:`` key the flat parser does not read as
    the file's flag: a quoted key, a flow mapping ``{private: …}``, an indented key or a list
    item (``  private: true``, ``- private: true``). A person who wrote one of them most
    likely meant the file to be private, so each counts (fail closed)."""
    found = []
    for i in range(first + 1, min(len(plain), first + max(end_line, 2))):
        stripped = plain[i].strip()
        if stripped in ("---", "..."):
            break
        if stripped.startswith("- "):
            stripped = stripped[2:].lstrip()
        match = _FM_KEY.match(stripped) or (stripped[:1] == "{" and _FM_FLOW.search(stripped))
        if match:
            found.append((i + 1, unquote(strip_inline_comment(match.group(1)))))
    return found


class _Classified:
    """Per-line facts every reading needs, computed once."""

    __slots__ = ("closable", "fences", "tags", "trusted", "unpaired")

    def __init__(self, tags: list[int], fences: list[_Fence | None], closers: list[int]) -> None:
        self.tags = tags  # 1 open tag line, -1 close tag line, 0 neither
        self.fences = fences
        self.closable = [c >= 0 for c in closers]  # a matching closer follows this fence
        self.trusted = self.closable  # narrowed once the blind reading is known
        self.unpaired = -1  # a fence left open when fences pair in order: no fence is trusted


def _scan_blocks(info: _Classified, report: PrivacyReport) -> tuple[list[bool], list[bool]]:
    """Hide private blocks under both readings of fences inside blocks; fill ``report``.
    Returns the hidden lines and the lines that are code (inside a trusted fence)."""
    plain = _walk(info, fences_in_blocks=False)
    fenced = _walk(info, fences_in_blocks=True) if any(info.tags) else plain  # same w/o tags
    hidden = [a or b for a, b in zip(plain.hidden, fenced.hidden, strict=True)]
    code = [a and b for a, b in zip(plain.code, fenced.code, strict=True)]
    ranges = [_block_range(start, end, closed) for start, end, closed in plain.blocks]
    ranges += [HiddenRange(i + 1, i + 1, REASON_STRAY) for i in plain.strays]
    extra = _runs([b and not a for a, b in zip(plain.hidden, fenced.hidden, strict=True)])
    ranges += [HiddenRange(start, end, REASON_AMBIGUOUS) for start, end in extra]
    report.hidden_ranges = sorted(ranges, key=lambda r: (r.start, r.end))
    report.warnings.extend(_walk_warnings(plain, info, extra))
    return hidden, code


def _block_range(start: int, end: int, closed: bool) -> HiddenRange:
    return HiddenRange(start + 1, end + 1, REASON_BLOCK if closed else REASON_UNCLOSED)


def _classify(lines: list[str]) -> _Classified:
    tags = [_tag_kind(line) for line in lines]
    fences = [_fence(line) for line in lines]
    closers = _fence_closers(fences)
    info = _Classified(tags, fences, closers)
    if any(tags) and any(c >= 0 for c in closers):
        examples = _Classified(_without_examples(tags, closers), fences, closers)
        blind = _walk(examples, fences_in_blocks=False, honour_fences=False)
        info.unpaired = _unpaired_fence(fences, blind.hidden)
        if info.unpaired >= 0:  # which fence is the stray one is a guess: no fence protects
            info.trusted = [False] * len(closers)
        else:
            info.trusted = [
                c >= 0 and not blind.hidden[i] and not blind.hidden[c]
                for i, c in enumerate(closers)
            ]
    return info


def _unpaired_fence(fences: list[_Fence | None], hidden: list[bool]) -> int:
    """The line index of a fence (outside every private block) that makes the pairing of
    fences a guess, or -1 when they pair plainly.

    Read in order as CommonMark pairs them, a fence left open at the end of the file is one
    too many: any earlier fence may be the stray one, and a later code block can pair with
    it so that a well-formed private block between them would read as code. The same holds
    for a fence line of the open fence's character that cannot close it (``````python``, or
    a shorter run): CommonMark reads it as content, a person as a new block. Privacy does
    not guess.
    """
    opened: _Fence | None = None
    at = -1
    for i, here in enumerate(fences):
        if here is None or hidden[i]:
            continue
        if opened is None:
            opened, at = here, i
        elif here.char == opened.char:
            if not here.bare or here.length < opened.length:
                return i  # content to CommonMark, a new block to a person: a guess
            opened = None
    return at if opened is not None else -1


def _without_examples(tags: list[int], closers: list[int]) -> list[int]:
    """``tags`` with the tag of every fence that holds exactly one tag (a lone ``<private>``
    or ``</private>`` shown as an example) set to 0. Only fences met outside every block
    (every tag counted) are examples; a fence inside a block is part of the block."""
    out = list(tags)
    upto = [0] * (len(tags) + 1)  # tag lines before each index: a fence's count in O(1)
    for k, tag in enumerate(tags):
        upto[k + 1] = upto[k] + (tag != 0)
    i, depth = 0, 0
    while i < len(closers):
        c = closers[i]
        if depth == 0 and c >= 0 and upto[c] - upto[i + 1] == 1:
            out[next(k for k in range(i + 1, c) if tags[k])] = 0
            i = c + 1
            continue
        depth = max(0, depth + tags[i])
        i += 1
    return out


def _walk(info: _Classified, *, fences_in_blocks: bool, honour_fences: bool = True) -> _Walk:
    """Read the document once. Outside private blocks a trusted fence turns tag lines into
    code; inside blocks fences count only when ``fences_in_blocks`` is set. Without
    ``honour_fences`` every tag line counts wherever it is."""
    walk = _Walk(hidden=[False] * len(info.tags))
    closable = info.closable if honour_fences else [False] * len(info.tags)
    trusted = info.trusted if honour_fences else closable
    depth, start, fence = 0, 0, None
    for i, (tag, here) in enumerate(zip(info.tags, info.fences, strict=True)):
        if fence is not None:
            walk.hidden[i] = depth > 0
            walk.code[i] = depth == 0
            if here and here.bare and here.char == fence.char and here.length >= fence.length:
                fence = None
        elif depth > 0:
            walk.hidden[i] = True
            depth += tag
            if depth == 0:
                walk.blocks.append((start, i, True))
            elif fences_in_blocks and here and closable[i]:
                fence = here
        elif tag == 1:
            walk.hidden[i], depth, start = True, 1, i
        elif tag == -1:
            walk.hidden[i] = True
            walk.strays.append(i)
        elif here:
            if trusted[i]:
                fence = here
                walk.code[i] = True
            elif closable[i]:
                walk.distrusted.append(i)
            else:
                walk.open_fences.append(i)
    if depth > 0:
        walk.blocks.append((start, len(info.tags) - 1, False))
    return walk


def _walk_warnings(walk: _Walk, info: _Classified, extra: list[tuple[int, int]]) -> list[str]:
    """Warnings a person should act on, naming lines but never showing their text."""
    warnings = [
        f"line {start + 1}: <private> is never closed; everything after it is hidden"
        for start, _end, closed in walk.blocks
        if not closed
    ]
    warnings += [
        f"line {i + 1}: </private> without an open <private>; the tag line is hidden"
        for i in walk.strays
    ]
    warnings += [
        f"{_lines(start, end)}: a code fence inside a private block makes its end ambiguous; "
        "these lines are hidden too — check the fences between <private> and </private>"
        for start, end in extra
    ]
    warnings += [
        f"line {i + 1}: code fence pairs with a fence across a private block or a stray "
        "</private>; it protects nothing and the <private> tags inside it count"
        for i in walk.distrusted
    ]
    if info.unpaired >= 0:
        warnings.append(
            f"line {info.unpaired + 1}: code fence has no partner, so which fences pair is "
            "ambiguous; no code fence protects <private> tags in this file"
        )
    last_tag = max((i for i, tag in enumerate(info.tags) if tag), default=-1)
    warnings += [
        f"line {i + 1}: code fence is never closed; <private> tags after it still count"
        for i in walk.open_fences
        if i < last_tag
    ]
    return warnings


def _unusual_tag_warnings(lines: list[str], tags: list[int]) -> list[str]:
    """Tag lines that count only because privacy reads near-misses generously (invisible
    characters, attributes): named so a person can write them plainly."""
    out = []
    for i, tag in enumerate(tags):
        if tag and "".join(lines[i].split()).lower() not in ("<private>", "</private>"):
            out.append(
                f"line {i + 1}: unusual {'<private>' if tag > 0 else '</private>'} tag "
                "(invisible or look-alike characters, or attributes) is treated as a tag; "
                "write it plainly"
            )
    return out[:_MAX_WARNED] + (
        [f"{len(out) - _MAX_WARNED} more unusual tag lines"] if len(out) > _MAX_WARNED else []
    )


def _lines(start: int, end: int) -> str:
    return f"line {start}" if start == end else f"lines {start}-{end}"


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """1-based inclusive ``(start, end)`` of each run of true flags."""
    runs: list[tuple[int, int]] = []
    start = None
    for i, flag in enumerate(flags):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append((start + 1, i))
            start = None
    if start is not None:
        runs.append((start + 1, len(flags)))
    return runs


# ----------------------------------------------------------------------------- inline spans


def _literal_tag(line: str, start: int, end: int) -> bool:
    """A tag written as inline code (```<private>```): shown, never acted on."""
    return line[start - 1 : start] == "`" and line[end : end + 1] == "`"


def _cut_inline_spans(
    lines: list[str],
    hidden: list[bool],
    code: list[bool],
    report: PrivacyReport,
    folded: list[str],
) -> list[str]:
    """The lines with inline ``<private>…</private>`` spans (read in ``folded``, the lines
    with look-alike characters folded one for one) cut (outside code). A span left open runs
    over the following lines to its close (hiding them); a stray close hides its line up to
    the tag. Lines wholly inside a span are marked in ``hidden``."""
    if not any("<" in line for line in folded):
        return lines
    shown = list(lines)
    depth, opened = 0, -1
    for i, line in enumerate(folded):
        if hidden[i] or (code[i] and depth == 0) or ("<" not in line and depth == 0):
            continue
        cuts: list[tuple[int, int]] = []
        begin = 0
        for match in _INLINE_PRIVATE.finditer(line):
            if depth == 0 and _literal_tag(line, match.start(), match.end()):
                continue
            if match.group(1):  # a closing tag
                if depth == 0:
                    cuts.append((0, match.end()))
                    report.warnings.append(
                        f"line {i + 1}: inline </private> without an open <private>; the line "
                        "is hidden up to the tag"
                    )
                    continue
                depth -= 1
                if depth == 0:
                    cuts.append((begin, match.end()))
                    if i != opened:
                        report.hidden_ranges.append(HiddenRange(opened + 1, i + 1, REASON_SPAN))
            else:
                if depth == 0:
                    begin, opened = match.start(), i
                depth += 1
        if depth > 0:
            cuts.append((begin, len(line)))
            if begin == 0 and i != opened:
                hidden[i] = True
                continue
        if cuts:
            kept = _cut(lines[i], cuts)
            shown[i] = kept if kept.strip() else ""
    if depth > 0:
        report.hidden_ranges.append(HiddenRange(opened + 1, len(lines), REASON_SPAN_OPEN))
        report.warnings.append(
            f"line {opened + 1}: inline <private> is never closed; everything after it is hidden"
        )
    return shown


# ----------------------------------------------------------------------------- line rules


def _tag_kind(line: str) -> int:
    """1 for a ``<private>`` tag line, -1 for ``</private>``, 0 otherwise.

    Whitespace and invisible (BOM, zero-width) characters anywhere in or around the tag are
    tolerated, an opening tag may carry attributes (``<private reason="x">``), and case is
    ignored: a near-miss must not leave a block open-ended in the user's mind but unrecognised
    here.
    """
    if "<" not in line:
        return 0
    s = line.strip()
    if not s or s[0] not in _TAG_STARTS or s[-1] not in _TAG_ENDS or len(s) > 2 * _MAX_TAG_LINE:
        return 0  # the common case, decided without copying the line
    s = s.translate(_DROP_INVISIBLE).strip()
    if len(s) > _MAX_TAG_LINE or not (s.startswith("<") and s.endswith(">")):
        return 0
    inner = s[1:-1].strip().lower()
    closing = inner.startswith("/")
    if closing:
        inner = inner[1:].lstrip()
    if not inner.startswith("private"):
        return 0
    rest = inner[7:]
    if rest and not (rest[0].isspace() and "<" not in rest and ">" not in rest):
        return 0
    if closing:
        return -1 if not rest.strip() else 0
    return 1


def _fence(line: str) -> _Fence | None:
    """A CommonMark fence line: up to 3 columns of indentation, then 3+ backticks or tildes
    (a backtick fence's info string may not contain a backtick)."""
    if not line or line[0] not in " \t`~":
        return None
    column, i = 0, 0
    while i < len(line) and line[i] in " \t":
        column = column + 1 if line[i] == " " else column + 4 - column % 4
        if column > 3:
            return None
        i += 1
    if i >= len(line) or line[i] not in "`~":
        return None
    char, j = line[i], i
    while j < len(line) and line[j] == char:
        j += 1
    rest = line[j:]
    if j - i < 3 or (char == "`" and "`" in rest):
        return None
    return _Fence(char, j - i, not rest.strip())


def _fence_closers(fences: list[_Fence | None]) -> list[int]:
    """For each fence line, the index of the first later fence that would close it (same
    character, bare, at least as long), or -1.

    A fence that never closes would turn every later tag into code; instead it protects
    nothing. One backward pass keeps, per character, a stack of closers whose lengths grow
    from the top, so the nearest long-enough closer is found without rescanning.
    """
    stacks: dict[str, list[tuple[int, int]]] = {"`": [], "~": []}  # (length, index)
    closers = [-1] * len(fences)
    for i in range(len(fences) - 1, -1, -1):
        here = fences[i]
        if here is None:
            continue
        stack = stacks[here.char]
        for length, index in reversed(stack):
            if length >= here.length:
                closers[i] = index
                break
        if here.bare:
            while stack and stack[-1][0] <= here.length:
                stack.pop()
            stack.append((here.length, i))
    return closers


# ----------------------------------------------------------------------------- captured text


def _captured_hidden(result: _Analysis) -> list[bool]:
    """The document's hidden lines plus those hidden when fences protect no tag at all."""
    if result.info is None:
        return result.hidden
    blind = _walk(result.info, fences_in_blocks=False, honour_fences=False)
    return [a or b for a, b in zip(result.hidden, blind.hidden, strict=True)]


def _line_cuts(lines: list[str], hidden: list[bool]) -> list[tuple[int, int]]:
    """Character ranges of hidden lines (with their line break) in ``"\\n".join(lines)``."""
    cuts: list[tuple[int, int]] = []
    offset = 0
    for line, hide in zip(lines, hidden, strict=True):
        end = offset + len(line) + 1
        if hide:
            cuts.append((offset, end))
        offset = end
    return cuts


def _span_cuts(
    text: str, tag: LazyPattern, stray_from_start: bool = False
) -> list[tuple[int, int]]:
    """Character ranges of ``<tag>…</tag>`` spans, nesting counted; an unclosed span runs to the
    end and a stray closing tag is cut alone, or with everything before it back to the end of
    the previous span when ``stray_from_start`` (a captured text that closes a span opened in
    an earlier prompt or tool output). ``tag`` captures ``/`` in group 1 when closing."""
    cuts: list[tuple[int, int]] = []
    start, depth = 0, 0
    for match in tag.finditer(text):
        closing = bool(match.group(1))
        if depth == 0 and closing:
            after_last = cuts[-1][1] if cuts else 0
            cuts.append((after_last if stray_from_start else match.start(), match.end()))
        elif depth == 0:
            start, depth = match.start(), 1
        else:
            depth += -1 if closing else 1
            if depth == 0:
                cuts.append((start, match.end()))
    if depth > 0:
        cuts.append((start, len(text)))
    return cuts


def _disguised_span_cuts(text: str, lowered: str) -> list[tuple[int, int]]:
    """Character ranges of private spans a reader sees but the plain tag pattern misses: the
    tag split over a line break (``<priv⏎ate>``), or written in another form and read in the
    decoded view (fullwidth ``＜private＞``, ``﹤private﹥``, ``〈private〉``, a zero-width
    character or a Cyrillic ``а`` inside the word, ``&lt;private&gt;``, ``\\u003cprivate\\u003e``,
    ``%3Cprivate%3E``). Each single break of ``private`` leaves one of the hint words whole."""
    cuts: list[tuple[int, int]] = []
    hints = ("priv", "ivat", "vate")
    if not lowered.isascii() and _FOLDABLE_RE.search(lowered):  # look-alikes or invisibles
        lowered = lowered.translate(_TAG_FOLD).translate(_DROP_INVISIBLE)
    if not any(hint in lowered for hint in hints):
        return cuts
    if "<" in text:
        cuts += _span_cuts(text, _LOOSE_PRIVATE, stray_from_start=True)
    from conkeeper.domain import secret_views

    if secret_views.may_differ(text, tags=True):
        view = secret_views.decoded(text, tags=True)
        if view is not None and "<" in view.text:
            spans = _span_cuts(view.text, _LOOSE_PRIVATE, stray_from_start=True)
            cuts += [view.span(a, b) for a, b in spans]
    return cuts


def _cut(text: str, cuts: list[tuple[int, int]]) -> str:
    """``text`` without the union of the ``cuts`` character ranges."""
    pieces: list[str] = []
    position = 0
    for start, end in sorted(cuts):
        if start > position:
            pieces.append(text[position:start])
        position = max(position, end)
    pieces.append(text[position:])
    return "".join(pieces)
