"""Search output at a glance (issue 22.1), through ``conkeeper search``: inside a file, blocks of
adjacent lines in line order, blocks in rank order, context lines marked apart from matches,
and the seed's contract kept (grouped by file, ``**Line N:**``, category tags, count line)."""

from __future__ import annotations

import itertools
import json
import re
from datetime import date
from pathlib import Path

from conftest import run_cli

LINE = re.compile(r"^(?:\*\*Line (\d+):\*\*|  Line (\d+):) ")

NOTES = """# Notes

## Deploys
<!-- @category: decision -->
Deploys run from the release branch.
Nobody deploys on Fridays.

## Billing
The STRIPE_SECRET_KEY lives in the vault; the webhook reads STRIPE_SECRET_KEY at start.
It is rotated every quarter.
Ask finance before changing the billing plan.

## Misc
The STRIPE_SECRET_KEY name is also in the old README.
git commit the lockfile with every dependency change.
"""


def _write(project: Path, name: str, text: str) -> None:
    path = project / ".claude" / "memory" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _shown(out: str) -> list[tuple[int, bool]]:
    """Every shown line of the text output: (line number, is it a match)."""
    found = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            found.append((int(m.group(1) or m.group(2)), m.group(1) is not None))
    return found


def _blocks(out: str) -> list[list[int]]:
    """The shown line numbers, cut into blocks (a break wherever the numbers are not adjacent
    or something else, such as a category line, comes between)."""
    blocks: list[list[int]] = []
    previous_was_line = False
    for line in out.splitlines():
        m = LINE.match(line)
        if m is None:
            previous_was_line = False
            continue
        number = int(m.group(1) or m.group(2))
        if previous_was_line and number == blocks[-1][-1] + 1:
            blocks[-1].append(number)
        else:
            blocks.append([number])
        previous_was_line = True
    return blocks


def _adjacent_lines_stay_together(out: str) -> bool:
    """Within each file, a shown line N+1 is printed right after a shown line N."""
    for part in out.split("\n### ")[1:]:
        order = [n for n, _match in _shown(part)]
        where = {n: i for i, n in enumerate(order)}
        if any(n + 1 in where and where[n + 1] != where[n] + 1 for n in order):
            return False
    return True


def test_context_lines_look_different_from_matches(project: Path) -> None:
    _write(project, "notes.md", NOTES)
    out = run_cli("search", "STRIPE_SECRET_KEY", cwd=project).stdout
    payload = json.loads(run_cli("search", "--json", "STRIPE_SECRET_KEY", cwd=project).stdout)
    truth = {ln["line"]: ln["match"] for r in payload["results"] for ln in r["lines"]}
    shown = dict(_shown(out))
    assert shown == truth  # the text marks exactly the lines JSON calls matches
    assert shown[9] is True and shown[10] is False  # the rotation line is context
    assert "**Line 15:** git commit" not in out  # an unrelated line never looks like a match
    assert "  Line 15: git commit the lockfile" in out
    assert out.rstrip().endswith("Found 2 matches across 1 file.")


def test_blocks_are_in_line_order_and_ranked(project: Path) -> None:
    # line 6 matches one word, the best line (15) all three; a weaker match sits at line 12
    text = (
        "# Cache\n\n## Notes\n- warm-up\n- unrelated\n- the cache is warm\n- x\n\n"
        "## Stampede\n- y\n- z\n- a stampede happened once\n- w\n- v\n"
        "- the cache stampede needs a lock\n- and a timeout\n"
    )
    _write(project, "cache.md", text)
    out = run_cli("search", "--context", "1", "cache stampede lock", cwd=project).stdout
    blocks = _blocks(out)
    assert blocks, out
    assert 15 in blocks[0]  # the block holding the best line comes first
    assert _adjacent_lines_stay_together(out), out  # each block reads top to bottom
    assert blocks[0] == [15, 16]  # the match, then its context
    printed = out.splitlines()
    for before, after in itertools.pairwise(printed):  # two blocks never run together
        a, b = LINE.match(before), LINE.match(after)
        if a and b:
            assert int(b.group(1) or b.group(2)) == int(a.group(1) or a.group(2)) + 1, out


def test_session_log_lines_come_in_line_order(project: Path) -> None:
    """``search --sessions`` over an observation log: no more 7, 8, 16, 17, 18, 9."""
    today = date.today().isoformat()
    rows = [
        f"- **10:{n:02d}:00** | `Bash` | execute | — | `pytest -q tests/t{n}.py` | "
        + ("failure: tests failed" if n % 3 == 0 else "success")
        for n in range(1, 21)
    ]
    _write(
        project,
        f"sessions/{today}-observations.md",
        f"# Session Observations — {today}\n\n" + "\n".join(rows) + "\n",
    )
    out = run_cli("search", "--sessions", "why did the tests fail?", cwd=project).stdout
    blocks = _blocks(out)
    assert blocks, out
    assert _adjacent_lines_stay_together(out), out
    numbers = [n for n, _match in _shown(out)]
    assert len(numbers) == len(set(numbers))  # no line shown twice
    assert "Found" in out.splitlines()[-1]


def test_each_block_carries_its_category(project: Path) -> None:
    _write(project, "notes.md", NOTES)
    out = run_cli("search", "deploys", cwd=project).stdout
    assert "### .claude/memory/notes.md\n<!-- @category: decision -->\n**Line 5:**" in out
    assert "  Line 6: Nobody deploys" not in out  # line 6 matches by stem: it is a match
    assert "**Line 6:** Nobody deploys on Fridays." in out
