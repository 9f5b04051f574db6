"""Benign look-alikes of corrections stay unflagged, and plain "don't X, just Y" is caught.

Issue 20: on unseen prompts most false positives at ``low`` were praise with a negation or
"actually", numbering, navigation, a "No," answering the agent, and correction words inside
pasted material; the misses were plain "don't X, just Y" / "Don't use X; use Y" / "STOP. Don't".
Each case below failed before :mod:`conkeeper.services.analysis.corrections.benign` and the
``dont-x-do-y`` / ``stop-dont`` rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import load_script
from conkeeper.services.analysis.corrections import detect, strip_noise
from conkeeper.services.analysis.corrections.benign import neutralize, strip_pasted

ROOT = Path(__file__).resolve().parents[1]

BENIGN = [
    # praise or approval with a negation or "actually"
    "Not bad at all! Let's move on to the export page.",
    "That's not a problem, take your time with the migration.",
    "Actually, that's what I wanted. Now add tests for it.",
    "Not too shabby! Now the same for the orders table.",
    # numbering
    "Step no 2: add the config key. Step no 3: document it.",
    "No. 5 and No. 6 can wait until next sprint; start with No. 1.",
    # navigation
    "Go back to the top of the file and add the license header.",
    "go back to the previous page in the wizard and add a cancel button",
    # a "No," answering the agent's question
    "No, that's all for now. Thanks!",
    "no, not yet, I'll push it later myself",
    "No, there is no CI for this repo yet.",
    # correction words inside pasted material
    "Here's Slack from the on-call channel:\n\nbob: still failing on prod\nalice: no, don't roll "
    "back yet\nbob: ugh, same error again\n\nWrite an incident summary from this.",
    "Review this diff please:\n\n- # don't use the cache here, it's wrong\n+ # use the cache, "
    "the bug was fixed upstream",
    "What does this comment mean?\n# NO! don't call this twice, it breaks the session again",
    "Can you triage this ticket?\n\nSubject: Export broken AGAIN\nFrom: jane@customer.com\n\n"
    "Hi, the CSV export is still failing after your last update. Please stop breaking things.\n\n"
    "Thanks, Jane",
    "I got this review on my PR, what do you think?\n\nReviewer: This is wrong. You forgot to "
    "close the file again.",
    "Translate to French: Don't do that again, it's wrong.",
    "Support ticket #5521\nCustomer says the app still crashes on launch and that we broke it "
    "again.\nFind the crash in the startup code.",
]

CAUGHT = [
    "don't rewrite the whole module, just fix the off-by-one",
    "Don't use print; use the logger.",
    "Do not use float for money. Use Decimal.",
    "Don't use sleep in tests; wait on the event.",
    "STOP. Don't run the deploy script, it points at prod.",
    "Stop! Don't push anything yet.",
    "The parser you wrote still drops the last line.",
]


@pytest.mark.parametrize("level", ["low", "medium"])
@pytest.mark.parametrize("text", BENIGN)
def test_benign_look_alikes_are_not_flagged(text: str, level: str) -> None:
    assert (detect(text, level).label, text) == (None, text)


@pytest.mark.parametrize("level", ["low", "medium"])
@pytest.mark.parametrize("text", CAUGHT)
def test_dont_x_just_y_and_stop_dont_are_caught(text: str, level: str) -> None:
    found = detect(text, level)
    assert (found.label is not None, text) == (True, text)


def test_real_corrections_keep_their_no_and_their_negation() -> None:
    assert neutralize("No, use snake_case for the keys.") == "No, use snake_case for the keys."
    assert neutralize("that's not what I asked") == "that's not what I asked"
    assert detect("No, put it in utils/ like I said.", "low").label == "correction"
    assert detect("go back to the previous version, this one crashes", "high").label


def test_neutralize_rewrites_each_kind() -> None:
    assert "number 3" in neutralize("see no. 3")
    assert neutralize("Not bad at all!").startswith("fine")
    assert neutralize("No, that's all.").startswith("ANSWER")
    assert "navigate to the top" in neutralize("scroll back up to the top")


def test_pasted_material_is_blanked_but_the_request_after_it_stays() -> None:
    lines = ["Here is the ticket:", "", "Customer: it broke again", "", "Find the cause."]
    kept = strip_pasted(lines)
    assert kept[2] == "" and kept[4] == "Find the cause."
    prose = strip_noise("\n".join(lines))
    assert "broke" not in prose and "Find the cause." in prose


def _bench() -> Any:
    return load_script("bench/corrections_quality.py")


def test_the_bench_tiny_mode_writes_tuning_and_blind_apart_with_targets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench()
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "corrections_quality.json")
    assert bench.main(["--tiny"]) == 0
    figures = json.loads((tmp_path / "corrections_quality_tiny.json").read_text())
    assert figures["tiny"] is True
    assert figures["targets"]["low"] == {"max_fp_rate": 0.02, "min_recall": 0.85}
    assert "corpus" in figures["tuning"] and "train_extra3" in figures["tuning"]
    # blind 11 and 12 are seen since their first measurements: tuning data; a later blind set
    # is unseen and the default --skip unseen would never read it
    assert "blind10" in figures["tuning"] and "blind11" in figures["tuning"]
    assert "blind12" in figures["tuning"] and "blind12" not in figures["blind"]
    out = capsys.readouterr().out
    assert out.index("=== TUNING") < out.index("=== BLIND")


def test_every_benign_and_rule_pattern_compiles() -> None:
    """Patterns compile lazily, on the first prompt with their hint word: compile them all."""
    from conkeeper.domain.lazy_re import LazyPattern
    from conkeeper.services.analysis.corrections import benign, rules

    patterns = [v for m in (benign, rules) for v in vars(m).values() if isinstance(v, LazyPattern)]
    patterns += [rule.regex for rule in rules._RULES]
    assert len(patterns) > 80
    for pattern in patterns:
        assert pattern.compiled.pattern == pattern.source
