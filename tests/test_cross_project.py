"""``search --cross-project``: other projects' memory found on disk under the configured roots
(``project_search_paths``), up to three levels deep, refusing symlinks that escape a root,
whether or not ConKeeper ever ran there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import cli_env, run_cli
from conkeeper.services.search.projects import discover, parse_search_paths


def _project(path: Path, note: str) -> Path:
    (path / ".git").mkdir(parents=True)
    memory = path / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "patterns.md").write_text(f"# Patterns\n\n## Notes\n- {note}\n", encoding="utf-8")
    return path


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    code = tmp_path / "code"
    here = _project(code / "here", "local zebrafish note")
    _project(code / "alpha", "alpha uses the zebrafish protocol")
    _project(code / "team" / "svc" / "beta", "beta zebrafish cache")  # depth 3
    _project(code / "a" / "b" / "c" / "deep", "too deep zebrafish")  # depth 4
    _project(code / "node_modules" / "pkg", "vendored zebrafish")
    outside = _project(tmp_path / "elsewhere" / "secret", "escaped zebrafish")
    os.symlink(outside, code / "link-out")
    os.symlink(code / "alpha", code / "link-in")  # stays inside: same project, once
    return code, here


def test_discover_depth_symlinks_and_skips(tmp_path: Path) -> None:
    code, _here = _layout(tmp_path)
    names = sorted(p.name for p in discover([code]))
    assert names == ["alpha", "beta", "here"]


def test_parse_search_paths_expands_home(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    assert parse_search_paths("~/code, /srv/x:~", env) == [
        tmp_path / "code",
        Path("/srv/x"),
        tmp_path,
    ]


def test_cross_project_search_through_the_cli(tmp_path: Path) -> None:
    code, here = _layout(tmp_path)
    env = cli_env(CONKEEPER_PROJECT_SEARCH_PATHS=str(code))
    plain = run_cli("search", "--json", "zebrafish", cwd=here, env=env)
    assert "alpha" not in plain.stdout  # without the flag: this project only
    result = run_cli("search", "--json", "--cross-project", "zebrafish", cwd=here, env=env)
    assert result.returncode == 0, result.stderr
    files = json.dumps(json.loads(result.stdout))
    assert "alpha uses the zebrafish protocol" in files
    assert "beta zebrafish cache" in files
    assert "local zebrafish note" in files
    assert "too deep" not in files and "escaped" not in files and "vendored" not in files


def test_cross_project_without_roots_is_one_clear_error(tmp_path: Path) -> None:
    _code, here = _layout(tmp_path)
    result = run_cli("search", "--cross-project", "zebrafish", cwd=here)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "project_search_paths" in result.stderr


def test_cross_project_keeps_to_the_roots_even_for_known_projects(tmp_path: Path) -> None:
    """A project ConKeeper knows from an earlier session but that lies outside the configured
    roots is searched by --all-projects only, for its memory and its session record alike."""
    from conkeeper.domain.observations import Observation, normalize_observation
    from conkeeper.domain.paths import locate_project
    from conkeeper.storage.observations import insert_observation
    from conkeeper.storage.store import ensure_project, now_ms, open_store

    code, here = _layout(tmp_path)
    known = _project(tmp_path / "elsewhere" / "known", "known zebrafish habitat")
    env = cli_env(CONKEEPER_PROJECT_SEARCH_PATHS=str(code))
    assert run_cli("search", "zebrafish", cwd=known, env=env).returncode == 0  # now known
    os.environ.update({k: v for k, v in env.items() if k in ("HOME", "CONKEEPER_HOME")})
    conn = open_store()
    for folder, title in ((known, "Known zebrafish tank rebuilt"), (here, "Local zebrafish")):
        project = ensure_project(conn, locate_project(folder))
        session = conn.execute(
            "INSERT INTO sessions(host_session_id, project_id, started_at, status) "
            "VALUES (?, ?, ?, 'completed')",
            (f"s-{folder.name}", project, now_ms()),
        ).lastrowid
        obs = normalize_observation(Observation(type="discovery", title=title))
        assert obs is not None and session is not None
        insert_observation(conn, int(session), project, obs, "local", now_ms())
    conn.close()

    def found(*flags: str) -> str:
        args = ("search", "--json", "--sessions", *flags, "zebrafish")
        result = run_cli(*args, cwd=here, env=env)
        assert result.returncode == 0, result.stderr
        return json.dumps(json.loads(result.stdout))

    cross = found("--cross-project")
    assert "alpha uses the zebrafish protocol" in cross and "Local zebrafish" in cross
    assert "known zebrafish habitat" not in cross and "tank rebuilt" not in cross
    every = found("--all-projects")
    assert "known zebrafish habitat" in every and "tank rebuilt" in every
