"""Team memory probed from outside, second round: what the first probe left wrong.

Each probe is written from the contract (issue 21, ``docs/team.md``) and goes through the real
entry points: hooks as subprocesses with real-shaped payloads, ``conkeeper`` subprocesses in
separate data homes, raw HTTP against the server, and ``pg_dump`` of its database.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import cli_env, run_cli
from tests.team_support import TeamServer, database_url, issue_token, pg_dump, pg_proc, team_server
from tests.test_team_sync import HTTPS_ORIGIN, Machine, run_hook, team_hits

__all__ = ["database_url", "pg_proc", "team_server"]  # fixtures used by name


def session_payload(machine: Machine, session: str, event: str, **fields: Any) -> dict[str, Any]:
    """A Claude Code hook payload of ``event`` for ``machine``'s clone."""
    return {
        "session_id": session,
        "transcript_path": str(machine.root / f"{session}.jsonl"),
        "cwd": str(machine.root),
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def fix_session(machine: Machine, session: str, prompt: str) -> None:
    """A real session through the hooks: a prompt, a failing test, an edit, the test passing;
    then the session's extraction (what SessionEnd starts detached), run to its end."""

    def hook(event: str, **fields: Any) -> None:
        done = run_hook(machine, event, session_payload(machine, session, event, **fields))
        assert done.returncode == 0, done.stderr

    test = "pytest tests/test_ledger.py -q"
    hook("SessionStart", source="startup")
    hook("UserPromptSubmit", prompt=prompt)
    hook("PostToolUse", tool_name="Bash", tool_input={"command": test},
         tool_response={"stdout": "1 failed: test_leap_day", "stderr": "", "exit_code": 1},
         tool_use_id="toolu_01probe2fail")  # fmt: skip
    path = str(machine.root / "src" / "ledger.py")
    edit = {"file_path": path, "old_string": "365", "new_string": "days_in_year()"}
    hook("PostToolUse", tool_name="Edit", tool_input=edit, tool_use_id="toolu_01probe2edit",
         tool_response={"filePath": path, "success": True})  # fmt: skip
    hook("PostToolUse", tool_name="Bash", tool_input={"command": test},
         tool_response={"stdout": "4 passed", "stderr": "", "exit_code": 0},
         tool_use_id="toolu_01probe2pass")  # fmt: skip
    quiet = {**machine.env, "CONKEEPER_DETACHED": "0"}  # SessionEnd starts nothing itself
    ended = session_payload(machine, session, "SessionEnd", reason="exit")
    done = run_cli("hook", "SessionEnd", cwd=machine.root, env=quiet, stdin=json.dumps(ended))
    assert done.returncode == 0, done.stderr
    done = machine.cli("extract", "--session", session, "--quiet")
    assert done.returncode == 0, done.stderr


# --------------------------------------------------------------------------- prompts


PROMPT = (
    "Please make the quokka ledger reconciliation stop flaking on leap days, "
    "our auditor Mirabel Okonkwo-Tanaka keeps asking"
)


def test_prompts_stay_home_inside_summaries_and_observations_too(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """Prompts are not shared unless the project sets it; yet the session's summary carried
    its first prompt as its title, and the local extractor's observations quoted it ('While
    working on "..."'), so a teammate found the prompt word for word."""
    ann = Machine(tmp_path, "ann")
    bob = Machine(tmp_path, "bob", HTTPS_ORIGIN)
    for machine in (ann, bob):
        machine.join(team_server, issue_token(team_server.database, machine.name, "core"))
        machine.opt_in()
    fix_session(ann, "prompt-probe-1", PROMPT)
    pushed = ann.sync()
    assert pushed["pushed"] >= 2 and pushed["pending"] == 0  # the summary and the bug fix
    dump = pg_dump(team_server.database)
    assert "test_leap_day" in dump  # the work is shared ...
    for words in ("quokka ledger reconciliation", "Mirabel Okonkwo-Tanaka", "stop flaking on"):
        assert words not in dump  # ... the prompt is not
    found = bob.search("quokka", "ledger", "reconciliation", "leap")
    shared = team_hits(found)
    assert shared and {h["author"] for h in shared} == {"ann"}
    assert "Mirabel" not in json.dumps(shared) and "quokka ledger" not in json.dumps(shared)

    ann.opt_in(("team_share_prompts", "true"))  # the project chooses to share them
    fix_session(ann, "prompt-probe-2", PROMPT.replace("quokka", "wombat"))
    ann.sync()
    assert "wombat ledger reconciliation" in pg_dump(team_server.database)


# --------------------------------------------------------------------------- tokens


def test_a_team_token_in_a_tool_call_is_redacted_like_any_credential(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """ConKeeper's own team token (``ckt_`` and 43 random characters) was no secret to the
    privacy module: an admin's agent revoking one by hand left it in clear in the observation
    log (a file teams commit), the local database and, through the failed command's
    observation, on the team server for every teammate to read."""
    ann = Machine(tmp_path, "ann")
    ann.join(team_server, issue_token(team_server.database, "ann", "core"))
    ann.opt_in()
    stolen = issue_token(team_server.database, "bob", "core")
    session = "token-probe"

    def hook(event: str, **fields: Any) -> None:
        done = run_hook(ann, event, session_payload(ann, session, event, **fields))
        assert done.returncode == 0, done.stderr

    hook("SessionStart", source="startup")
    hook("UserPromptSubmit", prompt="revoke the token bob leaked in the chat")
    command = f"conkeeper server token --database postgresql://db/team --revoke {stolen}"
    hook("PostToolUse", tool_name="Bash", tool_input={"command": command},
         tool_response={"stdout": "", "stderr": "no active token", "exit_code": 1},
         tool_use_id="toolu_01tokenprobe")  # fmt: skip
    hook("PostToolUse", tool_name="Bash", tool_input={"command": f"echo {stolen}"},
         tool_response={"stdout": stolen, "stderr": "", "exit_code": 2},
         tool_use_id="toolu_01tokenprobe2")  # fmt: skip
    done = ann.cli("extract", "--session", session, "--quiet")
    assert done.returncode == 0, done.stderr
    ann.sync()
    for path in [*ann.root.rglob("*"), *ann.home.rglob("*")]:
        if path.is_file() and ".git" not in path.parts and path.name != "credentials.json":
            assert stolen[4:] not in path.read_bytes().decode("utf-8", "replace"), path
    assert stolen[4:] not in pg_dump(team_server.database)


# --------------------------------------------------------------------------- control characters

ESCAPES = "\x1b[2J\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07\x1b[8mhidden\x1b[0m\x9b31m"


def test_terminal_control_sequences_never_reach_a_teammate(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """Local records never hold control characters (the observation's normalisation turns them
    into spaces), but a hand-made push stored them as sent: a teammate's title could clear the
    screen, hide text or write the clipboard (OSC 52) of whoever ran ``search --team``, and
    reached SessionStart's team block and the MCP tools raw. The server refuses them; the
    client sends a local row without them."""
    mal = issue_token(team_server.database, "mal", "core")
    bob = Machine(tmp_path, "bob", HTTPS_ORIGIN)
    bob.join(team_server, issue_token(team_server.database, "bob", "core"))
    bob.opt_in()
    fields = [("title", f"Fixed the refund rounding {ESCAPES}"), ("subtitle", ESCAPES),
              ("narrative", ESCAPES), ("facts", [ESCAPES]), ("files", [ESCAPES])]  # fmt: skip
    records = [
        {"uid": f"esc-{name}", "kind": "observation", "type": "bugfix",
         "title": "Fixed the refund rounding", "created_at": 1_795_000_000_000, name: value}
        for name, value in fields
    ]  # fmt: skip
    answer = push_raw(team_server, mal, records)
    assert answer["accepted"] == 0 and len(answer["refused"]) == len(records), answer

    ann = Machine(tmp_path, "ann")
    ann.join(team_server, issue_token(team_server.database, "ann", "core"))
    ann.opt_in()
    ann.seed([], raw=[(f"Refund rounding fixed {ESCAPES}", f"tabs\tand\nlines stay {ESCAPES}")])
    assert ann.sync() == {"pushed": 1, "pending": 0}  # sent without them, not refused
    dump = pg_dump(team_server.database)
    assert "\x1b" not in dump and "\x07" not in dump and "\x9b" not in dump
    assert "Refund rounding fixed" in dump

    assert bob.sync()["pending"] == 0  # the recent cache for SessionStart
    shown = bob.cli("search", "refund", "rounding", "--team")
    assert shown.returncode == 0 and "ann" in shown.stdout, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout


def push_raw(
    server: TeamServer,
    token: str,
    records: list[dict[str, Any]],
    project: str = "github.com/acme/shop",
) -> dict[str, Any]:
    """A push that bypasses the client: the server's answer."""
    import urllib.request

    body = json.dumps({"project": project, "records": records}).encode()
    request = urllib.request.Request(server.url + "/api/v1/push", data=body, method="POST")
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=60) as response:
        return dict(json.loads(response.read()))


# --------------------------------------------------------------------------- the outbox's marks


def test_records_shared_before_an_explicit_project_id_are_shared_under_it(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """A team that sets ``team_project_id`` after sharing for a while (the override the issue
    names) lost its history: the outbox's marks were kept per server and local folder, so the
    rows already pushed under the origin's key were never pushed under the new one, and a
    teammate searching the new key found nothing of them."""
    ann, bob = Machine(tmp_path, "ann"), Machine(tmp_path, "bob", HTTPS_ORIGIN)
    for machine in (ann, bob):
        machine.join(team_server, issue_token(team_server.database, machine.name, "core"))
        machine.opt_in()
    ann.seed(["Flaky payment test needs a frozen clock", "Retry the webhook on 502"])
    assert ann.sync() == {"pushed": 2, "pending": 0}
    for machine in (ann, bob):  # committed in .memory-config.md, pulled by everyone
        machine.opt_in(("team_project_id", "acme-shop"))
    status = json.loads(ann.cli("team", "status", "--json").stdout)
    assert status["project"] == "acme-shop" and status["pending"] == 2
    assert ann.sync() == {"pushed": 2, "pending": 0}
    found = bob.search("flaky", "payment")
    assert found["team"]["project"] == "acme-shop"
    assert [h["author"] for h in team_hits(found)] == ["ann"]


# --------------------------------------------------------------------------- tokens on every route


def test_no_route_answers_anything_but_401_without_a_token(team_server: TeamServer) -> None:
    """Only ``GET /healthz`` answers without a token; a wrong method on an API path answered
    405 before any token was checked (``DELETE /api/v1/push``, ``POST /healthz``)."""
    import http.client
    from urllib.parse import urlsplit

    good = issue_token(team_server.database, "ann", "core")
    paths = ["/healthz", "/api/v1/push", "/api/v1/search", "/api/v1/recent", "/api/v1/whoami",
             "/mcp", "/mcp/", "/api/v1/", "/nope"]  # fmt: skip
    for method in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"):
        for path in paths:
            for token in (None, "ckt_" + "x" * 43):
                conn = http.client.HTTPConnection("127.0.0.1", urlsplit(team_server.url).port)
                head = {"Authorization": f"Bearer {token}"} if token else {}
                conn.request(method, path, body=b"{}" if method != "GET" else None, headers=head)
                status = conn.getresponse().status
                conn.close()
                public = path == "/healthz" and method in ("GET", "HEAD")
                assert status == (200 if public else 401), (method, path, token, status)
    conn = http.client.HTTPConnection("127.0.0.1", urlsplit(team_server.url).port)
    conn.request("DELETE", "/api/v1/push", headers={"Authorization": f"Bearer {good}"})
    assert conn.getresponse().status == 405  # with a valid token, the method is the problem
    conn.close()


def test_mcp_answers_behind_a_proxy_that_keeps_the_public_host(team_server: TeamServer) -> None:
    """The docs put the server behind a TLS-terminating proxy; a proxy that passes the public
    ``Host`` on (Caddy's default, nginx's ``proxy_set_header Host $host``) got 421 "Invalid
    Host header" from ``/mcp`` (the MCP SDK's DNS-rebinding guard for loopback servers) while
    the JSON API answered. Every request needs a bearer token, which no rebinding page has."""
    import http.client
    from urllib.parse import urlsplit

    token = issue_token(team_server.database, "ann", "core")
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for host in ("memory.example.com", "localhost", f"127.0.0.1:{urlsplit(team_server.url).port}"):
        conn = http.client.HTTPConnection("127.0.0.1", urlsplit(team_server.url).port)
        conn.request("POST", "/mcp", body=json.dumps(call), headers={
            "Host": host, "Authorization": f"Bearer {token}", "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream"})  # fmt: skip
        response = conn.getresponse()
        text = response.read().decode()
        conn.close()
        assert response.status == 200 and '"search"' in text, (host, response.status, text)
        conn = http.client.HTTPConnection("127.0.0.1", urlsplit(team_server.url).port)
        conn.request("POST", "/mcp", body=json.dumps(call), headers={
            "Host": host, "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream"})  # fmt: skip
        assert conn.getresponse().status == 401  # still no answer without a token
        conn.close()


# --------------------------------------------------------------------------- dates


def test_a_record_dated_in_the_future_cannot_stay_the_newest(team_server: TeamServer) -> None:
    """``recent`` (SessionStart's "from your team" block) and the search's ties go newest
    first by the time a push states; a record dated in the year 33658 (a hand-made push, a
    clock gone wrong) stayed first forever, above everything the team did after it. The server
    takes a time in the future as the time it received the record."""
    import time
    import urllib.request

    mal = issue_token(team_server.database, "mal", "core")
    ann = issue_token(team_server.database, "ann", "core")
    bob = issue_token(team_server.database, "bob", "core")
    pinned = {"uid": "pinned", "kind": "observation", "type": "decision",
              "title": "Pinned decision about the checkout", "created_at": 10**15}  # fmt: skip
    assert push_raw(team_server, mal, [pinned])["accepted"] == 1
    later = dict(pinned, uid="later", title="Later decision about the checkout",
                 created_at=int(time.time() * 1000) + 60_000)  # fmt: skip
    assert push_raw(team_server, ann, [later])["accepted"] == 1
    request = urllib.request.Request(
        team_server.url + "/api/v1/recent?project=github.com/acme/shop",
        headers={"Authorization": f"Bearer {bob}"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        hits = json.loads(response.read())["results"]
    assert [h["uid"] for h in hits] == ["later", "pinned"]
    assert all(h["created_at"] <= (time.time() + 3600) * 1000 for h in hits)


# --------------------------------------------------------------------------- project identity


def test_a_password_with_an_at_sign_in_the_origin_never_reaches_the_key(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """Credentials in an origin URL are dropped from the project key; a password holding an
    ``@`` (git and curl read the userinfo up to the last ``@`` before the path) left its tail
    in the key: ``ss-w0rd@github.com/acme/shop``, sent to the server and shown, and not the
    project the teammates share."""
    ann = Machine(tmp_path, "ann", "https://ann:p@ss-w0rd@github.com/acme/shop.git")
    ann.join(team_server, issue_token(team_server.database, "ann", "core"))
    done = ann.cli("team", "status", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["project"] == "github.com/acme/shop"
    assert "w0rd" not in done.stdout + done.stderr


def test_a_data_home_that_joins_another_team_shares_its_history_there(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """A push goes into the token's team; re-joining the same server with a token of another
    team kept the marks of the first (they named the server only), so none of the history
    reached the new team and its members found nothing."""
    ann = Machine(tmp_path, "ann")
    ann.join(team_server, issue_token(team_server.database, "ann", "core"))
    ann.opt_in()
    ann.seed(["Flaky payment test needs a frozen clock", "Retry the webhook on 502"])
    assert ann.sync() == {"pushed": 2, "pending": 0}
    ann.join(team_server, issue_token(team_server.database, "ann", "ops"))
    assert json.loads(ann.cli("team", "status", "--json").stdout)["pending"] == 2
    assert ann.sync() == {"pushed": 2, "pending": 0}
    carl = Machine(tmp_path, "carl", HTTPS_ORIGIN)
    carl.join(team_server, issue_token(team_server.database, "carl", "ops"))
    assert [h["author"] for h in team_hits(carl.search("flaky", "payment"))] == ["ann"]
    ann.join(team_server, issue_token(team_server.database, "ann", "ops"))  # a new token
    assert ann.sync() == {"pushed": 0, "pending": 0}  # same team: nothing is sent again


# --------------------------------------------------------------------------- shutdown


def test_sigterm_of_a_single_process_server_is_quiet(database_url: str) -> None:
    """``conkeeper server --workers 1`` (the default on a one-core machine) logged "Exception
    in 'lifespan' protocol" with a traceback on every SIGTERM: the searches' pool was closed
    after the app had told uvicorn its shutdown was complete, so the loop's end cancelled the
    close half-way."""
    import urllib.request

    done = run_cli("server", "init", "--database", database_url)
    assert done.returncode == 0, done.stderr
    token = issue_token(database_url, "ann", "core")
    server = TeamServer(database_url, "--workers", "1").start()
    request = urllib.request.Request(
        server.url + "/api/v1/search?project=github.com/acme/shop&q=payment",
        headers={"Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200
    err = server.stop()  # asserts exit status 0
    assert "Traceback" not in err and "ERROR" not in err, err


# --------------------------------------------------------------------------- the client


def test_the_client_never_follows_a_redirect_with_the_token(tmp_path: Path) -> None:
    """urllib follows redirects and copies the ``Authorization`` header to wherever they
    point: a server (or a proxy, a captive portal on plain http) answering 307 got the token
    sent on to another host. The API never redirects; the client refuses to, in one line that
    names where it was sent."""
    import http.server
    import threading

    seen: list[str | None] = []

    class Catch(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization"))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"user": "ann", "team": "core"}')

        def log_message(self, *args: object) -> None:
            return

    catch = http.server.HTTPServer(("127.0.0.1", 0), Catch)

    class Redirect(Catch):
        def do_GET(self) -> None:
            self.send_response(307)
            self.send_header("Location", f"http://localhost:{catch.server_port}{self.path}")
            self.end_headers()

    redirect = http.server.HTTPServer(("127.0.0.1", 0), Redirect)
    for server in (catch, redirect):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ann = Machine(tmp_path, "ann")
        token = "ckt_" + "Rz7" * 14 + "q"
        done = ann.cli("team", "join", f"http://127.0.0.1:{redirect.server_port}", "--token", token)
    finally:
        for server in (catch, redirect):
            server.shutdown()
    assert seen == []
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "redirect" in done.stderr and f"localhost:{catch.server_port}" in done.stderr
    assert token not in done.stdout + done.stderr


# --------------------------------------------------------------------------- the team block


def test_two_long_project_paths_never_share_their_team_block(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """SessionStart's "from your team" block is read from a cache file named after the local
    project's path, escaped and cut to its last 200 characters: two projects whose long paths
    differ only further up (two clients' checkouts of a service of the same name) shared one
    file, and a session in one was shown the other's teammates' decisions."""
    mal = issue_token(team_server.database, "mal", "core")
    deep = "/".join(["workspace-of-a-consultant"] * 8)
    alpha = Machine(tmp_path / "client-alpha" / deep, "ann", "git@github.com:alpha/payments.git")
    bravo = Machine(tmp_path / "client-bravo" / deep, "ann", "git@github.com:bravo/payments.git")
    bravo.home, bravo.env = alpha.home, alpha.env  # one data home, two projects
    alpha.join(team_server, issue_token(team_server.database, "ann", "core"))
    for machine, key, title in (
        (alpha, "github.com/alpha/payments", "Alpha settles refunds through the ledger queue"),
        (bravo, "github.com/bravo/payments", "Bravo settles refunds by nightly batch"),
    ):
        machine.opt_in()
        machine.seed(["A first note of my own"])  # the project is known locally
        record = {"uid": f"d-{key}", "kind": "observation", "type": "decision", "title": title,
                  "created_at": 1_795_000_000_000}  # fmt: skip
        assert push_raw(team_server, mal, [record], key)["accepted"] == 1
    assert alpha.sync()["pending"] == 0  # writes each project's cache
    for machine, own, other in ((alpha, "Alpha", "Bravo"), (bravo, "Bravo", "Alpha")):
        payload = session_payload(machine, "block-probe", "SessionStart", source="startup")
        done = run_hook(machine, "SessionStart", payload)
        assert done.returncode == 0, done.stderr
        context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        assert f"{own} settles refunds" in context and f"{other} settles" not in context


# --------------------------------------------------------------------------- opting in


def test_only_a_projects_own_config_opts_it_in(tmp_path: Path, team_server: TeamServer) -> None:
    """The project opts in with a key in its own ``.memory-config.md``, so the team shares the
    choice through git; ``config set --global team_sync true`` (or ``CONKEEPER_TEAM_SYNC``)
    shared every project of the machine instead, a private side project included, and a global
    ``team_project_id`` filed all of them under one project on the server."""
    import os

    side = Machine(tmp_path, "ann", "git@github.com:ann/private-side-project.git")
    side.join(team_server, issue_token(team_server.database, "ann", "core"))
    side.seed(["My side project keeps its budget in a spreadsheet"])
    done = side.cli("config", "set", "--global", "team_sync", "true")
    assert done.returncode == 2 and "project" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    home = Path(side.env["HOME"])
    (home / ".claude" / "memory").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "memory" / ".memory-config.md").write_text(
        "---\nteam_sync: true\nteam_project_id: acme-everything\nteam_share_prompts: true\n---\n",
        encoding="utf-8",
    )
    side.env = {**side.env, "CONKEEPER_TEAM_SYNC": "true"}
    synced = side.cli("team", "sync", "--json")
    assert json.loads(synced.stdout) == {"pushed": 0, "pending": 0}, synced.stderr
    assert "acme-everything" not in pg_dump(team_server.database)
    shown = side.cli("config", "get", "team_sync")
    assert shown.stdout.strip() == "false" and "read from a project's" in shown.stderr

    side.opt_in()  # the project itself says so: shared under its own key
    assert side.sync() == {"pushed": 1, "pending": 0}
    status = json.loads(side.cli("team", "status", "--json").stdout)
    assert status["project"] == "github.com/ann/private-side-project"
    off = {**side.env, "CONKEEPER_TEAM_SYNC": "false"}  # turning it off here is the user's call
    status = json.loads(run_cli("team", "status", "--json", cwd=side.root, env=off).stdout)
    assert status["projects"] == []
    assert os.environ.get("CONKEEPER_TEAM_SYNC") is None


# --------------------------------------------------------------------------- batch sizes


def test_a_batch_too_big_for_one_request_is_sent_in_parts(
    tmp_path: Path, team_server: TeamServer
) -> None:
    """A batch is 500 rows and the server takes 16 MiB a request: 500 long prompts in Japanese
    (three bytes a character) made one request the server refused with 413 on every sync, so
    the project's sync never moved again. The client splits a batch to fit."""
    from conkeeper.domain.paths import locate_project
    from conkeeper.domain.privacy import clean_captured
    from conkeeper.storage.sessions import ensure_session, store_prompt
    from conkeeper.storage.store import ensure_project, open_store

    ann = Machine(tmp_path, "ann")
    ann.join(team_server, issue_token(team_server.database, "ann", "core"))
    ann.opt_in(("team_share_prompts", "true"))
    conn = open_store(ann.home / "conkeeper.db")
    session = ensure_session(conn, ensure_project(conn, locate_project(ann.root)), "long-prompts")
    with conn:
        for number in range(1, 501):
            text = clean_captured(f"ログ {number}: " + "支払いの再試行が失敗しました。" * 800)
            assert text is not None
            store_prompt(conn, session, number, text)
    conn.close()
    assert ann.sync() == {"pushed": 500, "pending": 0}


def test_team_status_cleans_the_url_and_the_error_it_shows(tmp_path: Path) -> None:
    """``team status`` printed the joined URL and the failure's text as they came: a URL
    holding a credential (a token in its path) was shown, in the text and in JSON, unredacted.
    Every team-server error is cleaned by the privacy module, and so is the URL shown."""
    secret = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y"
    code = (
        "from conkeeper.services.team import credentials as c; "
        f"c.save('http://127.0.0.1:9/{secret}', 'ckt_x', 'core'); print(c.credentials_path())"
    )
    saved = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, text=True, check=False
    )
    assert saved.returncode == 0, saved.stderr
    assert Path(saved.stdout.strip()).is_file()
    for args in (("team", "status"), ("team", "status", "--json")):
        done = run_cli(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert secret not in done.stdout + done.stderr, done.stdout
        assert "127.0.0.1" in done.stdout
