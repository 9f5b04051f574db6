"""A fourth outside probe: secrets in the names of things ConKeeper stores beside what it captures.

A fresh HOME and project, hooks as subprocesses with real-shaped payloads, the CLI, and every
byte written under the data home and the memory folder afterwards. The earlier probes cleaned
what a session says; this one looks at what a session is called: the transcript path the host
sends, the name of a memory file, the short rest of a token cut over two outputs.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli
from tests.test_privacy_probe import (
    GITHUB,
    SLACK,
    STRIPE,
    assert_hidden,
    bash_output,
    hook,
    written,
)


def test_a_transcript_path_holding_a_token_is_not_stored(
    project: Path, isolated_home: Path
) -> None:
    """The host's ``transcript_path`` was stored as sent (the sessions row, the pending spool,
    backups, ``export``): a folder named after a key put the key in the database. A path that
    holds a credential is stored as ``redacted-<digest>``; the live path is only read in memory."""
    transcript = str(project / f"chat-{STRIPE}.jsonl")
    out = [
        hook(project, "UserPromptSubmit", prompt="run the tests", transcript_path=transcript),
        bash_output(project, 1, "make test", "2 failed"),
        hook(project, "SessionEnd", reason="exit", transcript_path=transcript),
        run_cli("export", cwd=project).stdout,
        run_cli("sessions", "--json", cwd=project).stdout,
    ]
    assert_hidden(STRIPE, *out, written(project, isolated_home))
