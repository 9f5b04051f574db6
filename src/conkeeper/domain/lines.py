"""What a line of a memory file is, for every reader and writer alike.

A memory file's lines end at LF, CRLF or a lone CR, as Markdown (CommonMark) reads them and as
``bytes.splitlines`` numbers them — also in a file that mixes them (a CR-only note pasted into
an LF file). The parser, placement, tagging and the byte edits of ``domain.safewrite`` all count
lines this way, so a line number one of them gives names the same line for the others; when
the parser split on LF alone, a heading after a lone CR was no heading and ``tag add`` on the
line ``search`` named refused.
"""

from __future__ import annotations

import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their breaks (LF, CRLF or lone CR); a final break starts
    no further line."""
    if "\r" not in text:
        lines = text.split("\n")
    else:
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def split_keeping_breaks(text: str) -> list[str]:
    """The lines of ``text`` each with its own break (the last may have none): joined, they
    give ``text`` back exactly."""
    return _LINE.findall(text)


def break_of(line: str) -> str:
    """The break ``line`` (from :func:`split_keeping_breaks`) ends with: ``""`` for none."""
    if line.endswith("\r\n"):
        return "\r\n"
    return line[-1:] if line.endswith(("\n", "\r")) else ""


def common_break(text: str) -> str:
    """The break most of ``text``'s lines end with (CRLF, then LF, then CR on a tie); LF for
    a text with none. A mostly-LF file with one pasted CRLF line is an LF file."""
    crlf = text.count("\r\n")
    counts = {"\r\n": crlf, "\n": text.count("\n") - crlf, "\r": text.count("\r") - crlf}
    return max(counts, key=lambda brk: counts[brk]) if any(counts.values()) else "\n"
