"""Every message passes privacy, and a full disk is named as the cause (issue 19 item 7,
issue 22 item 11), checked at the CLI's front door and on the shared formatter.

MCP tool errors are checked over stdio in ``test_mcp_server.py``, the viewer's notices over HTTP
in ``test_viewer_security.py``, and the hooks' ``systemMessage`` in ``test_silent_drops.py``.
"""

from __future__ import annotations

import errno
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import cli_env, run_cli
from conkeeper.cli.output import error_line
from conkeeper.domain.messages import (
    HIDDEN_MESSAGE,
    clean_message,
    disk_full_message,
    failure_message,
    mount_point,
)

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
MARKER = "zanzibar-launch-codes"
SPAN = f"<private>{MARKER}</private>"


def _real_enospc() -> OSError:
    """The OSError a write to a full device really raises (``/dev/full``)."""
    try:
        with open("/dev/full", "w", encoding="utf-8") as sink:
            sink.write("x" * 100)
            sink.flush()
    except OSError as exc:
        return exc
    raise AssertionError("/dev/full accepted the write")


def test_clean_message_cuts_spans_and_redacts_secrets() -> None:
    message = clean_message(f"patterns.md already holds this: token {SECRET} and {SPAN} done")
    assert SECRET not in message and MARKER not in message
    assert "[REDACTED:github-token]" in message and message.endswith("done")
    assert clean_message(SPAN) == HIDDEN_MESSAGE
    assert clean_message("plain words stay") == "plain words stay"


def test_a_real_enospc_is_named_with_its_mount_point() -> None:
    exc = _real_enospc()
    assert exc.errno == errno.ENOSPC
    assert disk_full_message(exc, "/dev/full") == "the disk is full: free space on /dev and retry"
    message = disk_full_message(exc)
    assert message is not None and message.startswith("the disk is full: free space on /")
    assert failure_message(ValueError("nothing to do with disks")) == "nothing to do with disks"
    assert disk_full_message(ValueError("bad value")) is None


def test_a_full_disk_wrapped_in_another_error_is_still_named() -> None:
    try:
        try:
            raise _real_enospc()
        except OSError as inner:
            raise RuntimeError("ConKeeper could not save patterns.md") from inner
    except RuntimeError as outer:
        line = error_line(outer, command="remember")
    assert line.startswith("conkeeper: the disk is full: free space on ")
    assert "log" not in line


def test_mount_point_of_a_missing_path_is_its_nearest_folder_s() -> None:
    assert mount_point("/dev/full") == "/dev"
    assert mount_point("/") == "/"
    assert Path(mount_point("/no/such/place/at/all")).is_dir()


def test_an_unexpected_crash_line_is_cleaned_whole() -> None:
    line = error_line(KeyError(f"entry {SECRET} {SPAN}"), command="tag")
    assert SECRET not in line and MARKER not in line
    assert line.startswith("conkeeper: tag failed: KeyError") and "\n" not in line


def test_cli_error_echoing_the_users_words_is_cleaned(project: Path) -> None:
    memory = project / ".claude" / "memory"
    (memory / "corrections-queue.md").write_text(
        '# Corrections Queue\n\n- **2026-01-02 03:04:05** | correction | "no, use tabs" '
        "| ref: previous assistant message\n",
        encoding="utf-8",
    )
    proc = run_cli(
        "corrections", "apply", "3", "--category", "convention",
        "--to", f"notes {SECRET} {SPAN}", cwd=project,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "neither a route" in proc.stderr
    assert SECRET not in proc.stderr and MARKER not in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_cli_output_to_a_full_disk_says_the_disk_is_full(project: Path) -> None:
    """``conkeeper doctor > /dev/full``: one line naming the full disk, exit 1, no raw
    ``Exception ignored`` at exit and no pointer to a log that cannot be written."""
    with open("/dev/full", "w", encoding="utf-8") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "conkeeper", "doctor"],
            cwd=project,
            env=cli_env(),
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert err.startswith("conkeeper: the disk is full: free space on /"), err
    assert err.rstrip().endswith("and retry") and err.count("\n") == 1
    assert "log" not in err and "Exception ignored" not in err


@pytest.mark.parametrize("warning", [f"bad value {SECRET}", f"bad value {SPAN} here"])
def test_cli_warnings_are_cleaned(warning: str, capsys: pytest.CaptureFixture[str]) -> None:
    from conkeeper.cli.output import notice, warn

    warn(warning)
    notice(warning)
    err = capsys.readouterr().err
    assert SECRET not in err and MARKER not in err and err.count("\n") == 2


def test_argument_errors_quote_the_arguments_cleaned(project: Path) -> None:
    """argparse's usage error echoes what was typed: it passes privacy like any message."""
    for args in (["search", "--limit", SECRET, "x"], ["corrections", f"{SECRET}"]):
        proc = run_cli(*args, cwd=project)
        assert proc.returncode == 2
        assert "error: argument" in proc.stderr and SECRET not in proc.stderr


_PLAIN_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'", max_size=30)


@given(st.lists(st.tuples(_PLAIN_WORD, st.sampled_from(["", "?", ".", ","])), max_size=12))
def test_text_shown_without_the_privacy_module_is_text_it_would_not_change(
    words: list[tuple[str, str]],
) -> None:
    """``clean_message`` skips loading the privacy module for plain words (the search read path
    echoes its query): only ever for text the privacy module leaves exactly as it is."""
    from conkeeper.domain.messages import _plain_words
    from conkeeper.domain.privacy import clean_captured

    text = " ".join(word + mark for word, mark in words)
    if text.strip() and _plain_words(text):  # (empty text is returned before the check)
        assert str(clean_captured(text)).split() == text.split()  # nothing hidden or redacted
