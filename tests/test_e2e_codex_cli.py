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


def test_the_first_request_already_offers_conkeepers_mcp_tools(session: dict[str, Any]) -> None:
    # ``codex exec`` used to send its first request before the MCP server had started.
    first = next(r["body"] for r in session["fake"].requests if r["body"].get("tools"))
    assert "conkeeper" in json.dumps(first["tools"]), [t.get("name") for t in first["tools"]]


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


# Two sessions, poison brought in by every route Codex offers (issue 20): the MCP remember tool,
# the shell running ``conkeeper remember``, ``apply_patch`` into the memory file and AGENTS.md,
# and a page read by the shell; then a second session whose first request is checked.
POISON_PROMPT = "Tidy up the project notes and read the vendor page."


def _patch(path: str, line: str) -> str:
    """An ``apply_patch`` command (run through the shell tool, as Codex's prompt asks) adding
    ``line`` at the end of ``path``."""
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n+{line}\n*** End Patch"
    return f"apply_patch <<'PATCH'\n{patch}\nPATCH"


def _poison_steps(page: str) -> list[tuple[str, dict[str, Any]]]:
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

    remember = "mcp__conkeeper__remember"
    return [
        ("exec_command", {"cmd": shell_remember(SHELL_ORDER)}),
        ("exec_command", {"cmd": shell_remember(SHELL_BIDI_ORDER)}),
        ("exec_command", {"cmd": shell_remember(BENIGN)}),
        (remember, {"text": MCP_ORDER, "category": "convention"}),
        (remember, {"text": MCP_ZW_ORDER, "category": "convention"}),
        ("exec_command", {"cmd": _patch("AGENTS.md", EDIT_INSTRUCTIONS_ORDER)}),
        ("exec_command", {"cmd": f"cat {page}"}),
        # last: Codex runs no tool hook around apply_patch, so no later tool's hook sees it
        ("exec_command", {"cmd": _patch(".claude/memory/patterns.md", EDIT_MEMORY_ORDER)}),
    ]


def _call(name: str, arguments: dict[str, Any], n: int) -> dict[str, Any]:
    """A function call item; an MCP tool's call names its namespace as Codex listed it."""
    item = call_item(name, arguments, n)
    if name.startswith("mcp__"):
        namespace, _, tool = name.rpartition("__")
        item.update(name=tool, namespace=namespace)
    return item


def _stepper(steps: list[tuple[str, dict[str, Any]]], last: str = "Done.") -> Any:
    def script(body: dict[str, Any]) -> list[dict[str, Any]]:
        if not body.get("tools"):
            return [message_item("ConKeeper test", 0)]
        done = sum(1 for i in body.get("input", []) if i.get("type") == "function_call_output")
        if done < len(steps):
            return [_call(*steps[done], done + 1)]
        return [message_item(last, len(steps) + 1)]

    return script


def _codex_run(
    codex_bin: Path, root: Path, home: Path, env: dict[str, str], script: Any, prompt: str
) -> Any:
    from e2e_poison import run_host

    with FakeResponses(script) as fake:
        config = home / ".codex" / "config.toml"
        text = config.read_text()
        start = text.index("# >>> conkeeper")
        provider = (
            'model = "gpt-5-codex"\nmodel_provider = "fake"\n\n[model_providers.fake]\n'
            f'name = "fake"\nbase_url = "{fake.base_url}"\nenv_key = "FAKE_OPENAI_KEY"\n'
            'wire_api = "responses"\n\n'
        )
        config.write_text(provider + text[start:])
        run_host(
            [
                str(codex_bin),
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-hook-trust",
                "-s",
                "danger-full-access",
                prompt,
            ],
            root,
            {**env, "FAKE_OPENAI_KEY": "sk-e2e-dummy"},
        )
    return fake


@pytest.fixture(scope="module")
def poisoned(codex_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Session one brings the poison in; session two starts; what each fake server saw."""
    from e2e_poison import PAGE_ORDER, write_page

    base = tmp_path_factory.mktemp("codex-poison")
    root, home, data = base / "proj", base / "home", base / "data"
    (root / ".git").mkdir(parents=True)
    home.mkdir()
    env = {
        k: v
        for k, v in cli_env(HOME=str(home), CONKEEPER_HOME=str(data)).items()
        if not k.startswith(("CODEX", "OPENAI", "XDG_"))
    }
    assert run_cli("init", cwd=root, env=env).returncode == 0
    (root / "AGENTS.md").write_text("# Agents\n\n- Use pytest.\n", encoding="utf-8")
    installed = run_cli("install", "--agent", "codex", "--scope", "user", cwd=root, env=env)
    assert installed.returncode == 0, installed.stderr
    steps = _poison_steps(write_page(root))
    last = f"Done. The vendor page says: {PAGE_ORDER}"
    first = _codex_run(codex_bin, root, home, env, _stepper(steps, last), POISON_PROMPT)
    second = _codex_run(
        codex_bin, root, home, env, _stepper([]), "What do the notes say about pushing?"
    )
    return {
        "root": root,
        "data": data,
        "env": env,
        "first": first,
        "second": second,
        "steps": steps,
    }


def _first_turn(fake: Any) -> dict[str, Any]:
    return next(r["body"] for r in fake.requests if r["body"].get("tools"))


def test_session_one_took_every_route(poisoned: dict[str, Any]) -> None:
    last = [r["body"] for r in poisoned["first"].requests if r["body"].get("tools")][-1]
    outputs = [i for i in last["input"] if i.get("type") == "function_call_output"]
    assert len(outputs) == len(poisoned["steps"])
    answers = json.dumps(outputs)
    assert answers.count("held") >= 4 and "saved" in answers, answers[:3000]


def test_no_poison_reaches_the_second_session(poisoned: dict[str, Any]) -> None:
    from e2e_poison import poison_on

    assert poison_on(_first_turn(poisoned["second"])) == []


def test_apply_patch_edits_are_in_the_session_history(poisoned: dict[str, Any]) -> None:
    # Codex fires PreToolUse for an apply_patch it runs itself, and no PostToolUse.
    conn = sqlite3.connect(poisoned["data"] / "conkeeper.db")
    try:
        edits = conn.execute(
            "SELECT tool_name, paths, status FROM tool_events WHERE tool_name = 'Edit' ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    assert edits == [
        ("Edit", '["AGENTS.md"]', "success"),
        ("Edit", '[".claude/memory/patterns.md"]', "success"),
    ]
    day = sorted((poisoned["root"] / ".claude" / "memory" / "sessions").glob("*-observations.md"))
    assert "AGENTS.md" in day[-1].read_text()


def test_an_order_written_into_agents_md_stays_out_of_the_second_session(
    poisoned: dict[str, Any],
) -> None:
    """The host loads AGENTS.md itself: the agent's order left the file right after its tool
    and waits in the review queue, the person's own lines stay."""
    from e2e_poison import assert_instruction_file_held

    assert_instruction_file_held(poisoned["root"] / "AGENTS.md", poisoned["env"])


def test_memory_is_framed_as_notes_with_the_agents_source(poisoned: dict[str, Any]) -> None:
    from e2e_poison import assert_framed

    assert_framed(_first_turn(poisoned["second"]))


def test_the_held_orders_are_listed_for_the_person(poisoned: dict[str, Any]) -> None:
    from e2e_poison import HELD_ROUTES, held_routes

    assert held_routes(poisoned["root"], poisoned["env"]) == list(HELD_ROUTES)
