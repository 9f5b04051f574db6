"""Where things live: project roots, memory roots and ConKeeper's data home.

Every other module asks this one rather than building paths itself, so that linked git
worktrees resolve to one project identity and ``CONKEEPER_HOME`` / XDG are honoured everywhere.
Only the standard library and no subprocesses: this runs on the hook path.

Two spellings of each answer: the public functions return :class:`~pathlib.Path` objects, and
``*_folder`` / ``*_file`` functions return the same paths as plain strings, exactly as
``str(Path(...))`` would print them. The search read path uses the strings only, so a search
never imports :mod:`pathlib` (with ``re``, ``enum``, ``fnmatch`` and ``urllib.parse`` it costs
about a third of a search's start-up); everything else keeps using paths.
"""

from __future__ import annotations

import os

from conkeeper.domain.records import FrozenRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

MEMORY_SUBFOLDER = ".claude/memory"
DB_FILENAME = "conkeeper.db"


# Files agents read as standing instructions in every session (each host's own memory):
# a line planted there steers every later session, so an agent's edit of one is watched.
AGENT_INSTRUCTION_NAMES = frozenset(
    {"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENT.md", "GEMINI.md", ".rules",
     ".cursorrules", ".windsurfrules", ".clinerules", "copilot-instructions.md"}
)  # fmt: skip
AGENT_INSTRUCTION_DIRS = (
    ".cursor/rules/",
    ".windsurf/rules/",
    ".clinerules/",
    ".github/instructions/",
)


_NAMES_ANY_CASE = frozenset(name.casefold() for name in AGENT_INSTRUCTION_NAMES)
_DIRS_ANY_CASE = tuple(folder.casefold() for folder in AGENT_INSTRUCTION_DIRS)


def is_agent_instruction_file(path: str, *, any_case: bool = False) -> bool:
    """Whether ``path`` (any form) is a file some coding agent reads as its standing
    instructions: ``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md``, ``.cursorrules``,
    ``.github/copilot-instructions.md``, a rule in ``.cursor/rules/``... at any depth.
    ``any_case``: read without case (on a case-insensitive disk ``claude.md`` is ``CLAUDE.md``),
    as a file ConKeeper is about to create is checked, since none may become such a file."""
    text = path.replace("\\", "/")
    names: frozenset[str] = AGENT_INSTRUCTION_NAMES
    folders: tuple[str, ...] = AGENT_INSTRUCTION_DIRS
    if any_case:
        text, names, folders = text.casefold(), _NAMES_ANY_CASE, _DIRS_ANY_CASE
    if text.rsplit("/", 1)[-1] in names:
        return True
    return any(f"/{folder}" in f"/{text}" for folder in folders)


def mentions_agent_instruction_file(text: str) -> bool:
    """Whether ``text`` (a shell command) names any agent-instruction file at all: the cheap
    first check before :mod:`conkeeper.domain.shell_targets` reads the command."""
    return any(name in text for name in AGENT_INSTRUCTION_NAMES) or any(
        folder.rstrip("/") in text for folder in AGENT_INSTRUCTION_DIRS
    )


def _path(text: str) -> Path:
    from pathlib import Path

    return Path(text)


def clean(text: str) -> str:
    """``text`` spelled as ``str(PurePosixPath(text))``: empty and ``.`` parts and trailing
    slashes dropped (``..`` kept), so strings made here compare equal to paths' strings."""
    if not text:
        return "."
    lead = "//" if text.startswith("//") and not text.startswith("///") else "/" * (text[0] == "/")
    parts = [p for p in text.split("/") if p and p != "."]
    return lead + "/".join(parts) if parts or lead else "."


def join(folder: str, *names: str) -> str:
    """``folder`` and ``names`` joined as :class:`~pathlib.PurePosixPath` would join them (an
    absolute name starts afresh)."""
    text = folder
    for name in names:
        if name.startswith("/") or not text:
            text = name
        elif name:
            text += name if text.strip("/") == "" else "/" + name
    return clean(text)


class ProjectLocation(FrozenRecord):
    """A project as ConKeeper sees it: its work-tree root, stable identity and memory folder.

    Held as strings (``root_folder``, ``memory_folder``); ``root`` and ``memory_dir`` hand out
    :class:`~pathlib.Path` objects for everything outside the search read path.
    """

    __slots__ = ("identity", "memory_folder", "root_folder")
    root_folder: str
    identity: str
    memory_folder: str

    def __init__(self, root: Path | str, identity: str, memory_dir: Path | str) -> None:
        self._set(root_folder=os.fspath(root), identity=identity)
        self._set(memory_folder=os.fspath(memory_dir))

    @property
    def root(self) -> Path:
        """The work-tree root."""
        return _path(self.root_folder)

    @property
    def memory_dir(self) -> Path:
        """The project's memory folder, ``<root>/.claude/memory``."""
        return _path(self.memory_folder)

    @property
    def name(self) -> str:
        """A short display name: the last component of the identity path, a credential in it
        redacted (SessionStart sends it to the model; reports and search hits print it). A
        digest identity (:func:`stored_identity`) is named by its root's last component."""
        from conkeeper.domain.messages import clean_path

        named = self.root_folder if self.identity.startswith(DIGEST_PREFIX) else self.identity
        return clean_path(clean(named).rsplit("/", 1)[-1] or named)

    @property
    def shown_root(self) -> str:
        """The root as ConKeeper may store and show it (:func:`stored_path`)."""
        return stored_path(self.root_folder)

    @property
    def shown_identity(self) -> str:
        """The identity as a person is shown it: a digest identity as its redacted root."""
        return self.shown_root if self.identity.startswith(DIGEST_PREFIX) else self.identity


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def home_folder(env: Mapping[str, str] | None = None) -> str:
    """The user's home, from ``HOME`` when set (tests and sandboxes rely on this)."""
    value = _env(env).get("HOME")
    return clean(value) if value else clean(os.path.expanduser("~"))


def data_folder(env: Mapping[str, str] | None = None) -> str:
    """ConKeeper's data folder: ``CONKEEPER_HOME``, else ``$XDG_DATA_HOME/conkeeper``, else
    ``~/.local/share/conkeeper``."""
    e = _env(env)
    if e.get("CONKEEPER_HOME"):
        return clean(_expand_user(e["CONKEEPER_HOME"]))
    if e.get("XDG_DATA_HOME"):
        return join(_expand_user(e["XDG_DATA_HOME"]), "conkeeper")
    return join(home_folder(e), ".local", "share", "conkeeper")


def _expand_user(text: str) -> str:
    """``~`` or ``~user`` at the start expanded, as :meth:`pathlib.Path.expanduser` does."""
    return os.path.expanduser(text) if text.startswith("~") else text


def db_file(env: Mapping[str, str] | None = None) -> str:
    """The user's single SQLite database."""
    return join(data_folder(env), DB_FILENAME)


def global_memory_folder(env: Mapping[str, str] | None = None) -> str:
    """The user's global memory folder, ``~/.claude/memory``."""
    return join(home_folder(env), MEMORY_SUBFOLDER)


def memory_folder_of(root: str) -> str:
    """A project's memory folder, ``<root>/.claude/memory``."""
    return join(root, MEMORY_SUBFOLDER)


def memory_folder_containing(path: str) -> str | None:
    """The memory folder (``<root>/.claude/memory``) an absolute ``path`` lies in, whichever
    project it belongs to, else None: an agent's edit tools reach another project's memory as
    easily as its own, and what they write there is the agent's all the same."""
    marker = f"/{MEMORY_SUBFOLDER}/"
    at = path.rfind(marker)
    return path[: at + len(marker) - 1] if at > 0 else None


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """:func:`home_folder` as a path."""
    return _path(home_folder(env))


def data_home(env: Mapping[str, str] | None = None) -> Path:
    """:func:`data_folder` as a path."""
    return _path(data_folder(env))


def db_path(env: Mapping[str, str] | None = None) -> Path:
    """The user's single SQLite database."""
    return _path(db_file(env))


def log_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where ConKeeper writes its own log files (hook failures land here, never on stdout)."""
    return _path(join(data_folder(env), "logs"))


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """Per-session hook state (counters, flags, pending handoffs)."""
    return _path(join(data_folder(env), "state"))


def global_memory_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's global memory folder, ``~/.claude/memory``."""
    return _path(global_memory_folder(env))


def project_memory_dir(root: Path | str) -> Path:
    """A project's memory folder, ``<root>/.claude/memory``."""
    return _path(memory_folder_of(os.fspath(root)))


def _git_marker(directory: str) -> str | None:
    marker = join(directory, ".git")
    try:
        if os.path.isdir(marker) or os.path.isfile(marker):
            return marker
    except (OSError, ValueError):
        return None
    return None


def _resolve(text: str) -> str:
    """``text`` made absolute with symlinks resolved, as :meth:`pathlib.Path.resolve` does."""
    return clean(os.path.realpath(text))


def project_root_folder(start: str) -> str:
    """The git work-tree root containing ``start``; ``start`` itself outside git.

    A ``.git`` file (linked worktree or submodule) marks a work-tree root just like a folder.
    """
    try:
        here = _resolve(_expand_user(start))
    except (OSError, ValueError):
        return clean(start)
    candidate = here
    while True:
        if _git_marker(candidate) is not None:
            return candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return here
        candidate = parent


def find_project_root(start: Path) -> Path:
    """:func:`project_root_folder` as a path."""
    return _path(project_root_folder(os.fspath(start)))


def _read_gitdir_pointer(git_file: str) -> str | None:
    try:
        with open(git_file, encoding="utf-8", errors="replace") as handle:
            first = handle.read().splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = clean(first.split(":", 1)[1].strip())
    if not target.startswith("/"):
        target = join(os.path.dirname(git_file), target)
    return _resolve(target)


def _common_dir(gitdir: str) -> str:
    """The repository's common git dir for a worktree's private git dir (``commondir`` file)."""
    try:
        with open(join(gitdir, "commondir"), encoding="utf-8") as handle:
            rel = handle.read().strip()
    except OSError:
        return gitdir
    common = clean(rel)
    if not common.startswith("/"):
        common = join(gitdir, common)
    return _resolve(common)


DIGEST_PREFIX = "redacted-"  # how a digest identity begins (``session_id.without_secret``)


def stored_identity(live: str) -> str:
    """The identity ConKeeper stores for the project whose live identity path is ``live``:
    the path itself, or ``redacted-<digest>`` of it when a name in it holds a credential (a
    folder named after a token). The digest is stable, so every front door, the hooks, backups
    and tombstones name the project alike; the live path stays in memory only."""
    from conkeeper.domain.session_id import path_without_secret

    return path_without_secret(live)


def stored_path(path: str) -> str:
    """``path`` as ConKeeper may store or show it: unchanged unless a name in it holds a
    credential, then with that name redacted (``/home/u/[REDACTED:github-token]/app``)."""
    from conkeeper.domain.messages import clean_path

    return clean_path(path)


def identity_of(root: str) -> str:
    """A stable identity for the project at ``root``, as stored (:func:`stored_identity`).

    Linked worktrees (``.git`` is a file pointing into ``<main>/.git/worktrees/<name>``) resolve to
    the main work tree, so every worktree of one repository shares one identity. Anything else is
    identified by its resolved root path.
    """
    return stored_identity(live_identity_of(root))


def live_identity_of(root: str) -> str:
    """The identity path of the project at ``root`` (the main work tree, or the resolved root),
    before :func:`stored_identity`: held in memory, never stored."""
    marker = _git_marker(root)
    if marker is not None and os.path.isfile(marker):
        gitdir = _read_gitdir_pointer(marker)
        if gitdir is not None:
            common = _common_dir(gitdir)
            if os.path.basename(common) == ".git":
                return os.path.dirname(common)
            return common
    try:
        return _resolve(root)
    except (OSError, ValueError):
        return root


def project_identity(root: Path) -> str:
    """:func:`identity_of` for a path."""
    return identity_of(os.fspath(root))


def locate_project(
    start: Path | str, identify: Callable[[str], str] | None = None
) -> ProjectLocation:
    """Resolve a working directory (a hook's ``cwd``, the CLI's cwd) to its project.
    ``identify``: :func:`stored_identity`, or the same answer remembered (the hooks pass
    ``storage.identity_cache.identifier``, so a folder is scanned for a credential once)."""
    root = project_root_folder(os.fspath(start))
    live = live_identity_of(root)
    return ProjectLocation(root, (identify or stored_identity)(live), memory_folder_of(root))
