"""The one privacy mechanism: what of a text may be stored, indexed, injected or sent anywhere.

Every path that moves text out of a memory file or a captured prompt/tool result calls this
module first (spec principle 3), so there is exactly one definition of "private":

* ``<private>`` and ``</private>`` alone on their own line (surrounding whitespace allowed, any
  case) hide everything between them, the tag lines included. Nesting is counted; an unclosed
  block hides to the end of the file; a stray ``</private>`` hides itself and is reported.
* Tag lines inside a fenced code block (CommonMark ``` / ~~~ fences) outside any private block
  are code, not tags, so documentation can show the syntax. A fence that is never closed
  protects nothing: tags after it still count.
* Inside a private block the end is decided twice — once ignoring fences, once honouring them —
  and a line hidden by either reading is hidden. Whatever the fences inside a block mean,
  nothing between ``<private>`` and the ``</private>`` a person may have meant ever leaks.
* ``private: true`` (or yes/on/1, any case or quoting) in the front matter hides the whole file.
  An unrecognised value also hides it: when in doubt, the text stays private.
* Captured text (prompts, tool input and output) additionally honours inline
  ``<private>…</private>`` spans, drops ConKeeper's own injected context
  (:data:`CONTEXT_MARKER_TAG`) and redacts secrets via :mod:`conkeeper.domain.secrets`.

Lines are split like :meth:`str.splitlines` (``\\n``, ``\\r\\n``, lone ``\\r`` and the other
Unicode breaks), so no line ending lets a private line survive. Every scan is linear.
"""

from __future__ import annotations

import re

from conkeeper.domain.frontmatter import BOM, parse_bool, parse_front_matter
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

_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"
_QUOTES = ("`", '"', "'", "\u201c", "\u2018")
_MAX_TAG_LINE = 64
_MAX_LISTED_MENTIONS = 10

_INLINE_PRIVATE = LazyPattern(r"<[ \t]*(/?)[ \t]*private[ \t]*>", re.IGNORECASE)
_CONTEXT_MARKER = LazyPattern(
    r"<[ \t]*(/?)[ \t]*" + re.escape(CONTEXT_MARKER_TAG) + r"(?:[ \t][^>\n]{0,200})?[ \t]*>",
    re.IGNORECASE,
)
_LEADING_BLANK_LINES = LazyPattern(r"\A(?:[ \t]*\n)+")
# Every way of hiding text (tags, ``private:`` front matter) spells "private"; this pattern is
# at least as lenient as each of them, so a text it does not match hides nothing.
_MENTIONS_PRIVATE = LazyPattern("private", re.IGNORECASE)


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

    __slots__ = ("blocks", "hidden", "mentions", "open_fences", "strays")

    def __init__(self, hidden: list[bool]) -> None:
        self.hidden = hidden
        self.blocks: list[tuple[int, int, bool]] = []  # 0-based, closed?
        self.strays: list[int] = []
        self.mentions: list[int] = []
        self.open_fences: list[int] = []


class _Analysis:
    __slots__ = ("ends_with_break", "hidden", "info", "lines", "report")

    def __init__(
        self,
        lines: list[str],
        ends_with_break: bool,
        hidden: list[bool],
        report: PrivacyReport,
        info: _Classified | None = None,
    ) -> None:
        self.lines = lines
        self.ends_with_break = ends_with_break
        self.hidden = hidden
        self.report = report
        self.info = info

    def visible(self) -> list[tuple[int, str]]:
        """``(0-based index, line)`` of every line that is not hidden."""
        return [(i, line) for i, line in enumerate(self.lines) if not self.hidden[i]]


# ----------------------------------------------------------------------------- public API


def analyze(text: str) -> PrivacyReport:
    """Say what privacy hides in ``text``: file-level privacy, hidden line ranges, warnings."""
    return _analyze(text).report


def is_private_file(text: str) -> bool:
    """True when the front matter marks the whole file private (no block scan: cheap enough to
    skip private files before reading them further)."""
    lines = _strip_bom(text).splitlines()
    return _front_matter_privacy(text, lines)[0]


def blank_private(text: str) -> str:
    """``text`` with every hidden line emptied, keeping every other line at its line number.

    For parsers that report line numbers (the index, search). Line breaks are normalised to
    ``\\n`` so that any later split agrees on the numbering; a private file becomes blank lines.
    """
    if _MENTIONS_PRIVATE.search(text) is None:
        body = _strip_bom(text)
        lines = body.splitlines()
        ends_with_break = bool(body) and body[-1] in _LINE_BREAKS
        return "\n".join(lines) + ("\n" if lines and ends_with_break else "")
    result = _analyze(text)
    out = ["" if hide else line for line, hide in zip(result.lines, result.hidden, strict=True)]
    return "\n".join(out) + ("\n" if out and result.ends_with_break else "")


def strip_private(text: str) -> str:
    """Only the visible lines of ``text`` — what may be indexed, injected or exported.

    Line breaks are normalised to ``\\n`` and a leading BOM is dropped; ``''`` for a private file.
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


def clean_captured(text: str) -> str | None:
    """Make captured text (a prompt, tool input or output) safe to store, or ``None`` if nothing
    may be stored.

    Two readings are combined and anything either hides is cut: private block lines (also read
    with every tag counted, fences or not), and inline ``<private>…</private>`` spans (nesting
    counted, an unclosed one hides to the end, even inside code: a captured text is not a
    document and over-hiding is the safe error). ConKeeper's own injected ``<conkeeper-memory>``
    context is cut too, then secrets are redacted.
    """
    if not text or text.isspace():
        return None
    result = _analyze(text)
    if result.report.file_private:
        return None
    joined = "\n".join(result.lines)
    cuts = _line_cuts(result.lines, _captured_hidden(result))
    if "<" in joined:  # both inline tags start with "<": no regex for the common case
        cuts += _span_cuts(joined, _INLINE_PRIVATE)
        cuts += _span_cuts(joined, _CONTEXT_MARKER)
    kept = _cut(joined, cuts) if cuts else joined
    from conkeeper.domain.secrets import redact  # imported only when text is captured

    redacted = redact(kept).rstrip()
    cleaned = _LEADING_BLANK_LINES.sub("", redacted) if redacted[:1].isspace() else redacted
    return cleaned if cleaned.strip() else None


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


# ----------------------------------------------------------------------------- analysis


def _strip_bom(text: str) -> str:
    return text[1:] if text.startswith(BOM) else text


def _analyze(text: str) -> _Analysis:
    body = _strip_bom(text)
    lines = body.splitlines()
    ends_with_break = bool(body) and body[-1] in _LINE_BREAKS
    report = PrivacyReport(total_lines=len(lines))
    private, reason, fm_warnings = _front_matter_privacy(text, lines)
    report.warnings.extend(fm_warnings)
    if private:
        report.file_private, report.reason = True, reason
        if lines:
            report.hidden_ranges.append(HiddenRange(1, len(lines), reason or "private file"))
        return _Analysis(lines, ends_with_break, [True] * len(lines), report)
    info = _classify(lines)
    hidden = _scan_blocks(info, report)
    return _Analysis(lines, ends_with_break, hidden, report, info)


def _front_matter_privacy(text: str, lines: list[str]) -> tuple[bool, str | None, list[str]]:
    """``(private, reason, warnings)`` from the front matter, found even after blank lines."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or lines[first].strip() != "---":
        return False, None, []
    fm = parse_front_matter(text if first == 0 else "\n".join(lines[first:]))
    if "private" not in fm.values:
        return False, None, []
    raw = fm.values["private"]
    flag = parse_bool(raw)
    unclosed = "" if fm.closed else " (front matter not closed)"
    if flag is False:
        return False, None, []
    if flag is True:
        return True, f"front matter sets private: {raw}{unclosed}", []
    warning = f"front matter 'private: {raw}' is not true or false; the file is treated as private"
    return True, f"front matter sets private to an unrecognised value{unclosed}", [warning]


class _Classified:
    """Per-line facts both readings need, computed once."""

    __slots__ = ("closable", "fences", "mentions", "tags")

    def __init__(
        self,
        tags: list[int],
        fences: list[_Fence | None],
        closable: list[bool],
        mentions: list[bool],
    ) -> None:
        self.tags = tags  # 1 open tag line, -1 close tag line, 0 neither
        self.fences = fences
        self.closable = closable  # a fence opener here has a matching closer further down
        self.mentions = mentions  # an inline tag that is not alone on its line


def _scan_blocks(info: _Classified, report: PrivacyReport) -> list[bool]:
    """Hide private blocks under both readings of fences inside blocks; fill ``report``."""
    plain = _walk(info, fences_in_blocks=False)
    fenced = _walk(info, fences_in_blocks=True)
    hidden = [a or b for a, b in zip(plain.hidden, fenced.hidden, strict=True)]
    ranges = [_block_range(start, end, closed) for start, end, closed in plain.blocks]
    ranges += [HiddenRange(i + 1, i + 1, REASON_STRAY) for i in plain.strays]
    extra = _runs([b and not a for a, b in zip(plain.hidden, fenced.hidden, strict=True)])
    ranges += [HiddenRange(start, end, REASON_AMBIGUOUS) for start, end in extra]
    report.hidden_ranges = sorted(ranges, key=lambda r: (r.start, r.end))
    report.warnings.extend(_walk_warnings(plain, info, extra))
    return hidden


def _block_range(start: int, end: int, closed: bool) -> HiddenRange:
    return HiddenRange(start + 1, end + 1, REASON_BLOCK if closed else REASON_UNCLOSED)


def _classify(lines: list[str]) -> _Classified:
    tags = [_tag_kind(line) for line in lines]
    fences = [_fence(line) for line in lines]
    mentions = [tag == 0 and _mentions_tag(line) for tag, line in zip(tags, lines, strict=True)]
    return _Classified(tags, fences, _closable_fences(fences), mentions)


def _walk(info: _Classified, *, fences_in_blocks: bool, honour_fences: bool = True) -> _Walk:
    """Read the document once. Outside private blocks a closable fence turns tag lines into
    code; inside blocks fences count only when ``fences_in_blocks`` is set. Without
    ``honour_fences`` every tag line counts wherever it is."""
    walk = _Walk(hidden=[False] * len(info.tags))
    closable = info.closable if honour_fences else [False] * len(info.tags)
    depth, start, fence = 0, 0, None
    for i, (tag, here) in enumerate(zip(info.tags, info.fences, strict=True)):
        if fence is not None:
            walk.hidden[i] = depth > 0
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
            if closable[i]:
                fence = here
            else:
                walk.open_fences.append(i)
        elif info.mentions[i]:
            walk.mentions.append(i)
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
        f"lines {start}-{end}: a code fence inside a private block makes its end ambiguous; "
        "these lines are hidden too — check the fences between <private> and </private>"
        for start, end in extra
    ]
    last_tag = max((i for i, tag in enumerate(info.tags) if tag), default=-1)
    warnings += [
        f"line {i + 1}: code fence is never closed; <private> tags after it still count"
        for i in walk.open_fences
        if i < last_tag
    ]
    warnings += _mention_warnings(walk.mentions)
    return warnings


def _mention_warnings(mentions: list[int]) -> list[str]:
    listed = [
        f"line {i + 1}: inline <private> hides nothing in a memory file; put <private> and "
        "</private> alone on their own lines"
        for i in mentions[:_MAX_LISTED_MENTIONS]
    ]
    if len(mentions) > _MAX_LISTED_MENTIONS:
        listed.append(f"{len(mentions) - _MAX_LISTED_MENTIONS} more lines with inline <private>")
    return listed


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


# ----------------------------------------------------------------------------- line rules


def _tag_kind(line: str) -> int:
    """1 for a ``<private>`` tag line, -1 for ``</private>``, 0 otherwise.

    Whitespace (and invisible BOM / zero-width characters) around the tag and inside its angle
    brackets is tolerated, and case is ignored: a near-miss must not leave a block open-ended
    in the user's mind but unrecognised here.
    """
    if "<" not in line:
        return 0
    s = line.strip().strip(_INVISIBLE).strip()
    if len(s) > _MAX_TAG_LINE or not (s.startswith("<") and s.endswith(">")):
        return 0
    inner = "".join(s[1:-1].split()).lower()
    if inner == "private":
        return 1
    if inner == "/private":
        return -1
    return 0


def _mentions_tag(line: str) -> bool:
    """A tag written inside a line (not alone), unless quoted (prose or docs naming the tag)."""
    if "<" not in line:
        return False
    for match in _INLINE_PRIVATE.finditer(line):
        if line[match.start() - 1 : match.start()] not in _QUOTES:
            return True
    return False


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


def _closable_fences(fences: list[_Fence | None]) -> list[bool]:
    """For each fence line, whether a closing fence (same char, at least as long) follows.

    A fence that never closes would turn every later tag into code; instead it protects
    nothing. One backward pass keeps the longest closer seen per fence character.
    """
    longest = {"`": 0, "~": 0}
    closable = [False] * len(fences)
    for i in range(len(fences) - 1, -1, -1):
        here = fences[i]
        if here is None:
            continue
        closable[i] = longest[here.char] >= here.length
        if here.bare:
            longest[here.char] = max(longest[here.char], here.length)
    return closable


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


def _span_cuts(text: str, tag: LazyPattern) -> list[tuple[int, int]]:
    """Character ranges of ``<tag>…</tag>`` spans, nesting counted; an unclosed span runs to the
    end and a stray closing tag is cut alone. ``tag`` captures ``/`` in group 1 when closing."""
    cuts: list[tuple[int, int]] = []
    start, depth = 0, 0
    for match in tag.finditer(text):
        closing = bool(match.group(1))
        if depth == 0 and closing:
            cuts.append((match.start(), match.end()))
        elif depth == 0:
            start, depth = match.start(), 1
        else:
            depth += -1 if closing else 1
            if depth == 0:
                cuts.append((start, match.end()))
    if depth > 0:
        cuts.append((start, len(text)))
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
