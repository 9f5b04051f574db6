"""Property tests: install then uninstall gives back any pre-existing file byte for byte.

Marker-based formats (Codex's ``config.toml``, Copilot's instructions, Zed's rules file) are
driven through the install service on real files, with arbitrary bytes (non-UTF-8 included) as
the user's content, and with arbitrary bytes the user appends after install. JSON insertion is
checked on the pure planner with arbitrary documents in arbitrary layouts.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conkeeper.domain.config_edit import Put, json_insert, json_remove, remove_spans
from conkeeper.hosts.spec import is_own
from conkeeper.services.setup.agent_install import install_agent
from conkeeper.services.setup.install import InstallError

# agent -> the marker-based file it edits in a project
MARKER_FILES = {
    "codex": ".codex/config.toml",
    "copilot": ".github/copilot-instructions.md",
    "zed": ".rules",
}

user_bytes = st.binary(max_size=400).filter(lambda b: b"conkeeper" not in b.lower())
PROPERTY = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _binary(data: bytes) -> bool:
    """What every write refuses: a NUL in the first 8 KB, or a UTF-16/UTF-32 byte order mark."""
    return b"\x00" in data[:8192] or data.startswith((b"\xff\xfe", b"\xfe\xff"))


def _project(base: str, rel: str, content: bytes) -> tuple[Path, Path]:
    root = Path(base) / "p"
    (root / ".git").mkdir(parents=True)
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return root, path


@PROPERTY
@given(agent=st.sampled_from(sorted(MARKER_FILES)), original=user_bytes, later=user_bytes)
def test_marker_files_round_trip_with_anything_before_and_after(
    agent: str, original: bytes, later: bytes
) -> None:
    rel = MARKER_FILES[agent]
    with tempfile.TemporaryDirectory() as base:
        root, path = _project(base, rel, original)
        if _binary(original):  # UTF-16 or NUL bytes: refused, never written into
            with pytest.raises(InstallError, match=r"UTF-16|NUL"):
                install_agent(agent, "project", cwd=root)
            assert path.read_bytes() == original
            return
        install_agent(agent, "project", cwd=root)
        installed = path.read_bytes()
        assert installed.startswith(original) and len(installed) > len(original)
        install_agent(agent, "project", cwd=root, uninstall=True)
        assert path.read_bytes() == original
        install_agent(agent, "project", cwd=root)
        path.write_bytes(path.read_bytes() + later)  # the user appends after ConKeeper's block
        if _binary(path.read_bytes()):
            kept = path.read_bytes()
            with pytest.raises(InstallError, match=r"UTF-16|NUL"):
                install_agent(agent, "project", cwd=root, uninstall=True)
            assert path.read_bytes() == kept
            return
        install_agent(agent, "project", cwd=root, uninstall=True)
        assert path.read_bytes() == original + later


scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
documents = st.dictionaries(
    st.text(max_size=6).filter(lambda k: k not in ("hooks", "mcpServers", "version")),
    st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
        ),
        max_leaves=8,
    ),
    max_size=5,
)
layouts = st.sampled_from([None, 0, 2, 4, "\t"])

ADDITIONS = {
    "version": Put(1),
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ck hook --host x Stop"}]}]},
    "mcpServers": {"conkeeper": Put({"command": "/d/bin/conkeeper", "args": ["mcp"]})},
}


def _own(path: tuple[Any, ...], value: Any) -> bool:
    return path[:1] in (("hooks",), ("mcpServers",), ("version",)) and (
        len(path) == 1 or is_own(value) or path == ("mcpServers", "conkeeper")
    )


@PROPERTY
@given(document=documents, indent=layouts, crlf=st.booleans())
def test_json_insertion_is_exactly_reversible(
    document: dict[str, Any], indent: int | str | None, crlf: bool
) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=False) + "\n"
    raw = (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
    inserted = json_insert(raw, ADDITIONS)
    data = json.loads(inserted.data)
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"].startswith("ck hook")
    assert data["mcpServers"]["conkeeper"]["args"] == ["mcp"] and data["version"] == 1
    assert {k: v for k, v in data.items() if k in document} == document
    if crlf:
        assert b"\n" not in inserted.data.replace(b"\r\n", b"")
    assert remove_spans(inserted.data, inserted.data, inserted.spans) == raw
    assert json_remove(inserted.data, _own, lambda p: False) == raw


@PROPERTY
@given(document=documents, indent=st.sampled_from([2, 4, "\t"]), value=st.integers())
def test_json_spans_are_found_again_after_a_user_edit(
    document: dict[str, Any], indent: int | str, value: int
) -> None:
    assume(document)
    first = next(iter(document))
    raw = (json.dumps(document, indent=indent, ensure_ascii=False) + "\n").encode()
    inserted = json_insert(raw, ADDITIONS)
    key = json.dumps(first, ensure_ascii=False).encode()
    edited_member = key + b": " + str(value).encode()
    lines = inserted.data.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith(key + b":"))
    if not lines[at].rstrip().endswith((b",", b"{", b"[")) or b"\n" not in lines[at]:
        assume(False)
    ending = b",\n" if lines[at].rstrip().endswith(b",") else b"\n"
    indent_bytes = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    assume(not lines[at].rstrip().endswith((b"{", b"[")))
    lines[at] = indent_bytes + edited_member + ending
    current = b"".join(lines)
    cut = remove_spans(inserted.data, current, inserted.spans)
    assert cut is not None
    expected = json.loads(raw)
    expected[first] = value
    assert json.loads(cut) == expected
