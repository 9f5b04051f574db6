"""The secret rules cost nothing on ordinary hook inputs: a rule's pattern compiles only when
its hint words (and, for tool flags, the tool's name) occur, so growing the detector does not
slow the PostToolUse hook down. Run in a fresh interpreter, as a hook is."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import cli_env

PROBE = r"""
import json, sys
from conkeeper.domain import secrets
secrets.redact(sys.stdin.read())
print(json.dumps([r.pattern.source[:40] for r in secrets._RULES if r.pattern._compiled]))
"""

ORDINARY = [
    "ls -la src/",
    "git log --oneline -3\nc79f477 Migration 3\na1d9004 Architecture doc\n",
    "mkdir -p build && cp -r src build/",
    "npm run build\n> tsc -p tsconfig.json\n",
    "server:\n  host: 0.0.0.0\n  port: 8080\nlog:\n  level: info\n",
    "def f(a, b):\n    return {'a': a, 'b': b}\n" * 5,
    "docker compose up -d\nCreating network app_default\n",
    "grep -w fixme -r src | wc -l",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_hook_input_compiles_no_secret_pattern(text: str) -> None:
    out = subprocess.run(
        [sys.executable, "-S", "-c", PROBE],
        input=text,
        capture_output=True,
        text=True,
        env=cli_env(),
        check=True,
    )
    assert json.loads(out.stdout) == []
