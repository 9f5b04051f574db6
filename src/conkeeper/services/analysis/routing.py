"""Routing queued corrections into memory (spec F13): apply one to a memory file, or reject it.

The memory-sync skill proposes a target for each queued item and asks the user; this module
carries out the decision. An applied item becomes a bullet with its category tag in the target
file (the person's or agent's wording, else the rule the item states: never the raw prompt), and
leaves the queue; a rejected item just
leaves the queue. Both files are changed through :mod:`conkeeper.domain.safewrite`: under the
lock every ConKeeper writer shares, as an edit of the bytes concerned (the new bullet appended,
the one queue line removed), so a concurrent human edit or a hook appending to the queue is never
lost, and every change is journaled for ``conkeeper undo``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from conkeeper.domain.categories import MEMORY_CATEGORIES, classify, format_tag
from conkeeper.domain.corrections_queue import QUEUE_NAME, QueueItem, item_id, parse_queue
from conkeeper.domain.paths import is_agent_instruction_file
from conkeeper.domain.placement import place_entry
from conkeeper.domain.safewrite import (
    WriteError,
    check_room,
    edit_file,
    line_break,
    text_edit,
    write_group,
)
from conkeeper.domain.textio import MemoryFileError, is_within, read_text

# Where each kind of correction belongs (the skill shows these as proposals).
ROUTES: dict[str, str] = {
    "convention": "patterns.md",
    "pattern": "patterns.md",
    "term": "glossary.md",
    "preference": "product-context.md",
    "workflow": "active-context.md",
}
NOT_TARGETS = {QUEUE_NAME, "schema.md", ".memory-config.md"}
NAME_MAX = 255  # the longest file or folder name, in bytes, common file systems take
GENERATED_INDEX = "decisions/INDEX.md"  # services.decisions regenerates its table
# The longest entry remember/apply accept (after whitespace is folded): a memory entry is a rule
# or a fact, and a huge one would crowd everything else out of the context it is injected into.
MAX_ENTRY_CHARS = 4000


class RoutingError(Exception):
    """The item cannot be applied or rejected; the message is one line for a person."""


class DuplicateEntry(RoutingError):
    """The target already holds this entry (nothing was written)."""


@dataclass(frozen=True)
class RoutedItem:
    """What happened to one queue item."""

    item: QueueItem
    action: str  # "applied" | "rejected" | "held"
    target: str | None = None
    category: str | None = None
    text: str | None = None
    held_id: str | None = None  # action "held": the review item's id
    # the queued line changed (or left) since it was read: left as it is, nothing removed
    left_in_queue: bool = False


LEFT_IN_QUEUE = (
    "The queued line changed since it was read (reworded or removed): it was left as it is"
)
"""What every front door says when :attr:`RoutedItem.left_in_queue` is set (each adds where
the queue can be seen now)."""

_ID_RE = re.compile(r"q[0-9a-f]{4,}")


def _find(memory_dir: Path, ref: int | str) -> QueueItem:
    """The queued item ``ref`` names: its id from ``corrections list`` (``q`` and at least four
    hex digits; stable while other items come and go) or its line number (as shown)."""
    path = memory_dir / QUEUE_NAME
    if not path.exists():
        raise RoutingError(f"{path}: no corrections queue")
    items = parse_queue(read_text(path))
    wanted = str(ref).strip().lower()
    if _ID_RE.fullmatch(wanted):
        for item in items:  # identical items share an id: any of them is the same item
            if item_id(item, 64).startswith(wanted):
                return item
        raise RoutingError(
            f"no queued item {wanted} (applied or rejected already?); "
            "run 'conkeeper corrections list'"
        )
    if not wanted.isdigit():
        raise RoutingError(
            f"{ref!r} names no queued item: give its id (q...) or line number "
            "from 'conkeeper corrections list'"
        )
    for item in items:
        if item.line == int(wanted):
            return item
    raise RoutingError(f"no queued item on line {wanted}; run 'conkeeper corrections list'")


def remember_listing(identity: str, items: list[QueueItem]) -> None:
    """Record which item ``corrections list`` showed on each line, for a line number given to
    ``apply``/``reject`` after it (:func:`check_listed_line`)."""
    from conkeeper.storage.state import LISTING_FILE, write_project_record

    shown = [[item.line, item_id(item, 64)] for item in items]
    try:
        write_project_record(identity, LISTING_FILE, {"items": shown})
    except OSError:  # a state folder that cannot be written never stops a listing
        return


def check_listed_line(identity: str, memory_dir: Path, ref: int | str) -> None:
    """Refuse a line number whose line no longer holds the item the last ``corrections list``
    showed there: an item above it that left the queue since moved the next one up, and the
    number would name an item the person never saw. An id, or a project never listed, passes.
    Found by write probe 9."""
    from conkeeper.storage.state import LISTING_FILE, read_project_record

    wanted = str(ref).strip()
    data = read_project_record(identity, LISTING_FILE)
    if not wanted.isdigit() or not data or not isinstance(data.get("items"), list):
        return
    shown = {int(row[0]): str(row[1]) for row in data["items"] if _is_row(row)}
    path = memory_dir / QUEUE_NAME
    now = parse_queue(read_text(path)) if path.exists() else []
    here = [item_id(item, 64) for item in now if item.line == int(wanted)]
    if here and shown.get(int(wanted)) != here[0]:  # nothing there: "no queued item" says it
        raise RoutingError(
            f"the queue changed since the last 'conkeeper corrections list': line {wanted} "
            "no longer holds the item listed there; give the item's id (q...), which never "
            "moves, or list the queue again"
        )


def _is_row(row: object) -> bool:
    return isinstance(row, list) and len(row) == 2 and str(row[0]).isdigit()


def _dequeue(memory_dir: Path, item: QueueItem, source: str = "user-cli") -> bool:
    """Remove exactly ``item``'s line from the queue, found again by its content under the write
    lock: a hook may have appended lines since it was read, and those must survive. ``False``
    when the line is no longer there as it was read (a person reworded or removed it): nothing
    is removed, and the caller says so."""
    path = memory_dir / QUEUE_NAME
    key = (item.when, item.label, item.text, item.ref)
    found: list[bool] = []

    def without_item(text: str) -> str:
        lines = text.splitlines(keepends=True)
        same = [i.line for i in parse_queue(text) if (i.when, i.label, i.text, i.ref) == key]
        found[:] = [bool(same)]
        if not same:
            return text  # reworded or already gone
        line = min(same, key=lambda n: (abs(n - item.line), n))
        del lines[line - 1]
        return "".join(lines)

    try:
        edit_file(
            path,
            text_edit(without_item),
            command=f"corrections dequeue line {item.line}",
            source=source,
            root=memory_dir,
        )
    except WriteError as exc:
        raise RoutingError(str(exc)) from None
    return found == [True]


def resolve_target(memory_dir: Path, target: str) -> Path:
    """The memory file ``target`` names (a route word such as ``convention`` or a path relative
    to the memory folder), refusing anything outside it or not meant for curated entries."""
    relative = ROUTES.get(target, target)
    if not relative.endswith(".md"):
        raise RoutingError(
            f"target '{target}' is neither a route ({', '.join([*ROUTES, 'adr'])}) nor a .md file"
        )
    if _unshown_characters(relative):
        # a search heading, the review and the viewer print the name on a line of its own: a
        # line break in it started a line of the agent's own there
        raise RoutingError(
            f"{relative!r}: a file name with a line break, a control or an invisible character; "
            "choose a plain name"
        )
    if any(len(part.encode("utf-8", "surrogatepass")) > NAME_MAX for part in relative.split("/")):
        # the write itself failed on it, with no answer for the caller
        raise RoutingError(
            f"{relative[:60]}…: a file or folder name over {NAME_MAX} bytes; choose a shorter one"
        )
    if relative.startswith("~"):
        # no shell expanded it (quoted, or the MCP tool's argument): it made a folder named
        # "~" inside the memory folder, which looked like the home folder in every listing
        raise RoutingError(
            f"{relative}: a memory file is named relative to the memory folder and '~' is not "
            "expanded; give a name such as notes.md (--global for global memory)"
        )
    path = memory_dir / relative
    if not is_within(path, memory_dir):
        raise RoutingError(f"{relative}: outside the memory folder {memory_dir}")
    if path.name in NOT_TARGETS or Path(relative).parts[0] == "sessions":
        raise RoutingError(f"{relative}: not a file for curated entries; choose another target")
    if is_agent_instruction_file(relative, any_case=True):
        # a CLAUDE.md in the memory folder is loaded by the host as standing instructions
        # whenever the agent reads a file there: an entry in it would escape every frame
        raise RoutingError(
            f"{relative}: agents load a file of this name as standing instructions, not as "
            "memory notes; choose another target"
        )
    if relative == GENERATED_INDEX:
        raise RoutingError(
            f"{relative}: ConKeeper regenerates this table from the ADR files; use --to adr "
            "or another target"
        )
    if any(part.startswith(".") for part in Path(relative).parts):
        # .history, .review: ConKeeper's own git-ignored folders; an entry there was "Saved"
        # yet never searched, loaded or committed
        raise RoutingError(
            f"{relative}: a hidden file or folder is never searched nor loaded; choose another "
            "target"
        )
    return path


def _unshown_characters(name: str) -> bool:
    """Whether ``name`` holds a character a listing does not show as itself: a line break or
    separator, a control, format (zero-width, bidi), private-use or unassigned character."""
    return any(unicodedata.category(char)[0] == "C" or char in "\u2028\u2029" for char in name)


def choose_category(text: str, category: str | None) -> str:
    """The given memory category (validated), else the classifier's when it is sure."""
    if category is not None:
        if category not in MEMORY_CATEGORIES:
            raise RoutingError(
                f"unknown category '{category}'; use one of {', '.join(MEMORY_CATEGORIES)}"
            )
        return category
    verdict = classify(text)
    if verdict.category is None:
        guess = f" (best guess: {verdict.best_guess})" if verdict.best_guess else ""
        raise RoutingError(f"the category is unclear{guess}; pass --category")
    return verdict.category


def entry_bytes(current: bytes, rule: str, category: str, source_tag: str = "") -> bytes:
    """The bytes of one bullet, its category tag and (when given) its provenance tag
    (:mod:`conkeeper.domain.provenance`), in ``current``'s own line breaks."""
    newline = line_break(current).decode()
    bullet = " ".join(rule.split())
    provenance = f"{source_tag}{newline}" if source_tag else ""
    return f"- {bullet}{newline}{format_tag('category', category)}{newline}{provenance}".encode()


def apply_item(
    memory_dir: Path,
    line: int | str,
    target: str,
    *,
    category: str | None = None,
    text: str | None = None,
    title: str | None = None,
    source: str = "user-cli",
    by_agent: bool = False,
) -> RoutedItem:
    """Write queue item ``line`` (its id or line number, :func:`_find`) into ``target`` as the
    rule it states (:func:`queued_rule`), or as ``text``, the person's own wording, then dequeue
    it.

    ``target`` ``adr`` writes a new architecture decision record (titled ``title``, or the
    rule's first words) and regenerates ``decisions/INDEX.md``.

    ``by_agent``: an agent runs the command (the memory-sync skill). Its rephrasing, or a queued
    prompt that carried pasted material, would otherwise be written as "a correction you
    approved" and injected as the user's own: when it reads like an order to later sessions
    (:mod:`conkeeper.services.quarantine`) it is held for ``conkeeper review`` instead (action
    ``held``, the queued item left for the user), and an ADR is refused. What it writes is
    journaled as the agent's (``agent-cli``), and a rule in the agent's own words (``text``
    other than the queued text) is tagged ``agent-correction``, never "a correction you
    approved".
    """
    item = _find(memory_dir, line)
    worded = (text or "").strip()
    if target != "adr":
        resolve_target(memory_dir, target)  # a wrong target is said before a missing rule
    rule = worded or queued_rule(item, target)
    provenance = "correction"  # the person approved it; a rule read from their words stays theirs
    if by_agent:
        held = _hold_agent_order(memory_dir, item, rule, target, category, title)
        if held is not None:
            return held
        source = "agent-cli"
        if worded and " ".join(worded.split()) != " ".join(item.text.split()):
            provenance = "agent-correction"  # the agent's words, not the user's
    with write_group():  # the rule and its dequeue are one step for undo
        if target == "adr":
            return _apply_as_adr(memory_dir, item, rule, category, title, source, provenance)
        relative, chosen = add_entry(
            memory_dir,
            target,
            rule,
            category,
            source=source,
            command="corrections apply",
            provenance=provenance,
        )
        left = not _dequeue(memory_dir, item, source)
    return RoutedItem(item, "applied", relative, chosen, " ".join(rule.split()), left_in_queue=left)


def queued_rule(item: QueueItem, target: str = "convention") -> str:
    """The rule queued ``item`` states, as reflection writes one (imperative, self-contained,
    without the complaint around it: :func:`~conkeeper.services.analysis.reflection.rules.
    imperative_rule`), so a memory file never holds the raw prompt ("No, use pnpm, not npm")
    as a convention. Refused when it states none: only the person's own ``--text`` can say it
    (the refusal names the command, ``target`` included, so the viewer's notice says it too)."""
    # loaded here: remember and MCP reach this module's add_entry without needing the readings
    from conkeeper.services.analysis.reflection.rules import imperative_rule

    rule = imperative_rule([item.text])
    if rule is None:
        raise RoutingError(
            f"no rule can be read from {item_id(item)} without your words (the prompt is never "
            f"written as typed); pass --text: conkeeper corrections apply {item_id(item)} "
            f'--to {target} --text "<the rule>"'
        )
    return rule


def _hold_agent_order(
    memory_dir: Path,
    item: QueueItem,
    rule: str,
    target: str,
    category: str | None,
    title: str | None,
) -> RoutedItem | None:
    """Hold an agent's routed text that reads like an order, alone or as ``remember`` reads
    an agent's entry (a re-wording of held text, a split order's half:
    :func:`conkeeper.services.remember.agent_entry_reasons`); ``None`` when it does not."""
    from conkeeper.services.quarantine import reasons
    from conkeeper.services.remember import agent_entry_reasons

    found = reasons(" ".join(filter(None, [title, rule])))
    if not found:
        relative = "" if target == "adr" else _relative(memory_dir, target)
        found = agent_entry_reasons(memory_dir, relative, " ".join(rule.split()), "project")
    if not found:
        return None
    if target == "adr":
        raise RoutingError(
            f"this reads like an instruction to later sessions ({found[0]}); an agent cannot "
            "write it as an ADR: apply it from your own terminal if you mean it"
        )
    check_entry_privacy(rule)
    path = resolve_target(memory_dir, target)
    chosen = choose_category(rule, category) if category else classify(rule).best_guess
    chosen = chosen or "learning"
    from conkeeper.services.review import ReviewError, hold

    try:
        held = hold(
            memory_dir,
            text=rule,
            target=path.relative_to(memory_dir).as_posix(),
            category=chosen,
            scope="project",
            source="agent-cli",
            reasons=found,
        )
    except (ReviewError, OSError) as exc:
        raise RoutingError(f"could not hold the entry for review: {exc}") from None
    return RoutedItem(item, "held", held.target, chosen, held.text, held.id)


def _relative(memory_dir: Path, target: str) -> str:
    """``target`` (a route word or a path) as a path inside ``memory_dir``."""
    return resolve_target(memory_dir, target).relative_to(memory_dir).as_posix()


def check_entry_privacy(text: str) -> None:
    """Refuse an entry that carries a credential or private text: memory files are shared and
    committed, and a bullet cannot keep a ``<private>`` block intact."""
    from conkeeper.domain.privacy import clean_captured
    from conkeeper.domain.secrets import find_secrets

    found = find_secrets(text)
    if found:
        raise RoutingError(
            f"the entry contains what looks like a credential ({found[0].kind}); "
            "remove it before saving it to memory"
        )
    cleaned = clean_captured(text) or ""
    if " ".join(cleaned.split()) != " ".join(text.split()):
        raise RoutingError("the entry contains private text; remove it before saving it to memory")


def add_entry(
    memory_dir: Path,
    target: str,
    text: str,
    category: str | None = None,
    *,
    source: str = "user-cli",
    command: str = "remember",
    provenance: str | None = None,
    approved: bool = False,
) -> tuple[str, str]:
    """Append ``text`` as a bullet with its category tag to ``target`` (a route word or a path in
    the memory folder); returns ``(path, category)``.

    The one write path for curated entries: queue routing, reflection and the MCP ``remember``
    tool (stdio and HTTP) use it, so the size limit (:data:`MAX_ENTRY_CHARS`), the privacy check
    and the duplicate check hold on every transport. The bullet is appended to the file's
    current bytes under the shared write lock and journaled (``source`` says who asked).
    ``provenance`` (a :data:`conkeeper.domain.provenance.SOURCES` word) adds the entry's source
    tag; ``approved`` marks an agent's held entry the user approved. ``remember`` reaches this
    through :mod:`conkeeper.services.remember`, which holds instruction-shaped text for review.
    """
    source_tag = _source_tag(provenance, approved)
    if len(text) > 4 * MAX_ENTRY_CHARS:  # refuse before folding a huge text
        raise RoutingError(_too_long(len(text)))
    rule = " ".join(text.split())
    if not rule:
        raise RoutingError("the entry text is empty")
    if len(rule) > MAX_ENTRY_CHARS:
        raise RoutingError(_too_long(len(rule)))
    check_entry_privacy(rule)
    chosen = choose_category(rule, category)
    path = resolve_target(memory_dir, target)
    relative = path.relative_to(memory_dir).as_posix()

    def add(current: bytes) -> bytes:
        data = entry_bytes(current, rule, chosen, source_tag)
        check_room(path, len(current) + len(data))  # refused before parsing a huge file
        new, offset = place_entry(current, data, chosen, rule)
        if current:
            text = _decoded(current)
            first = len(_decoded(new[:offset]).splitlines()) + 1  # the bullet's line
            _refuse_known(rule, relative, text)
            _refuse_hidden_end(relative, _decoded(new), first)
            _refuse_open_fence(relative, text, first)
        return new

    try:
        edit_file(path, add, command=command, source=source, root=memory_dir)
    except RoutingError:
        raise
    except MemoryFileError as exc:
        raise RoutingError(str(exc)) from None
    return relative, chosen


def _source_tag(provenance: str | None, approved: bool) -> str:
    if provenance is None:
        return ""
    from conkeeper.domain.provenance import format_source_tag

    try:
        return format_source_tag(provenance, approved=approved)
    except ValueError as exc:
        raise RoutingError(str(exc)) from None


def _too_long(size: int) -> str:
    return (
        f"the entry is {size} characters, over the {MAX_ENTRY_CHARS}-character limit; "
        "save a short rule and keep the details in a file of their own"
    )


def _decoded(current: bytes) -> str:
    """The target's text for the checks before an entry is added; bytes that are not UTF-8
    read as U+FFFD here (the file itself keeps them: only the new bullet is appended)."""
    return current.decode("utf-8-sig", "replace")


def _refuse_hidden_end(relative: str, new: str, first: int) -> None:
    """Refuse a bullet (on line ``first`` of ``new``) that would land inside the person's
    unclosed ``<private>`` block: privacy hides such a block to the end of the file, so the
    entry would be saved yet never searched or injected (and a queued correction consumed for
    nothing). Closing the block for them is no answer: text they append later, meant as
    private, would then show. A block opened below the entry's section hides nothing of it."""
    from conkeeper.domain.privacy import analyze

    report = analyze(new)
    if report.file_private:
        return  # a file the person marked private keeps what is added to it private, as asked
    for hidden in report.hidden_ranges:
        if hidden.start <= first <= hidden.end:
            raise RoutingError(  # no tag in the message: privacy would cut it from the line
                f"{relative}: the private block opened on line {hidden.start} is never closed, "
                "so the new entry would be hidden; close that block and run again"
            )


def _refuse_open_fence(relative: str, current: str, first: int) -> None:
    """Refuse a bullet (going to line ``first``) that would land inside the person's unclosed
    code fence: it would be saved yet read as code (by search, SessionStart and the person's
    own Markdown viewer). Closing the fence for them would change what they wrote. A fence
    opened below the entry's section does not reach it."""
    from conkeeper.domain.memory import unclosed_fence

    opened = unclosed_fence(current)
    if opened is not None and opened < first:
        raise RoutingError(
            f"{relative}: the code block opened on line {opened} is never closed, so an entry "
            "added after it would be read as code; close that block and run again"
        )


def _refuse_known(rule: str, relative: str, current: str) -> None:
    """Refuse an entry the target already holds: the same words, or the same claim as
    ``consolidate`` reads it (:func:`relations.relate`, measured on labelled pairs), asked only
    of the bullets that share most of the entry's content words.

    Sharing words is not enough: a corrected value ("the port is 8080" after "the port is
    9090") or a narrower rule must be written, not turned away as a duplicate (the word-share
    test alone, which reflect uses to skip known themes, turned away 54% of the labelled
    contradictions and 22% of the compatible pairs)."""
    from conkeeper.domain.privacy import clean_for_injection, clean_or_empty, clip
    from conkeeper.services.analysis.reflection.known import KnownItem, bullets, covers
    from conkeeper.services.analysis.reflection.themes import content_words

    wanted, words = _comparable(rule), content_words(rule)
    reading = None
    for bullet in bullets(clean_for_injection(current)):
        same = _comparable(bullet) == wanted
        if not same and covers(words, KnownItem(relative, bullet)):
            from conkeeper.services.upkeep.freshness.relations import read, relate_readings

            reading = reading or read(_ANSWER_OPENING.sub("", rule, count=1))
            same = getattr(relate_readings(reading, read(bullet)), "kind", "") == "duplicate"
        if same:  # the entry is quoted cleaned whole, then cut
            raise DuplicateEntry(
                f"{relative} already holds this: {clip(clean_or_empty(bullet), 80)}"
            )


# "No, method names are snake_case": the "no" answers the agent, it does not negate the claim
_ANSWER_OPENING = re.compile(r"^\s*(?:no+|nope|nah|actually|wait)\b[\s,.:;!-]+", re.IGNORECASE)


def _comparable(text: str) -> str:
    """Text as compared for sameness: case, spacing, code ticks and a final stop ignored."""
    return " ".join(text.replace("`", "").split()).rstrip(".").casefold()


def dequeue_theme(memory_dir: Path, text: str, source: str = "reflect") -> list[QueueItem]:
    """Remove every queued item on the same theme as ``text`` (they are processed once a rule
    for the theme is routed); returns the removed items."""
    from conkeeper.services.analysis.reflection.themes import content_words, similar

    path = memory_dir / QUEUE_NAME
    if not path.exists():
        return []
    words = content_words(text)
    removed = []
    for item in parse_queue(read_text(path)):
        if similar(words, content_words(item.text)) and _dequeue(memory_dir, item, source):
            removed.append(item)
    return removed


def _apply_as_adr(
    memory_dir: Path,
    item: QueueItem,
    rule: str,
    category: str | None,
    title: str | None,
    source: str,
    provenance: str,
) -> RoutedItem:
    from conkeeper.services.decisions import new_adr

    if category not in (None, "decision"):
        raise RoutingError("an ADR is always a decision; drop --category or choose another --to")
    heading = title or " ".join(rule.rstrip(".").split()[:8])
    path = new_adr(memory_dir, heading, rule, source=source, provenance=provenance)
    left = not _dequeue(memory_dir, item, source)
    relative = path.relative_to(memory_dir).as_posix()
    return RoutedItem(item, "applied", relative, "decision", rule, left_in_queue=left)


def reject_item(memory_dir: Path, line: int | str, source: str = "user-cli") -> RoutedItem:
    """Remove queue item ``line`` (its id or line number) without writing it anywhere."""
    item = _find(memory_dir, line)
    left = not _dequeue(memory_dir, item, source)
    return RoutedItem(item, "rejected", left_in_queue=left)
