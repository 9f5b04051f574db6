"""The search read path: arguments parsed without argparse agree with argparse, and a
no-change search loads only what it needs (the import budget of the read path)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import cli_env, run_cli
from conkeeper.cli import cmd_search, fastargs
from conkeeper.cli.main import COMMANDS, _command_parser


def _argparse(argv: list[str]) -> dict[str, object] | None:
    parser = _command_parser("search", COMMANDS["search"][1], cmd_search)
    try:
        parsed = parser.parse_args(argv)
    except SystemExit:
        return None
    return {k: v for k, v in vars(parsed).items() if k != "usage"}


def _fast(argv: list[str]) -> dict[str, object] | None:
    parsed = fastargs.parse(cmd_search, argv, lambda: _command_parser("search", "", cmd_search))
    return None if parsed is None else {k: v for k, v in vars(parsed).items() if k != "usage"}


@pytest.mark.parametrize(
    "argv",
    [
        ["token", "refresh"],
        ["--json", "token"],
        ["token", "--json", "--limit", "3"],
        ["--limit=3", "--context", "0", "a", "b", "c"],
        ["--category", "decision", "--category", "bugfix", "x"],
        ["--tag=auth", "--kind", "memory", "--kind", "observation", "x"],
        ["--sessions", "--all-time", "--since", "7d", "x"],
        ["--global", "--observations", "--all-projects", "--cross-project", "x"],
    ],
)
def test_plain_arguments_are_parsed_without_argparse_and_alike(argv: list[str]) -> None:
    fast = _fast(argv)
    assert fast is not None
    assert fast == _argparse(argv)


@pytest.mark.parametrize(
    "argv",
    [
        [],  # no query: argparse's usage and the empty-query message
        ["--help"],
        ["-h"],
        ["--lim", "3", "x"],  # an abbreviation argparse accepts
        ["x", "--json", "y"],  # words on both sides of an option: argparse's error
        ["--limit", "-3", "x"],
        ["--limit", "three", "x"],
        ["--limit", " 3", "x"],
        ["--kind", "nothing", "x"],
        ["--json=yes", "x"],
        ["--", "--json"],
        ["-x"],
        ["", "x"],
        ["--limit"],
    ],
)
def test_unusual_arguments_are_left_to_argparse(argv: list[str]) -> None:
    assert _fast(argv) is None


TOKENS = st.sampled_from(
    ["w", "two", "--json", "--limit", "4", "--limit=2", "--context", "0", "--kind", "memory",
     "prompt", "--category", "decision", "--since", "7d", "--sessions", "--global", "-", "--",
     "--help", "--lim", "x=1", "ümlaut", "-5", "--all-time"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKENS, max_size=7))
def test_the_fast_parser_never_disagrees_with_argparse(argv: list[str]) -> None:
    fast = _fast(argv)
    if fast is not None:
        assert fast == _argparse(argv)


def test_the_usage_callback_is_argparses(capsys: pytest.CaptureFixture[str]) -> None:
    parsed = fastargs.parse(cmd_search, ["x"], lambda: _command_parser("search", "", cmd_search))
    assert parsed is not None
    assert parsed.usage().startswith("usage: conkeeper search")


PROBE = """
import sys
from conkeeper.cli.main import main
code = main(sys.argv[1:])
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)) + "\\n")
"""
# What a no-change search must not load: argparse (and gettext) are for help and errors only,
# hashlib's OpenSSL start-up is not needed for one BLAKE2 digest, nothing writes (the index
# writer, its parser and privacy modules load only when something changed), and argparse's help
# formatter would pull in shutil, bz2 and lzma. typing (about 4 ms) is for annotations only, and
# paths are strings on this path: pathlib brings fnmatch, urllib.parse and ipaddress along.
NOT_ON_SEARCH_PATH = {
    "typing",
    "pathlib",
    "fnmatch",
    "urllib.parse",
    "re",  # with enum: the query scanners are string code, the index's label spans plain text
    "enum",
    "json",
    "sqlite3.dbapi2",  # and datetime: the driver is _sqlite3 (conkeeper.storage.driver)
    "datetime",
    "importlib",
    "argparse",
    "gettext",
    "hashlib",
    "_hashlib",
    "dataclasses",
    "inspect",
    "shutil",
    "tempfile",
    "importlib.util",
    "conkeeper.storage.index_write",
    "conkeeper.domain.textio",
    "conkeeper.domain.memory",
    "conkeeper.domain.privacy",
    "conkeeper.domain.config",
    "conkeeper.domain.categories",
    "conkeeper.storage.migrations.m0001_core",
    "importlib.resources",
    "multiprocessing",
    "concurrent.futures",
    "pkgutil",
    "traceback",
}


@pytest.fixture
def proj(project: Path) -> Path:
    memory = project / ".claude" / "memory"
    (memory / "cache.md").write_text(
        "# Cache\n\n## Stampede\n- cache stampede fixed by the token refresh lock\n",
        encoding="utf-8",
    )
    return project


def _aged(memory: Path) -> None:
    hour_ago = time.time() - 3600  # older than the racy window, so the stamps are trusted
    for path in memory.rglob("*.md"):
        os.utime(path, (hour_ago, hour_ago))


def test_a_no_change_search_stays_on_the_fast_path(proj: Path) -> None:
    _aged(proj / ".claude" / "memory")
    assert run_cli("search", "cache", cwd=proj).returncode == 0  # builds the index
    proc = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, "search", "token", "refresh", "--limit", "5"],
        cwd=proj,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "stampede" in proc.stdout
    modules = set(proc.stderr.rsplit("MODULES ", 1)[1].split())
    assert {"conkeeper.cli.fastargs", "conkeeper.storage.index_scan"} <= modules
    assert not modules & NOT_ON_SEARCH_PATH, sorted(modules & NOT_ON_SEARCH_PATH)


def test_search_help_and_errors_still_come_from_argparse(proj: Path) -> None:
    helped = run_cli("search", "--help", cwd=proj)
    assert helped.returncode == 0
    assert "usage: conkeeper search" in helped.stdout
    assert "--limit N" in helped.stdout
    wrong = run_cli("search", "--limit", "many", "x", cwd=proj)
    assert wrong.returncode == 2
    assert "invalid int value: 'many'" in wrong.stderr
    empty = run_cli("search", cwd=proj)
    assert empty.returncode == 2
    assert "usage: conkeeper search" in empty.stderr
    assert "the query is empty" in empty.stderr
