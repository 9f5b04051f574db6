"""The hooks' look at the files a host loads as standing instructions, and the hold after a tool.

Why it exists (issue 20): an order an agent writes into ``CLAUDE.md``, ``AGENTS.md``,
``GEMINI.md`` or a rules folder is loaded by the host itself into every later session, so it is
taken out right after the tool that wrote it (:mod:`conkeeper.services.instruction_hold`).
Which lines are the agent's is read against the files' known content, taken between turns
(SessionStart, each prompt: what the person wrote is theirs) and after each check, and only
lines whose words the agent's tool carried (its file content, edit strings, shell command or
patch, or a patch seen before a tool the host fired no hook after) count: a line the person
typed into the same file meanwhile is never taken.

Cost: stdlib only; the tool hooks already ``stat`` these files around a tool that does not
name its file, and compare their prints with the known ones; the known content is read, the
files diffed and the judgement imported only when one changed.
"""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from conkeeper.hooks.payload import HookContext

Prints = dict[str, list[int]]  # the file as named (root-relative or ``~/...``) -> size, ctime
KNOWN = "instruction_known"  # state key: the prints of the files as their content is known
CARRIED = "instruction_texts"  # state key: tool texts naming such a file seen before a tool
MAX_CARRIED = 8  # tool texts kept per turn
MAX_TEXT = 64 * 1024  # characters kept of one


def watched(ctx: HookContext, imports: object = None) -> Prints:
    """The prints of the project's instruction files, the files they import (``imports``: the
    root-relative paths the last look found, :data:`IMPORTS` in the state) and the user's own."""
    from conkeeper.domain.paths import AGENT_INSTRUCTION_DIRS, AGENT_INSTRUCTION_NAMES
    from conkeeper.storage.agent_edits import instruction_prints

    assert ctx.location is not None
    names = set(AGENT_INSTRUCTION_NAMES)
    if isinstance(imports, list):
        names.update(rel for rel in imports if isinstance(rel, str))
    home = ctx.env.get("HOME")
    return instruction_prints(ctx.location.root, names, AGENT_INSTRUCTION_DIRS, home)


IMPORTS = "instruction_imports"  # state key: the files the instruction files import (@path)
MAX_IMPORTS = 16


def imported(ctx: HookContext, prints: Prints) -> list[str]:
    """The project's files the watched files import with ``@path`` (relative to the importing
    file's folder, inside the project, one level): the host loads them with it."""
    from conkeeper.domain.instruction_imports import imported_paths
    from conkeeper.storage.instruction_known import read_file

    assert ctx.location is not None
    root = ctx.location.root.resolve()
    found: list[str] = []
    for rel in prints:
        data = None if rel.startswith("~/") else read_file(file_of(ctx, rel))
        text = data.decode("utf-8", "replace") if data is not None else ""
        for path in imported_paths(text) if "@" in text else []:
            if path.startswith(("~", "/")):
                continue
            try:
                where = ((root / rel).parent / path).resolve().relative_to(root).as_posix()
            except (ValueError, OSError):
                continue
            if where not in prints and where not in found and (root / where).is_file():
                found.append(where)
    return found[:MAX_IMPORTS]


def file_of(ctx: HookContext, rel: str) -> Path:
    """The file a watched name stands for."""
    assert ctx.location is not None
    if rel.startswith("~/"):
        return Path(ctx.env.get("HOME") or "~") / rel[2:]
    return ctx.location.root / rel


def look(ctx: HookContext) -> None:
    """Between turns: the instruction files as they are now become their known content (what
    the person changed is theirs), and the tool texts of the last turn are let go."""
    if ctx.location is None:
        return
    state = ctx.state.read()
    now = watched(ctx, state.get(IMPORTS))
    extra = state.get(IMPORTS)
    if now != state.get(KNOWN):  # a file changed: what they import may have too
        extra = imported(ctx, now)
        now = watched(ctx, extra)

    def apply(data: dict[str, Any]) -> object:
        data.pop(CARRIED, None)
        before = data.get(KNOWN)
        data[KNOWN] = now
        data[IMPORTS] = extra
        return before

    before = ctx.state.update(apply)
    if before != now:
        _note_known(ctx, now, before)


def _note_known(ctx: HookContext, now: Prints, before: object) -> None:
    """Keep the line keys of each file of ``now`` that changed since ``before``."""
    from conkeeper.domain.held_lines import file_keys
    from conkeeper.storage.instruction_known import known_path, read_file, read_known, write_known

    path = known_path(ctx.state.path)
    earlier = before if isinstance(before, dict) else {}
    known = read_known(path) if earlier else {}
    known = {rel: keys for rel, keys in known.items() if rel in now}
    for rel, print_ in now.items():
        if earlier.get(rel) != print_ or rel not in known:
            data = read_file(file_of(ctx, rel))
            if data is None:
                known.pop(rel, None)
            else:
                known[rel] = file_keys(data)
    try:
        write_known(path, known)
    except OSError as exc:
        from conkeeper.storage.logfile import log

        log(f"hook {ctx.event}: instruction files' content not noted ({exc})", env=ctx.env)


def stash(ctx: HookContext) -> None:
    """Before a tool (PreToolUse): a text of it that names an instruction file is kept for the
    turn (Codex fires no PostToolUse after ``apply_patch``: a later tool's hook, or Stop, finds
    its lines in the file and needs to know the agent's tool carried them)."""
    text = tool_text(ctx.payload.tool_input)
    if not text:
        return
    from conkeeper.domain.paths import mentions_agent_instruction_file

    if not mentions_agent_instruction_file(text):
        return
    from conkeeper.domain.privacy import redact_for_matching

    # kept in the state file: its secrets redacted, whole, before it is cut
    kept_text = redact_for_matching(text)[:MAX_TEXT]

    def apply(data: dict[str, Any]) -> None:
        kept = data.get(CARRIED)
        kept = [t for t in kept if isinstance(t, str)] if isinstance(kept, list) else []
        data[CARRIED] = [*kept, kept_text][-MAX_CARRIED:]

    ctx.state.update(apply)


def tool_text(tool_input: dict[str, Any]) -> str:
    """Every text a tool was given (content, edit strings, a command, a patch), one per line."""
    texts: list[str] = []
    for value in tool_input.values():
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, str):
                texts.append(item)
            elif isinstance(item, dict):
                texts.extend(v for v in item.values() if isinstance(v, str))
    return "\n".join(texts)


def changed(before: object, now: Prints) -> bool:
    """Whether an instruction file changed since the known look ``before`` (none: no look yet,
    so nothing to read a change against)."""
    return isinstance(before, dict) and before != now


def hold_changes(ctx: HookContext, before: dict[str, Any], now: Prints, carried: str) -> str:
    """The files of ``now`` changed since ``before``: their lines the agent's tool carried that
    read like orders are held (:func:`conkeeper.services.instruction_hold.hold_added`), then
    the files as they are become their known content. The notice for the person, or ``""``."""
    from conkeeper.storage.instruction_known import known_path, read_known

    known = read_known(known_path(ctx.state.path))
    held: list[tuple[str, int]] = []
    for rel, print_ in now.items():
        if before.get(rel) == print_ or not carried.strip():
            continue
        keys = known.get(rel) if rel in before else []
        if keys is not None:
            held.extend(_hold(ctx, rel, keys, carried))
    final = watched(ctx, ctx.state.get(IMPORTS)) if held else now
    ctx.state.update(lambda data: data.__setitem__(KNOWN, final))
    _note_known(ctx, final, before)
    return _notice(ctx, held) if held else ""


def hold_unwatched(ctx: HookContext, target: str, carried: str) -> str:
    """An edit tool's write to an instruction file of the project no look watches
    (``src/api/CLAUDE.md``): its known content is not kept, so the lines its edit strings added
    (``carried``, less what they replaced) are read against the file alone."""
    assert ctx.location is not None
    root = f"{ctx.location.root}/"
    if not target.startswith(root):  # another project's: no review queue here to put it back
        return ""
    held = _hold(ctx, target[len(root) :], None, carried, Path(target))
    return _notice(ctx, held) if held else ""


def _hold(
    ctx: HookContext, rel: str, keys: list[str] | None, carried: str, path: Path | None = None
) -> list[tuple[str, int]]:
    """Hold one file's added order-shaped lines; ``[(file, lines held)]`` or ``[]``."""
    assert ctx.location is not None
    if not ctx.memory_dir_exists:  # no review queue to hold them in: the notice stays
        return []
    try:
        from conkeeper.services.instruction_hold import hold_added

        result = hold_added(ctx.location.memory_dir, path or file_of(ctx, rel), rel, keys, carried)
    except Exception:  # the hook must not fail with the hold; the notice stays
        from conkeeper.storage.logfile import log_exception

        log_exception(f"hook {ctx.event}: could not hold the agent's lines in {rel}", env=ctx.env)
        return []
    if result is None:
        return []
    from conkeeper.storage.logfile import log

    log(f"hook {ctx.event}: held {result.lines} line(s) the agent added to {rel}", env=ctx.env)
    return [(rel, result.lines)]


def _notice(ctx: HookContext, held: list[tuple[str, int]]) -> str:
    """The person's note: which files lost how many of the agent's lines, and what to do."""
    from conkeeper.domain.privacy import clean_or_empty

    names = ", ".join(
        f"{clean_or_empty(rel)} ({count} line{'s' if count > 1 else ''})" for rel, count in held[:3]
    )
    return (
        f"ConKeeper: what the agent added to {names} reads like an instruction steering later "
        "sessions; it was taken out of the file and held for your review before any session "
        "loads it: conkeeper review (approve puts it back, drop leaves it out, undo restores it)."
    )


AGENT_LINE = (
    "ConKeeper: the lines you just added to an agent instruction file read like standing "
    "orders, so they were taken out of it and held for the user's review; do not write them "
    "again (the user decides: conkeeper review)."
)


def after_turn(ctx: HookContext) -> str:
    """At the end of a turn (Stop): an instruction file changed since the last look by a tool
    no hook reported (Codex's ``apply_patch``): held as after a tool, with the turn's tool
    texts as what the agent carried. The notice for the person, or ``""``."""
    if ctx.location is None:
        return ""
    data = ctx.state.read()
    now = watched(ctx, data.get(IMPORTS))
    before = data.get(KNOWN)
    if not changed(before, now):
        return ""
    texts = data.get(CARRIED)
    carried = "\n".join(t for t in texts if isinstance(t, str)) if isinstance(texts, list) else ""
    assert isinstance(before, dict)
    return hold_changes(ctx, before, now, carried)
