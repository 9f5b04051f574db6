"""YAML front matter of memory files, parsed with the standard library only.

ConKeeper's front matter is flat ``key: value`` pairs (config keys, ``private: true``). This
module is deliberately tolerant — BOM, CRLF, quotes, case, trailing comments — because a
malformed header must never hide a file's privacy flag or break a hook.
"""

from __future__ import annotations

from conkeeper.domain.records import Record

BOM = "\ufeff"
_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}


class FrontMatter(Record):
    """Flat key/value pairs from a leading ``---`` block, and where the block sits.

    ``end_line`` is the number of lines the block occupies, fences included (0 when absent).
    """

    __slots__ = ("closed", "end_line", "errors", "present", "values")

    def __init__(
        self,
        values: dict[str, str] | None = None,
        present: bool = False,
        closed: bool = True,
        end_line: int = 0,
        errors: list[str] | None = None,
    ) -> None:
        self.values: dict[str, str] = {} if values is None else values
        self.present = present
        self.closed = closed
        self.end_line = end_line
        self.errors: list[str] = [] if errors is None else errors


def strip_inline_comment(raw: str) -> str:
    """Drop a ``# comment`` that follows a value, unless the ``#`` sits inside quotes."""
    quote: str | None = None
    for i, ch in enumerate(raw):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or raw[i - 1].isspace()):
            return raw[:i].rstrip()
    return raw.strip()


def unquote(value: str) -> str:
    """Remove one level of matching single or double quotes."""
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    return v


def parse_bool(value: str) -> bool | None:
    """YAML-ish boolean: true/yes/on/1 and false/no/off/0 in any case; ``None`` otherwise."""
    v = unquote(value).strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    return None


def parse_front_matter(text: str) -> FrontMatter:
    """Parse the leading front matter of ``text`` (which may start with a BOM and use CRLF).

    An opening ``---`` without a closing one is reported as ``closed=False``; its lines are
    still read so that ``private: true`` in a broken header is honoured.
    """
    lines = text.lstrip(BOM).splitlines()
    fm = FrontMatter()
    if not lines or lines[0].strip() != "---":
        return fm
    fm.present = True
    fm.closed = False
    end = len(lines)
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            fm.closed = True
            end = i + 1
            break
    fm.end_line = end
    body = lines[1 : end - 1 if fm.closed else end]
    for lineno, line in enumerate(body, start=2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line[:1].isspace() or stripped.startswith("- "):
            continue  # nested values and lists are not part of ConKeeper's flat schema
        key, sep, raw = stripped.partition(":")
        if not sep or not key.strip():
            fm.errors.append(f"line {lineno}: expected 'key: value'")
            continue
        fm.values[key.strip().lower()] = unquote(strip_inline_comment(raw))
    if not fm.closed:
        fm.errors.append("front matter is not closed with '---'")
    return fm
