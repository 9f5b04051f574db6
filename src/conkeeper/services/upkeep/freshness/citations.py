"""What a memory entry cites: file paths, symbols, commands and config keys.

A memory entry is worth checking against the code only where it names something concrete.
This module reads an entry's text and returns those names, conservatively: a backticked span
is classified by its shape (``src/auth/token.py`` a path, ``parse_config()`` or ``TokenStore``
a symbol, ``make test`` or ``npm run build`` a command, ``DATABASE_URL`` a key), and bare text
only yields paths that have both a folder and an extension, so prose never becomes a citation.

Entries are split the way a person reads a memory file: a top-level bullet with its
continuation lines, or a paragraph; headings, HTML comments (template guidance) and front
matter are skipped. The caller passes privacy-blanked text (same line count), so private lines
are never read. Standard library only; no ``dataclasses`` (SessionStart imports this).
"""

from __future__ import annotations

import re

from conkeeper.domain.records import FrozenRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

PATH, SYMBOL, COMMAND, KEY = "path", "symbol", "command", "key"

CODE_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "js",
        "mjs",
        "cjs",
        "ts",
        "tsx",
        "jsx",
        "go",
        "rs",
        "rb",
        "java",
        "kt",
        "kts",
        "scala",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "php",
        "swift",
        "m",
        "mm",
        "md",
        "rst",
        "txt",
        "json",
        "jsonc",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "env",
        "sh",
        "bash",
        "zsh",
        "fish",
        "ps1",
        "sql",
        "html",
        "htm",
        "css",
        "scss",
        "sass",
        "less",
        "vue",
        "svelte",
        "lock",
        "xml",
        "gradle",
        "proto",
        "graphql",
        "tf",
        "hcl",
        "lua",
        "pl",
        "r",
        "dart",
        "ex",
        "exs",
        "erl",
        "clj",
        "ipynb",
        "csv",
    ]
)
CONFIG_EXTENSIONS = frozenset(
    ["yaml", "yml", "toml", "ini", "cfg", "conf", "env", "json", "jsonc", "properties"]
)
EXTENSIONLESS_FILES = frozenset(
    [
        "Makefile",
        "Dockerfile",
        "Justfile",
        "Procfile",
        "Gemfile",
        "Rakefile",
        "Vagrantfile",
        "Jenkinsfile",
    ]
)
COMMAND_WORDS = frozenset(
    [
        "make",
        "npm",
        "yarn",
        "pnpm",
        "npx",
        "python",
        "python3",
        "pytest",
        "bash",
        "sh",
        "uv",
        "poetry",
        "cargo",
        "go",
        "node",
        "bun",
        "deno",
        "ruby",
        "rake",
        "bundle",
        "tox",
        "nox",
        "just",
    ]
)
# Words too generic to be a project's own symbol, even in backticks.
GENERIC_SYMBOLS = frozenset(
    [
        "print",
        "len",
        "str",
        "int",
        "dict",
        "list",
        "set",
        "open",
        "main",
        "init",
        "setup",
        "run",
        "get",
        "put",
        "post",
        "test",
        "tests",
        "self",
        "None",
        "True",
        "False",
        "null",
        "true",
        "false",
        # naming styles, not names
        "snake_case",
        "camel_case",
        "kebab_case",
        "pascal_case",
        "screaming_snake_case",
        "lower_case",
        "upper_case",
        "title_case",
    ]
)

# one character too (`%`, `@`): skipping it would pair its closing backtick with the next
# span's opening one, and every span after it would be read inside out
_SPAN = re.compile(r"`([^`\n]{1,200})`")
_BARE_PATH = re.compile(
    r"(?<![\w/.`~:@-])"
    r"((?:\./)?(?:[\w@+-][\w.@+-]*/)+[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,6})"
    r"(?![\w/])"
)
_PATHISH = re.compile(r"^\.{0,2}/?(?:[\w@.+-]+/)*[\w@.+-]+/?$")
_LINE_SUFFIX = re.compile(r"(?::\d+(?:[-:]\d+)?|#L\d+(?:-L?\d+)?)$")
# `apply_coupon()`, `Cart.apply_coupon()`, and the calls of other languages that name their
# owner with `::` or `#` (`Cart::from_session()` in Rust or PHP, `Cart#apply_coupon()` in Ruby)
_CALL = re.compile(r"^((?:[A-Za-z_]\w*(?:\.|::|#))*[A-Za-z_]\w*)\(\s*[^()]{0,80}\)$")
_MEMBER_SEP = re.compile(r"\.|::|#")
# a definition quoted from the code: `func (c *Cart) ApplyCoupon`, `pub fn apply_coupon`,
# `def apply_coupon(self)`, `export const MAX_ITEMS`, `class CartService`, `impl Discount for
# Cart`: the name it defines (and a Go method's receiver type) is what the entry cites
_DEFINITION = re.compile(
    r"^(?:(?:pub(?:\(\w+\))?|export|default|async|static|public|private|protected|internal|"
    r"open|override|suspend|abstract|final|unsafe|inline|data|sealed|const(?=\s+fn\b))\s+)*"
    r"(?:(?P<callable>func|fn|def|fun|function|const)|"
    r"(?P<type>class|struct|trait|interface|enum|impl|module|object|type))\s+"
    r"(?:\((?P<receiver>[^()]{1,60})\)\s*)?(?P<name>[A-Za-z_]\w*)(?=$|[\s(<\[:{=])"
)
# each name shape below also takes the leading underscores of a private name (`_HasHTML`,
# `_simple_escaping_wrapper`): Python marks its module-private helpers so
# `JSONWebSignatureSerializer`, `URLSafeSerializer`, `HMACAlgorithm`: an acronym may lead too
# (an acronym alone, `JSON`, is prose)
_CAMEL = re.compile(
    r"^_{0,2}(?:(?:[A-Z][a-z0-9]+){2,}|[A-Z][a-z0-9]+(?:[A-Z]{2,}[a-z0-9]*)+|"
    r"[A-Z]{2,}(?:[A-Z][a-z0-9]+)+[A-Za-z0-9]*)$"
)
# `CartService.apply_coupon`, `CartService#applyCoupon`, `payments::charge_card`,
# `cart.apply_coupon`: an owner and a member, each checked (either one renamed makes it stale)
_QUALIFIED = re.compile(
    r"^(_{0,2}[A-Z][A-Za-z0-9]+|_{0,2}[a-z][a-z0-9_]*)(?P<sep>\.|::|#)([A-Za-z_]\w*[?!]?)$"
)
# `Cart.apply/2`: an Elixir function with its arity (dropped: the name is what is defined)
_ARITY = re.compile(r"^(?P<named>[A-Z]\w*(?:\.[A-Z]\w*)*\.[a-z_]\w*[?!]?)/\d{1,2}$")
# `$cart->applyCoupon()`, `$this->total`: a PHP member reached through a variable
_PHP_MEMBER = re.compile(r"^\$\w+->(?P<name>[A-Za-z_]\w*)(?:\(\s*[^()]{0,80}\))?$")
# `shop.cart.compute_tax`, `shop.cart.Cart.total`, and Rust's `crate::cart::apply_coupon`,
# `cart::Cart::total`: the package or module path before the last owner is dropped, and what
# is left read as above
_PACKAGE_PATH = re.compile(
    r"^(?:[a-z_][a-z0-9_]*\.)+(?=[A-Za-z_]\w*\.[A-Za-z_]\w*$)"
    r"|^(?:[a-z_][a-z0-9_]*::)+(?=[A-Za-z_]\w*::[A-Za-z_]\w*$)"
)
# `apply_coupon()` or `applyCoupon()` written in prose without backticks (a call is unambiguous)
_BARE_CALL = re.compile(
    r"(?<![\w.`/])(_{0,2}(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+))\(\)"
)
# `VersionReq::exact(&v)`, `Cart::from_session`: a Rust (C++, PHP) path written in prose
# without backticks; `::` after a capitalised owner is no prose (a module path may lead)
_BARE_PATH_CALL = re.compile(
    r"(?<![\w.`/:])((?:[a-z_]\w*::)*[A-Z]\w*::[A-Za-z_]\w*)(?:\([^()\n]{0,80}\))?(?![\w:])"
)
# `useCart`, `placeOrder`: a JS/TS, Java or Go function cited without parentheses
_LOWER_CAMEL = re.compile(r"^_{0,2}[a-z]+(?:[A-Z][a-z0-9]+)+$")
_UPPER_KEY = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_SNAKE = re.compile(r"^_{0,2}[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
# `_native`, `_mod`: one word made a private name by its leading underscore (a dunder such as
# `__init__` ends with underscores too, and is no project's own name)
_PRIVATE_WORD = re.compile(r"^_{1,2}[a-z][a-z0-9]{2,}$")
# `tests/test_x.py::test_y`, `tests/test_x.py::TestX::test_y[param]`: a pytest node id names a
# file and the class and test defined in it
_NODE_ID = re.compile(
    r"^(?P<path>[\w./-]+\.py)::(?P<names>[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)(?:\[[^\]]*\])?$"
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_BULLET = re.compile(r"^ ?(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)")
# a call written in a fenced code block (`total = apply_coupon(cart)`, `cart.applyCoupon(x)`):
# the same name shapes as a bare call in prose, with its arguments, and exported Go names
_CODE_CALL = re.compile(
    r"(?<![\w$])(_{0,2}(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+|"
    r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[A-Z]{2,}(?:[A-Z][a-z0-9]+)+))\s?\("  # Go's, C#'s too
)
# `VersionReq::parse(">= 1.0")`, `semver::Version::new(1, 0, 0)` in a fenced block: a Rust
# (C++, PHP) associated function called through its type cites the type and the function
_CODE_PATH_CALL = re.compile(r"(?<![\w$:])((?:[a-z_]\w*::)*[A-Z]\w*::[a-z_]\w*)\s?\(")
# a fenced block tagged as a shell, a terminal session or plain text holds commands and what
# they printed, never code citing the project's names
_SHELL_FENCES = frozenset(
    {
        *("sh", "bash", "shell", "zsh", "fish", "console", "shell-session", "shellsession"),
        *("terminal", "powershell", "pwsh", "ps1", "cmd", "bat", "batch", "text", "txt"),
        *("plaintext", "output", "log"),
    }
)
# a line of a terminal session: a prompt and the command typed after it
_PROMPT_LINE = re.compile(r"^\s*(?:\$|%|>|PS>|PS [^>]{1,60}>)\s")


class Citation(FrozenRecord):
    """One thing an entry names: ``kind`` (path, symbol, command, key), the ``value`` to check
    (a path, a symbol name, a make target...), and ``text`` as written in the entry. A command
    carries its ``tool`` (``make``, ``npm``, ``python -m``); a member cited with its class
    (`CartService.applyCoupon`) carries that ``owner``, which must hold it."""

    __slots__ = ("kind", "owner", "text", "tool", "value")
    kind: str
    value: str
    text: str
    tool: str
    owner: str

    def __init__(self, kind: str, value: str, text: str, tool: str = "", owner: str = "") -> None:
        self._set(kind=kind, value=value, text=text, tool=tool, owner=owner)


class Entry(FrozenRecord):
    """A bullet or paragraph of a memory file: 1-based ``start``/``end`` lines, its ``lines``
    as written (for matching against git history), and the ``citations`` found in it."""

    __slots__ = ("citations", "end", "heading", "lines", "start")
    start: int
    end: int
    heading: str
    lines: tuple[str, ...]
    citations: tuple[Citation, ...]

    def __init__(
        self,
        start: int,
        end: int,
        heading: str,
        lines: tuple[str, ...],
        citations: tuple[Citation, ...],
    ) -> None:
        self._set(start=start, end=end, heading=heading, lines=lines, citations=citations)

    @property
    def summary(self) -> str:
        """The entry's first line, shortened, for reports; an entry that is a fenced block is
        shown by its first line of code, not by its fence ("```python")."""
        shown = [line for line in self.lines if line.strip() and not _FENCE.match(line)]
        first = " ".join((shown or self.lines or ("",))[0].split())
        first = _BULLET.sub("", first, count=1).strip()
        return first if len(first) <= 100 else first[:99] + "…"


# --------------------------------------------------------------------------- classification


def _extension(name: str) -> str:
    base = name.rstrip("/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[1].lower() if "." in base.strip(".") else ""


def normalize_path(text: str) -> str | None:
    """A project-relative path from a cited one (``./src/a.py:12`` → ``src/a.py``), or ``None``
    when it is not a plausible project path (absolute, home, URL, parent escape)."""
    value = _LINE_SUFFIX.sub("", text.strip().strip("\"'()[],;"))
    if not value or "://" in value or value.startswith(("/", "~", "$", "-")) or ".." in value:
        return None
    while value.startswith("./"):
        value = value[2:]
    if not _PATHISH.match(value) or value in (".", "/"):
        return None
    return value


def looks_like_path(value: str) -> bool:
    """A path with a folder, or a file name with a known extension or well-known name."""
    base = value.rstrip("/").rsplit("/", 1)[-1]
    if base in EXTENSIONLESS_FILES or (base.startswith(".env") and "/" not in value):
        return True
    if _extension(value) in CODE_EXTENSIONS:
        return base.rsplit(".", 1)[0] != "" or "/" in value
    if "/" in value.rstrip("/"):
        first = value.split("/", 1)[0]
        return bool(first) and not first[0].isdigit() and not value.replace("/", "").isdigit()
    return False


def is_config_path(value: str) -> bool:
    """A configuration file (where cited keys are looked up)."""
    base = value.rsplit("/", 1)[-1]
    return _extension(value) in CONFIG_EXTENSIONS or base.startswith(".env")


PROSE_EXTENSIONS = frozenset(["md", "markdown", "rst", "adoc", "asciidoc", "rdoc"])
# a project's record of its changes names what it removed ("Remove ``soft_unicode``")
_CHANGE_LOGS = frozenset(["changes", "changelog", "history", "news", "releasenotes"])


def is_prose_path(value: str) -> bool:
    """A document written for people (Markdown, reStructuredText, a changelog), not code: a
    name it mentions is not one the code defines, and a removed name stays in its changelog."""
    base = value.rsplit("/", 1)[-1]
    stem = base.split(".", 1)[0].replace("_", "").replace("-", "").lower()
    return _extension(value) in PROSE_EXTENSIONS or stem in _CHANGE_LOGS


def _qualified(span: str, text: str = "") -> list[Citation]:
    """An owner and its member (`CartService.apply_coupon`): the member when it looks like a
    project's name, and a capitalised owner (a lower-case one may be a module or variable
    name, `cart.apply_coupon`, and is not looked for), which the member is checked against.
    A one-word member counts when the way it is written names a class's member in one
    language only (`Cart::apply` in C++, `Cart.empty?` in Ruby, `Cart.apply/2` in Elixir)."""
    match = _QUALIFIED.match(_PACKAGE_PATH.sub("", span, count=1))
    if not match:
        return []
    owner, member = match.group(1), match.group(3)
    capital = owner.lstrip("_")[0].isupper()
    text = text or span
    found = []
    if capital:
        found.append(Citation(SYMBOL, owner, text))
    bare = member.rstrip("?!")
    named = _SNAKE.match(bare) or _CAMEL.match(bare) or re.match(r"^[a-z]+[A-Z]\w*$", bare)
    marked = capital and (match["sep"] == "::" or bare != member or text != span)
    if (named or (marked and len(bare) >= 4)) and bare not in GENERIC_SYMBOLS:
        found.append(Citation(SYMBOL, member, text, owner=owner if capital else ""))
    return found


def _symbol(span: str) -> Citation | None:
    call = _CALL.match(span)
    if call:
        name = _MEMBER_SEP.split(call.group(1))[-1]
        if len(name) >= 3 and name not in GENERIC_SYMBOLS:
            return Citation(SYMBOL, name, span)
        return None
    if _CAMEL.match(span) or (_LOWER_CAMEL.match(span) and span not in GENERIC_SYMBOLS):
        return Citation(SYMBOL, span, span)
    if _UPPER_KEY.match(span):
        return Citation(KEY, span, span)
    if (_SNAKE.match(span) or _PRIVATE_WORD.match(span)) and span not in GENERIC_SYMBOLS:
        # A function or variable cited without parentheses (`apply_coupon`) is checked like
        # `apply_coupon()`; in a cited configuration file it is looked up as a key there.
        return Citation(SYMBOL, span, span)
    return None


def _node_id(word: str, span: str) -> list[Citation]:
    """The file and the names a pytest node id cites (none when ``word`` is not one): the
    test going away from its file makes the entry stale as a renamed function does."""
    match = _NODE_ID.match(word)
    path = normalize_path(match["path"]) if match else None
    if match is None or path is None:
        return []
    names = [Citation(SYMBOL, name, span) for name in match["names"].split("::")]
    return [Citation(PATH, path, span), *names]


# what a command line sets up before the program it runs: `FOO=1`, `time`, `sudo` (a prompt,
# `$ python -m shop.report`, is a terminal session's record, never a citation)
_LEAD = re.compile(r"^(?:[A-Za-z_]\w*=\S*|time|sudo|env)$")
_CHAIN = re.compile(r"\s*(?:&&|\|\|?|;|&)\s*")


def _command(span: str) -> list[Citation]:
    """The citations in a shell command line, each command of a chain (`make lint && make
    test`) read: a script run by its path, or the target a known task runner runs plus the
    project paths among its arguments. After a `cd` the runner reads another folder's
    Makefile or package.json, so no target is cited from there on."""
    found: list[Citation] = []
    moved = False
    for part in _CHAIN.split(span.strip()):
        words = part.split()
        while words and _LEAD.match(words[0]):
            words = words[1:]
        if words and words[0] in ("cd", "pushd"):
            moved = True
            continue
        found.extend(_one_command(words, span, targets=not moved))
    return found


def _one_command(words: list[str], span: str, *, targets: bool) -> list[Citation]:
    """The citations of one command (its words): see :func:`_command`."""
    if not words:
        return []
    tool = words[0]
    if tool.startswith("./"):
        path = normalize_path(tool)
        return [Citation(PATH, path, span), *_flags(words, span)] if path else []
    if tool not in COMMAND_WORDS:
        return []
    found = _runner_targets(tool, words, span) if targets else []
    found.extend(_argument_paths(words, span))
    return found


# `--dry-run`, `--skip-migrations`: an option of the project's own program, named by more than
# one word (a one-word option, `--force`, is too common a word to look for in the code)
_FLAG = re.compile(r"^--(?P<name>[a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?:=\S*)?$")


def _flags(words: list[str], span: str) -> list[Citation]:
    """The options given to the project's own program (``./bin/shopctl sync --dry-run``):
    each is looked for in the code as a name is (it goes stale when the program drops it)."""
    found = []
    for word in words[1:]:
        flag = _FLAG.match(word)
        if flag:
            found.append(Citation(SYMBOL, flag["name"], word.split("=", 1)[0]))
    return found


# make's options that take a value in the next word (`-j 4`, `-o file`); `-C dir`, `-f file`
# point make at another Makefile, whose targets are not the project's Makefile's
_MAKE_VALUED = frozenset(["-j", "-l", "-o", "-W", "-I", "--jobs", "--load-average"])
_MAKE_ELSEWHERE = re.compile(r"^(?:-C|-f|--directory|--file|--makefile)")


def _make_targets(words: list[str], span: str) -> list[Citation]:
    """The targets of ``make [options] [VAR=value] target...``: options and variable settings
    are no targets (`make -j4 test` runs `test`)."""
    found: list[Citation] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if _MAKE_ELSEWHERE.match(word):
            return []
        if word[0] in "<>#|&;" or word[:2] in ("1>", "2>"):
            break  # a pipe, a redirection or a comment: what follows is no target
        if word.startswith("-"):
            skip = word in _MAKE_VALUED
        elif "=" not in word and re.fullmatch(r"[\w.][\w.-]*", word):
            found.append(Citation(COMMAND, word, span, "make"))
    return found


def _tox_envs(words: list[str], span: str) -> list[Citation]:
    """The environments of ``tox -e a,b`` (``-e a``, ``-ea``, ``--env=a``): each must be
    defined for the command to run (``py312``-style ones tox makes up by itself)."""
    found: list[Citation] = []
    for index, word in enumerate(words):
        value = None
        if word in ("-e", "--env") and index + 1 < len(words):
            value = words[index + 1]
        elif word.startswith("--env="):
            value = word[len("--env=") :]
        elif word.startswith("-e") and len(word) > 2 and not word.startswith("--"):
            value = word[2:]
        for name in (value or "").split(","):
            if re.fullmatch(r"[A-Za-z][\w.-]*", name) and name != "ALL":
                found.append(Citation(COMMAND, name, span, "tox"))
    return found


def _runner_targets(tool: str, words: list[str], span: str) -> list[Citation]:
    """What a task runner is asked to run (make targets, a package script, tox environments,
    a Python module): each must still exist for the command to work."""
    if tool == "make":
        return _make_targets(words, span)
    if tool == "tox":
        return _tox_envs(words, span)
    target = _runner_target(tool, words, span)
    return [target] if target is not None else []


def _runner_target(tool: str, words: list[str], span: str) -> Citation | None:
    """What a package manager or Python is asked to run (a package script, a module, the
    test ``cargo test`` is told to run)."""
    if tool == "cargo":
        return _cargo_test_filter(words, span)
    if tool in ("npm", "pnpm", "bun"):
        if len(words) > 2 and words[1] == "run":
            return Citation(COMMAND, words[2], span, "npm")
    elif tool == "yarn":
        return _yarn_script(words, span)
    elif tool in ("python", "python3", "uv") and "-m" in words:
        index = words.index("-m")
        if index + 1 < len(words) and re.fullmatch(r"[A-Za-z_][\w.]*", words[index + 1]):
            return Citation(COMMAND, words[index + 1], span, "python -m")
    return None


# cargo test's options that take a value in the next word (`--features serde`, `-p semver`)
_CARGO_VALUED = frozenset(
    [
        *("-p", "--package", "--test", "--bench", "--bin", "--example", "--exclude", "-F"),
        *("--features", "--target", "--target-dir", "-j", "--jobs", "--manifest-path"),
        *("--color", "--message-format", "--profile", "--config", "-Z", "--lockfile-path"),
    ]
)


def _cargo_test_filter(words: list[str], span: str) -> Citation | None:
    """The test ``cargo test [options] NAME [-- args]`` runs, when NAME is a whole test
    name (`test_parse_errors`, `tests::test_parse`): the test renamed or removed, the command
    runs nothing. A filter that was never a whole name in the code is never found stale."""
    if len(words) < 3 or words[1] != "test":
        return None
    skip = False
    for word in words[2:]:
        if skip:
            skip = False
        elif word == "--" or word[0] in "<>|&;#":
            return None
        elif word.startswith("-"):
            skip = word in _CARGO_VALUED
        else:
            name = word.rsplit("::", 1)[-1]
            if _SNAKE.match(name) and name not in GENERIC_SYMBOLS:
                return Citation(SYMBOL, name, span)
            return None
    return None


# yarn's own commands: `yarn workspace api build` runs api's script, not one named "workspace"
_YARN_OWN = frozenset(
    [
        *("add", "install", "remove", "upgrade", "upgrade-interactive", "up", "init", "dlx"),
        *("run", "workspace", "workspaces", "why", "info", "config", "global", "link"),
        *("unlink", "set", "plugin", "version", "pack", "publish", "cache", "exec", "node"),
        *("create", "dedupe", "npm", "constraints", "patch", "patch-commit", "bin", "list"),
        *("outdated", "audit", "login", "logout", "owner", "tag", "team", "licenses", "import"),
        *("check", "autoclean", "generate-lock-entry", "policies", "search", "explain"),
    ]
)


def _yarn_script(words: list[str], span: str) -> Citation | None:
    """The script of ``yarn <script>`` or ``yarn run <script>``; yarn's own subcommands
    (``add``, ``install``...) name no script."""
    if len(words) <= 1 or not re.fullmatch(r"[\w:.-]+", words[1]):
        return None
    if words[1] not in _YARN_OWN:
        return Citation(COMMAND, words[1], span, "npm")
    if words[1] == "run" and len(words) > 2:
        return Citation(COMMAND, words[2], span, "npm")
    return None


def _argument_paths(words: list[str], span: str) -> list[Citation]:
    """The arguments that are project paths: ones with a folder that look like paths, and
    script files (not ``key=value`` settings)."""
    found: list[Citation] = []
    for word in words[1:]:
        node = _node_id(word, span)
        if node:
            found.extend(node)
            continue
        path = normalize_path(word)
        if not path:
            continue
        if ("/" in path and looks_like_path(path)) or (
            _extension(path) in ("py", "sh", "js", "ts") and "=" not in word
        ):
            found.append(Citation(PATH, path, span))
    return found


def _defined(found: re.Match[str], span: str) -> list[Citation]:
    """The names a quoted definition cites: what it defines (a type's name only when
    capitalised, as types are in every language read: "`type hints`" names nothing) and a
    Go method's receiver type."""
    name, names = found.group("name"), []
    receiver = re.search(r"\*?([A-Z]\w*)(?:\[[^\]]*\])?\s*$", found.group("receiver") or "")
    if receiver:
        names.append(receiver.group(1))
    if found.group("type") and not name[0].isupper():
        return []
    if len(name) >= 3 and name not in GENERIC_SYMBOLS:
        names.append(name)
    if found.group("type") == "impl":
        names += _impl_types(span[found.end() :])
    return [Citation(SYMBOL, n, span) for n in dict.fromkeys(names)]


_IMPL_REST = re.compile(r"^\s*(?:<(?P<args>[^<>]{1,120})>)?\s+for\s+(?P<type>[A-Z]\w*)")
_TYPE_NAME = re.compile(r"\b[A-Z]\w*")
_GENERIC = re.compile(r"^[A-Za-z_][\w:]*<(?P<args>.{1,160})>$")


def _impl_types(rest: str) -> list[str]:
    """The types a Rust trait implementation is about, after the trait's name: the one it is
    for and those its trait is generic over (`impl From<Order> for Invoice` cites `Order` and
    `Invoice`, not only `From`), each capitalised as a type's name is."""
    found = _IMPL_REST.match(rest)
    if found is None:
        return []
    args = _TYPE_NAME.findall(found["args"] or "")
    return [n for n in (*args, found["type"]) if len(n) >= 3 and n not in GENERIC_SYMBOLS]


def _generic_type(span: str) -> list[Citation]:
    """The names a generic type expression cites (`Vec<LineItem>`, `HashMap<OrderId,
    Vec<Price>>`): each name inside its brackets read as a single name in backticks is, so a
    project's own type counts and a one-word or standard one (`String`) does not."""
    found = _GENERIC.match(span)
    if found is None:
        return []
    names = (_symbol(word) for word in re.findall(r"[A-Za-z_]\w*", found["args"]))
    return [Citation(SYMBOL, c.value, span) for c in names if c is not None and c.kind == SYMBOL]


def _php_member(name: str, span: str) -> list[Citation]:
    """The member a PHP citation reaches through a variable (`$cart->fromCookie()`): the
    variable names no class, so the member is looked for alone."""
    return [Citation(SYMBOL, name, span)] if len(name) >= 3 and name not in GENERIC_SYMBOLS else []


def classify_span(span: str) -> list[Citation]:
    """The citations in one backticked span (usually one, none for ordinary code)."""
    span = span.strip()
    if not span:
        return []
    definition = _DEFINITION.match(span)
    if definition:
        return _defined(definition, span)
    generic = _generic_type(span)
    if generic:
        return generic
    if " " in span and not _CALL.match(span):  # `Version::new(1, 2, 3)` is a call
        return _command(span) or _code_in_span(span)
    arity = _ARITY.match(span)
    if arity:
        return _qualified(arity["named"], span)
    node = _node_id(span, span)
    if node:
        return node
    php = _PHP_MEMBER.match(span)
    if php:
        return _php_member(php["name"], span)
    flag = _FLAG.match(span)
    if flag:
        return [Citation(SYMBOL, flag["name"], span.split("=", 1)[0])]
    path = normalize_path(span)
    if path and looks_like_path(path):
        return [Citation(PATH, path, span)]
    qualified = _qualified(span)
    if qualified or _QUALIFIED.match(_PACKAGE_PATH.sub("", span, count=1)):
        return qualified
    symbol = _symbol(span)
    call = _CALL.match(span)
    if call:  # `Cart.apply_coupon()` names its owner as `Cart.apply_coupon` does
        parts = _qualified(call.group(1))
        owner = [c for c in parts if symbol is None or c.value != symbol.value]
        if symbol is not None:
            held_by = next((c.owner for c in parts if c.value == symbol.value), "")
            symbol = Citation(SYMBOL, symbol.value, span, owner=held_by)
        return [*(Citation(c.kind, c.value, span) for c in owner), *([symbol] if symbol else [])]
    return [symbol] if symbol else _code_in_span(span)


# Go's method expression: `(*Cart).ApplyCoupon`, `(Cart).Total`
_GO_METHOD = re.compile(r"^\(\*?(?P<owner>[A-Z]\w*)\)\.(?P<member>[A-Z]\w*)$")


def _code_in_span(span: str) -> list[Citation]:
    """The names a span of code calls when it is no single name or command: a call on a new
    object (`Cart().apply_coupon(code="X")`, `new Cart().applyCoupon("X")`) cites the names a
    fenced block's line would, and a Go method expression (`(*Cart).ApplyCoupon`) its member
    with its type."""
    method = _GO_METHOD.match(span)
    if method:
        return _qualified(f"{method['owner']}.{method['member']}", span)
    return [
        Citation(SYMBOL, m.group(1), span)
        for m in _CODE_CALL.finditer(span)
        if m.group(1) not in GENERIC_SYMBOLS
    ]


# Words that make a cited name something to stay away from, or already gone: "never call
# `charge_v1`", "use `x`, not `y`", "`legacy_mode` was removed". Its absence from the code is
# then the rule being followed, never a sign the entry went stale.
_AWAY_BEFORE = re.compile(
    r"\b(?:never|avoid(?:ing)?|don'?t|do\s+not|doesn'?t|not|no\s+longer|instead\s+of|rather\s+than|"
    r"stop(?:ped)?\s+using|removed|deleted|dropped|deprecated|banned|forbidden|without|replaced|"
    r"retired|got\s+rid\s+of)\b",
    re.IGNORECASE,
)
_AWAY_AFTER = re.compile(
    r"^\W{0,3}(?:(?:is|was|were|are|has\s+been|have\s+been|got)\s+)?(?:removed|deleted|dropped|"
    r"deprecated|banned|forbidden|gone|retired|replaced)\b|^\W{0,3}(?:is|was)\s+no\s+longer\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.;:!?,(]\s|[.;:!?]$|\n|\s[-–—]\s")


def named_to_avoid(text: str, citation: Citation) -> bool:
    """Whether ``text`` (an entry) names ``citation`` only as something to avoid or that is
    gone already (in the same clause): a symbol of such an entry is not checked for being gone."""
    where = text.find(f"`{citation.text}`")
    width = len(citation.text) + 2
    if where < 0:
        where, width = text.find(citation.text), len(citation.text)
    if where < 0:
        return False
    before = _CLAUSE_END.split(text[:where])[-1]
    after = _CLAUSE_END.split(text[where + width :])[0]
    return bool(_AWAY_BEFORE.search(before) or _AWAY_AFTER.search(after))


# "the old `src/legacy/` folder is gone", "`scripts/seed.sh` was removed": a path the entry
# itself records as gone; its absence is what the entry says, never a sign it went stale
_GONE_AFTER = re.compile(
    r"^\W{0,3}(?:(?:folder|directory|dir|file|module|package|script)s?\s+)?(?:(?:is|was|were|"
    r"are|has\s+been|have\s+been|got)\s+)?(?:now\s+)?(?:removed|deleted|dropped|gone|retired|"
    r"replaced)\b|^\W{0,3}(?:(?:folder|directory|dir|file|module)\s+)?(?:is|was)\s+no\s+longer\b",
    re.IGNORECASE,
)
_GONE_BEFORE = re.compile(
    r"\b(?:no\s+longer|instead\s+of|rather\s+than|removed|deleted|dropped|replaced|retired|"
    r"got\s+rid\s+of)\b",
    re.IGNORECASE,
)


# the clause after a cited path that says what became of it: "; it was removed", ", which
# is gone now", "(this file has been deleted)"
_POINTS_BACK = re.compile(
    r"^\W{0,3}(?:it|this(?:\s+(?:file|folder|one))?|that(?:\s+(?:file|folder|one))?|which|"
    r"the\s+(?:file|folder))(?:'s)?(?=\s|$)",
    re.IGNORECASE,
)


def named_as_gone(text: str, citation: Citation) -> bool:
    """Whether ``text`` (an entry) names the cited path as already gone or replaced, in the
    same clause or in the next one pointing back at it ("...; it was removed"): a missing file
    is then the entry being true, not stale."""
    where = text.find(f"`{citation.text}`")
    width = len(citation.text) + 2
    if where < 0:
        where, width = text.find(citation.text), len(citation.text)
    if where < 0:
        return False
    before = _CLAUSE_END.split(text[:where])[-1]
    after, *later = _CLAUSE_END.split(text[where + width :])
    if _GONE_BEFORE.search(before) or _GONE_AFTER.search(after):
        return True
    told = _POINTS_BACK.match(later[0]) if later else None  # "...; it was removed."
    return told is not None and _GONE_AFTER.search(later[0][told.end() :]) is not None


def find_citations(text: str) -> tuple[Citation, ...]:
    """Every citation in an entry's text, once each, in order of appearance."""
    found: dict[tuple[str, str, str], Citation] = {}
    for match in _SPAN.finditer(text):
        for citation in classify_span(match.group(1)):
            found.setdefault((citation.kind, citation.value, citation.tool), citation)
    for info, lines in _fenced_blocks(text):
        for line in lines:
            for citation in _command(line.strip()):
                found.setdefault((citation.kind, citation.value, citation.tool), citation)
        for citation in _code_calls(info, lines):
            found.setdefault((citation.kind, citation.value, citation.tool), citation)
    outside = _SPAN.sub(" ", text)
    for match in _BARE_PATH.finditer(outside):
        path = normalize_path(match.group(1))
        if path and looks_like_path(path):
            found.setdefault((PATH, path, ""), Citation(PATH, path, match.group(1)))
    for match in _BARE_PATH_CALL.finditer(outside):
        for citation in _qualified(match.group(1), match.group(0)):
            found.setdefault((citation.kind, citation.value, citation.tool), citation)
    for match in _BARE_CALL.finditer(outside):
        name = match.group(1)
        if name not in GENERIC_SYMBOLS:
            found.setdefault((SYMBOL, name, ""), Citation(SYMBOL, name, match.group(0)))
    return tuple(found.values())


def _fenced_blocks(text: str) -> list[tuple[str, list[str]]]:
    """Each fenced code block: its info string (lower case) and its non-blank lines."""
    blocks: list[tuple[str, list[str]]] = []
    fence: str | None = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[:3]
            blocks.append((match.group(2).lower(), []))
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is not None and line.strip():
            blocks[-1][1].append(line)
    return blocks


def _code_calls(info: str, lines: list[str]) -> list[Citation]:
    """The project functions a fenced code block calls (`total = apply_coupon(cart)` cites
    `apply_coupon` as `apply_coupon()` in prose does); a shell block or a terminal session
    (a prompt, then what the command printed) cites no names."""
    if info in _SHELL_FENCES or any(_PROMPT_LINE.match(line) for line in lines):
        return []
    found = []
    for line in lines:
        for match in _CODE_CALL.finditer(line):
            if match.group(1) not in GENERIC_SYMBOLS:
                found.append(Citation(SYMBOL, match.group(1), match.group(0)))
        for match in _CODE_PATH_CALL.finditer(line):
            found.extend(_qualified(match.group(1), match.group(0)))
    return found


# --------------------------------------------------------------------------- entries


def _front_matter_end(lines: list[str]) -> int:
    if not lines or lines[0].strip().lstrip("\ufeff") != "---":
        return 0
    for index in range(1, min(len(lines), 200)):
        if lines[index].strip() in ("---", "..."):
            return index + 1
    return 0


def _blocks(lines: list[str]) -> Iterator[tuple[int, int, str]]:
    """``(start index, end index exclusive, heading)`` of each bullet or paragraph."""
    heading = ""
    start: int | None = None
    fence: str | None = None
    in_comment = False
    for index in range(_front_matter_end(lines), len(lines)):
        line = lines[index]
        stripped = line.strip()
        if fence is not None:  # a fenced block belongs to the entry it is in, whole
            if stripped.startswith(fence):
                fence = None
            continue
        if in_comment:  # a multi-line HTML comment is neither an entry nor part of one
            in_comment = "-->" not in line
            continue
        opens_comment = stripped.startswith("<!--") and "-->" not in stripped[4:]
        is_heading = _HEADING.match(line) is not None
        if start is not None and _ends_block(line, stripped, is_heading, opens_comment):
            yield start, index, heading
            start = None
        if is_heading:
            heading = stripped.lstrip("#").strip()
        elif opens_comment:
            in_comment = True
        else:
            fence = _fence_opened(line)
            if start is None and (fence is not None or _starts_text(stripped)):
                start = index
    if start is not None:
        yield start, len(lines), heading


def _ends_block(line: str, stripped: str, is_heading: bool, opens_comment: bool) -> bool:
    """Whether ``line`` ends the entry before it: a blank line, a table row (each row is an
    entry of its own), a heading, a comment or a new bullet."""
    return bool(
        not stripped
        or stripped.startswith("|")
        or is_heading
        or opens_comment
        or (stripped.startswith("<!--") and stripped.endswith("-->"))
        or _BULLET.match(line)
    )


def _fence_opened(line: str) -> str | None:
    """The fence (its first three characters) a line opens, else ``None``."""
    match = _FENCE.match(line)
    return match.group(1)[:3] if match else None


def _starts_text(stripped: str) -> bool:
    """Whether a (stripped) line is text that can start an entry: not blank, not a comment."""
    return bool(stripped) and not stripped.startswith("<!--")


def split_entries(text: str, *, every: bool = False) -> list[Entry]:
    """The entries of a memory file's (privacy-blanked) text that cite something (``every``:
    all of them, citing or not)."""
    lines = text.splitlines()
    entries = []
    for start, end, heading in _blocks(lines):
        body = lines[start:end]
        while body and not body[-1].strip():
            body.pop()
        citations = find_citations("\n".join(body))
        if citations or (every and body):
            entries.append(Entry(start + 1, start + len(body), heading, tuple(body), citations))
    return entries
