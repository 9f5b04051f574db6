"""Claude Code's hook registrations and where they are found: the plugin's ``hooks.json``, the
settings files, and whether the plugin is installed.

The Claude Code plugin (``hooks/hooks.json``) and ``conkeeper install`` (for people who installed
ConKeeper with pip and do not use the plugin) must register exactly the same events, matchers
and timeouts, so both come from :data:`HOOK_SPECS` (declared in :mod:`conkeeper.hosts.claude_code`).
Writing them into a settings file is :mod:`.agent_install`'s job, the same code path as every other
agent's; this module only reads settings files (``doctor``, the plugin-also-installed warning).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from conkeeper.domain.paths import home_dir, locate_project
from conkeeper.hosts.claude_code import HOOK_SPECS, HookSpec

SCOPES = ("user", "project", "local")
PLUGIN_COMMAND = '"${CLAUDE_PLUGIN_ROOT}/bin/conkeeper-hook" '

__all__ = ["HOOK_SPECS", "HookSpec", "InstallError"]


class InstallError(Exception):
    """A config file cannot be changed safely; the message says why and what to do."""


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


def is_own_command(command: object) -> bool:
    """True for a hook command that runs ConKeeper (plugin launcher or ``-m conkeeper``, its
    path quoted or not)."""
    from conkeeper.hosts.spec import runs_conkeeper

    return isinstance(command, str) and runs_conkeeper(command)


def settings_path(
    scope: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The Claude Code settings file for a scope: user ``~/.claude/settings.json``, project
    ``<root>/.claude/settings.json``, local ``<root>/.claude/settings.local.json``."""
    from conkeeper.hosts.claude_code import settings_file

    if scope not in SCOPES:
        raise InstallError(f"unknown scope {scope!r} (expected one of {', '.join(SCOPES)})")
    root = home_dir(env) if scope == "user" else locate_project(cwd or Path.cwd()).root
    return settings_file(scope, root, env)


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
