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
