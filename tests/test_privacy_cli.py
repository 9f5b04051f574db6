"""``conkeeper privacy strip|redact|check`` through the real entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

AWS_KEY = "AKIAQ3EGRTXZB7YKM2WD"
HIDDEN_TEXT = "HIDDENTEXT-db-password-hunter2"


def run(
    tmp_path: Path, *args: str, stdin: bytes = b"", cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "CONKEEPER_HOME": str(tmp_path / "data"),
    }
    return subprocess.run(
        [sys.executable, "-m", "conkeeper", "privacy", *args],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=cwd or tmp_path,
        timeout=60,
        check=False,
    )


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    """A project whose memory folder has a private block, a private file and a leaked key."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    folder = root / ".claude" / "memory"
    (folder / "sessions").mkdir(parents=True)
    (folder / "active-context.md").write_text(
        f"# Active\n\n<private>\n{HIDDEN_TEXT} {AWS_KEY}\n</private>\nvisible line\n"
    )
    (folder / "sessions" / "notes.md").write_text(f"deploy with {AWS_KEY} today\n</private>\n")
    (folder / "vault.md").write_text(f"---\nprivate: true\n---\n{HIDDEN_TEXT} {AWS_KEY}\n")
    (folder / "binary.md").write_bytes(b"\x00\x01\x02")
    (folder / "not-markdown.txt").write_text(AWS_KEY)
    return folder


# ----------------------------------------------------------------------------- strip


def test_strip_prints_exactly_the_visible_lines(tmp_path: Path) -> None:
    path = tmp_path / "m.md"
    path.write_bytes(b"a\r\n<private>\r\nsecret\r\n</private>\r\nb\r\n")
    result = run(tmp_path, "strip", str(path))
    assert result.returncode == 0
    assert result.stdout == b"a\nb\n"
    assert result.stderr == b""


def test_strip_prints_nothing_for_a_private_file(tmp_path: Path) -> None:
    path = tmp_path / "m.md"
    path.write_text("---\nPrivate: 'yes'\n---\nsecret\n")
    result = run(tmp_path, "strip", str(path))
    assert (result.returncode, result.stdout) == (0, b"")


def test_strip_json(tmp_path: Path) -> None:
    path = tmp_path / "m.md"
    path.write_text("x\n<private>\nsecret\n</private>\n")
    result = run(tmp_path, "strip", str(path), "--json")
    payload = json.loads(result.stdout)
    assert payload == {"path": str(path), "private": False, "text": "x\n"}


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.md", None, "no such file"),
        ("binary.md", b"ab\x00cd", "binary"),
        ("latin1.md", "caf\xe9".encode("latin-1"), "UTF-8"),
        ("folder", "dir", "directory"),
    ],
)
def test_strip_bad_input_is_one_line_on_stderr(
    tmp_path: Path, name: str, content: bytes | str | None, message: str
) -> None:
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    result = run(tmp_path, "strip", str(path))
    assert result.returncode != 0
    assert result.stdout == b""
    err = result.stderr.decode()
    assert err.count("\n") == 1 and message in err
    assert "Traceback" not in err


# ----------------------------------------------------------------------------- redact


def test_redact_replaces_secrets_from_stdin(tmp_path: Path) -> None:
    result = run(tmp_path, "redact", stdin=f"export KEY={AWS_KEY}\nok\n".encode())
    assert result.returncode == 0
    assert AWS_KEY.encode() not in result.stdout
    assert b"[REDACTED:" in result.stdout
    assert result.stdout.endswith(b"\nok\n")


def test_redact_tolerates_invalid_utf8(tmp_path: Path) -> None:
    result = run(tmp_path, "redact", stdin=b"caf\xe9 " + AWS_KEY.encode())
    assert result.returncode == 0
    assert result.stdout.startswith("caf\ufffd ".encode())
    assert AWS_KEY.encode() not in result.stdout


def test_redact_json_lists_kinds_without_values(tmp_path: Path) -> None:
    result = run(tmp_path, "redact", "--json", stdin=f"a\nkey {AWS_KEY}".encode())
    payload = json.loads(result.stdout)
    assert AWS_KEY not in result.stdout.decode()
    assert payload["redactions"] == [{"kind": "aws-access-key", "line": 2}]


# ----------------------------------------------------------------------------- check


def test_check_defaults_to_project_memory_and_exits_1_on_unprotected_secret(
    tmp_path: Path, memory: Path
) -> None:
    result = run(tmp_path, "check", cwd=memory.parent.parent)
    out = result.stdout.decode()
    assert result.returncode == 1, result.stderr
    assert HIDDEN_TEXT not in out and AWS_KEY not in out
    assert "AKIA…" in out
    assert "active-context.md" in out and "1 private block" in out
    assert "sessions/notes.md" in out and "line 1: possible aws-access-key" in out
    assert "vault.md" in out and "private file" in out
    assert "binary.md" in out and "binary" in out
    assert "not-markdown.txt" not in out
    assert "line 2: </private> without an open <private>" in out


def test_check_json_contract(tmp_path: Path, memory: Path) -> None:
    result = run(tmp_path, "check", str(memory), "--json")
    assert result.returncode == 1
    text = result.stdout.decode()
    assert HIDDEN_TEXT not in text and AWS_KEY not in text
    payload = json.loads(text)
    files = {f["path"]: f for f in payload["files"]}
    assert sorted(files) == ["active-context.md", "binary.md", "sessions/notes.md", "vault.md"]
    active = files["active-context.md"]
    assert active["hidden_blocks"] == 1
    assert active["hidden_ranges"] == [{"start": 3, "end": 5, "reason": "private block"}]
    assert active["secrets"] == []
    assert files["sessions/notes.md"]["secrets"] == [
        {"kind": "aws-access-key", "line": 1, "hint": "AKIA…"}
    ]
    assert files["vault.md"]["private"] is True and files["vault.md"]["secrets"] == []
    assert "binary" in files["binary.md"]["error"]
    assert payload["unprotected_secrets"] == 1 and payload["ok"] is False


def test_check_exits_0_when_every_secret_is_private(tmp_path: Path, memory: Path) -> None:
    (memory / "sessions" / "notes.md").write_text(f"<private>\n{AWS_KEY}\n</private>\n")
    result = run(tmp_path, "check", str(memory))
    assert result.returncode == 0, result.stdout
    assert "No unprotected secrets found." in result.stdout.decode()


def test_check_a_single_file(tmp_path: Path, memory: Path) -> None:
    result = run(tmp_path, "check", str(memory / "sessions" / "notes.md"), "--json")
    payload = json.loads(result.stdout)
    assert [f["path"] for f in payload["files"]] == ["notes.md"]
    assert result.returncode == 1


def test_check_skips_symlinks_leading_outside_with_a_note(tmp_path: Path, memory: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.md").write_text(AWS_KEY)
    (memory / "sessions" / "notes.md").unlink()
    (memory / "linked.md").symlink_to(outside / "leak.md")
    (memory / "linked-dir").symlink_to(outside)
    result = run(tmp_path, "check", str(memory), "--json")
    payload = json.loads(result.stdout)
    assert result.returncode == 0
    assert all("linked" not in f["path"] for f in payload["files"])
    assert any(n.startswith("linked.md: symlink leading outside") for n in payload["notes"])
    assert any(n.startswith("linked-dir: symlink leading outside") for n in payload["notes"])


def test_check_missing_path_and_missing_memory_folder(tmp_path: Path) -> None:
    missing = run(tmp_path, "check", str(tmp_path / "nope"))
    assert missing.returncode == 2
    assert missing.stderr.decode().count("\n") == 1
    (tmp_path / "bare" / ".git").mkdir(parents=True)
    no_memory = run(tmp_path, "check", cwd=tmp_path / "bare")
    assert no_memory.returncode == 2
    assert "conkeeper init" in no_memory.stderr.decode()


def test_check_help_documents_the_exit_codes(tmp_path: Path) -> None:
    result = run(tmp_path, "check", "--help")
    out = result.stdout.decode()
    assert result.returncode == 0
    assert "exit status" in out and "pre-commit" in out
