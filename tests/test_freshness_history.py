"""Stale entries whose evidence comes from a narrowed git history: the commit log's tree diffs
are limited to the folders around the cited files, so moves out of those folders, renames
followed by deletions, short citations and many small commits each get a test through
``conkeeper stale`` on a real repository; the narrowing itself is unit-tested.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from conkeeper.services.upkeep.freshness.history import pathspec
from conkeeper.services.upkeep.freshness.stale import make_targets
from test_freshness_stale import DAY, T0, commit, git, write

NOTES = """# Notes

- Tokens are refreshed in `src/auth/token.py`.
- The legacy bridge is `src/bridge/old.py`.
- Sessions expire in `auth/session.py`.
- Version constants live in `src/meta/version.py`.
- Call `Store.purge()` in `src/db/store.py` to empty it.
- `Store.load()` in `src/db/store.py` reads rows.
- `lint` runs through `make lint`.
"""


def version_module(bump: int) -> str:
    body = "".join(f"SETTING_{i} = {i}\n" for i in range(60))
    return f'VERSION = "1.{bump}"\n{body}'


def store_module(methods: list[str]) -> str:
    body = "".join(f"    def {m}(self):\n        return None\n\n" for m in methods)
    return f"class Store:\n{body}"


@pytest.fixture
def moved(tmp_path: Path) -> Path:
    """A project whose cited files moved out of their folders, were renamed then deleted,
    deleted next to files that stay, bumped by many one-line commits, lost a method."""
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "src/auth/token.py", "def refresh():\n    return 1\n")
    write(root, "src/auth/session.py", "TTL = 30\n")
    write(root, "src/auth/keep.py", "KEEP = 1\n")
    write(root, "src/bridge/old.py", "BRIDGE = 1\n")
    write(root, "src/bridge/other.py", "OTHER = 1\n")
    write(root, "src/meta/version.py", version_module(0))
    write(root, "src/db/store.py", store_module(["load", "purge"]))
    write(root, "Makefile", "lint:\n\truff check .\n")
    commit(root, "initial", T0)
    write(root, ".claude/memory/notes.md", NOTES)
    commit(root, "memory", T0 + DAY)
    (root / "lib/security").mkdir(parents=True)
    git(root, "mv", "src/auth/token.py", "lib/security/tokens.py", when=T0 + 2 * DAY)
    commit(root, "Move token handling out of src", T0 + 2 * DAY)
    git(root, "mv", "src/bridge/old.py", "src/bridge/old_v1.py", when=T0 + 3 * DAY)
    commit(root, "Rename the bridge", T0 + 3 * DAY)
    (root / "src/bridge/old_v1.py").unlink()
    commit(root, "Drop the bridge", T0 + 4 * DAY)
    (root / "src/auth/session.py").unlink()
    commit(root, "Sessions move to the gateway", T0 + 5 * DAY)
    for bump in range(1, 16):  # fifteen commits, each bumping one line: not substantial
        write(root, "src/meta/version.py", version_module(bump))
        commit(root, f"Bump {bump}", T0 + 6 * DAY + bump * 60)
    write(root, "src/db/store.py", store_module(["load"]))
    commit(root, "Drop Store.purge", T0 + 7 * DAY)
    return root


def findings(root: Path) -> dict[int, dict]:
    result = run_cli("stale", "--json", "--no-cache", cwd=root)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["git"] is True and report["git_calls"] <= 7  # per run, not per entry
    return {f["line"]: f for f in report["findings"]}


def test_move_out_of_the_cited_folder_names_the_new_path(moved: Path) -> None:
    found = findings(moved)
    assert found[3]["reason"] == "renamed"
    assert found[3]["detail"] == "renamed to lib/security/tokens.py"
    assert len(found[3]["commit"]) == 10


def test_renamed_then_deleted_says_the_new_name_is_gone_too(moved: Path) -> None:
    found = findings(moved)
    assert found[4]["reason"] == "renamed"
    assert found[4]["detail"] == "renamed to src/bridge/old_v1.py, which is gone too"


def test_short_citation_of_a_deleted_file_names_its_full_path(moved: Path) -> None:
    found = findings(moved)
    assert found[5]["reason"] == "deleted"
    assert found[5]["detail"] == "deleted: src/auth/session.py"


def test_many_small_commits_after_the_entry_are_not_a_substantial_change(moved: Path) -> None:
    found = findings(moved)
    assert 6 not in found  # 15 commits, but only one line differs from the entry's version


def test_method_cited_through_its_class(moved: Path) -> None:
    found = findings(moved)
    assert found[7]["reason"] == "symbol-gone" and found[7]["citation"] == "purge"
    assert 8 not in found and 9 not in found  # `load` is still there, `make lint` too


def test_pathspec_keeps_folders_and_merges_the_deepest_first() -> None:
    folders = {"src", "src/a", "src/a/b", "src/c", "lib"}
    paths = ["src/a/b/x.py", "src/a/y.py", "src/c/z.py", "Makefile", "lib/", "src/a/b/"]
    assert pathspec(paths, folders) == ["Makefile", "lib", "src/a", "src/c"]
    assert pathspec(paths, folders, limit=3) == ["Makefile", "lib", "src"]
    assert pathspec(paths, folders, limit=2) is None  # too many top-level names: whole tree
    assert pathspec([], folders) == []


def test_make_targets() -> None:
    text = "all build: deps\n\techo x: y\nX := 1\nY = 2\n.PHONY: all\nsite::\n# c: d\n"
    targets = make_targets(text)
    assert {"all", "build", ".PHONY", "site"} <= targets
    assert not {"X", "Y", "deps", "#", "c"} & targets


def test_symbols_in_searched_and_ignored_files(tmp_path: Path) -> None:
    """Symbols are looked up in the search's answer; a git-ignored file (which the search
    skips) is read instead, so a symbol there is neither missed nor invented."""
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".gitignore", "local/\n")
    write(root, "src/app.py", "def serve():\n    return 1\n")
    write(root, "local/dev.py", "def dev_only():\n    return 2\n")
    text = (
        "# Notes\n\n- `serve()` in `src/app.py` starts it.\n- `gone_fn()` in `src/app.py`.\n"
        "- `dev_only()` in `local/dev.py` is for laptops.\n- `dev_gone()` in `local/dev.py`.\n"
    )
    write(root, ".claude/memory/notes.md", text)
    commit(root, "initial", T0)
    found = findings(root)
    assert sorted(found) == [4, 6]
    assert found[4]["citation"] == "gone_fn" and found[6]["citation"] == "dev_gone"
