"""Gemini CLI's PreCompress through the hook entry, with the payload Gemini CLI 0.61 really
sends (captured from ``gemini -p``: base fields and ``trigger``, no token counts) and a chat
file in its JSON-lines shape. It fires before every model call; a handoff checkpoint is due
only when the last reply's prompt tokens reach ``model.compressionThreshold`` (default 0.5)
of the model's window, as Gemini CLI decides. The real CLI runs in test_e2e_gemini_cli.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import run_cli

SESSION = "e5a5f656-25d7-4252-bd0f-cf214c72f903"


def _chat(folder: Path, input_tokens: int, model: str = "gemini-2.5-flash") -> Path:
    """A chat file: header, the user's prompt, one reply with its token counts."""
    path = folder / "chats" / f"session-2026-11-28T01-49-{SESSION[:8]}.jsonl"
    path.parent.mkdir(parents=True)
    reply = {
        "id": "6e5631fc",
        "type": "gemini",
        "content": "",
        "tokens": {"input": input_tokens, "output": 20, "cached": 0, "total": input_tokens + 20},
        "model": model,
    }
    lines = [
        {"sessionId": SESSION, "projectHash": "8cb6", "kind": "main"},
        {"id": "04ecfaa8", "type": "user", "content": [{"text": "hi"}]},
        reply,
        {"$set": {"lastUpdated": "2026-11-28T01:49:35.485Z"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _precompress(project: Path, chat: Path, trigger: str = "auto") -> list[Path]:
    payload = {
        "session_id": SESSION,
        "transcript_path": str(chat),
        "cwd": str(project),
        "hook_event_name": "PreCompress",
        "timestamp": "2026-11-28T01:49:35.276Z",
        "trigger": trigger,
    }
    proc = run_cli(
        "hook", "--host", "gemini", "PreCompress", cwd=project, stdin=json.dumps(payload)
    )
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    return sorted(Path(os.environ["CONKEEPER_HOME"]).glob("handoffs/*/pending-*"))


@pytest.mark.parametrize(
    ("tokens", "model", "threshold", "due"),
    [
        (900, "gemini-2.5-flash", None, False),
        (524_287, "gemini-2.5-flash", None, False),
        (524_288, "gemini-2.5-flash", None, True),
        (300_000, "gemini-2.5-flash", 0.25, True),
        (130_000, "gemma-4-31b-it", None, True),
    ],
)
def test_a_checkpoint_only_when_gemini_will_compress(
    project: Path, tmp_path: Path, tokens: int, model: str, threshold: float | None, due: bool
) -> None:
    if threshold is not None:
        (project / ".gemini").mkdir()
        settings = {"model": {"compressionThreshold": threshold}}
        (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    written = _precompress(project, _chat(tmp_path / "gemini", tokens, model))
    assert bool(written) is due


def test_manual_compress_always_writes(project: Path, tmp_path: Path) -> None:
    assert _precompress(project, _chat(tmp_path / "gemini", 900), trigger="manual")


def test_no_chat_file_is_no_compression(project: Path, tmp_path: Path) -> None:
    assert _precompress(project, tmp_path / "missing.jsonl") == []
