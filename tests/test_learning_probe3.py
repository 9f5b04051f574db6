"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round three: cases a
checker would try that still came out wrong through the real entry points (hooks run as
subprocesses with Claude Code's payloads, then the CLI), each failing before its fix.

* ``stale`` called a name cited without a file "now nowhere in the code" when the file that
  defined it had only left git's view (a vendored folder moved into ``.gitignore``): the name
  was looked for in tracked files only, though the file still sat in the work tree;
* ``reflect`` said a test was "still failing when the work stopped" when the last run of that
  command passed but was written another way: in a subshell (``(cd api && pytest -q)``), with
  ``env``/``timeout``/``time`` in front, or through ``bash -c '...'``.
"""

from __future__ import annotations

from pathlib import Path

from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write


def test_a_name_still_defined_in_a_file_git_ignores_is_not_gone(tmp_path: Path) -> None:
    root = tmp_path / "legacy"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "vendor/payloads/compat.py", "def decode_legacy(raw):\n    return raw\n")
    write(root, "src/totals.py", "def grand_total(lines):\n    return 0\n")
    commit(root, "code", T0)
    write(
        root,
        ".claude/memory/patterns.md",
        "# Patterns\n\n- Old payloads go through `decode_legacy`.\n"
        "- Totals: `grand_total` sums the lines.\n",
    )
    commit(root, "memory", T0 + DAY)
    # the vendored folder leaves git's view but stays in the work tree; a real rename beside it
    write(root, ".gitignore", "vendor/\n")
    git(root, "rm", "-r", "-q", "--cached", "vendor")
    write(root, "src/totals.py", "def total(lines):\n    return 0\n")
    commit(root, "vendor/ is fetched, not committed; rename the total", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    assert sorted(found) == [4], found  # the renamed total only
    assert found[4]["citation"] == "grand_total"
    # once the ignored file loses the name too, it is gone
    write(root, "vendor/payloads/compat.py", "def decode(raw):\n    return raw\n")
    found = by_line(stale_json(root))
    assert sorted(found) == [3, 4], found
    assert found[3]["detail"] == (
        "in vendor/payloads/compat.py when this entry was written; now nowhere in the code"
    )
