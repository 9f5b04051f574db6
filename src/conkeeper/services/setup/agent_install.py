"""``conkeeper install --agent NAME``: write ConKeeper into another agent's own files.

Each agent's module in :mod:`conkeeper.hosts` describes where its hooks, MCP registration and
instructions live (an :class:`~conkeeper.hosts.spec.Integration`); this module turns that into a
:class:`Plan` of file changes, shown before anything is written, and applies it.

The rules, for every agent alike:

* only ConKeeper's own entries are added, replaced or removed (recognised by the command they
  run, or by the marked snippet); the user's entries are never touched, and a user entry that
  already uses ConKeeper's MCP name is left alone with a warning;
* a second install changes nothing; ``uninstall`` removes exactly what install added;
* before a file is first changed, its exact bytes are kept in the data home, so an uninstall
  that leaves the content as it was restores the file byte for byte (and deletes files and
  folders that install created);
* a file that cannot be parsed (invalid JSON, JSON with comments) is refused untouched.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conkeeper.domain.paths import data_home, locate_project
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
from conkeeper.services.setup.install import InstallError

AGENT_SCOPES = ("project", "user")
TOML_START = "# >>> conkeeper (managed by 'conkeeper install --agent codex') >>>"
TOML_END = "# <<< conkeeper <<<"


@dataclass
class FileChange:
    """One file's planned change: ``before``/``after`` bytes (``None`` = absent)."""

    path: Path
    what: str  # hooks | mcp | instructions | hook script
    before: bytes | None
    after: bytes | None
    executable: bool = False
    warning: str = ""

    @property
    def action(self) -> str:
        """create, update, delete or unchanged."""
        if self.before == self.after:
            return "unchanged"
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "update"

    def diff(self) -> str:
        """A unified diff of the change, for ``--dry-run``."""
        a = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        b = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, str(self.path), str(self.path)))


@dataclass
class Plan:
    """Everything one install or uninstall would change, and what the user should know."""

    agent: str
    scope: str
    uninstall: bool
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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
            "changes": [
                {"path": str(c.path), "what": c.what, "action": c.action, "warning": c.warning}
                for c in self.changes
            ],
            "notes": self.notes,
        }


def agent_names() -> list[str]:
    """Every agent ``--agent`` accepts."""
    return list(HOSTS)


# --------------------------------------------------------------------------- reading files


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _load_json(path: Path, raw: bytes | None) -> dict[str, Any]:
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InstallError(
            f"{path}: is not plain JSON ({exc}); comments or a syntax error? Fix it or add "
            "ConKeeper by hand; nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(f"{path}: expected a JSON object at the top; nothing was changed")
    return data


def _dump_json(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _json_change(path: Path, what: str, raw: bytes | None, before: dict, after: dict) -> FileChange:
    if after == before:
        return FileChange(path, what, raw, raw)
    return FileChange(path, what, raw, _dump_json(after) if after else None)


# --------------------------------------------------------------------------- hooks


def _without_own_handlers(entries: list[Any], style: str) -> list[Any]:
    kept = []
    for entry in entries:
        if style == "flat":
            if not is_own(entry):
                kept.append(entry)
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
            kept.append(entry)
            continue
        hooks = [h for h in entry["hooks"] if not is_own(h)]
        if len(hooks) == len(entry["hooks"]):
            kept.append(entry)
        elif hooks:
            kept.append({**entry, "hooks": hooks})
    return kept


def _own_handlers(entries: object, style: str) -> list[Any]:
    found: list[Any] = []
    for entry in entries if isinstance(entries, list) else []:
        if style == "flat":
            if is_own(entry):
                found.append(entry)
        elif isinstance(entry, dict):
            found.extend((entry.get("matcher"), h) for h in entry.get("hooks") or [] if is_own(h))
    return found


def _desired_hooks(spec: HooksFile) -> dict[str, list[Any]]:
    desired: dict[str, list[Any]] = {}
    for event in spec.events:
        handler = spec.handler(event)
        if spec.style == "flat":
            desired.setdefault(event.name, []).append(handler)
        else:
            group: dict[str, Any] = {"matcher": event.matcher} if event.matcher else {}
            group["hooks"] = [handler]
            desired.setdefault(event.name, []).append(group)
    return desired


def _hooks_change(spec: HooksFile, uninstall: bool) -> FileChange:
    raw = _read(spec.path)
    before = _load_json(spec.path, raw)
    hooks = before.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{spec.path}: 'hooks' is not an object; nothing was changed")
    new_hooks: dict[str, Any] = {}
    for event, entries in hooks.items():
        if isinstance(entries, list):
            kept = _without_own_handlers(entries, spec.style)
            if kept:
                new_hooks[event] = kept
        else:
            new_hooks[event] = entries
    if not uninstall:
        for event, entries in _desired_hooks(spec).items():
            current = hooks.get(event)
            if _own_handlers(current, spec.style) == _own_handlers(entries, spec.style):
                new_hooks[event] = current  # already right: keep the user's order
            else:
                new_hooks[event] = new_hooks.get(event, []) + entries
    after = {**spec.top, **before} if not uninstall else dict(before)
    after["hooks"] = new_hooks
    if uninstall and not new_hooks and ("hooks" not in before or spec.whole_file):
        after.pop("hooks")
    if uninstall and spec.whole_file and not new_hooks:
        after = {}
    if not uninstall and _same_hooks(before, after):
        after = before
    return _json_change(spec.path, "hooks", raw, before, after)


def _same_hooks(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Equal as data, ignoring the order of events (a re-install must change nothing)."""
    return before == after or (
        {k: v for k, v in before.items() if k != "hooks"}
        == {k: v for k, v in after.items() if k != "hooks"}
        and sorted(json.dumps(x, sort_keys=True) for x in (before.get("hooks") or {}).items())
        == sorted(json.dumps(x, sort_keys=True) for x in (after.get("hooks") or {}).items())
    )


def _scripts_changes(spec: HookScripts, uninstall: bool) -> list[FileChange]:
    changes = []
    for name, content in spec.scripts.items():
        path = spec.folder / name
        raw = _read(path)
        ours = raw is not None and is_own(raw.decode("utf-8", "replace"))
        if raw is not None and not ours:
            changes.append(
                FileChange(
                    path,
                    "hook script",
                    raw,
                    raw,
                    warning="a hook of your own has this name; left alone",
                )
            )
            continue
        after = None if uninstall else content.encode("utf-8")
        changes.append(FileChange(path, "hook script", raw, after, executable=True))
    return changes


# --------------------------------------------------------------------------- MCP


def _mcp_change(spec: McpRegistration, uninstall: bool) -> FileChange:
    if spec.format == "toml":
        return _toml_change(spec, uninstall)
    raw = _read(spec.path)
    before = _load_json(spec.path, raw)
    servers = before.get(spec.key)
    if servers is not None and not isinstance(servers, dict):
        raise InstallError(f"{spec.path}: '{spec.key}' is not an object; nothing was changed")
    servers = dict(servers or {})
    current = servers.get(MCP_NAME)
    if current is not None and not is_own(current):
        return FileChange(
            spec.path,
            "mcp",
            raw,
            raw,
            warning=f"'{MCP_NAME}' in {spec.key} is your own entry; left alone",
        )
    if uninstall:
        servers.pop(MCP_NAME, None)
    else:
        servers[MCP_NAME] = spec.entry
    after = dict(before)
    if servers or spec.key in before:
        after[spec.key] = servers
    return _json_change(spec.path, "mcp", raw, before, after)


def _block_pattern(start: str, end: str) -> re.Pattern[str]:
    return re.compile(re.escape(start) + r".*?" + re.escape(end) + r"\n?", re.DOTALL)


_TOML_BLOCK = _block_pattern(TOML_START, TOML_END)
_SNIPPET = _block_pattern(SNIPPET_START, SNIPPET_END)


def _with_block(text: str, pattern: re.Pattern[str], block: str | None) -> str:
    """``text`` with its marked block replaced by ``block``, appended when it has none, or
    removed (with the blank line install put before it) when ``block`` is ``None``."""
    found = pattern.search(text)
    if found is None:
        if block is None:
            return text
        sep = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        return text + sep + block
    if block is not None:
        return text[: found.start()] + block + text[found.end() :]
    head, tail = text[: found.start()], text[found.end() :]
    if head.endswith("\n\n"):
        head = head[:-1]
    return head + tail if (head + tail).strip() else ""


def _toml_value(value: object) -> str:
    return json.dumps(value)  # a JSON string or list of strings is valid TOML


def _toml_change(spec: McpRegistration, uninstall: bool) -> FileChange:
    raw = _read(spec.path)
    text = (raw or b"").decode("utf-8", "replace")
    header = f"[{spec.key}.{MCP_NAME}]"
    if header in _TOML_BLOCK.sub("", text):
        return FileChange(
            spec.path, "mcp", raw, raw, warning=f"{header} is your own table; left alone"
        )
    lines = [TOML_START, header, *(f"{k} = {_toml_value(v)}" for k, v in spec.entry.items())]
    block = None if uninstall else "\n".join([*lines, TOML_END]) + "\n"
    after = _with_block(text, _TOML_BLOCK, block)
    if after == text:
        return FileChange(spec.path, "mcp", raw, raw)
    return FileChange(spec.path, "mcp", raw, after.encode("utf-8") if after else None)


# --------------------------------------------------------------------------- instructions


def _instructions_change(spec: Instructions, uninstall: bool) -> FileChange:
    raw = _read(spec.path)
    text = (raw or b"").decode("utf-8", "replace")
    if spec.mode == "file":
        if raw is not None and "conkeeper" not in text.lower():
            return FileChange(
                spec.path,
                "instructions",
                raw,
                raw,
                warning="a file of your own has this name; left alone",
            )
        return FileChange(
            spec.path, "instructions", raw, None if uninstall else spec.text.encode("utf-8")
        )
    block = None if uninstall else f"{SNIPPET_START}\n{spec.text.rstrip()}\n{SNIPPET_END}\n"
    after = _with_block(text, _SNIPPET, block)
    if after == text:
        return FileChange(spec.path, "instructions", raw, raw)
    return FileChange(spec.path, "instructions", raw, after.encode("utf-8") if after else None)


# --------------------------------------------------------------------------- plan and apply


def _root(cwd: Path | None) -> Path:
    return locate_project(cwd or Path.cwd()).root


def integration_for(
    agent: str,
    scope: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    python: str | None = None,
) -> Integration:
    """The agent's description of what ConKeeper installs at ``scope``."""
    name = canonical_host(agent)
    if name is None or name == "claude-code":
        raise InstallError(f"unknown agent {agent!r} (expected one of {', '.join(agent_names())})")
    if scope not in AGENT_SCOPES:
        raise InstallError(f"--scope {scope} is not used for {name}; use project or user")
    spec: Integration = get_host(name).integration(scope, _root(cwd), env, python)
    return spec


def plan(
    agent: str,
    scope: str = "project",
    *,
    uninstall: bool = False,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    python: str | None = None,
) -> Plan:
    """What installing (or removing) ConKeeper for ``agent`` would change; writes nothing."""
    spec = integration_for(agent, scope, cwd, env, python)
    result = Plan(spec.agent, scope, uninstall, notes=list(spec.notes))
    if spec.hooks is not None:
        result.changes.append(_hooks_change(spec.hooks, uninstall))
    if spec.scripts is not None:
        result.changes.extend(_scripts_changes(spec.scripts, uninstall))
    if spec.mcp is not None:
        same_file = spec.hooks is not None and spec.hooks.path == spec.mcp.path
        if same_file:  # Gemini: hooks and MCP share settings.json; chain the two edits
            first = result.changes[-1]
            result.changes[-1] = _chained(first, spec.mcp, uninstall)
        else:
            result.changes.append(_mcp_change(spec.mcp, uninstall))
    if spec.instructions is not None:
        result.changes.append(_instructions_change(spec.instructions, uninstall))
    if uninstall:
        for change in result.changes:
            _restore_original(change, env)
    return result


def _chained(first: FileChange, spec: McpRegistration, uninstall: bool) -> FileChange:
    """The MCP edit applied on top of the hooks edit of the same file."""
    before = _load_json(spec.path, first.after)
    servers = dict(before.get(spec.key) or {})
    current = servers.get(MCP_NAME)
    if current is not None and not is_own(current):
        first.warning = f"'{MCP_NAME}' in {spec.key} is your own entry; left alone"
        return first
    if uninstall:
        servers.pop(MCP_NAME, None)
    else:
        servers[MCP_NAME] = spec.entry
    after = dict(before)
    original = _load_json(spec.path, first.before)
    if servers or spec.key in original:
        after[spec.key] = servers
    else:
        after.pop(spec.key, None)
    if after == original:
        return FileChange(first.path, "hooks + mcp", first.before, first.before)
    return FileChange(first.path, "hooks + mcp", first.before, _dump_json(after) if after else None)


def _manifest_dir(env: Mapping[str, str] | None) -> Path:
    return data_home(env) / "installs"


def _key(path: Path) -> str:
    return hashlib.sha256(str(path.absolute()).encode()).hexdigest()[:24]


def _load_manifest(path: Path, env: Mapping[str, str] | None) -> dict[str, Any] | None:
    try:
        return json.loads((_manifest_dir(env) / f"{_key(path)}.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None


def _remember_original(change: FileChange, env: Mapping[str, str] | None) -> None:
    """Keep the file's bytes (and the folders install creates) before its first change."""
    if _load_manifest(change.path, env) is not None:
        return
    folder = _manifest_dir(env)
    folder.mkdir(parents=True, exist_ok=True)
    created = []
    parent = change.path.parent
    while not parent.exists():
        created.append(str(parent))
        parent = parent.parent
    record = {"path": str(change.path), "existed": change.before is not None, "dirs": created}
    if change.before is not None:
        (folder / f"{_key(change.path)}.orig").write_bytes(change.before)
    (folder / f"{_key(change.path)}.json").write_text(json.dumps(record), "utf-8")


def _equivalent(a: bytes | None, b: bytes | None) -> bool:
    if a is None or b is None:
        return (a or b"").strip() == (b or b"").strip()
    try:
        return bool(json.loads(a) == json.loads(b))
    except ValueError:
        return a.decode("utf-8", "replace").rstrip() == b.decode("utf-8", "replace").rstrip()


def _restore_original(change: FileChange, env: Mapping[str, str] | None) -> None:
    """On uninstall, prefer the exact original bytes when the content is back to them (and
    no file at all when install created it)."""
    record = _load_manifest(change.path, env)
    if record is None:
        return
    original = None
    if record.get("existed"):
        try:
            original = (_manifest_dir(env) / f"{_key(change.path)}.orig").read_bytes()
        except OSError:
            return
    if _equivalent(change.after, original) or (original is None and _is_skeleton(change.after)):
        change.after = original


def _forget_original(path: Path, env: Mapping[str, str] | None) -> list[str]:
    """Drop the kept original; the folders install created, to remove when empty."""
    record = _load_manifest(path, env)
    if record is None:
        return []
    for suffix in (".json", ".orig"):
        (_manifest_dir(env) / f"{_key(path)}{suffix}").unlink(missing_ok=True)
    return [str(d) for d in record.get("dirs", [])]


def _is_skeleton(data: bytes | None) -> bool:
    """Nothing but empty containers and a version number: what install created around its
    own entries."""
    if data is None:
        return True
    try:
        obj = json.loads(data)
    except ValueError:
        return not data.strip()
    return isinstance(obj, dict) and all(v in ({}, [], 1) for v in obj.values())


def _write(path: Path, data: bytes, executable: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.conkeeper-tmp-{os.getpid()}")
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o755 if executable else 0o644
    temp.write_bytes(data)
    os.chmod(temp, mode | (0o111 if executable else 0))
    os.replace(temp, path)


def apply(result: Plan, env: Mapping[str, str] | None = None) -> None:
    """Write every planned change (originals kept first; uninstall restores them)."""
    leftover_dirs: list[str] = []
    for change in result.changes:
        if result.uninstall:
            leftover_dirs += _forget_original(change.path, env)
        elif change.action != "unchanged":
            _remember_original(change, env)
        if change.before == change.after:
            continue
        try:
            if change.after is None:
                change.path.unlink(missing_ok=True)
            else:
                _write(change.path, change.after, change.executable)
        except OSError as exc:
            raise InstallError(
                f"{change.path}: cannot be written ({exc.strerror or exc})"
            ) from None
    for folder in sorted(set(leftover_dirs), key=len, reverse=True):
        with contextlib.suppress(OSError):
            Path(folder).rmdir()  # only when empty


def install_agent(
    agent: str,
    scope: str = "project",
    *,
    uninstall: bool = False,
    dry_run: bool = False,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    python: str | None = None,
) -> Plan:
    """Plan, then (unless ``dry_run``) apply; returns the plan for the front door to show."""
    result = plan(agent, scope, uninstall=uninstall, cwd=cwd, env=env, python=python)
    if not dry_run:
        apply(result, env)
    return result


# --------------------------------------------------------------------------- detection


def installed_agents(
    cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> dict[str, dict[str, list[str]]]:
    """Per agent and scope, which parts (hooks, mcp, instructions) ConKeeper has there."""
    found: dict[str, dict[str, list[str]]] = {}
    for agent in agent_names():
        if agent == "claude-code":
            continue
        for scope in AGENT_SCOPES:
            try:
                parts = _present_parts(integration_for(agent, scope, cwd, env))
            except InstallError:
                continue
            if parts:
                found.setdefault(agent, {})[scope] = parts
    return found


def _present_parts(spec: Integration) -> list[str]:
    parts = []
    if spec.hooks is not None:
        raw = _read_quiet(spec.hooks.path)
        data = _json_quiet(raw)
        if any(_own_handlers(v, spec.hooks.style) for v in (data.get("hooks") or {}).values()):
            parts.append("hooks")
    if spec.scripts is not None and any(
        is_own((_read_quiet(spec.scripts.folder / n) or b"").decode("utf-8", "replace"))
        for n in spec.scripts.scripts
    ):
        parts.append("hooks")
    if spec.mcp is not None:
        text = (_read_quiet(spec.mcp.path) or b"").decode("utf-8", "replace")
        if spec.mcp.format == "toml":
            present = TOML_START in text
        else:
            present = is_own((_json_quiet(text.encode()).get(spec.mcp.key) or {}).get(MCP_NAME))
        if present:
            parts.append("mcp")
    if spec.instructions is not None:
        text = (_read_quiet(spec.instructions.path) or b"").decode("utf-8", "replace")
        if SNIPPET_START in text or (spec.instructions.mode == "file" and "conkeeper" in text):
            parts.append("instructions")
    return parts


def _read_quiet(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _json_quiet(raw: bytes | None) -> dict[str, Any]:
    try:
        data = json.loads(raw or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


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
]
