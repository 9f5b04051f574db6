"""Forget (rows and index entries go together) and export/import round trips."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tests.conftest import cli_env, run_cli

from conkeeper.domain.paths import locate_project
from conkeeper.services.observations.extract import extract_session
from conkeeper.services.observations.replay import load_recording, relocate, replay
from conkeeper.storage.store import open_store

DATA = Path(__file__).parent / "data" / "sessions"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    conn = open_store()
    identity = locate_project(root).identity
    for i, name in enumerate(["bugfix_cart_discount", "feature_rate_limit"]):
        rec = relocate(load_recording(DATA / f"{name}.json"), identity)
        rec["session_id"] = f"s{i}"
        extract_session(conn, replay(conn, rec))
    extract_session(conn, replay(conn, load_recording(DATA / "investigate_ci_build.json")))
    conn.close()
    return root


def counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    tables = (
        "projects", "sessions", "prompts", "tool_events", "observations", "session_summaries",
        "observation_files", "observation_concepts",
    )  # fmt: skip
    out = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
    out["fts_discount"] = conn.execute(
        "SELECT COUNT(*) FROM observations_fts WHERE observations_fts MATCH 'discount'"
    ).fetchone()[0]
    out["prompt_fts"] = conn.execute(
        "SELECT COUNT(*) FROM prompts_fts WHERE prompts_fts MATCH 'discount'"
    ).fetchone()[0]
    conn.close()
    return out


def test_forget_observation_session_project(project: Path, tmp_path: Path) -> None:
    db = tmp_path / "data" / "conkeeper.db"
    start = counts(db)
    assert start["fts_discount"] > 0
    facts = json.loads(run_cli("facts", "discount", "--json", cwd=project).stdout)["results"]
    target = facts[0]["id"]
    assert run_cli("forget", "observation", str(target), "--yes", cwd=project).returncode == 0
    assert run_cli("show", str(target), cwd=project).returncode == 1
    assert counts(db)["observations"] == start["observations"] - 1
    assert run_cli("forget", "session", "s0", cwd=project).returncode == 1  # no terminal, no --yes
    proc = run_cli("forget", "session", "s0", "--yes", "--json", cwd=project)
    assert json.loads(proc.stdout)["prompts"] == 1
    after = counts(db)
    assert after["fts_discount"] == 0 and after["prompt_fts"] == 0
    assert after["sessions"] == start["sessions"] - 1
    assert run_cli("forget", "project", "--yes", cwd=project).returncode == 0
    final = counts(db)
    assert final["projects"] == 1 and final["sessions"] == 1  # the other project survives
    assert final["observation_files"] == sum(
        1 for _ in sqlite3.connect(db).execute("SELECT 1 FROM observation_files")
    )
    assert run_cli("forget", "observation", "424242", "--yes", cwd=project).returncode == 1


def test_export_import_round_trip(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "backup.jsonl"
    mine = tmp_path / "backup.jsonl.tmp"  # a file of the person's that the export once emptied
    mine.write_text("my notes\n")
    assert run_cli("export", "--all", "-o", str(out), cwd=project).returncode == 0
    assert mine.read_text() == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir() if "conkeeper-tmp" in p.name) == []
    first_line = json.loads(out.read_text().splitlines()[0])
    assert first_line["format"] == "conkeeper-export"
    other_home = tmp_path / "machine2"
    env = cli_env(CONKEEPER_HOME=str(other_home))
    proc = run_cli("import", "jsonl", str(out), "--json", cwd=project, env=env)
    assert proc.returncode == 0, proc.stderr
    assert counts(other_home / "conkeeper.db") == counts(tmp_path / "data" / "conkeeper.db")
    again = run_cli("import", "jsonl", str(out), "--json", cwd=project, env=env)
    assert not any(json.loads(again.stdout)["added"].values())
    out2 = tmp_path / "backup2.jsonl"
    run_cli("export", "--all", "-o", str(out2), cwd=project, env=env)
    strip = lambda p: [  # noqa: E731
        {k: v for k, v in json.loads(line).items() if k != "exported_at"}
        for line in p.read_text().splitlines()
    ]
    assert strip(out2) == strip(out)


def test_export_project_scope_and_damaged_import(project: Path, tmp_path: Path) -> None:
    proc = run_cli("export", cwd=project)
    kinds = {json.loads(line)["kind"] for line in proc.stdout.splitlines()}
    assert {"header", "project", "session", "observation", "summary"} <= kinds
    projects = [json.loads(x) for x in proc.stdout.splitlines() if '"kind":"project"' in x]
    assert len(projects) == 1
    broken = tmp_path / "broken.jsonl"
    broken.write_text(proc.stdout.splitlines()[1] + "\n{oops\n" + '{"kind": "session"}\n')
    env = cli_env(CONKEEPER_HOME=str(tmp_path / "m3"))
    result = run_cli("import", "jsonl", str(broken), "--json", cwd=project, env=env)
    assert json.loads(result.stdout)["damaged_lines"] == [2, 3]


MEMORY_FILES = {
    "patterns.md": b"# Patterns\n\n- use snake_case\n",
    "product-context.md": b"# Product\r\n\r\n- caf\xe9 in Latin-1, not UTF-8\r\n",  # not UTF-8
    "active-context.md": b"# Now\n\n<private>\nthe staging password is hunter2\n</private>\n",
    "decisions/ADR-001-tokens.md": b"# ADR-001\n\nJWT with refresh tokens.\n",
    "sessions/2026-01-02-observations.md": b"- 10:00 Bash `pytest` ok\n",
}
GLOBAL_FILES = {"preferences.md": b"# Preferences\n\n- short answers\n\xff\xfe odd bytes\n"}


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".history" not in p.relative_to(folder).parts
    }


def test_export_is_a_full_backup_restored_byte_for_byte(project: Path, tmp_path: Path) -> None:
    """Issue 22: the export holds the project's memory files (and the global ones with
    ``--global``) with the records; import restores them byte for byte, never overwrites a
    file that changed unless ``--overwrite``, and an overwrite can be undone."""
    memory = project / ".claude" / "memory"
    for name, data in MEMORY_FILES.items():
        (memory / name).parent.mkdir(parents=True, exist_ok=True)
        (memory / name).write_bytes(data)
    global_memory = tmp_path / "home" / ".claude" / "memory"
    global_memory.mkdir(parents=True)
    for name, data in GLOBAL_FILES.items():
        (global_memory / name).write_bytes(data)
    out = tmp_path / "full.jsonl"
    proc = run_cli("export", "--global", "--include-private", "-o", str(out), cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "6 memory files" in proc.stderr
    assert out.stat().st_mode & 0o077 == 0  # private blocks inside: readable by the owner only

    # a new machine: no memory, no database
    home2 = tmp_path / "home2"
    project2 = tmp_path / "proj2"
    (project2 / ".git").mkdir(parents=True)
    env = cli_env(HOME=str(home2), CONKEEPER_HOME=str(tmp_path / "data2"))
    proc = run_cli("import", "jsonl", str(out), cwd=project2, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "6 restored" in proc.stdout
    assert _tree(project2 / ".claude" / "memory") == MEMORY_FILES
    assert _tree(home2 / ".claude" / "memory") == GLOBAL_FILES
    assert counts(tmp_path / "data2" / "conkeeper.db")["observations"] == sum(
        1 for line in out.read_text().splitlines() if '"kind":"observation"' in line
    )

    # a file changed since is kept, unless asked; the overwrite is undoable
    patterns = project2 / ".claude" / "memory" / "patterns.md"
    patterns.write_bytes(b"# Patterns\n\n- use snake_case\n- my new line\n")
    again = run_cli("import", "jsonl", str(out), cwd=project2, env=env)
    assert again.returncode == 0 and "Kept 1 memory files that differ" in again.stdout
    assert patterns.read_bytes().endswith(b"- my new line\n")
    forced = run_cli("import", "jsonl", str(out), "--overwrite", cwd=project2, env=env)
    assert forced.returncode == 0 and "1 replaced" in forced.stdout
    assert patterns.read_bytes() == MEMORY_FILES["patterns.md"]
    undo = run_cli("undo", cwd=project2, env=env)
    assert undo.returncode == 0, undo.stderr
    assert patterns.read_bytes().endswith(b"- my new line\n")


def test_import_refuses_memory_paths_that_leave_the_folder(project: Path, tmp_path: Path) -> None:
    import base64
    import hashlib

    data = b"owned\n"
    bad = tmp_path / "bad.jsonl"
    lines = [
        json.dumps(
            {
                "kind": "memory_file",
                "scope": "project",
                "project": "/x",
                "path": path,
                "data": base64.b64encode(data).decode(),
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
        for path in ("../escape.md", "/etc/evil.md", ".history/1.json", "ok.md")
    ]
    bad.write_text("\n".join(lines) + "\n")
    proc = run_cli("import", "jsonl", str(bad), "--json", cwd=project)
    report = json.loads(proc.stdout)["memory_files"]
    assert len(report["refused"]) == 3 and len(report["restored"]) == 1
    assert not (project / ".claude" / "escape.md").exists()
    assert (project / ".claude" / "memory" / "ok.md").read_bytes() == data


def test_a_forgotten_observation_stays_forgotten_through_re_extraction(
    project: Path, tmp_path: Path
) -> None:
    db = tmp_path / "data" / "conkeeper.db"
    conn = sqlite3.connect(db)
    target, session, digest = conn.execute(
        "SELECT o.id, s.host_session_id, o.content_hash FROM observations o "
        "JOIN sessions s ON s.id = o.session_id WHERE s.host_session_id = 's0' LIMIT 1"
    ).fetchone()
    conn.close()
    assert run_cli("forget", "observation", str(target), "--yes", cwd=project).returncode == 0
    again = run_cli("extract", "--session", session, cwd=project)
    assert again.returncode == 0, again.stderr
    conn = sqlite3.connect(db)
    assert conn.execute(
        "SELECT COUNT(*) FROM observations WHERE content_hash = ?", (digest,)
    ).fetchone() == (0,)
    conn.close()


def test_export_leaves_private_text_out_unless_asked(project: Path, tmp_path: Path) -> None:
    """Privacy holds on export by default (private files left out, blocks blanked, secrets
    redacted, and the person told); a file with nothing to hide keeps its bytes, Latin-1 too."""
    memory = project / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "active-context.md").write_bytes(MEMORY_FILES["active-context.md"])
    (memory / "secret.md").write_text("---\nprivate: true\n---\nall mine\n", encoding="utf-8")
    (memory / "patterns.md").write_bytes(MEMORY_FILES["patterns.md"])
    (memory / "product-context.md").write_bytes(MEMORY_FILES["product-context.md"])
    (memory / "keys.md").write_text(
        "- token ghp_Zq8Lk2Pw9Xv4Rt7Yu1Io3Pa6Sd5Fg0Hj2Kl9\n", encoding="utf-8"
    )
    out = tmp_path / "share.jsonl"
    proc = run_cli("export", "-o", str(out), cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "Private content of 3 memory files was left out" in proc.stderr
    assert "--include-private" in proc.stderr
    stdout_export = run_cli("export", cwd=project)
    assert "hunter2" not in stdout_export.stdout and "all mine" not in stdout_export.stdout
    import base64

    files = {
        r["path"]: base64.b64decode(r["data"])
        for r in map(json.loads, out.read_text().splitlines())
        if r["kind"] == "memory_file"
    }
    assert set(files) == {"active-context.md", "keys.md", "patterns.md", "product-context.md"}
    assert b"hunter2" not in files["active-context.md"]
    assert b"ghp_" not in files["keys.md"]
    assert files["patterns.md"] == MEMORY_FILES["patterns.md"]
    assert files["product-context.md"] == MEMORY_FILES["product-context.md"]
