"""ConKeeper's hook registrations: one list, written into the plugin and into settings files.

The Claude Code plugin (``hooks/hooks.json``) and ``conkeeper install`` (for people who installed
ConKeeper with pip and do not use the plugin) must register exactly the same events, matchers
and timeouts, so both are generated from :data:`HOOK_SPECS`. A settings install edits the user's
own ``settings.json`` and therefore has to be careful: other tools' hooks are never touched, a
timestamped backup is kept, a second run changes nothing, ``--uninstall`` removes exactly
ConKeeper's entries, and a file that is not valid JSON is refused untouched.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conkeeper.domain.paths import home_dir, locate_project
from conkeeper.domain.textio import MemoryFileError, atomic_write

SCOPES = ("user", "project", "local")
PLUGIN_COMMAND = '"${CLAUDE_PLUGIN_ROOT}/bin/conkeeper-hook" '
# A hook command is ConKeeper's when it contains one of these (plugin launcher or ``-m`` form).
OWN_COMMAND_MARKERS = ("conkeeper hook", "conkeeper-hook")


@dataclass(frozen=True)
class HookSpec:
    """One event ConKeeper listens to: matcher (``None`` where the event takes none) and the
    host's timeout in seconds (a safety net; the hooks themselves finish far sooner)."""

    event: str
    matcher: str | None
    timeout: int


HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", "startup|resume|clear|compact", 10),
    HookSpec("UserPromptSubmit", None, 10),
    # PreToolUse only marks the start time of tools whose duration is worth knowing.
    HookSpec("PreToolUse", "Bash|Task|WebFetch|WebSearch", 5),
    HookSpec("PostToolUse", "*", 10),
    HookSpec("PostToolUseFailure", "*", 10),
    HookSpec("PreCompact", "manual|auto", 10),
    HookSpec("Stop", None, 10),
    # SessionEnd has a total budget of about 1.5 s; the hook detaches anything longer.
    HookSpec("SessionEnd", None, 5),
)


class InstallError(Exception):
    """The settings file cannot be changed safely; the message says why and what to do."""


def hooks_block(command_for: Callable[[str], str]) -> dict[str, list[dict[str, Any]]]:
    """The ``hooks`` mapping for every spec, with ``command_for(event)`` as each command."""
    block: dict[str, list[dict[str, Any]]] = {}
    for spec in HOOK_SPECS:
        group: dict[str, Any] = {}
        if spec.matcher is not None:
            group["matcher"] = spec.matcher
        group["hooks"] = [
            {"type": "command", "command": command_for(spec.event), "timeout": spec.timeout}
        ]
        block.setdefault(spec.event, []).append(group)
    return block


def plugin_hooks_document() -> dict[str, Any]:
    """The content of the plugin's ``hooks/hooks.json``."""
    return {
        "description": "ConKeeper: memory capture, context injection and handoffs",
        "hooks": hooks_block(lambda event: PLUGIN_COMMAND + event),
    }


def settings_command(event: str, python: str | None = None) -> str:
    """The hook command for a settings install: this Python, ``-m conkeeper hook EVENT``."""
    interpreter = python or sys.executable
    return f"{shlex.quote(interpreter)} -m conkeeper hook {event}"


def is_own_command(command: object) -> bool:
    """True for a hook command that runs ConKeeper (plugin launcher or ``-m conkeeper``)."""
    return isinstance(command, str) and any(m in command for m in OWN_COMMAND_MARKERS)


def settings_path(
    scope: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The Claude Code settings file for a scope: user ``~/.claude/settings.json``, project
    ``<root>/.claude/settings.json``, local ``<root>/.claude/settings.local.json``."""
    if scope not in SCOPES:
        raise InstallError(f"unknown scope {scope!r} (expected one of {', '.join(SCOPES)})")
    if scope == "user":
        return home_dir(env) / ".claude" / "settings.json"
    root = locate_project(cwd or Path.cwd()).root
    name = "settings.json" if scope == "project" else "settings.local.json"
    return root / ".claude" / name


@dataclass
class InstallResult:
    """What an install or uninstall did (or, with ``dry_run``, would do)."""

    path: Path
    scope: str
    action: str  # installed | updated | unchanged | uninstalled | not-installed
    changed: bool
    dry_run: bool = False
    backup: Path | None = None
    events: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-friendly form for ``--json``."""
        return {
            "path": str(self.path),
            "scope": self.scope,
            "action": self.action,
            "changed": self.changed,
            "dry_run": self.dry_run,
            "backup": str(self.backup) if self.backup else None,
            "events": self.events,
            "warnings": self.warnings,
        }


def read_settings(path: Path) -> dict[str, Any]:
    """The settings object in ``path`` ({} when missing or empty); refuses anything unsafe."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InstallError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    text = raw.decode("utf-8-sig", errors="replace")
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{path}: is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix it first, nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(f"{path}: expected a JSON object at the top; nothing was changed")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise InstallError(f"{path}: 'hooks' is not an object; fix it first, nothing was changed")
    return data


def _own_entries(groups: object) -> list[tuple[Any, dict[str, Any]]]:
    """(matcher, hook) pairs of ConKeeper's hooks in one event's list of matcher groups."""
    found = []
    for group in groups if isinstance(groups, list) else []:
        if not isinstance(group, dict):
            continue
        for hook in group.get("hooks") or []:
            if isinstance(hook, dict) and is_own_command(hook.get("command")):
                found.append((group.get("matcher"), hook))
    return found


def _is_own_hook(hook: object) -> bool:
    return isinstance(hook, dict) and is_own_command(hook.get("command"))


def _remove_own(groups: list[Any]) -> list[Any]:
    """The event's groups without ConKeeper's hooks; groups left empty by that are dropped."""
    kept = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        hooks = [h for h in group["hooks"] if not _is_own_hook(h)]
        if len(hooks) == len(group["hooks"]):
            kept.append(group)
        elif hooks:
            kept.append({**group, "hooks": hooks})
    return kept


def merge_hooks(
    settings: dict[str, Any], desired: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """``settings`` with ConKeeper's hooks set to ``desired``, everything else kept in place.

    An event whose ConKeeper entries already match is left exactly as it is (so a second
    install changes nothing); otherwise the old entries are removed and the new appended.
    Stale ConKeeper entries on events no longer listed are removed.
    """
    hooks = dict(settings.get("hooks") or {})
    for event in list(hooks):
        if event not in desired and _own_entries(hooks[event]):
            hooks[event] = _remove_own(hooks[event])
            if not hooks[event]:
                del hooks[event]
    for event, groups in desired.items():
        wanted = [(g.get("matcher"), h) for g in groups for h in g["hooks"]]
        current = hooks.get(event)
        if _own_entries(current) == wanted:
            continue
        base = _remove_own(current) if isinstance(current, list) else []
        hooks[event] = base + groups
    return {**settings, "hooks": hooks}


def remove_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` without any ConKeeper hook; other entries are kept exactly."""
    if not isinstance(settings.get("hooks"), dict):
        return settings
    hooks = {}
    for event, groups in settings["hooks"].items():
        if isinstance(groups, list) and _own_entries(groups):
            remaining = _remove_own(groups)
            if remaining:
                hooks[event] = remaining
        else:
            hooks[event] = groups
    result = dict(settings)
    if hooks:
        result["hooks"] = hooks
    else:
        del result["hooks"]
    return result


def _backup(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.bak-{stamp}")
    counter = 1
    while target.exists():
        counter += 1
        target = path.with_name(f"{path.name}.bak-{stamp}-{counter}")
    target.write_bytes(path.read_bytes())
    return target


def _write(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        atomic_write(path, text, root=path.parent)
    except (MemoryFileError, OSError) as exc:
        raise InstallError(f"{path}: cannot be written ({exc})") from None


def install(
    scope: str = "user",
    *,
    uninstall: bool = False,
    dry_run: bool = False,
    cwd: Path | None = None,
    python: str | None = None,
    env: Mapping[str, str] | None = None,
) -> InstallResult:
    """Install (or remove) ConKeeper's hooks in the settings file of ``scope``."""
    path = settings_path(scope, cwd, env)
    existed = path.exists()
    before = read_settings(path)
    if uninstall:
        after = remove_hooks(before)
        changed = after != before
        action = "uninstalled" if changed else "not-installed"
    else:
        after = merge_hooks(before, hooks_block(lambda e: settings_command(e, python)))
        changed = after != before
        had_any = any(_own_entries(g) for g in (before.get("hooks") or {}).values())
        action = ("updated" if had_any else "installed") if changed else "unchanged"
    result = InstallResult(path, scope, action, changed, dry_run=dry_run)
    result.events = [s.event for s in HOOK_SPECS]
    result.warnings = plugin_warnings(env) if not uninstall else []
    if changed and not dry_run:
        path.parent.mkdir(parents=True, exist_ok=True)
        if existed:
            result.backup = _backup(path)
        _write(path, after)
    return result


# --------------------------------------------------------------------------- detection


def plugin_installed(env: Mapping[str, str] | None = None) -> bool:
    """True when the ConKeeper plugin is enabled in the user's Claude Code settings or listed
    among installed plugins."""
    claude = home_dir(env) / ".claude"
    try:
        settings = read_settings(claude / "settings.json")
    except InstallError:
        settings = {}
    enabled = settings.get("enabledPlugins")
    if isinstance(enabled, dict) and any(
        str(k).split("@", 1)[0] == "conkeeper" and v for k, v in enabled.items()
    ):
        return True
    registry = claude / "plugins" / "installed_plugins.json"
    try:
        data = json.loads(registry.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    plugins = data.get("plugins") if isinstance(data, dict) else None
    return isinstance(plugins, dict) and any(
        str(k).split("@", 1)[0] == "conkeeper" for k in plugins
    )


def plugin_warnings(env: Mapping[str, str] | None = None) -> list[str]:
    """A warning when the plugin is also installed (every hook would then run twice)."""
    if plugin_installed(env):
        return [
            "the ConKeeper plugin is also installed; with both, every hook runs twice. Keep one: "
            "'/plugin uninstall conkeeper' or 'conkeeper install --uninstall'"
        ]
    return []


def installed_scopes(
    cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> dict[str, list[str]]:
    """Per scope, the events that have a ConKeeper hook in that settings file."""
    found: dict[str, list[str]] = {}
    for scope in SCOPES:
        try:
            data = read_settings(settings_path(scope, cwd, env))
        except InstallError:
            continue
        events = [e for e, groups in (data.get("hooks") or {}).items() if _own_entries(groups)]
        if events:
            found[scope] = events
    return found
