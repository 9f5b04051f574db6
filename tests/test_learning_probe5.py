"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round five: cases a checker
would try that still came out wrong through the real entry points (hooks run as subprocesses
with Claude Code's payloads, then the CLI), each failing before its fix.

* ``reflect`` found "no rule stated" in corrections written in Japanese, Chinese and Korean
  ("`logging` を使ってください、print は使わないで", "请用 `logging`，不要用 print",
  "`logging`을 사용하세요, print는 쓰지 마세요"), and in Spanish ones whose order clause held
  one common Spanish word ("Hay que usar `logging`"): approval asked for words the user had
  typed. The rule is kept in the user's language, without the complaint sentence around it;
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from test_e2e_session import set_up_project
from test_reflect_facts import NamedSession, _bash, _edit, _reflect

SPOKEN = [
    (
        ("また print を使ってる。`logging` を使ってください、print は使わないで",
         "また print？ `logging` を使ってください、print は使わないで"),
        "`logging` を使ってください、print は使わないで。",
        "また",
    ),
    (
        ("你又用了 print。请用 `logging`，不要用 print",
         "又是 print！请用 `logging`，不要用 print"),
        "请用 `logging`，不要用 print。",
        "又",
    ),
    (
        ("또 print를 썼네요. `logging`을 사용하세요, print는 쓰지 마세요",
         "또 print! `logging`을 사용하세요, print는 쓰지 마세요"),
        "`logging`을 사용하세요, print는 쓰지 마세요.",
        "또",
    ),
    (
        ("Otra vez print. Ya te dije que no. Hay que usar `logging`.",
         "¡Otra vez print! Hay que usar `logging`"),
        "Hay que usar `logging`.",
        "Otra vez",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("texts", "rule", "complaint"), SPOKEN)
def test_a_rule_in_japanese_chinese_korean_or_spanish_is_approved_as_stated(
    tmp_path: Path, texts: tuple[str, str], rule: str, complaint: str
) -> None:
    s = NamedSession(tmp_path, "a5a5a5a5-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to src/cart.py")
    for text in texts:
        _edit(s, "src/cart.py")
        _bash(s, "pytest -q")
        s.prompt(text)
    report = _reflect(s, "--write")
    (theme,) = [r for r in report["recommendations"] if r["kind"] == "correction-theme"]
    assert theme["rule"] == rule, theme
    approved = run_cli("reflect", "approve", str(theme["number"]), cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert f"- {rule}\n" in patterns and complaint not in patterns
    retro = Path(report["retro"]).read_text(encoding="utf-8")
    assert complaint in retro.split("## Evidence")[1]  # the quote stays in the retro
