"""Reading another host's transcript for its tool uses (``observations.host_transcripts``)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conkeeper.services.observations.host_transcripts import (
    codex_tool_uses,
    gemini_tool_uses,
    looks_like_gemini_chat,
    other_host_tool_uses,
)

HEADER = {"sessionId": "s1", "projectHash": "ab12", "startTime": "2026-11-26T10:00:00Z"}


def _call(call_id: str, output: str) -> dict[str, object]:
    response = {"functionResponse": {"id": call_id, "response": {"output": output}}}
    return {"id": call_id, "name": "web_fetch", "args": {"prompt": "https://x.example"},
            "result": [response], "status": "success"}  # fmt: skip


def test_both_file_shapes_give_each_call_once_with_its_output(tmp_path: Path) -> None:
    grown = {"id": "m1", "type": "gemini", "content": ""}
    lines = [HEADER, grown, {**grown, "toolCalls": [_call("c1", "first page")]},
             {"$set": {"lastUpdated": "x"}}, "not json",
             {"id": "m2", "type": "gemini", "toolCalls": [_call("c2", "second page")]}]  # fmt: skip
    chat = tmp_path / "chat.jsonl"
    chat.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines))
    assert looks_like_gemini_chat(chat.read_bytes())
    tools = gemini_tool_uses(chat)
    assert [(t.id, t.name, t.result_text) for t in tools] == [
        ("c1", "web_fetch", "first page"),
        ("c2", "web_fetch", "second page"),
    ]
    whole = tmp_path / "chat.json"
    messages = [{"type": "gemini", "toolCalls": [_call("c9", "p")]}]
    whole.write_text(json.dumps({**HEADER, "messages": messages}))
    assert [t.result_text for t in gemini_tool_uses(whole)] == ["p"]
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"messages": [{"toolCalls": 5}, {"toolCalls": [
        {"name": "x", "args": 3, "result": [{"functionResponse": "text"}, 7]}]}]}))  # fmt: skip
    assert [(t.name, t.input, t.result_text) for t in gemini_tool_uses(odd)] == [("x", {}, None)]


def test_a_claude_code_transcript_is_neither_host(tmp_path: Path) -> None:
    line = {"type": "user", "sessionId": "s", "cwd": "/p", "message": {"content": "hi"}}
    assert not looks_like_gemini_chat(json.dumps(line).encode())
    claude = tmp_path / "s.jsonl"
    claude.write_text(json.dumps(line) + "\n")
    assert other_host_tool_uses(claude) is None


def test_a_codex_rollout_gives_each_call_with_its_output(tmp_path: Path) -> None:
    def item(payload: dict[str, object]) -> dict[str, object]:
        return {"timestamp": "2026-11-26T10:00:00Z", "type": "response_item", "payload": payload}

    lines = [
        {"timestamp": "2026-11-26T10:00:00Z", "type": "session_meta", "payload": {"id": "s"}},
        item({"type": "function_call", "name": "exec_command", "call_id": "call_1",
              "arguments": json.dumps({"cmd": "curl -s https://x.example/a.md"})}),
        {"type": "event_msg", "payload": {"type": "token_count"}},
        item({"type": "function_call_output", "call_id": "call_1", "output": "Output:\npage"}),
        item({"type": "function_call", "name": "shell", "call_id": "call_2",
              "arguments": json.dumps({"command": ["bash", "-lc", "ls"]})}),
        item({"type": "function_call_output", "call_id": "call_9", "output": "orphan"}),
    ]  # fmt: skip
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text("".join(json.dumps(x) + "\n" for x in lines))
    tools = other_host_tool_uses(rollout)
    assert tools is not None
    assert [(t.name, t.input.get("command"), t.result_text) for t in tools] == [
        ("exec_command", "curl -s https://x.example/a.md", "Output:\npage"),
        ("shell", "bash -lc ls", None),
    ]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000) | st.text(max_size=2000).map(str.encode))
def test_any_bytes_read_as_a_list_of_tools_never_an_error(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chat.jsonl"
        path.write_bytes(data)
        tools = gemini_tool_uses(path) + codex_tool_uses(path)
    assert all(isinstance(t.name, str) and isinstance(t.input, dict) for t in tools)
