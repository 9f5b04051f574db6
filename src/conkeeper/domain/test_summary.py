"""Whether a piped test run passed, read from the runner's own summary line.

Why it exists: ``pytest -q 2>&1 | tail -20`` exits with ``tail``'s code, so the host reports
every such run as a success (and ``pytest | grep passed`` as a failure when grep finds
nothing): the exit code says nothing about the tests. ``reflect`` then said "still failing"
after a passing run written that way, or took a failing one for a pass. When the exit code
belongs to the last command of a pipe that starts with a test runner (and the command does not
set ``pipefail``, which keeps the runner's failure), the capture reads the runner's summary
(pytest's ``N passed``/``N failed``, unittest's ``Ran N tests`` + ``OK``/``FAILED``,
jest/vitest's ``Tests:``, ``go test``'s ``ok``/``FAIL``, cargo's ``test result:``, npm's
``ERR!``) and, with none there, calls the run neither passed nor failed.

Pure and standard library only (the PostToolUse hook imports it only for a command holding
``|``). It also tells which tests a run's arguments pick (:func:`covers`): a pass of
other tests (``pytest -k escape_silent``) settles no failure.
"""

from __future__ import annotations

import re

# A test runner as the first command of a pipe (after wrappers, variables, `cd x &&`).
_RUNNER = re.compile(
    r"(?:^|[\s;&(/'\"])(?:pytest|py\.test|tox|nox|python3?(?:\.\d+)?\s+-m\s+(?:pytest|unittest)"
    r"|(?:npm|pnpm|yarn|bun)(?:\s+run)?\s+test|npx\s+(?:jest|vitest)|go\s+test"
    r"|cargo\s+(?:test|nextest)|make\s+(?:test|check)|jest|vitest)(?=\s|$|[;|)])"
)
# A test runner's options whose value is the next word and picks no test (`pytest -p
# no:cacheprovider`, `--tb short`, `-n auto`, `go test -count 1`, `jest --maxWorkers 2`)
VALUED_OPTIONS = frozenset(
    {
        *("-p", "--tb", "-n", "--numprocesses", "--maxfail", "-W", "--pythonwarnings"),
        *("--basetemp", "-o", "--override-ini", "-c", "--config-file", "--durations"),
        *("--color", "--capture", "--import-mode", "--log-level", "--log-cli-level"),
        *("--timeout", "--dist", "--junitxml", "--junit-xml", "--cov", "--cov-report"),
        *("--cov-config", "--confcutdir", "-count", "-timeout", "-parallel", "-j", "--jobs"),
        *("--maxWorkers", "-w", "--reporter", "--workers", "--seed", "--randomly-seed"),
        *("--test-threads",),  # libtest's, after `cargo test --`
    }
)
# ... and those that pick the tests a run covers (`-k escape_silent`, `-m slow`, `--lf`)
SELECTING_OPTIONS = frozenset(
    {
        *("-k", "-m", "--deselect", "--lf", "--last-failed", "--sw", "--stepwise", "-run"),
        *("-t", "--testNamePattern", "--testPathPattern", "-g", "--grep", "--filter", "-e"),
    }
)


def test_targets(args: list[str]) -> tuple[bool, list[str]]:
    """``(selects, targets)`` of a test run's arguments (after the runner's name): whether an
    option picks some tests (`-k name`, `--lf`, `--deselect=x`), and the tests, files or
    folders named (`tests/test_escape.py`, `tests/a.py::test_b`); an option's value is
    neither. No targets and no selection: the whole suite."""
    selects, targets, skip = False, [], False
    for word in args:
        if skip:
            skip = False
        elif word.split("=", 1)[0] in SELECTING_OPTIONS:
            selects = True
            skip = "=" not in word and word not in ("--lf", "--last-failed", "--sw", "--stepwise")
        elif word.startswith("-"):
            skip = word in VALUED_OPTIONS
        elif word not in (".", "./..."):
            targets.append(word.rstrip("/"))
    return selects, targets


def covers(passed_args: list[str], failed_args: list[str]) -> bool:
    """Whether a passing run with ``passed_args`` ran every test a failing run with
    ``failed_args`` did: the whole suite, or targets that hold each failed target
    (`tests/` holds `tests/test_escape.py::test_escape`), with no option picking fewer."""
    if passed_args == failed_args:
        return True
    selects, targets = test_targets(passed_args)
    if selects:
        return False
    if not targets:
        return True
    failed_targets = test_targets(failed_args)[1]
    return bool(failed_targets) and all(
        any(f == t or f.startswith((t + "/", t + "::")) for t in targets) for f in failed_targets
    )


_PIPEFAIL = re.compile(r"\bset\s+(?:-[a-z]+\s+)*-[a-z]*o\s+pipefail\b")
# One pipe (not `||`) and the `&&`/`;`/newline chains around it.
_PIPE = re.compile(r"(?<!\|)\|(?!\|)")
_CHAIN = re.compile(r"&&|\|\||;|\n")

# Summary lines, failure first: any failing line settles the run as failed.
_FAILED = (
    re.compile(r"^=*\s*(?:.*,\s*)?\d+ (?:failed|errors?)\b.*\bin [\d.]+\s*s\b.*$", re.M),  # pytest
    re.compile(r"^FAILED \((?:failures|errors)=\d+.*$", re.M),  # unittest
    re.compile(r"^\s*Tests?:?\s+.*\b\d+ failed\b.*$", re.M),  # jest, vitest
    re.compile(r"^(?:FAIL(?:\s+\S+.*)?|--- FAIL: .*)$", re.M),  # go test
    re.compile(r"^test result: FAILED\..*$", re.M),  # cargo
    re.compile(r"^npm (?:ERR!|error) .*$", re.M),  # npm
)
_PASSED = (
    re.compile(r"^=*\s*\d+ passed\b.*\bin [\d.]+\s*s\b.*$", re.M),  # pytest
    re.compile(r"^Ran \d+ tests? in [\d.]+s\s*\n+OK\b.*$", re.M),  # unittest
    re.compile(r"^\s*Tests?:?\s+.*\b\d+ passed\b.*$", re.M),  # jest, vitest
    re.compile(r"^(?:ok\s+\S+.*|PASS)$", re.M),  # go test
    re.compile(r"^test result: ok\..*$", re.M),  # cargo
)


# cargo test's (libtest's) closing lines: each test binary that failed prints its failing
# tests' names (sorted) under a bare `failures:`, then `test result: FAILED. N passed; M failed`
_LIBTEST_RESULT = re.compile(r"^test result: FAILED\. \d+ passed; \d+ failed", re.M)
_LIBTEST_NAMES = re.compile(r"^failures:\n((?:    \S+\n)+)", re.M)


def libtest_failures(output: str) -> tuple[list[str], list[str]]:
    """``(results, names)`` of a failed ``cargo test`` run, as cargo wrote them: each failing
    binary's ``test result: FAILED. 18 passed; 2 failed`` and every failing test's name
    (``test_caret``, ``tests::parse::test_x``); both empty when ``output`` holds none. The
    first line cargo prints about a failure names one test of several, and its closing
    ``error: test failed, to rerun pass ...`` none: these are what a person reads."""
    results = _LIBTEST_RESULT.findall(output)
    if not results:
        return [], []
    names: list[str] = []
    for block in _LIBTEST_NAMES.findall(output):
        names.extend(n.strip() for n in block.splitlines() if n.strip() not in names)
    return results, names


def piped_test_run(command: str) -> bool:
    """Whether ``command``'s exit code is that of the last command of a pipe whose first
    command runs tests (``pytest -q | tail -20``), so it says nothing about the tests. With
    ``set -o pipefail`` the runner's failure is kept: then it is not."""
    if "|" not in command or _PIPEFAIL.search(command):
        return False
    last = _CHAIN.split(command.strip())[-1]
    parts = _PIPE.split(last)
    return len(parts) > 1 and _RUNNER.search(parts[0]) is not None


# pytest exits 5 when it collected no tests (`pytest -k nomatch`): its own code, as the
# last command run (after `cd x &&`, wrappers or variables); a pipe's code is another's.
_PYTEST_LAST = re.compile(
    r"(?:^|[\s(/'\"])(?:pytest|py\.test|python3?(?:\.\d+)?\s+-m\s+pytest)(?=\s|$)"
)
NO_TESTS_EXIT = 5


def collected_no_tests(command: str, exit_code: int | None) -> bool:
    """Whether a run exited with pytest's "no tests collected" code: no failure of the code,
    nor a pass. Only when pytest is the last command run, so the exit code is its own."""
    if exit_code != NO_TESTS_EXIT:
        return False
    last = _CHAIN.split(command.strip())[-1]
    return len(_PIPE.split(last)) == 1 and _PYTEST_LAST.search(last) is not None


def runs_tests(command: str) -> bool:
    """Whether ``command`` runs a test runner anywhere in it (``cd api && uv run pytest -q``):
    a host that gives no exit code (Codex without its rollout) is read from the summary."""
    return _RUNNER.search(command) is not None


def summary_verdict(output: str) -> tuple[bool | None, str]:
    """``(passed, summary line)`` read from a test run's output: ``False`` when a runner's
    summary says something failed, ``True`` when one says the tests passed, ``None`` (and
    ``""``) when no summary line is there."""
    for pattern in _FAILED:
        found = pattern.search(output)
        if found:
            return False, found.group(0).strip()
    for pattern in _PASSED:
        found = pattern.search(output)
        if found:
            return True, found.group(0).strip().splitlines()[0]
    return None, ""
