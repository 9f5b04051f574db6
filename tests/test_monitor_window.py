"""The context monitor measures against the right window (F8/F19): a 1M-context model chosen in
Claude Code's settings or named by the transcript is never blocked at 165k tokens, and when the
window is only assumed the monitor warns instead of blocking. Run through the real
UserPromptSubmit hook subprocess with real-shaped transcripts and settings files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import cli_env, run_cli

SONNET = "claude-sonnet-4-5-20250929"


def _assistant(tokens: int, model: str = SONNET, **message: Any) -> dict[str, Any]:
    return {
        "type": "assistant",
        "isSidechain": False,
        "uuid": "a1",
        "sessionId": "s-1",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "done"}],
            "usage": {
                "input_tokens": 12,
                "cache_creation_input_tokens": 2000,
                "cache_read_input_tokens": tokens - 2012,
                "output_tokens": 300,
            },
            **message,
        },
    }


def _setup(tmp_path: Path, tokens: int, **message: Any) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "memory").mkdir(parents=True)
    transcript = tmp_path / "s-1.jsonl"
    lines = [
        {"type": "user", "isSidechain": False, "message": {"role": "user", "content": "hi"}},
        _assistant(tokens, **message),
    ]
    transcript.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return root, transcript


def _prompt(root: Path, transcript: Path) -> tuple[int, str, str]:
    body = {
        "session_id": "s-1",
        "transcript_path": str(transcript),
        "cwd": str(root),
        "hook_event_name": "UserPromptSubmit",
        "permission_mode": "default",
        "prompt": "keep going with the parser",
    }
    result = run_cli("hook", "UserPromptSubmit", stdin=json.dumps(body), env=cli_env())
    return result.returncode, result.stdout, result.stderr


def _home() -> Path:
    return Path(os.environ["HOME"])


@pytest.mark.parametrize(
    "where",
    [
        "user",  # ~/.claude/settings.json
        "project",  # <project>/.claude/settings.json
        "local",  # <project>/.claude/settings.local.json
    ],
)
def test_1m_model_in_settings_is_not_blocked_at_165k(tmp_path: Path, where: str) -> None:
    root, transcript = _setup(tmp_path, 165_000)
    target = {
        "user": _home() / ".claude" / "settings.json",
        "project": root / ".claude" / "settings.json",
        "local": root / ".claude" / "settings.local.json",
    }[where]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"model": "sonnet[1m]", "permissions": {}}), encoding="utf-8")
    code, out, err = _prompt(root, transcript)
    assert code == 0, err
    assert out.strip() == ""  # 16.5% of 1M: nothing to say


def test_local_settings_override_user_settings(tmp_path: Path) -> None:
    root, transcript = _setup(tmp_path, 170_000)
    user = _home() / ".claude" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"model": "sonnet[1m]"}), encoding="utf-8")
    (root / ".claude" / "settings.local.json").write_text(
        json.dumps({"model": "opus"}), encoding="utf-8"
    )
    code, _out, err = _prompt(root, transcript)
    assert code == 2 and "85% full" in err and "/memory-sync" in err


def test_transcript_beta_names_the_1m_context(tmp_path: Path) -> None:
    root, transcript = _setup(tmp_path, 300_000, betas=["context-1m-2025-08-07"])
    code, out, err = _prompt(root, transcript)
    assert code == 0 and out.strip() == "", err


def test_assumed_window_warns_instead_of_blocking(tmp_path: Path) -> None:
    # a sonnet transcript and no settings: 200k is only assumed (the session may run with
    # 1M via `--model sonnet[1m]`), so the monitor warns instead of blocking
    root, transcript = _setup(tmp_path, 170_000)
    code, out, err = _prompt(root, transcript)
    assert code == 0, err
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "may be 85% full" in context and "assumed 200k" in context
    assert "/memory-sync" in context


def test_known_200k_model_still_blocks_once(tmp_path: Path) -> None:
    root, transcript = _setup(tmp_path, 170_000, model="claude-opus-4-1-20250805")
    code, _out, err = _prompt(root, transcript)
    assert code == 2 and "85% full (170k of 200k tokens)" in err
    code, _out, _err = _prompt(root, transcript)
    assert code == 0  # never twice


def test_broken_settings_file_is_ignored(tmp_path: Path) -> None:
    root, transcript = _setup(tmp_path, 130_000)
    (root / ".claude" / "settings.json").write_text("{not json", encoding="utf-8")
    code, out, err = _prompt(root, transcript)
    assert code == 0, err
    assert "65% full" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


def test_a_fifo_as_settings_or_transcript_never_hangs_the_hook(tmp_path: Path) -> None:
    """A FIFO where a settings file or the transcript belongs: the hook reads past it."""
    root, transcript = _setup(tmp_path, 170_000)
    (root / ".claude" / "settings.json").write_text(json.dumps({"model": "opus"}), "utf-8")
    os.mkfifo(root / ".claude" / "settings.local.json")
    code, _out, err = _prompt(root, transcript)
    assert code == 2 and "85% full" in err  # the other settings still read; the FIFO passed over
    transcript.unlink()
    os.mkfifo(transcript)
    code, out, _err = _prompt(root, transcript)
    assert code == 0 and "Traceback" not in out
