"""Team sync under failure, against a real PostgreSQL: a server killed with SIGKILL in the
middle of a sync, and a server that is down while 200 hook events arrive.

Delivery is at least once (a mark advances only after the server acknowledged a batch) and the
server upserts by uid, so after a restart and another sync the server holds exactly the local
rows, with no duplicates. Hooks never touch the network: with the server down every hook still
exits 0, and the later sync delivers everything.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.conftest import run_cli
from tests.team_support import TeamServer, database_url, issue_token, pg_proc, team_server
from tests.test_team_sync import PROJECT_KEY, Machine, run_hook

__all__ = ["database_url", "pg_proc", "team_server"]  # fixtures used by name


def server_rows(database: str) -> list[tuple[str, str]]:
    import psycopg

    with psycopg.connect(database) as conn:
        return [
            (str(r[0]), str(r[1]))
            for r in conn.execute("SELECT uid, title FROM team_records ORDER BY uid")
        ]


def server_count(database: str) -> int:
    import psycopg

    with psycopg.connect(database) as conn:
        row = conn.execute("SELECT count(*) FROM team_records").fetchone()
    return int(row[0]) if row else 0


def test_kill_9_in_the_middle_of_a_sync_then_restart_delivers_exactly_once(
    tmp_path: Path, team_server: TeamServer
) -> None:
    ann = Machine(tmp_path, "ann")
    ann.join(team_server, issue_token(team_server.database, "ann", "core"))
    ann.opt_in()
    total = ann.seed([f"Observation number {i} about the checkout flow" for i in range(3000)])
    assert total == 3000
    sync = subprocess.Popen(
        [sys.executable, "-m", "conkeeper", "team", "sync", "--json"],
        cwd=ann.root,
        env=ann.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while server_count(team_server.database) == 0:  # the first batch is committed ...
        assert sync.poll() is None, sync.communicate()
    team_server.kill()  # ... and the server dies without any chance to finish
    out, err = sync.communicate(timeout=120)
    first = json.loads(out)
    assert sync.returncode == 1 and "cannot reach the team server" in err
    assert first["pending"] > 0 and first["pushed"] < 3000
    assert 0 < server_count(team_server.database) < 3000

    team_server.start()  # same database, same port
    assert ann.sync()["pending"] == 0
    rows = server_rows(team_server.database)
    assert len(rows) == 3000 and len({uid for uid, _ in rows}) == 3000
    local = sqlite3.connect(ann.home / "conkeeper.db")
    titles = sorted(r[0] for r in local.execute("SELECT title FROM observations"))
    local.close()
    assert sorted(title for _, title in rows) == titles
    assert ann.sync() == {"pushed": 0, "pending": 0}


def test_server_down_while_200_hook_events_arrive_then_sync_delivers_all(
    tmp_path: Path, team_server: TeamServer
) -> None:
    ann = Machine(tmp_path, "ann")
    ann.join(team_server, issue_token(team_server.database, "ann", "core"))
    ann.opt_in()
    team_server.stop()  # down for the whole session

    session = "5e0c1d2a-9b8f-4c7d-a6e5-1f2a3b4c5d6e"

    def payload(event: str, **fields: Any) -> dict[str, Any]:
        return {
            "session_id": session,
            "transcript_path": str(tmp_path / f"{session}.jsonl"),
            "cwd": str(ann.root),
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }

    def tool(turn: int, k: int) -> subprocess.CompletedProcess[str]:
        path = f"src/group{turn}/module_{k}.py"
        return run_hook(
            ann,
            "PostToolUse",
            payload(
                "PostToolUse",
                tool_name="Write",
                tool_input={"file_path": str(ann.root / path), "content": f"X = {k}\n"},
                tool_response={"type": "create", "filePath": str(ann.root / path)},
                tool_use_id=f"toolu_01{turn:04d}{k:016d}",
            ),
        )

    results = [run_hook(ann, "SessionStart", payload("SessionStart", source="startup"))]
    for turn in range(9):  # 9 turns of a prompt and 21 tool uses: 198 events, + start and end
        prompt = f"add the group {turn} modules for the payment service"
        asked = payload("UserPromptSubmit", prompt=prompt)
        results.append(run_hook(ann, "UserPromptSubmit", asked))
        with ThreadPoolExecutor(max_workers=4) as pool:  # hooks of parallel tool calls overlap
            results.extend(pool.map(lambda k, t=turn: tool(t, k), range(21)))
    results.append(run_hook(ann, "SessionEnd", payload("SessionEnd", reason="exit")))
    assert len(results) == 200
    assert [r.returncode for r in results] == [0] * 200
    assert all("Traceback" not in r.stdout + r.stderr for r in results)

    # SessionEnd started extraction (+ a team sync that found the server down) detached; the
    # same extraction on demand waits for that worker's lock, so both are done afterwards.
    done = run_cli("extract", "--session", session, "--quiet", cwd=ann.root, env=ann.env)
    assert done.returncode == 0, done.stderr
    local = sqlite3.connect(ann.home / "conkeeper.db")
    events = local.execute("SELECT count(*) FROM tool_events").fetchone()[0]
    observations = local.execute("SELECT count(*) FROM observations").fetchone()[0]
    summaries = local.execute("SELECT count(*) FROM session_summaries").fetchone()[0]
    local.close()
    assert events == 189 and observations > 0
    pending = json.loads(ann.cli("team", "status", "--json").stdout)
    assert pending["reachable"] is False and pending["pending"] == observations + summaries

    team_server.start()
    assert ann.sync() == {"pushed": observations + summaries, "pending": 0}
    assert server_count(team_server.database) == observations + summaries
    who = json.loads(ann.cli("team", "status", "--json").stdout)
    assert who["server_records"] == observations + summaries and who["project"] == PROJECT_KEY
