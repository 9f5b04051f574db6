"""The default extractor: deterministic rules that turn captured tool events into observations.

No network, no model, same output for the same input (so re-running it is idempotent through
the content hash). It reads a session the way a reviewer skims a terminal log:

* routine reads, ``git status``/``diff``/``log``, ``ls``, successful installs: skipped;
* a failing test/build/lint/command, then edits, then the same kind of run passing: one
  ``bugfix`` carrying the error, the edited files and the passing command;
* files written without having been seen before: a ``feature``; edits of existing files are
  grouped by relatedness (same folder, ``x.py`` with ``test_x.py``) into a few observations
  whose type follows the user's request (fix, refactor, decide, build);
* ``mv`` / ``git mv``: a ``refactor``; a commit's message becomes a fact of the work it
  commits (or an observation of its own when nothing else covers it);
* searches and reads that preceded edits, or a read-only investigation: a ``discovery``;
* a failure never followed by a passing run: a ``discovery`` naming what is still broken.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from conkeeper.domain.observations import (
    Observation,
    Summary,
    ToolEvent,
    Turn,
    clamp_chars,
    normalize_observation,
    one_line,
    unique,
)
from conkeeper.domain.test_summary import covers
from conkeeper.services.observations.commands import (
    Command,
    classify_command,
    commit_message,
    move_pairs,
)

NAME = "local"
CHECK_KINDS = ("test", "build", "lint", "run", "install")
MAX_GROUPS_PER_TURN = 3
MIN_READS_FOR_INVESTIGATION = 3

_KEYWORDS: dict[str, tuple[str, ...]] = {
    "bugfix": ("fix", "bug", "broken", "error", "crash", "fail", "regression", "wrong", "issue"),
    "refactor": (
        "refactor", "rename", "move", "extract", "split", "clean up", "cleanup", "simplify",
        "reorganize", "reorganise", "dedupe", "restructure", "tidy",
    ),
    "decision": (
        "decide", "decision", "adr", "switch to", "instead of", "choose", "go with", "adopt",
        "trade-off", "tradeoff",
    ),
}  # fmt: skip
_CONCEPT_HINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("testing", ("test", "spec", "pytest", "jest", "fixture")),
    ("authentication", ("auth", "login", "jwt", "oauth", "password", "credential")),
    ("database", ("db", "sql", "sqlite", "migration", "schema", "postgres", "query")),
    ("api", ("api", "endpoint", "route", "http", "request", "handler", "rest")),
    ("configuration", ("config", "settings", ".toml", ".ini", ".yaml", ".yml", ".env")),
    ("cli", ("cli", "command", "argparse", "click")),
    ("documentation", ("readme", "docs/", ".md", "changelog", "doc")),
    ("ui", ("ui", "css", "html", "component", ".tsx", ".jsx", "view", "template")),
    ("performance", ("perf", "bench", "cache", "speed", "slow", "optimi")),
    ("security", ("secur", "secret", "privacy", "permission", "sanitiz", "escape")),
    ("build", ("build", "ci", "workflow", "docker", "makefile", "pyproject", "package.json")),
    ("dependencies", ("requirements", "dependency", "dependencies", "lock", "install")),
    ("error-handling", ("error", "exception", "retry", "fallback", "timeout")),
    ("logging", ("log", "logger", "logging")),
    ("search", ("search", "index", "fts")),
    ("parsing", ("parse", "parser", "lexer", "tokeniz", "format")),
)
_WORD_RE = re.compile(r"[a-z0-9]+")
_CAMEL_RE = re.compile(r"([a-z0-9])([A-Z])")
_EXIT_PREFIX_RE = re.compile(r"^\s*exit code:?\s*-?\d+:?\s*", re.IGNORECASE)
_RULE_RE = re.compile(r"[=_*#-]{4,}")
_ERRORISH_RE = re.compile(
    r"(?:\w*(?:Error|Exception)\b|error\b|FAILED|FAIL\b|undefined|[Cc]annot|not found|"
    r"No such|panic|Traceback|fatal)"
)
_SUMMARY_HEADS = ("test result: ",)  # libtest's (cargo test) closing line
_TEST_NAME_RE = re.compile(r"^(test_)?(.+?)(_test|\.test|\.spec|_spec|test)?$")


@dataclass
class _Failure:
    command: Command
    event: ToolEvent
    prompt_number: int
    attempts: int = 1
    edits: list[str] = field(default_factory=list)
    edit_ids: set[int] = field(default_factory=set)
    # each edit since the failure with the prompt it was made in, and the prompts that ran
    # the failing check (the failure's own, and those that ran it again)
    made: list[tuple[int, int, list[str]]] = field(default_factory=list)
    checked_in: set[int] = field(default_factory=set)
    # the last failing run and its prompt: what is still failing, when nothing passed since
    last: tuple[ToolEvent, int] | None = None

    def fixed_in(self, prompt_number: int) -> None:
        """Keep as the fix's edits those of the prompts that worked on the failure: the one it
        failed in, those that ran the check again and ``prompt_number``, where it passed. A
        prompt in between that asked for something else ("now update the README") did its
        own work; its edits count only when the working prompts made none."""
        working = self.checked_in | {prompt_number}
        kept = [m for m in self.made if m[0] in working] or self.made
        self.edits = [path for _, _, paths in kept for path in paths]
        self.edit_ids = {edit_id for _, edit_id, _ in kept}


@dataclass
class _SessionScan:
    """What one pass over a session found, before it becomes observations."""

    bugfixes: list[tuple[_Failure, ToolEvent, int]] = field(default_factory=list)
    unresolved: list[_Failure] = field(default_factory=list)
    consumed_edits: set[int] = field(default_factory=set)
    seen_paths: set[str] = field(default_factory=set)
    new_files: set[str] = field(default_factory=set)


def extract_observations(turns: Sequence[Turn], root: str | None = None) -> list[Observation]:
    """Observations for a session's turns, in prompt order, normalised and de-duplicated."""
    scan = _scan(turns)
    produced: list[Observation] = []
    for failure, passed, prompt_number in scan.bugfixes:
        prompts = (_prompt_of(turns, failure.prompt_number), _prompt_of(turns, prompt_number))
        produced.append(_bugfix(failure, passed, prompt_number, prompts))
    for turn in turns:
        produced.extend(_turn_observations(turn, scan))
    for failure in scan.unresolved:
        produced.append(_unresolved(failure, turns))
    _attach_commits(turns, produced)
    result: list[Observation] = []
    seen: set[tuple[str, str]] = set()
    for obs in sorted(produced, key=lambda o: o.prompt_number):
        clean = normalize_observation(obs, root)
        if clean is not None and (clean.type, clean.title) not in seen:
            seen.add((clean.type, clean.title))
            result.append(clean)
    return result


# --------------------------------------------------------------------------- session scan


def _command(event: ToolEvent) -> Command | None:
    if event.action != "execute" or not event.input_summary:
        return None
    return classify_command(event.input_summary)


def _scan(turns: Sequence[Turn]) -> _SessionScan:
    scan = _SessionScan()
    open_failures: dict[str, _Failure] = {}
    for turn in turns:
        for event in turn.events:
            if event.action == "write":
                _note_write(event, turn.prompt_number, scan, open_failures)
            elif event.action == "read":
                scan.seen_paths.update(event.paths)
            command = _command(event)
            if command is None or command.kind not in CHECK_KINDS or event.status == "interrupted":
                continue
            _note_check(command, event, turn.prompt_number, scan, open_failures)
    scan.unresolved = [f for f in open_failures.values() if f.command.kind != "install"]
    return scan


def _note_write(
    event: ToolEvent, prompt_number: int, scan: _SessionScan, open_failures: dict[str, _Failure]
) -> None:
    for path in event.paths:
        if event.tool_name in ("Write", "create_file") and path not in scan.seen_paths:
            scan.new_files.add(path)
        scan.seen_paths.add(path)
    if event.status != "success":
        return
    for failure in open_failures.values():
        failure.edits.extend(event.paths)
        failure.edit_ids.add(event.id)
        failure.made.append((prompt_number, event.id, list(event.paths)))


def _note_check(
    command: Command,
    event: ToolEvent,
    prompt_number: int,
    scan: _SessionScan,
    open_failures: dict[str, _Failure],
) -> None:
    key = command.key
    failure = open_failures.get(key)
    if event.failed:
        if failure is None:
            failure = open_failures[key] = _Failure(command, event, prompt_number)
        else:
            failure.attempts += 1
            failure.last = (event, prompt_number)
        failure.checked_in.add(prompt_number)
        return
    if failure is None or not covers(_test_args(command), _test_args(failure.command)):
        return  # a pass of other tests (`pytest -k other`) tells nothing of this failure
    del open_failures[key]
    failure.fixed_in(prompt_number)
    if failure.edits:
        scan.bugfixes.append((failure, event, prompt_number))
        scan.consumed_edits.update(failure.edit_ids)


def _test_args(command: Command) -> list[str]:
    """The arguments of a check after its runner (`pytest`, `go test`, `npm test`)."""
    words = list(command.argv)
    return words[2:] if words and words[0] in _SUBCOMMAND_RUNNERS else words[1:]


_SUBCOMMAND_RUNNERS = frozenset(["go", "cargo", "dotnet", "swift", "mix", "deno", "npm", "yarn"])
_SUBCOMMAND_RUNNERS |= {"pnpm", "bun", "make"}


# --------------------------------------------------------------------------- observations


def _prompt_of(turns: Sequence[Turn], prompt_number: int) -> str:
    for turn in turns:
        if turn.prompt_number == prompt_number:
            return turn.prompt or ""
    return ""


def _excerpt(text: str, words: int = 14) -> str:
    parts = one_line(text).split(" ")
    short = " ".join(parts[:words])
    return short + ("…" if len(parts) > words else "")


def _short_command(text: str, limit: int = 90) -> str:
    return clamp_chars(one_line(text), limit)


def _names(paths: Sequence[str], limit: int = 3) -> str:
    names = unique(PurePosixPath(p).name or p for p in paths)
    if len(names) <= limit:
        if len(names) == 1:
            return names[0]
        return ", ".join(names[:-1]) + " and " + names[-1]
    return f"{len(names)} files in {_common_dir(paths) or 'the project'}"


def _common_dir(paths: Sequence[str]) -> str:
    parents = [PurePosixPath(p).parent.parts for p in paths]
    if not parents:
        return ""
    common: list[str] = []
    for parts in zip(*parents, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return "/".join(common)


def _title(verb: str, paths: Sequence[str]) -> str:
    names = _names(paths)
    if len(unique(paths)) == 1:
        parent = str(PurePosixPath(paths[0]).parent)
        return f"{verb} {names} in {parent}" if parent not in ("", ".") else f"{verb} {names} file"
    return f"{verb} {names}"


def _concepts(*texts: Iterable[str] | str) -> list[str]:
    blob = " ".join(t if isinstance(t, str) else " ".join(t) for t in texts).lower()
    words = set(_WORD_RE.findall(_CAMEL_RE.sub(r"\1 \2", blob)))

    def hit(hint: str) -> bool:
        if not hint.isalnum():
            return hint in blob
        return any(w.startswith(hint) for w in words)

    found = [name for name, hints in _CONCEPT_HINTS if any(hit(h) for h in hints)]
    return found[:5] or ["code-change"]


def _error_line(event: ToolEvent) -> str:
    """The informative part of a captured failure message (an error-looking fragment first;
    a runner's own summary, cargo's ``test result: FAILED. ...``, whole)."""
    text = _RULE_RE.sub(" ", one_line(_EXIT_PREFIX_RE.sub("", event.error or "")))
    text = one_line(text)
    found = _ERRORISH_RE.search(text)
    if found and found.start() > 0 and not text.startswith(_SUMMARY_HEADS):
        text = text[found.start() :]
    if not text:
        code = event.exit_code
        return f"exit code {code}" if code not in (None, 0) else event.status
    return clamp_chars(text, 110)


def _bugfix(
    failure: _Failure, passed: ToolEvent, prompt_number: int, prompts: tuple[str, str]
) -> Observation:
    """A failure fixed by edits: the observation belongs to the prompt the fix passed in; each
    event is tied to the prompt during which it happened (``prompts``: the failure's prompt
    text and the fix's)."""
    runner = failure.command.key.split(":", 1)[-1]
    files = unique(failure.edits)
    what = {"test": "tests", "build": "build", "lint": "lint check"}.get(failure.command.kind)
    label = f"{runner} {what}" if what else f"`{_short_command(runner, 30)}`"
    title = f"Fix failing {label} in {_names(files, 2)}"
    failed_in, fixed_in = failure.prompt_number, prompt_number
    facts = [
        f"`{_short_command(failure.event.input_summary)}` failed: {_error_line(failure.event)}"
        + (f" (prompt {failed_in})" if failed_in != fixed_in else ""),
        f"Fix edited {', '.join(files[:6])}" + (" and more" if len(files) > 6 else ""),
        f"`{_short_command(passed.input_summary)}` passed after the fix"
        + (f" (prompt {fixed_in})" if failed_in != fixed_in else ""),
    ]
    if failure.attempts > 1:
        facts.append(f"{failure.attempts} failing runs of {runner} before it passed")
    failure_prompt, fix_prompt = prompts
    narrative = f'While working on "{_excerpt(failure_prompt)}", {facts[0]}. '
    if failed_in != fixed_in:
        narrative += (
            f'Then, during prompt {fixed_in} ("{_excerpt(fix_prompt)}"), the fix changed '
            f"{', '.join(files)}, and {facts[2]}."
        )
    else:
        narrative += f"The fix changed {', '.join(files)}, and {facts[2]}."
    return Observation(
        type="bugfix",
        title=title,
        subtitle=f"{label} failed with {_error_line(failure.event)}; fixed in {_names(files)}",
        facts=facts,
        narrative=narrative,
        concepts=_concepts(files, failure.event.error or "", "fix", fix_prompt),
        files=files,
        prompt_number=prompt_number,
    )


def _unresolved_title(kind: str, runner: str) -> str:
    """``Unresolved test failure: pytest``; a plain command (kind ``run``) is not named twice:
    ``Unresolved failure: curl -s``."""
    return f"Unresolved {'' if kind == 'run' else kind + ' '}failure: {runner}"


def _unresolved(failure: _Failure, turns: Sequence[Turn]) -> Observation:
    """A failure no later run passed: told by its last failing run, in that run's prompt (an
    earlier run may have failed on tests fixed since: `cargo test` failing on two tests, one
    fixed, then failing on the other)."""
    event, prompt_number = failure.last or (failure.event, failure.prompt_number)
    prompt = _prompt_of(turns, prompt_number)
    runner = failure.command.key.split(":", 1)[-1]
    facts = [
        f"`{_short_command(event.input_summary)}` failed: {_error_line(event)}",
        f"No later passing run of {runner} was recorded in this session",
    ]
    if failure.edits:
        facts.append(f"Edits attempted after the failure: {', '.join(unique(failure.edits)[:6])}")
    return Observation(
        type="discovery",
        title=_unresolved_title(failure.command.kind, _short_command(runner, 30)),
        subtitle=f"{_error_line(event)} — still failing at the end of the session",
        facts=facts,
        narrative=f'While working on "{_excerpt(prompt)}", ' + "; ".join(facts) + ".",
        concepts=_concepts(event.error or "", failure.edits, "error"),
        files=unique(failure.edits),
        prompt_number=prompt_number,
    )


def _turn_observations(turn: Turn, scan: _SessionScan) -> list[Observation]:
    out: list[Observation] = []
    moves = _moves(turn)
    if moves:
        out.append(moves)
    writes = [
        e
        for e in turn.events
        if e.action == "write" and e.status == "success" and e.id not in scan.consumed_edits
    ]
    edited = unique(p for e in writes for p in e.paths)
    for group in _group_related(edited):
        out.append(_edit_group(group, turn, scan))
    all_edits = unique(
        p for e in turn.events if e.action == "write" and e.status == "success" for p in e.paths
    )
    discovery = _discovery(turn, all_edits)
    if discovery:
        out.append(discovery)
    return out


def _moves(turn: Turn) -> Observation | None:
    pairs: list[tuple[str, str]] = []
    for event in turn.events:
        command = _command(event)
        if command is not None and command.kind == "move" and not event.failed:
            pairs.extend(move_pairs(event.input_summary))
    if not pairs:
        return None
    facts = [f"{src} moved to {dst}" for src, dst in pairs[:7]]
    if len(pairs) == 1:
        src, dst = pairs[0]
        same_dir = PurePosixPath(src).parent == PurePosixPath(dst).parent
        verb = "Rename" if same_dir else "Move"
        target = PurePosixPath(dst).name if same_dir else dst
        title = f"{verb} {PurePosixPath(src).name} to {target}"
    else:
        title = f"Move {len(pairs)} files to {_common_dir([d for _, d in pairs]) or 'new paths'}"
    return Observation(
        type="refactor",
        title=title,
        subtitle=f"Moved {plural(len(pairs), 'file')}: " + ", ".join(facts[:2]),
        facts=facts,
        narrative=f'For "{_excerpt(turn.prompt or "")}": ' + "; ".join(facts) + ".",
        concepts=["refactoring", *_concepts([d for _, d in pairs])][:5],
        files=unique([p for pair in pairs for p in pair]),
        prompt_number=turn.prompt_number,
    )


def _stem_key(path: str) -> str:
    stem = PurePosixPath(path).stem.lower()
    match = _TEST_NAME_RE.match(stem)
    return match.group(2) if match else stem


def _group_related(paths: Sequence[str]) -> list[list[str]]:
    """Group files that belong together: same folder, or a module and its test."""
    parent: dict[str, str] = {p: p for p in paths}

    def find(p: str) -> str:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    by_key: dict[tuple[str, str], str] = {}
    for path in paths:
        for key in (("dir", str(PurePosixPath(path).parent)), ("stem", _stem_key(path))):
            if key in by_key:
                parent[find(path)] = find(by_key[key])
            else:
                by_key[key] = path
    groups: dict[str, list[str]] = {}
    for path in paths:
        groups.setdefault(find(path), []).append(path)
    ordered = sorted(groups.values(), key=len, reverse=True)
    if len(ordered) > MAX_GROUPS_PER_TURN:
        head = ordered[: MAX_GROUPS_PER_TURN - 1]
        tail = [p for g in ordered[MAX_GROUPS_PER_TURN - 1 :] for p in g]
        ordered = [*head, tail]
    return ordered


def _intent(prompt: str, files: Sequence[str]) -> str | None:
    text = prompt.lower()
    if any("decisions/" in f or PurePosixPath(f).name.upper().startswith("ADR") for f in files):
        return "decision"
    for kind in ("decision", "refactor", "bugfix"):
        if any(re.search(rf"\b{re.escape(word)}", text) for word in _KEYWORDS[kind]):
            return kind
    return None


def _edit_group(group: list[str], turn: Turn, scan: _SessionScan) -> Observation:
    prompt = turn.prompt or ""
    created = [p for p in group if p in scan.new_files]
    changed = [p for p in group if p not in scan.new_files]
    intent = _intent(prompt, group)
    if intent is None:
        kind, verb = "feature", "Add" if len(created) >= len(changed) else "Update"
    else:
        kind = intent
        verb = {"decision": "Record decision in", "refactor": "Refactor", "bugfix": "Fix"}[intent]
    facts = []
    if created:
        facts.append(f"Created {_listing(created)}")
    if changed:
        facts.append(f"Edited {_listing(changed)}")
    facts.append(f"Request: {_excerpt(prompt, 20)}" if prompt else "Request text was not captured")
    summary = ("Created " + _listing(created, 3) if created else "") + (
        (" and " if created and changed else "")
        + ("edited " + _listing(changed, 3) if changed else "")
    )
    return Observation(
        type=kind,
        title=_title(verb, group),
        subtitle=f"{summary[:1].upper()}{summary[1:]}",
        facts=facts,
        narrative=f'Prompt {turn.prompt_number} ("{_excerpt(prompt, 40)}") '
        + "; ".join(f[0].lower() + f[1:] for f in facts[:-1])
        + ".",
        concepts=_concepts(group, prompt),
        files=group,
        prompt_number=turn.prompt_number,
    )


def plural(count: int, one: str, many: str = "") -> str:
    """``1 file``, ``2 files``, ``1 search``, ``3 searches``: a count a person would write."""
    if count == 1:
        return f"1 {one}"
    return f"{count} {many or (one + 'es' if one.endswith(('s', 'sh', 'ch', 'x')) else one + 's')}"


def _explored(reads: int, searches: int, edited: Sequence[str] = ()) -> str:
    """``Ran 1 search and read 2 files before editing token.py`` (no prompt text: the request
    is in the facts and the narrative, quoted, never in a title line)."""
    parts = [
        f"ran {plural(searches, 'search')}" if searches else "",
        f"read {plural(reads, 'file')}" if reads else "",
    ]
    done = " and ".join(p for p in parts if p)
    text = done[:1].upper() + done[1:]
    return f"{text} before editing {_names(edited, 2)}" if edited else text


def _listing(paths: Sequence[str], limit: int = 6) -> str:
    more = f" and {len(paths) - limit} more" if len(paths) > limit else ""
    return ", ".join(paths[:limit]) + more


def _explorations(turn: Turn, edited: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(searches, files read but not edited)`` of a turn's successful tool uses."""
    searches: list[str] = []
    reads: list[str] = []
    for event in turn.events:
        if event.status != "success":
            continue
        if event.action in ("search", "web") and event.input_summary:
            searches.append(one_line(event.input_summary))
        elif event.action == "read":
            reads.extend(p for p in event.paths if p not in edited)
    return unique(searches), unique(reads)


def _context_for_edits(
    searches: Sequence[str], reads: Sequence[str], edited: Sequence[str]
) -> tuple[list[str], str] | None:
    """Facts and title of the exploration that led to a turn's edits (None when too little)."""
    if not searches and len(reads) < 2:
        return None
    facts = [
        f"Search for '{_short_command(s, 60)}' led to edits in {_names(edited)}"
        for s in searches[:3]
    ]
    if reads:
        facts.append(f"Read {_listing(reads)} before changing {_names(edited)}")
    if searches:
        return facts, f"Trace '{_short_command(searches[0], 30)}' to {_names(edited, 2)}"
    return facts, f"Context for changes to {_names(edited, 2)}"


def _investigation(
    searches: Sequence[str], reads: Sequence[str], prompt: str
) -> tuple[list[str], str] | None:
    """Facts and title of a turn that only explored (None when too little)."""
    if len(reads) < MIN_READS_FOR_INVESTIGATION and not (searches and reads):
        return None
    facts = [f"Searched for '{_short_command(s, 60)}'" for s in searches[:3]]
    if reads:
        facts.append(f"Read {', '.join(reads[:6])}" + (" and more" if len(reads) > 6 else ""))
    topic = _excerpt(prompt, 6).rstrip("…")
    return facts, f"Investigate: {topic[:1].lower()}{topic[1:]}" if prompt else "Investigate code"


def _discovery(turn: Turn, edited: Sequence[str]) -> Observation | None:
    searches, reads = _explorations(turn, edited)
    prompt = turn.prompt or ""
    if edited:
        found = _context_for_edits(searches, reads, edited)
    else:
        found = _investigation(searches, reads, prompt)
    if found is None:
        return None
    facts, title = found
    return Observation(
        type="discovery",
        title=title,
        subtitle=_explored(len(reads), len(searches), edited),
        facts=facts,
        narrative=f'For "{_excerpt(prompt, 40)}": ' + "; ".join(facts) + ".",
        concepts=_concepts(reads, searches, prompt),
        files=reads[:20],
        prompt_number=turn.prompt_number,
    )


# --------------------------------------------------------------------------- commits


def _commits(turns: Sequence[Turn]) -> list[tuple[int, str, list[str]]]:
    """``(prompt_number, message, files edited since the previous commit)`` per commit."""
    out: list[tuple[int, str, list[str]]] = []
    pending: list[str] = []
    for turn in turns:
        for event in turn.events:
            if event.action == "write" and event.status == "success":
                pending.extend(event.paths)
            command = _command(event)
            if command is None or command.kind != "commit" or event.failed:
                continue
            message = commit_message(event.input_summary) or "(message not captured)"
            out.append((turn.prompt_number, message, unique(pending)))
            pending = []
    return out


def _commit_type(message: str) -> str:
    head = message.lower()
    if re.match(r"(fix|bug|hotfix)\b", head) or "fix" in head.split(":")[0]:
        return "bugfix"
    if re.match(r"(refactor|rename|move|cleanup|chore)\b", head):
        return "refactor"
    if re.match(r"(docs?|adr|decide|decision)\b", head):
        return "decision"
    return "feature"


def _attach_commits(turns: Sequence[Turn], produced: list[Observation]) -> None:
    for prompt_number, message, files in _commits(turns):
        subject = one_line(message.splitlines()[0] if message else message)
        fact = f"Committed with message: {clamp_chars(subject, 120)}"
        targets = [
            o
            for o in produced
            if o.type != "discovery"
            and o.prompt_number <= prompt_number
            and (set(o.files) & set(files) or (not files and o.prompt_number == prompt_number))
        ]
        for obs in targets:
            if fact not in obs.facts:
                obs.facts.append(fact)
        if targets:
            continue
        words = subject.split()
        title = subject if len(words) >= 3 else f"Commit: {subject} changes"
        produced.append(
            Observation(
                type=_commit_type(subject),
                title=title,
                subtitle=clamp_chars(subject, 200),
                facts=[fact, *(f"Committed file {f}" for f in files[:5])],
                narrative=f"Commit message: {one_line(message)}",
                concepts=_concepts(files, message),
                files=files,
                prompt_number=prompt_number,
            )
        )


# --------------------------------------------------------------------------- summary


def summarize_session(turns: Sequence[Turn], observations: Sequence[Observation]) -> Summary:
    """A session summary in the seed's fields, from the turns and their observations."""
    prompts = [t.prompt for t in turns if t.prompt]
    events = [e for t in turns for e in t.events]
    reads = unique(p for e in events if e.action == "read" for p in e.paths)
    return Summary(
        request=_request(prompts),
        investigated=_investigated(reads, _searches(events), _checks_run(events)),
        learned=_learned(observations),
        completed="; ".join(o.title for o in observations if o.type != "discovery")
        or "No changes were recorded.",
        next_steps=_next_steps(observations, turns),
        files_read=reads,
        files_edited=_edited(events),
        notes=_notes(turns, events),
    )


def _edited(events: Sequence[ToolEvent]) -> list[str]:
    """Files written or moved into place by successful tool uses, first seen first."""
    edited = unique(p for e in events if e.action == "write" and not e.failed for p in e.paths)
    for event in events:
        command = _command(event)
        if command is not None and command.kind == "move" and not event.failed:
            edited.extend(d for _, d in move_pairs(event.input_summary) if d not in edited)
    return edited


def _searches(events: Sequence[ToolEvent]) -> list[str]:
    """What successful code and web searches looked for."""
    return unique(
        one_line(e.input_summary)
        for e in events
        if e.action in ("search", "web") and e.status == "success"
    )


def _checks_run(events: Sequence[ToolEvent]) -> list[str]:
    """The test, build and lint commands run, shortened."""
    return unique(
        _short_command(c.text, 50)
        for c in (_command(e) for e in events)
        if c is not None and c.kind in ("test", "build", "lint")
    )


def _request(prompts: Sequence[str]) -> str:
    if not prompts:
        return "The request text was not captured (private or missing)."
    first = clamp_chars(one_line(prompts[0]), 400)
    rest = [_excerpt(p, 12) for p in prompts[1:4]]
    if rest:
        more = f" (+{len(prompts) - 4} more)" if len(prompts) > 4 else ""
        stop = "" if first.endswith((".", "!", "?", "…")) else "."
        return f"{first}{stop} Follow-ups: " + "; ".join(f'"{r}"' for r in rest) + more
    return first


def _investigated(reads: Sequence[str], searches: Sequence[str], runs: Sequence[str]) -> str:
    parts = []
    if reads:
        shown = ", ".join(reads[:8]) + (f" and {len(reads) - 8} more" if len(reads) > 8 else "")
        parts.append(f"Read {plural(len(reads), 'file')} ({shown})")
    if searches:
        quoted = ", ".join(f"'{_short_command(s, 50)}'" for s in searches[:5])
        parts.append(f"searched for {quoted}")
    if runs:
        parts.append("ran " + ", ".join(runs[:5]))
    return "; ".join(parts) or "Nothing was explored with tools."


def _learned(observations: Sequence[Observation]) -> str:
    items: list[str] = []
    for obs in observations:
        if obs.type in ("bugfix", "discovery") and obs.facts:
            items.append(obs.facts[0])
    return "; ".join(unique(items)[:6]) or "No failures or findings were recorded."


def _next_steps(observations: Sequence[Observation], turns: Sequence[Turn]) -> str:
    steps = [
        f"Resolve: {o.facts[0]}"
        for o in observations
        if o.title.startswith("Unresolved") and o.facts
    ]
    commits = _commits(turns)
    last_commit_prompt = commits[-1][0] if commits else None
    uncommitted = unique(
        p
        for t in turns
        for e in t.events
        if e.action == "write"
        and not e.failed
        and (last_commit_prompt is None or t.prompt_number > last_commit_prompt)
        for p in e.paths
    )
    if commits and uncommitted:
        steps.append(f"Commit the later edits to {_names(uncommitted)}")
    return "; ".join(steps) or "None recorded."


def _notes(turns: Sequence[Turn], events: Sequence[ToolEvent]) -> str:
    failures = sum(1 for e in events if e.failed and e.status != "interrupted")
    commits = sum(
        1 for e in events if (c := _command(e)) is not None and c.kind == "commit" and not e.failed
    )
    private = sum(1 for t in turns if t.prompt is None)
    note = (
        f"{len(events)} tool uses over {len(turns)} prompts; {failures} failed; {commits} commits."
    )
    if private:
        note += f" {private} prompts were private or not captured."
    return note
