"""Which agent-instruction file a shell command writes, and whether it downloads into it.

Why it exists: an agent that read a hostile page can plant an order in ``CLAUDE.md``,
``AGENTS.md``, ``.cursorrules``... (files the host itself loads at every session start) with a
shell command rather than an edit tool: ``echo "..." >> CLAUDE.md``, a heredoc, ``tee -a``,
``sed -i``, ``curl -o AGENTS.md``. The PostToolUse hook reads the command the agent ran (its
text is all the hook has: no diff, no network) and, when this module says the command writes one
of those files, judges the command's text as the written text. A download into such a file is
reported whatever it holds: its text is not in the command.

It also says whether a command may leave a process running after it returns
(:func:`detaches`), which keeps that command's agent shell span open
(:mod:`conkeeper.storage.agent_shells`).

Pure and standard library only; the hook imports this module (about 2 ms) only when
:func:`conkeeper.domain.paths.mentions_agent_instruction_file` (substring checks) finds such a
name in the command, or ``hooks.on_tool._DETACH_WORDS`` a word :func:`detaches` looks for, so
any other command costs nothing more.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from conkeeper.domain.paths import is_agent_instruction_file, mentions_agent_instruction_file

# A word of the command that may be a path: quotes and shell punctuation stripped.
_WORD = re.compile(r"""[^\s;|&<>()'"`]+""")
# Operators after which the next word is the file written ("> f", ">> f", "2>f" aside).
_REDIRECT = re.compile(r"""(?<![0-9&<>])>>?\|?\s*['"]?([^\s;|&<>()'"`]+)""")
_TEE = re.compile(r"""\btee\b((?:\s+-{1,2}[\w-]+)*)((?:\s+['"]?[^\s;|&<>()'"`]+['"]?)+)""")
_IN_PLACE = re.compile(r"\b(?:sed|perl|gsed)\b[^;|&\n]*?\s-[A-Za-z]*i")
_COPY = re.compile(r"\b(?:cp|mv|install|ln|rsync|dd)\b[^;|&\n]*")
_DOWNLOAD = re.compile(
    r"\b(?:curl|wget|aria2c|http|xh)\b[^;|&\n]*?(?:-o|-O|--output(?:-document)?)[=\s]*['\"]?"
    r"([^\s;|&<>()'\"`]+)"
)
_DOWNLOAD_PIPE = re.compile(r"\b(?:curl|wget)\b[^;&\n]*?(?:\|\s*tee\b|>)")
_SCRIPT_OPEN = re.compile(r"""\b(?:open|writeFile(?:Sync)?|appendFile(?:Sync)?|write_text)\s*\(""")


class ShellTarget(NamedTuple):
    """An agent-instruction file a command writes: its path as written, and whether the
    command downloads into it (then its text is not in the command)."""

    path: str
    downloaded: bool


def instruction_file_written(command: str) -> ShellTarget | None:
    """The first agent-instruction file ``command`` writes (a redirect into it, ``tee``, an
    in-place ``sed``/``perl``, a copy or move onto it, a download into it, a script that
    opens it), else None. Reading such a file (``cat CLAUDE.md``, ``grep x AGENTS.md``) is
    not writing it."""
    if not mentions_agent_instruction_file(command):
        return None
    for match in _DOWNLOAD.finditer(_unquoted(command)):
        if is_agent_instruction_file(match.group(1)):
            return ShellTarget(match.group(1), downloaded=True)
    for statement in _statements(command):
        found = _written_in(statement)
        if found is not None:
            downloaded = bool(_DOWNLOAD_PIPE.search(_unquoted(statement)))
            return ShellTarget(found, downloaded=downloaded)
    return None


_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\\\]|\\\\.)*\"")


def _unquoted(command: str) -> str:
    """``command`` with its quoted strings blanked: a ``curl`` inside an echoed note is text,
    not a download."""
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), command)


def _statements(command: str) -> list[str]:
    """``command`` cut at ``;``, ``&&``, ``||`` and line breaks outside a heredoc body (a
    heredoc's body stays with the statement that opens it)."""
    if "<<" in command:  # a heredoc: its opening line carries the redirect
        return [command]
    return [part for part in re.split(r"\n|;|&&|\|\|", command) if part.strip()]


def _written_in(statement: str) -> str | None:
    for match in _REDIRECT.finditer(statement):
        if is_agent_instruction_file(match.group(1)):
            return str(match.group(1))
    for match in _TEE.finditer(statement):
        for word in _words(match.group(2)):
            if is_agent_instruction_file(word):
                return word
    if _IN_PLACE.search(statement) or _SCRIPT_OPEN.search(statement):
        return next((w for w in _words(statement) if is_agent_instruction_file(w)), None)
    copy = _COPY.search(statement)
    if copy is not None:
        words = [w for w in _words(copy.group(0)) if not w.startswith("-")]
        if len(words) >= 3 and is_agent_instruction_file(words[-1]):
            return words[-1]  # the destination: the last operand
    return None


def _words(text: str) -> list[str]:
    """The words of ``text`` that may be paths (quotes and shell punctuation stripped)."""
    return [str(word) for word in _WORD.findall(text)]


# A file section of Codex's ``apply_patch`` envelope, or the new side of a unified diff.
_PATCH_FILE = re.compile(r"^(?:\*\*\* (?:Add|Update) File: (.+)|\+\+\+ (?:b/)?(.+))$")
_PATCH_END = re.compile(r"^(?:\*\*\* (?:Delete File|End Patch|Move to)\b|--- |diff )")


def patch_additions(patch: str) -> dict[str, str]:
    """The lines a patch adds, by the file it adds them to (as the patch spells it): Codex's
    ``apply_patch`` envelope (``*** Add File: p`` / ``*** Update File: p`` then ``+`` lines) or
    a unified diff (``+++ b/p`` then ``+`` lines). A patch tool's text is what it writes, as a
    shell command's is for :func:`instruction_file_written`."""
    added: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in patch.splitlines():
        header = _PATCH_FILE.match(line)
        if header:
            current = added.setdefault((header.group(1) or header.group(2)).strip(), [])
        elif _PATCH_END.match(line):
            current = None
        elif current is not None and line.startswith("+"):
            current.append(line[1:])
    return {path: "\n".join(lines) for path, lines in added.items() if lines}


# A command that leaves a process running after it returns: a job put in the background
# (``&`` that is not ``&&`` nor a redirection's ``>&``/``&>``), ``nohup``, ``setsid``,
# ``disown``, ``at``/``batch``, ``systemd-run``, a detached ``tmux``/``screen``, ``daemonize``.
# Each needs a word in ``hooks.on_tool._DETACH_WORDS``, the hook's check before importing this.
_DETACHES = re.compile(
    r"(?<![&>|])&(?![&>])|\b(?:nohup|setsid|disown|systemd-run|daemonize|start-stop-daemon|"
    r"batch)\b|\bat\s+(?:now|-f|\d)|\btmux\b[^;|&\n]*\s-d\b|\bscreen\b[^;|&\n]*\s-d"
)


def detaches(command: str) -> bool:
    """True when ``command`` may leave a process running after it returns (a job in the
    background, ``nohup``, ``setsid``, ``at now``, ``systemd-run``...): what that process
    writes later is still the agent's. Read on the text with quotes kept (``sh -c '... &'``)."""
    return _DETACHES.search(command) is not None
