"""JSON parsed with the position of every value, so a file can be edited without re-dumping it.

Why it exists: ``conkeeper install --agent`` adds entries to JSON files the user wrote by hand
(``settings.json``, ``mcp.json``...). Re-dumping the parsed data would reformat the whole file;
knowing where each member and item starts and ends lets the installer insert or cut exactly the
characters it concerns and leave every other byte as the user wrote it.

Scalars are decoded by the standard library's own decoder (``JSONDecoder.raw_decode``); this
module only walks the brackets, commas and whitespace between them. The "JSON with comments"
that Zed, VS Code and Gemini CLI read is accepted too (``//`` and ``/* */`` comments count as
whitespace, a trailing comma before ``}`` or ``]`` is allowed): they stay in the file, byte for
byte, since nothing is ever re-dumped. Anything else is refused (:class:`JsonSpanError`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 200
_WHITESPACE = " \t\n\r"
_DECODER = json.JSONDecoder()


class JsonSpanError(ValueError):
    """The text is not plain JSON; ``str()`` says where."""


@dataclass(frozen=True)
class Node:
    """One JSON value: its kind, ``text[start:end]`` span and decoded ``value``.

    Objects list their ``members`` (key, key start, value node) and arrays their ``items``.
    """

    kind: str  # object | array | scalar
    start: int
    end: int
    value: Any
    members: tuple[Member, ...] = field(default=())
    items: tuple[Node, ...] = field(default=())

    @property
    def children(self) -> tuple[Member | Node, ...]:
        """Members of an object or items of an array, in file order."""
        return self.members if self.kind == "object" else self.items

    def member(self, key: str) -> Member | None:
        """The last member named ``key`` (the one ``json.loads`` keeps), if any."""
        found = None
        for member in self.members:
            if member.key == key:
                found = member
        return found


@dataclass(frozen=True)
class Member:
    """``"key": value`` inside an object; ``start`` is where the key's quote is."""

    key: str
    start: int
    node: Node

    @property
    def end(self) -> int:
        """Where the member's value ends."""
        return self.node.end


def child_start(child: Member | Node) -> int:
    """Where a member (its key) or an item starts."""
    return child.start


def child_end(child: Member | Node) -> int:
    """Where a member's value or an item ends."""
    return child.end


def skip_whitespace(text: str, pos: int) -> int:
    """The first position at or after ``pos`` that is neither whitespace nor a comment."""
    while pos < len(text):
        char = text[pos]
        if char in _WHITESPACE:
            pos += 1
        elif text.startswith("//", pos):
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end + 1
        elif text.startswith("/*", pos):
            end = text.find("*/", pos + 2)
            if end < 0:
                raise JsonSpanError(f"unclosed comment at {_where(text, pos)}")
            pos = end + 2
        else:
            break
    return pos


def parse(text: str) -> Node:
    """The root value of ``text`` with positions (a leading BOM is skipped)."""
    pos = skip_whitespace(text, 1 if text.startswith("\ufeff") else 0)
    node = _value(text, pos, 0)
    tail = skip_whitespace(text, node.end)
    if tail != len(text):
        raise JsonSpanError(f"extra data at {_where(text, tail)}")
    return node


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {column}"


def _value(text: str, pos: int, depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise JsonSpanError(f"nested deeper than {MAX_DEPTH} levels at {_where(text, pos)}")
    if pos >= len(text):
        raise JsonSpanError("unexpected end of the file")
    if text[pos] == "{":
        return _object(text, pos, depth)
    if text[pos] == "[":
        return _array(text, pos, depth)
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError:
        raise JsonSpanError(f"expected a value at {_where(text, pos)}") from None
    return Node("scalar", pos, end, value)


def _expect(text: str, pos: int, chars: str) -> str:
    if pos >= len(text) or text[pos] not in chars:
        wanted = " or ".join(repr(c) for c in chars)
        raise JsonSpanError(f"expected {wanted} at {_where(text, pos)}")
    return text[pos]


def _object(text: str, start: int, depth: int) -> Node:
    members: list[Member] = []
    pos = skip_whitespace(text, start + 1)
    if pos < len(text) and text[pos] == "}":
        return Node("object", start, pos + 1, {})
    while True:
        _expect(text, pos, '"')
        try:
            key, after_key = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError:
            raise JsonSpanError(f"bad key at {_where(text, pos)}") from None
        colon = skip_whitespace(text, after_key)
        _expect(text, colon, ":")
        node = _value(text, skip_whitespace(text, colon + 1), depth + 1)
        members.append(Member(key, pos, node))
        pos = skip_whitespace(text, node.end)
        if _expect(text, pos, ",}") == "}":
            return _closed_object(start, pos, members)
        pos = skip_whitespace(text, pos + 1)
        if pos < len(text) and text[pos] == "}":  # a trailing comma (JSON with comments)
            return _closed_object(start, pos, members)


def _closed_object(start: int, close: int, members: list[Member]) -> Node:
    value = {m.key: m.node.value for m in members}
    return Node("object", start, close + 1, value, members=tuple(members))


def _array(text: str, start: int, depth: int) -> Node:
    items: list[Node] = []
    pos = skip_whitespace(text, start + 1)
    if pos < len(text) and text[pos] == "]":
        return Node("array", start, pos + 1, [])
    while True:
        node = _value(text, pos, depth + 1)
        items.append(node)
        pos = skip_whitespace(text, node.end)
        if _expect(text, pos, ",]") == "]":
            return Node("array", start, pos + 1, [n.value for n in items], items=tuple(items))
        pos = skip_whitespace(text, pos + 1)
        if pos < len(text) and text[pos] == "]":  # a trailing comma
            return Node("array", start, pos + 1, [n.value for n in items], items=tuple(items))
