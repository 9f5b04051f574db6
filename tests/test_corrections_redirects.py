"""Round 26: the shapes of a redirect the English structure missed (:mod:`...corrections.
redirects`), each probed through the real UserPromptSubmit hook (a subprocess): a leading
negation answering the agent's act with what to do instead, the wrong thing named tersely and a
swap of tool and an undo asked outright, in other languages once glossed; a terse "nope, X" and
"X, not Y" with its reason in English. Each probe was missed at ``low`` before the round; its
look-alike (an answer, a question, a new task's spec) stays unqueued."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.test_corrections_tail import _prompt

from conkeeper.domain.corrections_queue import parse_queue
from conkeeper.services.analysis.corrections import detect

PROBES = (
    # a leading negation + a verdict or what to do instead (German, Russian, Polish, Turkish)
    ("Nein, falsch, nimm die v2-Schnittstelle.", "glossed-no-redirect"),
    ("Нет, это неправильно, используй pnpm.", "glossed-no-redirect"),
    ("Nie, to źle, użyj v2.", "glossed-no-redirect"),
    ("Hayır, yanlış, v2 kullan.", "glossed-no-redirect"),
    # the wrong thing named tersely (Finnish, Czech, Italian)
    ("Väärä haara, tämä kuuluu developiin.", "glossed-wrong-thing"),
    ("Špatný soubor, změna patří do main.rs.", "glossed-wrong-thing"),
    ("Cartella sbagliata, va in src/lib.", "glossed-wrong-thing"),
    # a swap of tool (French)
    ("Utilise poetry au lieu de pip pour les dépendances.", "glossed-swap"),
    # an undo asked outright (Finnish, Italian)
    ("Peru se muutos, kiitos.", "glossed-undo"),
    ("Annulla l'ultima modifica, grazie.", "glossed-undo"),
    # "X, not Y" with its reason
    ("ruff format, not black, since we switched last week.", "tool-not-other"),
    # "nope" and the value the agent should have used
    ("nope, yarn", "no-value"),
    ("nah, staging.", "no-value"),
    ("no, Vitest", "no-value"),
)

SRC = Path(__file__).resolve().parents[1] / "src"

LOOK_ALIKES = (
    "Nein, danke.",
    "Nope, thanks",
    "no worries",
    "Nein, nimm die bestehende Tabelle.",  # an answer: "no, use the existing table"
    "Aggiungi l'endpoint /export. Non usare librerie esterne.",  # a new task's constraint
    "Crea un nuevo script. Usa pnpm en vez de npm.",
    "Wie mache ich das rückgängig?",  # the user's question
    "Füge einen Rückgängig-Button hinzu.",  # an undo button: new work
    "No, not yet. I'll tell you when the emulator is ready.",
)


@pytest.mark.parametrize(("text", "shape"), PROBES)
def test_the_hook_queues_a_redirect_in_its_shape(project: Path, text: str, shape: str) -> None:
    assert _prompt(project, text).returncode == 0
    queue = project / ".claude" / "memory" / "corrections-queue.md"
    (item,) = parse_queue(queue.read_text(encoding="utf-8"))
    assert item.label == "correction"
    for level in ("low", "medium"):
        found = detect(text, level)
        assert (found.label, found.pattern) == ("correction", shape)


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_the_hook_leaves_an_answer_or_a_task_unqueued(project: Path, text: str) -> None:
    assert _prompt(project, text).returncode == 0
    assert not (project / ".claude" / "memory" / "corrections-queue.md").exists()
    for level in ("low", "medium"):
        assert detect(text, level).label is None


def test_an_english_request_is_read_without_loading_the_gloss_tables() -> None:
    """The hook's cost: an English request the structure vetoes never loads :mod:`.cues`."""
    code = (
        "import sys\n"
        "from conkeeper.services.analysis.corrections import detect\n"
        "assert detect('add pagination to the orders page', 'low').label is None\n"
        "print('conkeeper.services.analysis.corrections.cues' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "False"


def test_the_english_words_are_the_glosss_own() -> None:
    from conkeeper.services.analysis.corrections import cues, redirects

    assert redirects.ENGLISH_WORDS == cues._ENGLISH
