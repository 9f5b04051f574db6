"""Leaks and crashes a third outside probe found, each through a real entry point.

The probe sent realistic credentials and malformed input where a user, a tool, a browser or a
host would send them: an observation id longer than SQLite's integer, a token split across two
tool outputs, a secret in a memory file, a commit message or a remote URL. Each test goes
through the real front door (a hook subprocess with a real-shaped payload, the CLI, the
viewer's HTTP API) and then greps everything ConKeeper printed and every byte it wrote.
"""

from __future__ import annotations

import json
import subprocess
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
from tests.test_viewer_security import login, request
from tests.viewer_support import running_viewer

from conkeeper.domain.secrets import redact

TOO_BIG = "9" * 30  # past SQLite's 64-bit INTEGER


def test_an_id_past_sqlites_integer_is_not_found_not_an_internal_error(
    project: Path, isolated_home: Path
) -> None:
    """``show``, ``timeline``, ``summary``, ``observations --session`` and ``forget`` with an
    id too large for SQLite answer "not found" in one line, never an internal error."""
    for args in (
        ("show", TOO_BIG),
        ("show", "--", f"-{TOO_BIG}"),
        ("timeline", TOO_BIG),
        ("summary", TOO_BIG),
        ("observations", "--session", TOO_BIG),
        ("forget", "observation", TOO_BIG, "--yes"),
        ("forget", "session", TOO_BIG, "--yes"),
    ):
        out = run_cli(*args, cwd=project)
        text = out.stdout + out.stderr
        assert "OverflowError" not in text and "internal" not in text, (args, text)
        assert "failed:" not in text, (args, text)


def test_the_viewer_answers_404_for_an_id_past_sqlites_integer(
    project: Path, isolated_home: Path
) -> None:
    """``GET /observation/<30 digits>`` was an HTTP 500; an out-of-range id is a clean 404."""
    hook(project, "SessionStart", source="startup")  # a database to look in
    with running_viewer(project) as viewer:
        cookie = login(viewer)
        for path in (f"/observation/{TOO_BIG}", "/observation/9223372036854775808"):
            status, _, body = request(viewer, path, cookie=cookie)
            assert status == 404, (path, status)
            assert 'id="error"' in body and "internal error" not in body


def _git(project: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(project), "-c", "user.email=p@x.io", "-c", "user.name=p", *args],
        check=True,
        capture_output=True,
    )


def test_a_branch_or_changed_file_named_after_a_token_is_cleaned_in_the_handoff(
    project: Path, isolated_home: Path
) -> None:
    """The handoff's work-tree line (``git status``: the branch, the changed paths) was
    stored, shown by ``handoff show`` and injected at SessionStart as git printed it."""
    (project / ".git").rmdir()
    _git(project, "init", "-q", "-b", "main")
    (project / "a.txt").write_text("x\n", encoding="utf-8")
    _git(project, "add", "a.txt")
    _git(project, "commit", "-qm", "first")
    _git(project, "checkout", "-qb", f"fix/{STRIPE}")
    (project / f"notes-{SLACK}.txt").write_text("y\n", encoding="utf-8")
    hook(project, "UserPromptSubmit", prompt="wire the payment webhook")
    compact = hook(project, "PreCompact", trigger="auto")
    shown = run_cli("handoff", "show", cwd=project)
    start = hook(project, "SessionStart", source="compact")
    for secret in (STRIPE, SLACK):
        assert_hidden(secret, compact, shown.stdout + shown.stderr, start)
        assert_hidden(secret, written(project, isolated_home))
    assert "fix/[REDACTED:" in shown.stdout  # the rest of the line stays


def test_a_secret_in_the_cached_team_block_is_cleaned_before_sessionstart_injects_it(
    project: Path, isolated_home: Path
) -> None:
    """The team sync's cache (``<data home>/team/recent``) was injected as read: a title with
    a token, a token in the author's name, a title cut at 120 characters mid-token."""
    from conkeeper.domain.paths import locate_project
    from conkeeper.services.team.recent import write_recent

    config = project / ".claude" / "memory" / ".memory-config.md"
    config.write_text("---\nteam_sync: true\n---\n", encoding="utf-8")
    password = "Pg4ssw0rdQuokka88"
    items = [
        {"author": f"bob-{GITHUB}", "type": "decision", "title": f"Use token {GITHUB}"},
        {"author": "ann", "type": "bugfix", "title": "x" * 104 + " " + STRIPE},
        {"author": "ann", "type": "bugfix", "title": f"db postgres://app:{password}@db:5432/x"},
    ]
    data = isolated_home.parent / "data"
    write_recent(
        str(data), locate_project(project).identity, [{**i, "when": "2026-11-20"} for i in items]
    )
    start = hook(project, "SessionStart", source="startup")
    assert "From your team" in start
    assert_hidden(GITHUB, start)
    assert STRIPE[:12] not in start and password not in start


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzq4Vw8KeyQ"
DEPLOY = "Xk9mQ2vL7pR4tW8yZ3nB" + "6cD1fG5hJ0aS"


def test_a_deploy_key_or_a_bare_aws_secret_next_to_key_is_redacted(
    project: Path, isolated_home: Path
) -> None:
    """``Deploy key: <random>`` and a 40-character AWS secret after the word "key" or
    "secret" with no access key id near it were kept: ambiguous, so hidden."""
    note = run_cli("handoff", "write", "--note", f"next: rotate the key {AWS_SECRET}", cwd=project)
    out = [
        hook(project, "UserPromptSubmit", prompt=f"the secret key {AWS_SECRET} is in CI"),
        bash_output(project, 1, "cat ops.md", f"Deploy key: {DEPLOY}\nkey: {AWS_SECRET}\n"),
        note.stdout + note.stderr,
    ]
    shown = run_cli("handoff", "show", cwd=project)
    for secret in (AWS_SECRET, DEPLOY):
        assert_hidden(secret, *out, shown.stdout, written(project, isolated_home))


@given(
    sha=st.text(alphabet="0123456789abcdef", min_size=40, max_size=40),
    word=st.sampled_from(["key", "secret", "Key", "the secret key", "cache key", "deploy key"]),
)
def test_a_commit_sha_or_hex_hash_after_key_stays_readable(sha: str, word: str) -> None:
    """A 40-character hex value (a commit SHA, a SHA-1) after the word "key" or "secret" is
    no AWS secret (``deploy key: <hex>``, with a separator, is a key's value, as ``api key:``
    always was)."""
    text = f"{word} {sha}"
    assert redact(text) == text


def test_a_tool_use_id_holding_a_token_reaches_no_state_file(
    project: Path, isolated_home: Path
) -> None:
    """The agent-shell spans (``state/agent-shells``) and the tool start times keyed the
    state by the raw tool use id: a token in it was written to the data home."""
    fields = {
        "tool_name": "Bash",
        "tool_use_id": f"toolu_{GITHUB}",
        "tool_input": {"command": "make"},
    }
    out = [
        hook(project, "PreToolUse", **fields),
        hook(project, "PostToolUse", tool_response={"stdout": "ok", "exit_code": 1}, **fields),
    ]
    assert_hidden(GITHUB, *out, written(project, isolated_home))


def test_the_rest_of_a_token_split_over_two_outputs_is_redacted(
    project: Path, isolated_home: Path
) -> None:
    """The second half of a token cut by ``head -c`` (a bare random run, no prefix) is only
    recognisable with the previous output's end: the session's state carries the kind of the
    cut token (never a character of it) and the next output's leading run is hidden."""
    first, rest = GITHUB[:20], GITHUB[20:]
    out = [
        bash_output(project, 1, "head -c 37 token.txt", f"token part one: {first}"),
        bash_output(project, 2, "tail -c +38 token.txt", f"{rest} end"),
        bash_output(project, 3, "make", "Completed 4 of 5, then Error 2"),
    ]
    blob = written(project, isolated_home)
    assert_hidden(rest, *out, blob)
    assert b" end" in blob and b"Completed 4 of 5" in blob  # what follows stays


@given(
    token=st.sampled_from([GITHUB, STRIPE, SLACK, "AKIA" + "QW3RTY7UIOP2ASDF"]),
    data=st.data(),
    before=st.sampled_from(["", "token: ", "export T=", "line one\n", "key_"]),
    after=st.sampled_from(["", " end", "\nnext line", ": done"]),
)
def test_a_token_split_anywhere_after_its_prefix_is_hidden_in_both_outputs(
    token: str, data: st.DataObject, before: str, after: str
) -> None:
    """Whatever the split point past the vendor prefix (8 or more characters left for the
    second output), the first output names a cut token and the second's rest is cut whole."""
    from conkeeper.services.capture.events import continue_cut_token, token_cut_at_end

    prefix = 4 if token.startswith(("ghp_", "AKIA")) else 5 if token.startswith("xoxb") else 8
    at = data.draw(st.integers(min_value=prefix, max_value=len(token) - 8))
    kind = token_cut_at_end({"stdout": f"{before}{token[:at]}"})
    assert kind is not None
    shown = continue_cut_token(kind, {"stdout": f"{token[at:]}{after}"})["stdout"]
    assert token[at:] not in shown and shown.endswith(after)


@given(start=st.sampled_from(["Completed", "README.md", "Done.", " R4sY6uB1", "\nx1y2z3w4"]))
def test_ordinary_output_after_a_cut_token_stays(start: str) -> None:
    """Words, file names and anything after a space or a line break are not a token's rest."""
    from conkeeper.services.capture.events import continue_cut_token

    assert continue_cut_token("generic-secret", f"{start} rest") == f"{start} rest"


def test_remember_does_not_echo_a_memory_file_named_after_a_token(
    project: Path, isolated_home: Path
) -> None:
    """``remember --file <token>.md`` printed "Saved to ghp_….md" (MCP already cleaned it)."""
    saved = run_cli("remember", "--file", f"{GITHUB}.md", "use tabs for Makefiles", cwd=project)
    again = run_cli("remember", "--json", "--file", f"{GITHUB}.md", "run make lint", cwd=project)
    assert saved.returncode == 0 and again.returncode == 0, saved.stderr + again.stderr
    assert "Saved to [REDACTED:" in saved.stdout
    assert_hidden(GITHUB, saved.stdout + saved.stderr, again.stdout + again.stderr)


def _transcript_line(n: int, project: Path, kind: str, content: object) -> str:
    return json.dumps(
        {
            "type": kind,
            "sessionId": "tx-split",
            "cwd": str(project),
            "uuid": f"u{n}",
            "timestamp": f"2026-11-27T10:00:0{n}Z",
            "message": {"role": kind, "content": content},
        }
    )


def test_an_imported_transcript_hides_the_rest_of_a_token_split_over_two_outputs(
    project: Path, isolated_home: Path
) -> None:
    """``import transcripts`` stored the second half of a split token as the failure line."""
    first, rest = GITHUB[:20], GITHUB[20:]

    def use(n: int, command: str) -> list[dict[str, object]]:
        return [{"type": "tool_use", "id": f"tu{n}", "name": "Bash", "input": {"command": command}}]

    def result(n: int, text: str) -> list[dict[str, object]]:
        return [{"type": "tool_result", "tool_use_id": f"tu{n}", "content": text, "is_error": True}]

    entries = [
        ("user", "read the token file in two parts"),
        ("assistant", use(1, "head -c 20 t")),
        ("user", result(1, f"error: {first}")),
        ("assistant", use(2, "tail -c +21 t")),
        ("user", result(2, f"{rest} failed")),
    ]
    transcript = project.parent / "tx-split.jsonl"
    lines = [_transcript_line(n, project, kind, c) for n, (kind, c) in enumerate(entries)]
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = run_cli("import", "transcripts", str(transcript), cwd=project)
    assert out.returncode == 0, out.stderr
    blob = written(project, isolated_home)
    assert_hidden(rest, out.stdout + out.stderr, blob)
    assert b"failed" in blob


def test_doctor_and_privacy_check_do_not_echo_a_token_from_a_file_they_read(
    project: Path, isolated_home: Path
) -> None:
    """``doctor`` quoted an invalid config value whole and ``privacy check`` a front matter
    value whole (``config show`` already cleaned the same warning)."""
    memory = project / ".claude" / "memory"
    config = f"---\ntoken_budget: {GITHUB}\n---\n"
    (memory / ".memory-config.md").write_text(config, encoding="utf-8")
    (memory / "odd.md").write_text(f"---\nprivate: maybe-{STRIPE}\n---\n# x\n", encoding="utf-8")
    doctor = run_cli("doctor", cwd=project)
    as_json = run_cli("doctor", "--json", cwd=project)
    check = run_cli("privacy", "check", cwd=project)
    check_json = run_cli("privacy", "check", "--json", cwd=project)
    outputs = [p.stdout + p.stderr for p in (doctor, as_json, check, check_json)]
    assert "token_budget" in outputs[0] and "is not true or false" in outputs[2]
    for secret in (GITHUB, STRIPE):
        assert_hidden(secret, *outputs)
