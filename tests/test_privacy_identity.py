"""A project folder named after a credential: what ConKeeper stores is never its path.

ConKeeper identified a project by its folder path and stored it as is: a folder named after a
token (``~/work/ghp_.../app``) put the token in the database, the hooks' state, caches, the
journals, install records and backups. A project whose path holds a credential is now stored as
a digest identity beside its redacted root; its live path is used in memory only. These tests
run a whole session through the real entry points (hooks as subprocesses, every CLI command,
MCP through the official SDK's client, the viewer over HTTP) in such a folder and read every
byte written afterwards; and open a database, state and handoff written by the previous code.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from tests.conftest import SRC, cli_env, run_cli
from tests.test_privacy_probe import GITHUB, OPENAI, SLACK, STRIPE

from conkeeper.domain.paths import identity_of, stored_identity

AWS = "AKIA" + "QW3RTY7UIOP2ASDF"
TOKENS = {"github": GITHUB, "aws": AWS, "stripe": STRIPE, "openai": OPENAI, "slack": SLACK}
PREVIOUS = "8cec46f"  # the last commit that stored a project's folder path as it was
COMMANDS = [
    ("remember", "we deploy with make deploy"),
    ("search", "deploy"),
    ("search", "--json", "deploy"),
    ("search", "--sessions", "pnpm"),
    ("search", "--all-projects", "deploy"),
    ("index", "--status"),
    ("index", "--rebuild"),
    ("sessions",),
    ("sessions", "--json"),
    ("summary", "s1"),
    ("observations",),
    ("facts", "test"),
    ("show", "1"),
    ("timeline", "1"),
    ("extract",),
    ("export",),
    ("backup",),
    ("history",),
    ("history", "--json"),
    ("corrections", "list"),
    ("reflect",),
    ("insights",),
    ("stale",),
    ("consolidate",),
    ("doctor",),
    ("handoff", "show"),
    ("config", "show"),
    ("config", "show", "--json"),
    ("privacy", "check"),
    ("review",),
    ("install", "--agent", "codex"),
    ("install", "--agent", "codex", "--json", "--uninstall"),
    ("undo",),
]


def token_folder(base: Path) -> Path:
    """A git project whose folders are named after five vendors' tokens."""
    root = base / GITHUB / f"keys-{AWS}" / STRIPE / OPENAI / f"{SLACK}-x" / "app"
    (root / ".claude" / "memory").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def hook(project: Path, event: str, src: Path = SRC, **fields: object) -> str:
    """One hook event as the host runs it, from the code in ``src``."""
    transcript = project.parents[5] / f"chat-{STRIPE}.jsonl"
    payload = {
        "session_id": "s1",
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    env = {**cli_env(CONKEEPER_DETACHED="0"), "PYTHONPATH": str(src)}
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "hook", event],
        input=json.dumps(payload).encode(),
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    assert "Traceback" not in out, out
    return out


def a_session(project: Path, src: Path = SRC) -> list[str]:
    """A short session: start, a correction, a failing command, an edit, compaction, end."""
    return [
        hook(project, "SessionStart", src, source="startup"),
        hook(project, "UserPromptSubmit", src, prompt="no, use pnpm not npm, always pnpm"),
        hook(
            project,
            "PostToolUse",
            src,
            tool_name="Bash",
            tool_use_id="toolu_1",
            tool_input={"command": "make test"},
            tool_response={"stdout": "2 failed", "stderr": "", "exit_code": 1},
        ),
        hook(
            project,
            "PostToolUse",
            src,
            tool_name="Edit",
            tool_use_id="toolu_2",
            tool_input={"file_path": str(project / "src" / "a.py"), "old_string": "a"},
            tool_response={},
        ),
        hook(project, "PreCompact", src, trigger="auto"),
        hook(project, "Stop", src, stop_hook_active=False),
        hook(project, "SessionEnd", src, reason="exit"),
    ]


def every_byte(*roots: Path) -> dict[Path, bytes]:
    """Every file under ``roots`` (a project's ``.git`` aside: git's own, not ConKeeper's)."""
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and ".git" not in path.relative_to(root).parts[:1]:
                found[path] = path.read_bytes()
    return found


def leaks(texts: dict[str, bytes]) -> list[str]:
    """``where: vendor`` for each text holding a token's distinctive end."""
    return [
        f"{where}: {vendor}"
        for where, text in texts.items()
        for vendor, token in TOKENS.items()
        if token[-12:].encode() in text
    ]


def mcp_answers(project: Path) -> dict[str, bytes]:
    """Every read tool of ``conkeeper mcp`` through the official SDK's stdio client."""
    pytest.importorskip("mcp.server.mcpserver", reason="the 'mcp' extra is not installed")
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**cli_env(), "PATH": os.pathsep.join([os.path.dirname(sys.executable), "/usr/bin"])}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "conkeeper", "mcp"], env=env, cwd=project
    )
    calls = [
        ("search", {"query": "deploy"}),
        ("search", {"query": "pnpm", "include_sessions": True}),
        ("sessions", {}),
        ("summary", {"session": "s1"}),
        ("timeline", {"id": 1}),
        ("get_observations", {"ids": [1, 2]}),
        ("read_memory", {"path": "patterns.md"}),
        ("remember", {"text": "Release with make release", "file": "patterns.md"}),
    ]

    async def main() -> dict[str, bytes]:
        async with Client(stdio_client(params)) as client:
            out = {}
            for name, args in calls:
                result = await client.call_tool(name, args)
                text = "\n".join(getattr(b, "text", "") for b in result.content)
                out[f"mcp {name}"] = text.encode()
            return out

    return asyncio.run(asyncio.wait_for(main(), 120))


def viewer_pages(project: Path) -> dict[str, bytes]:
    """The viewer's pages over HTTP, with the cookie its one-time URL gives."""
    pytest.importorskip("starlette")
    import http.client

    from tests.viewer_support import running_viewer

    pages = ["/", "/memory", "/retros", "/queue", "/search?q=deploy", "/search?q=pnpm&sessions=1"]
    out = {}
    with running_viewer(project) as v:
        conn = http.client.HTTPConnection("127.0.0.1", v.port, timeout=30)
        conn.request("GET", f"/?token={v.token}", headers={"Host": f"127.0.0.1:{v.port}"})
        response = conn.getresponse()
        response.read()
        cookie = (response.getheader("set-cookie") or "").split(";", 1)[0]
        for page in pages:
            conn.request("GET", page, headers={"Host": f"127.0.0.1:{v.port}", "Cookie": cookie})
            response = conn.getresponse()
            out[f"viewer {page}"] = response.read()
            assert response.status == 200, page
        conn.close()
    return out


def test_a_project_folder_named_after_tokens_is_stored_by_digest_only(
    tmp_path: Path, isolated_home: Path
) -> None:
    """A session, every CLI command, MCP and the viewer in a folder named after five tokens:
    no token in anything shown, nor in any byte under the data home, HOME or the project (the
    database and its WAL, state, caches, journals, install records, backups, logs)."""
    project = token_folder(tmp_path / "work")
    (project.parents[5] / f"chat-{STRIPE}.jsonl").write_text("")
    shown: dict[str, bytes] = {"init": run_cli("init", "--yes", cwd=project).stdout.encode()}
    for n, out in enumerate(a_session(project)):
        shown[f"hook {n}"] = out.encode()
    for args in COMMANDS:
        proc = run_cli(*args, cwd=project)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        shown[" ".join(args)] = (proc.stdout + proc.stderr).encode()
    shown.update(mcp_answers(project))
    shown.update(viewer_pages(project))
    written = every_byte(tmp_path / "data", isolated_home, project)
    assert len(written) > 20
    assert leaks(shown) == []
    assert leaks({str(path.relative_to(tmp_path)): data for path, data in written.items()}) == []
    history = run_cli("sessions", "--json", cwd=project).stdout
    assert "no, use pnpm" in history  # the session is found again under its digest identity
    assert "Release with make release" in (project / ".claude/memory/patterns.md").read_text()


def test_history_and_undo_find_the_live_files_of_such_a_folder(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The journal keeps the folder as a digest and its redacted form: ``history`` shows the
    redacted path, and ``undo`` (run from the project) finds the live file to restore."""
    project = token_folder(tmp_path)
    assert run_cli("init", "--yes", cwd=project).returncode == 0
    before = (project / ".claude/memory/patterns.md").read_bytes()
    assert run_cli("remember", "--file", "patterns.md", "use pnpm", cwd=project).returncode == 0
    listed = run_cli("install", "--agent", "codex", cwd=project)
    assert listed.returncode == 0 and "[REDACTED:github-token]" in listed.stdout
    history = run_cli("history", cwd=project)
    assert "[REDACTED:github-token]/keys-[REDACTED:aws-access-key]" in history.stdout
    assert run_cli("undo", cwd=project).returncode == 0  # the install, by its digest
    assert not (project / ".codex" / "hooks.json").exists()
    assert run_cli("undo", cwd=project).returncode == 0  # the remember, in the memory journal
    assert (project / ".claude/memory/patterns.md").read_bytes() == before
    assert leaks({"journals": b"".join(every_byte(tmp_path / "data", project).values())}) == []


def test_a_folder_without_a_credential_keeps_its_path_as_identity(tmp_path: Path) -> None:
    """No churn for ordinary users: the identity of a plain folder is its path, unchanged."""
    plain = tmp_path / "src" / "my-project_2026" / "f47ac10b-58cc-4372-a567-0e02b2c3d479"
    plain.mkdir(parents=True)
    assert identity_of(str(plain)) == str(plain.resolve())
    secret = token_folder(tmp_path / "t")
    assert identity_of(str(secret)) == stored_identity(str(secret.resolve()))
    assert identity_of(str(secret)).startswith("redacted-")
    assert GITHUB not in identity_of(str(secret))


def previous_code(tmp_path: Path) -> Path:
    """The source tree of :data:`PREVIOUS` (``git archive``), to write state as it did."""
    repo = SRC.parent
    archive = tmp_path / "previous.tar"
    made = subprocess.run(
        ["git", "-C", str(repo), "archive", "-o", str(archive), PREVIOUS, "src"],
        capture_output=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"no git history here to take {PREVIOUS} from")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "previous", filter="data")
    return tmp_path / "previous" / "src"


def test_history_written_by_the_previous_code_is_found_and_rewritten(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The previous code stored the folder's path in the database, the state and the handoff;
    this version migrates them: the session and its prompt are found, the pending handoff is
    injected at the next SessionStart, and no token is left in the database afterwards."""
    old = previous_code(tmp_path)
    project = token_folder(tmp_path / "work")
    (project.parents[5] / f"chat-{STRIPE}.jsonl").write_text("")
    a_session(project, old)
    previous_env = {**cli_env(), "PYTHONPATH": str(old)}
    assert run_cli("backup", cwd=project, env=previous_env).returncode == 0
    hook(project, "UserPromptSubmit", old, prompt="after the backup: keep using pnpm")
    assert GITHUB.encode() in b"".join(every_byte(tmp_path / "data").values())  # as it was
    sessions = run_cli("sessions", "--json", cwd=project)
    assert "no, use pnpm" in sessions.stdout, sessions.stderr
    found = run_cli("search", "--sessions", "pnpm", cwd=project)
    assert "pnpm" in found.stdout
    context = hook(project, "SessionStart", source="resume")
    assert "handoff" in context.lower()
    assert "after the backup" in run_cli("search", "--sessions", "backup", cwd=project).stdout
    journal = b"".join(every_byte(project / ".claude/memory/.history").values())
    assert GITHUB.encode() in journal  # the observation log's appends, as journaled before
    assert run_cli("remember", "we release on fridays", cwd=project).returncode == 0
    assert run_cli("undo", cwd=project).returncode == 0  # the older entries rewritten, by digest
    memory = project / ".claude/memory"
    assert not any("release on fridays" in p.read_text() for p in memory.rglob("*.md"))
    data = every_byte(tmp_path / "data", project)  # database, WAL, backup, journals, state
    assert leaks({str(path.relative_to(tmp_path)): text for path, text in data.items()}) == []


def test_an_export_written_by_the_previous_code_imports_without_the_token(
    tmp_path: Path, isolated_home: Path
) -> None:
    """``export`` of the previous code named the project by its folder's path; ``import
    jsonl`` of that file into a fresh data home stores the project by digest, and finds its
    session from the project's folder."""
    old = previous_code(tmp_path)
    project = token_folder(tmp_path / "work")
    (project.parents[5] / f"chat-{STRIPE}.jsonl").write_text("")
    a_session(project, old)
    exported = run_cli("export", cwd=project, env={**cli_env(), "PYTHONPATH": str(old)})
    assert GITHUB in exported.stdout  # as the previous code wrote it
    backup = tmp_path / "backup.jsonl"
    backup.write_text(exported.stdout)
    fresh = {**cli_env(), "CONKEEPER_HOME": str(tmp_path / "fresh")}
    imported = run_cli("import", "jsonl", str(backup), cwd=project, env=fresh)
    assert imported.returncode == 0, imported.stderr
    assert "no, use pnpm" in run_cli("sessions", "--json", cwd=project, env=fresh).stdout
    data = every_byte(tmp_path / "fresh")
    assert leaks({str(path.relative_to(tmp_path)): text for path, text in data.items()}) == []


def test_the_hook_state_of_such_a_folder_works_as_before(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The state file holds a mark where it named the folder, and reads it back whole: the
    save reminder still counts tool uses and fires at the fifth, and a recorded save resets it."""
    project = token_folder(tmp_path / "work")
    (project.parents[5] / f"chat-{STRIPE}.jsonl").write_text("")
    assert run_cli("init", "--yes", cwd=project).returncode == 0

    def tool(n: int) -> str:
        return hook(
            project,
            "PostToolUse",
            tool_name="Bash",
            tool_use_id=f"toolu_{n}",
            tool_input={"command": "ls"},
            tool_response={"stdout": "a.py", "stderr": "", "exit_code": 0},
        )

    said = [tool(n) for n in range(1, 6)]
    assert ["tool uses since the last save" in out for out in said] == [False] * 4 + [True]
    state = every_byte(tmp_path / "data" / "state")
    assert any(b"\\u0000root" in text for text in state.values())  # the folder, as a mark
    assert leaks({str(path): text for path, text in state.items()}) == []
    assert run_cli("sync", "mark", "--session", "s1", cwd=project).returncode == 0
    assert not any("since the last save" in tool(n) for n in range(6, 10))


def test_sync_status_and_an_install_dry_run_show_the_folder_redacted(
    tmp_path: Path, isolated_home: Path
) -> None:
    """``sync status`` printed the hook state's mark for the folder (``\\x00root``) where the
    state names it, and ``install --dry-run`` put the folder's path, token and all, in its diff
    headers; both now show the redacted folder."""
    project = token_folder(tmp_path / "work")
    (project.parents[5] / f"chat-{STRIPE}.jsonl").write_text("")
    assert run_cli("init", "--yes", cwd=project).returncode == 0
    hook(project, "SessionStart", source="startup")
    hook(
        project,
        "PostToolUse",
        tool_name="Edit",
        tool_use_id="toolu_9",
        tool_input={"file_path": str(project / "src" / "a.py"), "old_string": "a"},
        tool_response={"filePath": str(project / "src" / "a.py")},
    )
    shown: dict[str, bytes] = {}
    for args in (("sync", "status"), ("sync", "status", "--json"),
                 ("install", "--agent", "codex", "--dry-run")):  # fmt: skip
        done = run_cli(*args, cwd=project)
        assert done.returncode == 0, done.stderr
        shown[" ".join(args)] = (done.stdout + done.stderr).encode()
    assert leaks(shown) == []
    assert not any(b"\\u0000" in text or b"\x00" in text for text in shown.values()), shown
    assert b"[REDACTED:github-token]" in shown["sync status"]
    assert b"+++ " in shown["install --agent codex --dry-run"]
