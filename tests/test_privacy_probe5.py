"""Privacy probe 5: the write side, what ConKeeper stores and shows about held and cut text.

Each test puts credentials into a text a person or an agent brought in (a memory file's name,
a held entry, its reason, a cut instruction line) and runs the real entry points (the CLI, hooks
as subprocesses with real-shaped payloads), then reads every byte written under the data home,
HOME and the project, and everything printed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import cli_env, run_cli
from tests.test_privacy_identity import (
    GITHUB,
    every_byte,
    leaks,
    previous_code,
    token_folder,
)

NAMED = f"{GITHUB}.md"  # a memory file named after a token


def plain_project(base: Path) -> Path:
    """A git project in a folder named like any other."""
    root = base / "work" / "app"
    (root / ".claude" / "memory").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def shown_and_written(project: Path, data: Path, shown: dict[str, str]) -> list[str]:
    """Where a token's end appears: in what was printed, or in any byte under the data home
    and the project (the journal in ``.history/`` included)."""
    texts = {where: text.encode() for where, text in shown.items()}
    texts.update({str(p): b for p, b in every_byte(data, project).items()})
    return leaks(texts)


def test_a_memory_file_named_after_a_token_is_journaled_without_its_name(
    tmp_path: Path, isolated_home: Path
) -> None:
    """``remember --file ghp_….md`` twice: the journal keeps the file's name as a digest and
    its redacted form; ``history`` shows the redacted name and ``undo`` still finds the file
    (the second write taken back, then the first, which removes the file it created)."""
    project = plain_project(tmp_path)
    memory = project / ".claude" / "memory"
    assert run_cli("init", "--yes", cwd=project).returncode == 0
    shown = {}
    for text in ("we deploy with make deploy", "we release on fridays"):
        saved = run_cli("remember", "--file", NAMED, text, cwd=project)
        assert saved.returncode == 0, saved.stderr
        shown[f"remember {text}"] = saved.stdout + saved.stderr
    for args in (("history",), ("history", "--json"), ("undo",)):
        proc = run_cli(*args, cwd=project)
        assert proc.returncode == 0, proc.stderr
        shown[" ".join(args)] = proc.stdout + proc.stderr
    assert "[REDACTED:github-token].md" in shown["history"]
    assert "fridays" not in (memory / NAMED).read_text()  # the live file found by its digest
    assert "deploy" in (memory / NAMED).read_text()
    assert run_cli("undo", cwd=project).returncode == 0
    assert not (memory / NAMED).exists()
    assert shown_and_written(project, tmp_path / "data", shown) == []


def test_a_token_named_file_in_a_token_named_folder_keeps_neither(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Both the project's folder and the memory file are named after tokens: the journal keys
    both, ``history --json`` shows both redacted, and ``undo`` restores the live file."""
    project = token_folder(tmp_path)
    memory = project / ".claude" / "memory"
    assert run_cli("init", "--yes", cwd=project).returncode == 0
    saved = run_cli("remember", "--file", NAMED, "we deploy with make deploy", cwd=project)
    assert saved.returncode == 0, saved.stderr
    listed = run_cli("history", "--json", cwd=project)
    files = [f for entry in json.loads(listed.stdout) for f in entry.get("files", [])]
    assert any(str(f).endswith("[REDACTED:github-token].md") for f in files), files
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert not (memory / NAMED).exists()
    shown = {"remember": saved.stdout, "history": listed.stdout, "undo": undone.stdout}
    assert shown_and_written(project, tmp_path / "data", shown) == []


def test_entries_an_earlier_version_wrote_with_the_name_are_rewritten(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The version before this one journaled the name in clear; the next write of such a file
    rewrites the journal's older entries, and ``undo`` still reaches the file through them."""
    old = previous_code(tmp_path)
    project = plain_project(tmp_path)
    memory = project / ".claude" / "memory"
    previous_env = {**cli_env(), "PYTHONPATH": str(old)}
    assert run_cli("init", "--yes", cwd=project, env=previous_env).returncode == 0
    for text in ("we deploy with make deploy", "we release on fridays"):
        older = run_cli("remember", "--file", NAMED, text, cwd=project, env=previous_env)
        assert older.returncode == 0, older.stderr
    journal = b"".join(every_byte(memory / ".history").values())
    assert GITHUB.encode() in journal  # as the earlier version wrote it
    again = run_cli("remember", "--file", NAMED, "we tag releases by date", cwd=project)
    assert again.returncode == 0, again.stderr
    assert run_cli("undo", cwd=project).returncode == 0
    assert run_cli("undo", cwd=project).returncode == 0  # the earlier version's entry
    assert "fridays" not in (memory / NAMED).read_text()
    assert shown_and_written(project, tmp_path / "data", {}) == []
