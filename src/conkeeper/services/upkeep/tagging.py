"""Retroactive category tagging of existing memory files: plan first, then apply.

People adopting ConKeeper already have memory files. Tagging them by hand is tedious, and a
tool that rewrites someone's notes must earn trust, so this service (1) only proposes a tag
where the classifier is sure and the entry has no category yet, (2) shows the full plan before
anything changes, and (3) when applying, inserts tag lines and nothing else — every other byte,
the BOM and the line endings stay as they were — and refuses a file that changed since it was
planned. Private content (``<private>`` blocks, ``private: true`` files) is never classified.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from conkeeper.domain import privacy
from conkeeper.domain.categories import classify, format_tag, insert_line_after
from conkeeper.domain.memory import Node, memory_file_kind, parse_nodes
from conkeeper.domain.textio import (
    MemoryFileError,
    check_memory_root,
    file_stamp,
    is_within,
    read_text,
)

# Machine-written or documentation files whose entries are not knowledge to categorise.
_SKIPPED_KINDS = frozenset({"config", "schema", "queue", "adr-index", "observations", "retro"})
EXCERPT_CHARS = 80


@dataclass(frozen=True)
class TagChange:
    """One proposed tag line: add ``@category: category`` after the entry at ``path:line``."""

    path: Path
    line: int
    heading: str
    category: str
    confidence: float
    kind: str = "section"
    insert_after: int = 0
    excerpt: str = ""
    root: Path | None = None
    stamp: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, object]:
        """A JSON-friendly view for ``--json`` output."""
        return {
            "path": str(self.path),
            "line": self.line,
            "kind": self.kind,
            "heading": self.heading,
            "excerpt": self.excerpt,
            "category": self.category,
            "confidence": self.confidence,
        }


@dataclass
class ApplyResult:
    """What :func:`apply_tag_plan` wrote, and the files it left alone with the reason."""

    applied: list[TagChange] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)

    @property
    def files(self) -> list[Path]:
        """The files that were rewritten, in order."""
        return list(dict.fromkeys(change.path for change in self.applied))


def memory_files(memory_dir: Path, warnings: list[str] | None = None) -> Iterator[Path]:
    """Markdown files under ``memory_dir`` that hold curated knowledge, sorted, skipping hidden
    files, machine-written files and symlinks that lead outside the memory root."""
    for path in sorted(memory_dir.rglob("*.md")):
        rel = path.relative_to(memory_dir)
        if any(part.startswith(".") for part in rel.parts):
            continue
        if memory_file_kind(rel.as_posix()) in _SKIPPED_KINDS:
            continue
        if not is_within(path, memory_dir):
            if warnings is not None:
                warnings.append(f"{path}: is a symlink leading outside {memory_dir}; skipped")
            continue
        if path.is_file():
            yield path


def plan_retro_tagging(memory_dir: Path, warnings: list[str] | None = None) -> list[TagChange]:
    """Propose a category for every untagged entry the classifier is sure about.

    Unreadable files (binary, invalid UTF-8, too large) are skipped with a one-line message in
    ``warnings``. Raises ``MemoryFileError`` when ``memory_dir`` is missing or is a file.
    """
    check_memory_root(memory_dir)
    if not memory_dir.is_dir():
        raise MemoryFileError(f"{memory_dir}: no memory folder here; run 'conkeeper init' first")
    plan: list[TagChange] = []
    for path in memory_files(memory_dir, warnings):
        try:
            plan.extend(plan_file(path, memory_dir))
        except MemoryFileError as exc:
            if warnings is not None:
                warnings.append(str(exc))
    return plan


def plan_file(path: Path, root: Path) -> list[TagChange]:
    """The proposals for one memory file (empty for a private file)."""
    stamp = file_stamp(path)
    text = read_text(path)
    if privacy.is_private_file(text):
        return []
    visible = privacy.blank_private(text)
    changes: list[TagChange] = []
    for section in parse_nodes(visible):
        for node in _candidates(section):
            change = _propose(node, section, path, root, stamp)
            if change is not None:
                changes.append(change)
    return changes


def _candidates(section: Node) -> list[Node]:
    """Bullets are tagged one by one; a section is tagged itself only when it has no bullets."""
    if section.children:
        return section.children
    return [section] if section.addressable else []


def _has_category(node: Node, section: Node) -> bool:
    own = any(ref.kind == "category" for _, ref in node.own_tags)
    if node is section:
        return own
    inherited = any(ref.kind == "category" for _, ref in section.own_tags)
    return own or inherited


def _propose(
    node: Node, section: Node, path: Path, root: Path, stamp: tuple[int, int] | None
) -> TagChange | None:
    if _has_category(node, section):
        return None
    body = "\n".join(node.content).strip()
    if not body:
        return None  # a heading alone (a fresh template) is not evidence enough
    verdict = classify(body)
    if verdict.unsure and section.heading:
        # The heading ("Known Issues", "Conventions") is context, used only when the entry's
        # own words are not enough; it must not outvote what the entry says about itself.
        verdict = classify(f"{section.heading}\n{body}")
    if verdict.unsure or verdict.category is None:
        return None
    first = body.splitlines()[0].strip()
    excerpt = first if len(first) <= EXCERPT_CHARS else first[: EXCERPT_CHARS - 1] + "…"
    return TagChange(
        path=path,
        line=node.start,
        heading=section.heading,
        category=verdict.category,
        confidence=verdict.confidence,
        kind=node.kind,
        insert_after=node.insert_after,
        excerpt=excerpt,
        root=root,
        stamp=stamp,
    )


def apply_file_changes(path: Path, changes: list[TagChange], source: str = "user-cli") -> None:
    """Insert every planned tag line into one file in a single edit through the write path, or
    raise ``MemoryFileError`` (also when the file changed since it was planned: checked under
    the write lock, so nothing written meanwhile is lost)."""
    from conkeeper.domain.safewrite import edit_file, text_edit

    stamp = changes[0].stamp
    root = changes[0].root or path.parent

    def insert_tags(text: str) -> str:
        if file_stamp(path) != stamp:
            raise MemoryFileError(f"{path}: changed since the plan was made; run the command again")
        # Bottom-up, so earlier insertion points keep their line numbers.
        for change in sorted(changes, key=lambda c: c.insert_after, reverse=True):
            tag = format_tag("category", change.category)
            text = insert_line_after(text, change.insert_after, tag)
        return text

    edit_file(path, text_edit(insert_tags), command="tag --apply", source=source, root=root)


def apply_tag_plan(plan: list[TagChange]) -> ApplyResult:
    """Write a plan from :func:`plan_retro_tagging`, file by file, as one undo step (one
    ``tag retro --apply`` is one act of the person's, however many files it tags).

    A file that changed since planning, or cannot be written, is skipped with the reason and
    left untouched; the others are still written.
    """
    from conkeeper.domain.safewrite import write_group

    result = ApplyResult()
    by_file: dict[Path, list[TagChange]] = {}
    for change in plan:
        by_file.setdefault(change.path, []).append(change)
    with write_group():
        for path, changes in by_file.items():
            _apply_one(path, changes, result)
    return result


def _apply_one(path: Path, changes: list[TagChange], result: ApplyResult) -> None:
    """Write one file's tags into ``result`` (applied, or skipped with the reason)."""
    try:
        apply_file_changes(path, changes)
    except (MemoryFileError, ValueError) as exc:
        result.skipped.append((path, str(exc)))
        return
    except OSError as exc:
        result.skipped.append((path, f"{path}: cannot be written ({exc.strerror or exc})"))
        return
    result.applied.extend(changes)
