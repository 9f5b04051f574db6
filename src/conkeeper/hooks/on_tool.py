"""PreToolUse, PostToolUse and PostToolUseFailure: timing, capture and save reminders.

This is the hottest path (every tool call), so it does the minimum: one locked state update
(tool start time, prompt number, privacy of the turn, save counter), one ``INSERT OR IGNORE``
and one locked append. It never imports search or indexing. Each write is guarded on its own,
so a locked database still leaves the log line and an unwritable memory folder still leaves
the database row; every failure is logged.
"""

from __future__ import annotations

from pathlib import Path

from conkeeper.hooks.memory_look import earlier as _earlier
from conkeeper.hooks.memory_look import memory_dirs as _memory_dirs
from conkeeper.hooks.memory_look import refresh as _refresh_memory_contents
from conkeeper.hooks.payload import HookResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from typing import Any

    from conkeeper.domain.privacy import CleanText
    from conkeeper.hooks.payload import HookContext


def handle(ctx: HookContext) -> HookResult | None:
    """Dispatch on the tool event."""
    _note_agent_shell(ctx)
    if ctx.event == "PreToolUse":
        refusal = _approval_refusal(ctx)
        if refusal is not None or ctx.location is None:
            return refusal
        if ctx.payload.tool_name not in _READ_ONLY_TOOLS:
            from conkeeper.hooks.instruction_look import stash

            stash(ctx)
        folders = _watched_folders(ctx)
        _record_start(ctx, folders)
        _look_at_other_memory(ctx)
        if folders:
            from conkeeper.hooks import known_folders

            known_folders.before(ctx, folders)
        return None
    if ctx.location is None:
        return None
    return _after_tool(ctx)


def _approval_refusal(ctx: HookContext) -> HookResult | None:
    """Refuse a shell command that runs a ConKeeper act that is the user's alone (``review
    approve``, ``reflect approve``, ``remember --source user``, ``config set`` of where data is
    sent): what ConKeeper holds for review is released by the user, never by the agent it was
    held from (the reason reaches the agent, which can ask the user to run it)."""
    command = ctx.payload.tool_input.get("command")
    if ctx.payload.tool_name not in _SHELL_TOOLS or not isinstance(command, str):
        return None
    if "conkeeper" not in command:  # every such act runs ConKeeper's launcher
        return None
    from conkeeper.domain.users_acts import users_act

    act = users_act(command)
    if act is None:
        return None
    from conkeeper.storage.logfile import log

    log(f"hook PreToolUse: refused the agent's conkeeper {act}", env=ctx.env)
    return HookResult(block_reason=_APPROVAL_REFUSAL.format(act=act))


def _note_agent_shell(ctx: HookContext) -> None:
    """Note when the agent's shell command starts and ends (:mod:`conkeeper.storage.
    agent_shells`): a process it detaches from its parents is still told for the agent's by
    having started inside that span, when the user's acts ask who runs them."""
    if ctx.payload.tool_name not in _SHELL_TOOLS:
        return
    from conkeeper.storage import agent_shells
    from conkeeper.storage.state import now_ms

    edge = "start" if ctx.event == "PreToolUse" else "end"
    key = f"{ctx.payload.session_id}:{ctx.payload.tool_use_id or ''}"
    try:
        stamp = now_ms()
        agent_shells.note(edge, key, stamp, ctx.env)
        if edge == "end" and _detaches(ctx.payload.tool_input.get("command")):
            agent_shells.note("left", key, stamp, ctx.env)  # its process may write later
    except OSError as exc:
        from conkeeper.storage.logfile import log

        log(f"hook {ctx.event}: agent shell span not noted ({exc})", env=ctx.env)


# A substring of every command ``domain.shell_targets.detaches`` matches (kept in step with its
# pattern): any other command skips that module's import (about 2 ms).
_DETACH_WORDS = (
    "&",
    "nohup",
    "setsid",
    "disown",
    "systemd-run",
    "daemon",
    "batch",
    "at ",
    "at\t",
    "at\n",
    "tmux",
    "screen",
)


def _detaches(command: object) -> bool:
    """True when a shell command may leave a process running after it returns."""
    if not isinstance(command, str) or not any(word in command for word in _DETACH_WORDS):
        return False
    from conkeeper.domain.shell_targets import detaches

    return detaches(command)


_APPROVAL_REFUSAL = (
    "ConKeeper: `conkeeper {act}` is the user's decision, not the agent's. Do not retry or "
    "work around this. Tell the user what you wanted to do and ask them to run it in their own "
    "terminal (held entries: `conkeeper review` lists them; `conkeeper review approve ID` or "
    "the viewer approves them)."
)


def _watched_folders(ctx: HookContext) -> list[Path]:
    """Around an agent's shell command (PreToolUse, PostToolUse): the other known projects'
    memory folders to watch (:mod:`conkeeper.hooks.known_folders`); none around other tools."""
    if ctx.payload.tool_name not in _SHELL_TOOLS or ctx.event == "PostToolUseFailure":
        return []
    from conkeeper.hooks import known_folders

    return known_folders.watched(ctx, _memory_dirs(ctx) + _named_memory_dirs(ctx))


def _record_start(ctx: HookContext, folders: list[Path]) -> None:
    """Remember the start time for the duration, what the memory files held before the tool
    ran (so a change the user made since the last tool is not taken for the tool's), and, for
    a shell command with ``folders`` to watch, its start for their look after it; nothing
    else, no output."""
    from conkeeper.storage.state import note_tool_start, now_ms

    tool_use_id = ctx.payload.tool_use_id or ""
    timed = bool(tool_use_id and ctx.config.observation_hook)
    prints = _memory_prints(ctx)
    outbound = _outbound_settings(ctx)
    instructions = _instruction_prints(ctx)
    if not (timed or folders) and prints is None and outbound is None and instructions is None:
        return
    stamp = now_ms()
    seen: list[Any] = [None, None]

    reviews = _review_prints(prints)

    def apply(data: dict[str, Any]) -> None:
        running = bool(data.get("tool_starts"))  # another tool's writes are still its own
        if timed:
            note_tool_start(data, tool_use_id, stamp)
        if folders:
            from conkeeper.hooks.known_folders import note_start

            note_start(data, tool_use_id, stamp)
        if outbound is not None:
            data["outbound_settings"] = outbound
        if instructions is not None and not running:
            data["instruction_prints"] = [instructions, stamp]
        if prints is not None and not running:
            seen[:] = [data.get("memory_prints"), True]
            data["memory_prints"], data["memory_prints_at"] = prints, stamp
            data["memory_prints_before_tool"] = True
            data["review_prints"] = reviews

    ctx.state.update(apply)
    if prints is not None and seen[1]:
        _refresh_memory_contents(ctx, prints, seen[0])


def _look_at_other_memory(ctx: HookContext) -> None:
    """Before an edit tool writes into another project's memory folder: that file's lines now
    are its known content, so PostToolUse records as the agent's only the lines the tool adds
    (the person's own lines there are never taken for the agent's)."""
    assert ctx.location is not None
    if ctx.payload.tool_name in _READ_ONLY_TOOLS:  # a look writes nothing, there or here
        return
    target = _spelled_plainly(str(ctx.payload.tool_input.get("file_path") or ""), ctx.payload.cwd)
    if not target or any(target.startswith(f"{d}/") for d in _memory_dirs(ctx)):
        return
    folder = _other_memory_folder(target)
    if folder is None:
        return
    from conkeeper.storage import agent_edits

    try:
        agent_edits.remember_contents(folder, [target[len(str(folder)) + 1 :]])
    except OSError as exc:
        from conkeeper.storage.logfile import log

        log(f"hook PreToolUse: another memory folder's file not noted ({exc})", env=ctx.env)


def _after_tool(ctx: HookContext) -> HookResult | None:
    from conkeeper.services.capture import reminders
    from conkeeper.storage.state import now_ms, pop_tool_start

    tool_use_id = ctx.payload.tool_use_id
    interval = ctx.config.save_interval if ctx.memory_dir_exists else 0
    stamp = now_ms()
    prints = _memory_prints(ctx)
    reviews = _review_prints(prints)
    seen: list[Any] = [None, None, None]  # the memory files' and review records' prints, time
    outbound = _outbound_settings(ctx)
    instructions = _instruction_prints(ctx)
    before_outbound: list[Any] = [None, None]  # settings, instruction files' prints and time
    cut: list[str | None] = [None]  # a token the previous output cut off at its end: its kind
    folders = _watched_folders(ctx)
    watch: list[int | None] = [None]  # when the shell command's look at ``folders`` was taken
    looked = _instruction_look(ctx, instructions)
    known: list[Any] = [None, None]  # the instruction files' known prints, the turn's tool texts

    def apply(data: dict[str, Any]) -> tuple[bool, int, int | None, int | None]:
        start = pop_tool_start(data, tool_use_id) if tool_use_id else None
        kind = data.pop("cut_token", None)
        cut[0] = kind if isinstance(kind, str) else None
        if folders:
            from conkeeper.hooks.known_folders import take_start

            watch[0] = take_start(data, tool_use_id or "")
        if outbound is not None:
            before_outbound[0] = data.get("outbound_settings")
            data["outbound_settings"] = outbound
        if instructions is not None:
            before_outbound[1] = data.pop("instruction_prints", None)
        if looked is not None:
            known[:] = [data.get("instruction_known"), data.get("instruction_texts")]
        number = data.get("prompt_number")
        number = number if isinstance(number, int) and not isinstance(number, bool) else 0
        if prints is not None:
            before_tool = data.get("memory_prints_before_tool") is True
            at = data.get("memory_prints_at")
            seen[:] = [
                data.get("memory_prints"),
                at if before_tool else None,
                data.get("review_prints") if before_tool else None,
            ]
            data["memory_prints"], data["memory_prints_at"] = prints, stamp
            data["memory_prints_before_tool"] = False
            data["review_prints"] = reviews
        return bool(data.get("private_turn")), number, start, reminders.tick(data, interval)

    private, prompt_number, start, due = ctx.state.update(apply)
    warning = None
    held = _hold_instruction_lines(ctx, looked, known) if looked is not None else ""
    if held:
        warning = held
    elif ctx.payload.tool_name in _WRITE_TOOLS:  # before the file's known content moves on
        warning = _memory_write_warning(ctx)
    elif ctx.payload.tool_name in _SHELL_TOOLS and ctx.event == "PostToolUse":
        warning = _shell_instruction_warning(ctx)
    if warning is None and reviews is not None and _released(seen[2], reviews):
        warning = _release_notice(ctx)
    if warning is None and outbound is not None:
        warning = _outbound_change_notice(ctx, before_outbound[0], outbound)
    if warning is None and instructions is not None:
        warning = _unnamed_instruction_change(ctx, before_outbound[1], instructions)
    if prints is not None:
        untagged = _record_shell_edits(ctx, prints, seen[:2])
        warning = warning or untagged
    if folders:
        from conkeeper.hooks import known_folders

        known_folders.after(ctx, folders, watch[0])
    if ctx.config.observation_hook and not private:
        duration = max(0, stamp - start) if start is not None else None
        _capture(ctx, prompt_number, duration, stamp / 1000, cut[0])
    told = _agent_told(held, reminders.reminder_text(due) if due is not None else None)
    if told is not None:
        return HookResult(additional_context=told, system_message=warning)
    return HookResult(system_message=warning) if warning else None


def _agent_told(held: str, reminder: str | None) -> str | None:
    """What the agent reads after the tool: the one line saying its lines were held, and the
    save reminder when one is due."""
    if not held:
        return reminder
    from conkeeper.hooks.instruction_look import AGENT_LINE

    return f"{AGENT_LINE}\n\n{reminder}" if reminder else AGENT_LINE


def _instruction_look(ctx: HookContext, prints: dict[str, list[int]] | None) -> Any:
    """The instruction files' prints to compare with their known content after this tool:
    those taken for a tool that does not name its file, those of the files an edit tool's
    target is one of, or the target itself when no look watches it (``("unwatched", path)``);
    ``None`` when the tool cannot have changed one (the check then costs nothing)."""
    if ctx.event != "PostToolUse" or ctx.location is None:
        return None
    if ctx.payload.tool_name not in _WRITE_TOOLS:
        return prints
    from conkeeper.domain.paths import is_agent_instruction_file

    target = _spelled_plainly(str(ctx.payload.tool_input.get("file_path") or ""), ctx.payload.cwd)
    if not target:
        return None
    named = is_agent_instruction_file(target)
    if not named and not target.endswith(_IMPORTABLE):
        return None
    from conkeeper.hooks.instruction_look import IMPORTS, file_of, watched

    now = watched(ctx, ctx.state.get(IMPORTS))  # the files they import (@path) too
    if any(str(file_of(ctx, rel)) == target for rel in now):
        return now
    return ("unwatched", target) if named else None


# What a file an instruction file imports (@path) may be: another edit tool's target is no
# instruction file, and the state (where the imports are noted) is not read for it.
_IMPORTABLE = (".md", ".mdc", ".txt")


def _hold_instruction_lines(ctx: HookContext, looked: Any, known: list[Any]) -> str:
    """Hold the order-shaped lines the agent's tool added to an instruction file the host
    loads (:mod:`conkeeper.hooks.instruction_look`); the person's notice, or ``""``."""
    from conkeeper.hooks import instruction_look

    texts = known[1] if isinstance(known[1], list) else []
    carried = "\n".join(
        [
            instruction_look.tool_text(ctx.payload.tool_input),
            *(t for t in texts if isinstance(t, str)),
        ]
    )
    if isinstance(looked, tuple):
        return instruction_look.hold_unwatched(
            ctx, looked[1], _written_text(ctx.payload.tool_input)
        )
    if not instruction_look.changed(known[0], looked):
        return ""
    return instruction_look.hold_changes(ctx, known[0], looked, carried)


_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
_SHELL_TOOLS = frozenset({"Bash"})  # each host adapter names its shell tool "Bash"
# Tools that cannot change a file: no need to look at the memory files after them.
_READ_ONLY_TOOLS = frozenset(
    {"Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite", "NotebookRead"}
)
_CLOCK_SLACK_MS = 50  # file times come from a coarse clock: a write just after the start may
# carry a time a few milliseconds before it


Prints = dict[str, dict[str, list[int]]]  # memory folder -> file -> [size, change time]


def _memory_prints(ctx: HookContext) -> Prints | None:
    """The memory files' sizes and change times around a tool that can write, else None."""
    if ctx.event not in ("PreToolUse", "PostToolUse") or ctx.location is None:
        return None
    if ctx.payload.tool_name in _READ_ONLY_TOOLS:
        return None
    from conkeeper.storage import agent_edits

    dirs = _memory_dirs(ctx) + _named_memory_dirs(ctx)
    return {str(d): agent_edits.fingerprints(d) for d in dirs} if dirs else None


def _named_memory_dirs(ctx: HookContext) -> list[Path]:
    """Other projects' memory folders a shell command reaches (``echo ... >>
    ../other/.claude/memory/patterns.md``, ``cd ../other/.claude && ... >> memory/x.md``,
    ``D=../other/.claude; ... >> $D/memory/x.md``, ``os.path.join('../other', '.claude',
    ...)``): watched around the command like the project's own, so what it writes there is the
    agent's in that folder. Every path-like word (quotes, ``=`` and shell punctuation cut) is
    read from the hook's folder and from each folder the command changes to, and the nearest
    memory folder at or above it is watched: the memory folder need not be spelled whole."""
    import re

    command = ctx.payload.tool_input.get("command")
    if not isinstance(command, str) or ".claude" not in command:
        return []
    cwd = ctx.payload.cwd
    words = [w for w in re.split(r"[\s'\"<>|;&()=`]+", command) if "/" in w or ".claude" in w]
    moves = re.findall(r"\b(?:cd|pushd)\s+['\"]?([^\s;&|()'\"]+)", command)
    bases = [cwd, *(_spelled_plainly(d, cwd) for d in moves)]
    own = _memory_dirs(ctx)
    found: list[Path] = []
    for word in words[:_MAX_WORDS]:
        for base in bases if not word.startswith("/") else [cwd]:
            folder = _memory_folder_above(_spelled_plainly(word, base))
            if folder is not None and folder not in found and folder not in own:
                found.append(folder)
    return found


_MAX_WORDS = 64  # path-like words of one command looked at (a long script stays cheap)
_MAX_LEVELS = 8  # folders climbed from a word towards the root


def _memory_folder_above(path: str) -> Path | None:
    """The memory folder ``path`` lies in or names (``<p>/.claude/memory``, ``<p>/.claude``,
    ``<p>``, or a file below one), the nearest one climbing at most :data:`_MAX_LEVELS`
    folders, else ``None``."""
    from conkeeper.domain.paths import MEMORY_SUBFOLDER

    inside = _other_memory_folder(path)
    if inside is not None:
        return inside
    current = Path(path)
    for _ in range(_MAX_LEVELS):
        if current.name == ".claude" and (current / "memory").is_dir():
            return current / "memory"
        if (current / MEMORY_SUBFOLDER).is_dir():
            return current / MEMORY_SUBFOLDER
        if current.parent == current:
            return None
        current = current.parent
    return None


def _instruction_prints(ctx: HookContext) -> dict[str, list[int]] | None:
    """The project's agent-instruction files' prints around a tool that can write and does
    not name its file (an edit tool's write is judged by its text), else ``None``."""
    if ctx.location is None or ctx.payload.tool_name in _READ_ONLY_TOOLS | _WRITE_TOOLS:
        return None
    from conkeeper.hooks.instruction_look import IMPORTS, watched

    return watched(ctx, ctx.state.get(IMPORTS))  # the files they import (@path) too


def _unnamed_instruction_change(
    ctx: HookContext, before: object, now: dict[str, list[int]]
) -> str | None:
    """The instruction-file notice for a file that changed while the tool ran although the
    command did not name it (``git apply``, ``git merge``, a script): its text is not in the
    command, so it is reported whatever it holds, as a download into one is. A command that
    names the file was judged by its text already."""
    if not isinstance(before, list) or len(before) != 2 or not isinstance(before[1], int):
        return None
    from conkeeper.storage.agent_edits import changed_during

    since_ns = (before[1] - _CLOCK_SLACK_MS) * 1_000_000
    changed = changed_during(before[0], now, since_ns)
    command = ctx.payload.tool_input.get("command")
    if isinstance(command, str):
        named = [rel for rel in changed if rel.rsplit("/", 1)[-1] in command]
        changed = [rel for rel in changed if rel not in named]
        if named and ctx.payload.tool_name not in _SHELL_TOOLS:
            # a patch tool (Codex's apply_patch) names the file, but no one judged its text
            patched = _patched_instruction_notice(ctx, command, named)
            if patched is not None:
                return patched
    if not changed:
        return None
    from conkeeper.domain.privacy import clean_or_empty
    from conkeeper.storage.logfile import log

    names = ", ".join(str(clean_or_empty(rel)) for rel in changed[:3])
    log(f"hook PostToolUse: {names} changed by a command that does not name it", env=ctx.env)
    return (
        f"ConKeeper: while the agent's last tool ran, {names} changed (the command does not "
        "name it: a patch, a merge, a script). Your agent reads that file at the start of every "
        "session: check the change before the next one."
    )


def _patched_instruction_notice(ctx: HookContext, patch: str, named: list[str]) -> str | None:
    """The instruction-file notice for a file a patch tool changed and names, when the lines
    the patch adds to it read like an instruction (phrase rules only, as for a shell
    command's text; never echoed)."""
    from conkeeper.domain.instructions import rule_findings
    from conkeeper.domain.shell_targets import patch_additions

    added = patch_additions(patch)
    for rel in named:
        shown = rel[2:] if rel.startswith("~/") else rel  # the user's own: ~/.codex/AGENTS.md
        text = "\n".join(
            lines
            for path, lines in added.items()
            if path.replace("\\", "/") == shown or path.replace("\\", "/").endswith("/" + shown)
        )
        found = rule_findings(text) if text else []
        if found:
            return _instruction_file_notice(ctx, rel, found[0].reason)
    return None


def _outbound_settings(ctx: HookContext) -> dict[str, object] | None:
    """The effective settings that decide where sessions, memory and API keys are sent
    (``domain.config.OUTBOUND_KEYS``) around a tool that can write, else ``None``: both hooks
    load the settings anyway, so comparing them costs nothing more."""
    if ctx.payload.tool_name in _READ_ONLY_TOOLS:  # a failed command may have written too
        return None
    from conkeeper.domain.config import OUTBOUND_KEYS

    return {key: getattr(ctx.config, key, None) for key in sorted(OUTBOUND_KEYS)}


def _outbound_change_notice(ctx: HookContext, before: object, now: dict[str, object]) -> str | None:
    """A note for the user when the tool changed where data is sent, whatever wrote the setting
    (``config set`` refuses it under an agent and an edit tool's write is reported, but a
    ``sed -i`` on ``.memory-config.md`` was silent). The values are never echoed."""
    if not isinstance(before, dict):
        return None
    keys = sorted(key for key, value in now.items() if key in before and before[key] != value)
    if not keys:
        return None
    from conkeeper.storage.logfile import log

    log(f"hook PostToolUse: the tool changed {', '.join(keys)}", env=ctx.env)
    return (
        f"ConKeeper: while the agent's last tool ran, {', '.join(keys)} changed: this decides "
        "where your sessions, memory or API keys are sent. Check it (conkeeper config show) "
        "and change it back if you did not ask for it."
    )


def _review_prints(prints: Prints | None) -> dict[str, list[object]] | None:
    """The review records' prints of each memory folder looked at (see ``prints``)."""
    if prints is None:
        return None
    from conkeeper.storage import agent_edits

    return {folder: agent_edits.review_print(Path(folder)) for folder in prints}


def _released(before: object, now: dict[str, list[object]]) -> bool:
    """Whether held text left a memory folder's review records while the tool ran (``before``:
    the look PreToolUse took; none without one)."""
    if not isinstance(before, dict):
        return False
    from conkeeper.storage import agent_edits

    return any(agent_edits.released(before.get(folder), now[folder]) for folder in now)


def _release_notice(ctx: HookContext) -> str:
    """A note for the user when held text left the review records while the agent's tool ran,
    whatever the command said (a script, a glob, a renamed copy of ConKeeper): releasing it is
    the user's act, and the next session would load it."""
    from conkeeper.storage.logfile import log

    log("hook PostToolUse: held memory left the review records during the tool", env=ctx.env)
    return (
        "ConKeeper: while the agent's last tool ran, memory held for your review was released "
        "(approved, dropped or its record removed). If you did not do it, check "
        "`conkeeper history` and `conkeeper review`, and undo what you did not mean to keep."
    )


def _record_shell_edits(ctx: HookContext, prints: Prints, seen: list[Any]) -> str | None:
    """Record as the agent's the lines a tool wrote into memory files without an edit tool
    (a shell ``echo >>``, a script), and the entries whose agent ``@source`` tag it took out
    (a whole-file Write, ``sed -i``): files whose print changed since the look PreToolUse took
    before the tool ran, changed after it. With no such look (no PreToolUse hook), a change
    only becomes the known content: it may be the user's. Returns the notice for an entry
    that lost its tag, else ``None``."""
    from conkeeper.storage import agent_edits

    before, before_at = seen
    since_ns = (before_at - _CLOCK_SLACK_MS) * 1_000_000 if isinstance(before_at, int) else None
    notice = None
    for folder, now in prints.items():
        earlier = _earlier(before, folder)
        try:
            if earlier is None:  # the session's first look: remember what is there
                agent_edits.remember_contents(Path(folder), sorted(now))
                continue
            changed = agent_edits.changed_files(earlier, now)
            if not changed:
                continue
            new_files = [rel for rel in changed if rel not in earlier]
            recorded, untagged = agent_edits.record_changes(
                Path(folder),
                changed,
                now,
                since_ns,
                new_files,
                _remembered_keys(Path(folder), changed, before_at),
            )
            if recorded:
                from conkeeper.storage.logfile import log

                log(f"hook PostToolUse: {ctx.payload.tool_name} wrote into memory", env=ctx.env)
            if untagged and notice is None:
                notice = _untagged_notice_text(untagged[0])
        except OSError as exc:
            from conkeeper.storage.logfile import log

            log(f"hook PostToolUse: memory changes not checked ({exc})", env=ctx.env)
    return notice


def _remembered_keys(folder: Path, changed: list[str], start_ms: object) -> set[str]:
    """The lines ``conkeeper remember`` saved into ``changed`` files while the tool ran (the
    agent's shell running it): entries the remember engine already judged, written with their
    ``@source`` tag, which names who saved them. Recorded as raw edits too, they were shown
    with a second, wrong source ("written by an agent with its edit tools")."""
    if not isinstance(start_ms, int):
        return set()
    from conkeeper.hooks.known_folders import journaled_keys

    return journaled_keys(folder, changed, start_ms, command="remember")


def _memory_write_warning(ctx: HookContext) -> str | None:
    """A note for the user when the agent wrote instruction-shaped text straight into a memory
    file with its own edit tools (bypassing ``remember``'s review): the next session would read
    it. Only edits inside the memory folder are checked; the text is never echoed."""
    if ctx.event != "PostToolUse" or ctx.location is None:
        return None
    tool_input = ctx.payload.tool_input
    target, folder = _session_memory_target(
        ctx, _spelled_plainly(str(tool_input.get("file_path") or ""), ctx.payload.cwd)
    )
    elsewhere = folder is None  # another project's memory folder: the notice names the path
    if folder is None:
        folder = _other_memory_folder(target)
    if folder is None:
        return _instruction_file_warning(ctx, target, f"{ctx.location.root}/")
    if f"/{_REVIEW_DIR}/" in target[len(str(folder)) :]:
        return _review_records_notice(ctx)
    if "/sessions/" in target[len(str(folder)) :]:
        return None
    memory = str(folder)
    relative = target[len(memory) + 1 :]
    from conkeeper.storage import agent_edits

    known = agent_edits.known_keys(folder, relative)
    if known is None and "content" not in tool_input:  # no look yet: the file around the edit
        known = agent_edits.keys_outside(folder, relative, _new_strings(tool_input))
    written = _written_text(tool_input, known)
    untagged = _untagged_entries(tool_input)
    if untagged:
        return _untagged_notice(ctx, folder, relative, untagged)
    if not written:
        return None
    if relative.rsplit("/", 1)[-1] == ".memory-config.md":
        return _outbound_config_notice(ctx, folder, written)

    # Every line the agent wrote is remembered as the agent's: SessionStart leaves out those
    # that read like instructions until the user keeps them (`conkeeper review`).
    try:
        agent_edits.record(folder, relative, written)
    except OSError as exc:
        from conkeeper.storage.logfile import log

        log(f"hook PostToolUse: agent edit of {relative} not recorded ({exc})", env=ctx.env)
    # The phrase rules alone: this is a notice, not a hold, so their stricter reading costs the
    # user little, and the learned scorer's import would cost this hook ~3 ms of CPU per call
    # (bench/poisoning_hook_ab.py). What SessionStart injects is still judged by both.
    from conkeeper.domain.instructions import rule_findings

    found = rule_findings(written)
    if not found:
        return None
    from conkeeper.storage.logfile import log

    log(f"hook PostToolUse: instruction-shaped text written to memory {relative}", env=ctx.env)
    shown = target if elsewhere else relative
    said = (
        f"ConKeeper: the agent wrote text that reads like an instruction into memory file "
        f"{shown} ({found[0].reason})."
    )
    if _held_from_sessions(ctx, folder, relative, written):
        return (
            f"{said} It is held from the next sessions until you keep or drop it: conkeeper review."
        )
    return (
        f"{said} ConKeeper's full check read it as a note, so the next sessions will load it: "
        f"read it in {shown} and remove it if you did not ask for it."
    )


def _other_memory_folder(target: str) -> Path | None:
    """Another project's memory folder the edited file lies in (it exists), else None: the
    agent's lines there are held from that project's sessions as in its own."""
    from conkeeper.domain.paths import memory_folder_containing

    other = memory_folder_containing(target)
    return Path(other) if other and Path(other).is_dir() else None


def _new_strings(tool_input: dict[str, Any]) -> list[str]:
    """The texts an Edit or MultiEdit put into its file (``new_string`` of each edit)."""
    edits = tool_input.get("edits")
    found = [tool_input.get("new_string")]
    if isinstance(edits, list):
        found.extend(e.get("new_string") for e in edits if isinstance(e, dict))
    return [text for text in found if isinstance(text, str) and text]


def _untagged_entries(tool_input: dict[str, Any]) -> str:
    """The lines of the entries whose agent ``@source`` tag an Edit or MultiEdit took out (the
    tag in an ``old_string``, not in its ``new_string``): without it the entry reads as the
    person's own writing. Empty when no such tag went."""
    edits = tool_input.get("edits")
    pairs = [(tool_input.get("old_string"), tool_input.get("new_string"))]
    if isinstance(edits, list):
        pairs.extend(
            (e.get("old_string"), e.get("new_string")) for e in edits if isinstance(e, dict)
        )
    entries: list[str] = []
    for old, new in pairs:
        if isinstance(old, str) and "@source" in old:
            entries.extend(_entries_untagged(old, new if isinstance(new, str) else ""))
    return "\n".join(entries)


def _entries_untagged(old: str, new: str) -> list[str]:
    """The entry lines above each agent tag of ``old`` that ``new`` no longer holds."""
    from conkeeper.domain.provenance import parse_source_tag

    kept = {" ".join(line.split()) for line in new.splitlines()}
    lines = old.splitlines()
    found: list[str] = []
    for index, line in enumerate(lines):
        tag = parse_source_tag(line) if "@source" in line else None
        if tag is None or not tag.from_agent or " ".join(line.split()) in kept:
            continue
        above = [ln for ln in lines[:index] if ln.strip() and not ln.lstrip().startswith("<!--")]
        found.extend(above[-1:])  # the entry's line (a bullet: the tags follow it)
    return found


def _untagged_notice(ctx: HookContext, folder: Path, relative: str, entries: str) -> str:
    """Record the entries whose source tag the agent took out as the agent's lines (SessionStart
    holds one that reads like an order until the user keeps it) and tell the user at once."""
    from conkeeper.storage import agent_edits

    try:
        agent_edits.record(folder, relative, entries)
    except OSError as exc:
        from conkeeper.storage.logfile import log

        log(f"hook PostToolUse: untagged entry of {relative} not recorded ({exc})", env=ctx.env)
    return _untagged_notice_text(relative)


def _untagged_notice_text(relative: str) -> str:
    """The notice that the agent's tool took an agent's source tag off an entry of
    ``relative`` (a name inside the memory folder), or marked it approved."""
    from conkeeper.domain.privacy import clean_or_empty

    return (
        f"ConKeeper: the agent removed the source tag of an entry an agent saved in memory file "
        f"{clean_or_empty(relative)} (or marked it approved), so it would read as yours or as "
        "approved by you; it stays marked as the agent's (`conkeeper review` lists it if it "
        "reads like an instruction)."
    )


def _held_from_sessions(ctx: HookContext, folder: Path, relative: str, written: str) -> bool:
    """Whether SessionStart will hold back a line of ``written`` (what ``conkeeper review``
    lists for ``relative``): the phrase rules that raised the notice are one voice, the learned
    scorer has the last word there, so the notice asks the same check (only on this rare path:
    its import costs a few milliseconds). ``True`` when the check fails: the notice then
    still sends the user to review."""
    try:
        from conkeeper.domain.privacy import shown_forms
        from conkeeper.services.review import AGENT_EDIT, list_held

        wanted: set[str] = set()
        for line, forms in zip(written.splitlines(), shown_forms(written), strict=True):
            wanted.update(" ".join(text.split()) for text in (line, *forms))
        return any(
            item.source == AGENT_EDIT and item.target == relative and item.text in wanted
            for item in list_held([folder])
        )
    except Exception:  # the notice must not be lost with the check
        from conkeeper.storage.logfile import log_exception

        log_exception("hook PostToolUse: could not check what SessionStart holds", env=ctx.env)
        return True


def _outbound_config_notice(ctx: HookContext, folder: Path, written: str) -> str | None:
    """A note for the user when the agent's own edit of a ``.memory-config.md`` set a key that
    decides where sessions, memory or API keys are sent (``config set`` refuses those under an
    agent; a hostile page could name a collector). The value is never echoed."""
    from conkeeper.domain.config import OUTBOUND_KEYS

    named = (line.split(":", 1)[0].strip().strip("\"'").lower() for line in written.splitlines())
    keys = sorted(set(named) & OUTBOUND_KEYS)
    if not keys:
        return None
    from conkeeper.storage.logfile import log

    where = "global" if ctx.location is None or folder != ctx.location.memory_dir else "project"
    log(f"hook PostToolUse: the agent set {', '.join(keys)} in the {where} config", env=ctx.env)
    return (
        f"ConKeeper: the agent set {', '.join(keys)} in the {where} .memory-config.md: "
        "this decides where your sessions, memory or API keys are sent. Check it "
        "(conkeeper config show) and change it back if you did not ask for it."
    )


def _session_memory_target(ctx: HookContext, target: str) -> tuple[str, Path | None]:
    """``target`` and the session's memory folder it is in, followed through a link into one
    (:func:`_linked_target`); ``(target, None)`` when it is in none."""
    folder = next((d for d in _memory_dirs(ctx) if target.startswith(f"{d}/")), None)
    if folder is not None or not target:
        return target, folder
    target = _linked_target(ctx, target)
    return target, next((d for d in _memory_dirs(ctx) if target.startswith(f"{d}/")), None)


def _linked_target(ctx: HookContext, target: str) -> str:
    """The memory file an edit tool's file outside the memory folders is a link to (a symlink,
    or a hard link: another name for the same file), spelled as its folder is; else
    ``target``. An agent's Write to ``docs/notes.md`` linked to ``patterns.md`` wrote memory."""
    import os
    import stat

    try:
        info = os.lstat(target)
    except (OSError, ValueError):
        return target
    if stat.S_ISLNK(info.st_mode):
        real = os.path.realpath(target)
        for folder in _memory_dirs(ctx):
            base = os.path.realpath(folder)
            if real.startswith(f"{base}/"):
                return f"{folder}{real[len(base) :]}"
        return real
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        return _same_file_in_memory(ctx, info) or target
    return target


def _same_file_in_memory(ctx: HookContext, info: os.stat_result) -> str | None:
    """The path in the session's memory folders of the file ``info`` describes, if any."""
    import os

    for folder in _memory_dirs(ctx):
        for top, _, names in os.walk(folder):
            for name in names:
                path = os.path.join(top, name)
                try:
                    found = os.stat(path, follow_symlinks=False)
                except OSError:
                    continue
                if (found.st_ino, found.st_dev) == (info.st_ino, info.st_dev):
                    return path
    return None


def _spelled_plainly(path: str, cwd: str | None) -> str:
    """``path`` as the memory folder is spelled: ``.`` and ``..`` parts and doubled slashes
    resolved, a relative path read from ``cwd``. An edit tool accepts
    ``<project>/src/../.claude/memory/./patterns.md``, and such a write was no memory write."""
    if not path:
        return path
    import os.path

    if not os.path.isabs(path) and cwd:
        path = os.path.join(cwd, path)
    if "/." in path or "//" in path or not os.path.isabs(path):
        return os.path.normpath(path)
    return path


def _written_text(tool_input: dict[str, Any], known: frozenset[str] | None = None) -> str:
    """The lines a Write, Edit or MultiEdit put into its file that were not there before: an
    Edit's ``new_string`` repeats the lines of its ``old_string`` around the change, and a
    Write's content the file's lines (``known``: their keys at the last look). Those lines are
    the user's; taken for the agent's they were held from sessions, and ``review drop`` cut
    them from the file."""
    edits = tool_input.get("edits")
    pairs = [(tool_input.get("old_string"), tool_input.get("new_string"))]
    if isinstance(edits, list):
        pairs.extend(
            (e.get("old_string"), e.get("new_string")) for e in edits if isinstance(e, dict)
        )
    old = {
        " ".join(line.split()) for o, _ in pairs if isinstance(o, str) for line in o.splitlines()
    }
    pieces = [tool_input.get("content"), *(new for _, new in pairs)]
    lines = [line for p in pieces if isinstance(p, str) for line in p.splitlines()]
    if known:
        from conkeeper.storage.agent_edits import line_key

        lines = [line for line in lines if line_key(line) not in known]
    return "\n".join(line for line in lines if " ".join(line.split()) not in old)


def _instruction_file_warning(ctx: HookContext, target: str, root: str) -> str | None:
    """A note for the user when the agent wrote instruction-shaped text into a file agents
    read as standing instructions (``CLAUDE.md``, ``AGENTS.md``, ``.cursorrules``...): the
    host, not ConKeeper, loads that file into every later session, so it cannot be held back;
    the user hears of it at once, the file named from the project ``root``. Phrase rules only
    (as for memory files); never echoed."""
    from conkeeper.domain.paths import is_agent_instruction_file

    if not target or not is_agent_instruction_file(target):
        return None
    written = _written_text(ctx.payload.tool_input)
    from conkeeper.domain.instructions import rule_findings

    found = rule_findings(written) if written else []
    reason = found[0].reason if found else _import_reason(written)
    if reason is None:
        return None
    name = target[len(root) :] if target.startswith(root) else target.rsplit("/", 1)[-1]
    return _instruction_file_notice(ctx, name, reason)


def _import_reason(written: str) -> str | None:
    """The notice's reason when ``written`` (what the agent added to an agent instruction
    file) imports another file with ``@path``: that file's text is loaded with it, unread by
    any check here (an order the agent put in ``docs/x.md``, a memory file whose held lines
    SessionStart leaves out); ``None`` when it imports none."""
    if "@" not in written:
        return None
    from conkeeper.domain.instruction_imports import imported_paths

    paths = imported_paths(written)
    if not paths:
        return None
    from conkeeper.domain.privacy import clean_or_empty

    return (
        f"an import, @{clean_or_empty(paths[0])}: the host loads that file's text with it as "
        "instructions, text nothing here has checked"
    )


def _shell_instruction_warning(ctx: HookContext) -> str | None:
    """The instruction-file notice for a shell command (``echo ... >> CLAUDE.md``, a heredoc,
    ``tee``, ``sed -i``, a download into ``AGENTS.md``): the command's own text is judged as
    what it wrote (phrase rules only, never echoed); a download into such a file is reported
    whatever it holds, since its text is not in the command."""
    command = ctx.payload.tool_input.get("command")
    if not isinstance(command, str) or ctx.location is None:
        return None
    if _REVIEW_DIR in command and _names_review_dir(command):
        return _review_records_notice(ctx)
    if "conkeeper" in command:
        from conkeeper.domain.users_acts import users_act

        if users_act(command) is not None:
            return _approval_notice(ctx)
    from conkeeper.domain.paths import mentions_agent_instruction_file

    if not mentions_agent_instruction_file(command):
        return None
    from conkeeper.domain.shell_targets import instruction_file_written

    target = instruction_file_written(command)
    if target is None:
        return None
    if target.downloaded:
        reason = "downloaded from outside the project"
    else:
        from conkeeper.domain.instructions import rule_findings

        found = rule_findings(command)
        imported = None if found else _import_reason(command)
        if not found and imported is None:
            return None
        reason = found[0].reason if found else str(imported)
    root = f"{ctx.location.root}/"
    name = target.path[len(root) :] if target.path.startswith(root) else target.path
    return _instruction_file_notice(ctx, name, reason)


_REVIEW_DIR = ".review"  # storage.agent_edits.REVIEW_DIR (not imported: the hook path)


def _approval_notice(ctx: HookContext) -> str:
    """A note for the user when the agent's shell ran an approval anyway (a host without a
    pre-tool hook, or one that ran the command despite the refusal): releasing held text is the
    user's act, which ``review approve`` refuses under an agent, but the agent's shell can
    unset the variable that says so (``env -u CLAUDECODE``), so the user hears of it at once."""
    from conkeeper.storage.logfile import log

    log("hook PostToolUse: the agent ran a conkeeper approval from its shell", env=ctx.env)
    return (
        "ConKeeper: the agent ran `conkeeper review approve` or `reflect approve` from its "
        "shell. Approving held text is yours to do: check `conkeeper history` and "
        "`conkeeper review`, and undo what you did not mean to keep."
    )


def _names_review_dir(command: str) -> bool:
    """True when ``command`` names a ``.review`` folder (not ``.reviewrc``, ``.reviewers``)."""
    index = command.find(_REVIEW_DIR)
    while index >= 0:
        after = command[index + len(_REVIEW_DIR) : index + len(_REVIEW_DIR) + 1]
        if not after or not (after.isalnum() or after in "_-."):
            return True
        index = command.find(_REVIEW_DIR, index + 1)
    return False


def _review_records_notice(ctx: HookContext) -> str:
    """A note for the user when the agent's tool touched ConKeeper's review records
    (``.review/`` in a memory folder: what is held, what the user kept): removing or editing
    them would release what SessionStart holds back, so the user hears of it at once."""
    from conkeeper.storage.logfile import log

    log("hook PostToolUse: the agent touched the review records (.review/)", env=ctx.env)
    return (
        "ConKeeper: the agent's last tool touched ConKeeper's review records (.review/ in a "
        "memory folder). Lines held for your review may have been released into the next "
        "sessions: check `conkeeper review` and the memory files."
    )


def _instruction_file_notice(ctx: HookContext, name: str, reason: str) -> str:
    """Log and word the notice that ``name`` (an agent-instruction file, as the agent's tool
    input spelled it, so cleaned by the privacy module first) now holds what ``reason`` says."""
    from conkeeper.domain.privacy import clean_or_empty
    from conkeeper.storage.logfile import log

    name = str(clean_or_empty(name)) or "an agent instruction file"

    log(f"hook PostToolUse: instruction-shaped text written to {name}", env=ctx.env)
    return (
        f"ConKeeper: the agent wrote text that reads like an instruction into {name} "
        f"({reason}). Your agent reads that file at the start of every session: check "
        "the change before the next one."
    )


def _keep_cut_token(ctx: HookContext, kind: str | None) -> None:
    """Tell the session's next output that this one cut a token off at its end (its kind
    only: the rest, at the start of the next output, is then hidden there)."""
    if kind is not None:
        ctx.state.update(lambda data: data.__setitem__("cut_token", kind))


def _capture(
    ctx: HookContext, prompt_number: int, duration: int | None, when: float, cut: str | None
) -> None:
    from conkeeper.services.capture import events as capture

    payload = ctx.payload
    outcome: tuple[str, CleanText | None, int | None]
    if ctx.event == "PostToolUseFailure":
        output: Any = capture.continue_cut_token(cut, payload.error)
        outcome = capture.outcome_from_failure(output, payload.is_interrupt)
    else:
        output = capture.continue_cut_token(cut, payload.tool_response)
        outcome = capture.outcome_from_response(output)
    _keep_cut_token(ctx, capture.token_cut_at_end(output))
    outcome = capture.piped_test_outcome(payload.tool_input, outcome, output)
    event = capture.build_event(
        tool_name=payload.tool_name,
        tool_input=payload.tool_input,
        tool_use_id=payload.tool_use_id,
        outcome=outcome,
        root=ctx.location.root if ctx.location else None,
        duration_ms=duration,
        now=when,
    )
    record_event(ctx, prompt_number, event, when)


def record_event(ctx: HookContext, prompt_number: int, event: Any, when: float) -> None:
    """Store a captured tool event and append its observation line, each guarded on its own:
    a row the database would not take is kept for the next hook, and the line is still
    written (spec §5: no line lost). A re-delivered event (its row already there) adds
    nothing. The post-tool hook and the Stop hook's record of a host's unhooked edits
    (Codex's ``apply_patch``) both record through here."""
    from conkeeper.services.capture import events as capture

    new = True
    try:
        new = capture.store_event(ctx.store(), ctx.session_id(), prompt_number, event)
    except Exception:
        from conkeeper.storage import journal
        from conkeeper.storage.logfile import log_exception

        log_exception(f"hook {ctx.event}: could not store tool event", env=ctx.env)
        ctx.keep_for_later(journal.TOOL_EVENT, capture.event_row(prompt_number, event))
    if not new:  # a re-delivered payload: already logged once
        return
    line = capture.format_log_line(event, ctx.config.observation_detail)
    if line is None or not ctx.memory_dir_exists or ctx.location is None:
        return
    try:
        capture.append_observation(ctx.location.memory_dir, line, when)
    except Exception:
        from conkeeper.storage.logfile import log_exception

        log_exception(f"hook {ctx.event}: could not append to the observation log", env=ctx.env)
