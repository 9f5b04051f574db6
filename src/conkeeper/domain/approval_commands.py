"""Whether a shell command runs a ConKeeper approval (``review approve``, ``reflect approve``).

Why it exists: what ConKeeper holds for review (an agent's instruction-shaped note, a reflect
finding) is released only by the user. An agent whose session read a hostile page could release
its own held note by running ``conkeeper review approve ID`` in its shell; the CLI refuses under
an agent's environment (``CLAUDECODE`` and the like), but the shell can unset that. The
PreToolUse hook therefore reads the command the agent is about to run and refuses it when this
module says it runs an approval; the PostToolUse hook reports one that ran anyway (hosts without
a pre-tool hook).

The command is read the way the shell would split it (``shlex`` with its operators), segment by
segment, past the usual wrappers (``env -u CLAUDECODE``, ``sudo``, ``nohup``, variable
assignments), so ``git commit -m "conkeeper review approve"`` is not an approval while
``env -u CLAUDECODE python3 -m conkeeper review approve q1`` and ``bash -c '...'`` are. A command
the shell could not parse (unbalanced quotes) is judged by its words alone: when in doubt, the
approval is the user's to run.

Pure and standard library only; the hook calls :func:`runs_approval` only when the command holds
the word ``approve``, so any other command costs one substring check.
"""

from __future__ import annotations

import itertools
import re
import shlex

_APPROVALS = frozenset({"review", "reflect"})  # the commands whose ``approve`` releases held text
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
# Wrappers that run the rest of the segment as the command (their own options skipped).
_WRAPPERS = frozenset(
    {"env", "sudo", "doas", "command", "exec", "nohup", "time", "nice", "stdbuf", "setsid"}
)
# Wrapper options that take a value (``env -u NAME``, ``sudo -u USER``, ``nice -n 5``).
_WRAPPER_VALUE_OPTIONS = frozenset({"-u", "--unset", "-C", "--chdir", "-g", "-n", "-p", "-h", "-S"})
_RUNNERS = (("uv", "run"), ("uvx",), ("pipx", "run"), ("pipenv", "run"), ("poetry", "run"))
_SEPARATORS = frozenset({";", "&", "|", "&&", "||", "(", ")", ";;", "|&", "\n"})
_SUBSTITUTION = re.compile(r"\$\(([^()]*)\)|`([^`]*)`")
_DEPTH = 3  # ``bash -c "sh -c '...'"``: nesting deeper than this is judged by its words


def runs_approval(command: str, depth: int = 0) -> bool:
    """True when ``command`` runs ``conkeeper review approve`` or ``conkeeper reflect approve``
    (any launcher spelling: ``conkeeper``, a path to it, ``python3 -m conkeeper``, ``uv run``),
    in any of its segments, also inside ``sh -c`` / ``eval``."""
    if "approve" not in command:
        return False
    tokens = _tokens(command)
    if tokens is None or depth > _DEPTH:
        return _loose_approval(command)
    if any(_segment_approves(segment, depth) for segment in _segments(tokens)):
        return True
    # A substitution runs even inside double quotes: ``echo "$(conkeeper review approve q1)"``.
    return any(runs_approval(inner, depth + 1) for inner in _substitutions(command))


def _substitutions(command: str) -> list[str]:
    """The commands inside ``$(...)`` and backticks, wherever they stand."""
    return [a or b for a, b in _SUBSTITUTION.findall(command)]


def _tokens(command: str) -> list[str] | None:
    """The shell's words and operators of ``command``, or None when it cannot be parsed."""
    # A line break ends a command as ``;`` does (a continued line does not).
    text = command.replace("\\\n", " ").replace("\n", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None


def _segments(tokens: list[str]) -> list[list[str]]:
    """``tokens`` cut at the shell's operators: each segment is one simple command."""
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token in _SEPARATORS or (token and set(token) <= set(";&|()")):
            segments.append([])
        else:
            segments[-1].append(token)
    return [segment for segment in segments if segment]


def _segment_approves(words: list[str], depth: int) -> bool:
    words = _past_wrappers(words)
    if not words:
        return False
    head = _basename(words[0])
    if head in _SHELLS and "-c" in words[1:]:
        script = words[words.index("-c", 1) + 1 : words.index("-c", 1) + 2]
        return bool(script) and runs_approval(script[0], depth + 1)
    if head == "eval":
        return runs_approval(" ".join(words[1:]), depth + 1)
    rest = _after_launcher(words)
    if rest is None:
        return False
    operands = [word for word in rest if not word.startswith("-")]  # option values stay in
    return any(
        first in _APPROVALS and second == "approve"
        for first, second in itertools.pairwise(operands)
    )


def _past_wrappers(words: list[str]) -> list[str]:
    """``words`` without leading variable assignments and wrappers (``env -u X``, ``sudo``)."""
    index = 0
    while index < len(words):
        word = words[index]
        if "=" in word and not word.startswith("-") and word.split("=", 1)[0].isidentifier():
            index += 1
        elif _basename(word) in _WRAPPERS:
            index += 1
            while index < len(words) and words[index].startswith("-"):
                index += 2 if words[index] in _WRAPPER_VALUE_OPTIONS else 1
        elif _basename(word) == "timeout" and index + 1 < len(words):
            index += 2  # ``timeout 30 cmd``
        else:
            break
    return words[index:]


def _after_launcher(words: list[str]) -> list[str] | None:
    """The words after ConKeeper's launcher when ``words`` starts with one, else None."""
    head = _basename(words[0])
    if head in ("conkeeper", "conkeeper.exe"):
        return words[1:]
    if head.startswith("python") and words[1:3] == ["-m", "conkeeper"]:
        return words[3:]
    for runner in _RUNNERS:
        size = len(runner)
        if tuple(_basename(word) for word in words[:size]) == runner:
            return _after_launcher(words[size:]) if len(words) > size else None
    return None


def _basename(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1].lower()


def _loose_approval(command: str) -> bool:
    """The words-only reading for a command the shell could not parse: ``approve`` right after
    ``review``/``reflect`` with a word naming ConKeeper before them."""
    words = command.replace(";", " ").replace("&", " ").replace("|", " ").split()
    return any(
        word == "approve"
        and index
        and words[index - 1] in _APPROVALS
        and any("conkeeper" in earlier for earlier in words[: index - 1])
        for index, word in enumerate(words)
    )
