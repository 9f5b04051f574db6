"""``conkeeper stale`` on the shapes of a real project's history (pallets/markupsafe walked
from 2.0.1 to 3.0: its C extension, private helpers, conftest fixtures, a maintenance branch
merged back, a changelog that keeps removed names). Each test builds the case in a small
fixture repository and runs the real command.
"""

from __future__ import annotations

from pathlib import Path

from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write


def project(tmp_path: Path, files: dict[str, str], memory: str) -> Path:
    """A git project holding ``files``, with ``memory`` written into patterns.md a day later."""
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for rel, text in files.items():
        write(root, rel, text)
    commit(root, "initial", T0)
    write(root, ".claude/memory/patterns.md", "# Patterns\n\n" + memory)
    commit(root, "memory", T0 + DAY)
    return root


def test_a_one_character_code_span_does_not_shift_the_spans_after_it(tmp_path: Path) -> None:
    memory = "- `%` formatting escapes through `EscapeHelper` in `src/fmt.py`.\n"
    root = project(tmp_path, {"src/fmt.py": "class EscapeHelper:\n    pass\n"}, memory)
    write(root, "src/fmt.py", "class ArgHelper:\n    pass\n")
    commit(root, "rename the helper", T0 + 2 * DAY)
    finding = by_line(stale_json(root, "--no-cache"))[3]
    assert (finding["reason"], finding["citation"]) == ("symbol-gone", "EscapeHelper")
