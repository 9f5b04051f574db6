"""Agent CLIs from the npm registry for the end-to-end tests, installed once into a cache.

``CONKEEPER_TEST_CACHE`` (default ``~/.cache/conkeeper-tests``) holds one ``npm install
--prefix`` folder per package, outside the repository. Where node/npm are missing or the
install fails the test is skipped, unless ``CONKEEPER_REQUIRE_E2E=1`` (CI) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def skip_or_fail(reason: str) -> None:
    """Skip, or fail when CI requires the end-to-end tests to run."""
    if os.environ.get("CONKEEPER_REQUIRE_E2E") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def npm_binary(package: str, binary: str, override_env: str) -> Path:
    """The CLI ``binary`` of npm ``package``: from ``$override_env``, the cache, or installed
    into the cache now."""
    given = os.environ.get(override_env)
    if given:
        return Path(given)
    if not (shutil.which("node") and shutil.which("npm")):
        skip_or_fail(f"node and npm are needed to install {package}")
    default_cache = Path.home() / ".cache" / "conkeeper-tests"
    cache = Path(os.environ.get("CONKEEPER_TEST_CACHE") or default_cache) / package.split("/")[-1]
    path = cache / "node_modules" / ".bin" / binary
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            ["npm", "install", "--prefix", str(cache), "--no-audit", "--no-fund", package],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0 or not path.exists():
            skip_or_fail(f"npm install {package} failed: {proc.stderr.strip()[-300:]}")
    return path
