"""Project roots, worktree identity and data-home resolution."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conkeeper.domain.paths import (
    clean,
    data_folder,
    data_home,
    db_file,
    db_path,
    find_project_root,
    global_memory_dir,
    global_memory_folder,
    join,
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


# The search read path spells paths as strings (no pathlib import); they must be exactly the
# strings the Path-returning functions give, or a root would look moved and be re-indexed.
PATH_TEXT = st.text(alphabet=st.sampled_from(list("/.a~b-_ é")), max_size=24)


@settings(max_examples=500, deadline=None)
@given(PATH_TEXT, st.lists(PATH_TEXT, max_size=3))
def test_path_strings_are_spelled_as_pathlib_spells_them(text: str, names: list[str]) -> None:
    assert clean(text) == str(PurePosixPath(text))
    assert join(text or ".", *names) == str(PurePosixPath(text or ".", *names))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["", "/", "//x", "~/x", "/tmp/a//b/./", "rel/dir", "/tmp/x/../y"]))
def test_the_data_home_strings_and_paths_agree(value: str) -> None:
    env = {"HOME": "/home/u/", "CONKEEPER_HOME": value, "XDG_DATA_HOME": value + "/xdg/"}
    assert str(data_home(env)) == data_folder(env) == str(Path(data_folder(env)))
    assert str(db_path(env)) == db_file(env)
    assert str(global_memory_dir(env)) == global_memory_folder(env) == "/home/u/.claude/memory"


def test_a_location_hands_out_paths_but_holds_strings(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src").mkdir()
    location = locate_project(str(tmp_path / "repo" / "src"))
    assert location.root == (tmp_path / "repo").resolve()
    assert location.memory_dir == location.root / ".claude" / "memory"
    assert location.root_folder == str(location.root)
    assert location.memory_folder == str(location.memory_dir)
    assert location == locate_project(tmp_path / "repo")
    assert location.name == "repo"
