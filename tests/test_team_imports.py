"""What an import brings into a shared project is shared like what was captured, against a real
PostgreSQL and the real CLI (``export``, ``import jsonl``, ``team sync``).

A backup carries its summaries' own dates, older than what the sync has pushed already; the
outbox goes by when a row was stored here, so an imported summary is pushed all the same.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import cli_env
from tests.team_support import TeamServer, database_url, issue_token, pg_proc, team_server
from tests.test_team_forget import seed_summary, server_records
from tests.test_team_sync import HTTPS_ORIGIN, Machine, team_hits

__all__ = ["database_url", "pg_proc", "team_server"]  # fixtures used by name

DAY_MS = 86_400_000


def test_an_imported_backup_s_summaries_and_observations_reach_the_team(
    tmp_path: Path, team_server: TeamServer
) -> None:
    ann, bob = Machine(tmp_path, "ann"), Machine(tmp_path, "bob", HTTPS_ORIGIN)
    ann.join(team_server, issue_token(team_server.database, "ann", "core"))
    bob.join(team_server, issue_token(team_server.database, "bob", "core"))
    ann.opt_in()
    seed_summary(ann, "ann-session", "wire the checkout to the new tax service")
    assert ann.sync() == {"pushed": 1, "pending": 0}  # the summaries' mark is now

    # the same clone's records from another data home (ann's old laptop), a day older
    laptop = Machine(tmp_path, "laptop")
    laptop.root = ann.root
    laptop.env = cli_env(CONKEEPER_HOME=str(laptop.home))
    laptop.seed(["Quasar tax rounding happens per line"], into="laptop-session")
    seed_summary(laptop, "laptop-session", "move quasar tax rounding to the invoice", DAY_MS)
    backup = tmp_path / "laptop.jsonl"
    done = laptop.cli("export", "--no-memory", "-o", str(backup))
    assert done.returncode == 0, done.stderr

    imported = ann.cli("import", "jsonl", str(backup), "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["added"]["summaries"] == 1
    assert ann.sync() == {"pushed": 2, "pending": 0}
    kinds = sorted(r["kind"] for r in server_records(team_server.database).values())
    assert kinds == ["observation", "summary", "summary"]
    found = team_hits(bob.search("quasar", "invoice"))
    assert "move quasar tax rounding to the invoice" in [h["title"] for h in found]
    assert ann.sync() == {"pushed": 0, "pending": 0}  # imported once, pushed once
