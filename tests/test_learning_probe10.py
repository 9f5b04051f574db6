"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round ten: sessions of a
Go, TypeScript or Rust project replayed through the real hooks (each event a subprocess), then
the CLI, as a checker would; each test failed before its fix.

* ``go test ./...`` failed, then its re-run was interrupted (Ctrl-C): ``reflect`` said nothing
  was open ("Nothing notable to recommend"), as if the interrupted re-run had settled the
  failure; an interrupted run settles nothing, so the failure it re-ran stays the last word
  ("still failing", with the interrupted re-run quoted);
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from test_reflect_facts import NamedSession, _bash, _edit

GO_FAILURE = (
    "Exit code 1\n--- FAIL: TestApplyCoupon (0.00s)\n    cart_test.go:14: got 90, want 85\n"
    "FAIL\texample.com/shop/cart\t0.004s"
)


def _go_project(s: NamedSession) -> None:
    """A Go module with its memory folder (``.git`` marks the work-tree root)."""
    (s.project / ".git").mkdir(parents=True)
    (s.project / "go.mod").write_text("module example.com/shop\n\ngo 1.22\n", encoding="utf-8")
    init = run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=s.project)
    assert init.returncode == 0, init.stderr


def _reflect(s: NamedSession) -> dict[str, Any]:
    result = run_cli("reflect", "--session", s.session_id, "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_an_interrupted_rerun_leaves_the_failure_it_reran_open(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-go-ctrlc")
    _go_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the coupon total in cart/cart.go")
    _edit(s, "cart/cart.go")
    _bash(s, "go build ./...")
    _bash(s, "go vet ./...")
    _bash(s, "go test ./...", error=GO_FAILURE)
    _edit(s, "cart/cart.go")
    s.tool("Bash", {"command": "go test ./..."}, error="Interrupted by user", interrupt=True)
    s.hook("Stop", stop_hook_active=False)
    s.hook("SessionEnd", reason="exit")
    found = [r for r in _reflect(s)["recommendations"] if r["kind"] == "abandoned"]
    assert len(found) == 1, found
    assert "still failing" in found[0]["what"] and "go test ./..." in found[0]["what"]
    assert any("interrupted" in why for why in found[0]["why"]), found[0]


def test_a_pass_after_an_interrupted_rerun_settles_the_failure(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-go-ctrlc-pass")
    _go_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the coupon total in cart/cart.go")
    _bash(s, "go build ./...")
    _bash(s, "go test ./...", error=GO_FAILURE)
    s.tool("Bash", {"command": "go test ./..."}, error="Interrupted by user", interrupt=True)
    _edit(s, "cart/cart.go")
    _bash(s, "go test ./...")
    s.hook("SessionEnd", reason="exit")
    kinds = [r["kind"] for r in _reflect(s)["recommendations"]]
    assert "abandoned" not in kinds, kinds
