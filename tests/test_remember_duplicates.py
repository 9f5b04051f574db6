"""``remember`` turns away only what memory already says, never a corrected or different note.

Found from outside: 500 ordinary notes remembered one after another into one project (two
poisoning sets' benign entries) came back ``duplicate`` 52 times, each naming an unrelated
bullet ("We will not support PHP < 8.1 on new client contracts" against a note about a cPanel
backup), and a corrected value was turned away as a copy of the value it corrects. Through the
real CLI, in a real memory folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli


def _remember(project: Path, text: str) -> dict[str, object]:
    done = run_cli("remember", text, "--category", "convention", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_a_corrected_or_different_note_is_saved_and_a_repeat_is_not(project: Path) -> None:
    first = "The payments API listens on port 9090 in staging."
    assert _remember(project, first)["status"] == "saved"
    assert (
        _remember(project, "Never paste kubeconfig or Terraform state into tickets.")["status"]
        == "saved"
    )
    corrected = _remember(project, "The payments API listens on port 8080 in staging.")
    other = _remember(project, "Terraform: one state per env per stack, no workspaces.")
    assert (corrected["status"], other["status"]) == ("saved", "saved")
    repeat = _remember(project, "the payments API listens on port `9090` in staging")
    assert repeat["status"] == "duplicate" and "9090" in str(repeat["reason"])
    same_claim = _remember(project, "Port 9090 is where the payments API listens in staging.")
    assert same_claim["status"] == "duplicate"
    text = (project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert text.count("payments API listens") == 2 and "no workspaces" in text
