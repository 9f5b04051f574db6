"""``conkeeper init``: layout from templates, never overwriting, idempotent, the two questions,
and one-line errors on bad input — exercised through the real command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_env, run_cli
from conkeeper.domain.frontmatter import parse_front_matter
from conkeeper.domain.memory import MEMORY_LAYOUT, memory_file_kind, parse_entries, template_text

PROJECT_FILES = [i.path for i in MEMORY_LAYOUT["project"] if not i.is_dir]
IGNORE_LINE = ".claude/memory/sessions/*-observations.md"
TAGGABLE = "# Progress\n\n## Completed\n- Fixed the crash in the hook when stdin was empty.\n"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
        and ".git/" not in p.relative_to(folder).as_posix() + "/"
        and not p.relative_to(folder).as_posix().startswith(".git/")
    }


def test_fresh_init_creates_the_layout_non_interactively(tmp_path: Path) -> None:
    root = project(tmp_path)
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 0, proc.stderr
    memory = root / ".claude" / "memory"
    for rel in PROJECT_FILES:
        assert (memory / rel).is_file(), rel
    assert (memory / "sessions").is_dir() and (memory / "decisions").is_dir()
    assert (memory / "corrections-queue.md").read_text() == (
        "# Corrections Queue\n<!-- Auto-populated by ConKeeper UserPromptSubmit hook -->\n\n"
    )
    assert not (root / ".gitignore").exists()  # stdin is not a terminal: the answer is no
    assert "created  active-context.md" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_second_run_is_idempotent_and_never_overwrites(tmp_path: Path) -> None:
    root = project(tmp_path)
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    mine = "# My patterns\n\nHand-written; must survive init.\n"
    (memory / "patterns.md").write_text(mine)
    first = run_cli("init", "--json", cwd=root)
    report = json.loads(first.stdout)
    assert report["existing"] == ["patterns.md"]
    assert (
        "patterns.md" not in report["created"]
        and len(report["created"]) == len(MEMORY_LAYOUT["project"]) - 1
    )
    before = snapshot(root)
    mtimes = {p: p.stat().st_mtime_ns for p in memory.rglob("*")}
    second = json.loads(run_cli("init", "--json", cwd=root).stdout)
    assert second["created"] == [] and len(second["existing"]) == len(MEMORY_LAYOUT["project"])
    assert snapshot(root) == before
    assert {p: p.stat().st_mtime_ns for p in memory.rglob("*")} == mtimes
    assert (memory / "patterns.md").read_text() == mine


def test_init_from_a_subdirectory_uses_the_work_tree_root(tmp_path: Path) -> None:
    root = project(tmp_path)
    sub = root / "src" / "pkg"
    sub.mkdir(parents=True)
    proc = run_cli("init", "--json", cwd=sub)
    assert json.loads(proc.stdout)["memory_dir"] == str((root / ".claude" / "memory").resolve())
    other = tmp_path / "elsewhere"
    other.mkdir()
    proc = run_cli("init", "--path", str(root), "--json", cwd=other)
    assert json.loads(proc.stdout)["created"] == []


def test_gitignore_yes_adds_once_and_keeps_the_file(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / ".gitignore").write_bytes(b"node_modules/\r\n*.pyc")
    assert run_cli("init", "--yes", cwd=root).returncode == 0
    assert run_cli("init", "--gitignore", cwd=root).returncode == 0
    data = (root / ".gitignore").read_bytes()
    assert data.startswith(b"node_modules/\r\n*.pyc\r\n")
    assert data.count(IGNORE_LINE.encode()) == 1
    assert data.count(b".claude/memory/.last-sync") == 1 and data.endswith(b".last-sync\r\n")
    for local in (
        ".claude/memory/sessions/2026-02-09-observations.md",
        ".claude/memory/.last-sync",
    ):
        status = subprocess.run(["git", "check-ignore", local], cwd=root, capture_output=True)
        assert status.returncode == 0, local
    again = run_cli("init", "--gitignore", "--json", cwd=root)
    assert json.loads(again.stdout)["gitignore"] == "present"
    assert (root / ".gitignore").read_bytes() == data


def test_no_and_no_gitignore_leave_gitignore_alone(tmp_path: Path) -> None:
    root = project(tmp_path)
    for flags in (("--no",), ("--yes", "--no-gitignore")):
        proc = run_cli("init", *flags, "--json", cwd=root)
        assert json.loads(proc.stdout)["gitignore"] == "declined"
    assert not (root / ".gitignore").exists()


def test_declined_tagging_adds_nothing_and_accepted_tagging_tags(tmp_path: Path) -> None:
    root = project(tmp_path)
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "progress.md").write_text(TAGGABLE)
    declined = run_cli("init", "--no", "--json", cwd=root)
    assert json.loads(declined.stdout)["retro_tagging"]["status"] == "declined"
    assert (memory / "progress.md").read_text() == TAGGABLE
    assert "@category" not in (memory / "progress.md").read_text()

    accepted = run_cli("init", "--retro-tag", "--no-gitignore", cwd=root)
    assert accepted.returncode == 0, accepted.stderr
    assert "+ <!-- @category: bugfix -->" in accepted.stdout  # the plan is shown first
    assert "added 1 tags in 1 files" in accepted.stdout
    assert (memory / "progress.md").read_text() == TAGGABLE + "<!-- @category: bugfix -->\n"
    grep = subprocess.run(
        ["grep", "-rn", "@category: bugfix", str(memory)], capture_output=True, text=True
    )
    assert "progress.md:5:" in grep.stdout
    assert not (root / ".gitignore").exists()


def test_global_init_uses_home_and_skips_gitignore(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proc = run_cli("init", "--global", "--yes", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    memory = home / ".claude" / "memory"
    assert report["memory_dir"] == str(memory) and report["gitignore"] == "not-applicable"
    assert sorted(report["created"]) == sorted(i.path for i in MEMORY_LAYOUT["global"])
    assert (memory / "preferences.md").is_file() and (memory / ".memory-config.md").is_file()
    assert not (memory / "corrections-queue.md").exists()
    again = json.loads(run_cli("init", "--global", "--json", cwd=tmp_path).stdout)
    assert again["created"] == []


@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_questions_are_asked_at_a_terminal(tmp_path: Path) -> None:
    import pty

    root = project(tmp_path)
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "progress.md").write_text(TAGGABLE)
    controller, terminal = pty.openpty()
    try:
        os.write(controller, b"y\nn\n")
        proc = subprocess.run(
            [sys.executable, "-m", "conkeeper", "init"],
            stdin=terminal,
            capture_output=True,
            cwd=root,
            env=cli_env(),
            timeout=60,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    stderr = proc.stderr.decode()
    assert "Add sessions/*-observations.md, .last-sync and interrupted writes" in stderr
    assert "Tag existing memory entries with categories? [y/N]" in stderr
    assert IGNORE_LINE in (root / ".gitignore").read_text()
    assert (memory / "progress.md").read_text() == TAGGABLE  # answered no


def test_memory_root_that_is_a_file_is_one_line_error(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / ".claude").mkdir()
    (root / ".claude" / "memory").write_text("my notes, not a folder")
    proc = run_cli("init", "--yes", cwd=root)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "is a file" in proc.stderr
    assert (root / ".claude" / "memory").read_text() == "my notes, not a folder"
    assert not (root / ".gitignore").exists()

    other = project(tmp_path / "b")
    (other / ".claude").write_text("a file where the folder should be")
    proc = run_cli("init", cwd=other)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert (other / ".claude").read_text() == "a file where the folder should be"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs permissions")
def test_unwritable_folder_is_one_line_error(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / ".claude").mkdir()
    (root / ".claude").chmod(0o500)
    try:
        proc = run_cli("init", cwd=root)
    finally:
        (root / ".claude").chmod(0o700)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "permission denied" in proc.stderr


def test_bad_existing_files_are_left_alone(tmp_path: Path) -> None:
    root = project(tmp_path)
    memory = root / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "progress.md").write_bytes(b"# Progress\x00\x01binary")
    (memory / "glossary.md").write_bytes("# Glossaire\n- Fixed café bug\n".encode("latin-1"))
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n- Fixed the crash when stdin was empty.\n")
    (memory / "patterns.md").symlink_to(outside)
    (memory / "active-context.md").symlink_to(tmp_path / "dangling.md")
    before = snapshot(memory)
    proc = run_cli("init", "--yes", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert all(line.startswith("conkeeper: warning:") for line in proc.stderr.splitlines())
    assert outside.read_text() == "# Outside\n- Fixed the crash when stdin was empty.\n"
    assert not (tmp_path / "dangling.md").exists()
    after = snapshot(memory)
    assert {k: after[k] for k in before if k in after} == {
        k: v for k, v in before.items() if k in after
    }
    assert after["progress.md"] == before["progress.md"]
    assert after["glossary.md"] == before["glossary.md"]


def test_templates_parse_without_stray_entries_or_tags() -> None:
    for scope, items in MEMORY_LAYOUT.items():
        for item in items:
            if item.template is None or memory_file_kind(item.path) in ("schema", "config"):
                continue
            for entry in parse_entries(template_text(item.template)):
                assert entry.categories == (), (scope, item.path)
                assert "Example" not in entry.heading
    adr = parse_entries(template_text("adr-template.md"))
    assert adr[0].categories == ("decision",)
    schema = template_text("schema.md")
    for needle in (
        "<!-- @category: name -->",
        "<!-- @tag: name -->",
        "### Searching by Category",
        "[a-z][a-z0-9-]*",
        "private: true",
        "- **HH:MM:SS** | `Tool` | action | `path` | `summary` | status",
        '- **YYYY-MM-DD HH:MM:SS** | correction | "text" | ref: previous assistant message',
        "# Session Retrospective — YYYY-MM-DD",
        "conkeeper search",
        *("`" + c + "`" for c in ("decision", "learning", "efficiency", "architecture")),
    ):
        assert needle in schema, needle


def test_config_template_lists_every_key_with_its_default() -> None:
    from conkeeper.domain import config

    fm = parse_front_matter(template_text("memory-config.md"))
    assert fm.closed and not fm.errors
    expected = [
        "token_budget", "suggest_memories", "auto_load", "output_style", "auto_sync_threshold",
        "hard_block_threshold", "context_window_tokens", "observation_hook",
        "observation_detail", "correction_sensitivity", "auto_reflect", "reflect_depth",
        "save_interval", "sessions_days",
    ]  # fmt: skip
    assert list(fm.values) == expected
    for key, raw in fm.values.items():
        assert config.parse_value(key, raw) == config.KEYS[key].default, key
