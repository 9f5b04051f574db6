"""The README's main job, ``conkeeper demo``, succeeds end to end and leaks nothing private."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli
from conkeeper.services.setup.demo import PRIVATE_MARKER


def test_demo_runs_every_step(tmp_path: Path) -> None:
    proc = run_cli("demo", "--dir", str(tmp_path / "demo"))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "Demo finished: every step succeeded." in proc.stdout
    assert '## Results for: "refresh token"' in proc.stdout
    assert "| correction |" in proc.stdout
    assert "Applied to patterns.md as convention" in proc.stdout
    assert PRIVATE_MARKER not in proc.stdout
    assert not list((tmp_path / "home").glob(".claude/memory/*"))  # the real HOME is untouched
