"""Secrets a second outside probe found leaking, each through a real entry point.

The probe planted realistic credentials where a user, a tool or a host would put them: a
private block closed in a later prompt, a session id, a URL's query string, a cookie on a
command line. Each test sends them through the real front door (a hook subprocess with a
real-shaped payload, or the CLI), then greps everything ConKeeper printed and every byte it
wrote under the data home and the memory folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from tests.conftest import run_cli
from tests.test_privacy_probe import (
    GITHUB,
    OPENAI,
    STRIPE,
    assert_hidden,
    bash_output,
    hook,
    written,
)

from conkeeper.domain.privacy import clean_captured

WORDS = st.text(alphabet="abcdefghij klmnop\n", max_size=40)


def test_a_private_block_closed_in_a_later_prompt_hides_what_precedes_the_close(
    project: Path, isolated_home: Path
) -> None:
    password = "ZorblaxQuintessa77"
    first = hook(project, "UserPromptSubmit", prompt="context\n<private>\nvpn pass is hunter")
    second = hook(
        project,
        "UserPromptSubmit",
        prompt=f"and the db pass {password}\n</private>\nplease fix the flaky build",
    )
    inline = hook(project, "UserPromptSubmit", prompt=f"also {password}X</private> thanks")
    blob = written(project, isolated_home)
    assert_hidden(password, first, second, inline, blob)
    assert b"please fix the flaky build" in blob  # what follows the close is kept


@given(
    before=WORDS,
    hidden=st.from_regex(r"[A-Z][a-z0-9]{11}", fullmatch=True),
    after=WORDS,
    sep=st.sampled_from(["\n", " ", "\r\n", ""]),
    closed=st.booleans(),
)
def test_a_stray_close_hides_back_to_the_previous_span_and_keeps_what_follows(
    before: str, hidden: str, after: str, sep: str, closed: bool
) -> None:
    """Whatever precedes a closing tag with no opening one is hidden (back to the end of a
    span closed before it, whose earlier text stays); what follows it stays."""
    head = f"{before} <private>x</private> " if closed else ""
    cleaned = clean_captured(f"{head}{hidden}{sep}</private>{sep}tail {after}") or ""
    assert hidden not in cleaned
    assert "tail" in cleaned
    if closed and before.strip():
        assert before.split()[0] in cleaned


def test_a_dotted_token_in_a_query_string_or_assignment_is_redacted(
    project: Path, isolated_home: Path
) -> None:
    """``ya29.…``-style tokens hold a dot; a dotted value with a random part is no code path."""
    oauth = "ya29.a0AfH6SMBx7Qm2Lp9Rt4Wz"
    session = "s%3A" + "k2Jd9Qw.Lm4Zx8Rt7Vn3Bp6Yc1Hs5"
    out = [
        bash_output(project, 1, f"curl 'https://x.io/cb?access_token={oauth}&state=1'", "{}"),
        bash_output(project, 2, "cat .env", f"SESSION_TOKEN={session.replace('%3A', '')}\n"),
    ]
    listed = run_cli("search", "--sessions", "access_token", cwd=project)
    blob = written(project, isolated_home)
    assert_hidden(oauth, *out, listed.stdout, blob)
    assert_hidden("Lm4Zx8Rt7Vn3Bp6Yc1Hs5", *out, blob)


def test_a_cookie_given_to_curl_with_dash_b_is_redacted(project: Path, isolated_home: Path) -> None:
    cookie = "f3k9Lm2Qx7Rt5Wz8Yp1Bc4Dv6"
    out = bash_output(project, 1, f"curl -sb 'sessionid={cookie}; theme=dark' https://x", "ok")
    blob = written(project, isolated_home)
    assert_hidden(cookie, out, blob)
    assert b"theme=dark" in blob


def test_a_session_id_or_transcript_name_holding_a_token_is_stored_as_a_digest(
    project: Path, isolated_home: Path
) -> None:
    """A session id is a file name, a database key and a log field: one that holds a token is
    replaced by a stable digest, never written as it came."""
    session = f"ci-{GITHUB}"
    out = [hook(project, "UserPromptSubmit", session_id=session, prompt="fix the build")]
    tool = {"command": "make", "description": "build"}
    out.append(
        hook(
            project,
            "PostToolUse",
            session_id=session,
            tool_name="Bash",
            tool_use_id="toolu_1",
            tool_input=tool,
            tool_response={"stdout": "ok"},
        )
    )
    out.append(hook(project, "Stop", session_id=session, stop_hook_active=False))
    handoff = run_cli("handoff", "write", "--session", f"x-{STRIPE}", "--note", "go", cwd=project)
    folder = isolated_home / ".claude" / "projects" / "-tmp-proj"
    folder.mkdir(parents=True)
    line = {
        "type": "user",
        "cwd": str(project),
        "sessionId": "s",
        "uuid": "u-1",
        "timestamp": "2025-06-01T10:00:00.000Z",
        "message": {"role": "user", "content": "The cart total is wrong; fix it."},
    }
    (folder / f"run-{OPENAI}.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    imported = run_cli("import", "transcripts", str(folder), "--no-progress", cwd=project)
    sessions = run_cli("sessions", "--json", cwd=project)
    blob = written(project, isolated_home)
    texts = [*out, handoff.stdout + handoff.stderr, imported.stdout + imported.stderr]
    for token in (GITHUB, STRIPE, OPENAI):
        assert_hidden(token, *texts, sessions.stdout, blob)
    assert b"fix the build" in blob and b"The cart total is wrong" in blob
    assert sessions.stdout.count("redacted-") >= 2  # still two sessions, each its own name


def test_a_value_on_the_line_after_its_key_is_redacted(project: Path, isolated_home: Path) -> None:
    """``password:`` then the value alone on the next indented line (YAML, a block scalar, a
    wrapped Python dict), in a prompt, a tool's output and a memory file."""
    password, key = "Tr0ub4dor-horse-battery-9412", "Qm7xPz2LkW9vRt4Hs"
    prompt = f"staging creds:\ndb:\n  password:\n    {password}\n  api_key: >-\n    {key}\n"
    said = hook(project, "UserPromptSubmit", prompt=prompt)
    tool = bash_output(
        project, 1, "cat settings.py", f'DB = {{\n  "password":\n    "{password}",\n}}'
    )
    memory = project / ".claude" / "memory"
    (memory / "patterns.md").write_text(
        f"# Patterns\n\n## Staging\n\nsecret =\n  {key}\npassword: |\n  {password}\n",
        encoding="utf-8",
    )
    found = run_cli("search", "staging", "password", "secret", cwd=project)
    as_json = run_cli("search", "--json", "--sessions", "staging creds", cwd=project)
    blob = written(project, isolated_home).replace((memory / "patterns.md").read_bytes(), b"")
    for secret in (password, key):
        assert_hidden(secret, said, tool, found.stdout, as_json.stdout, blob)
    assert "password:" in found.stdout  # the key stays readable


@given(
    word=st.sampled_from(["password", "db_password", "secret", "api_key", "token"]),
    sep=st.sampled_from([":", " =", ": |", ": >-", ":="]),
    indent=st.sampled_from(["  ", "    ", "\t"]),
    value=st.from_regex(r"[A-Za-z]{4}[0-9][A-Za-z0-9!#%+]{9,20}", fullmatch=True),
    quote=st.sampled_from(["", '"', "'"]),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_a_credential_alone_on_the_next_line_is_cut_and_a_schema_line_is_kept(
    word: str, sep: str, indent: str, value: str, quote: str, newline: str
) -> None:
    """The value on the next line is cut exactly when it would be cut on the key's own line."""
    from conkeeper.domain.secrets import redact

    text = f"{word}{sep}{newline}{indent}{quote}{value}{quote}{newline}next: 1"
    same_line = f"{word}{sep.rstrip(' |>-')} {quote}{value}{quote}{newline}next: 1"
    assert (value in redact(text)) == (value in redact(same_line))
    assert "Tr0ub4dor9x" not in redact(f"{word}{sep}{newline}{indent}Tr0ub4dor9x{newline}")
    schema = f"{word}{sep}{newline}{indent}type: string{newline}{indent}minLength: 8"
    assert redact(schema) == schema


def test_config_show_get_and_set_never_print_a_password_in_a_setting(
    project: Path, isolated_home: Path
) -> None:
    """A setting's value is shown text: ``llm_base_url`` with a password in it is shown cut."""
    password = "Tr0ub4dor-horse-battery-9412"
    url = f"https://llm:{password}@llm.internal/v1"
    (project / ".claude" / "memory" / ".memory-config.md").write_text(
        f"---\nllm_base_url: {url}\n---\n", encoding="utf-8"
    )
    shown = [
        run_cli("config", "show", cwd=project),
        run_cli("config", "show", "--json", cwd=project),
    ]
    shown.append(run_cli("config", "get", "llm_base_url", cwd=project))
    shown.append(run_cli("config", "get", "--json", "llm_base_url", cwd=project))
    shown.append(run_cli("config", "set", "llm_base_url", url, cwd=project))
    assert all(r.returncode == 0 for r in shown)
    assert_hidden(password, *(r.stdout + r.stderr for r in shown))
    assert "llm.internal/v1" in shown[2].stdout


def test_an_aws_secret_key_named_in_words_is_redacted(project: Path, isolated_home: Path) -> None:
    """``aws secret <key>`` written as words (a handoff note, a prompt), not as a variable."""
    secret = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzq8v4mN2xK"
    note = run_cli("handoff", "write", "--note", f"resume: aws secret {secret} then", cwd=project)
    said = hook(project, "UserPromptSubmit", prompt=f"deploy with the aws secret {secret} please")
    shown = run_cli("handoff", "show", cwd=project)
    started = hook(project, "SessionStart", source="startup")
    blob = written(project, isolated_home)
    assert_hidden(secret, note.stdout + note.stderr, said, shown.stdout, started, blob)


def test_a_password_written_after_the_word_with_a_space_is_redacted(
    project: Path, isolated_home: Path
) -> None:
    """``the password Tr0ub4dor-9412 works``: prose, a search query, a remembered note."""
    password = "Tr0ub4dor-horse-battery-9412"
    said = hook(project, "UserPromptSubmit", prompt=f"the staging password {password} works now")
    query = run_cli("search", "--sessions", f"password {password}", cwd=project)
    saved = run_cli("remember", f"Staging uses password {password} until May", cwd=project)
    blob = written(project, isolated_home)
    assert_hidden(password, said, query.stdout + query.stderr, saved.stdout + saved.stderr, blob)
    assert b"the staging password" in blob


@given(
    word=st.sampled_from(["password", "passwd", "secret", "token"]),
    prose=st.sampled_from(
        ["reset flow", "policy requires 12 chars", "hash uses bcrypt", "count 128k"]
    ),
    sha=st.from_regex(r"[0-9a-f]{7,40}", fullmatch=True),
)
def test_a_key_word_before_ordinary_words_or_a_hash_stays_readable(
    word: str, prose: str, sha: str
) -> None:
    from conkeeper.domain.secrets import redact

    texts = [f"the {word} {prose}"]
    if word != "token":  # ``token <hex>`` was a bearer token before this rule, and stays one
        texts.append(f"{word} {sha} matches commit {sha}")
    for text in texts:
        assert redact(text) == text


def test_the_first_half_of_a_token_split_over_two_outputs_is_redacted(
    project: Path, isolated_home: Path
) -> None:
    """A token cut off at the end of one tool output (its rest in the next) is hidden by its
    vendor prefix. The rest, a random run with no prefix or key word, is not recognisable alone:
    a known limit (the report of the probe says so)."""
    first, rest = GITHUB[:20], GITHUB[20:]
    out = [
        bash_output(project, 1, "head -c 37 token.txt", f"token part one: {first}"),
        bash_output(project, 2, "tail -c +38 token.txt", f"{rest} end"),
        hook(project, "UserPromptSubmit", prompt=f"the key starts with {STRIPE[:16]}\n"),
    ]
    blob = written(project, isolated_home)
    assert_hidden(first, *out, blob)
    assert_hidden(STRIPE[:16], *out, blob)
    assert b"token part one" in blob


PREFIXED = {GITHUB: 4, STRIPE: 8, OPENAI: 8, "AKIA" + "QW3RTY7UIOP2ASDF": 4}


@given(
    token=st.sampled_from(sorted(PREFIXED)),
    body=st.integers(min_value=8, max_value=40),
    before=st.sampled_from(["", "token: ", "export T=", "line one\n"]),
    after=st.sampled_from(["", "\n", "  \r\n"]),
)
def test_a_token_cut_off_at_the_end_of_a_text_never_survives(
    token: str, body: int, before: str, after: str
) -> None:
    """Its prefix and 8 or more of its characters, then the end: hidden whatever the cut."""
    from conkeeper.domain.secrets import redact

    cut = token[: min(len(token), PREFIXED[token] + body)]
    assert cut not in redact(f"{before}{cut}{after}")


def test_a_tool_name_or_tool_use_id_holding_a_token_is_not_stored(
    project: Path, isolated_home: Path
) -> None:
    """The names of things are text too: an MCP tool named after a token, a tool use id."""
    out = [
        hook(
            project,
            "PostToolUse",
            tool_name=f"mcp__deploy__{STRIPE}",
            tool_use_id="toolu_1",
            tool_input={"q": "x"},
            tool_response={"result": "ok"},
        ),
        hook(
            project,
            "PostToolUse",
            tool_name="Bash",
            tool_use_id=f"toolu_{GITHUB}",
            tool_input={"command": "make"},
            tool_response={"stdout": "ok", "exit_code": 1},
        ),
    ]
    blob = written(project, isolated_home)
    assert_hidden(STRIPE, *out, blob)
    assert_hidden(GITHUB, *out, blob)
    assert b"mcp__deploy__" in blob and b"`make`" in blob
