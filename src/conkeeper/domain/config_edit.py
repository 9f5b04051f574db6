"""ConKeeper's edits to an agent's config file, planned on bytes: what to insert, and how to take
exactly that back out.

Why it exists: ``conkeeper install --agent`` writes into files the user owns (``settings.json``,
``config.toml``, ``AGENTS.md``...), and uninstall must give them back as they were. Every edit is
therefore planned as *insertions* into the user's bytes, and each insertion is remembered as a
span of the installed bytes. Taking ConKeeper out again is, in order of preference:

1. the file is exactly as install left it: the original bytes (the service keeps them);
2. the user changed other parts since: :func:`remove_spans` cuts only ConKeeper's spans, found
   again through a line diff of the installed and the current bytes;
3. the spans cannot be found (the user edited inside them, or no record exists): the format's
   own structural removal, :func:`json_remove` (cuts members and items by their positions, never
   re-dumps) or :func:`block_remove` (marker lines, refused when a marker is unpaired).

Everything here is pure: bytes in, bytes out. Text is decoded with ``surrogateescape``, so a
Latin-1 or otherwise non-UTF-8 byte survives every edit unchanged; the file's own line ending
(``\\r\\n`` or ``\\n``) is used for inserted lines.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from conkeeper.domain.json_spans import JsonSpanError, Member, Node, parse, skip_whitespace

Span = tuple[int, int]  # [start, end) byte offsets in the installed bytes
JsonPath = tuple[str | int, ...]


class EditRefused(ValueError):
    """The edit cannot be made without touching the user's bytes; ``str()`` is one line."""


@dataclass(frozen=True)
class Inserted:
    """The bytes after an insertion and the spans (byte offsets in them) ConKeeper added."""

    data: bytes
    spans: tuple[Span, ...]


@dataclass(frozen=True)
class Put:
    """In a JSON addition tree: set this key to ``value`` when it is absent (never merged)."""

    value: Any


def decode(raw: bytes) -> str:
    """Bytes as text, every undecodable byte kept as a surrogate (see :func:`encode`)."""
    return raw.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    """The exact bytes :func:`decode` read."""
    return text.encode("utf-8", "surrogateescape")


def newline_of(text: str) -> str:
    """The file's line ending: ``\\r\\n`` when it uses it, else ``\\n``."""
    return "\r\n" if "\r\n" in text else "\n"


def insert_text(text: str, insertions: Sequence[tuple[int, str]]) -> Inserted:
    """``text`` with each ``(offset, piece)`` inserted (offsets in ``text``; equal offsets keep
    their order), as bytes, with the byte span of every piece."""
    pieces: list[bytes] = []
    spans: list[Span] = []
    position = 0
    written = 0
    for offset, piece in sorted(insertions, key=lambda item: item[0]):
        head = encode(text[position:offset])
        pieces.append(head)
        written += len(head)
        added = encode(piece)
        if added:
            pieces.append(added)
            spans.append((written, written + len(added)))
            written += len(added)
        position = offset
    pieces.append(encode(text[position:]))
    return Inserted(b"".join(pieces), tuple(_merge(spans)))


def _merge(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in spans:
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


# --------------------------------------------------------------------------- taking spans out


def remove_spans(installed: bytes, current: bytes, spans: Sequence[Span]) -> bytes | None:
    """``current`` without ConKeeper's ``spans`` of ``installed``, or ``None`` when a span
    cannot be found unchanged in ``current`` (the user edited inside it)."""
    if current == installed:
        return _cut(current, spans)
    blocks = _equal_blocks(installed, current)
    mapped: list[Span] = []
    for start, end in spans:
        if start == end:
            continue
        block = next((b for b in blocks if b[0] <= start and end <= b[0] + b[2]), None)
        if block is None:
            return None
        shift = block[1] - block[0]
        mapped.append((start + shift, end + shift))
    return _cut(current, mapped)


REFINE_LIMIT = 64 * 1024  # bytes of a changed region compared byte by byte


def _equal_blocks(old: bytes, new: bytes) -> list[tuple[int, int, int]]:
    """``(old offset, new offset, length)`` of the bytes both hold unchanged, in order: a line
    diff first, then a byte diff inside each changed region (so a span that begins on a line
    the user edited elsewhere is still found), adjacent blocks merged."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    old_at = _offsets(old_lines)
    new_at = _offsets(new_lines)
    blocks: list[tuple[int, int, int]] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        a0, a1, b0, b1 = old_at[i1], old_at[i2], new_at[j1], new_at[j2]
        if tag == "equal":
            blocks.append((a0, b0, a1 - a0))
        elif tag == "replace" and (a1 - a0) + (b1 - b0) <= REFINE_LIMIT:
            inner = difflib.SequenceMatcher(None, old[a0:a1], new[b0:b1], autojunk=False)
            blocks.extend(
                (a0 + m.a, b0 + m.b, m.size) for m in inner.get_matching_blocks() if m.size
            )
    merged: list[tuple[int, int, int]] = []
    for a, b, size in sorted(blocks):
        if merged and merged[-1][0] + merged[-1][2] == a and merged[-1][1] + merged[-1][2] == b:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + size)
        else:
            merged.append((a, b, size))
    return merged


def _offsets(lines: list[bytes]) -> list[int]:
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def _cut(data: bytes, spans: Sequence[Span]) -> bytes:
    kept: list[bytes] = []
    position = 0
    for start, end in sorted(spans):
        kept.append(data[position:start])
        position = max(position, end)
    kept.append(data[position:])
    return b"".join(kept)


# --------------------------------------------------------------------------- JSON


def json_value(raw: bytes | None) -> Any:
    """The data in a JSON (or JSON-with-comments) file; ``{}`` when blank, ``None`` when it
    cannot be parsed."""
    try:
        _, root = parse_json(raw)
    except EditRefused:
        return None
    return {} if root is None else root.value


def parse_json(raw: bytes | None) -> tuple[str, Node | None]:
    """The decoded text and its root node (``None`` for a missing or blank file)."""
    text = decode(raw or b"")
    try:
        if skip_whitespace(text, 1 if text.startswith("\ufeff") else 0) == len(text):
            return text, None  # blank, or only comments
        return text, parse(text)
    except JsonSpanError as exc:
        raise EditRefused(f"is not valid JSON ({exc})") from None


def _indent_unit(text: str) -> str:
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            return line[: len(line) - len(stripped)]
    return "  "


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    line = text[start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _render(value: Any, indent: str | None, unit: str, newline: str) -> str:
    if indent is None:
        return json.dumps(value, ensure_ascii=False)
    dumped = json.dumps(value, indent=unit, ensure_ascii=False)
    return dumped.replace("\n", newline + indent)


def _materialise(addition: Any) -> Any:
    if isinstance(addition, Put):
        return addition.value
    if isinstance(addition, dict):
        return {k: _materialise(v) for k, v in addition.items()}
    return list(addition)


def json_insert(raw: bytes | None, additions: dict[str, Any]) -> Inserted:
    """``raw`` with ``additions`` inserted where they belong, every other byte unchanged.

    ``additions`` is a tree: a dict is an object to reach (created when absent), a list holds
    items to append to an array (created when absent), :class:`Put` a value to set when its key
    is absent. A missing or blank file gets a new document (two-space indent).
    """
    text, root = parse_json(raw)
    if root is None:
        newline = newline_of(text)
        document = _render(_materialise(additions), "", "  ", newline) + newline
        if text.strip("\ufeff") and not text.endswith("\n"):
            document = newline + document
        return insert_text(text, [(len(text), document)])
    if root.kind != "object":
        raise EditRefused("expected a JSON object at the top")
    context = _Context(text, _indent_unit(text), newline_of(text), "\n" in text)
    insertions: list[tuple[int, str]] = []
    _insert_into(context, root, additions, (), insertions)
    return insert_text(text, insertions)


@dataclass(frozen=True)
class _Context:
    text: str
    unit: str
    newline: str
    multiline: bool


def _insert_into(
    ctx: _Context, node: Node, additions: Any, path: JsonPath, out: list[tuple[int, str]]
) -> None:
    name = ".".join(str(p) for p in path) or "the top"
    if isinstance(additions, dict):
        if node.kind != "object":
            raise EditRefused(f"'{name}' is not an object")
        new: list[tuple[str | None, Any]] = []
        for key, addition in additions.items():
            member = node.member(key)
            if member is None:
                new.append((key, _materialise(addition)))
            elif not isinstance(addition, Put):
                _insert_into(ctx, member.node, addition, (*path, key), out)
        if new:
            out.extend(_append(ctx, node, new))
    elif isinstance(additions, list):
        if node.kind != "array":
            raise EditRefused(f"'{name}' is not a list")
        if additions:
            out.extend(_append(ctx, node, [(None, item) for item in additions]))


def _append(ctx: _Context, node: Node, new: list[tuple[str | None, Any]]) -> list[tuple[int, str]]:
    """The insertions adding ``new`` (key or ``None``, value) at the end of a container: one,
    or, when the person's last member ends its line with a comment (``"mine": {...} // why``),
    a comma after its value and the new members after that line, so the comment stays on the
    line it explains (found installing into a Zed ``settings.json``: the person's line was split
    and their comment followed ConKeeper's entry)."""

    def entry(key: str | None, value: Any, indent: str | None) -> str:
        rendered = _render(value, indent, ctx.unit, ctx.newline)
        return rendered if key is None else f"{json.dumps(key, ensure_ascii=False)}: {rendered}"

    children: Sequence[Member | Node] = node.children
    if children:
        last = children[-1]
        before = children[-2].end if len(children) > 1 else node.start + 1
        gap = ctx.text[before : last.start]  # may hold comments: only its last line counts
        indent = gap[gap.rfind("\n") + 1 :] if "\n" in gap else None
        if indent is not None and indent.strip(" \t"):
            indent = _line_indent(ctx.text, last.start)
        space = " " if indent is None else ctx.newline + indent
        entries = [entry(k, v, indent) for k, v in new]
        tail = _LINE_COMMENT_TAIL.match(ctx.text, last.end)
        if indent is not None and tail is not None:
            added = space + f",{space}".join(entries)
            if tail.group(1):  # the person's trailing comma: the new last member gets one too
                return [(tail.end(), added + ",")]
            return [(last.end, ","), (tail.end(), added)]
        return [(last.end, "".join(f",{space}{item}" for item in entries))]
    if not ctx.multiline:
        return [(node.start + 1, ", ".join(entry(k, v, None) for k, v in new))]
    outer = _line_indent(ctx.text, node.start)
    inner = outer + ctx.unit
    body = ",".join(f"{ctx.newline}{inner}{entry(k, v, inner)}" for k, v in new)
    inside = ctx.text[node.start + 1 : node.end - 1]
    return [(node.start + 1, body + ("" if inside else ctx.newline + outer))]


# What may follow a container's last value on its line when the line ends in a comment: a
# trailing comma (group 1), then ``//`` to the end of the line or ``/* ... */`` closed on it.
_LINE_COMMENT_TAIL = re.compile(
    r"[ \t]*(,?)[ \t]*(?:/\*[^\n]*?\*/[ \t]*)*(?://[^\r\n]*|/\*[^\n]*?\*/[ \t]*)(?=\r?\n)"
)


def json_remove(
    raw: bytes,
    remove: Callable[[JsonPath, Any], bool],
    drop_emptied: Callable[[JsonPath], bool],
) -> bytes:
    """``raw`` without every member or item ``remove(path, value)`` selects, and without the
    containers that this left empty when ``drop_emptied(path)``; the remaining members keep
    their bytes and the separators that were in front of them (nothing is re-dumped)."""
    text, root = parse_json(raw)
    if root is None:
        return raw
    rebuilt, _ = _rebuild(text, root, (), remove, drop_emptied)
    return encode(text[: root.start] + rebuilt + text[root.end :])


def _rebuild(
    text: str,
    node: Node,
    path: JsonPath,
    remove: Callable[[JsonPath, Any], bool],
    drop_emptied: Callable[[JsonPath], bool],
) -> tuple[str, bool]:
    """The node's new text, and whether removals left it empty."""
    children: Sequence[Member | Node] = node.children
    if not children:
        return text[node.start : node.end], False
    kept: list[tuple[int, str]] = []
    for index, child in enumerate(children):
        value_node = child.node if isinstance(child, Member) else child
        child_path = (*path, child.key if isinstance(child, Member) else index)
        if remove(child_path, value_node.value):
            continue
        new_value, emptied = _rebuild(text, value_node, child_path, remove, drop_emptied)
        if emptied and drop_emptied(child_path):
            continue
        kept.append((index, text[child.start : value_node.start] + new_value))
    if len(kept) == len(children) and all(
        t == text[children[i].start : children[i].end] for i, t in kept
    ):
        return text[node.start : node.end], False
    if not kept:
        return text[node.start] + text[node.end - 1], True
    parts = [text[node.start + 1 : children[0].start]]
    previous: int | None = None
    for index, child_text in kept:
        if previous is not None:
            parts.append(_joint(text, children, previous, index))
        parts.append(child_text)
        previous = index
    parts.append(_closing(text, children, previous, node.end - 1))
    return text[node.start] + "".join(parts) + text[node.end - 1], False


def _separator(text: str, children: Sequence[Member | Node], index: int) -> str:
    """The bytes between child ``index`` and the next one (comma, comments, whitespace)."""
    return text[children[index].end : children[index + 1].start]


def _line_head(separator: str) -> str | None:
    """The part of ``separator`` on the line of the member before it (its comma and the
    person's comment there), when that part holds a comment: it explains the member before,
    so it stays when the member after is removed. ``None`` without one. A separator on one
    line (``{"mine": 1, /* why */ "conkeeper": {...}}``) is all head: ConKeeper writes no
    comment, so one there is the person's."""
    end = separator.find("\n")
    if end < 0:
        return separator if "/*" in separator else None
    head = separator[: end - 1] if end and separator[end - 1] == "\r" else separator[:end]
    return head if "//" in head or "/*" in head else None


def _line_rest(separator: str) -> str:
    """``separator`` from its first line break on."""
    end = separator.find("\n")
    return separator[end - 1 :] if end and separator[end - 1] == "\r" else separator[end:]


def _joint(text: str, children: Sequence[Member | Node], before: int, after: int) -> str:
    """What goes between kept children ``before`` and ``after`` when the ones between them are
    removed: the separator in front of ``after``, but the comment on ``before``'s line kept
    (found uninstalling from a Zed ``settings.json``: ``"mine": {...}, // why`` lost ``why``
    with ConKeeper's entry after it)."""
    separator = text[children[after - 1].end : children[after].start]
    if after == before + 1:
        return separator
    own = _separator(text, children, before)
    head = _line_head(own)
    if head is None:
        return separator
    if "\n" in separator:
        return head + _line_rest(separator)
    # the removed members ran on one line: the comment, a line break when it needs one,
    # then what stood between the last removed member and ``after`` (its comma dropped)
    rest = _line_rest(own) if "\n" in own else ""
    return head + rest + _LEADING_COMMA.sub(r"\1", separator, count=1).lstrip(" \t")


def _closing(text: str, children: Sequence[Member | Node], last: int | None, close: int) -> str:
    """What goes between the last kept child (``last``) and the container's closing bracket:
    the original closing bytes, after the comment on ``last``'s line when the children after
    it are removed (its comma dropped unless a trailing comma closed the container)."""
    tail = text[children[-1].end : close]
    if last is None or last == len(children) - 1:
        return tail
    head = _line_head(_separator(text, children, last))
    if head is None:
        return tail
    stripped = tail.lstrip(" \t")
    if stripped.startswith(","):
        return head + stripped[1:]
    return _LEADING_COMMA.sub(r"\1", head, count=1) + tail


# A separator's comma, after any block comments in front of it.
_LEADING_COMMA = re.compile(r"^([ \t]*(?:/\*.*?\*/[ \t]*)*),")


# --------------------------------------------------------------------------- marked blocks


@dataclass(frozen=True)
class Markers:
    """A block's first line starts with ``start``; its last line is ``end``."""

    start: str
    end: str


def block_lines(text: str, markers: Markers) -> list[Span]:
    """Character spans of every marked block (whole lines, end line's newline included).

    Refuses (:class:`EditRefused`) an unpaired marker: a start with no end before the next
    start or the end of the file, or an end with no start, so nothing of the user's between a
    lone marker and a later one is ever taken for ConKeeper's.
    """
    blocks: list[Span] = []
    opened: tuple[int, int] | None = None
    position = 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        content = line.strip()
        if content.startswith(markers.start):
            if opened is not None:
                raise EditRefused(
                    f"ConKeeper's start marker on line {opened[1]} has no end marker "
                    f"('{markers.end}') before line {number}"
                )
            opened = (position, number)
        elif content == markers.end:
            if opened is None:
                raise EditRefused(f"ConKeeper's end marker on line {number} has no start marker")
            blocks.append((opened[0], position + len(line)))
            opened = None
        position += len(line)
    if opened is not None:
        raise EditRefused(
            f"ConKeeper's start marker on line {opened[1]} has no end marker ('{markers.end}')"
        )
    return blocks


def block_insert(raw: bytes | None, block: str) -> Inserted:
    """``raw`` with ``block`` (lines ending in ``\\n``) appended after a blank line, in the
    file's own line ending."""
    text = decode(raw or b"")
    newline = newline_of(text)
    body = block.replace("\n", newline)
    if not text:
        separator = ""
    elif text.endswith("\n") or text.endswith("\r"):
        separator = newline
    else:
        separator = newline + newline
    return insert_text(text, [(len(text), separator + body)])


def block_remove(
    raw: bytes, markers: Markers, ours: Collection[str] | None = None, tables: bool = False
) -> bytes:
    """``raw`` without its marked blocks (and the blank line install put before each).

    With ``ours`` (the lines ConKeeper's blocks hold, without line breaks), a line the person
    wrote inside a block is theirs: it stays where the block was, only ConKeeper's lines go.
    With ``tables`` (TOML), only the person's own tables inside a block stay, from their
    header on: a key they set in ConKeeper's table configured what is being removed, and left
    behind it would land in the table above the block.
    """
    text = decode(raw)
    kept: list[str] = []
    position = 0
    for start, end in block_lines(text, markers):
        head = text[position:start]
        inner = text[start:end].splitlines(keepends=True)[1:-1]
        theirs = [] if ours is None else [x for x in inner if _is_theirs(x, ours)]
        if tables:
            theirs = _own_tables(theirs)
        for blank in ("\r\n\r\n", "\n\n"):
            if not theirs and head.endswith(blank):
                head = head[: -len(blank) // 2]
                break
        kept.append(head + "".join(theirs))
        position = end
    kept.append(text[position:])
    return encode("".join(kept))


def block_dropped(raw: bytes, markers: Markers, ours: Collection[str]) -> list[str]:
    """The person's lines inside the marked blocks that :func:`block_remove` with ``tables``
    takes away with ConKeeper's table (a key they set in it, a comment there), without line
    breaks, so uninstall can name them (found uninstalling from Codex: ``env = {...}`` went
    without a word, and the warning said the person's lines were kept)."""
    text = decode(raw)
    dropped: list[str] = []
    for start, end in block_lines(text, markers):
        inner = text[start:end].splitlines(keepends=True)[1:-1]
        theirs = [x for x in inner if _is_theirs(x, ours)]
        kept = len(_own_tables(theirs))
        dropped.extend(line.rstrip("\r\n") for line in theirs[: len(theirs) - kept])
    return dropped


def _own_tables(theirs: list[str]) -> list[str]:
    """The person's lines from the first table header of theirs on (TOML: ``[name]`` or
    ``[[name]]``), none when they only added keys to ConKeeper's table."""
    for index, line in enumerate(theirs):
        if line.lstrip().startswith("["):
            return theirs[index:]
    return []


def _is_theirs(line: str, ours: Collection[str]) -> bool:
    content = line.rstrip("\r\n")
    return bool(content.strip()) and content not in ours


def block_bodies(raw: bytes | None, markers: Markers) -> list[str]:
    """The text of every marked block, line endings normalised (to compare installs)."""
    text = decode(raw or b"")
    return [text[s:e].replace("\r\n", "\n") for s, e in block_lines(text, markers)]
