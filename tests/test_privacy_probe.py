"""Secrets in the shapes an outside probe found them leaking, each through a real entry point.

A probe of every write path (a fresh HOME and project, hooks as subprocesses with real-shaped
payloads, CLI commands and their one-line errors, the SQLite file and its WAL read as bytes)
found credentials stored or echoed in clear when they were written in a slightly unusual way.
Each test here plants such a secret where a user or a tool would write it, and then greps
everything ConKeeper printed and every byte it wrote under the data home and the memory folder.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import cli_env, run_cli

GITHUB = "ghp_" + "Zq8vT3mN7xK2pL9wR4sY6uB1cD5eF0gH2jQw"
STRIPE = "sk_live_" + "h2FDEEtfjgVvVqE1SkHbn88H"
OPENAI = "sk-proj-" + "xjSI6bWHtP3fS2qHx6kwXoIIXGvOoNZYW2mZp0zVZomHFwUb"
SLACK = "xoxb-" + "952890786666-1760313721590-gaKjIg8xNbe3nNyjOq9wMxEh"
ANTHROPIC = "sk-ant-api03-" + "dJ8HyS5SUkCnD8zRA9a9SkpXz9w3QlY7Zkuvqdt7s8Stqcbnr3yBdGBLEPH1qh"
TOKENS = [GITHUB, STRIPE, OPENAI, SLACK, ANTHROPIC]


def hook(project: Path, event: str, **fields: object) -> str:
    """One hook event as the host runs it: a subprocess, a real-shaped payload on stdin."""
    payload = {
        "session_id": "probe-1",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "hook", event],
        input=json.dumps(payload).encode(),
        env=cli_env(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    return (proc.stdout + proc.stderr).decode("utf-8", "replace")


def bash_output(project: Path, n: int, command: str, stdout: str) -> str:
    """A Bash tool use that printed ``stdout`` and failed, through PostToolUse."""
    return hook(
        project,
        "PostToolUse",
        tool_name="Bash",
        tool_use_id=f"toolu_probe_{n}",
        tool_input={"command": command, "description": "probe"},
        tool_response={"stdout": stdout, "stderr": "", "exit_code": 1},
    )


def written(project: Path, home: Path) -> bytes:
    """Every byte ConKeeper could have written: the data home (database, WAL, logs, state,
    backups) and the memory folder (logs, queue, journal)."""
    blob = b""
    for root in (home.parent / "data", project / ".claude" / "memory"):
        for path in sorted(root.rglob("*")) if root.exists() else []:
            if path.is_file():
                blob += path.read_bytes()
    return blob


def assert_hidden(secret: str, *texts: str | bytes) -> None:
    """``secret`` (or its distinctive body) appears in none of ``texts``."""
    body = secret[-20:]
    for text in texts:
        blob = text if isinstance(text, bytes) else text.encode()
        assert body.encode() not in blob, f"{secret[:12]}… leaked"


def test_a_token_glued_after_a_dash_or_underscore_is_redacted(
    project: Path, isolated_home: Path
) -> None:
    outputs = []
    for n, token in enumerate(TOKENS):
        line = f"export API_HEADER=x-{token}\nkey_{token} set"
        outputs.append(bash_output(project, n, "cat .env.local", line))
    errors = [run_cli("import", "jsonl", f"backup-{t}.jsonl", cwd=project) for t in TOKENS]
    for token in TOKENS:
        assert_hidden(token, *outputs, *(e.stdout + e.stderr for e in errors))
        assert_hidden(token, written(project, isolated_home))


def test_an_invisible_or_fullwidth_character_inside_a_token_does_not_hide_it(
    project: Path, isolated_home: Path
) -> None:
    zero_width = GITHUB[:9] + "\u200b" + GITHUB[9:]
    soft_hyphen = STRIPE[:12] + "\u00ad" + STRIPE[12:]
    fullwidth = "".join(chr(ord(c) + 0xFEE0) for c in OPENAI)
    prompt = hook(project, "UserPromptSubmit", prompt=f"use this token: {zero_width} thanks")
    tool = bash_output(project, 1, "cat .env", f"STRIPE={soft_hyphen}\nOPENAI={fullwidth}\n")
    saved = run_cli("remember", f"CI reads the token {zero_width}", cwd=project)
    shown = run_cli("search", "--sessions", "token", cwd=project)
    blob = written(project, isolated_home).decode("utf-8", "replace")
    for token, typed in ((GITHUB, zero_width), (STRIPE, soft_hyphen)):
        for text in (prompt, tool, saved.stdout + saved.stderr, shown.stdout, blob):
            assert typed not in text and token[-16:] not in text.replace("\u200b", "")
    assert fullwidth[-16:] not in blob + tool + shown.stdout


def test_a_url_encoded_or_json_escaped_secret_is_redacted(
    project: Path, isolated_home: Path
) -> None:
    password = "Tr0ub4dor9ATPtdbm"
    url = f"postgres%3A%2F%2Fapp%3A{password}%40db.internal%3A5432%2Fprod"
    escaped = "".join(f"\\u{ord(c):04x}" for c in STRIPE[:8]) + STRIPE[8:]
    out = [
        bash_output(project, 1, "heroku config", f"DATABASE_URL: {url}\n"),
        bash_output(project, 2, "grep -r callback log", f"GET /cb?code=1&t=x%3D{GITHUB} 302\n"),
        bash_output(project, 3, "cat secrets.json", '{"stripe": "' + escaped + '"}\n'),
    ]
    listed = run_cli("search", "--sessions", "DATABASE_URL", "stripe", cwd=project)
    blob = written(project, isolated_home)
    for secret in (password, GITHUB, STRIPE[8:]):
        assert_hidden(secret, *out, listed.stdout, blob)


def test_a_private_tag_in_another_form_still_hides_its_content(
    project: Path, isolated_home: Path
) -> None:
    forms = {
        "MKFULLWIDTH01": "\uff1cprivate\uff1e{m}\uff1c/private\uff1e",
        "MKSMALLFORM02": "\ufe64private\ufe65{m}\ufe64/private\ufe65",
        "MKANGLES03": "\u2329private\u232a{m}\u2329/private\u232a",
        "MKCYRILLIC04": "<priv\u0430te>{m}</priv\u0430te>",
        "MKZEROWIDTH05": "<pri\u200bvate>{m}</private>",
        "MKSPLIT06": "<priv\nate>{m}</private>",
        "MKENTITY07": "&lt;private&gt;{m}&lt;/private&gt;",
        "MKJSONESC08": "\\u003cprivate\\u003e{m}\\u003c/private\\u003e",
        "MKURLENC09": "%3Cprivate%3E{m}%3C%2Fprivate%3E",
        "MKBLOCK10": "\n\uff1cPRIVATE\uff1e\n{m}\n\uff1c/PRIVATE\uff1e\n",
    }
    out = []
    for n, (marker, form) in enumerate(forms.items()):
        hidden = form.format(m=marker)
        out.append(hook(project, "UserPromptSubmit", prompt=f"deploy note {hidden} done"))
        out.append(bash_output(project, n, "cat notes.html", f"deploy note {hidden} done\n"))
    shown = run_cli("search", "--sessions", "deploy", "note", cwd=project)
    blob = written(project, isolated_home)
    assert b"deploy note" in blob  # the rest of each text was kept
    for marker in forms:
        assert_hidden(marker, *out, shown.stdout, blob)


def test_a_session_cookie_in_curl_output_is_redacted(project: Path, isolated_home: Path) -> None:
    session = "5oFA6Qd8Mj7zdnbMjAdTdlzC5T4uUhf7kvmlP7HVDctQUy1x"
    csrf = "Zk9aQ2xyT0pWRnh6dGhPR3pZc2hhQmRl"
    verbose = (
        f"> Cookie: theme=dark; sessionid={session}\n"
        f"< Set-Cookie: csrftoken={csrf}; Path=/; SameSite=Lax\n"
    )
    command = "curl -sv https://app.example.com/dashboard 2>&1 | grep -i cookie"
    out = bash_output(project, 1, command, verbose)
    shown = run_cli("search", "--sessions", "dashboard", cwd=project)
    blob = written(project, isolated_home)
    assert b"theme=dark" in blob  # an ordinary cookie stays readable
    for secret in (session, csrf):
        assert_hidden(secret, out, shown.stdout, blob)


def test_a_base64_encoded_credential_is_redacted(project: Path, isolated_home: Path) -> None:
    import base64

    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    pair = b64("deploy:Tr0ub4dor9ATPtdbm")
    env_line = b64(f"STRIPE_KEY={STRIPE}\n")
    kubectl = '{"credentials":"' + pair + '","env":"' + env_line + '"}'
    docker = '{"auths": {"registry.example.com": {"auth": "' + pair + '"}}}'
    out = [
        bash_output(project, 1, "kubectl get secret app -o jsonpath={.data}", kubectl),
        bash_output(project, 2, "cat ~/.docker/config.json", docker),
    ]
    shown = run_cli("search", "--sessions", "secret", "docker", cwd=project)
    blob = written(project, isolated_home)
    for encoded in (pair, env_line):
        assert_hidden(encoded, *out, shown.stdout, blob)


def test_a_token_wrapped_over_lines_is_redacted(project: Path, isolated_home: Path) -> None:
    pasted = f"the key is {OPENAI[:20]}\n{OPENAI[20:44]}\n{OPENAI[44:]}\nplease set it in CI"
    wrapped = f"token: {GITHUB[:14]}\n    {GITHUB[14:]}\nnext step: deploy"
    out = [
        hook(project, "UserPromptSubmit", prompt=pasted),
        bash_output(project, 1, "gh auth status -t", wrapped),
    ]
    shown = run_cli("search", "--sessions", "key", "token", cwd=project)
    blob = written(project, isolated_home)
    assert b"please set it in CI" in blob  # the rest of the prompt is kept
    for token in (OPENAI, GITHUB):
        for part in (token[:14], token[20:40], token[-12:]):
            assert_hidden(part, *out, shown.stdout, blob)


def test_a_private_tag_in_look_alike_characters_hides_memory_file_content(
    project: Path, isolated_home: Path
) -> None:
    memory = project / ".claude" / "memory"
    (memory / "product-context.md").write_text(
        "# Product context\n\n## Vendors\n\n- deploy vendor is Acme\n"
        "\uff1cprivate\uff1e\n- the contract price is MKFULLBLOCK11\n\uff1c/private\uff1e\n"
        "- deploy host \ufe64private\ufe65MKSMALL12\ufe64/private\ufe65 (VPN only)\n"
        "<priv\u0430te>\n- deploy escalation phone MKCYRILLIC13\n</priv\u0430te>\n"
        "\u2329private\u232a\n- deploy backup site MKANGLE14\n\u2329/private\u232a\n",
        encoding="utf-8",
    )
    start = hook(project, "SessionStart", source="startup")
    shown = [
        run_cli("search", "deploy", cwd=project).stdout,
        run_cli("privacy", "strip", str(memory / "product-context.md"), cwd=project).stdout,
        run_cli("export", cwd=project).stdout,
        start,
    ]
    assert "deploy vendor is Acme" in shown[0] + shown[1]
    blob = written(project, isolated_home)
    for marker in ("MKFULLBLOCK11", "MKSMALL12", "MKCYRILLIC13", "MKANGLE14"):
        assert_hidden(
            marker, *shown, blob.replace((memory / "product-context.md").read_bytes(), b"")
        )


def test_a_long_token_cut_late_in_an_error_leaves_no_rest(
    project: Path, isolated_home: Path
) -> None:
    error = f"Exit code 1 {ANTHROPIC[:30]}\n{ANTHROPIC[30:]} rejected by the API"
    out = hook(
        project,
        "PostToolUseFailure",
        tool_name="Bash",
        tool_use_id="toolu_probe_late",
        tool_input={"command": "./deploy.sh"},
        error=error,
        is_interrupt=False,
    )
    shown = run_cli("search", "--sessions", "deploy", cwd=project)
    blob = written(project, isolated_home)
    assert b"rejected by the API" in blob
    assert_hidden(ANTHROPIC[30:], out, shown.stdout, blob)
