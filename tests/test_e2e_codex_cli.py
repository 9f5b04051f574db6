"""The real Codex CLI (``codex exec``) with ConKeeper installed by ``conkeeper install --agent
codex``, against a scripted fake of the OpenAI Responses API on 127.0.0.1 (:mod:`fake_openai`)
that records every request: a failing shell command, a passing one, a final answer.

Asserted: the hooks ConKeeper wrote fire (Codex is told to run them without the interactive
trust review, ``--dangerously-bypass-hook-trust``), memory reaches the model and private text
does not, the session is recorded as a Codex session with the commands' real statuses, and the
correction in the prompt is queued. Marked ``codex_cli``; skipped like the Claude Code test.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import cli_env, run_cli
from fake_openai import FakeResponses, call_item, message_item
from npm_cli import npm_binary

pytestmark = pytest.mark.codex_cli

FACT = "The build uses the zebrafish-7731 toolchain."
PRIVATE = "PRIVATE-ROADMAP-5521"
PROMPT = "That's wrong, we use pytest not unittest here. Check the tests folder."


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    """The ``codex`` executable, from npm into the test cache."""
    return npm_binary("@openai/codex", "codex", "CONKEEPER_CODEX_BIN")


def script(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The next turn, by how many tool outputs the request carries."""
    if not body.get("tools"):
        return [message_item("ConKeeper test", 0)]
    outputs = [i for i in body.get("input", []) if i.get("type") == "function_call_output"]
    if not outputs:
        return [call_item("exec_command", {"cmd": "ls tests_missing_dir"}, 1)]
    if len(outputs) == 1:
        return [call_item("exec_command", {"cmd": "echo passed"}, 2)]
    return [message_item("Checked; the tests folder is missing.", 3)]


@pytest.fixture(scope="module")
def session(codex_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("codex-e2e")
    root, home, data = base / "proj", base / "home", base / "data"
    (root / ".git").mkdir(parents=True)
    home.mkdir()
    env = {
        k: v
        for k, v in cli_env(HOME=str(home), CONKEEPER_HOME=str(data)).items()
        if not k.startswith(("CODEX", "OPENAI", "XDG_"))
    }
    assert run_cli("init", cwd=root, env=env).returncode == 0
    patterns = root / ".claude" / "memory" / "patterns.md"
    patterns.write_text(
        patterns.read_text() + f"\n## Build\n\n- {FACT}\n\n<private>\n{PRIVATE}\n</private>\n"
    )
    installed = run_cli("install", "--agent", "codex", "--scope", "user", cwd=root, env=env)
    assert installed.returncode == 0, installed.stderr
    with FakeResponses(script) as fake:
        config = home / ".codex" / "config.toml"
        provider = (
            'model = "gpt-5-codex"\nmodel_provider = "fake"\n\n[model_providers.fake]\n'
            f'name = "fake"\nbase_url = "{fake.base_url}"\nenv_key = "FAKE_OPENAI_KEY"\n'
            'wire_api = "responses"\n\n'
        )
        config.write_text(provider + config.read_text())
        proc = subprocess.run(
            [
                str(codex_bin),
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-hook-trust",
                "-s",
                "danger-full-access",
                PROMPT,
            ],
            cwd=root,
            env={**env, "FAKE_OPENAI_KEY": "sk-e2e-dummy"},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {"root": root, "data": data, "fake": fake, "proc": proc}


def test_memory_reaches_the_model_and_private_text_does_not(session: dict[str, Any]) -> None:
    bodies = [r["body"] for r in session["fake"].requests if r["body"].get("tools")]
    assert len(bodies) == 3
    assert FACT in json.dumps(bodies[0]) and "<conkeeper-memory>" in json.dumps(bodies[0])
    assert PRIVATE not in json.dumps([r["body"] for r in session["fake"].requests])


def test_hooks_record_a_codex_session_with_real_statuses(session: dict[str, Any]) -> None:
    conn = sqlite3.connect(session["data"] / "conkeeper.db")
    try:
        hosts = conn.execute("SELECT host FROM sessions").fetchall()
        events = conn.execute(
            "SELECT input_summary, status, exit_code FROM tool_events ORDER BY id"
        ).fetchall()
        prompts = conn.execute("SELECT text FROM prompts").fetchall()
    finally:
        conn.close()
    assert hosts == [("codex",)]
    assert events == [("ls tests_missing_dir", "failure", 2), ("echo passed", "success", 0)]
    assert prompts == [(PROMPT,)]


def test_the_correction_is_queued(session: dict[str, Any]) -> None:
    queue = session["root"] / ".claude" / "memory" / "corrections-queue.md"
    assert "we use pytest not unittest here" in queue.read_text()


def test_doctor_lists_codex_with_its_last_session(session: dict[str, Any]) -> None:
    env = {
        **cli_env(HOME=str(session["root"].parent / "home"), CONKEEPER_HOME=str(session["data"]))
    }
    doctor = run_cli("doctor", "--json", cwd=session["root"], env=env)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert "last session" in checks["agent codex"]["detail"]
