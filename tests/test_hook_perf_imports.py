"""The hook path stays cheap: what a hook process imports and compiles, and the switches and
shortcuts that keep it fast (spec §4), checked through real entry points.

Timing itself is measured by ``bench/hook_bench.py``; these tests pin down the causes, so a
change that would bring back a 10 ms import fails here rather than in a benchmark run.
"""

from __future__ import annotations

import hashlib
import json
import pkgutil
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import cli_env
from conkeeper.domain.config import Config
from conkeeper.domain.lazy_re import LazyPattern
from conkeeper.domain.paths import ProjectLocation, identity_of
from conkeeper.domain.records import FrozenRecord, Record
from conkeeper.domain.session_id import sanitize_session_id
from conkeeper.hooks.payload import HookResult
from conkeeper.hooks.runner import run_hook
from conkeeper.storage import migrations
from conkeeper.storage.state import project_key
from conkeeper.storage.store import SCHEMA_VERSION, open_store

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "bin" / "conkeeper-hook"
# Imports that cost milliseconds and that no hook needs on its common path.
HEAVY = {"dataclasses", "inspect", "typing", "hashlib", "_hashlib", "uuid", "importlib.util"}
HEAVY_POST_TOOL = HEAVY | {"pkgutil", "conkeeper.storage.migrations.m0001_core", "traceback"}

PROBE = """
import json, sys
from conkeeper.hooks.runner import run_hook
code = run_hook(sys.argv[1], sys.stdin.buffer.read())
from conkeeper.domain import secrets
compiled = [r.kind for r in secrets._RULES if r.pattern._compiled is not None]
print(json.dumps({"code": code, "modules": sorted(sys.modules), "compiled": compiled}))
"""


def _tool(project: Path, n: int, command: str = "ls -la src") -> bytes:
    return json.dumps(
        {
            "session_id": "perf-1",
            "transcript_path": str(project / "t.jsonl"),
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": f"toolu_perf_{n}",
            "tool_input": {"command": command, "description": "list"},
            "tool_response": {"stdout": "a\nb\n", "stderr": "", "interrupted": False},
        }
    ).encode()


def _probe(tmp_path: Path, event: str, data: bytes) -> dict:
    """Run one hook in a fresh ``python -S`` process (as the launcher does) and report what it
    imported and which secret patterns it compiled."""
    proc = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, event],
        input=data,
        env=cli_env(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


# --------------------------------------------------------------------------- what a hook loads


def test_post_tool_use_imports_nothing_heavy_and_compiles_no_secret_pattern(
    tmp_path: Path, project: Path
) -> None:
    _probe(tmp_path, "PostToolUse", _tool(project, 0))  # creates and migrates the database
    report = _probe(tmp_path, "PostToolUse", _tool(project, 1))
    assert report["code"] == 0
    assert not HEAVY_POST_TOOL & set(report["modules"])
    assert "conkeeper.domain.secrets" in report["modules"]  # the command was redacted...
    assert report["compiled"] == []  # ...without compiling a single pattern
    conn = sqlite3.connect(tmp_path / "data" / "conkeeper.db")
    assert conn.execute("SELECT count(*) FROM tool_events").fetchone()[0] == 2


def test_a_secret_in_a_command_compiles_only_its_own_rules(tmp_path: Path, project: Path) -> None:
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    report = _probe(tmp_path, "PostToolUse", _tool(project, 2, f"curl -H 'x: {token}' x.io"))
    assert "github-token" in report["compiled"]
    assert len(report["compiled"]) <= 6
    rows = sqlite3.connect(tmp_path / "data" / "conkeeper.db").execute(
        "SELECT input_summary FROM tool_events"
    )
    summary = rows.fetchone()[0]
    assert token not in summary and "[REDACTED:github-token]" in summary


def test_a_pre_tool_hook_in_a_plain_folder_does_not_load_the_write_module(
    tmp_path: Path, project: Path
) -> None:
    # the digest-identity cache imported domain.safewrite (about 2,000 lines) on every hook to
    # hand it a folder's key, though a plain folder's files are never scanned: +1 ms per hook
    payload = {
        "session_id": "perf-3",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": "toolu_perf_pre",
        "tool_input": {"command": "pytest -q"},
    }
    _probe(tmp_path, "PreToolUse", json.dumps(payload).encode())
    report = _probe(tmp_path, "PreToolUse", json.dumps(payload).encode())
    assert report["code"] == 0
    assert "conkeeper.domain.safewrite" not in report["modules"]


def test_user_prompt_submit_imports_nothing_heavy(tmp_path: Path, project: Path) -> None:
    payload = {
        "session_id": "perf-2",
        "transcript_path": str(project / "missing.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "no, use the existing logger instead of print",
    }
    first = _probe(tmp_path, "UserPromptSubmit", json.dumps(payload).encode())
    assert "pkgutil" in first["modules"]  # the first hook ever creates the database
    report = _probe(tmp_path, "UserPromptSubmit", json.dumps(payload).encode())
    assert not HEAVY & set(report["modules"])
    queue = project / ".claude" / "memory" / "corrections-queue.md"
    assert queue.read_text().count("no, use the existing logger") == 2


def test_a_hook_with_no_rows_kept_for_later_does_not_import_the_spool(
    tmp_path: Path, project: Path
) -> None:
    """Every hook that opens the database checks for rows kept for later; the check needs only
    the file's name, so the spool's module (``storage.pending``) loads only when there are some."""
    _probe(tmp_path, "PostToolUse", _tool(project, 0))  # creates and migrates the database
    report = _probe(tmp_path, "PostToolUse", _tool(project, 1))
    assert report["code"] == 0
    assert "conkeeper.storage.sessions" in report["modules"]  # the event was stored...
    assert "conkeeper.storage.pending" not in report["modules"]  # ...with no spool loaded


def test_up_to_date_database_opens_without_importing_migrations(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    open_store(path).close()
    code = (
        "import sys\nfrom conkeeper.storage.store import open_store\n"
        f"open_store(__import__('pathlib').Path({str(path)!r})).close()\n"
        "print([m for m in sys.modules if m.startswith('conkeeper.storage.migrations.')])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, check=True
    )
    assert out.stdout.decode().strip() == "[]"


def test_schema_version_constant_counts_the_migration_modules() -> None:
    modules = [m.name for m in pkgutil.iter_modules(migrations.__path__) if m.name.startswith("m")]
    assert len(modules) == SCHEMA_VERSION
    from conkeeper.storage.store import MIGRATIONS  # loaded on first access

    assert [m.version for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))


# --------------------------------------------------------------------------- disabled hooks


def test_disable_env_turns_every_hook_into_a_silent_no_op(tmp_path: Path, project: Path) -> None:
    env = cli_env(CONKEEPER_DISABLE_HOOKS="1", CONKEEPER_SAVE_INTERVAL="1")
    for event, data in (
        ("PostToolUse", _tool(project, 3)),
        ("UserPromptSubmit", json.dumps({"cwd": str(project), "prompt": "no, wrong"}).encode()),
        ("SessionStart", json.dumps({"cwd": str(project), "source": "startup"}).encode()),
    ):
        for cmd in ([sys.executable, "-m", "conkeeper", "hook", event], [str(LAUNCHER), event]):
            proc = subprocess.run(cmd, input=data, env=env, capture_output=True, timeout=60)
            assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b""), cmd
    assert not (tmp_path / "data").exists()  # no database, state or log
    assert list((project / ".claude" / "memory").iterdir()) == []


def test_disable_env_in_process_reads_nothing_and_returns_zero(project: Path) -> None:
    out: list[str] = []

    class Sink:
        def write(self, text: str) -> None:
            out.append(text)

        def flush(self) -> None:
            pass

    env = {"CONKEEPER_DISABLE_HOOKS": "1", "CONKEEPER_SAVE_INTERVAL": "1"}
    assert run_hook("PostToolUse", _tool(project, 4), env=env, stdout=Sink()) == 0  # type: ignore[arg-type]
    assert out == []
    enabled = {"CONKEEPER_DISABLE_HOOKS": "0", "CONKEEPER_SAVE_INTERVAL": "1"}
    assert run_hook("PostToolUse", _tool(project, 5), env=enabled, stdout=Sink()) == 0  # type: ignore[arg-type]
    assert out and "tool uses since the last save" in out[0]


# --------------------------------------------------------------------------- cheap equivalents


@given(st.one_of(st.text(max_size=200), st.integers()))
def test_session_id_fast_path_matches_the_regex_rule(value: str | int) -> None:
    text = str(value).strip()
    expected = re.sub(r"[^A-Za-z0-9._-]", "_", text)[:128]
    stripped = expected.lstrip(".")
    expected = ("_" * (len(expected) - len(stripped)) + stripped) or "unknown"
    assert sanitize_session_id(value) == expected


@given(st.text(max_size=300))
def test_state_folder_names_are_still_sha1_of_the_identity(identity: str) -> None:
    digest = hashlib.sha1(identity.encode("utf-8", "replace")).hexdigest()[:16]
    assert project_key(identity) == digest


def test_lazy_pattern_compiles_on_first_use_and_behaves_like_re() -> None:
    lazy = LazyPattern(r"(?P<word>b\w+)", re.IGNORECASE)
    assert lazy._compiled is None
    text = "a Bee and a bat"
    assert [m.group("word") for m in lazy.finditer(text)] == ["Bee", "bat"]
    assert lazy._compiled is not None
    assert lazy.search(text, 3).group(0) == "bat"  # type: ignore[union-attr]
    assert lazy.match(text) is None and lazy.fullmatch("bob") is not None
    assert lazy.sub("X", text) == "a X and a X" and lazy.findall(text) == ["Bee", "bat"]
    assert lazy.groupindex == {"word": 1}


# --------------------------------------------------------------------------- value types


def test_frozen_records_compare_hash_and_refuse_assignment(tmp_path: Path) -> None:
    a = ProjectLocation(tmp_path, "id", tmp_path / "m")
    b = ProjectLocation(tmp_path, "id", tmp_path / "m")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != ProjectLocation(tmp_path, "other", tmp_path / "m")
    with pytest.raises(AttributeError):
        a.identity = "x"  # type: ignore[misc]
    assert "identity='id'" in repr(a)
    assert isinstance(a, FrozenRecord)


def test_records_survive_copy_and_pickle(tmp_path: Path) -> None:
    import copy
    import pickle

    for record in (
        Config(save_interval=3),
        ProjectLocation(tmp_path, "i", tmp_path),
        HookResult("c"),
    ):
        assert copy.copy(record) == record == pickle.loads(pickle.dumps(record))
        assert copy.deepcopy(record) == record


def test_config_is_immutable_and_replace_makes_a_changed_copy() -> None:
    base = Config()
    changed = base.replace(save_interval=9, extractor="anthropic")
    assert (changed.save_interval, changed.extractor) == (9, "anthropic")
    assert base.save_interval == 5 and changed != base
    assert changed == Config(save_interval=9, extractor="anthropic")
    with pytest.raises(AttributeError):
        base.save_interval = 1  # type: ignore[misc]
    with pytest.raises(TypeError, match="no field"):
        base.replace(not_a_key=1)


def test_mutable_records_compare_by_value_and_are_not_hashable() -> None:
    first = HookResult(additional_context="x")
    assert first == HookResult(additional_context="x") != HookResult(system_message="x")
    assert isinstance(first, Record)
    with pytest.raises(TypeError):
        hash(first)
    first.system_message = "y"
    assert first.merged(None) is first and not first.is_empty()


def test_a_folder_named_after_a_token_is_scanned_once_not_on_every_hook(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Deciding that a folder's path holds a credential (it is then stored by digest) ran the
    secrets scanner over the path, every rule compiled, on every hook of that folder (+9 ms).
    The decision is kept by the digest of the path, so the next hook compiles nothing."""
    token = "ghp_" + "Zq8vT3mN7xK2pL9wR4sY6uB1cD5eF0gH2jQw"
    folder = tmp_path / "work" / token / "app"
    (folder / ".claude" / "memory").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    _probe(tmp_path, "PostToolUse", _tool(folder, 0))  # decides, and creates the database
    report = _probe(tmp_path, "PostToolUse", _tool(folder, 1))
    assert report["code"] == 0
    assert not HEAVY_POST_TOOL & set(report["modules"])
    assert report["compiled"] == []
    conn = sqlite3.connect(tmp_path / "data" / "conkeeper.db")
    identities = [row[0] for row in conn.execute("SELECT identity FROM projects")]
    assert identities == [identity_of(str(folder))] and identities[0].startswith("redacted-")
    cached = list((tmp_path / "data" / "state" / "identities").iterdir())
    assert [p.name for p in cached] == [identities[0].removeprefix("redacted-")]
    cached += (tmp_path / "data" / "state" / "folders").iterdir()
    assert all(token[-12:] not in p.read_text() for p in cached)
