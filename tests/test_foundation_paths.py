"""Project roots, worktree identity and data-home resolution."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conkeeper.domain.paths import (
    data_home,
    db_path,
    find_project_root,
    global_memory_dir,
    locate_project,
    project_identity,
)


def test_data_home_precedence(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    assert data_home(env) == tmp_path / ".local/share/conkeeper"
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    assert data_home(env) == tmp_path / "xdg/conkeeper"
    env["CONKEEPER_HOME"] = str(tmp_path / "ck")
    assert data_home(env) == tmp_path / "ck"
    assert db_path(env) == tmp_path / "ck/conkeeper.db"
    assert global_memory_dir(env) == tmp_path / ".claude/memory"


def test_root_is_git_work_tree_from_a_subfolder(tmp_path: Path) -> None:
    (tmp_path / "repo/.git").mkdir(parents=True)
    deep = tmp_path / "repo/src/pkg"
    deep.mkdir(parents=True)
    location = locate_project(deep)
    assert location.root == (tmp_path / "repo").resolve()
    assert location.memory_dir == location.root / ".claude/memory"
    assert location.name == "repo"


def test_outside_git_the_directory_itself_is_the_root(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert find_project_root(plain) == plain.resolve()


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_linked_worktrees_share_one_identity(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=main, check=True)
    (main / "README").write_text("x")
    subprocess.run([*git, "add", "README"], cwd=main, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=main, check=True)
    linked = tmp_path / "linked"
    subprocess.run([*git, "worktree", "add", "-q", str(linked)], cwd=main, check=True)
    assert (linked / ".git").is_file()
    assert project_identity(linked) == project_identity(main) == str(main.resolve())
    assert locate_project(linked / ".").root == linked.resolve()


def test_relative_gitdir_pointer_resolves(tmp_path: Path) -> None:
    main_git = tmp_path / "main/.git"
    wt_git = main_git / "worktrees/feature"
    wt_git.mkdir(parents=True)
    (wt_git / "commondir").write_text("../..\n")
    feature = tmp_path / "feature"
    feature.mkdir()
    (feature / ".git").write_text("gitdir: ../main/.git/worktrees/feature\n")
    assert project_identity(feature) == str((tmp_path / "main").resolve())
