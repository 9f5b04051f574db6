"""Lines an agent added to a file a host loads as standing instructions, found, cut and put back.

Why it exists: ``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md`` and the rules folders are read by
the host itself into every later session, so an order an agent writes there cannot be held
back at SessionStart as memory lines are: it has to leave the file until the person decides
(issue 20). This module is the byte work of that hold, pure and stdlib only: which lines of
the file now are the agent's additions (against the file's known content, and only lines whose
words the agent's tool itself carried, so a person's line typed meanwhile is never one), the
file with exactly those lines' bytes taken out (every other byte kept: CRLF, bytes that are not
UTF-8, a last line without its newline), and the file with them put back, at their place when
the file did not change since, else at the end of the section they were in.
"""

from __future__ import annotations

import hashlib

KEY_CHARS = 16  # as ``storage.agent_edits.line_key``: the same key for the same line


def line_key(line: str) -> str:
    """The key of one line: its words (whitespace collapsed), hashed (16 hex digits)."""
    digest = hashlib.sha256(" ".join(line.split()).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:KEY_CHARS]


def split_lines(data: bytes) -> list[bytes]:
    """``data`` as lines with their endings (LF or CRLF; a lone CR ends no line here)."""
    lines = data.split(b"\n")
    whole = [line + b"\n" for line in lines[:-1]]
    return whole + ([lines[-1]] if lines[-1] else [])


def decoded(raw: bytes) -> str:
    """One raw line as text, its ending dropped (bytes that are not UTF-8 kept as escapes)."""
    return raw.rstrip(b"\r\n").decode("utf-8", "surrogateescape")


def file_keys(data: bytes) -> list[str]:
    """The keys of ``data``'s lines, in order: a file's known content."""
    return [line_key(decoded(raw)) for raw in split_lines(data)]


def added_lines(known: list[str] | None, data: bytes, carried: str) -> list[int]:
    """The indexes of ``data``'s lines the agent added: not in the file's ``known`` content
    (its keys in order; a line only moved is none; ``None``: unknown, every line counts), and
    carried by the agent's tool (``carried``: its text, words compared with whitespace
    collapsed, so a person's line typed meanwhile is none). A blank line is never one."""
    lines = [decoded(raw) for raw in split_lines(data)]
    words = " ".join(carried.split())
    keys = [line_key(text) for text in lines]
    candidates = list(range(len(lines))) if known is None else _new_lines(known, keys)
    return [i for i in candidates if lines[i].strip() and _carried(lines[i], words)]


def _carried(line: str, words: str) -> bool:
    """Whether ``line``'s words are in ``words``: as they are, or, when the tool's text was
    kept with its secrets redacted (``privacy.redact_for_matching``: a hook kept it for the
    turn), as the line reads with its own secrets redacted."""
    flat = " ".join(line.split())
    if flat in words:
        return True
    if "[REDACTED:" not in words:
        return False
    from conkeeper.domain.privacy import redact_line

    return " ".join(redact_line(line).split()) in words


def _new_lines(known: list[str], keys: list[str]) -> list[int]:
    """The indexes of ``keys`` that ``known`` does not account for: past the lines both share
    at their start and end, the copies of each key beyond the number ``known`` has there (the
    last ones: a line only moved is no new line). Linear, stdlib only (``difflib`` would
    bring ``re`` into the hook)."""
    start = 0
    while start < min(len(known), len(keys)) and known[start] == keys[start]:
        start += 1
    end = 0
    while end < min(len(known), len(keys)) - start and known[-1 - end] == keys[-1 - end]:
        end += 1
    spare: dict[str, int] = {}
    for key in keys[start : len(keys) - end]:
        spare[key] = spare.get(key, 0) + 1
    for key in known[start : len(known) - end]:
        spare[key] = spare.get(key, 0) - 1
    found: list[int] = []
    for index in range(len(keys) - end - 1, start - 1, -1):
        if spare.get(keys[index], 0) > 0:
            spare[keys[index]] -= 1
            found.append(index)
    return found[::-1]


def runs(indexes: list[int]) -> list[list[int]]:
    """``indexes`` (sorted) grouped into runs of adjacent lines."""
    grouped: list[list[int]] = []
    for index in indexes:
        if grouped and grouped[-1][-1] == index - 1:
            grouped[-1].append(index)
        else:
            grouped.append([index])
    return grouped


class Cut:
    """One run of lines taken out: its bytes, and where it was in the file that is left."""

    __slots__ = ("heading", "line", "offset", "raw")

    def __init__(self, raw: bytes, line: int, offset: int, heading: str) -> None:
        self.raw = raw
        self.line = line  # the index its first line had, counted in the file after every cut
        self.offset = offset  # the byte offset it was cut at, in the file after every cut
        self.heading = heading  # the Markdown heading line above it ("" before the first one)


def cut_runs(data: bytes, taken: list[list[int]]) -> tuple[bytes, list[Cut]]:
    """``data`` without the lines of each run of ``taken`` (indexes into its lines), and the
    cuts; every other byte stays as it was."""
    lines = split_lines(data)
    gone = {index for run in taken for index in run}
    cuts: list[Cut] = []
    for run in taken:
        before = [raw for index, raw in enumerate(lines[: run[0]]) if index not in gone]
        offset = sum(len(raw) for raw in before)
        raw = b"".join(lines[index] for index in run)
        cuts.append(Cut(raw, len(before), offset, _heading_above(before)))
    return b"".join(raw for index, raw in enumerate(lines) if index not in gone), cuts


def _heading_level(raw: bytes) -> int:
    """The level of an ATX heading line (``## x``: 2), else 0."""
    text = raw.lstrip(b" ")
    hashes = len(text) - len(text.lstrip(b"#"))
    if not 1 <= hashes <= 6 or len(raw) - len(text) > 3:
        return 0
    rest = text[hashes:]
    return hashes if not rest.strip() or rest[:1] in (b" ", b"\t") else 0


def _headings(lines: list[bytes]) -> list[tuple[int, int]]:
    """``(index, level)`` of each heading line of ``lines`` outside fenced code."""
    found: list[tuple[int, int]] = []
    fence = b""
    for index, raw in enumerate(lines):
        text = raw.strip()
        if fence:
            fence = b"" if text.startswith(fence) else fence
            continue
        if text.startswith((b"```", b"~~~")):
            fence = text[:3]
            continue
        level = _heading_level(raw)
        if level:
            found.append((index, level))
    return found


def _heading_above(lines: list[bytes]) -> str:
    heads = _headings(lines)
    return decoded(lines[heads[-1][0]]) if heads else ""


def digest(data: bytes) -> str:
    """A file's bytes' hash: whether it changed since the hold."""
    return hashlib.sha256(data).hexdigest()


def put_back(data: bytes, cut: Cut, digest_after: str) -> bytes:
    """``data`` with ``cut``'s lines back: at their offset when ``data`` is the file as the hold
    left it (``digest_after``), else at the end of the section under their heading (before the
    blank lines ending it), else at the end of the file."""
    lines = split_lines(data)
    newline = b"\r\n" if b"\r\n" in data or cut.raw.endswith(b"\r\n") else b"\n"
    if digest(data) == digest_after:
        at = min(cut.offset, len(data))
    else:
        at = sum(len(line) for line in lines[: _section_end(lines, cut.heading)])
    head, tail = data[:at], data[at:]
    if head and not head.endswith(b"\n"):
        head += newline
    raw = cut.raw if cut.raw.endswith(b"\n") or not tail else cut.raw + newline
    return head + raw + tail


def _section_end(lines: list[bytes], heading: str) -> int:
    """The index of the line a run of the section under ``heading`` goes before: after the
    section's last non-blank line; the end of the file when the heading is gone."""
    heads = _headings(lines)
    if heading:
        found = [(i, level) for i, level in heads if decoded(lines[i]).strip() == heading.strip()]
        if not found:
            return len(lines)
        start, level = found[0]
        end = next((i for i, lv in heads if i > start and lv <= level), len(lines))
    else:
        start, end = -1, heads[0][0] if heads else len(lines)
    while end - 1 > start and not lines[end - 1].strip():
        end -= 1
    return end
