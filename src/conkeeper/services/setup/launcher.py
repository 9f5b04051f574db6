"""The command agents' configs run to start ConKeeper, and whether its MCP server can start.

Why it exists: ``conkeeper install --agent`` used to write the current virtual environment's
``python`` into every hook and MCP registration, so recreating or switching the environment broke
every agent silently. Configs now name one stable launcher, ``<data home>/bin/conkeeper``: a
small POSIX shell script that finds a working interpreter each time it runs, in this order:

1. ``$CONKEEPER_PYTHON`` when set;
2. the interpreters that ran ``conkeeper install`` (newest first, kept in
   ``<data home>/bin/interpreters``), each checked by two file tests (the interpreter exists and
   still has the ``conkeeper`` package it had), so a deleted or rebuilt environment is skipped;
3. a ``conkeeper`` command on ``PATH``.

Running ``conkeeper install`` from a new environment puts it first in the list and leaves every
agent's config byte for byte as it was. When nothing is found, a hook exits 0 (agents are never
disturbed) after one line on stderr; any other command exits 1 with that line.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from conkeeper.domain.paths import data_home

MAX_INTERPRETERS = 5
MCP_EXTRA_HINT = "pip install 'conkeeper[mcp]'"

LAUNCHER_SCRIPT = r"""#!/bin/sh
# ConKeeper launcher, written by 'conkeeper install' (rewritten on every install; do not edit).
# Agents' configs run this file, not one virtual environment's python, so they keep working
# when that environment changes. It runs the first of: $CONKEEPER_PYTHON; the interpreters
# listed in "interpreters" next to this file (python, the folder holding its conkeeper package,
# an extra PYTHONPATH entry; tab-separated, newest install first) that still exist and still
# have that package; a 'conkeeper' command on PATH.
case $0 in */*) HERE=${0%/*} ;; *) HERE=. ;; esac
if [ -n "${CONKEEPER_PYTHON:-}" ]; then
    exec "$CONKEEPER_PYTHON" -m conkeeper "$@"
fi
TAB=$(printf '\t')
if [ -r "$HERE/interpreters" ]; then
    while IFS=$TAB read -r PY PKG EXTRA <&3; do
        if [ -x "$PY" ] && [ -f "$PKG/conkeeper/__init__.py" ]; then
            exec 3<&-
            if [ -n "$EXTRA" ]; then
                PYTHONPATH="$EXTRA${PYTHONPATH:+:$PYTHONPATH}"
                export PYTHONPATH
            fi
            exec "$PY" -m conkeeper "$@"
        fi
    done 3<"$HERE/interpreters"
fi
SELF=$(CDPATH= cd -- "$HERE" && pwd -P)/conkeeper
OLD_IFS=$IFS
IFS=:
for DIR in $PATH; do
    IFS=$OLD_IFS
    if [ -n "$DIR" ] && [ -x "$DIR/conkeeper" ] && [ ! -d "$DIR/conkeeper" ]; then
        REAL=$(CDPATH= cd -- "$DIR" 2>/dev/null && pwd -P)/conkeeper
        if [ "$REAL" != "$SELF" ]; then
            exec "$DIR/conkeeper" "$@"
        fi
    fi
done
IFS=$OLD_IFS
echo "ConKeeper: no Python with ConKeeper installed was found (the environment that ran" \
    "'conkeeper install' is gone); install it again (pip install conkeeper) and run" \
    "'conkeeper install --agent NAME' from there" >&2
if [ "${1:-}" = hook ]; then
    exit 0
fi
exit 1
"""


def launcher_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the launcher lives: ``<data home>/bin/conkeeper``."""
    return data_home(env) / "bin" / "conkeeper"


def _package_root() -> str:
    """The ``sys.path`` folder this ConKeeper was imported from."""
    import conkeeper

    return str(Path(conkeeper.__file__).resolve().parent.parent)


def _extra_path(python: str, package_root: str) -> str:
    """The folder to put on ``PYTHONPATH`` when ``python`` does not find this very ConKeeper by
    itself (a source checkout run with ``PYTHONPATH=src``); empty when it does."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = "import conkeeper, os; print(os.path.dirname(os.path.dirname(conkeeper.__file__)))"
    try:
        found = subprocess.run(
            [python, "-c", probe],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            cwd="/",
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        found = ""
    return "" if found and Path(found).resolve() == Path(package_root) else package_root


def interpreter_line(python: str | None = None) -> str:
    """This interpreter's line in the launcher's list (python, package folder, extra path)."""
    interpreter = python or sys.executable
    root = _package_root()
    return "\t".join((interpreter, root, _extra_path(interpreter, root)))


def ensure_launcher(env: Mapping[str, str] | None = None, python: str | None = None) -> Path:
    """Write (or refresh) the launcher and put this interpreter first in its list."""
    path = launcher_path(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    if _read(path) != LAUNCHER_SCRIPT:
        _replace(path, LAUNCHER_SCRIPT, 0o755)
    listing = _listing(env)
    first = interpreter_line(python)
    others = [
        line
        for line in _read(listing).splitlines()
        if line.strip() and line.split("\t", 1)[0] != first.split("\t", 1)[0]
    ]
    text = "\n".join([first, *others][:MAX_INTERPRETERS]) + "\n"
    if _read(listing) != text:
        _replace(listing, text, 0o644)
    return path


def listed_interpreters(env: Mapping[str, str] | None = None) -> list[str]:
    """The interpreters in the launcher's list, newest first: those that ran ``conkeeper
    install``, which the launcher tries in turn (``doctor`` asks which has the MCP SDK)."""
    lines = _read(_listing(env)).splitlines()
    return [line.split("\t", 1)[0] for line in lines if line.strip()]


def _listing(env: Mapping[str, str] | None) -> Path:
    """The launcher's list of interpreters, one ``python<TAB>package<TAB>path`` line each."""
    return launcher_path(env).parent / "interpreters"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _replace(path: Path, text: str, mode: int) -> None:
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.chmod(temp, mode)
    os.replace(temp, path)


def mcp_can_start(python: str | None = None) -> bool:
    """True when the interpreter that will run the MCP server can import the MCP SDK."""
    if python is None or python == sys.executable:
        try:
            return importlib.util.find_spec("mcp.server.mcpserver") is not None
        except (ImportError, ValueError):
            return False
    try:
        probe = subprocess.run(
            [
                python,
                "-c",
                "import importlib.util as u; exit(u.find_spec('mcp.server.mcpserver') is None)",
            ],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0
