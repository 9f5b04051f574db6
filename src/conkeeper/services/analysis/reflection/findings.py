"""What the evidence shows: repeated failures, retry loops on one file, corrections clustered
into themes, friction, slow work and work abandoned while still failing.

Each :class:`Finding` carries its count, its severity, when it was last seen and quotes of the
evidence (the failing command and its first error line, the correction text), so a
recommendation can say why it exists.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from conkeeper.domain.observations import ToolEvent
from conkeeper.domain.test_summary import VALUED_OPTIONS, piped_test_run
from conkeeper.services.analysis.reflection.evidence import Correction, Evidence, Facet
from conkeeper.services.analysis.reflection.themes import cluster, theme_label

REPEATED_FAILURE = "repeated-failure"
RETRY_LOOP = "retry-loop"
CORRECTION_THEME = "correction-theme"
FRICTION = "friction"
SLOW = "slow"
ABANDONED = "abandoned"

SEVERITY = {
    CORRECTION_THEME: 3.0,
    REPEATED_FAILURE: 2.0,
    RETRY_LOOP: 2.0,
    ABANDONED: 2.0,
    FRICTION: 1.5,
    SLOW: 1.0,
}
SLOW_MS = 120_000
QUOTE_CHARS = 160
# `tests/test_x.py::TestX::test_y[params]`: the parameters as pytest printed them, to their
# closing bracket (`[markupsafe._native-%i-3.14-3]`, `[<em>%s</em>-<bad user>]`): each is a
# test of its own; a clipped one (no closing bracket) is named by its function
_TEST_ID = re.compile(r"(?P<id>[\w./-]+\.\w+::[\w./:-]+(?:\[[^\]\n]*\])?)")
_SPACES = re.compile(r"\s+")


@dataclass
class Finding:
    """One pattern in the evidence. ``key`` identifies it across sessions (a command, a test
    id, a file or a theme's words); ``quotes`` are privacy-cleaned evidence lines."""

    kind: str
    key: str
    label: str
    count: int
    last_ms: int
    quotes: list[str]
    files: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    # code the user fixed in a later prompt: (what the corrections said, what it really is)
    fixes: list[tuple[str, str]] = field(default_factory=list)
    # open work only: a later run of the failing command whose outcome nobody could read
    unread: str = ""

    @property
    def severity(self) -> float:
        """How much this kind of finding costs a user (corrections most)."""
        return SEVERITY[self.kind]


def quote(text: str) -> str:
    """One line of evidence, at most :data:`QUOTE_CHARS` characters."""
    flat = " ".join(text.split()).replace("`", "'")
    return flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1].rstrip() + "…"


_EXIT = re.compile(r"^exit code:? ?-?\d+:?\s*", re.IGNORECASE)  # `Exit code 1`, `exit code 101:`


def _first_line(text: str | None) -> str:
    for line in (text or "").splitlines():
        line = _EXIT.sub("", line.strip())
        if line:
            return line
    return ""


def failure_key(event: ToolEvent) -> tuple[str, str]:
    """``(key, label)`` grouping failures of the same thing: a test id named in the error or
    command, else the normalised command, else the tool and its first path."""
    for source in (event.error or "", event.input_summary):
        found = _TEST_ID.search(source)
        if found:
            test = found["id"].rstrip(".:")
            return f"test:{test}", test
    command = _SPACES.sub(" ", event.input_summary.strip())
    if command:
        return f"cmd:{command}", command
    target = event.paths[0] if event.paths else ""
    return f"tool:{event.tool_name}:{target}", f"{event.tool_name} {target}".strip()


def _test_file(key: str) -> list[str]:
    return [key.split(":", 1)[1].split("::", 1)[0]] if key.startswith("test:") else []


def repeated_failures(events: list[tuple[ToolEvent, int]]) -> list[Finding]:
    """The same test or command failing at least twice."""
    groups: dict[str, list[ToolEvent]] = {}
    labels: dict[str, str] = {}
    for event, _ in events:
        if event.failed and event.status != "interrupted":
            key, label = failure_key(event)
            groups.setdefault(key, []).append(event)
            labels[key] = label
    found = []
    for key, failed in groups.items():
        if len(failed) < 2:
            continue
        command = failed[-1].input_summary or failed[-1].tool_name
        error = _first_line(failed[-1].error)
        quotes = [quote(f"{command} → {error}" if error else command)]
        files = sorted({*_test_file(key), *(p for e in failed for p in e.paths)})
        found.append(
            Finding(
                REPEATED_FAILURE,
                key,
                labels[key],
                len(failed),
                failed[-1].created_at,
                quotes,
                files,
            )
        )
    return found


def retry_loops(events: list[tuple[ToolEvent, int]]) -> list[Finding]:
    """Edit → fail cycles on one file: an edit of the file followed by a failing run, twice or
    more. A run names the file (its path, or a failing test in it) or follows its edit."""
    cycles: dict[str, int] = {}
    last_ms: dict[str, int] = {}
    quotes: dict[str, str] = {}
    pending: set[str] = set()
    for event, _ in events:
        if event.action == "write":
            pending.update(event.paths)
            continue
        if event.action != "execute" or event.status == "interrupted":
            continue  # stopped by the user: it says nothing about the edit before it
        if event.failed:
            for path in sorted(pending):
                cycles[path] = cycles.get(path, 0) + 1
                last_ms[path] = event.created_at
                quotes[path] = quote(f"{event.input_summary} → {_first_line(event.error)}")
        pending.clear()
    return [
        Finding(RETRY_LOOP, f"file:{path}", path, n, last_ms[path], [quotes[path]], [path])
        for path, n in cycles.items()
        if n >= 2
    ]


# "the target is `make check`, not `make lint`", "`npm run format` instead of `npm run fmt`"
_SPAN = r"`(?P<{}>[^`\n]+)`"
_CODE_FIX = re.compile(
    _SPAN.format("new")
    + r"[\s,;]*(?:and |but )?(?:not|instead of|rather than)\s+"
    + _SPAN.format("old")
    + r"|(?:not|instead of)\s+"
    + _SPAN.format("old2")
    + r"[\s,;:]+(?:but |it'?s |use |run )*"
    + _SPAN.format("new2"),
    re.IGNORECASE,
)


def code_fixes(prompts: Iterable[str]) -> list[tuple[str, str]]:
    """``(old, new)`` for every piece of code a prompt puts right ("`make check`, not `make
    lint`"), in the order said."""
    found = []
    for text in prompts:
        for m in _CODE_FIX.finditer(text):
            old, new = m["old"] or m["old2"], m["new"] or m["new2"]
            if old.strip() != new.strip():
                found.append((old, new))
    return found


def correction_themes(
    corrections: list[Correction], prompts: Iterable[tuple[int, str]] = ()
) -> list[Finding]:
    """Corrections (and the friction said with them) clustered by theme; friction alone forms
    friction findings. ``prompts`` (time, text): the code a later prompt puts right is kept
    with each theme (:attr:`Finding.fixes`), so its rule says what the user settled on."""
    from conkeeper.services.analysis.reflection.rules import disagreeing, rule_part  # reads f

    found = []
    said = list(prompts)
    texts = [c.text for c in corrections]
    for group in cluster(texts, disagreeing(texts)):
        members = [corrections[i] for i in group]
        label = theme_label(rule_part(m.text) for m in members)
        if not label:
            continue  # "no, use it instead": no word names what it is about, nothing to learn
        kind = CORRECTION_THEME if any(m.label == "correction" for m in members) else FRICTION
        first = min(m.when_ms for m in members)
        quotes = list(dict.fromkeys(quote(m.text) for m in members))[:5]  # said alike: once
        found.append(
            Finding(
                kind,
                f"theme:{label}",
                label,
                len(members),
                max(m.when_ms for m in members),
                quotes,
                texts=[m.text for m in members],
                fixes=code_fixes(text for ms, text in said if ms > first),
            )
        )
    return found


def slow_work(events: list[tuple[ToolEvent, int]]) -> list[Finding]:
    """Tool uses that took :data:`SLOW_MS` or longer, grouped by command."""
    groups: dict[str, list[tuple[ToolEvent, int]]] = {}
    for event, duration in events:
        if duration >= SLOW_MS:
            key, _ = failure_key(event)
            groups.setdefault(key, []).append((event, duration))
    found = []
    for key, items in groups.items():
        total = sum(d for _, d in items) // 1000
        event = items[-1][0]
        label = event.input_summary or event.tool_name
        text = quote(f"{label} took {total} s in {len(items)} run(s)")
        found.append(Finding(SLOW, f"slow:{key}", label, len(items), event.created_at, [text]))
    return found


def _command(event: ToolEvent) -> str:
    return _SPACES.sub(" ", event.input_summary.strip())


def _settled(failed: ToolEvent, key: str, later: list[ToolEvent]) -> bool:
    """Whether a later successful run covers the failed one: the same command line (the last
    run of that command passed, whatever test its failure named) or the same test runs written
    another way (`timeout 300 pytest -q`, `(cd api && pytest -q)`), the same failure key, a
    run of the failing test's file, a passing run of the whole suite by the runner that
    failed, in the same folder (`pytest -q` after `pytest tests/test_cart.py`), or the same
    program line run another way in the same folder (`uv run ruff check .`, `PYTHONPATH=src
    mypy src` after `ruff check .`, `mypy src`)."""
    target = _test_file(key)
    command = _command(failed)
    tests = set(_event_runs(failed))
    for event in later:
        if event.failed or not outcome_known(event):
            continue
        if failure_key(event)[0] == key or (command and _command(event) == command):
            return True
        if command and _same_program(command, _command(event)):
            return True
        if tests and tests == set(_event_runs(event)):
            return True
        if target and target[0] in event.input_summary:
            return True
        if _whole_suite(event) & _runner(failed):
            return True
    return False


# `cd api && PYTHONPATH=src uv run python -m pytest -q`: where a test runner runs, and which
_ENV_SET = re.compile(r"^(?:[A-Za-z_]\w*=\S*\s+)+")
_CD = re.compile(r"^cd\s+(\S+)$")
# what may stand before a runner without changing what it runs: `env X=1`, `time`, `nice -n 5`,
# `timeout -k 5 300`, `nohup`, `command`; a subshell's or a group's brackets; `bash -c '...'`
_WRAPPER = re.compile(
    r"^(?:env(?:\s+-u\s+\S+|\s+-\S+)*|time(?:\s+-p)?|nohup|command|nice(?:\s+-n\s*-?\d+|\s+-\d+)?"
    r"|timeout(?:\s+-\S+(?:\s+\d+[smhd]?)?)*\s+\d+(?:\.\d+)?[smhd]?)\s+"
)
_BRACKETS = re.compile(r"^[({]\s*|\s*;?\s*[)}]$")
_SHELL_C = re.compile(r"(?<![\w/-])(?:ba|z|da)?sh\s+-c\s+(['\"])(?P<inner>[^'\"]*)\1")
_RUNNER = re.compile(
    r"^(?:(?:uv|poetry|pipenv|pdm|hatch)\s+run\s+)?(?:python3?(?:\.\d+)?\s+-m\s+)?"
    r"(?P<tool>pytest|py\.test|tox|nox|(?:npm|pnpm|yarn|bun)(?:\s+run)?\s+test|go\s+test|"
    r"cargo\s+(?:test|nextest\s+run)|make\s+(?:test|check)|jest|vitest(?:\s+run)?)"
    r"(?P<args>(?:\s+\S+)*)$"
)


def _rerun_unread(failed: ToolEvent, events: Iterable[ToolEvent]) -> ToolEvent | None:
    """The last later run of the runner that failed in ``failed`` (same folder) whose outcome
    nobody can read (`pytest -q 2>&1 | tail -3` with no summary line), if any: the last run of
    that command is then neither a pass nor a failure, and "still failing" would be a guess."""
    runner = _runner(failed)
    reruns = [
        e
        for e in events
        if (e.created_at, e.id) > (failed.created_at, failed.id)
        and e.action == "execute"
        and not outcome_known(e)
        and {(folder, tool) for folder, tool, _ in _runs(e.input_summary, piped=True)} & runner
    ]
    return max(reruns, key=lambda e: (e.created_at, e.id), default=None)


def outcome_known(event: ToolEvent) -> bool:
    """Whether ``event`` says whether it passed: not a piped test run whose runner printed no
    summary the capture could read (its exit code was the pipe's last command's, so it is
    neither a pass nor a failure, ``domain.test_summary``)."""
    return event.exit_code is not None or not piped_test_run(event.input_summary)


def _event_runs(event: ToolEvent) -> list[tuple[str, str, str]]:
    """The test runs of ``event``'s command; a piped one counts when its outcome was read
    from the runner's summary (the capture then stored the runner's exit code)."""
    return _runs(event.input_summary, piped=event.exit_code is not None)


# `2>&1`, `2>/dev/null` before a pipe: they change nothing about what runs
_REDIRECTS = re.compile(r"\s+\d?>&\d|\s+\d?>\s*/dev/null")


def _runs(command: str, *, piped: bool = False) -> list[tuple[str, str, str]]:
    """``(folder, runner, arguments)`` of each test run in a command line chained with
    ``&&`` or ``;``, read inside `bash -c '...'` too. A piped run is left out unless
    ``piped`` (its exit code is the pipe's last command's, unless its summary was read)."""
    folder, outside, found = "", "", []
    line = _SHELL_C.sub(lambda m: m["inner"], _SPACES.sub(" ", command.strip()))
    for raw in re.split(r"\s*(?:&&|;)\s*", line):
        if raw.lstrip().startswith("("):
            outside = folder  # a subshell's `cd` ends with it
        part = _unwrap(raw)
        cd = _CD.match(part)
        if cd:
            folder = _folder(cd.group(1))
        else:
            found.extend(_run_in(*_in_folder(folder, part), piped))
        if raw.rstrip().endswith(")"):
            folder = outside
    return found


def _folder(path: str) -> str:
    """A `cd` target as a folder of the project: `.`, `./` and the root are one (""), `./api/`
    is `api`."""
    path = path.rstrip("/")
    while path.startswith("./"):
        path = path[2:]
    return "" if path in (".", "") else path


def _run_in(folder: str, part: str, piped: bool) -> list[tuple[str, str, str]]:
    """The test run of one command of a chain, run in ``folder`` (none for a piped one unless
    ``piped``)."""
    if "|" in part:
        if not piped or "||" in part:
            return []
        part = _REDIRECTS.sub("", part.split("|", 1)[0]).strip()
    run = _RUNNER.match(part)
    if not run:
        return []
    tool = " ".join(run["tool"].replace(" run test", " test").split())
    if _PACKAGE_TEST.match(run["tool"]):
        tool = PACKAGE_TEST  # `npm test`, `pnpm test`, `yarn test`: one package.json script
    return [(folder, tool, run["args"].strip())]


# The package's `test` script, whichever package manager runs it (`bun test` is bun's own
# runner): a failing `npm test` that passes as `pnpm test` is not still failing.
_PACKAGE_TEST = re.compile(r"^(?:(?:npm|pnpm|yarn)(?:\s+run)?|bun\s+run)\s+test$")
PACKAGE_TEST = "package test"


def _unwrap(part: str) -> str:
    """One command of a chain without what changes nothing about the run: brackets of a
    subshell or group, variable settings and wrappers such as `env`, `time`, `timeout 300`."""
    while True:
        bare = _WRAPPER.sub("", _ENV_SET.sub("", _BRACKETS.sub("", part.strip())))
        if bare == part:
            return part
        part = bare


# what runs a program without being it: `uv run pytest`, `npx jest`, `python -m pytest`
_LAUNCHER = re.compile(
    r"^(?:(?:uv|poetry|pipenv|pdm|hatch|rye)\s+run|npx|pnpx|bunx|pnpm\s+exec|yarn\s+dlx|"
    r"python3?(?:\.\d+)?\s+-m)\s+(?=\S)"
)
_SETUP = re.compile(r"^(?:cd|pushd|export|source|\.|set)(?:\s|$)")


def bare_command(command: str) -> str:
    """The program a shell command line runs, as a person names it: ``pytest -q`` for
    ``cd api && PYTHONPATH=src uv run python -m pytest -q``, ``(pytest)``, ``timeout 300
    pytest`` and ``bash -c 'pytest'``: wrappers, variables, launchers, brackets and the
    chain's setting-up steps (``cd``, ``export``) left out."""
    line = _SHELL_C.sub(lambda m: m["inner"], _SPACES.sub(" ", command.strip()))
    parts = [_unwrap(part) for part in re.split(r"\s*(?:&&|;)\s*", line)]
    part = next((p for p in parts if p and not _SETUP.match(p)), parts[0] if parts else "")
    while (bare := _LAUNCHER.sub("", part)) != part:
        part = _unwrap(bare)
    return part


def _located(command: str) -> tuple[str, str]:
    """``(folder, program line)`` of a command line: the folder its `cd` steps lead to and the
    line :func:`bare_command` names (``("api", "ruff check .")`` for ``cd api && uv run ruff
    check .``); a piped line is no program line (its exit code is the pipe's last command's)."""
    line = _SHELL_C.sub(lambda m: m["inner"], _SPACES.sub(" ", command.strip()))
    folder = ""
    for part in (_unwrap(p) for p in re.split(r"\s*(?:&&|;)\s*", line)):
        if cd := _CD.match(part):
            folder = _folder(cd.group(1))
        elif part and not _SETUP.match(part):
            if "|" in part:
                return folder, ""
            return _in_folder(folder, bare_command(part))
    return folder, ""


# the folder a program is told to work in by an option: `make -C api`, `npm --prefix api`,
# `pnpm --dir api`, `yarn --cwd api`, `git -C api`, `cargo --manifest-path api/Cargo.toml`
_FOLDER_OPTION = re.compile(
    r"^(?P<program>(?:g?make|npm|pnpm|yarn|git|go|ninja)\b.*?)\s+"
    r"(?:-C\s*|--directory[=\s]|--prefix[=\s]|--dir[=\s]|--cwd[=\s])(?P<dir>[^\s-]\S*)"
    r"|^(?P<cargo>cargo\b.*?)\s+--manifest-path[=\s](?P<manifest>\S*?)/?Cargo\.toml(?=\s|$)"
)
# `./tests`, `tests/`: the same path as `tests` (`./...` is a pattern, kept as written)
_PATH_ARGUMENT = re.compile(r"(?<=\s)(?:\./)+(?=[\w-])|(?<=[\w-])/+(?=\s|$)")


def _in_folder(folder: str, part: str) -> tuple[str, str]:
    """``(folder, program line)`` of one command run in ``folder``, with the folder an option
    names joined to it and paths written one way: `make -C . lint` is `make lint`, `npm
    --prefix api test` is `npm test` in `api`, `pytest ./tests/` is `pytest tests`."""
    while found := _FOLDER_OPTION.match(part):
        where = found["dir"] if found["program"] else (found["manifest"] or ".")
        folder = _folder(posixpath.normpath(posixpath.join(folder or ".", where)))
        part = (found["program"] or found["cargo"]) + part[found.end() :]
    if part.startswith("go "):
        return folder, part  # Go reads `./cart` as a folder and `cart` as an import path
    return folder, _PATH_ARGUMENT.sub("", part)


def _same_program(failed: str, later: str) -> bool:
    """Whether two command lines run the same program line in the same folder, written
    another way (variables, wrappers, launchers set before it)."""
    where, what = _located(failed)
    return bool(what) and (where, what) == _located(later)


def _runner(event: ToolEvent) -> set[tuple[str, str]]:
    """The test runners (with the folder each ran in) the command of ``event`` used."""
    return {(folder, tool) for folder, tool, _ in _event_runs(event)}


# an option with a value that picks tests (`-run=TestCart`, `--testNamePattern=total`): a run
# with one covers only those; `-count=1`, `--maxfail=1`, `--tb=short` pick none
_SELECTS = re.compile(
    r"^--?(?:run|k|m|t|g|grep|filter|testNamePattern|testPathPattern|test-name-pattern|"
    r"deselect|ignore|ignore-glob|select|only|spec|project|shard|bench|skip|lf|last-failed|"
    r"pyargs|rootdir|package|p|features|test|lib|bin|exact)="
)


def _an_option(word: str) -> bool:
    """Whether ``word`` is an option of a test run that selects no test."""
    return word.startswith("-") and not _SELECTS.match(word)


def _whole_suite(event: ToolEvent) -> set[tuple[str, str]]:
    """The runners ``event`` ran over the whole suite (options only, no test selected: `pytest
    -q`, `go test ./...`, `npm test`): their passing run covers any test they failed on."""
    whole = set()
    for folder, tool, args in _event_runs(event):
        words = args.split()
        values = {i + 1 for i, w in enumerate(words) if w in VALUED_OPTIONS}
        if all(_an_option(w) or w in ("./...", ".") or i in values for i, w in enumerate(words)):
            whole.add((folder, tool))
    return whole


def abandoned_work(
    events: list[tuple[ToolEvent, int]], later_events: list[ToolEvent] | None = None
) -> list[Finding]:
    """Commands or tests still failing when the work stopped: their last run failed, no later
    successful run covers them (in these sessions or, ``later_events``, in the project's
    others after it), and it was among the last three runs. "Last" is by time: sessions that
    overlap (two windows on one project) come one after the other in ``events``, so the runs
    are put in the order they happened (the database id breaks a tie within a millisecond).
    A failure whose command line (or whole-suite run) ran again later is that later run's to
    tell: `pytest -q` failing on one test, then on another, leaves the second open, not both."""
    every = sorted(
        (event for event, _ in events if event.action == "execute" and outcome_known(event)),
        key=lambda event: (event.created_at, event.id),
    )
    runs = [event for event in every if event.status != "interrupted"]
    final = {event.id for event in every[-3:]}
    last: dict[str, int] = {}
    for index, event in enumerate(runs):
        last[failure_key(event)[0]] = index
    found = []
    for key, index in last.items():
        event = runs[index]
        stopped = _stopped_reruns(event, every)
        if not event.failed or final.isdisjoint({event.id, *(e.id for e in stopped)}):
            continue
        if _told_later(event, runs[index + 1 :]):
            continue
        after = [e for e in later_events or () if e.created_at >= event.created_at]
        if _settled(event, key, [*runs[index + 1 :], *after]):
            continue
        unread = _rerun_unread(event, [*(e for e, _ in events), *after])
        error = _first_line(event.error)
        text = quote(f"{event.input_summary} → {error}" if error else event.input_summary)
        label = failure_key(event)[1]
        finding = Finding(ABANDONED, f"open:{key}", label, 1, event.created_at, [text])
        finding.quotes.extend(quote(f"then {e.input_summary} → interrupted") for e in stopped[-1:])
        if unread is not None:
            finding.unread = unread.input_summary
            finding.quotes.append(quote(f"then {unread.input_summary} → no result to read"))
        found.append(finding)
    return found


def _told_later(failed: ToolEvent, later: list[ToolEvent]) -> bool:
    """Whether a later run tells what became of ``failed``, pass or fail: the same command
    line, or the same runner over the whole suite in the same folder written another way
    (`cargo test` after `cargo test -- --nocapture`, `pytest -q` after `pytest -p
    no:cacheprovider`): what that run printed is what still fails."""
    whole = _whole_suite(failed)
    return any(_command(e) == _command(failed) or bool(whole & _whole_suite(e)) for e in later)


def _stopped_reruns(failed: ToolEvent, every: list[ToolEvent]) -> list[ToolEvent]:
    """The runs of ``failed``'s command line after it that were interrupted (Ctrl-C, a
    timeout's kill): they settle nothing, so the failure they re-ran is still the last word,
    and it stays as recent as the last of them."""
    command = _command(failed)
    return [
        e
        for e in every
        if (e.created_at, e.id) > (failed.created_at, failed.id)
        and e.status == "interrupted"
        and _command(e) == command
    ]


def facet_friction(facets: list[Facet]) -> list[Finding]:
    """Friction Claude Code itself classified in the session (``wrong_approach``,
    ``buggy_code``, ``got_stuck``...), one finding per kind, quoting its description."""
    by_kind: dict[str, list[Facet]] = {}
    for facet in facets:
        for kind in facet.friction:
            by_kind.setdefault(kind, []).append(facet)
    found = []
    for kind, members in sorted(by_kind.items()):
        label = kind.replace("_", " ")
        quotes = [quote(m.detail) for m in members if m.detail][:5] or [f"{label} (Claude Code)"]
        found.append(
            Finding(
                FRICTION,
                f"facet:{kind}",
                label,
                sum(m.friction[kind] for m in members),
                max(m.when_ms for m in members),
                quotes,
                texts=[m.detail for m in members if m.detail],
            )
        )
    return found


def analyse(evidence: Evidence) -> list[Finding]:
    """Every finding in the evidence."""
    parts: Iterable[list[Finding]] = (
        correction_themes(
            evidence.corrections, zip(evidence.prompt_ms, evidence.prompts, strict=False)
        ),
        facet_friction(evidence.facets),
        repeated_failures(evidence.events),
        retry_loops(evidence.events),
        abandoned_work(evidence.events, evidence.later_events),
        slow_work(evidence.events),
    )
    return [finding for part in parts for finding in part]
