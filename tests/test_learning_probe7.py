"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round seven: cases a
checker would try that still came out wrong through the real entry points (hooks run as
subprocesses with Claude Code's payloads, then the CLI), each failing before its fix.

* ``stale`` never read the names a fenced code block in an entry calls: with
  ``total = apply_coupon(cart)`` in a ```` ```python ```` block (or ``cart.applyCoupon(code)``
  in a TypeScript one) and the function renamed away, the entry stayed fresh; a call in a code
  block is a citation, and a terminal session (a prompt, then what the command printed) is not;
* the casual reproach of a rule already given was never queued: "print はダメって言ったよね",
  "不是说了别用print吗", "đã bảo đừng dùng print rồi mà" ("I told you not to use print") and
  the Korean "또 print 썼네" ("you used print again"): the detector read none of their words;
* ``reflect approve`` wrote "Use your lockfile is, not pnpm-lock.yaml; run pnpm install." and
  "Use pnpm here, not npm; My laptop is on Node 20.": what the user said about themselves or
  the agent's work ("my X is", "your X is not Y") was read as a value or a name to use;
* ``consolidate`` on a patterns.md written in English and German called "Always use pnpm,
  never npm." and "Immer pnpm verwenden, nie npm." one "with more detail" and ``--apply``
  removed the English rule, the file's first: the German "immer" was read as a word of
  content ("always" is filler in English), and two entries naming the same things were still
  one "with more detail" than the other; they say the same thing in other words;
* ``reflect`` said "Corrections: 2 detected" for one correction and one friction prompt, the
  friction one listed again under "Friction signals" (its JSON counts them apart);
* ``insights`` over months of imported sessions quoted one correction said the same way in
  thirty sessions three times over as a theme's "quotes"; counts, rates and speed were right;
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from conftest import run_cli
from test_consolidate import git
from test_e2e_session import set_up_project
from test_freshness_stale import DAY, T0, by_line, commit, stale_json, write
from test_learning_probe6 import DAY_MS, _shop, _transcript
from test_reflect_facts import NamedSession, _approve_convention, _bash, _edit

FENCED_CODE = {
    "shop/cart.py": (
        "def apply_coupon(cart):\n    return cart\n\n\ndef report_totals():\n    pass\n"
    ),
    "web/src/cart.ts": "export class Cart {\n  applyCoupon(code: string) {}\n}\n",
    "go/cart.go": "package cart\n\nfunc (c *Cart) SettleOrder(code string) error { return nil }\n",
}
FENCED_CITED = """# Patterns

```python
total = apply_coupon(cart)
```

```ts
cart.applyCoupon(code);
```

```go
err := cart.SettleOrder(code)
```

```console
$ python -m shop.report
ran report_totals(cart) in 2 ms
```
"""


def test_a_call_in_a_fenced_code_block_is_a_citation_a_terminal_session_is_not(
    tmp_path: Path,
) -> None:
    root = _shop(tmp_path, FENCED_CODE, FENCED_CITED)
    renamed = {
        "shop/cart.py": FENCED_CODE["shop/cart.py"]
        .replace("apply_coupon", "redeem")
        .replace("report_totals", "print_totals"),
        "web/src/cart.ts": FENCED_CODE["web/src/cart.ts"].replace("applyCoupon", "redeem"),
        "go/cart.go": FENCED_CODE["go/cart.go"].replace("SettleOrder", "Close"),
    }
    for rel, text in renamed.items():
        write(root, rel, text)
    commit(root, "rename", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    cited = {line: f["citation"] for line, f in found.items()}
    assert cited == {3: "apply_coupon", 7: "applyCoupon", 11: "SettleOrder"}, found


REPROACHES = [
    "print はダメって言ったよね",
    "또 print 썼네",
    "不是说了别用print吗",
    "đã bảo đừng dùng print rồi mà",
]


@pytest.mark.parametrize("reproach", REPROACHES)
def test_a_casual_reproach_in_an_asian_language_is_queued(tmp_path: Path, reproach: str) -> None:
    s = NamedSession(tmp_path, "a7a7a7a7-0000-4000-8000-000000000001")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add logging to the checkout in src/cart.py")
    _edit(s, "src/cart.py")
    _bash(s, "pytest -q")
    s.prompt(reproach)
    s.prompt("글 잘 썼네, 고마워")  # "nicely written, thanks": praise, never queued
    s.hook("Stop")
    listed = run_cli("corrections", "list", "--json", cwd=s.project, env=s.env)
    assert listed.returncode == 0, listed.stderr
    assert [item["text"] for item in json.loads(listed.stdout)["items"]] == [reproach]


def test_a_rule_leaves_out_what_the_user_says_about_themselves(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a7a7a7a7-0000-4000-8000-000000000010")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Install the date library for the web app")
    for said in (
        "No, use pnpm here, not npm. My laptop is on Node 20.",
        "npm again?! your lockfile is not pnpm-lock.yaml, run pnpm install",
    ):
        _bash(s, "npm install dayjs")
        s.prompt(said)
    _, retro = _approve_convention(s)
    patterns = (s.project / ".claude/memory/patterns.md").read_text(encoding="utf-8")
    (rule,) = [line for line in patterns.splitlines() if "pnpm" in line]
    assert re.search(r"\b(?:my|your|you|i)\b", rule, re.IGNORECASE) is None, rule
    assert rule.split(None, 1)[1] in ("Use pnpm here, not npm.", "Run pnpm install."), rule
    assert "My laptop is on Node 20." in retro.read_text(encoding="utf-8")


TWO_LANGUAGES = """# Patterns

Notes the team keeps; Jana writes hers in German.

## Code Conventions
- Always use pnpm, never npm.
- Immer pnpm verwenden, nie npm.
- Money is always `Decimal`, never float.
- Geldbeträge sind immer `Decimal`, außer in `reports/export.py`, wo float erlaubt ist.

## Testing
- Integration tests use testcontainers, not sqlmock.
- Integrationstests nutzen testcontainers, außer im Billing-Modul (dort sqlmock).
"""


def test_consolidate_on_a_file_in_two_languages_keeps_the_first_copy(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    patterns = root / ".claude" / "memory" / "patterns.md"
    patterns.parent.mkdir(parents=True)
    patterns.write_text(TWO_LANGUAGES, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memory")
    preview = run_cli("consolidate", "--json", cwd=root)
    assert preview.returncode == 0, preview.stderr
    (proposal,) = json.loads(preview.stdout)["proposals"]
    assert "more detail" not in proposal["reason"], proposal
    assert (proposal["keep"], proposal["remove"]) == ("patterns.md:6", "patterns.md:7")
    applied = run_cli("consolidate", "--apply", cwd=root)
    assert applied.returncode == 0, applied.stderr
    expected = TWO_LANGUAGES.replace("- Immer pnpm verwenden, nie npm.\n", "")
    assert patterns.read_text(encoding="utf-8") == expected


def test_reflect_counts_a_friction_prompt_once_as_friction(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a7a7a7a7-0000-4000-8000-000000000020")
    set_up_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Install the date library for the web app")
    for said in ("No, use pnpm here, not npm.", "npm again?! Use pnpm, not npm."):
        _bash(s, "npm install dayjs")
        s.prompt(said)
    report = run_cli("reflect", "--json", cwd=s.project, env=s.env)
    counts = json.loads(report.stdout)["counts"]
    assert (counts["corrections"], counts["friction"]) == (1, 1), counts
    text = run_cli("reflect", cwd=s.project, env=s.env).stdout
    assert "Corrections: 1 detected" in text, text
    assert 'Friction signals: "npm again?! Use pnpm, not npm."' in text, text


def test_insights_over_months_of_imported_sessions(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "a7a7a7a7-0000-4000-8000-000000000030")
    set_up_project(s)
    folder = tmp_path / "other-machine"
    folder.mkdir()
    now = int(time.time() * 1000)
    for n in range(150):  # one session a day for five months, imported from another machine
        steps: list[tuple] = [("prompt", f"Add pagination step {n} to the coupon list")]
        if n % 3 == 0:
            steps.append(("bash", "pytest -q", "1 failed, 3 passed", True))
        steps.append(("bash", "pytest -q", "4 passed", False))
        if n % 10 == 0:
            steps.append(("prompt", "No, use pnpm here, not npm. I told you already."))
        sid = f"b7b7b7b7-0000-4000-8000-{n:012d}"
        _transcript(folder, s.project, sid, now - (151 - n) * DAY_MS, steps)
    imported = run_cli("import", "transcripts", str(folder), "--json", cwd=s.project, env=s.env)
    assert imported.returncode == 0 and json.loads(imported.stdout)["imported"] == 150
    done = run_cli("insights", "--since", "200d", "--json", cwd=s.project, env=s.env)
    report = json.loads(done.stdout)
    assert len(report["sessions"]) == 150
    assert report["commands"] == [
        {"command": "pytest", "runs": 200, "failures": 50, "failure_rate": 0.25}
    ]
    (theme,) = report["themes"]
    assert theme["count"] == 15
    assert theme["quotes"] == ["No, use pnpm here, not npm. I told you already."]
