"""The ``conkeeper`` command shape: help, unknown commands, errors as one line."""

from __future__ import annotations

from conftest import run_cli
from conkeeper.cli.main import COMMANDS


def test_help_lists_available_commands_with_descriptions() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert "demo" in proc.stdout
    assert COMMANDS["demo"][1] in proc.stdout


def test_unknown_command_is_one_clear_error() -> None:
    proc = run_cli("frobnicate")
    assert proc.returncode != 0
    assert "invalid choice" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("conkeeper ")
