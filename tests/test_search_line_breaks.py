"""The line ``conkeeper search`` names is the line ``conkeeper tag add`` takes, in a memory
file holding a break :meth:`str.splitlines` splits at and a memory file's lines do not
(U+2028, form feed, ...): the privacy module cleaned the file with ``splitlines`` and the index
numbered those pieces, so ``search`` said one line more than ``tag add`` needed. Through the
real CLI, as subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli

PASTED = (
    "# Progress\n\n## Notes\n- first note{brk}continued on a pasted line\n\n"
    "## Build\n- Use zebrafrobnicator for the release build\n"
)


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    assert run_cli("init", "--no", cwd=root).returncode == 0
    return root


def _found_line(root: Path, query: str) -> tuple[str, int]:
    done = run_cli("search", "--json", query, cwd=root)
    assert done.returncode == 0, done.stderr
    (hit,) = json.loads(done.stdout)["results"]
    return str(hit["path"]), int(hit["line"])


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x0c", "\x0b", "\x1c", "\x85"])
def test_the_line_search_names_is_the_one_tag_add_takes(tmp_path: Path, brk: str) -> None:
    root = _project(tmp_path)
    memory = root / ".claude/memory/progress.md"
    memory.write_text(PASTED.format(brk=brk), encoding="utf-8")
    path, line = _found_line(root, "zebrafrobnicator")
    assert line == 7, (path, line)
    tagged = run_cli("tag", "add", path, str(line), "decision", cwd=root)
    assert tagged.returncode == 0, tagged.stderr
    lines = memory.read_text(encoding="utf-8").split("\n")
    assert lines[6:8] == [
        "- Use zebrafrobnicator for the release build",
        "<!-- @category: decision -->",
    ], lines


def test_a_private_block_after_a_pasted_break_stays_hidden(tmp_path: Path) -> None:
    """The privacy reading is unchanged: a ``<private>`` tag that starts after a U+2028 still
    opens a block, and what it hides is never found; the line after it keeps its number."""
    root = _project(tmp_path)
    memory = root / ".claude/memory/progress.md"
    memory.write_text(
        "# Progress\n\n## Notes\n- staging note\u2028<private>\nvaultword hunter2\n</private>\n"
        "- Use zebrafrobnicator for the release build\n",
        encoding="utf-8",
    )
    found = run_cli("search", "--json", "vaultword", cwd=root)
    assert json.loads(found.stdout)["results"] == [], found.stdout
    assert "hunter2" not in run_cli("search", "staging", cwd=root).stdout
    assert _found_line(root, "zebrafrobnicator")[1] == 7
