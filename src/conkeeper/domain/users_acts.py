"""Whether a shell command runs a ConKeeper act that is the user's alone.

Why it exists: some ConKeeper commands are the user's decisions, never the agent's: releasing
what was held for review (``review approve``, ``reflect approve``), saving a note as the user's
own (``remember --source user``), and changing where ConKeeper sends data (``config set`` of an
outbound setting: the extractor, the LLM base URL, team sync, Obsidian). An agent whose session
read a hostile page could run them in its shell; the CLI refuses them under an agent's
environment (``CLAUDECODE`` and the like), but the shell can unset that. The PreToolUse hook
therefore reads the command the agent is about to run and refuses it when :func:`users_act`
names one; the PostToolUse hook reports one that ran anyway (hosts without a pre-tool hook).

The command is read the way the shell would split it (``shlex`` with its operators), segment by
segment, past the usual wrappers (``env -u CLAUDECODE``, ``sudo``, ``nohup``, variable
assignments), so ``git commit -m "conkeeper review approve"`` is no such act while
``env -u CLAUDECODE python3 -m conkeeper review approve q1`` and ``bash -c '...'`` are. A command
the shell could not parse (unbalanced quotes) is judged by its words alone: when in doubt, the
act is the user's to run.

Pure and standard library only; the hook imports this module only for a command that names
``conkeeper``, and it reads further only when one of :data:`HINTS` is there too.
"""

from __future__ import annotations

import itertools
import re
import shlex

from conkeeper.domain.config import OUTBOUND_KEYS

_APPROVALS = frozenset({"review", "reflect"})  # the commands whose ``approve`` releases held text
HINTS = ("approve", "source", "config", "join")  # with "conkeeper", in every such command
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


def users_act(command: str, depth: int = 0) -> str | None:
    """The user's act ``command`` runs (``review approve``, ``reflect approve``, ``remember
    --source user``, ``config set KEY`` of an outbound key, ``team join``: the server every
    sync sends to), in any of its segments, also inside
    ``sh -c`` / ``eval`` / substitutions, with any launcher spelling (``conkeeper``, a path to
    it, ``python3 -m conkeeper``, ``uv run``); ``None`` when it runs none."""
    if "conkeeper" not in command or not any(hint in command for hint in HINTS):
        return None
    tokens = _tokens(command)
    if tokens is None or depth > _DEPTH:
        return _loose_act(command)
    for segment in _segments(tokens):
        act = _segment_act(segment, depth)
        if act is not None:
            return act
    # A substitution runs even inside double quotes: ``echo "$(conkeeper review approve q1)"``.
    for inner in _substitutions(command):
        act = users_act(inner, depth + 1)
        if act is not None:
            return act
    return None


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


def _segment_act(words: list[str], depth: int) -> str | None:
    words = _past_wrappers(words)
    if not words:
        return None
    head = _basename(words[0])
    if head in _SHELLS and "-c" in words[1:]:
        script = words[words.index("-c", 1) + 1 : words.index("-c", 1) + 2]
        return users_act(script[0], depth + 1) if script else None
    if head == "eval":
        return users_act(" ".join(words[1:]), depth + 1)
    rest = _after_launcher(words)
    return _act_of(rest) if rest is not None else None


def _act_of(arguments: list[str]) -> str | None:
    """The user's act among ConKeeper's ``arguments`` (what follows the launcher), if any."""
    operands = [word for word in arguments if not word.startswith("-")]  # option values stay in
    for first, second in itertools.pairwise(operands):
        if first in _APPROVALS and second == "approve":
            return f"{first} approve"
        if first == "team" and second == "join":  # the server every sync sends to
            return "team join"
        if first == "config" and second == "set":
            key = operands[operands.index("config") + 2 : operands.index("config") + 3]
            if key and key[0].split("=", 1)[0] in OUTBOUND_KEYS:
                return f"config set {key[0].split('=', 1)[0]}"
    if "remember" in operands and _source_is_user(arguments):
        return "remember --source user"
    return None


def _source_is_user(arguments: list[str]) -> bool:
    """True when ``arguments`` pass ``--source user`` (or ``--source=user``)."""
    for index, word in enumerate(arguments):
        if word == "--source=user" or (
            word == "--source" and arguments[index + 1 : index + 2] == ["user"]
        ):
            return True
    return False


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


def _loose_act(command: str) -> str | None:
    """The words-only reading for a command the shell could not parse: after a word naming
    ConKeeper, ``approve`` right after ``review``/``reflect``, ``config set`` of an outbound
    key, ``team join``, or ``remember`` with ``--source user``."""
    words = command.replace(";", " ").replace("&", " ").replace("|", " ").split()
    start = next((i for i, word in enumerate(words) if "conkeeper" in word), None)
    if start is None:
        return None
    cleaned = [word.strip("'\"`()") for word in words[start + 1 :]]
    return _act_of(cleaned)
