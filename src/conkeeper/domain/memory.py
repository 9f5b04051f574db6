"""Memory files as entries: the layout of a memory folder, its templates, and a parser.

Memory is Markdown that people edit by hand, so every other feature (search, tagging, sync,
reflection, session-start context) needs one shared answer to "what are the entries of this
file, where exactly are they, and how are they tagged". This module gives that answer.

Entries come in two kinds. A *section* is an ATX heading with its body up to the next heading of
any level; sections are the unit of search. A *bullet* is a top-level list item inside a section
(with its indented continuation lines); bullets are the unit of tagging, because a progress or
patterns file is usually one heading holding many independent items. A section's categories and
tags include those of its bullets, so searching by category finds the section around a tagged
bullet.

The parser is a single forward pass (linear in the input, safe on enormous lines), never raises
on any text, keeps original 1-based line numbers (CRLF, a BOM and front matter included), and
ignores headings and tags inside fenced code blocks and multi-line HTML comments — which is how
templates carry examples that never become real entries.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Literal

from conkeeper.domain.categories import TagRef, parse_tag_line
from conkeeper.domain.frontmatter import BOM, parse_front_matter
from conkeeper.domain.lines import split_lines
from conkeeper.domain.provenance import is_source_tag
from conkeeper.domain.textio import read_text

EntryKind = Literal["section", "bullet"]
Scope = Literal["project", "global"]

# --- layout and templates ---------------------------------------------------------------------


@dataclass(frozen=True)
class LayoutItem:
    """One folder or file of a memory root and the packaged template it starts from."""

    path: str  # relative to the memory root, "/"-separated; folders end with "/"
    template: str | None
    description: str

    @property
    def is_dir(self) -> bool:
        """Folders are created empty; only files have a template."""
        return self.path.endswith("/")


MEMORY_LAYOUT: dict[str, tuple[LayoutItem, ...]] = {
    "project": (
        LayoutItem("active-context.md", "active-context.md", "what is being worked on right now"),
        LayoutItem("product-context.md", "product-context.md", "what the project is and for whom"),
        LayoutItem("progress.md", "progress.md", "done, in progress, planned, known issues"),
        LayoutItem("patterns.md", "patterns.md", "conventions and recurring solutions"),
        LayoutItem("glossary.md", "glossary.md", "project terms and abbreviations"),
        LayoutItem("friction.md", "friction.md", "what keeps going wrong and how to avoid it"),
        LayoutItem("decisions/", None, "architecture decision records (ADR-NNN-title.md)"),
        LayoutItem("decisions/INDEX.md", "decisions-index.md", "index of the ADRs"),
        LayoutItem("sessions/", None, "session summaries, observation logs, retrospectives"),
        LayoutItem("corrections-queue.md", "corrections-queue.md", "corrections awaiting review"),
        LayoutItem(".memory-config.md", "memory-config.md", "settings (YAML front matter)"),
        LayoutItem("schema.md", "schema.md", "how these files are organised and tagged"),
    ),
    "global": (
        LayoutItem("preferences.md", "preferences.md", "how you like to work, in every project"),
        LayoutItem("patterns.md", "global-patterns.md", "patterns you use across projects"),
        LayoutItem("glossary.md", "global-glossary.md", "terms you use across projects"),
        LayoutItem(".memory-config.md", "memory-config.md", "global default settings"),
        LayoutItem("schema.md", "schema.md", "how these files are organised and tagged"),
    ),
}

# Templates used later by other features rather than created by ``conkeeper init``.
EXTRA_TEMPLATES: dict[str, str] = {
    "adr-template.md": "a new decisions/ADR-NNN-title.md",
    "session-template.md": "a curated sessions/YYYY-MM-DD-<topic>.md summary",
    "retro-template.md": "a sessions/YYYY-MM-DD-retro.md retrospective",
}


def template_text(name: str) -> str:
    """The packaged template ``name`` (e.g. ``"patterns.md"``); ``KeyError`` if there is none."""
    known = {item.template for items in MEMORY_LAYOUT.values() for item in items} | set(
        EXTRA_TEMPLATES
    )
    if name not in known:
        raise KeyError(f"no memory template named {name!r}")
    resource = resources.files("conkeeper.domain").joinpath("templates").joinpath(name)
    return resource.read_text(encoding="utf-8")


def memory_file_kind(relpath: str | PurePosixPath) -> str:
    """What a file inside a memory root is, from its relative path: ``config``, ``schema``,
    ``queue``, ``adr-index``, ``adr``, ``observations``, ``retro``, ``session`` or ``memory``.

    Features use this to treat machine-written files (queue, logs, config) differently from the
    curated knowledge a person writes.
    """
    path = PurePosixPath(str(relpath).replace("\\", "/"))
    name = path.name
    top = path.parts[0] if len(path.parts) > 1 else ""
    if name == ".memory-config.md":
        return "config"
    if name == "schema.md" and not top:
        return "schema"
    if name == "corrections-queue.md" and not top:
        return "queue"
    if top == "decisions":
        return "adr-index" if name == "INDEX.md" else "adr"
    if top == "sessions":
        if name.endswith("-observations.md"):
            return "observations"
        if name.endswith("-retro.md"):
            return "retro"
        return "session"
    return "memory"


# --- entries ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One searchable or taggable piece of a memory file.

    ``line_start``/``line_end`` are 1-based, inclusive, in the original file (front matter and
    all). ``text`` is the content with tag lines and HTML comments removed; a section's text
    excludes its own heading line.
    """

    kind: EntryKind
    heading_path: tuple[str, ...]
    heading: str
    line_start: int
    line_end: int
    text: str
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()


@dataclass(slots=True)
class Node:
    """A heading or bullet while parsing; also what tag editing needs to know about an entry.

    ``own_tags`` are the tag lines qualifying this node itself (line number, tag);
    ``insert_after`` is the 1-based line a new tag line goes after.
    """

    kind: EntryKind
    heading_path: tuple[str, ...]
    heading: str
    start: int
    end: int
    insert_after: int
    addressable: bool = True
    content: list[str] = field(default_factory=list)
    own_tags: list[tuple[int, TagRef]] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    leading: bool = True  # still in the heading's leading run of tags/blanks/comments
    level: int = 0  # a section's heading level (ATX or Setext); 0 for bullets and the preamble


_BULLET_MARKERS = ("- ", "* ", "+ ", "-\t", "*\t", "+\t")
_BULLET_STARTS = frozenset("-*+0123456789")
# First characters (after indentation) of lines that may be more than plain prose.
_SPECIAL_STARTS = frozenset("#<`~") | _BULLET_STARTS
# Every character ``str.strip()`` removes (``str.isspace``), so one set test on a line's first
# character tells whether the line is indented or blank.
_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# A line whose first character is none of these is unindented prose: decided in one test.
_NOT_PROSE = _SPECIAL_STARTS | _WHITESPACE | {""}
_MARKERS = frozenset("-*+")
_MARKER_GAPS = (" ", "\t")
# Third characters a thematic break such as "- - -" or "* **" can have after "- " or "* ".
_BREAK_THIRD = frozenset(("", " ", "\t", "-", "*"))


def _heading(line: str) -> tuple[int, str] | None:
    """``(level, title)`` for an ATX heading line, else ``None`` (no regex: linear on any line)."""
    body = line.lstrip(" ")
    if len(line) - len(body) > 3 or not body.startswith("#"):
        return None
    level = len(body) - len(body.lstrip("#"))
    if level > 6:
        return None
    rest = body[level:]
    if rest and rest[0] not in " \t":
        return None
    title = rest.strip()
    without_closing = title.rstrip("#")
    if not without_closing:
        return level, ""
    if without_closing != title and without_closing[-1] in " \t":
        title = without_closing.rstrip()
    return level, title


def _is_bullet(line: str) -> bool:
    """A top-level list item: at most one space of indent, then ``-``/``*``/``+``/``1.``/``1)``."""
    body = line[1:] if line.startswith(" ") else line
    if body.startswith(_BULLET_MARKERS) or body in ("-", "*", "+"):
        return not _is_thematic_break(body)
    digits = len(body[:10]) - len(body[:10].lstrip("0123456789"))
    if 1 <= digits <= 9 and body[digits : digits + 1] in (".", ")"):
        after = body[digits + 1 : digits + 2]
        return after in ("", " ", "\t")
    return False


def _is_thematic_break(body: str) -> bool:
    """Three or more of one of ``-``, ``*``, ``_`` and nothing else but spaces and tabs.

    Ordinary bullets fail at the first test: their text holds another character.
    """
    char = body.lstrip(" \t")[:1]
    if char not in ("-", "*", "_") or body.strip(char + " \t"):
        return False
    return body.count(char) >= 3


def unclosed_fence(text: str) -> int | None:
    """The line (1-based) where a fenced code block opens that the text never closes, else
    ``None``: an entry appended after it would be read as code, not as a note. Numbered as
    ``str.splitlines`` numbers lines, as the caller's line (``routing.add_entry``) is."""
    fence: tuple[str, int] | None = None
    opened = 0
    for number, line in enumerate(text.splitlines(), 1):
        if fence is None:
            fence = _fence_open(line)
            opened = number
        elif _fence_closes(line, fence):
            fence = None
    return opened if fence is not None else None


def _fence_open(line: str) -> tuple[str, int] | None:
    """``(char, length)`` when ``line`` opens a fenced code block."""
    body = line.lstrip(" \t")
    if not body.startswith(("```", "~~~")):
        return None
    char = body[0]
    length = len(body) - len(body.lstrip(char))
    if char == "`" and "`" in body[length:]:
        return None  # an inline code span, not a fence
    return char, length


def _fence_closes(line: str, fence: tuple[str, int]) -> bool:
    body = line.strip()
    char, length = fence
    return len(body) >= length and body.lstrip(char) == "" and body[0] == char


def _is_comment_line(stripped: str) -> bool:
    """A line that is one complete HTML comment (rendered as nothing)."""
    return stripped.startswith("<!--") and stripped.endswith("-->") and len(stripped) >= 7


def _opens_comment(stripped: str) -> bool:
    """A line that starts a multi-line HTML comment (no ``-->`` after its ``<!--``)."""
    return stripped.startswith("<!--") and "-->" not in stripped[4:]


def body_start(lines: list[str], text: str) -> int:
    """Index of the first line after a closed front matter block (0 when there is none)."""
    if not lines or lines[0].lstrip(BOM).rstrip("\r").strip() != "---":
        return 0
    fm = parse_front_matter(text)
    if not (fm.present and fm.closed):
        return 0  # an unclosed block is treated as content so nothing the user wrote vanishes
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r").strip() in ("---", "..."):
            return index + 1
    return 0


class _Parser:
    """The single pass behind :func:`parse_nodes`; holds the open section and bullet."""

    __slots__ = ("bullet", "section", "sections", "stack")

    def __init__(self) -> None:
        self.sections: list[Node] = []
        self.section: Node | None = None
        self.bullet: Node | None = None
        self.stack: list[tuple[int, str]] = []

    def owner(self, lineno: int) -> Node:
        return self.bullet if self.bullet is not None else self.ensure_section(lineno)

    def ensure_section(self, lineno: int) -> Node:
        if self.section is None:  # content before the first heading: an unnamed preamble
            self.section = Node("section", (), "", lineno, lineno, lineno, addressable=False)
            self.section.leading = False
            self.sections.append(self.section)
        return self.section

    def close_bullet(self) -> None:
        if self.bullet is not None:
            _trim(self.bullet.content)
            self.bullet = None

    def heading(self, lineno: int, level: int, title: str) -> None:
        self.close_bullet()
        stack = self.stack
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        path = tuple([t for _, t in stack])
        self.section = Node("section", path, title, lineno, lineno, lineno, level=level)
        self.sections.append(self.section)

    def setext(self, start: int, underline: int, level: int, title_lines: int) -> None:
        """The paragraph of ``title_lines`` lines from ``start`` turns out to be a Setext
        heading (underlined on line ``underline``): its lines leave the section they were
        read into, which goes when they were all it held."""
        section = self.section
        assert section is not None
        title = " ".join(line.strip() for line in section.content[-title_lines:])
        del section.content[-title_lines:]
        _trim(section.content)
        section.end = max(section.start, start - 1)
        if not section.heading and not section.content and section.start == start:
            self.sections.pop()
            self.section = None
        self.heading(start, level, title)
        heading = self.sections[-1]
        heading.end = heading.insert_after = underline  # a tag goes under the underline

    def start_bullet(self, lineno: int, line: str) -> Node:
        if self.bullet is not None:
            self.close_bullet()
        section = self.section or self.ensure_section(lineno)
        section.leading = False
        bullet = Node(
            "bullet", section.heading_path, section.heading, lineno, lineno, lineno, leading=False
        )
        bullet.content.append(line)
        self.bullet = bullet
        section.children.append(bullet)
        section.end = lineno
        section.content.append(line)
        return bullet

    def tag(self, lineno: int, ref: TagRef) -> None:
        node = self.owner(lineno)
        node.own_tags.append((lineno, ref))
        node.end = lineno
        if node.kind == "bullet":
            node.insert_after = lineno
            self.ensure_section(lineno).end = lineno  # owner() made a section
        elif node.leading:
            node.insert_after = lineno

    def content(self, lineno: int, line: str, indented: bool) -> None:
        bullet = self.bullet
        if bullet is not None:
            if indented:
                bullet.content.append(line)
                bullet.end = bullet.insert_after = lineno
            else:
                self.close_bullet()
        section = self.section or self.ensure_section(lineno)
        section.leading = False
        section.end = lineno  # lines arrive in order, so the latest line is the furthest
        section.content.append(line)

    def comment(self, lineno: int, indented: bool) -> None:
        if self.bullet is not None and not indented:
            self.close_bullet()
        node = self.owner(lineno)
        node.end = lineno
        self.ensure_section(lineno).end = lineno

    def blank(self) -> None:
        if self.bullet is not None:
            self.bullet.content.append("")
        if self.section is not None:
            self.section.content.append("")


def _setext_level(line: str) -> int:
    """1 for a Setext underline of ``=``, 2 for one of ``-`` (at most 3 spaces of indent,
    trailing blanks allowed), else 0; it makes a heading of the paragraph line above it."""
    body = line.lstrip(" ")
    char = body[:1]
    if char not in ("=", "-") or len(line) - len(body) > 3 or body.rstrip(" \t").strip(char):
        return 0
    return 1 if char == "=" else 2


def opens_comment_mid_line(line: str) -> bool:
    """Whether ``line`` holds an HTML comment opener after other text (``note <!--``) that it
    does not close: the lines up to the ``-->`` are a comment, headings in them no sections
    (``<!--`` inside a code span does not count)."""
    if "`" in line:
        line = "".join(line.split("`")[::2])
    at = line.rfind("<!--")
    return at >= 0 and "-->" not in line[at + 4 :] and not _opens_comment(line.strip())


def _last_close(lines: list[str]) -> int:
    """The index of the last line holding ``-->`` (-1: none): an opener after it hides nothing."""
    return max((index for index, line in enumerate(lines) if "-->" in line), default=-1)


def _trim(content: list[str]) -> None:
    while content and not content[-1].strip():
        content.pop()


def _lines(text: str) -> tuple[list[str], int]:
    """The lines of ``text`` (ending at LF, CRLF or a lone CR, mixed or not: ``domain.lines``;
    a leading BOM removed) and the index of the first one that is content rather than front
    matter."""
    lines = split_lines(text)
    first = body_start(lines, text)
    if first == 0 and lines and lines[0].startswith(BOM):
        lines[0] = lines[0].lstrip(BOM)
    return lines, first


def parse_nodes(text: str) -> list[Node]:
    """The sections of ``text`` (each with its bullets as ``children``), in file order.

    The loop is shaped by what memory files hold: unindented prose costs one set test;
    ``- item`` bullets, headings and tag lines a few more; the rest (blank, indented, fenced,
    commented lines) goes through :func:`_other_line`. Fenced code and multi-line comments are
    consumed by their own loops over the same line iterator.
    """
    lines, first_index = _lines(text)
    parser = _Parser()
    # parser.section and parser.bullet, mirrored in locals because every line reads them
    section: Node | None = None
    bullet: Node | None = None
    paragraph = 0  # first line of the open paragraph (a Setext heading's title), -1 lazy text
    last_close: int | None = None  # computed when a line opens a comment after its text
    rows = enumerate(lines[first_index:], first_index + 1)
    for lineno, line in rows:
        char = line[:1]
        if paragraph > 0 and (char == "=" or char == "-" or char == " ") and _setext_level(line):
            parser.setext(paragraph, lineno, _setext_level(line), lineno - paragraph)
            section, bullet, paragraph = parser.section, None, 0
            continue
        if "<!--" in line and opens_comment_mid_line(line):
            last_close = _last_close(lines) if last_close is None else last_close
            if last_close >= lineno:  # lines[last_close] comes after this line
                _hide_comment(parser, rows, lineno, line)
                section, bullet, paragraph = parser.section, parser.bullet, 0
                continue
        if char in _NOT_PROSE:
            paragraph = 0
            if (
                char in _MARKERS
                and line[1:2] in _MARKER_GAPS
                and not (line[2:3] in _BREAK_THIRD and _is_thematic_break(line))
            ):
                bullet = parser.start_bullet(lineno, line)
                section = parser.section
                continue
            if char == "#":
                heading = _heading(line)
                if heading is not None:
                    parser.heading(lineno, *heading)
                    section, bullet = parser.section, None
                    continue
                # otherwise prose that starts with "#"
            elif char == "<" and (ref := parse_tag_line(line)) is not None:
                parser.tag(lineno, ref)
                section = parser.section
                continue
            elif _other_line(parser, rows, lineno, line, char):
                section, bullet = parser.section, parser.bullet
                continue
        # prose: it ends the open bullet
        if bullet is not None:
            _trim(bullet.content)
            bullet = parser.bullet = None
            # right under the bullet's text, lazy text of it: never a Setext heading's title
            paragraph = -1 if lines[lineno - 2].strip() else lineno
        elif not paragraph:
            paragraph = lineno
        if section is None:
            section = parser.ensure_section(lineno)
        section.leading = False
        section.end = lineno
        section.content.append(line)
    parser.close_bullet()
    for node in parser.sections:
        _trim(node.content)
    return parser.sections


def _hide_comment(parser: _Parser, rows: Iterator[tuple[int, str]], lineno: int, line: str) -> None:
    """A line whose text opens a comment (``note <!--``): the line is read as it stands (a
    bullet, prose), the lines up to the ``-->`` as a comment."""
    heading = _heading(line)
    if heading is not None:
        parser.heading(lineno, *heading)
    elif _is_bullet(line) and not line.startswith(" "):
        parser.start_bullet(lineno, line)
    else:
        parser.content(lineno, line, line[:1] in _MARKER_GAPS)
    _consume_comment(parser, rows)


def _other_line(
    parser: _Parser, rows: Iterator[tuple[int, str]], lineno: int, line: str, char: str
) -> bool:
    """Handle a blank, indented or markup line; ``False`` when it is plain prose after all."""
    stripped = line.strip()
    if not stripped:
        parser.blank()
        return True
    indented = char == " " or char == "\t"
    first = stripped[0]
    if first in _SPECIAL_STARTS:
        ref = _dispatch(parser, lineno, line, stripped, indented)
        if first == "`" or first == "~":
            fence = _fence_open(line)
            if fence is not None:
                _consume_fence(parser, rows, fence)
        elif first == "<" and ref is None and _opens_comment(stripped):
            _consume_comment(parser, rows)
        return True
    if indented and parser.bullet is not None:  # a continuation line of the open bullet
        parser.content(lineno, line, True)
        return True
    return False


def _consume_fence(
    parser: _Parser, rows: Iterator[tuple[int, str]], fence: tuple[str, int]
) -> None:
    """Lines of a fenced code block up to and including its closing fence: verbatim content."""
    for lineno, line in rows:
        indented = line[:1] in _MARKER_GAPS
        parser.content(lineno, line, indented or parser.bullet is not None)
        if _fence_closes(line, fence):
            return


def _consume_comment(parser: _Parser, rows: Iterator[tuple[int, str]]) -> None:
    """Lines of a multi-line HTML comment up to the one holding ``-->``: rendered as nothing."""
    for lineno, line in rows:
        parser.comment(lineno, True)
        if "-->" in line:
            return


def _dispatch(
    parser: _Parser, lineno: int, line: str, stripped: str, indented: bool
) -> TagRef | None:
    """Handle a line that may be markup; returns its tag when it is a tag line."""
    first = stripped[0]
    if first == "<":
        ref = parse_tag_line(line)
        if ref is not None:
            parser.tag(lineno, ref)
            return ref
        if _is_comment_line(stripped) or _opens_comment(stripped):
            parser.comment(lineno, indented)
            return None
    elif first == "#" and not (indented and parser.bullet is not None):
        heading = _heading(line)
        if heading is not None:
            parser.heading(lineno, *heading)
            return None
    elif first in _BULLET_STARTS and _is_bullet(line):
        parser.start_bullet(lineno, line)
        return None
    parser.content(lineno, line, indented)
    return None


def _labels(tags: list[tuple[int, TagRef]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Categories and tags named by tag lines, each once, in the order they appear."""
    if not tags:
        return (), ()
    categories: dict[str, None] = {}
    names: dict[str, None] = {}
    for _, ref in tags:
        (categories if ref.kind == "category" else names)[ref.name] = None
    return tuple(categories), tuple(names)


def _text(content: list[str]) -> str:
    start = 0
    while start < len(content) and not content[start].strip():
        start += 1
    return "\n".join(content[start:] if start else content)


def parse_entries(text: str, *, plain_bullets: bool = True) -> list[Entry]:
    """Every section and bullet of a memory file's text, in file order (never raises).

    ``plain_bullets=False`` leaves out bullets without a category or tag: the search index
    only needs the labelled ones, and most bullets of a memory file are plain.
    """
    entries: list[Entry] = []
    append = entries.append
    for section in parse_nodes(text):
        children = section.children
        all_tags = section.own_tags
        for child in children:
            if child.own_tags:
                all_tags = all_tags + child.own_tags
        body = _text(section.content)
        if not section.addressable and not body and not all_tags:
            continue
        categories, tags = _labels(all_tags)
        append(
            Entry(
                "section",
                section.heading_path,
                section.heading,
                section.start,
                section.end,
                body,
                categories,
                tags,
            )
        )
        for child in children:
            if not (plain_bullets or child.own_tags):
                continue
            categories, tags = _labels(child.own_tags)
            append(
                Entry(
                    "bullet",
                    child.heading_path,
                    child.heading,
                    child.start,
                    child.end,
                    "\n".join(child.content),  # starts with the bullet line: never blank
                    categories,
                    tags,
                )
            )
    return entries


def find_node(text: str, line: int) -> Node:
    """The heading or top-level bullet that starts on 1-based ``line``; ``ValueError`` if none."""
    for section in parse_nodes(text):
        if section.addressable and section.start == line:
            return section
        for child in section.children:
            if child.start == line:
                return child
    raise ValueError(f"line {line} is not a heading or a top-level bullet")


@dataclass(frozen=True)
class SectionSpan:
    """Where one heading's section lies: ``start`` is the heading line and ``last`` the last
    line a reader sees as the section's own content (1-based, the parser's numbering)."""

    level: int
    title: str
    start: int
    last: int


def section_spans(text: str) -> list[SectionSpan]:
    """The headed sections of ``text`` in file order, each with the last line of its content.

    A new bullet added right after ``last`` lands at the end of that section: after its last
    bullet with that bullet's tag and continuation lines (or its prose, or a closed code
    block), before the next heading of any level and before the section's trailing blank lines
    and HTML comments; never inside a fenced block or a comment. An empty section's ``last``
    is its heading line. Headings inside code, comments and front matter are not sections.
    """
    lines, _ = _lines(text)
    nodes = [node for node in parse_nodes(text) if node.addressable]
    spans: list[SectionSpan] = []
    for index, node in enumerate(nodes):
        stop = nodes[index + 1].start - 1 if index + 1 < len(nodes) else len(lines)
        last = _last_content(lines, node, stop)
        spans.append(SectionSpan(node.level or 1, node.heading, node.start, last))
    return spans


def _last_content(lines: list[str], node: Node, stop: int) -> int:
    """The last line up to ``stop`` of ``node``'s section that is not blank and not inside or
    part of an HTML comment (a category or source tag line is content: it qualifies the entry
    above it, and an entry placed before it would take it)."""
    last = node.start
    fence: tuple[str, int] | None = None
    in_comment = False
    counted = False  # the open comment was opened after text: its closing line is content
    for number in range(node.start + 1, stop + 1):
        line = lines[number - 1]
        if fence is not None:
            last = number
            if _fence_closes(line, fence):
                fence = None
            continue
        if in_comment:
            in_comment = "-->" not in line
            last = number if counted and not in_comment else last
            continue
        if "<!--" in line and opens_comment_mid_line(line) and number < stop:
            in_comment = counted = any("-->" in later for later in lines[number:stop])
            last = number
            continue
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] == "<" and parse_tag_line(line) is None and not is_source_tag(line):
            if _is_comment_line(stripped):
                continue
            if _opens_comment(stripped):
                in_comment = True
                continue
        fence = _fence_open(line)
        last = number
    return last


def parse_file(path: Path) -> list[Entry]:
    """Entries of the memory file at ``path``; raises ``MemoryFileError`` when it is unreadable,
    binary, not UTF-8 or too large (the message is one line for a person)."""
    return parse_entries(read_text(path))
