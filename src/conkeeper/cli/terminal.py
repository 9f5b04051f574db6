"""Terminal conventions of the CLI: colour, a pager, and when neither applies.

Why it exists: a person at a terminal reads long ``search --sessions`` output more easily when it
is coloured and paged, but a pipe, a ``--json`` reader or a hook must get plain bytes. The rules,
as git has them:

* both only when standard output is a terminal, and never for ``--json`` or a command that is
  not in :data:`PAGED` (hooks, servers, interactive or streaming commands);
* colour unless ``NO_COLOR`` is set (to anything but the empty string, see no-color.org),
  ``TERM`` is ``dumb``, or ``--no-color`` is given;
* the output goes through a pager only when it has more lines than the screen: ``$PAGER``
  (``less`` when unset; ``LESS`` defaults to ``FRX`` as git sets it), off with ``--no-pager``
  or ``PAGER=cat``/empty.

``--no-color`` and ``--no-pager`` are global: :func:`take_flags` removes them from the command
line before any command parses it. Standard library only; imported by ``main`` only for a
command in :data:`PAGED`.
"""

from __future__ import annotations

import io
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

GLOBAL_FLAGS = ("--no-color", "--no-pager")
# Commands that print a report and return: paged and coloured on a terminal.
PAGED = frozenset(
    {
        "search",
        "sessions",
        "summary",
        "observations",
        "facts",
        "show",
        "timeline",
        "history",
        "insights",
        "stale",
        "consolidate",
        "privacy",
        "doctor",
        "corrections",
        "config",
        "decisions",
    }
)
BOLD, DIM, CYAN, GREEN, YELLOW, RESET = (
    "\x1b[1m",
    "\x1b[2m",
    "\x1b[36m",
    "\x1b[32m",
    "\x1b[33m",
    "\x1b[0m",
)


class Terminal:
    """What this run may do on the terminal: ``color`` and ``pager`` (a command or ``""``)."""

    def __init__(self, color: bool = False, pager: str = "") -> None:
        self.color = color
        self.pager = pager


_STATE = [Terminal()]


def take_flags(args: list[str]) -> tuple[list[str], set[str]]:
    """``args`` without the global flags (those before a ``--`` only), and the flags found."""
    found: set[str] = set()
    kept: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            kept.extend(args[i:])
            break
        if arg in GLOBAL_FLAGS:
            found.add(arg)
        else:
            kept.append(arg)
    return kept, found


def setup(command: str, args: list[str], flags: set[str], stdout: TextIO | None = None) -> Terminal:
    """Decide colour and pager for ``command`` run with ``args`` and the global ``flags``."""
    out = sys.stdout if stdout is None else stdout
    is_tty = out.isatty()
    eligible = is_tty and command in PAGED and "--json" not in args
    color = (
        eligible
        and "--no-color" not in flags
        and not os.environ.get("NO_COLOR")
        and os.environ.get("TERM") != "dumb"
    )
    pager = ""
    if eligible and "--no-pager" not in flags:
        pager = os.environ.get("PAGER", "less").strip()
        if pager == "cat" or not _exists(pager):
            pager = ""
    _STATE[0] = Terminal(color, pager)
    return _STATE[0]


def _exists(pager: str) -> bool:
    """Whether the pager's program can be found (a missing ``less`` means no pager, not lost
    output)."""
    import shutil

    words = pager.split()
    return bool(words) and shutil.which(words[0]) is not None


def current() -> Terminal:
    """The decision :func:`setup` made for this run (plain output when it was not called)."""
    return _STATE[0]


def paint(text: str, style: str) -> str:
    """``text`` in ``style`` when colour is on, else unchanged."""
    return f"{style}{text}{RESET}" if current().color and text else text


def style_search(text: str) -> str:
    """The search layout coloured line by line (matches bold, context dim, file headers and
    labels coloured); unchanged when colour is off."""
    if not current().color:
        return text
    out = []
    for line in text.split("\n"):
        if line.startswith("**Line ") and ":** " in line:
            head, _, rest = line.partition(":** ")
            out.append(f"{BOLD}{GREEN}{head[2:]}:{RESET} {rest}")
        elif line.startswith("  Line "):
            out.append(f"{DIM}{line}{RESET}")
        elif line.startswith(("### ", "## ")):
            out.append(f"{BOLD}{CYAN}{line}{RESET}")
        elif line.startswith("<!-- @"):
            out.append(f"{YELLOW}{line}{RESET}")
        elif line.startswith("**") and ":** " in line:
            head, _, rest = line.partition(":** ")
            out.append(f"{BOLD}{head[2:]}:{RESET} {rest}")
        else:
            out.append(line)
    return "\n".join(out)


def run_paged(run: Callable[[], int], state: Terminal | None = None) -> int:
    """Run ``run`` with standard output collected, then show it: through the pager when it is
    longer than the screen, else as it is."""
    state = state or current()
    if not state.pager:
        return run()
    real = sys.stdout
    buffer = io.StringIO()
    sys.stdout = buffer
    try:
        code = run()
    finally:
        sys.stdout = real
    text = buffer.getvalue()
    if text.count("\n") < _rows(real):
        real.write(text)
        real.flush()
        return code
    _page(state.pager, text, real)
    return code


def _rows(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).lines
    except (AttributeError, ValueError, OSError):
        return 24


def _page(pager: str, text: str, real: TextIO) -> None:
    """Pipe ``text`` into ``pager`` (a shell command, like git); if it cannot start, print."""
    import subprocess

    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    try:
        proc = subprocess.Popen(pager, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        real.write(text)
        return
    assert proc.stdin is not None
    try:
        proc.stdin.write(text.encode("utf-8", errors="replace"))
        proc.stdin.close()
    except BrokenPipeError:  # the reader quit early (q in less)
        pass
    proc.wait()
