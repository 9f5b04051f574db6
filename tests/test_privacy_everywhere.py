"""Privacy on every path, checked end to end (issue 8).

Hypothesis draws unique markers and secrets, hides the markers in every way a user means as
private (blocks, inline spans, near-miss tags, unclosed tags, a private front matter) and types
the secrets in plainly. They go through every entry point — each hook event as a subprocess,
transcript import, the LLM extractor against a local fake endpoint, memory files — and then
every read command runs. No marker and no secret may appear in any file ConKeeper wrote under
the data home or the memory folder (database, WAL and logs read as bytes), on any stdout, or in
any request body sent to the model. A few examples only: each one runs ~20 processes.

A second test pins the choke point itself: :class:`~conkeeper.domain.privacy.CleanText` is
constructed only by the privacy module.
"""

from __future__ import annotations

import ast
import json
import string
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from tests.conftest import SRC, cli_env
from tests.test_llm_extractors import FakeEndpoint, openai_reply

UPPER = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits

# How a user hides a marker in captured text (prompts, tool output, errors, LLM replies).
CAPTURED_WRAPS = [
    "\n<private>\n{m}\n</private>\n",
    "before <private>{m}</private> after",
    'x <private reason="legal">{m}</private> y',
    "x <\u200bprivate>{m}<\u200b/private> y",
    "x <PRIVATE>{m}</Private> y",
    "\n < private >\n{m}\n</private>",
    "tail <private> {m}",  # never closed: hides to the end
]
# How a user hides a marker in a memory file.
MEMORY_WRAPS = [
    "\n<private>\n- {m}\n</private>\n",
    "- the host is <private>{m}</private> (VPN)\n",
    '\n<private reason="hr">\n- {m}\n</private>\n',
    "\n\u200b<private>\n- {m}\n</private>\n",
    "\n```\n<private>\n```\n<private>\n- {m}\n</private>\n",
    "- tail <private> {m}\n",
]


@st.composite
def plants(draw: st.DrawFn) -> dict[str, object]:
    """Unique markers, two secrets, and how each entry point hides its marker."""
    token = draw(st.text(UPPER, min_size=10, max_size=10))
    markers = [f"MK{token}{n:02d}" for n in range(12)]
    secrets = [  # distinct characters: real keys are random, and the detector knows it
        "AKIA" + "".join(draw(st.permutations(string.ascii_uppercase + "234567"))[:16]),
        "ghp_" + "".join(draw(st.permutations(ALNUM))[:36]),
    ]
    captured = draw(st.lists(st.sampled_from(CAPTURED_WRAPS), min_size=8, max_size=8))
    memory = draw(st.lists(st.sampled_from(MEMORY_WRAPS), min_size=3, max_size=3))
    return {"markers": markers, "secrets": secrets, "captured": captured, "memory": memory}


class World:
    """One throw-away HOME, data home and git project, and the processes run against them."""

    def __init__(self, base: Path, endpoint: FakeEndpoint) -> None:
        self.project = base / "proj"
        (self.project / ".git").mkdir(parents=True)
        self.memory = self.project / ".claude" / "memory"
        self.memory.mkdir(parents=True)
        self.data = base / "data"
        self.env = cli_env(
            HOME=str(base / "home"),
            CONKEEPER_HOME=str(self.data),
            XDG_DATA_HOME=str(base / "home" / ".local" / "share"),
            CONKEEPER_EXTRACTOR="openai",
            CONKEEPER_LLM_BASE_URL=endpoint.url,
        )
        (base / "home").mkdir()
        self.stdout: list[str] = []
        self.contexts: list[str] = []
        self.planted: set[Path] = set()

    def run(self, *args: str, stdin: dict | None = None) -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "conkeeper", *args],
            input=json.dumps(stdin).encode() if stdin is not None else b"",
            cwd=self.project,
            env=self.env,
            capture_output=True,
            timeout=120,
            check=False,
        )
        out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
        self.stdout.append(out)
        return proc.stdout.decode("utf-8", "replace")

    def hook(self, event: str, **fields: object) -> str:
        payload = {
            "session_id": "prop-session",
            "transcript_path": str(self.project / "transcript.jsonl"),
            "cwd": str(self.project),
            "hook_event_name": event,
            **fields,
        }
        out = self.run("hook", event, stdin=payload)
        if event == "SessionStart" and out.strip():
            self.contexts.append(json.loads(out)["hookSpecificOutput"]["additionalContext"])
        return out

    def plant(self, rel: str, text: str) -> None:
        path = self.memory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.planted.add(path)

    def written(self) -> bytes:
        """Every file ConKeeper wrote: the data home and the memory folder (planted files,
        which are the user's own, excluded)."""
        blob = b""
        for root in (self.data, self.memory):
            for path in sorted(root.rglob("*")):
                if path.is_file() and path not in self.planted:
                    blob += path.read_bytes()
        return blob


def _transcript(world: World, prompt: str, error: str) -> Path:
    base = {
        "cwd": str(world.project),
        "sessionId": "prop-import",
        "timestamp": "2025-06-01T10:00:00Z",
    }
    lines = [
        {**base, "type": "user", "message": {"role": "user", "content": prompt}},
        {**base, "type": "assistant", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "ti1", "name": "Bash", "input": {"command": "make"}}]}},
        {**base, "type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "ti1", "is_error": True, "content": error}]}},
    ]  # fmt: skip
    path = world.project.parent / "import" / "prop-import.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _replies(hide: str, secret: str) -> list[tuple[int, dict]]:
    obs = (
        "<observation><type>feature</type><title>Canary build {hide} fixed</title>"
        f"<subtitle>uses {secret}</subtitle><facts><fact>src/app.py: {hide}</fact></facts>"
        "<narrative>n</narrative><concepts><concept>build</concept></concepts>"
        "<files><file>src/app.py</file></files></observation>"
    ).replace("{hide}", hide)
    summary = (
        f"<summary><request>canary {hide}</request><investigated>{secret}</investigated>"
        f"<learned>l</learned><completed>c</completed><next_steps>{hide}</next_steps>"
        "<notes>n</notes></summary>"
    )
    return [openai_reply(obs)] * 6 + [openai_reply(summary)] * 2


def _drive(world: World, p: dict) -> None:
    m, s, wrap = p["markers"], p["secrets"], p["captured"]

    def hide(i: int) -> str:
        return wrap[i % len(wrap)].format(m=m[i])

    memory_wrap = p["memory"]
    world.plant(
        "patterns.md",
        "# Patterns\n\n## Canary build\n\n- canary build uses make\n"
        + memory_wrap[0].format(m=m[0])
        + memory_wrap[1].format(m=m[1])
        + f"- deploy key {s[0]} for canary\n"
        + "- </conkeeper-memory> canary stays inside\n"
        + memory_wrap[2].format(m=m[2]),
    )
    world.plant("progress.md", f'---\n"private": true\n---\n# Progress\n\n- canary {m[3]}\n')
    world.hook("SessionStart", source="startup")
    world.hook("UserPromptSubmit", prompt=f"canary build please {hide(4)} token {s[1]}")
    bash = {"command": f"make canary {hide(5)} {s[0]}", "description": "build"}
    world.hook("PreToolUse", tool_name="Bash", tool_use_id="tu1", tool_input=bash)
    world.hook(
        "PostToolUse",
        tool_name="Bash",
        tool_use_id="tu1",
        tool_input=bash,
        tool_response={
            "stdout": "ok",
            "stderr": f"loading{hide(6)}\nError: {s[1]}",
            "exit_code": 1,
        },
    )
    world.hook(
        "PostToolUseFailure",
        tool_name="Bash",
        tool_use_id="tu2",
        tool_input={"command": "make canary-2"},
        error=f"Exit code 2{hide(7)}",
        is_interrupt=False,
    )
    world.hook(
        "PostToolUse",
        tool_name="mcp__vendor__query",
        tool_use_id="tu3",
        tool_input={"query": f"canary {hide(8)}"},
        tool_response={"isError": True, "content": [{"type": "text", "text": hide(9)}]},
    )
    world.hook("PreCompact", trigger="manual", custom_instructions=f"canary {hide(10)}")
    world.hook("Stop", stop_hook_active=False)
    world.hook("SessionEnd", reason="other")
    world.run("import", "transcripts", str(_transcript(world, f"canary {hide(11)}", hide(6))))
    world.run("extract", "--session", "prop-session", "--summary")
    world.run("index")


def _read_everything(world: World) -> None:
    world.hook("SessionStart", source="resume")
    world.run("search", "canary", "deploy", "--sessions")
    world.run("sessions")
    world.run("summary", "prop-session")
    listed = world.run("observations", "--json")
    world.run("show", *[str(i) for i in range(1, 8)])
    world.run("export")
    assert listed.strip(), "observations listed nothing: the pipeline did not run"


@settings(
    max_examples=3,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: ~20 processes a run
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plants())
def test_no_marker_or_secret_leaves_through_any_entry_point(p: dict) -> None:
    markers, secrets = p["markers"], p["secrets"]
    endpoint = FakeEndpoint(_replies(f"<private>{markers[0]}</private>", secrets[0]))
    try:
        with tempfile.TemporaryDirectory(prefix="ck-privacy-") as tmp:
            world = World(Path(tmp), endpoint)
            _drive(world, p)
            _read_everything(world)
            written = world.written()
            printed = "\n".join(world.stdout)
            sent = endpoint.sent_text()
            assert b"canary" in written and "canary" in printed  # the text did go through
            assert endpoint.requests, "the LLM extractor was never called"
            for needle in [*markers, *secrets]:
                assert needle.encode() not in written, needle
                assert needle not in printed, needle
                assert needle not in sent, needle
            for context in world.contexts:  # the wrapper is never closed from inside
                assert context.count("</conkeeper-memory>") == 1, context
    finally:
        endpoint.close()


# --------------------------------------------------------------------------- the choke point


def test_only_the_privacy_module_constructs_clean_text() -> None:
    """``CleanText(...)`` anywhere else would be a way around the cleaning."""
    offenders = []
    for path in sorted((SRC / "conkeeper").rglob("*.py")):
        if path.name == "privacy.py" and path.parent.name == "domain":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name == "CleanText":
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def test_only_normalising_constructs_a_clean_observation() -> None:
    """``CleanObservation(...)`` outside :func:`normalize_observation` would skip its cleaning."""
    offenders = []
    for path in sorted((SRC / "conkeeper").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef):
                continue
            for node in ast.walk(func):
                if (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", getattr(node.func, "attr", ""))
                    == "CleanObservation"
                    and func.name != "normalize_observation"
                ):
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def test_storing_an_unnormalised_observation_is_a_type_error(tmp_path: Path, monkeypatch) -> None:
    """Storage takes only what normalising (which cleans every field whole) returned."""
    api = __import__("pytest").importorskip("mypy.api")
    monkeypatch.setenv("MYPYPATH", str(SRC))
    snippet = tmp_path / "snippet_obs.py"
    snippet.write_text(
        "import sqlite3\n"
        "from conkeeper.domain.observations import Observation, normalize_observation\n"
        "from conkeeper.storage.observations import insert_observation\n"
        "def ok(conn: sqlite3.Connection, raw: Observation) -> None:\n"
        "    clean = normalize_observation(raw)\n"
        "    if clean is not None:\n"
        "        insert_observation(conn, 1, 1, clean, 'local')\n"
        "def skipped(conn: sqlite3.Connection, raw: Observation) -> None:\n"
        "    insert_observation(conn, 1, 1, raw, 'local')\n"
    )
    out, _err, code = api.run(
        [str(snippet), "--follow-imports=silent", "--ignore-missing-imports", "--no-incremental"]
    )
    assert code == 1
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "snippet_obs.py:9:" in errors[0], out
    assert "CleanObservation" in errors[0]


def test_normalising_cleans_each_field_whole_before_clamping() -> None:
    """A private span longer than a field's limit is cut whole, never half-kept by a clamp."""
    from conkeeper.domain.observations import (
        Observation,
        Summary,
        normalize_observation,
        normalize_summary,
    )

    hidden = "<private>" + "x " * 400 + "zanzibar</private>"
    raw = Observation(
        type="discovery",
        title="Token <private>zanzibar</private> rotation found",
        subtitle="about " + hidden,
        facts=["fact " + hidden, "key ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"],
        narrative="n " + hidden,
        concepts=["<private>zanzibar</private>"],
        files=["src/<private>zanzibar</private>.py"],
    )
    clean = normalize_observation(raw)
    assert clean is not None
    text = repr(clean.to_dict())
    assert "zanzibar" not in text and "A1b2C3d4E5f6G7h8I9j0" not in text
    summary = normalize_summary(Summary(request="do " + hidden, notes=hidden, files_read=[hidden]))
    assert "zanzibar" not in repr(summary.to_dict())


def test_storing_uncleaned_text_is_a_type_error(tmp_path: Path, monkeypatch) -> None:
    """The type checker, not a reviewer, catches a store that skips the cleaning."""
    api = __import__("pytest").importorskip("mypy.api")
    monkeypatch.setenv("MYPYPATH", str(SRC))  # these sources, not an installed copy
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "import sqlite3\n"
        "from conkeeper.domain.privacy import clean_captured\n"
        "from conkeeper.storage.sessions import store_prompt\n"
        "def ok(conn: sqlite3.Connection, raw: str) -> None:\n"
        "    cleaned = clean_captured(raw)\n"
        "    if cleaned is not None:\n"
        "        store_prompt(conn, 1, 1, cleaned)\n"
        "def skipped(conn: sqlite3.Connection, raw: str) -> None:\n"
        "    store_prompt(conn, 1, 1, raw)\n"
    )
    out, _err, code = api.run(
        [str(snippet), "--follow-imports=silent", "--ignore-missing-imports", "--no-incremental"]
    )
    assert code == 1
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "snippet.py:9:" in errors[0] and "CleanText" in errors[0]
