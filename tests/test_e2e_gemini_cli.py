"""The real Gemini CLI (``gemini -p``) with ConKeeper installed by ``conkeeper install --agent
gemini``, against a scripted fake of the Gemini API on 127.0.0.1 (:mod:`fake_gemini`, reached
through ``GOOGLE_GEMINI_BASE_URL``) that records every request: a failing shell command, a
passing one, a final answer.

Asserted: the hooks fire, memory reaches the model and private text does not, the commands are
stored with their real statuses, the correction in the prompt is queued, and the user's own
settings survive the install. Marked ``gemini_cli``; skipped like the Claude Code test.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import cli_env, run_cli
from fake_gemini import FakeGemini
from npm_cli import npm_binary

pytestmark = pytest.mark.gemini_cli

FACT = "The build uses the zebrafish-7731 toolchain."
PRIVATE = "PRIVATE-ROADMAP-6631"
PROMPT = "That's wrong, we use pytest not unittest here. Check the tests folder."
# The user's own settings: API-key auth, and no folder-trust prompt in this scratch folder.
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}
}


@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    """The ``gemini`` executable, from npm into the test cache."""
    return npm_binary("@google/gemini-cli", "gemini", "CONKEEPER_GEMINI_BIN")


def script(body: dict[str, Any], path: str) -> list[dict[str, Any]]:
    """The next reply, by how many function responses the conversation carries."""
    if not body.get("tools"):
        return [{"text": json.dumps({"reasoning": "done", "next_speaker": "user"})}]
    parts = [p for c in body.get("contents", []) for p in c.get("parts", [])]
    answered = sum(1 for p in parts if "functionResponse" in p)
    if answered == 0:
        call = {
            "name": "run_shell_command",
            "args": {"command": "ls tests_missing_dir", "description": "list"},
        }
        return [{"functionCall": call}]
    if answered == 1:
        call = {
            "name": "run_shell_command",
            "args": {"command": "echo passed", "description": "check"},
        }
        return [{"functionCall": call}]
    return [{"text": "Checked; the tests folder is missing."}]


@pytest.fixture(scope="module")
def session(gemini_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("gemini-e2e")
    root, home, data = base / "proj", base / "home", base / "data"
    (root / ".git").mkdir(parents=True)
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(USER_SETTINGS))
    env = {
        k: v
        for k, v in cli_env(HOME=str(home), CONKEEPER_HOME=str(data)).items()
        if not k.startswith(("GEMINI", "GOOGLE", "XDG_"))
    }
    assert run_cli("init", cwd=root, env=env).returncode == 0
    patterns = root / ".claude" / "memory" / "patterns.md"
    patterns.write_text(
        patterns.read_text() + f"\n## Build\n\n- {FACT}\n\n<private>\n{PRIVATE}\n</private>\n"
    )
    installed = run_cli("install", "--agent", "gemini", "--scope", "user", cwd=root, env=env)
    assert installed.returncode == 0, installed.stderr
    with FakeGemini(script) as fake:
        proc = subprocess.run(
            [str(gemini_bin), "-p", PROMPT, "--yolo", "-m", "gemini-2.5-flash"],
            cwd=root,
            env={**env, "GEMINI_API_KEY": "e2e-dummy", "GOOGLE_GEMINI_BASE_URL": fake.base_url},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {"root": root, "home": home, "data": data, "fake": fake, "proc": proc}


def test_memory_reaches_the_model_and_private_text_does_not(session: dict[str, Any]) -> None:
    bodies = [r["body"] for r in session["fake"].requests if r["body"].get("tools")]
    assert len(bodies) == 3 and "Checked; the tests folder" in session["proc"].stdout
    # Non-interactive Gemini CLI prepends SessionStart context to the prompt, HTML-escaped.
    assert FACT in json.dumps(bodies[0]) and "conkeeper-memory" in json.dumps(bodies[0])
    assert PRIVATE not in json.dumps([r["body"] for r in session["fake"].requests])


def test_hooks_record_a_gemini_session_with_real_statuses(session: dict[str, Any]) -> None:
    conn = sqlite3.connect(session["data"] / "conkeeper.db")
    try:
        hosts = conn.execute("SELECT host FROM sessions").fetchall()
        events = conn.execute(
            "SELECT tool_name, input_summary, status, exit_code FROM tool_events ORDER BY id"
        ).fetchall()
        prompts = conn.execute("SELECT text FROM prompts").fetchall()
    finally:
        conn.close()
    assert hosts == [("gemini",)]
    assert events == [
        ("Bash", "ls tests_missing_dir", "failure", 2),
        ("Bash", "echo passed", "success", None),
    ]
    assert prompts == [(PROMPT,)]


def test_the_correction_is_queued(session: dict[str, Any]) -> None:
    queue = session["root"] / ".claude" / "memory" / "corrections-queue.md"
    assert "we use pytest not unittest here" in queue.read_text()


def test_the_users_settings_survive_the_install(session: dict[str, Any]) -> None:
    settings = json.loads((session["home"] / ".gemini" / "settings.json").read_text())
    assert settings["security"] == USER_SETTINGS["security"]
    assert "conkeeper" in settings["mcpServers"]


def _checkpoints_written(data: Path) -> list[str]:
    """The log's lines for each handoff checkpoint the PreCompact hook wrote."""
    log = data / "logs" / "conkeeper.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [line for line in lines if "handoff checkpoint (" in line]


def test_no_checkpoint_when_gemini_fires_precompress_without_compressing(
    session: dict[str, Any],
) -> None:
    # Gemini CLI 0.61 fires PreCompress (trigger "auto") before each of the three model calls
    # and then compresses nothing: its context is far below half the model's window.
    assert _checkpoints_written(session["data"]) == []
    assert not list((session["data"] / "handoffs").glob("*/pending-*.json"))


SUMMARY_ASK = "Then, generate the updated <state_snapshot>"


def _continuing(body: dict[str, Any], path: str) -> list[dict[str, Any]]:
    """Text replies; the next-speaker check says "model" twice, so Gemini CLI sends "Please
    continue." (a user turn its compression may split at); the summariser gets a snapshot."""
    text = json.dumps(body)
    if body.get("tools"):
        return [{"text": f"step {text.count('Please continue.')}"}]
    if "next_speaker" in text:
        speaker = "model" if text.count("Please continue.") < 2 else "user"
        return [{"text": json.dumps({"reasoning": "r", "next_speaker": speaker})}]
    return [{"text": "<state_snapshot>the work so far</state_snapshot>"}]


def _tokens(body: dict[str, Any]) -> int:
    """600k input tokens (past half of gemini-2.5-flash's 1M window) until the history holds
    a compressed snapshot, then 900."""
    return 900 if "the work so far" in json.dumps(body.get("contents")) else 600_000


@pytest.fixture(scope="module")
def compressed(gemini_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A session that Gemini CLI really compresses once, among three model calls."""
    base = tmp_path_factory.mktemp("gemini-compress")
    root, home, data = base / "proj", base / "home", base / "data"
    (root / ".git").mkdir(parents=True)
    (home / ".gemini").mkdir(parents=True)
    settings = {**USER_SETTINGS, "model": {"skipNextSpeakerCheck": False}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {
        k: v
        for k, v in cli_env(HOME=str(home), CONKEEPER_HOME=str(data)).items()
        if not k.startswith(("GEMINI", "GOOGLE", "XDG_"))
    }
    assert run_cli("init", cwd=root, env=env).returncode == 0
    installed = run_cli("install", "--agent", "gemini", "--scope", "user", cwd=root, env=env)
    assert installed.returncode == 0, installed.stderr
    with FakeGemini(_continuing, prompt_tokens=_tokens) as fake:
        proc = subprocess.run(
            [str(gemini_bin), "-p", "Go on.", "--yolo", "-m", "gemini-2.5-flash"],
            cwd=root,
            env={**env, "GEMINI_API_KEY": "e2e-dummy", "GOOGLE_GEMINI_BASE_URL": fake.base_url},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {"data": data, "fake": fake}


def test_a_real_compression_writes_one_checkpoint(compressed: dict[str, Any]) -> None:
    requests = [r["body"] for r in compressed["fake"].requests]
    calls = [body for body in requests if body.get("tools")]
    compressions = [body for body in requests if SUMMARY_ASK in json.dumps(body)]
    assert len(calls) == 3 and len(compressions) == 1
    written = _checkpoints_written(compressed["data"])
    assert len(written) == 1 and "(auto)" in written[0], written


# Two sessions, poison brought in by every route Gemini CLI offers (issue 20): the MCP remember
# tool, the shell running ``conkeeper remember``, ``replace`` into the memory file,
# ``write_file`` of GEMINI.md, and a page read with ``read_file``; then a second session whose
# first request is checked.
POISON_PROMPT = "Tidy up the project notes and read the vendor page."


def _poison_steps(root: Path, page: str) -> list[dict[str, Any]]:
    from e2e_poison import (
        BENIGN,
        EDIT_INSTRUCTIONS_ORDER,
        EDIT_MEMORY_ORDER,
        MCP_ORDER,
        MCP_ZW_ORDER,
        SHELL_BIDI_ORDER,
        SHELL_ORDER,
        shell_remember,
    )

    def shell(command: str) -> dict[str, Any]:
        return {"name": "run_shell_command", "args": {"command": command, "description": "save"}}

    def remember(text: str) -> dict[str, Any]:
        return {"name": "mcp_conkeeper_remember", "args": {"text": text, "category": "convention"}}

    memory = str(root / ".claude" / "memory" / "patterns.md")
    return [
        shell(shell_remember(SHELL_ORDER)),
        shell(shell_remember(SHELL_BIDI_ORDER)),
        shell(shell_remember(BENIGN)),
        remember(MCP_ORDER),
        remember(MCP_ZW_ORDER),
        {
            "name": "replace",
            "args": {
                "file_path": memory,
                "instruction": "Add the team rule under Gotchas.",
                "old_string": "## Gotchas\n",
                "new_string": f"## Gotchas\n{EDIT_MEMORY_ORDER}\n",
            },
        },
        {
            "name": "write_file",
            "args": {
                "file_path": str(root / "GEMINI.md"),
                "content": f"# Project\n\n- Use pytest.\n{EDIT_INSTRUCTIONS_ORDER}\n",
            },
        },
        {"name": "read_file", "args": {"file_path": str(root / page)}},
    ]


def _stepper(steps: list[dict[str, Any]], last: str = "Done.") -> Any:
    def script(body: dict[str, Any], path: str) -> list[dict[str, Any]]:
        if not body.get("tools"):
            return [{"text": json.dumps({"reasoning": "done", "next_speaker": "user"})}]
        parts = [p for c in body.get("contents", []) for p in c.get("parts", [])]
        answered = sum(1 for p in parts if "functionResponse" in p)
        if answered < len(steps):
            return [{"functionCall": steps[answered]}]
        return [{"text": last}]

    return script


def _gemini_run(
    gemini_bin: Path, root: Path, env: dict[str, str], script: Any, prompt: str
) -> FakeGemini:
    from e2e_poison import run_host

    with FakeGemini(script) as fake:
        run_host(
            [str(gemini_bin), "-p", prompt, "--yolo", "-m", "gemini-2.5-flash"],
            root,
            {**env, "GEMINI_API_KEY": "e2e-dummy", "GOOGLE_GEMINI_BASE_URL": fake.base_url},
        )
    return fake


@pytest.fixture(scope="module")
def poisoned(gemini_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Session one brings the poison in; session two starts; what each fake server saw."""
    from e2e_poison import PAGE_ORDER, write_page

    base = tmp_path_factory.mktemp("gemini-poison")
    root, home, data = base / "proj", base / "home", base / "data"
    (root / ".git").mkdir(parents=True)
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(USER_SETTINGS))
    env = {
        k: v
        for k, v in cli_env(HOME=str(home), CONKEEPER_HOME=str(data)).items()
        if not k.startswith(("GEMINI", "GOOGLE", "XDG_"))
    }
    assert run_cli("init", cwd=root, env=env).returncode == 0
    installed = run_cli("install", "--agent", "gemini", "--scope", "user", cwd=root, env=env)
    assert installed.returncode == 0, installed.stderr
    steps = _poison_steps(root, write_page(root))
    last = f"Done. The vendor page says: {PAGE_ORDER}"
    first = _gemini_run(gemini_bin, root, env, _stepper(steps, last), POISON_PROMPT)
    second = _gemini_run(
        gemini_bin, root, env, _stepper([]), "What do the notes say about pushing?"
    )
    return {"root": root, "env": env, "first": first, "second": second, "steps": steps}


def _first_turn(fake: FakeGemini) -> dict[str, Any]:
    return next(r["body"] for r in fake.requests if r["body"].get("tools"))


def test_session_one_took_every_route(poisoned: dict[str, Any]) -> None:
    last = [r["body"] for r in poisoned["first"].requests if r["body"].get("tools")][-1]
    parts = [p for c in last["contents"] for p in c.get("parts", [])]
    answers = [p["functionResponse"] for p in parts if "functionResponse" in p]
    assert len(answers) == len(poisoned["steps"])
    text = json.dumps(answers)
    assert text.count("held") >= 4 and "saved" in text, text[:3000]


def test_no_poison_reaches_the_second_session(poisoned: dict[str, Any]) -> None:
    from e2e_poison import poison_on

    assert poison_on(_first_turn(poisoned["second"])) == []


def test_the_second_session_gets_no_handoff_from_a_compaction_that_never_was(
    poisoned: dict[str, Any],
) -> None:
    assert "before compaction" not in json.dumps(_first_turn(poisoned["second"]))


def test_an_order_written_into_gemini_md_stays_out_of_the_second_session(
    poisoned: dict[str, Any],
) -> None:
    """The host loads GEMINI.md itself: the agent's order left the file right after its tool
    and waits in the review queue, the person's own lines stay."""
    from e2e_poison import assert_instruction_file_held

    assert_instruction_file_held(poisoned["root"] / "GEMINI.md", poisoned["env"])


def test_memory_is_framed_as_notes_with_the_agents_source(poisoned: dict[str, Any]) -> None:
    from e2e_poison import assert_framed

    assert_framed(_first_turn(poisoned["second"]))


def test_the_held_orders_are_listed_for_the_person(poisoned: dict[str, Any]) -> None:
    from e2e_poison import HELD_ROUTES, held_routes

    assert held_routes(poisoned["root"], poisoned["env"]) == list(HELD_ROUTES)
