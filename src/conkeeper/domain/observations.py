"""The observation and summary records of seed 004, and the rules every extractor obeys.

Whatever produced an observation (the local extractor, an LLM, an imported backup), it goes
through :func:`normalize_observation` before storage: the type is one of the five, the title is
3–8 words, the subtitle at most 24 words, facts and lists are clamped, files are
project-relative. That keeps a hostile or sloppy producer from bloating the store or breaking
the retrieval levels, and makes the content hash (duplicate suppression) stable.

Normalising also cleans: every text field passes the privacy module whole, before it is
clamped, and the result is a :class:`CleanObservation`, the only type storage accepts. A path
that stores an observation without normalising it does not type-check.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import PurePosixPath

from conkeeper.domain.privacy import clean_or_empty

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

OBSERVATION_TYPES: tuple[str, ...] = ("decision", "bugfix", "feature", "refactor", "discovery")
TYPE_ALIASES = {
    "bug": "bugfix",
    "fix": "bugfix",
    "bug-fix": "bugfix",
    "bug fix": "bugfix",
    "feat": "feature",
    "refactoring": "refactor",
    "discover": "discovery",
    "finding": "discovery",
    "decided": "decision",
}
TITLE_MAX_WORDS = 8
TITLE_MAX_CHARS = 90
SUBTITLE_MAX_WORDS = 24
SUBTITLE_MAX_CHARS = 240
FACT_MAX_CHARS = 300
MAX_FACTS = 7
NARRATIVE_MAX_CHARS = 4000
MAX_CONCEPTS = 5
CONCEPT_MAX_CHARS = 40
MAX_FILES = 40
FILE_MAX_CHARS = 300
SUMMARY_FIELD_MAX_CHARS = 2000
SUMMARY_NOTES_MAX_CHARS = 2000

_SPACE_RE = re.compile(r"\s+")
_TAG_RE = re.compile(r"</?[A-Za-z_][\w:.-]*[^<>]*>")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONCEPT_RE = re.compile(r"[^a-z0-9]+")


@dataclass
class Observation:
    """One structured observation (seed 004), before or after storage."""

    type: str
    title: str
    subtitle: str = ""
    facts: list[str] = field(default_factory=list)
    narrative: str = ""
    concepts: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    prompt_number: int = 0

    def to_dict(self) -> dict[str, object]:
        """Plain data for JSON output and export."""
        return asdict(self)


class CleanObservation(Observation):
    """An observation :func:`normalize_observation` made: cleaned by the privacy module whole,
    then clamped. Only that function builds one (a test enforces it), and storage takes only
    this type."""


@dataclass
class Summary:
    """A session summary in the seed's fields."""

    request: str = ""
    investigated: str = ""
    learned: str = ""
    completed: str = ""
    next_steps: str = ""
    files_read: list[str] = field(default_factory=list)
    files_edited: list[str] = field(default_factory=list)
    notes: str = ""

    def to_dict(self) -> dict[str, object]:
        """Plain data for JSON output and export."""
        return asdict(self)


@dataclass(frozen=True)
class ToolEvent:
    """A captured tool use as the extractors see it (a row of ``tool_events``)."""

    id: int
    prompt_number: int
    tool_use_id: str
    tool_name: str
    action: str
    paths: tuple[str, ...]
    input_summary: str
    status: str
    error: str | None = None
    exit_code: int | None = None
    created_at: int = 0

    @property
    def failed(self) -> bool:
        """Whether the tool use did not succeed (failure or non-zero exit)."""
        return self.status != "success" or (self.exit_code not in (None, 0))


@dataclass
class Turn:
    """One user prompt and the tool uses that answered it."""

    prompt_number: int
    prompt: str | None  # None: the prompt was private or never captured
    events: list[ToolEvent] = field(default_factory=list)


def clean_turns(turns: Iterable[Turn]) -> list[Turn]:
    """The turns an extractor may read: every text (prompt, tool input summary, error, paths)
    cleaned whole by the privacy module before anything selects words from it.

    Rows stored before a privacy fix can still hold ``<private>`` text; an extractor that took
    words from them (dropping markup on the way) would launder it into a title or a summary.
    A prompt that is wholly private becomes ``None``: a private turn, never sent to an LLM.
    """
    from conkeeper.domain.privacy import clean_captured

    cleaned = []
    for turn in turns:
        prompt = clean_captured(turn.prompt) if turn.prompt else None
        events = [
            replace(
                event,
                input_summary=clean_or_empty(event.input_summary),
                error=(clean_captured(event.error) or None) if event.error else None,
                paths=tuple(p for p in (clean_captured(p) for p in event.paths) if p),
            )
            for event in turn.events
        ]
        cleaned.append(Turn(turn.prompt_number, str(prompt) if prompt else None, events))
    return cleaned


def one_line(text: object) -> str:
    """Collapse whitespace and control characters; markup-looking tags are removed."""
    value = "" if text is None else str(text)
    value = _CONTROL_RE.sub(" ", value)
    value = _TAG_RE.sub(" ", value)
    return _SPACE_RE.sub(" ", value).strip()


def clamp_words(text: str, max_words: int, max_chars: int) -> str:
    """At most ``max_words`` words and ``max_chars`` characters, cut on a word boundary."""
    words = one_line(text).split(" ")
    value = " ".join(w for w in words[:max_words] if w)
    if len(value) > max_chars:
        cut = value[:max_chars]
        value = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return value.rstrip(" ,;:-")


def clamp_chars(text: str, limit: int) -> str:
    """At most ``limit`` characters, marking a cut with an ellipsis."""
    value = _CONTROL_RE.sub(" ", "" if text is None else str(text)).strip()
    if len(value) <= limit:
        return value
    return value[: max(0, limit - 1)].rstrip() + "…"


def slug_concept(text: str) -> str:
    """A concept as a lowercase hyphenated name (``Error Handling`` -> ``error-handling``)."""
    return _CONCEPT_RE.sub("-", one_line(text).lower()).strip("-")[:CONCEPT_MAX_CHARS]


def relative_path(path: str, root: str | None = None) -> str:
    """A file path relative to the project root when it lies inside it, with ``/`` separators."""
    value = one_line(path).replace("\\", "/")
    if not value:
        return ""
    if root:
        base = root.replace("\\", "/").rstrip("/") + "/"
        if value.startswith(base):
            value = value[len(base) :]
    while value.startswith("./"):
        value = value[2:]
    parts = [p for p in PurePosixPath(value).parts if p not in ("", ".")]
    if value.startswith("/"):
        return clamp_chars(value, FILE_MAX_CHARS)
    return clamp_chars("/".join(parts), FILE_MAX_CHARS)


def unique(items: Iterable[str]) -> list[str]:
    """Items in first-seen order without empties or repeats."""
    seen: dict[str, None] = {}
    for item in items:
        if item and item not in seen:
            seen[item] = None
    return list(seen)


def normalize_type(value: str) -> str | None:
    """One of :data:`OBSERVATION_TYPES`, mapping common synonyms; ``None`` when unknown."""
    key = one_line(value).lower()
    if key in OBSERVATION_TYPES:
        return key
    return TYPE_ALIASES.get(key)


def normalize_observation(obs: Observation, root: str | None = None) -> CleanObservation | None:
    """A cleaned, clamped, validated copy of ``obs``; ``None`` when its type or title is
    unusable (a title that was wholly private is unusable)."""
    kind = normalize_type(obs.type)
    title = clamp_words(clean_or_empty(obs.title), TITLE_MAX_WORDS, TITLE_MAX_CHARS)
    if kind is None or not title:
        return None
    facts = unique(clamp_chars(one_line(clean_or_empty(f)), FACT_MAX_CHARS) for f in obs.facts)[
        :MAX_FACTS
    ]
    concepts = unique(slug_concept(clean_or_empty(c)) for c in obs.concepts)[:MAX_CONCEPTS]
    files = unique(relative_path(clean_or_empty(f), root) for f in obs.files)[:MAX_FILES]
    return CleanObservation(
        type=kind,
        title=title,
        subtitle=clamp_words(clean_or_empty(obs.subtitle), SUBTITLE_MAX_WORDS, SUBTITLE_MAX_CHARS),
        facts=facts,
        narrative=clamp_chars(clean_or_empty(obs.narrative), NARRATIVE_MAX_CHARS),
        concepts=concepts,
        files=files,
        prompt_number=max(0, int(obs.prompt_number or 0)),
    )


def normalize_summary(summary: Summary, root: str | None = None) -> Summary:
    """A cleaned, clamped copy of ``summary`` with project-relative file lists (storage saves
    only what this returns)."""

    def text(value: str) -> str:
        return clamp_chars(clean_or_empty(value), SUMMARY_FIELD_MAX_CHARS)

    def paths(values: list[str]) -> list[str]:
        return unique(relative_path(clean_or_empty(f), root) for f in values)[: MAX_FILES * 5]

    return Summary(
        request=text(summary.request),
        investigated=text(summary.investigated),
        learned=text(summary.learned),
        completed=text(summary.completed),
        next_steps=text(summary.next_steps),
        files_read=paths(summary.files_read),
        files_edited=paths(summary.files_edited),
        notes=clamp_chars(clean_or_empty(summary.notes), SUMMARY_NOTES_MAX_CHARS),
    )


def content_hash(obs: Observation) -> str:
    """A stable hash of what an observation says (not when or where), for duplicate
    suppression within a project."""
    payload = json.dumps(
        [obs.type, obs.title.lower(), sorted(f.lower() for f in obs.facts), sorted(obs.files)],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


def observation_from_row(row: Mapping[str, Any]) -> Observation:
    """An :class:`Observation` from a ``observations`` row (``sqlite3.Row`` or mapping)."""
    get = row.__getitem__
    return Observation(
        type=get("type"),
        title=get("title"),
        subtitle=get("subtitle"),
        facts=json_list(get("facts")),
        narrative=get("narrative"),
        concepts=json_list(get("concepts")),
        files=json_list(get("files")),
        prompt_number=int(get("prompt_number") or 0),
    )


def json_list(value: object) -> list[str]:
    """A JSON array column as a list of strings (empty when the text is not an array)."""
    if not isinstance(value, str):
        return []
    try:
        data = json.loads(value)
    except ValueError:
        return []
    return [str(v) for v in data] if isinstance(data, list) else []
