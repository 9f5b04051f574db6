"""A fourth outside probe: secrets in the names of things ConKeeper stores beside what it captures.

A fresh HOME and project, hooks as subprocesses with real-shaped payloads, the CLI, and every
byte written under the data home and the memory folder afterwards. The earlier probes cleaned
what a session says; this one looks at what a session is called: the transcript path the host
sends, the name of a memory file, the short rest of a token cut over two outputs.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from tests.conftest import run_cli
from tests.test_privacy_probe import (
    GITHUB,
    SLACK,
    STRIPE,
    assert_hidden,
    bash_output,
    hook,
    written,
)

from conkeeper.domain.messages import clean_path


def test_a_transcript_path_holding_a_token_is_not_stored(
    project: Path, isolated_home: Path
) -> None:
    """The host's ``transcript_path`` was stored as sent (the sessions row, the pending spool,
    backups, ``export``): a folder named after a key put the key in the database. A path that
    holds a credential is stored as ``redacted-<digest>``; the live path is only read in memory."""
    transcript = str(project / f"chat-{STRIPE}.jsonl")
    out = [
        hook(project, "UserPromptSubmit", prompt="run the tests", transcript_path=transcript),
        bash_output(project, 1, "make test", "2 failed"),
        hook(project, "SessionEnd", reason="exit", transcript_path=transcript),
        run_cli("export", cwd=project).stdout,
        run_cli("sessions", "--json", cwd=project).stdout,
    ]
    assert_hidden(STRIPE, *out, written(project, isolated_home))


def test_a_memory_file_named_after_a_token_is_shown_redacted_everywhere(
    project: Path, isolated_home: Path
) -> None:
    """``remember --file <token>.md`` is refused no more than before, but the name was echoed by
    ``search`` (text and JSON), ``history``, ``privacy check`` (which called it clean) and
    ``export``. Each shows ``[REDACTED:<kind>].md``; ``privacy check`` counts the name as a
    finding."""
    (project / ".claude" / "memory" / f"{SLACK}.md").write_text("# Notes\n\n- deploy with make\n")
    saved = run_cli("remember", "--file", f"{SLACK}.md", "run make lint", cwd=project)
    assert saved.returncode == 0, saved.stderr
    check = run_cli("privacy", "check", cwd=project)
    out = [
        run_cli("search", "make", cwd=project),
        run_cli("search", "--json", "make", cwd=project),
        run_cli("history", cwd=project),
        run_cli("history", "--json", cwd=project),
        check,
        run_cli("privacy", "check", "--json", cwd=project),
        run_cli("export", cwd=project),
    ]
    assert_hidden(SLACK, *(p.stdout + p.stderr for p in out))
    assert "[REDACTED:slack-token].md" in out[0].stdout + out[2].stdout
    assert check.returncode != 0 and "file name: possible slack-token" in check.stdout


@given(
    token=st.sampled_from([GITHUB, STRIPE, SLACK, "AKIA" + "QW3RTY7UIOP2ASDF"]),
    folder=st.sampled_from(["", ".claude/memory/", "~/src/app/.claude/memory/", "notes/"]),
    before=st.sampled_from(["", "keys-", "old_"]),
    suffix=st.sampled_from([".md", ".txt", "", "/progress.md"]),
)
def test_a_token_in_any_name_of_a_path_is_redacted(
    token: str, folder: str, before: str, suffix: str
) -> None:
    """Wherever the token sits in a path, ``clean_path`` redacts it and keeps the rest."""
    shown = clean_path(f"{folder}{before}{token}{suffix}")
    assert token[-12:] not in shown and "[REDACTED:" in shown
    assert shown.startswith(folder) and shown.endswith(suffix)


@given(
    name=st.one_of(
        st.sampled_from(
            [
                "sessions/2026-11-27-observations.md",
                "decisions/0001-use-postgres.md",
                "docs/f47ac10b-58cc-4372-a567-0e02b2c3d479.md",
                "notes/9fceb02d0ae598e95dc970b74767f19372d61af8.md",
                "~/src/my-project/.claude/memory/CLAUDE.md",
                "iOSAppNotes.md",
            ]
        ),
        st.from_regex(r"[a-z]{1,12}(-[a-z0-9]{1,8}){0,4}\.md", fullmatch=True),
    )
)
def test_ordinary_file_names_stay_as_they_are(name: str) -> None:
    """Words, dates, UUIDs, commit SHAs and camel-cased names are shown unchanged."""
    assert clean_path(name) == name


def test_the_short_rest_of_a_token_split_over_two_outputs_is_hidden(
    project: Path, isolated_home: Path
) -> None:
    """``head -c`` that stops one to three characters before a token's end left them in the
    next output: the rest rule wanted four. The short leading run is hidden too."""
    out = [
        bash_output(project, 1, "head -c 49 key.txt", f"the key: {GITHUB[:-3]}"),
        bash_output(project, 2, "tail -c +50 key.txt", f"{GITHUB[-3:]}\n"),
        bash_output(project, 3, "head -c 30 other.txt", f"second: {STRIPE[:-2]}"),
        bash_output(project, 4, "tail -c +31 other.txt", f"{STRIPE[-2:]} rotated"),
    ]
    blob = written(project, isolated_home).decode("utf-8", "replace")
    for text in (*out, blob):
        assert f"exit code 1: {GITHUB[-3:]}" not in text
        assert f"{STRIPE[-2:]} rotated" not in text
    assert "exit code 1: [REDACTED:generic-secret] rotated" in blob


@given(
    rest=st.from_regex(r"[A-Za-z0-9_\-]{1,3}", fullmatch=True),
    after=st.sampled_from(["", "\n", " end", "\nnext line", '"', ": done"]),
)
def test_any_short_leading_run_after_a_cut_token_is_hidden(rest: str, after: str) -> None:
    """One to three token characters starting the next output are the cut token's rest, and
    what follows them stays."""
    from conkeeper.services.capture.events import continue_cut_token

    shown = continue_cut_token("generic-secret", f"{rest}{after}")
    assert shown == f"[REDACTED:generic-secret]{after}"


def test_a_project_folder_named_after_a_token_is_not_named_in_context_or_reports(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The project's short name (the folder's name) was shown as is: SessionStart sent it to
    the model in its header, ``sessions``, ``insights --json`` and cross-project search hits
    printed it, and ``init`` and ``corrections list`` the memory folder's path. Both are
    cleaned like any shown path. (The stored identity and root still hold the folder's path:
    it is how the project is found again.)"""
    project = tmp_path / f"keys-{GITHUB}"
    (project / ".git").mkdir(parents=True)
    (project / ".claude" / "memory").mkdir(parents=True)
    (project / ".claude" / "memory" / "progress.md").write_text(
        "# Progress\n\n- ship the make fix\n"
    )
    init = run_cli("init", cwd=project)
    start = hook(project, "SessionStart", source="startup")
    hook(project, "UserPromptSubmit", prompt="no, always run make lint before committing")
    out = [
        init.stdout + init.stderr,
        run_cli("init", "--json", cwd=project).stdout,
        run_cli("corrections", "list", cwd=project).stdout,
        start,
        run_cli("sessions", cwd=project).stdout,
        run_cli("insights", "--json", cwd=project).stdout,
        run_cli("search", "--all-projects", "--json", "make", cwd=tmp_path).stdout,
    ]
    assert "keys-[REDACTED:github-token]" in start
    assert_hidden(GITHUB, *out)


def test_mcp_resources_name_a_file_named_after_a_token_redacted_and_open_it(
    project: Path, isolated_home: Path
) -> None:
    """``list_resources`` sent ``conkeeper://memory/project/xoxb-….md`` to the client, and the
    read echoed the URI. The file is listed under its redacted name, and that name (as search
    hits and the viewer show it too) opens the one file it stands for."""
    from tests.test_mcp_server import over_stdio, text_of

    (project / ".claude" / "memory" / f"{SLACK}.md").write_text("# Notes\n\n- deploy with make\n")

    async def body(client: object) -> list[str]:
        listed = await client.list_resources()  # type: ignore[attr-defined]
        uris = [str(r.uri) for r in listed.resources]
        shown = next(u for u in uris if "REDACTED" in u)
        read = await client.read_resource(shown)  # type: ignore[attr-defined]
        tool = await client.call_tool(  # type: ignore[attr-defined]
            "read_memory", {"path": "[REDACTED:slack-token].md"}
        )
        return [repr(listed), shown, repr(read), text_of(tool)]

    out = over_stdio(project, body)
    assert_hidden(SLACK, *out)
    assert out[1] == "conkeeper://memory/project/[REDACTED:slack-token].md"
    assert "deploy with make" in out[2] and "deploy with make" in out[3]


def test_the_viewer_opens_a_file_it_lists_under_a_redacted_name(
    project: Path, isolated_home: Path
) -> None:
    """The viewer's pages are cleaned whole, so its memory list linked to
    ``path=[REDACTED:slack-token].md``, which answered 404: the person could not open it."""
    from tests.test_viewer_security import login, request
    from tests.viewer_support import running_viewer

    (project / ".claude" / "memory" / f"{SLACK}.md").write_text("# Notes\n\n- deploy with make\n")
    with running_viewer(project) as v:
        cookie = login(v)
        _, _, listing = request(v, "/memory", cookie=cookie)
        status, _, page = request(
            v, "/memory/file?scope=project&path=%5BREDACTED%3Aslack-token%5D.md", cookie=cookie
        )
    assert "[REDACTED:slack-token].md" in listing
    assert status == 200 and "deploy with make" in page
    assert_hidden(SLACK, listing, page)


def test_forgetting_a_project_named_after_a_token_leaves_no_byte_of_it(
    tmp_path: Path, isolated_home: Path
) -> None:
    """After a folder named after a key was renamed and its old project forgotten, the
    tombstone kept the old path (and so the key) in the database, its backup and the row
    journal for good, and the hooks' state files and shell watch list named its folders. A
    tombstone keeps such an identity as its digest, and still keeps the project forgotten (an
    import of its export brings none of its sessions back); the state goes with the project."""
    old = tmp_path / f"app-{GITHUB}"
    (old / ".git").mkdir(parents=True)
    (old / ".claude" / "memory").mkdir(parents=True)
    hook(old, "SessionStart", source="startup")  # the shell watch lists its memory folder
    hook(old, "UserPromptSubmit", prompt="fix the flaky make target")
    bash_output(old, 1, "make test", "2 failed")  # (no SessionEnd: its detached backup races)
    backup = run_cli("backup", cwd=old)
    saved = run_cli("export", cwd=old)
    assert backup.returncode == 0 and saved.returncode == 0, backup.stderr + saved.stderr
    new = old.rename(tmp_path / "app")
    gone = run_cli("forget", "project", str(old), "--yes", cwd=new)
    assert gone.returncode == 0, gone.stderr
    data = isolated_home.parent / "data"
    (tmp_path / "old.jsonl").write_text(saved.stdout)
    again = run_cli("import", "jsonl", str(tmp_path / "old.jsonl"), cwd=new)
    blob = b"".join(p.read_bytes() for p in sorted(data.rglob("*")) if p.is_file())
    assert_hidden(GITHUB, gone.stdout + gone.stderr, again.stdout + again.stderr, blob)
    listed = run_cli("sessions", "--all-projects", "--json", cwd=new)
    assert "probe-1" not in listed.stdout, listed.stdout
