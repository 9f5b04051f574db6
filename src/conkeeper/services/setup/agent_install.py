"""``conkeeper install [--agent NAME]``: write ConKeeper into an agent's own files, and take it
back out byte for byte.

One code path for every agent, Claude Code included. Each agent's module in
:mod:`conkeeper.hosts` describes where its hooks, MCP registration and instructions live (an
:class:`~conkeeper.hosts.spec.Integration`); this module turns that into a :class:`Plan` of file
changes, shown before anything is written, and applies it through
:mod:`conkeeper.domain.safewrite` (the shared lock, the journal ``conkeeper undo`` reads).

Every file is handled the same way, by one of three targets (a JSON file, a block between marker
lines, a file of ConKeeper's own):

* the user's view of the file is found first: the file without ConKeeper's part (for an install
  too, so an update replaces ConKeeper's part and nothing else);
* install plans its part as *insertions* into that view (:mod:`conkeeper.domain.config_edit`)
  and records, under ``<data home>/installs/``, the original bytes, the installed bytes and the
  byte spans it inserted;
* uninstall gives back the original bytes when the file is as install left it, else cuts only
  the recorded spans (the user's later changes stay), else removes ConKeeper's entries by their
  positions (never a re-dump); an unpaired marker is refused, changing nothing;
* a second install changes nothing; a user entry that already uses ConKeeper's MCP name, or a
  file of the user's where ConKeeper would put its own, is left alone with a warning;
* a config file that is a symlink (into a dotfiles folder, say) is never replaced by a copy: the
  command refuses unless ``--follow-symlinks`` asks to edit the file the link points to;
* hooks and MCP registrations run the stable launcher (:mod:`.launcher`), and the MCP server is
  registered only when the ``mcp`` extra can be imported.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conkeeper.domain import safewrite
from conkeeper.domain.config_edit import (
    EditRefused,
    Inserted,
    JsonPath,
    Markers,
    Put,
    block_bodies,
    block_dropped,
    block_insert,
    block_lines,
    block_remove,
    decode,
    json_insert,
    json_remove,
    json_value,
    remove_spans,
)
from conkeeper.domain.paths import locate_project
from conkeeper.hosts import HOSTS, canonical_host, get_host
from conkeeper.hosts.spec import (
    MCP_NAME,
    SNIPPET_END,
    SNIPPET_START,
    HookScripts,
    HooksFile,
    Instructions,
    Integration,
    McpRegistration,
    is_own,
)
from conkeeper.services.setup.install import InstallError, plugin_warnings
from conkeeper.services.setup.install_records import (
    Record,
    forget_record,
    load_record,
    save_record,
)
from conkeeper.services.setup.launcher import (
    MCP_EXTRA_HINT,
    ensure_launcher,
    launcher_path,
    mcp_can_start,
)

AGENT_SCOPES = ("project", "user")
TOML_START = "# >>> conkeeper (managed by 'conkeeper install --agent codex') >>>"
TOML_END = "# <<< conkeeper <<<"
TOML_MARKERS = Markers("# >>> conkeeper", TOML_END)
SNIPPET_MARKERS = Markers(SNIPPET_START.split(" (", 1)[0], SNIPPET_END)


@dataclass
class FileChange:
    """One file's planned change: ``before``/``after`` bytes (``None`` = absent).

    ``original`` is the file without ConKeeper's part and ``spans`` what install inserted
    (byte offsets in ``after``); both go to the install record when the change is applied.
    """

    path: Path
    what: str  # hooks | mcp | hooks + mcp | instructions | hook script
    before: bytes | None
    after: bytes | None
    executable: bool = False
    warning: str = ""
    original: bytes | None = None
    spans: tuple[tuple[int, int], ...] = ()
    link: Path | None = None  # the symlink written through (--follow-symlinks)

    @property
    def action(self) -> str:
        """create, update, delete or unchanged."""
        if self.before == self.after:
            return "unchanged"
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "update"

    def diff(self) -> str:
        """A unified diff of the change, for ``--dry-run``; its headers name the file as
        ConKeeper may show it (a project folder named after a credential, redacted)."""
        from conkeeper.domain.paths import stored_path

        a = decode(self.before or b"").splitlines(keepends=True)
        b = decode(self.after or b"").splitlines(keepends=True)
        name = stored_path(str(self.path))
        lines = difflib.unified_diff(a, b, name, name)
        return "".join(line.encode("utf-8", "replace").decode("utf-8") for line in lines)


@dataclass
class Plan:
    """Everything one install or uninstall would change, and what the user should know."""

    agent: str
    scope: str
    uninstall: bool
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    mcp_registered: bool | None = None  # None: this agent/scope registers no MCP server

    @property
    def changed(self) -> bool:
        """True when at least one file would change."""
        return any(c.action != "unchanged" for c in self.changes)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-friendly form for ``--json``."""
        return {
            "agent": self.agent,
            "scope": self.scope,
            "uninstall": self.uninstall,
            "changed": self.changed,
            "mcp_registered": self.mcp_registered,
            "changes": [
                {
                    "path": str(c.path),
                    "what": c.what,
                    "action": c.action,
                    "warning": c.warning,
                    "link": str(c.link) if c.link else None,
                }
                for c in self.changes
            ],
            "notes": self.notes,
            "warnings": self.warnings,
        }


def agent_names() -> list[str]:
    """Every agent ``--agent`` accepts."""
    return list(HOSTS)


def scopes_for(agent: str) -> tuple[str, ...]:
    """The scopes an agent installs at, the default first."""
    scopes: tuple[str, ...] = getattr(get_host(agent), "INSTALL_SCOPES", AGENT_SCOPES)
    return scopes


# --------------------------------------------------------------------------- targets


class _Target:
    """One file ConKeeper writes into, and how its part is found, inserted and removed."""

    path: Path
    what: str
    executable = False

    def strip(self, raw: bytes, record: Record | None) -> tuple[bytes | None, str]:
        """``raw`` without ConKeeper's part, by structure (no usable record); and a warning."""
        raise NotImplementedError

    def cut_is_clean(self, cut: bytes, current: bytes, record: Record) -> bool:
        """Whether cutting the recorded spans left exactly the user's part."""
        raise NotImplementedError

    def insert(self, view: bytes | None) -> Inserted | None:
        """ConKeeper's part inserted into the user's ``view``; ``None`` to leave it alone."""
        raise NotImplementedError

    def same(self, a: bytes | None, b: bytes | None) -> bool:
        """True when ``a`` and ``b`` hold the same ConKeeper part and the same user part."""
        return a == b

    def present(self, raw: bytes | None) -> bool:
        """True when ConKeeper's part is in ``raw`` (for ``doctor``)."""
        raise NotImplementedError


def _json_data(raw: bytes | None) -> Any:
    return json_value(raw)


class _JsonTarget(_Target):
    """Hooks and/or an MCP entry in a JSON object file."""

    def __init__(
        self,
        path: Path,
        hooks: HooksFile | None,
        mcp: McpRegistration | None,
        register_mcp: bool,
    ) -> None:
        self.path = path
        self.hooks = hooks
        self.mcp = mcp
        self.register_mcp = register_mcp and mcp is not None
        self.what = " + ".join(w for w, s in (("hooks", hooks), ("mcp", mcp)) if s is not None)
        self.warning = ""
        self.own_keys: dict[str, Any] = {}  # keys the person added to ConKeeper's entry

    def _additions(self, view_data: Any) -> dict[str, Any]:
        additions: dict[str, Any] = {}
        if self.hooks is not None:
            additions.update({k: Put(v) for k, v in self.hooks.top.items()})
            events: dict[str, list[Any]] = {}
            for event in self.hooks.events:
                handler = self.hooks.handler(event)
                if self.hooks.style == "flat":
                    events.setdefault(event.name, []).append(handler)
                else:
                    group: dict[str, Any] = {"matcher": event.matcher} if event.matcher else {}
                    group["hooks"] = [handler]
                    events.setdefault(event.name, []).append(group)
            additions["hooks"] = events
        if self.mcp is not None and self.register_mcp:
            servers = view_data.get(self.mcp.key) if isinstance(view_data, dict) else None
            if isinstance(servers, dict) and MCP_NAME in servers:
                self.warning = f"'{MCP_NAME}' in {self.mcp.key} is your own entry; left alone"
            else:
                # a re-install keeps the keys the person added to the entry (an ``env``)
                entry = {**self.mcp.entry, **self.own_keys}
                additions[self.mcp.key] = {MCP_NAME: Put(entry)}
                self.warning = ""
        return additions

    def _own(self, path: JsonPath, value: Any) -> bool:
        if self.hooks is not None and len(path) >= 3 and path[0] == "hooks":
            if self.hooks.style == "flat":
                return len(path) == 3 and is_own(value)
            if len(path) == 3:
                handlers = value.get("hooks") if isinstance(value, dict) else None
                return isinstance(handlers, list) and bool(handlers) and all(map(is_own, handlers))
            return len(path) == 5 and path[3] == "hooks" and is_own(value)
        return self.mcp is not None and path == (self.mcp.key, MCP_NAME) and is_own(value)

    def strip(self, raw: bytes, record: Record | None) -> tuple[bytes | None, str]:
        self._note_own_keys(raw)
        original = _json_data(record.original) if record and record.original else None
        had = set(original) if isinstance(original, dict) else set()
        old_hooks = original.get("hooks") if isinstance(original, dict) else None
        had_events = set(old_hooks) if isinstance(old_hooks, dict) else set()
        whole = self.hooks is not None and self.hooks.whole_file

        def drop(path: JsonPath) -> bool:
            if len(path) == 2 and path[0] == "hooks":
                return path[1] not in had_events  # an event ConKeeper's entries alone filled
            if len(path) == 1 and path[0] in ("hooks", getattr(self.mcp, "key", None)):
                return path[0] not in had and (record is not None or whole)
            return False

        try:
            view = json_remove(raw, self._own, drop)
        except EditRefused as exc:
            raise InstallError(
                f"{self.path}: {exc} Fix it or edit it by hand; nothing was changed"
            ) from None
        if (record is None and whole) or (record is not None and not record.existed):
            data = _json_data(view)
            top = dict(self.hooks.top) if self.hooks else {}
            if isinstance(data, dict) and all(top.get(k) == v for k, v in data.items()):
                return None, ""
        return view, ""

    def _note_own_keys(self, raw: bytes) -> None:
        """Warn when the person added keys of their own (an ``env``) to ConKeeper's server
        entry: the entry goes whole (what is left of it would name no server to run, an error
        in the agent), so they are named, with the way back, and kept for a re-install
        (:meth:`_additions`). Found uninstalling from a Zed, Cursor and Claude config: the
        person's key went without a word; re-installing dropped it with only a warning."""
        if self.mcp is None:
            return
        data = _json_data(raw)
        servers = data.get(self.mcp.key) if isinstance(data, dict) else None
        entry = servers.get(MCP_NAME) if isinstance(servers, dict) else None
        if not isinstance(entry, dict) or not is_own(entry):
            return
        extra = sorted(set(entry) - set(self.mcp.entry))
        self.own_keys = {key: entry[key] for key in extra}
        if extra:
            self.warning = (
                f"your own {', '.join(extra)} in {self.mcp.key}.{MCP_NAME} went with "
                "ConKeeper's entry ('conkeeper undo' brings it back)"
            )

    def cut_is_clean(self, cut: bytes, current: bytes, record: Record) -> bool:
        data = _json_data(cut)
        if data is None:
            return False
        view, _ = self.strip(current, record)
        return bool(data == _json_data(view)) if view is not None else not cut.strip()

    def insert(self, view: bytes | None) -> Inserted | None:
        additions = self._additions(_json_data(view))
        if not additions:
            return None
        try:
            return json_insert(view, additions)
        except EditRefused as exc:
            raise InstallError(
                f"{self.path}: {exc}; fix it or add ConKeeper by hand; nothing was changed"
            ) from None

    def same(self, a: bytes | None, b: bytes | None) -> bool:
        if a == b:
            return True
        data = _json_data(a)
        return data is not None and data == _json_data(b)

    def present(self, raw: bytes | None) -> bool:
        data = _json_data(raw)
        if not isinstance(data, dict):
            return False
        found = []

        def seen(path: JsonPath, value: Any) -> bool:
            if self._own(path, value):
                found.append(path)
            return False

        with contextlib.suppress(EditRefused):
            json_remove(raw or b"{}", seen, lambda p: False)
        return bool(found)


class _BlockTarget(_Target):
    """A block between ConKeeper's marker lines in a shared text file (TOML, Markdown)."""

    def __init__(
        self,
        path: Path,
        what: str,
        block: str | None,
        markers: Markers,
        own_header: str = "",
        keeps_added: bool = False,
        tables: bool = False,
    ) -> None:
        self.path = path
        self.what = what
        self.block = block
        self.markers = markers
        self.own_header = own_header
        self.keeps_added = keeps_added  # prose: a line the person added inside the block stays
        self.tables = tables  # TOML: a table the person added inside the block stays
        self.warning = ""
        self.own_keys: list[str] = []  # the person's lines in ConKeeper's TOML table
        self.went = ""  # the warning naming them, dropped when a re-install keeps them

    def _blocks(self, raw: bytes) -> list[tuple[int, int]]:
        try:
            return block_lines(decode(raw), self.markers)
        except EditRefused as exc:
            raise InstallError(
                f"{self.path}: {exc}; nothing was changed. Put the missing marker line back, or "
                "delete ConKeeper's lines by hand"
            ) from None

    def strip(self, raw: bytes, record: Record | None) -> tuple[bytes | None, str]:
        if not self._blocks(raw):
            return raw, ""
        ours = self._own_lines(record) if self.keeps_added or self.tables else None
        view = block_remove(raw, self.markers, ours, self.tables)
        created = record is None or not record.existed
        if ours is not None and view != block_remove(raw, self.markers):
            self.warning = "your lines inside ConKeeper's block were kept"
        if ours is not None and self.tables:
            self._name_dropped(block_dropped(raw, self.markers, ours))
        return (None if created and not view.strip() else view), ""

    def _name_dropped(self, dropped: list[str]) -> None:
        """Name the person's lines that go with ConKeeper's TOML table (their keys by name, no
        value: an ``env`` may hold a token), with the way back, as the JSON targets do."""
        if not dropped:
            return
        names = sorted({_toml_key(line) for line in dropped})
        went = (
            f"your own {', '.join(names)} in ConKeeper's table went with it "
            "('conkeeper undo' brings it back)"
        )
        self.warning = f"{self.warning}; {went}" if self.warning else went
        self.went = went
        ours = {_toml_key(line) for line in (self.block or "").splitlines()}
        self.own_keys = [line for line in dropped if _toml_key(line) not in ours]

    def _own_lines(self, record: Record | None) -> set[str] | None:
        """The lines ConKeeper's block holds (as now, and as installed), to tell a line the
        person added inside it from ConKeeper's; ``None`` when neither is known."""
        bodies = [] if self.block is None else [self.block]
        if record is not None and record.installed is not None:
            with contextlib.suppress(EditRefused):
                bodies += block_bodies(record.installed, self.markers)
        if not bodies:
            return None
        return {line for body in bodies for line in body.splitlines()}

    def cut_is_clean(self, cut: bytes, current: bytes, record: Record) -> bool:
        try:
            return not block_lines(decode(cut), self.markers)
        except EditRefused:
            return False

    def insert(self, view: bytes | None) -> Inserted | None:
        if self.block is None:
            return None
        if self.own_header and self.own_header in decode(view or b""):
            self.warning = f"{self.own_header} is your own table; left alone"
            return None
        return block_insert(view, self._block_with_own_keys())

    def _block_with_own_keys(self) -> str:
        """ConKeeper's block, with the keys the person had set in its TOML table (an ``env``)
        put back before the end marker, as the JSON targets keep theirs in the new entry; a
        key ConKeeper's table sets itself is ConKeeper's (found re-installing for Codex: the
        person's ``env`` went with only a warning)."""
        block = self.block or ""
        if not self.own_keys:
            return block
        lines = block.splitlines()
        if self.went:
            parts = [part for part in self.warning.split("; ") if part != self.went]
            self.warning, self.went = "; ".join(parts), ""
        return "\n".join([*lines[:-1], *self.own_keys, lines[-1]]) + "\n"

    def same(self, a: bytes | None, b: bytes | None) -> bool:
        if a == b:
            return True
        try:
            return block_bodies(a, self.markers) == block_bodies(b, self.markers)
        except EditRefused:
            return False

    def present(self, raw: bytes | None) -> bool:
        try:
            return bool(block_lines(decode(raw or b""), self.markers))
        except EditRefused:
            return True


def _toml_key(line: str) -> str:
    """How a person's line in ConKeeper's TOML table is named in a warning: its key, else
    what kind of line it is (never a value)."""
    stripped = line.strip()
    if stripped.startswith("#"):
        return "comment"
    key = stripped.split("=", 1)[0].strip()
    return key if "=" in stripped and key and len(key) <= 60 else "line"


class _FileTarget(_Target):
    """A file of ConKeeper's own (a rule file, a hook script): created and removed whole."""

    def __init__(self, path: Path, what: str, content: str, executable: bool, mark: str) -> None:
        self.path = path
        self.what = what
        self.content = content.encode("utf-8")
        self.executable = executable
        self.mark = mark
        self.warning = ""

    def _ours(self, raw: bytes) -> bool:
        return self.mark in decode(raw).lower().replace("'", "").replace('"', "")

    def strip(self, raw: bytes, record: Record | None) -> tuple[bytes | None, str]:
        if record is not None and record.installed is not None:
            return raw, "changed since ConKeeper wrote it; left as it is"
        if self._ours(raw):
            return None, ""
        return raw, "a file of your own has this name; left alone"

    def cut_is_clean(self, cut: bytes, current: bytes, record: Record) -> bool:
        return False  # a file of ConKeeper's own the user edited is theirs now

    def insert(self, view: bytes | None) -> Inserted | None:
        if view is not None:
            return None
        return Inserted(self.content, ((0, len(self.content)),))

    def present(self, raw: bytes | None) -> bool:
        return raw is not None and self._ours(raw)


# --------------------------------------------------------------------------- planning


def _root(cwd: Path | None) -> Path:
    return locate_project(cwd or Path.cwd()).root


def integration_for(
    agent: str,
    scope: str | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    launcher: str | None = None,
) -> Integration:
    """The agent's description of what ConKeeper installs at ``scope`` (default: its first)."""
    name = canonical_host(agent)
    if name is None:
        raise InstallError(f"unknown agent {agent!r} (expected one of {', '.join(agent_names())})")
    scopes = scopes_for(name)
    scope = scope or scopes[0]
    if scope not in scopes:
        raise InstallError(f"--scope {scope} is not used for {name}; use {' or '.join(scopes)}")
    spec: Integration = get_host(name).integration(scope, _root(cwd), env, launcher)
    return spec


def _targets(spec: Integration, register_mcp: bool) -> list[_Target]:
    targets: list[_Target] = []
    mcp = spec.mcp
    if spec.hooks is not None:
        shared = mcp if mcp is not None and mcp.path == spec.hooks.path else None
        targets.append(_JsonTarget(spec.hooks.path, spec.hooks, shared, register_mcp))
        if shared is not None:
            mcp = None
    if spec.scripts is not None:
        targets.extend(_script_targets(spec.scripts))
    if mcp is not None:
        if mcp.format == "toml":
            targets.append(_toml_target(mcp, register_mcp))
        else:
            targets.append(_JsonTarget(mcp.path, None, mcp, register_mcp))
    if spec.instructions is not None:
        targets.append(_instructions_target(spec.instructions))
    return targets


def _script_targets(spec: HookScripts) -> list[_Target]:
    return [
        _FileTarget(spec.folder / name, "hook script", content, True, "conkeeper hook")
        for name, content in spec.scripts.items()
    ]


def _toml_value(value: object) -> str:
    return json.dumps(value)  # a JSON string or list of strings is valid TOML


def _toml_target(spec: McpRegistration, register: bool) -> _Target:
    header = f"[{spec.key}.{MCP_NAME}]"
    lines = [TOML_START, header, *(f"{k} = {_toml_value(v)}" for k, v in spec.entry.items())]
    block = "\n".join([*lines, TOML_END]) + "\n" if register else None
    return _BlockTarget(spec.path, "mcp", block, TOML_MARKERS, own_header=header, tables=True)


def _instructions_target(spec: Instructions) -> _Target:
    if spec.mode == "file":
        return _FileTarget(spec.path, "instructions", spec.text, False, "conkeeper")
    block = f"{SNIPPET_START}\n{spec.text.rstrip()}\n{SNIPPET_END}\n"
    return _BlockTarget(spec.path, "instructions", block, SNIPPET_MARKERS, keeps_added=True)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise InstallError(f"{path}: is a folder, expected a file; nothing was changed") from None
    except NotADirectoryError:
        raise InstallError(_file_in_the_way(path)) from None
    except OSError as exc:
        raise InstallError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _file_in_the_way(path: Path) -> str:
    """The message for a file where a folder on the way to ``path`` belongs (a ``.clinerules``
    file of Cline's older single-file rules, where its hooks go in ``.clinerules/hooks/``):
    it names that file, not a path inside it "not a directory". Found installing for Cline."""
    parent = path.parent
    while parent != parent.parent and not parent.is_file():
        parent = parent.parent
    return (
        f"{parent}: is a file, where ConKeeper needs a folder (for {path}); move it aside "
        "(or into the folder) and run again; nothing was changed"
    )


def _user_view(
    target: _Target, current: bytes | None, record: Record | None
) -> tuple[bytes | None, str]:
    """The file as the user has it without ConKeeper's part (see the module docstring)."""
    if current is None:
        return None, ""
    if record is not None and record.installed is not None:
        if current == record.installed:
            return record.original, ""
        cut = remove_spans(record.installed, current, record.spans)
        if cut is not None and target.cut_is_clean(cut, current, record):
            return cut, ""
    view, warning = target.strip(current, record)
    older = record.original if record is not None and record.installed is None else None
    if older is not None and view is not None and _equivalent(view, older):
        return older, warning  # an older record: give its exact bytes back
    return view, warning


def _equivalent(a: bytes, b: bytes) -> bool:
    data = _json_data(a)
    return a.strip() == b.strip() or (data is not None and data == _json_data(b))


def _plan_file(
    target: _Target,
    uninstall: bool,
    follow_symlinks: bool,
    env: Mapping[str, str] | None,
) -> FileChange:
    path = target.path
    link = path if path.is_symlink() else None
    real = Path(os.path.realpath(path)) if link is not None else path
    current = _read(path)
    record = load_record(real, env)
    view, warning = _user_view(target, current, record)
    spans: tuple[tuple[int, int], ...] = ()
    if warning:
        after = current  # a file the user changed or owns: left exactly as it is
    elif uninstall:
        after = view
    else:
        inserted = target.insert(view)
        after, spans = (inserted.data, inserted.spans) if inserted else (view, ())
        if target.same(after, current):
            after, spans = current, ()
    warning = warning or getattr(target, "warning", "")
    change = FileChange(
        real, target.what, current, after, target.executable, warning, view, spans, link
    )
    if link is not None and change.action != "unchanged" and not follow_symlinks:
        raise InstallError(
            f"{link}: is a symlink (to {os.readlink(link)}); ConKeeper does not replace it with "
            f"a copy. Run again with --follow-symlinks to edit {real} through the link, or make "
            "the change by hand; nothing was changed"
        )
    return change


def plan(
    agent: str,
    scope: str | None = None,
    *,
    uninstall: bool = False,
    follow_symlinks: bool = False,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    python: str | None = None,
) -> Plan:
    """What installing (or removing) ConKeeper for ``agent`` would change; writes nothing.

    ``python`` is the interpreter the launcher will run first (default: this one); the MCP
    server is registered only when it can import the ``mcp`` extra.
    """
    # The launcher is a POSIX shell script; on Windows configs name this interpreter instead.
    launcher = str(launcher_path(env)) if os.name != "nt" else None
    spec = integration_for(agent, scope, cwd, env, launcher)
    result = Plan(spec.agent, spec.scope, uninstall, notes=list(spec.notes))
    register_mcp = spec.mcp is not None and not uninstall and mcp_can_start(python)
    if spec.mcp is not None and not uninstall:
        result.mcp_registered = register_mcp
        if not register_mcp:
            result.warnings.append(
                f"MCP server not registered: the 'mcp' extra is missing for "
                f"{python or sys.executable}; install it ({MCP_EXTRA_HINT}) and run this "
                "command again"
            )
    if spec.agent == "claude-code" and not uninstall:
        result.warnings.extend(plugin_warnings(env))
    for target in _targets(spec, register_mcp):
        result.changes.append(_plan_file(target, uninstall, follow_symlinks, env))
    return result


# --------------------------------------------------------------------------- applying


def _created_dirs(path: Path) -> list[str]:
    created = []
    parent = path.parent
    while not parent.exists():
        created.append(str(parent))
        parent = parent.parent
    return created


def write_config(change: FileChange, command: str) -> None:
    """Write one planned change through the shared write path (lock, journal, undo), only while
    the file still holds the bytes the plan was made from."""
    follow = change.link is not None

    def edit(current: bytes) -> bytes:
        if current != (change.before or b""):
            raise safewrite.EditConflict(
                f"{change.path}: changed while ConKeeper was planning; nothing was written, run "
                "the command again"
            )
        return change.after or b""

    try:
        if change.after is None:
            if change.before is not None:
                safewrite.delete_file(
                    change.path, change.before, command=command, source="user-cli"
                )
            return
        safewrite.edit_file(
            change.link or change.path,
            edit,
            command=command,
            source="user-cli",
            follow_symlink=follow,
            mode=0o755 & ~_umask() if change.executable else None,
        )
    except (safewrite.WriteError, OSError) as exc:
        message = str(exc) if isinstance(exc, safewrite.WriteError) else exc.strerror or exc
        raise InstallError(f"{change.path}: cannot be written ({message})") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def apply(result: Plan, env: Mapping[str, str] | None = None, python: str | None = None) -> None:
    """Write every planned change and keep (or, on uninstall, drop) the install records."""
    command = f"install --agent {result.agent} --scope {result.scope}" + (
        " --uninstall" if result.uninstall else ""
    )
    if not result.uninstall and os.name != "nt":
        try:
            ensure_launcher(env, python)
        except OSError as exc:
            raise InstallError(
                f"{launcher_path(env)}: the launcher cannot be written ({exc.strerror or exc}); "
                "check that the data home is writable (CONKEEPER_HOME); nothing was changed"
            ) from None
    leftover_dirs: list[str] = []
    written: list[tuple[FileChange, Record | None]] = []
    group = None
    try:
        with safewrite.write_group():  # every file of one install is one undo step
            group = safewrite.current_group()
            leftover_dirs = _apply_changes(result, command, written, env)
    except InstallError as exc:
        raise InstallError(_taken_back(str(exc), group, written, env)) from None
    for folder in sorted(set(leftover_dirs), key=len, reverse=True):
        with contextlib.suppress(OSError):
            Path(folder).rmdir()  # only when empty


def _apply_changes(
    result: Plan,
    command: str,
    written: list[tuple[FileChange, Record | None]],
    env: Mapping[str, str] | None,
) -> list[str]:
    """Write the plan's changes in order, each with its record, listing in ``written`` what
    landed (with the record it had before); the folders an uninstall left to remove."""
    leftover_dirs: list[str] = []
    for change in result.changes:
        if result.uninstall:
            if change.warning and change.before == change.after:
                continue  # left in place: keep its record for a later uninstall
            previous = load_record(change.path, env)
            if change.action != "unchanged":
                write_config(change, command)
                written.append((change, previous))
            leftover_dirs += forget_record(change.path, env)
            continue
        if change.action == "unchanged":
            continue
        previous = load_record(change.path, env)
        dirs = previous.dirs if previous else _created_dirs(change.path)
        write_config(change, command)
        written.append((change, previous))
        save_record(change.path, change.original, change.after, change.spans, dirs, env)
    return leftover_dirs


def _taken_back(
    problem: str,
    group: str | None,
    written: list[tuple[FileChange, Record | None]],
    env: Mapping[str, str] | None,
) -> str:
    """Take back the files an install (or uninstall) refused part way had already written, as
    an undo of its journaled group, and put their records back; the one line to show. When a
    file changed since and cannot be put back, the line names each file that stays written."""
    if not written:
        return problem
    folder = safewrite.config_journal_dir()
    newest = safewrite.newest_of_group(folder, group) if group else None
    try:
        if newest is None:
            raise safewrite.WriteError("its journal entries were not found")
        safewrite.undo(folder, newest)
    except (safewrite.WriteError, OSError) as exc:
        names = ", ".join(str(change.path) for change, _ in written)
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return (
            f"{problem}; these files were already written and could not be put back "
            f"({reason}): {names}; 'conkeeper undo' takes the install back"
        )
    for change, previous in written:
        _restore_record(change.path, previous, env)
    return f"{_without_tail(problem)}; the files already written were put back, nothing was changed"


def _restore_record(path: Path, previous: Record | None, env: Mapping[str, str] | None) -> None:
    """Put a file's install record back as it was before the install taken back."""
    forget_record(path, env)
    if previous is not None:
        save_record(path, previous.original, previous.installed, previous.spans, previous.dirs, env)


def _without_tail(problem: str) -> str:
    """``problem`` without a closing "nothing was written, run the command again" that the
    install's own line replaces."""
    for tail in ("; nothing was written, run the command again)", "; nothing was changed"):
        if problem.endswith(tail):
            return problem[: -len(tail)] + (")" if tail.endswith(")") else "")
    return problem


def install_agent(
    agent: str,
    scope: str | None = None,
    *,
    uninstall: bool = False,
    dry_run: bool = False,
    follow_symlinks: bool = False,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    python: str | None = None,
) -> Plan:
    """Plan, then (unless ``dry_run``) apply; returns the plan for the front door to show."""
    result = plan(
        agent,
        scope,
        uninstall=uninstall,
        follow_symlinks=follow_symlinks,
        cwd=cwd,
        env=env,
        python=python,
    )
    if not dry_run:
        apply(result, env, python)
    return result


# --------------------------------------------------------------------------- detection


def installed_agents(
    cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> dict[str, dict[str, list[str]]]:
    """Per agent (Claude Code aside: see ``install.installed_scopes``) and scope, which parts
    (hooks, mcp, instructions) ConKeeper has there."""
    found: dict[str, dict[str, list[str]]] = {}
    for agent in agent_names():
        if agent == "claude-code":
            continue
        for scope in scopes_for(agent):
            try:
                parts = _present_parts(integration_for(agent, scope, cwd, env))
            except InstallError:
                continue
            if parts:
                found.setdefault(agent, {})[scope] = parts
    return found


def _present_parts(spec: Integration) -> list[str]:
    parts: list[str] = []
    for target in _targets(spec, True):
        raw = _read_quiet(target.path)
        if raw is None or not target.present(raw):
            continue
        for part in target.what.replace("hook script", "hooks").split(" + "):
            if part == "hooks" and isinstance(target, _JsonTarget) and not _has_hooks(target, raw):
                continue
            if part == "mcp" and isinstance(target, _JsonTarget) and not _has_mcp(target, raw):
                continue
            if part not in parts:
                parts.append(part)
    return parts


def _has_hooks(target: _JsonTarget, raw: bytes) -> bool:
    data = _json_data(raw)
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return isinstance(hooks, dict) and any(is_own(v) for v in hooks.values())


def _has_mcp(target: _JsonTarget, raw: bytes) -> bool:
    data = _json_data(raw)
    servers = data.get(target.mcp.key) if isinstance(data, dict) and target.mcp else None
    return isinstance(servers, dict) and is_own(servers.get(MCP_NAME))


def _read_quiet(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


__all__ = [
    "AGENT_SCOPES",
    "FileChange",
    "Plan",
    "agent_names",
    "apply",
    "install_agent",
    "installed_agents",
    "integration_for",
    "plan",
    "scopes_for",
    "write_config",
]
