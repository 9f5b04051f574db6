"""Reading shell commands the way a reviewer would: is this a test run, a commit, a move, noise?

The local extractor only sees what the hooks captured (the command line, its status, the first
lines of an error), so recognising the command's intent is what lets it tell a bugfix from a
routine ``git status``. Pure functions over strings; no shell is ever run.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

_SEPARATORS_RE = re.compile(r"\s*(?:&&|\|\||;|\n)\s*")
_ENV_ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
_WRAPPERS = {"sudo", "time", "nice", "env", "command", "exec", "nohup", "xvfb-run"}
_RUNNERS = {("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run")}

TEST_HEADS = {
    "pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "rspec", "phpunit", "ctest",
    "ava", "karma", "playwright", "cypress", "bats",
}  # fmt: skip
LINT_HEADS = {
    "ruff", "flake8", "mypy", "pyright", "pylint", "eslint", "tsc", "black", "prettier",
    "shellcheck", "golangci-lint", "clippy", "rubocop", "stylelint", "isort",
}  # fmt: skip
BUILD_HEADS = {"make", "cmake", "ninja", "gradle", "mvn", "bazel", "webpack", "vite", "esbuild"}
INSPECT_HEADS = {
    "ls", "pwd", "cat", "head", "tail", "echo", "find", "grep", "rg", "ag", "wc", "tree",
    "which", "type", "file", "stat", "du", "df", "env", "printenv", "whoami", "date", "less",
    "more", "sed", "awk", "sort", "uniq", "diff", "realpath", "dirname", "basename", "true",
    "test", "[", "jq", "cut", "tr", "ps", "uname", "hostname", "id",
}  # fmt: skip
INSTALL_WORDS = {"install", "add", "ci", "sync", "update", "upgrade"}
PACKAGE_MANAGERS = {
    "pip", "pip3", "npm", "yarn", "pnpm", "poetry", "uv", "brew", "apt", "apt-get", "cargo",
    "gem", "bundle", "go", "composer", "conda", "pipx",
}  # fmt: skip
ROUTINE_GIT = {
    "status", "diff", "log", "show", "branch", "add", "fetch", "pull", "push", "stash",
    "checkout", "switch", "remote", "config", "rev-parse", "blame", "reflog", "tag", "restore",
    "ls-files", "init", "clone", "reset", "cherry-pick", "merge", "rebase",
}  # fmt: skip


@dataclass(frozen=True)
class Command:
    """What a command line is for: ``kind`` and a ``key`` that identifies repeated runs."""

    kind: str  # test | lint | build | commit | move | routine | install | inspect | run
    key: str
    text: str
    argv: tuple[str, ...] = ()


def split_words(segment: str) -> list[str]:
    """Shell words of one command segment; unbalanced quotes fall back to whitespace splitting."""
    try:
        return shlex.split(segment, comments=False, posix=True)
    except ValueError:
        return segment.split()


def _strip_prefixes(words: list[str]) -> list[str]:
    i = 0
    while i < len(words):
        word = words[i]
        if _ENV_ASSIGN_RE.match(word) or word in _WRAPPERS:
            i += 1
        elif i + 1 < len(words) and (word == "timeout" or (word, words[i + 1]) in _RUNNERS):
            i += 2
        elif word in ("npx", "bunx", "pnpx"):
            i += 1
        elif word == "yarn" and i + 1 < len(words) and words[i + 1] == "dlx":
            i += 2
        else:
            break
    rest = words[i:]
    if len(rest) >= 3 and rest[0].startswith("python") and rest[1] == "-m":
        rest = rest[2:]
    return rest


def _segments(command: str) -> list[list[str]]:
    first_line_heredoc = command.split("<<", 1)[0] if "<<" in command else command
    parts = _SEPARATORS_RE.split(first_line_heredoc)
    out = []
    for part in parts:
        words = _strip_prefixes(split_words(part.split("|", 1)[0]))
        if words and words[0] not in ("cd", "source", ".", "export", "set", "pushd", "popd"):
            out.append(words)
    return out


def classify_command(command: str) -> Command:
    """Classify a shell command line; the most significant segment of a chain wins."""
    text = command.strip()
    best: Command | None = None
    for words in _segments(text):
        found = _classify_words(words, text)
        if best is None or _RANK[found.kind] > _RANK[best.kind]:
            best = found
    return best or Command("inspect", "inspect", text)


_RANK = {
    "inspect": 0, "routine": 1, "install": 2, "run": 3, "lint": 4, "build": 5, "move": 6,
    "test": 7, "commit": 8,
}  # fmt: skip


def _classify_words(words: list[str], text: str) -> Command:
    head = words[0].rsplit("/", 1)[-1]
    if head in ("npm", "yarn", "pnpm", "bun"):
        return _classify_node(head, words, text)
    kind, label = _kind_and_label(head, words[1] if len(words) > 1 else "", words)
    return Command(kind, label, text, tuple(words))


_GIT_KINDS = {"commit": ("commit", "git-commit"), "mv": ("move", "git-mv")}
_TOOLCHAINS = ("go", "cargo", "dotnet", "swift", "mix", "deno")
_TOOLCHAIN_TASKS = {
    "test": "test", "build": "build", "check": "build", "vet": "build", "compile": "build",
    "clippy": "lint", "fmt": "lint", "lint": "lint",
}  # fmt: skip


def _kind_and_label(head: str, second: str, words: list[str]) -> tuple[str, str]:
    """``(kind, label)`` of a command by its program and first argument, most specific first."""
    if head == "git":
        return _GIT_KINDS.get(second, ("routine", f"git-{second}"))
    if head == "mv":
        return "move", "mv"
    if head in TEST_HEADS or (head in ("python", "python3") and "unittest" in words):
        return "test", f"test:{head}"
    task = _task_kind(head, second)
    if task is not None:
        return task, f"{task}:{head}"
    if head in LINT_HEADS:
        return "lint", f"lint:{head}"
    if head in BUILD_HEADS or (head in ("gradle", "./gradlew") and second):
        return "build", f"build:{head}"
    if head in PACKAGE_MANAGERS and second in INSTALL_WORDS:
        return "install", f"install:{head}"
    if head in INSPECT_HEADS:
        return "inspect", head
    return "run", "run:" + " ".join(words[:2])


def _task_kind(head: str, second: str) -> str | None:
    """The kind of a toolchain subcommand (``cargo test``, ``go vet``, ``make check``)."""
    if head in _TOOLCHAINS and second:
        return _TOOLCHAIN_TASKS.get(second)
    if head in ("make", "just", "task") and second in ("test", "tests", "check"):
        return "test"
    return None


def _classify_node(head: str, words: list[str], text: str) -> Command:
    argv = tuple(words)
    rest = [w for w in words[1:] if w != "run"]
    task = rest[0] if rest else ""
    if task in INSTALL_WORDS or task == "i":
        return Command("install", f"install:{head}", text, argv)
    if task.startswith("test") or task in ("t", "e2e"):
        return Command("test", f"test:{head}", text, argv)
    if task.startswith("lint") or task in ("typecheck", "format"):
        return Command("lint", f"lint:{head}", text, argv)
    if task.startswith("build"):
        return Command("build", f"build:{head}", text, argv)
    return Command("run", f"run:{head} {task}", text, argv)


_LOOSE_MESSAGE_RE = re.compile(r"(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:=|\s+)[\"']?(.+)$")
_HEREDOC_RE = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)\n\s*\1\b", re.DOTALL)


def commit_message(command: str) -> str:
    """The message of a ``git commit`` command line (``-m``, ``--message``, heredoc), or ''."""
    heredoc = _HEREDOC_RE.search(command)
    if heredoc and "commit" in command.split("<<", 1)[0]:
        return heredoc.group(2).strip()
    head = command.split("<<", 1)[0]
    try:
        words = shlex.split(head, posix=True)
    except ValueError:  # cut off mid-quote (captured summaries are truncated)
        loose = _LOOSE_MESSAGE_RE.search(head)
        text = loose.group(1).strip().rstrip("…").strip() if loose else ""
        return "" if text.startswith("$(") else text
    parts = _message_arguments(words)
    # "$(cat <<'EOF'" whose body was not captured is no message at all
    return "\n\n".join(p.strip() for p in parts if p.strip() and not p.startswith("$("))


def _message_arguments(words: list[str]) -> list[str]:
    """Every message given with ``-m X``, ``--message=X``, ``-mX`` or combined ``-am X``."""
    parts: list[str] = []
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else None
        if word in ("-m", "--message") and following is not None:
            parts.append(following)
        elif word.startswith("--message="):
            parts.append(word.split("=", 1)[1])
        elif word.startswith("-m") and len(word) > 2 and not word.startswith("--"):
            parts.append(word[2:])
        elif _combined_m_flag(word) and following is not None:
            parts.append(following)  # combined short flags: -am "message"
    return parts


def _combined_m_flag(word: str) -> bool:
    """Short flags ending in ``m`` (``-am``), whose value is the next word."""
    return (
        word.startswith("-")
        and not word.startswith("--")
        and word.endswith("m")
        and word[1:].isalpha()
    )


def move_pairs(command: str) -> list[tuple[str, str]]:
    """``(source, destination)`` pairs of every ``mv`` / ``git mv`` in a command chain."""
    pairs: list[tuple[str, str]] = []
    for words in _segments(command):
        args = words[2:] if words[0] == "git" else words[1:]
        if not words or (words[0] != "mv" and words[:2] != ["git", "mv"]):
            continue
        paths = [a for a in args if not a.startswith("-")]
        if len(paths) < 2:
            continue
        *sources, dest = paths
        for source in sources:
            if len(sources) > 1 or dest.endswith("/"):
                pairs.append((source, dest.rstrip("/") + "/" + source.rsplit("/", 1)[-1]))
            else:
                pairs.append((source, dest))
    return pairs
