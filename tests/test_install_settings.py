"""``conkeeper install`` and ``conkeeper doctor`` against real settings files in a temp HOME."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from conftest import cli_env, run_cli
from conkeeper.services.setup.install import HOOK_SPECS, is_own_command

OTHER = {
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
}


def settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def install(*args: str, cwd: Path | None = None):
    return run_cli("install", *args, cwd=cwd)


def own_events(data: dict) -> set[str]:
    return {
        event
        for event, groups in data.get("hooks", {}).items()
        for group in groups
        for hook in group["hooks"]
        if is_own_command(hook.get("command"))
    }


def test_install_merges_and_is_idempotent(isolated_home: Path) -> None:
    path = settings(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(OTHER, indent=2))
    first = install("--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["agent"] == "claude-code" and report["scope"] == "user" and report["changed"]
    assert [c["action"] for c in report["changes"]] == ["update"]
    data = json.loads(path.read_text())
    assert own_events(data) == {s.event for s in HOOK_SPECS}
    assert data["permissions"] == OTHER["permissions"]
    assert data["hooks"]["Notification"] == OTHER["hooks"]["Notification"]
    assert data["hooks"]["PostToolUse"][0] == OTHER["hooks"]["PostToolUse"][0]
    command = data["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    launcher = Path(cli_env()["CONKEEPER_HOME"]) / "bin" / "conkeeper"
    assert shlex.split(command) == [str(launcher), "hook", "SessionStart"]  # quoted if need be
    before = path.read_bytes()
    second = json.loads(install("--json").stdout)
    assert not second["changed"] and second["changes"][0]["action"] == "unchanged"
    assert path.read_bytes() == before
    assert not list(path.parent.glob("settings.json.bak*"))  # no backup files beside it


def test_uninstall_gives_back_the_original_bytes(isolated_home: Path) -> None:
    path = settings(isolated_home)
    path.parent.mkdir(parents=True)
    original = json.dumps(OTHER).encode()
    path.write_bytes(original)
    assert install().returncode == 0
    result = install("--uninstall", "--json")
    assert json.loads(result.stdout)["changed"]
    assert path.read_bytes() == original
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]
    again = json.loads(install("--uninstall", "--json").stdout)
    assert not again["changed"]


def test_fresh_user_settings_and_full_removal(isolated_home: Path) -> None:
    path = settings(isolated_home)
    result = install()
    assert result.returncode == 0 and "installed for claude-code (user)" in result.stdout
    assert own_events(json.loads(path.read_text()))
    install("--uninstall")
    assert not path.exists() and not path.parent.exists()  # no '{}' left behind


def test_stale_entries_are_replaced(isolated_home: Path) -> None:
    path = settings(isolated_home)
    path.parent.mkdir(parents=True)
    stale = {
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "*",
                    "hooks": [
                        {"type": "command", "command": "/old/python -m conkeeper hook PostToolUse"},
                        {"type": "command", "command": "other-tool"},
                    ],
                }
            ],
            "Notification": [
                {"hooks": [{"type": "command", "command": "/old/python -m conkeeper hook X"}]}
            ],
        }
    }
    path.write_text(json.dumps(stale))
    report = json.loads(install("--json").stdout)
    assert report["changes"][0]["action"] == "update"
    data = json.loads(path.read_text())
    assert "Notification" not in data["hooks"]
    commands = [h["command"] for g in data["hooks"]["PostToolUse"] for h in g["hooks"]]
    assert "other-tool" in commands and not any("/old/python" in c for c in commands)
    assert sum(is_own_command(c) and c.endswith(" hook PostToolUse") for c in commands) == 1


def test_invalid_json_is_refused_untouched(isolated_home: Path) -> None:
    path = settings(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {,}')
    result = install()
    assert result.returncode == 1
    assert "is not valid JSON" in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1
    assert path.read_text() == '{"hooks": {,}'
    assert not list(path.parent.glob("*.bak-*"))


def test_dry_run_writes_nothing(isolated_home: Path) -> None:
    result = install("--dry-run", "--json")
    assert json.loads(result.stdout)["changed"] is True
    assert not settings(isolated_home).exists()
    assert not (Path(cli_env()["CONKEEPER_HOME"]) / "bin").exists()


def test_project_and_local_scopes(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    sub = project / "src"
    sub.mkdir()
    assert install("--scope", "project", cwd=sub).returncode == 0
    assert install("--scope", "local", cwd=sub).returncode == 0
    assert own_events(json.loads((project / ".claude" / "settings.json").read_text()))
    assert own_events(json.loads((project / ".claude" / "settings.local.json").read_text()))


def test_plugin_also_installed_warns(isolated_home: Path) -> None:
    path = settings(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"enabledPlugins": {"conkeeper@conkeeper": True}}))
    result = install()
    assert "plugin is also installed" in result.stderr


def test_doctor_reports_and_exits_by_severity(isolated_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    missing = run_cli("doctor", "--json", cwd=project)
    assert missing.returncode == 1
    checks = {c["name"]: c for c in json.loads(missing.stdout)["checks"]}
    assert checks["hooks"]["status"] == "FAIL" and "conkeeper install" in checks["hooks"]["fix"]
    assert checks["sqlite"]["status"] == "OK" and checks["python"]["status"] == "OK"
    assert checks["project memory"]["status"] == "WARN"
    install(cwd=project)
    (project / ".claude" / "memory").mkdir(parents=True)
    ok = run_cli("doctor", cwd=project)
    assert ok.returncode == 0, ok.stdout
    assert "OK    hooks: installed in settings (user)" in ok.stdout


def test_doctor_flags_log_errors_and_bad_config(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    memory = project / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / ".memory-config.md").write_text("---\nsave_interval: lots\n---\n")
    env = cli_env()
    logs = Path(env["CONKEEPER_HOME"]) / "logs"
    logs.mkdir(parents=True)
    (logs / "conkeeper.log").write_text(
        "2026-01-01T00:00:00 ERROR [1] hook PostToolUse failed\n    Traceback...\n"
    )
    result = run_cli("doctor", "--json", cwd=project)
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["config"]["status"] == "WARN" and "save_interval" in checks["config"]["detail"]
    assert checks["log"]["status"] == "WARN" and "1 recent error" in checks["log"]["detail"]


def test_doctor_fails_on_memory_root_that_is_a_file(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "memory").write_text("oops")
    result = run_cli("doctor", "--json", cwd=project)
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["project memory"]["status"] == "FAIL"
