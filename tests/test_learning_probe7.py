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
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from test_e2e_session import set_up_project
from test_freshness_stale import DAY, T0, by_line, commit, stale_json, write
from test_learning_probe6 import _shop
from test_reflect_facts import NamedSession, _bash, _edit

FENCED_CODE = {
    "shop/cart.py": (
        "def apply_coupon(cart):\n    return cart\n\n\ndef report_totals():\n    pass\n"
    ),
    "web/src/cart.ts": "export class Cart {\n  applyCoupon(code: string) {}\n}\n",
}
FENCED_CITED = """# Patterns

```python
total = apply_coupon(cart)
```

```ts
cart.applyCoupon(code);
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
    }
    for rel, text in renamed.items():
        write(root, rel, text)
    commit(root, "rename", T0 + 2 * DAY)
    found = by_line(stale_json(root, "--no-cache"))
    cited = {line: f["citation"] for line, f in found.items()}
    assert cited == {3: "apply_coupon", 7: "applyCoupon"}, found


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
