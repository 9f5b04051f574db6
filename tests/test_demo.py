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


def _observation_lines(demo_output: str) -> list[str]:
    """The title and subtitle lines ``conkeeper observations`` printed in the demo."""
    section = demo_output.split("=== conkeeper observations ===", 1)[1].split("===", 1)[0]
    return [line for line in section.splitlines() if line.strip() and not line.startswith("Next")]


def test_demo_observations_read_like_a_person_wrote_them(tmp_path: Path) -> None:
    """Issue 22.9: no prompt text pasted into titles or subtitles, counts pluralised right."""
    proc = run_cli("demo", "--dir", str(tmp_path / "demo"))
    assert proc.returncode == 0
    lines = _observation_lines(proc.stdout)
    assert len(lines) >= 8, lines
    text = "\n".join(lines)
    assert "for: " not in text  # "Created test_token.py for: no, use snake_case…"
    assert "snake_case" not in text and "Add refresh token rotation" not in text
    for wrong in ("1 searches", "1 files", "1 runs", "Explored", "run failure"):
        assert wrong not in text, wrong
    assert "Ran 1 search before editing token.py" in text
    assert "Created tests/test_token.py" in text
    assert "Unresolved failure: curl -s" in text
    sessions = proc.stdout.split("=== conkeeper sessions ===", 1)[1].split("===", 1)[0]
    assert "Add refresh token rotation to src/auth/token.py" in sessions
