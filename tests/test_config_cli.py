"""``conkeeper config show|get|set`` run as a real subprocess (spec F4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cli_env, run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


def project_file(project: Path) -> Path:
    return project / ".claude" / "memory" / ".memory-config.md"


def global_file(home: Path) -> Path:
    return home / ".claude" / "memory" / ".memory-config.md"


def assert_one_line_error(proc: object, *needles: str) -> None:
    assert proc.returncode != 0  # type: ignore[attr-defined]
    stderr = proc.stderr  # type: ignore[attr-defined]
    assert "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    for needle in needles:
        assert needle in stderr


def test_show_lists_every_key_with_source(project: Path) -> None:
    proc = run_cli("config", "show", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "token_budget" in proc.stdout
    assert "standard" in proc.stdout
    assert "(default)" in proc.stdout
    assert str(project_file(project)) in proc.stdout
    assert run_cli("config", cwd=project).stdout == proc.stdout  # 'show' is the default


def test_show_json_and_warnings_on_stderr(project: Path, isolated_home: Path) -> None:
    path = global_file(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text("---\ntoken_budget: light\nsave_intervl: 3\n---\n", encoding="utf-8")
    proc = run_cli("config", "show", "--json", cwd=project / "src")
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    keys = {record["key"]: record for record in data["keys"]}
    assert keys["token_budget"]["value"] == "light"
    assert keys["token_budget"]["source"] == "global"
    assert keys["auto_load"]["value"] is True
    assert keys["save_interval"] == {**keys["save_interval"], "value": 5, "source": "default"}
    assert data["files"]["project"] == str(project_file(project))
    assert len(data["warnings"]) == 1
    assert proc.stderr.startswith("conkeeper: warning: ")
    assert "did you mean 'save_interval'" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_get_plain_and_json_with_env_override(project: Path) -> None:
    proc = run_cli("config", "get", "save_interval", cwd=project)
    assert (proc.returncode, proc.stdout) == (0, "5\n")
    env = cli_env(CONKEEPER_SAVE_INTERVAL="12")
    proc = run_cli("config", "get", "save_interval", "--json", cwd=project, env=env)
    assert json.loads(proc.stdout) == {
        "key": "save_interval",
        "value": 12,
        "source": "env",
        "default": 5,
    }


def test_set_project_then_get(project: Path) -> None:
    proc = run_cli("config", "set", "token_budget", "detailed", cwd=project / "src")
    assert proc.returncode == 0, proc.stderr
    assert str(project_file(project)) in proc.stdout
    text = project_file(project).read_text(encoding="utf-8")
    assert "token_budget: detailed" in text
    proc = run_cli("config", "get", "token_budget", "--json", cwd=project)
    assert json.loads(proc.stdout)["source"] == "project"


def test_set_preserves_existing_file(project: Path) -> None:
    path = project_file(project)
    path.parent.mkdir(parents=True)
    original = b"---\r\n# mine\r\nauto_load: true  # keep me\r\n---\r\nNotes: here\r\n"
    path.write_bytes(original)
    proc = run_cli("config", "set", "auto_load", "no", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert path.read_bytes() == original.replace(b"auto_load: true ", b"auto_load: false")


def test_set_global_and_shadow_warning(project: Path, isolated_home: Path) -> None:
    proc = run_cli("config", "set", "reflect_depth", "thorough", "--global", "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "key": "reflect_depth",
        "value": "thorough",
        "path": str(global_file(isolated_home)),
    }
    assert not project_file(project).exists()
    assert run_cli("config", "get", "reflect_depth", cwd=project).stdout == "thorough\n"
    run_cli("config", "set", "reflect_depth", "minimal", cwd=project)
    proc = run_cli("config", "set", "reflect_depth", "standard", "--global", cwd=project)
    assert proc.returncode == 0
    assert "overridden by the project config" in proc.stderr


def test_set_with_env_override_warns(project: Path) -> None:
    env = cli_env(CONKEEPER_OUTPUT_STYLE="quiet")
    proc = run_cli("config", "set", "output_style", "verbose", cwd=project, env=env)
    assert proc.returncode == 0
    assert "CONKEEPER_OUTPUT_STYLE" in proc.stderr


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("set", "token_budget", "huge"), ("token_budget", "economy, light, standard, detailed")),
        (("set", "tokn_budget", "light"), ("did you mean 'token_budget'",)),
        (("get", "nothing_like_it"), ("unknown key", "save_interval")),
        (("set", "hard_block_threshold", "120"), ("from 1 to 100",)),
        (("set", "auto_load", "perhaps"), ("true or false",)),
    ],
)
def test_errors_are_one_line(project: Path, args: tuple[str, ...], needles: tuple[str]) -> None:
    proc = run_cli("config", *args, cwd=project)
    assert_one_line_error(proc, *needles)
    assert not project_file(project).exists()


def test_set_refuses_binary_and_unclosed_files(project: Path) -> None:
    path = project_file(project)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x00\x00binary")
    assert_one_line_error(run_cli("config", "set", "auto_load", "true", cwd=project), "binary")
    path.write_text("---\nauto_load: true\n", encoding="utf-8")
    assert_one_line_error(run_cli("config", "set", "auto_load", "false", cwd=project), "not closed")
    assert path.read_text(encoding="utf-8") == "---\nauto_load: true\n"


def test_show_survives_a_binary_config(project: Path) -> None:
    path = project_file(project)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x00\x00binary")
    proc = run_cli("config", "get", "token_budget", cwd=project)
    assert proc.returncode == 0
    assert proc.stdout == "standard\n"
    assert "binary" in proc.stderr
    assert "Traceback" not in proc.stderr
