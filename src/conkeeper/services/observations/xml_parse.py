"""Lenient reading of an LLM's ``<observation>`` / ``<summary>`` XML.

Model output is not XML you can hand to a strict parser: blocks come wrapped in prose or code
fences, closing tags go missing when the reply is cut off, entities are half-escaped, and a
hostile tool output can make the model echo instructions. So this reader:

* only takes fields from inside ``<observation>`` and ``<summary>`` elements (text outside is
  ignored, whatever it says);
* treats a missing closing tag as "ends where the next sibling starts, or at the end";
* strips any markup left inside a field, unwraps CDATA, decodes entities;
* validates the type and clamps every length (:func:`model.normalize_observation`);
* never raises: the worst input yields an empty list or ``None``.
"""

from __future__ import annotations

import html
import re

from conkeeper.domain.observations import (
    Observation,
    Summary,
    clamp_chars,
    normalize_observation,
    one_line,
)

MAX_OBSERVATIONS_PER_REPLY = 10
MAX_REPLY_CHARS = 200_000

_OBS_OPEN = re.compile(r"<observation\b[^>]*>", re.IGNORECASE)
_OBS_CLOSE = re.compile(r"</observation\s*>", re.IGNORECASE)
_SUMMARY_OPEN = re.compile(r"<summary\b[^>]*>", re.IGNORECASE)
_SUMMARY_CLOSE = re.compile(r"</summary\s*>", re.IGNORECASE)
_CDATA = re.compile(r"<!\[CDATA\[(.*?)(?:\]\]>|$)", re.DOTALL)
_ANY_TAG = re.compile(r"<[^<>]{0,200}>")

OBS_FIELDS = ("type", "title", "subtitle", "facts", "narrative", "concepts", "files")
SUMMARY_FIELDS = (
    "request", "investigated", "learned", "completed", "next_steps", "files_read",
    "files_edited", "notes",
)  # fmt: skip


def _blocks(text: str, opener: re.Pattern[str], closer: re.Pattern[str]) -> list[str]:
    """Bodies of every element: from an opening tag to its closing tag, the next opening tag
    or the end of the text (a truncated reply still yields its last, partial element)."""
    bodies = []
    starts = list(opener.finditer(text))
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        segment = text[match.end() : end]
        close = closer.search(segment)
        bodies.append(segment[: close.start()] if close else segment)
    return bodies


def _field(body: str, name: str, siblings: tuple[str, ...]) -> str | None:
    """Raw inner text of the first ``<name>`` in ``body`` (lenient about its closing tag)."""
    opening = re.search(rf"<{name}\b[^>]*>", body, re.IGNORECASE)
    if opening is None:
        return None
    rest = body[opening.end() :]
    close = re.search(rf"</{name}\s*>", rest, re.IGNORECASE)
    others = "|".join(s for s in siblings if s != name)
    sibling = re.search(rf"<(?:{others})\b[^>]*>", rest, re.IGNORECASE) if others else None
    cut = len(rest)
    if close is not None:
        cut = close.start()
    if sibling is not None and sibling.start() < cut:
        cut = sibling.start()
    return rest[:cut]


def _text(raw: str | None) -> str:
    """Plain text of a field: CDATA unwrapped, markup removed, entities decoded."""
    if not raw:
        return ""
    value = _CDATA.sub(lambda m: m.group(1), raw)
    value = _ANY_TAG.sub(" ", value)
    return html.unescape(value).replace("<", "‹").replace(">", "›").strip()


def _items(raw: str | None, item: str) -> list[str]:
    """The ``<item>`` texts of a list field; a bare text list (one per line) is accepted too."""
    if not raw:
        return []
    found = re.findall(
        rf"<{item}\b[^>]*>(.*?)(?:</{item}\s*>|(?=<{item}\b)|$)", raw, re.IGNORECASE | re.DOTALL
    )
    if not found and not re.search(r"<[a-z]", raw, re.IGNORECASE):
        found = [line.strip(" -*\t") for line in raw.splitlines()]
    return [t for t in (one_line(_text(f)) for f in found) if t]


def parse_observations(reply: str, prompt_number: int = 0) -> list[Observation]:
    """Valid observations found in an LLM reply (possibly none)."""
    if not isinstance(reply, str) or not reply.strip():
        return []
    text = reply[:MAX_REPLY_CHARS]
    out: list[Observation] = []
    for body in _blocks(text, _OBS_OPEN, _OBS_CLOSE)[:MAX_OBSERVATIONS_PER_REPLY]:
        candidate = Observation(
            type=one_line(_text(_field(body, "type", OBS_FIELDS))),
            title=one_line(_text(_field(body, "title", OBS_FIELDS))),
            subtitle=one_line(_text(_field(body, "subtitle", OBS_FIELDS))),
            facts=_items(_field(body, "facts", OBS_FIELDS), "fact"),
            narrative=clamp_chars(_text(_field(body, "narrative", OBS_FIELDS)), 8000),
            concepts=_items(_field(body, "concepts", OBS_FIELDS), "concept"),
            files=_items(_field(body, "files", OBS_FIELDS), "file"),
            prompt_number=prompt_number,
        )
        clean = normalize_observation(candidate)
        if clean is not None:
            out.append(clean)
    return out


def parse_summary(reply: str) -> Summary | None:
    """The first ``<summary>`` of an LLM reply, or ``None`` when there is none with content."""
    if not isinstance(reply, str) or not reply.strip():
        return None
    blocks = _blocks(reply[:MAX_REPLY_CHARS], _SUMMARY_OPEN, _SUMMARY_CLOSE)
    if not blocks:
        return None
    body = blocks[0]

    def text(name: str) -> str:
        return _text(_field(body, name, SUMMARY_FIELDS))

    summary = Summary(
        request=text("request"),
        investigated=text("investigated"),
        learned=text("learned"),
        completed=text("completed"),
        next_steps=text("next_steps"),
        files_read=_items(_field(body, "files_read", SUMMARY_FIELDS), "file"),
        files_edited=_items(_field(body, "files_edited", SUMMARY_FIELDS), "file"),
        notes=text("notes"),
    )
    if not (summary.request or summary.completed or summary.learned or summary.investigated):
        return None
    return summary
