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

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Literal

from conkeeper.domain.categories import TagRef, parse_tag_line
from conkeeper.domain.frontmatter import BOM, parse_front_matter
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

CORRECTIONS_QUEUE_HEADER = (
    "# Corrections Queue\n<!-- Auto-populated by ConKeeper UserPromptSubmit hook -->\n\n"
)


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


@dataclass
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


_BULLET_MARKERS = ("- ", "* ", "+ ", "-\t", "*\t", "+\t")
_BULLET_STARTS = frozenset("-*+0123456789")
# First characters (after indentation) of lines that may be more than plain prose.
_SPECIAL_STARTS = frozenset("#<`~") | _BULLET_STARTS


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
    compact = body.replace(" ", "").replace("\t", "")
    return len(compact) >= 3 and len(set(compact)) == 1 and compact[0] in "-*_"


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
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        self.stack.append((level, title))
        path = tuple(t for _, t in self.stack)
        self.section = Node("section", path, title, lineno, lineno, lineno)
        self.sections.append(self.section)

    def start_bullet(self, lineno: int, line: str) -> None:
        self.close_bullet()
        section = self.ensure_section(lineno)
        section.leading = False
        self.bullet = Node(
            "bullet", section.heading_path, section.heading, lineno, lineno, lineno, leading=False
        )
        self.bullet.content.append(line)
        section.children.append(self.bullet)
        self.touch(section, lineno, line)

    def tag(self, lineno: int, ref: TagRef) -> None:
        node = self.owner(lineno)
        node.own_tags.append((lineno, ref))
        node.end = lineno
        if node.kind == "bullet":
            node.insert_after = lineno
            self.section.end = lineno  # type: ignore[union-attr]
        elif node.leading:
            node.insert_after = lineno

    def touch(self, node: Node, lineno: int, line: str) -> None:
        node.end = lineno  # lines arrive in order, so the latest line is the furthest
        node.content.append(line)

    def content(self, lineno: int, line: str, indented: bool) -> None:
        if self.bullet is not None and indented:
            self.bullet.content.append(line)
            self.bullet.end = self.bullet.insert_after = lineno
        else:
            self.close_bullet()
        section = self.ensure_section(lineno)
        section.leading = False
        self.touch(section, lineno, line)

    def comment(self, lineno: int, indented: bool) -> None:
        if self.bullet is not None and not indented:
            self.close_bullet()
        node = self.owner(lineno)
        node.end = lineno
        self.section.end = lineno  # type: ignore[union-attr]

    def blank(self) -> None:
        if self.bullet is not None:
            self.bullet.content.append("")
        if self.section is not None:
            self.section.content.append("")


def _trim(content: list[str]) -> None:
    while content and not content[-1].strip():
        content.pop()


def parse_nodes(text: str) -> list[Node]:
    """The sections of ``text`` (each with its bullets as ``children``), in file order."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line ending does not start another line
    parser = _Parser()
    fence: tuple[str, int] | None = None
    in_comment = False
    for index in range(body_start(lines, text), len(lines)):
        lineno = index + 1
        line = lines[index].rstrip("\r")
        if index == 0:
            line = line.lstrip(BOM)
        stripped = line.strip()
        indented = line[:1] in (" ", "\t")
        if fence is not None:
            if _fence_closes(line, fence):
                fence = None
            parser.content(lineno, line, indented or parser.bullet is not None)
            continue
        if in_comment:
            in_comment = "-->" not in line
            parser.comment(lineno, True)
            continue
        if not stripped:
            parser.blank()
            continue
        first = stripped[0]
        if first not in _SPECIAL_STARTS:  # plain prose: the common case, decided in one test
            parser.content(lineno, line, indented)
            continue
        _dispatch(parser, lineno, line, stripped, indented)
        if first in "`~":
            fence = _fence_open(line)
        elif first == "<" and _opens_comment(stripped) and parse_tag_line(line) is None:
            in_comment = True
    parser.close_bullet()
    for section in parser.sections:
        _trim(section.content)
    return parser.sections


def _dispatch(parser: _Parser, lineno: int, line: str, stripped: str, indented: bool) -> None:
    first = stripped[0]
    if first == "<":
        ref = parse_tag_line(line)
        if ref is not None:
            parser.tag(lineno, ref)
            return
        if _is_comment_line(stripped) or _opens_comment(stripped):
            parser.comment(lineno, indented)
            return
    elif first == "#" and not (indented and parser.bullet is not None):
        heading = _heading(line)
        if heading is not None:
            parser.heading(lineno, *heading)
            return
    elif first in _BULLET_STARTS and _is_bullet(line):
        parser.start_bullet(lineno, line)
        return
    parser.content(lineno, line, indented)


def _names(tags: list[tuple[int, TagRef]], kind: str) -> list[str]:
    return [ref.name for _, ref in tags if ref.kind == kind]


def _unique(names: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def _text(content: list[str]) -> str:
    start = 0
    while start < len(content) and not content[start].strip():
        start += 1
    return "\n".join(content[start:])


def parse_entries(text: str) -> list[Entry]:
    """Every section and bullet of a memory file's text, in file order (never raises)."""
    entries: list[Entry] = []
    for section in parse_nodes(text):
        child_tags = [t for child in section.children for t in child.own_tags]
        all_tags = section.own_tags + child_tags
        body = _text(section.content)
        if not section.addressable and not body and not all_tags:
            continue
        entries.append(
            Entry(
                "section",
                section.heading_path,
                section.heading,
                section.start,
                section.end,
                body,
                _unique(_names(all_tags, "category")),
                _unique(_names(all_tags, "tag")),
            )
        )
        for child in section.children:
            entries.append(
                Entry(
                    "bullet",
                    child.heading_path,
                    child.heading,
                    child.start,
                    child.end,
                    _text(child.content),
                    _unique(_names(child.own_tags, "category")),
                    _unique(_names(child.own_tags, "tag")),
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


def parse_file(path: Path) -> list[Entry]:
    """Entries of the memory file at ``path``; raises ``MemoryFileError`` when it is unreadable,
    binary, not UTF-8 or too large (the message is one line for a person)."""
    return parse_entries(read_text(path))
