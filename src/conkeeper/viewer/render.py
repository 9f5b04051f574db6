"""Markdown to HTML for the viewer: memory files with their category and source tags as labels.

Rendering uses markdown-it-py (CommonMark) with raw HTML switched off, so nothing in a memory
file can inject markup or script into the page. Category and tag comments
(``<!-- @category: decision -->``) would vanish as HTML comments; they are turned into labels
instead, which is what a person wants to see. The text given here has already been cleaned by
:mod:`conkeeper.services.memory_files`: private content never reaches this module.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any

from markupsafe import Markup

_TAG_LINE = re.compile(r"^[ \t]*<!--\s*@(category|tag):\s*([a-z][a-z0-9-]*)\s*-->[ \t]*$", re.M)
_PLACEHOLDER = re.compile(r"CKLABEL(category|tag)CK([a-z0-9-]+)CKEND")
# provenance (``<!-- @source: agent-mcp 2026-11-26 approved -->``): who wrote the entry
_SOURCE_LINE = re.compile(
    r"^[ \t]*<!--\s*@source:\s*([a-z][a-z0-9-]*)\s+(\d{4}-\d{2}-\d{2})(\s+approved)?\s*-->[ \t]*$",
    re.M,
)
_SOURCE_PLACEHOLDER = re.compile(r"CKSOURCE([a-z0-9-]+)CK(\d{4}-\d{2}-\d{2})CK(approved)?CKEND")


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def _label(match: re.Match[str]) -> str:
    kind, name = match.group(1), match.group(2)
    return f'<span class="label label-{kind}">{html.escape(name)}</span>'


def markdown_html(text: str) -> Markup:
    """HTML for ``text`` (already privacy-cleaned), with tag comments shown as labels."""
    marked = _TAG_LINE.sub(lambda m: f"CKLABEL{m.group(1)}CK{m.group(2)}CKEND", text)
    marked = _SOURCE_LINE.sub(
        lambda m: f"CKSOURCE{m.group(1)}CK{m.group(2)}CK{'approved' if m.group(3) else ''}CKEND",
        marked,
    )
    rendered = _PLACEHOLDER.sub(_label, str(_parser().render(marked)))
    return Markup(_SOURCE_PLACEHOLDER.sub(_source_label, rendered))


def _source_label(match: re.Match[str]) -> str:
    """The entry's provenance as a label: "from agent-mcp, 2026-11-26, approved"."""
    approved = ", approved" if match.group(3) else ""
    text = f"from {match.group(1)}, {match.group(2)}{approved}"
    return f'<span class="label label-source">{html.escape(text)}</span>'
