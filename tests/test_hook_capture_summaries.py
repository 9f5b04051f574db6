"""What a captured tool event says: commit subjects survive any way of writing the message, and
failures keep their most informative line (one line, at most 120 characters, redacted)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_env
from conkeeper.services.capture.events import (
    ERROR_CHARS,
    build_event,
    clean_error,
    commit_subject,
    failure_line,
    informative_line,
    outcome_from_failure,
    outcome_from_response,
    summarize_input,
)
from conkeeper.services.observations.commands import commit_message

HEREDOC = """git commit -m "$(cat <<'EOF'
Fix the cart discount rounding

The discount was applied twice when a coupon and a sale overlapped.

Co-Authored-By: Claude <noreply@anthropic.com>
EOF
)\""""

COMMITS = [
    (HEREDOC, "Fix the cart discount rounding"),
    ('git commit -m "Add rate limiter"', "Add rate limiter"),
    (
        "git -C /home/someone/projects/a-very-long-project-name/with/nested/folders commit "
        '--no-verify --author "Jane Doe <jane@example.com>" -m "Make index refresh incremental"',
        "Make index refresh incremental",
    ),
    ("git add -A && git commit -am 'Tidy the config loader' && git push", "Tidy the config loader"),
    ('git commit --message="Bump schema to 3"', "Bump schema to 3"),
    ("git commit -mQuick", "Quick"),
    ('git commit -m "First line\n\nBody paragraph"', "First line"),
    ('cd repo; git commit -q -s -m "Sign off the release notes"', "Sign off the release notes"),
]


@pytest.mark.parametrize(("command", "subject"), COMMITS)
def test_commit_subject_is_found_wherever_the_message_is(command: str, subject: str) -> None:
    assert commit_subject(command) == subject


@pytest.mark.parametrize(("command", "subject"), COMMITS)
def test_commit_summary_carries_the_subject_to_the_observation_reader(
    command: str, subject: str
) -> None:
    summary = summarize_input("Bash", {"command": command})
    assert summary == f'git commit -m "{subject}"'
    assert commit_message(summary) == subject  # what the local extractor reads back


@pytest.mark.parametrize(
    "command",
    [
        "git commit --amend --no-edit",
        "git commit -F msg.txt",
        "git log --grep commit",
        'echo "git commit -m x"',
        'git commit -m "unbalanced',
        "pytest -q tests/test_commit.py",
    ],
)
def test_commands_without_a_readable_commit_message_keep_their_first_line(command: str) -> None:
    assert commit_subject(command) is None
    assert summarize_input("Bash", {"command": command}) == command.splitlines()[0][:80]


def test_long_subjects_are_cut_and_secrets_and_private_text_are_not_kept() -> None:
    long = "Refactor " + "the storage layer " * 10
    summary = summarize_input("Bash", {"command": f'git commit -m "{long}"'})
    assert summary.startswith('git commit -m "Refactor the storage') and len(summary) == 80
    assert commit_message(summary).startswith("Refactor the storage layer")
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    redacted = summarize_input("Bash", {"command": f'git commit -m "Rotate {token}"'})
    assert token not in redacted and "[REDACTED:github-token]" in redacted
    hidden = summarize_input("Bash", {"command": 'git commit -m "<private>x</private>"'})
    assert "x" not in hidden.replace("git commit -m", "")


def test_subject_quotes_survive_the_summary() -> None:
    summary = summarize_input("Bash", {"command": """git commit -m 'Use "strict" mode'"""})
    assert commit_message(summary) == 'Use "strict" mode'


# --------------------------------------------------------------------------- failures

TRACEBACK = """Running migrations...
Traceback (most recent call last):
  File "app.py", line 3, in <module>
    main()
  File "app.py", line 2, in main
    raise ValueError("bad config key 'colour'")
ValueError: bad config key 'colour'
"""

PYTEST_OUT = """============================= test session starts ==============================
collected 12 items

tests/test_cart.py ....F.......                                          [100%]
=========================== short test summary info ============================
FAILED tests/test_cart.py::test_discount - assert 90 == 80
1 failed, 11 passed in 0.31s
"""


def test_the_exception_line_ends_a_traceback() -> None:
    assert failure_line(TRACEBACK) == "ValueError: bad config key 'colour'"


def test_the_first_line_naming_a_failure_wins() -> None:
    assert failure_line(PYTEST_OUT) == "FAILED tests/test_cart.py::test_discount - assert 90 == 80"
    compiler = "src/a.c: In function 'f':\nsrc/a.c:3:5: error: expected ';'\n1 error generated."
    assert failure_line(compiler) == "src/a.c:3:5: error: expected ';'"
    assert failure_line("all good\nnothing to see") is None
    assert informative_line("\n\n  first words\nsecond") == "first words"


def test_bash_failure_keeps_the_informative_line_of_stdout_or_stderr() -> None:
    status, error, code = outcome_from_response(
        {"stdout": PYTEST_OUT, "stderr": "", "exit_code": 1, "interrupted": False}
    )
    assert (status, code) == ("failure", 1)
    assert error == "exit code 1: FAILED tests/test_cart.py::test_discount - assert 90 == 80"
    _s, error, _c = outcome_from_response({"stdout": "", "stderr": TRACEBACK, "exit_code": 2})
    assert error == "exit code 2: ValueError: bad config key 'colour'"
    _s, error, _c = outcome_from_response({"stdout": "", "stderr": "plain\nwords", "exit_code": 3})
    assert error == "exit code 3: plain"  # no failure word anywhere: the first line, as before


def test_failure_payload_messages_are_reduced_to_one_informative_line() -> None:
    status, message, code = outcome_from_failure("Exit code 1\n" + TRACEBACK, False)
    assert (status, code) == ("failure", 1)
    assert clean_error(message) == "Exit code 1 ValueError: bad config key 'colour'"
    long_noise = "x" * 300 + "\nError: disk quota exceeded while writing cache"
    assert clean_error(long_noise) == "Error: disk quota exceeded while writing cache"
    assert clean_error("Error: one line only") == "Error: one line only"


def test_cleaned_errors_are_one_redacted_line_of_at_most_120_characters() -> None:
    token = "sk-ant-" + "api03-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9"
    message = f"Exit code 1\nconnecting...\nError: auth failed for key {token} " + "z" * 200
    cleaned = clean_error(outcome_from_failure(message, False)[1])  # cleaned whole, then cut
    assert cleaned is not None and "\n" not in cleaned and len(cleaned) <= ERROR_CHARS
    assert token not in cleaned and "[REDACTED:anthropic-key]" in cleaned
    private = outcome_from_failure("<private>\nError: secret customer list\n</private>", False)
    assert clean_error(private[1]) == "[private]"


def test_event_and_database_row_carry_the_informative_error(tmp_path: Path) -> None:
    event = build_event(
        tool_name="Bash",
        tool_input={"command": "pytest -q"},
        tool_use_id="toolu_x",
        outcome=outcome_from_response({"stdout": PYTEST_OUT, "stderr": "", "exit_code": 1}),
        root=tmp_path,
    )
    assert event.error is not None and event.error.startswith("exit code 1: FAILED tests/")


def test_hook_stores_commit_subject_and_failure_line_end_to_end(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".claude" / "memory").mkdir(parents=True)
    env = cli_env(HOME=str(tmp_path / "home"), CONKEEPER_HOME=str(tmp_path / "data"))
    for key in [k for k in env if k.startswith(("CLAUDE", "CONKEEPER_DISABLE"))]:
        del env[key]
    payloads = [
        ("toolu_c", HEREDOC, {"stdout": "[main 1a2b3c4] Fix", "stderr": "", "exit_code": 0}),
        ("toolu_f", "pytest -q", {"stdout": PYTEST_OUT, "stderr": "", "exit_code": 1}),
    ]
    for ident, command, response in payloads:
        payload = {
            "session_id": "cap-1",
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": ident,
            "tool_input": {"command": command},
            "tool_response": response,
        }
        proc = subprocess.run(
            [sys.executable, "-m", "conkeeper", "hook", "PostToolUse"],
            input=json.dumps(payload).encode(),
            env=env,
            capture_output=True,
            timeout=60,
            check=True,
        )
        assert proc.returncode == 0
    rows = dict(
        sqlite3.connect(tmp_path / "data" / "conkeeper.db").execute(
            "SELECT tool_use_id, COALESCE(error, input_summary) FROM tool_events"
        )
    )
    assert rows["toolu_c"] == 'git commit -m "Fix the cart discount rounding"'
    assert (
        rows["toolu_f"] == "exit code 1: FAILED tests/test_cart.py::test_discount - assert 90 == 80"
    )
    logs = (project / ".claude" / "memory" / "sessions").glob("*-observations.md")
    log = "".join(path.read_text(encoding="utf-8") for path in sorted(logs))  # one per local day
    assert '`git commit -m "Fix the cart discount rounding"`' in log
    assert "failure: exit code 1: FAILED tests/test_cart.py::test_discount" in log


def test_output_with_no_failure_word_keeps_its_start() -> None:
    """Compiler and linter output rarely says "error"; the header alone would lose the cause."""
    from conkeeper.services.capture.events import clean_error

    message = (
        "Exit code 1\n# github.com/acme/ingest/internal/queue\n"
        "internal/queue/consumer.go:48:15: undefined: backoff.NewExponential\n"
    )
    cleaned = clean_error(message)
    assert cleaned is not None and "\n" not in cleaned and len(cleaned) <= 120
    assert cleaned.startswith("Exit code 1")
    assert "undefined: backoff.NewExponential" in cleaned
