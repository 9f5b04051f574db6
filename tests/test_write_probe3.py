"""A third round on "nothing the user wrote is ever lost", from outside.

The shape swept here: a command reads a person's file, decides what to change, and only then
takes the write lock. Whatever another writer (a person in an editor, a second ConKeeper
process) did in between must survive. Each race is made certain with a real CLI process that
stops at its first write-path call (:func:`paused_cli`) until the test, playing the person or
the other session, has done its part: no sleeps.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import cli_env, run_cli

# The CLI as a person runs it, except that the first call into the write path (edit_file)
# prints "paused" and waits for a line on stdin: the test acts in between, then lets it go.
PAUSED = (
    "import runpy, sys\n"
    "from conkeeper.domain import safewrite\n"
    "real = safewrite.edit_file\n"
    "state = {'paused': False}\n"
    "def edit_file(*args, **kwargs):\n"
    "    if not state['paused']:\n"
    "        state['paused'] = True\n"
    "        sys.stdout.write('paused\\n'); sys.stdout.flush()\n"
    "        sys.stdin.readline()\n"
    "    return real(*args, **kwargs)\n"
    "safewrite.edit_file = edit_file\n"
    "sys.argv = ['conkeeper', *sys.argv[1:]]\n"
    "runpy.run_module('conkeeper', run_name='__main__')\n"
)


class Paused:
    """A CLI process stopped at its first write; :meth:`finish` lets it write and returns
    ``(exit code, stdout, stderr)``."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", PAUSED, *args],
            cwd=cwd,
            env=cli_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line != b"paused\n":  # it ended (or failed) before writing anything
            out, err = self.proc.communicate(timeout=120)
            raise AssertionError(f"never reached a write: {line!r} {out!r} {err!r}")

    def finish(self) -> tuple[int, str, str]:
        out, err = self.proc.communicate(b"go\n", timeout=120)
        return self.proc.returncode, out.decode(), err.decode()


def _memory(project: Path) -> Path:
    return project / ".claude" / "memory"


# --------------------------------------------------------------------------- consolidate

PNPM = b"- Use pnpm for installing packages in this repo\n"


def test_consolidate_never_removes_the_last_copy_of_a_duplicate_a_person_just_merged(
    project: Path,
) -> None:
    """``consolidate --apply`` planned to remove the second copy of a duplicated entry; the
    person removed that copy by hand before it took the lock, and the removal, looked up
    "nearest to where it was", took the copy it meant to keep: the entry was gone from
    memory. A removal whose kept copy is no longer there apart from it is refused now."""
    patterns = _memory(project) / "patterns.md"
    patterns.write_bytes(b"# Patterns\n\n" + PNPM + b"- Keep functions short\n" + PNPM)
    paused = Paused(project, "consolidate", "--apply")
    patterns.write_bytes(b"# Patterns\n\n" + PNPM + b"- Keep functions short\n")  # the person
    code, _, err = paused.finish()
    assert patterns.read_bytes().count(PNPM) == 1, (code, err)
    assert code == 1 and "changed since it was read" in err


def test_two_consolidate_runs_at_once_keep_one_copy(project: Path) -> None:
    """The same race between two ``consolidate --apply`` processes: both planned with both
    copies there; the second removed the copy the first had kept."""
    patterns = _memory(project) / "patterns.md"
    patterns.write_bytes(b"# Patterns\n\n" + PNPM + b"- Keep functions short\n" + PNPM)
    paused = Paused(project, "consolidate", "--apply")
    first = run_cli("consolidate", "--apply", cwd=project)
    assert first.returncode == 0, first.stderr
    paused.finish()
    assert patterns.read_bytes().count(PNPM) == 1


def test_consolidate_keeps_a_removal_whose_kept_copy_in_another_file_is_gone(
    project: Path,
) -> None:
    """A duplicate across files: the copy in the more authoritative file is kept. When the
    person deleted that copy while consolidate ran, the other copy is the only one left and
    is not removed."""
    memory = _memory(project)
    patterns = memory / "patterns.md"
    active = memory / "active-context.md"
    patterns.write_bytes(b"# Patterns\n\n" + PNPM)
    active.write_bytes(b"# Active Context\n\n" + PNPM)
    planned = run_cli("consolidate", cwd=project)
    keep_line = next(line for line in planned.stdout.splitlines() if "keep " in line)
    kept, other = (patterns, active) if "patterns.md" in keep_line else (active, patterns)
    paused = Paused(project, "consolidate", "--apply")
    kept.write_bytes(kept.read_bytes().replace(PNPM, b""))  # the person removes it there
    code, _, err = paused.finish()
    assert other.read_bytes().count(PNPM) == 1, (code, err)
