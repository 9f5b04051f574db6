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
``|``).
"""

from __future__ import annotations

import re

# A test runner as the first command of a pipe (after wrappers, variables, `cd x &&`).
_RUNNER = re.compile(
    r"(?:^|[\s;&(/'\"])(?:pytest|py\.test|tox|nox|python3?(?:\.\d+)?\s+-m\s+(?:pytest|unittest)"
    r"|(?:npm|pnpm|yarn|bun)(?:\s+run)?\s+test|npx\s+(?:jest|vitest)|go\s+test"
    r"|cargo\s+(?:test|nextest)|make\s+(?:test|check)|jest|vitest)(?=\s|$|[;|)])"
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


def piped_test_run(command: str) -> bool:
    """Whether ``command``'s exit code is that of the last command of a pipe whose first
    command runs tests (``pytest -q | tail -20``), so it says nothing about the tests. With
    ``set -o pipefail`` the runner's failure is kept: then it is not."""
    if "|" not in command or _PIPEFAIL.search(command):
        return False
    last = _CHAIN.split(command.strip())[-1]
    parts = _PIPE.split(last)
    return len(parts) > 1 and _RUNNER.search(parts[0]) is not None


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
