"""``conkeeper config show|get|set``: read and change settings without opening an editor.

Backs the memory-config skill, so an agent can inspect and change settings through one
validated path instead of hand-editing YAML. All logic lives in :mod:`conkeeper.domain.config`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conkeeper.cli.output import CliError, emit_json, warn
from conkeeper.domain import config as cfg
from conkeeper.domain.messages import clean_path
from conkeeper.domain.textio import MemoryFileError
from conkeeper.services.workspace import current_project


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``show``, ``get`` and ``set``; ``conkeeper config`` alone means ``show``."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    parser.add_argument("--json", action="store_true", help="print JSON")
    show = sub.add_parser("show", help="List every key with its value and where it comes from")
    get = sub.add_parser("get", help="Print one key's effective value")
    get.add_argument("key", metavar="KEY")
    put = sub.add_parser("set", help="Write one key to the project (or --global) config file")
    put.add_argument("key", metavar="KEY")
    put.add_argument("value", metavar="VALUE")
    put.add_argument("--global", dest="global_", action="store_true", help="write the global file")
    for action in (show, get, put):
        # SUPPRESS keeps a --json given before the action from being reset by the sub-parser.
        action.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    parser.set_defaults(action=None)


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action."""
    root = current_project().root
    action = args.action or "show"
    if action == "set":
        return _set(root, args)
    loaded = cfg.load_config(root)
    for message in loaded.warnings:
        warn(message)
    if action == "get":
        return _get(loaded, args.key, args.json)
    return _show(loaded, args.json)


def _known_key(key: str) -> str:
    name = key.strip().lower()
    if name not in cfg.KEYS:
        raise CliError(cfg.unknown_key_message(key))
    return name


def _text(value: object) -> str:
    return cfg.format_value(value) if isinstance(value, (bool, int, str)) else str(value)


def _show(loaded: cfg.LoadedConfig, as_json: bool) -> int:
    records = cfg.describe(loaded)
    files = {layer: str(path) for layer, path in loaded.files.items()}
    shown = {layer: clean_path(path) for layer, path in files.items()}  # a folder named after a key
    if as_json:
        emit_json({"keys": records, "files": shown, "warnings": loaded.warnings})
        return 0
    width = max(len(str(r["key"])) for r in records)
    vwidth = max(len(_text(r["value"]) or '""') for r in records)
    lines = []
    for r in records:
        value = _text(r["value"]) or '""'
        lines.append(f"{r['key']:<{width}}  {value:<{vwidth}}  ({r['source']})")
    for layer, path in files.items():
        state = "" if Path(path).exists() else " (not created)"
        lines.append(f"{layer} file: {shown[layer]}{state}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _get(loaded: cfg.LoadedConfig, key: str, as_json: bool) -> int:
    name = _known_key(key)
    value = cfg.shown_value(getattr(loaded.config, name))
    if as_json:
        emit_json(
            {
                "key": name,
                "value": value,
                "source": loaded.sources[name],
                "default": cfg.KEYS[name].default,
            }
        )
    else:
        sys.stdout.write(_text(value) + "\n")
    return 0


def _set(root: Path, args: argparse.Namespace) -> int:
    name = _known_key(args.key)
    _refuse_agent(name)
    if args.global_ and name in cfg.PROJECT_KEYS:
        raise CliError(
            f"{name} is each project's choice, kept in its {cfg.CONFIG_FILENAME} so the team "
            "shares it through git: run this in the project, without --global",
            2,
        )
    path = cfg.config_path(root, args.global_)
    try:
        cfg.set_value(path, name, args.value)
    except (ValueError, MemoryFileError) as exc:
        raise CliError(str(exc)) from None
    value = cfg.shown_value(cfg.parse_value(name, args.value))
    _warn_if_shadowed(root, name, path)
    if args.json:
        emit_json({"key": name, "value": value, "path": str(path)})
    else:
        sys.stdout.write(f"{name} = {_text(value) or chr(34) * 2}  ({path})\n")
    return 0


def _refuse_agent(name: str) -> None:
    """An agent may not change where data goes (:data:`conkeeper.domain.config.OUTBOUND_KEYS`):
    two ``config set`` lines from a hostile page sent the session and the API key elsewhere."""
    from conkeeper.services.agent_process import agent_marker

    variable = agent_marker() if name in cfg.OUTBOUND_KEYS else None
    if variable is not None:
        raise CliError(
            f"{name} decides where your sessions, memory or API keys are sent, so it is yours to "
            f"change: this command runs under an agent ({variable}); run it in your own "
            "terminal"
        )


def _warn_if_shadowed(root: Path, name: str, written: Path) -> None:
    """Tell the user when a stronger source (project file, environment) hides what was set."""
    loaded = cfg.load_config(root)
    source = loaded.sources[name]
    where = loaded.files.get(source)
    if where is not None and cfg.same_file(where, written):
        return
    if source == "env":
        warn(f"{cfg.ENV_PREFIX}{name.upper()} is set in the environment and overrides this value")
    elif source == "project":
        warn(f"{name} is overridden by the project config {where}")
    elif source == "default":
        warn(f"{name} still falls back to its default; check the warnings of 'conkeeper config'")
