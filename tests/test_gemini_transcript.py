"""Reading a Gemini CLI chat file's tool uses (``observations.gemini_transcript``)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conkeeper.services.observations.gemini_transcript import (
    gemini_tool_uses,
    looks_like_gemini_chat,
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


def test_a_claude_code_transcript_is_not_taken_for_a_gemini_chat() -> None:
    line = {"type": "user", "sessionId": "s", "cwd": "/p", "message": {"content": "hi"}}
    assert not looks_like_gemini_chat(json.dumps(line).encode())


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000) | st.text(max_size=2000).map(str.encode))
def test_any_bytes_read_as_a_list_of_tools_never_an_error(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chat.jsonl"
        path.write_bytes(data)
        tools = gemini_tool_uses(path)
    assert all(isinstance(t.name, str) and isinstance(t.input, dict) for t in tools)
