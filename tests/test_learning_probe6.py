"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round six: cases a checker
would try that still came out wrong through the real entry points (hooks run as subprocesses
with Claude Code's payloads, then the CLI), each failing before its fix.

* ``reflect`` found "no rule stated" in the short forms of a rule in Spanish, German, French,
  Portuguese and Italian ("Usa pnpm, no npm", "Otra vez npm. Siempre usa `pnpm` aquí",
  "Nimm pnpm, nicht npm", "Di nuovo npm. Usa sempre `pnpm` qui"): the clause held too few of
  the language's common words, and Italian was not read at all;
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from test_e2e_session import set_up_project
from test_reflect_facts import NamedSession, _bash, _edit, _reflect

SHORT_FORMS = [
    (("Usa pnpm, no npm", "Otra vez npm. Usa pnpm, no npm"), "Usa pnpm, no npm.", "Otra vez"),
    (("Usa pnpm, no npm", "Otra vez npm. Siempre usa `pnpm` aquí"),
     "Siempre usa `pnpm` aquí.", "Otra vez"),
    (("Nimm pnpm, nicht npm", "Schon wieder npm. Immer `pnpm` verwenden hier"),
     "Immer `pnpm` verwenden hier.", "Schon wieder"),
    (("Utilise pnpm, pas npm", "Encore npm. Utilise pnpm, pas npm"),
     "Utilise pnpm, pas npm.", "Encore"),
    (("Usa pnpm, não npm", "De novo npm. Sempre use `pnpm` aqui"),
     "Sempre use `pnpm` aqui.", "De novo"),
    (("Usa pnpm, non npm", "Di nuovo npm. Usa sempre `pnpm` qui"),
     "Usa sempre `pnpm` qui.", "Di nuovo"),
]  # fmt: skip


@pytest.mark.parametrize(("texts", "rule", "complaint"), SHORT_FORMS)
def test_a_short_rule_in_another_language_is_approved_as_stated(
    tmp_path: Path, texts: tuple[str, str], rule: str, complaint: str
) -> None:
    s = NamedSession(tmp_path, "a6a6a6a6-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add the coupon endpoint to web/src/cart.ts")
    for text in texts:
        _edit(s, "web/src/cart.ts")
        _bash(s, "npm install")
        s.prompt(text)
    report = _reflect(s, "--write")
    (theme,) = [r for r in report["recommendations"] if r["kind"] == "correction-theme"]
    assert theme["rule"] == rule, theme
    approved = run_cli("reflect", "approve", str(theme["number"]), cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    patterns = (s.project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert f"- {rule}\n" in patterns and complaint not in patterns
    retro = Path(report["retro"]).read_text(encoding="utf-8")
    assert complaint in retro.split("## Evidence")[1]
