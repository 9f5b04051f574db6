"""Characters that show nothing: what a person must see decoded, what a model must never read.

Why it exists: a message can ride inside text where no one sees it (Unicode tag characters,
a run of variation selectors carrying a byte each, zero-width and direction-changing
characters). The detector (:mod:`conkeeper.domain.instructions`) holds an agent's text that
carries one; this module is what the readers use: :func:`reveal_hidden` for the person deciding
about a held entry or reading their file, :func:`strip_hidden_runs` for whatever a model reads
of memory (the person's own lines included: a snippet pasted from a page can carry one unseen).
Pure, standard library only and small, so SessionStart can use it without the detector.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

# Zero-width, invisible and bidirectional control characters: nothing a person types into a
# memory entry, and the classic way to hide a second message inside the first.
HIDDEN_CHARS = frozenset(
    "\u200b\u200c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff\u180e\u00ad"
    # the Arabic letter mark (a right-to-left mark, as U+200F is) and the deprecated format
    # characters (symmetric swapping, shaping, digit shapes): they show nothing either
    "\u061c\u206a\u206b\u206c\u206d\u206e\u206f"
    # interlinear annotation: the annotated text is shown, the annotation often not
    "\ufff9\ufffa\ufffb"
)
# Terminal control characters (C0 but tab and line feed, DEL, C1; a carriage return not
# ending a CRLF line): an escape sequence erases, overwrites or relinks what a terminal shows.
_CONTROL = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def _pieces(text: str) -> Iterator[tuple[str, int, int]]:
    """``text`` cut into ``(kind, start, end)`` pieces: ``"tags"`` (a run of tag characters),
    ``"selectors"`` (two or more variation selectors in a row), ``"hidden"`` (one of
    :data:`HIDDEN_CHARS`) or ``"plain"`` (one character shown as it is): the one walk both
    readers share."""
    index = 0
    while index < len(text):
        char = text[index]
        end = index + 1
        kind = "plain"
        if "\U000e0000" <= char <= "\U000e007f":
            while end < len(text) and "\U000e0000" <= text[end] <= "\U000e007f":
                end += 1
            kind = "tags"
        elif _is_selector(char) and end < len(text) and _is_selector(text[end]):
            while end < len(text) and _is_selector(text[end]):
                end += 1
            kind = "selectors"
        elif char in HIDDEN_CHARS or _CONTROL.match(text, index):
            kind = "hidden"
        yield kind, index, end
        index = end


def reveal_hidden(text: str) -> str:
    """``text`` as a person deciding about it must see it: what shows nothing made visible. A
    run of tag characters (U+E0000 + ASCII) is decoded as ``⟦hidden: ...⟧``, a run of
    variation selectors carrying a message (a byte per selector) likewise, and each other
    invisible or direction-changing character is named (``⟦U+202E⟧``). Everything else is
    kept; one selector after a character (an emoji's U+FE0F) is spelling, and stays. A terminal
    control character (``ESC`` opening a sequence that erases or overwrites the line, a
    backspace, a lone carriage return) is named too: printed raw, it shows the person another
    text than the one they approve."""
    if text.isascii() and not _CONTROL.search(text):
        return text
    shown: list[str] = []
    for kind, start, end in _pieces(text):
        if kind == "tags":
            shown.append(_hidden_run(text[start:end], _tag_text))
        elif kind == "selectors":
            shown.append(_hidden_run(text[start:end], _selector_text))
        elif kind == "hidden":
            shown.append(f"⟦U+{ord(text[start]):04X}⟧")
        else:
            shown.append(text[start])
    return "".join(shown)


HIDDEN_REMOVED = "⟦hidden characters removed⟧"


def strip_hidden_runs(text: str) -> str:
    """``text`` without the runs of characters that show nothing yet carry a message (tag
    characters, two or more variation selectors in a row), each replaced by
    :data:`HIDDEN_REMOVED`: what a reader that is a model must never take in as the person's
    note, even in the person's own line (a snippet pasted from a page can carry one unseen).
    A flag's tag sequence (U+1F3F4, tag letters, U+E007F) is spelling, and stays."""
    if text.isascii():
        return text
    out: list[str] = []
    for kind, start, end in _pieces(text):
        run = text[start:end]
        if kind == "tags":
            flag = start and text[start - 1] == "\U0001f3f4" and text[end - 1] == "\U000e007f"
            out.append(run if flag else HIDDEN_REMOVED)
        elif kind == "selectors":
            out.append(HIDDEN_REMOVED)
        else:
            out.append(run)
    return "".join(out)


def _is_selector(char: str) -> bool:
    return (
        "\ufe00" <= char <= "\ufe0f"
        or "\U000e0100" <= char <= "\U000e01ef"
        or "\u180b" <= char <= "\u180d"
        or char == "\u180f"
    )


def _hidden_run(run: str, decode: Callable[[str], str]) -> str:
    """One run of invisible characters as a person reads it: its message, or its length."""
    message = decode(run)
    if message.strip() and message.isprintable():
        return f"⟦hidden: {message}⟧"
    return f"⟦{len(run)} invisible characters⟧"


def _tag_text(run: str) -> str:
    return "".join(chr(ord(c) - 0xE0000) for c in run if 0x20 <= ord(c) - 0xE0000 < 0x7F)


def _selector_text(run: str) -> str:
    data = bytes(
        ord(c) - 0xFE00 if c <= "\ufe0f" else ord(c) - 0xE0100 + 16
        for c in run
        if "\ufe00" <= c <= "\ufe0f" or "\U000e0100" <= c <= "\U000e01ef"
    )
    return data.decode("utf-8", "replace")
