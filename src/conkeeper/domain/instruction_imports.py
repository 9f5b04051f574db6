"""The files an agent instruction file pulls in by an ``@path`` import.

Why it exists: Claude Code's ``CLAUDE.md``, Gemini CLI's ``GEMINI.md`` and Cursor's rules load
the file an ``@path`` line names (``@docs/setup.md``, ``@~/notes.md``) with themselves, as
standing instructions. The PostToolUse hook tells the person when the agent writes text that
reads like an instruction into such a file, but an import line reads like nothing: the agent
that put its order into ``docs/setup.md`` and ``@docs/setup.md`` into ``CLAUDE.md`` had it
loaded into every later session unreported, and an import of a memory file (``@.claude/memory/
patterns.md``) loaded the lines SessionStart holds back for review. Pure and standard library
only (the hook path); the pattern compiles on first use.
"""

from __future__ import annotations

from conkeeper.domain.lazy_re import LazyPattern

# ``@`` at the start of a line or after a space, quote or bracket, then a path: a name with a
# slash or a dot in it, or ``~``; an e-mail address (a word character before ``@``) is none.
_IMPORT = LazyPattern(r"""(?:^|(?<=[\s"'(\[]))@((?:~|\.{1,2})?/?[\w.-]+(?:/[\w.-]+)*)""")


def imported_paths(text: str) -> list[str]:
    """The paths ``text`` (lines written into an agent instruction file) imports with
    ``@path``, in order, once each; a code span or fenced block imports nothing."""
    if "@" not in text:
        return []
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or "@" not in line:
            continue
        outside = "".join(line.split("`")[::2])  # the parts outside code spans
        for match in _IMPORT.finditer(outside):
            path = match.group(1).rstrip(".")
            if ("/" in path or "." in path or path.startswith("~")) and path not in found:
                found.append(path)
    return found
