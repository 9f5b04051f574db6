"""Writing settings: ``set_value`` changes one line and keeps every other byte (spec F4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conkeeper.domain.config import KEYS, KeySpec, load_config, parse_value, set_value
from conkeeper.domain.textio import MemoryFileError

SEED_FILE = (
    "---\r\n"
    "# Existing fields...\r\n"
    "token_budget: standard\r\n"
    "suggest_memories: true\r\n"
    "\r\n"
    "# New fields (Phase 04+)\r\n"
    "observation_hook: true          # Enable/disable PostToolUse observation logging\r\n"
    "observation_detail: full        # full | stubs_only | off\r\n"
    "---\r\n"
    "\r\n"
    "# Memory configuration\r\n"
    "Free text: with a colon, kept as is.\r\n"
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "CONKEEPER_HOME": str(tmp_path / "data")}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".claude" / "memory").mkdir(parents=True)
    return root


def config_file(project: Path) -> Path:
    return project / ".claude" / "memory" / ".memory-config.md"


def changed_lines(before: bytes, after: bytes) -> list[tuple[bytes, bytes]]:
    old, new = before.split(b"\n"), after.split(b"\n")
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_set_changes_only_that_line_keeping_crlf_and_comment(project: Path) -> None:
    path = config_file(project)
    path.write_bytes(SEED_FILE.encode())
    set_value(path, "observation_hook", "off")
    after = path.read_bytes()
    assert changed_lines(SEED_FILE.encode(), after) == [
        (
            b"observation_hook: true          # Enable/disable PostToolUse observation logging\r",
            b"observation_hook: false         # Enable/disable PostToolUse observation logging\r",
        )
    ]


def test_longer_value_keeps_at_least_one_space_before_comment(project: Path) -> None:
    path = config_file(project)
    path.write_bytes(SEED_FILE.encode())
    set_value(path, "observation_detail", "stubs_only")
    assert b"observation_detail: stubs_only  # full | stubs_only | off\r\n" in path.read_bytes()
    path.write_text("---\nextractor: local # short\n---\n", encoding="utf-8")
    set_value(path, "extractor", "claude-agent-sdk")
    assert path.read_text(encoding="utf-8") == "---\nextractor: claude-agent-sdk # short\n---\n"


def test_missing_key_is_inserted_before_closing_fence(project: Path) -> None:
    path = config_file(project)
    path.write_bytes(SEED_FILE.encode())
    set_value(path, "save_interval", "10")
    text = path.read_bytes().decode()
    assert text == SEED_FILE.replace(
        "full | stubs_only | off\r\n---", "full | stubs_only | off\r\nsave_interval: 10\r\n---"
    )


def test_file_without_front_matter_gains_one(project: Path) -> None:
    path = config_file(project)
    path.write_text("# My notes\n\nSome text.\n", encoding="utf-8")
    set_value(path, "auto_load", "false")
    assert (
        path.read_text(encoding="utf-8") == "---\nauto_load: false\n---\n# My notes\n\nSome text.\n"
    )


def test_missing_file_and_folder_are_created(tmp_path: Path) -> None:
    path = tmp_path / "new" / ".claude" / "memory" / ".memory-config.md"
    set_value(path, "token_budget", "Light")
    text = path.read_text(encoding="utf-8")
    assert text.replace(os.linesep, "\n") == "---\ntoken_budget: light\n---\n"


def test_bom_key_case_and_other_keys_preserved(project: Path, env: dict[str, str]) -> None:
    path = config_file(project)
    original = "\ufeff---\nToken_Budget:   detailed\nunknown_thing: 1\nprivate: false\n---\nbody"
    path.write_text(original, encoding="utf-8")
    set_value(path, "token_budget", "economy")
    assert path.read_text(encoding="utf-8") == original.replace("detailed", "economy")
    assert load_config(project, env).config.token_budget == "economy"


def test_duplicate_key_lines_all_follow(project: Path, env: dict[str, str]) -> None:
    path = config_file(project)
    path.write_text("---\nsave_interval: 1\nsave_interval: 2\n---\n", encoding="utf-8")
    set_value(path, "save_interval", "3")
    assert path.read_text(encoding="utf-8") == "---\nsave_interval: 3\nsave_interval: 3\n---\n"


def test_indented_and_comment_lines_are_not_keys(project: Path) -> None:
    path = config_file(project)
    original = "---\n# save_interval: 9\nnested:\n  save_interval: 8\n---\n"
    path.write_text(original, encoding="utf-8")
    set_value(path, "save_interval", "1")
    assert path.read_text(encoding="utf-8") == original.replace(
        "  save_interval: 8\n", "  save_interval: 8\nsave_interval: 1\n"
    )


def test_invalid_value_or_key_leaves_file_untouched(project: Path) -> None:
    path = config_file(project)
    path.write_bytes(SEED_FILE.encode())
    for key, value in (("token_budget", "huge"), ("tokens", "1"), ("save_interval", "-3")):
        with pytest.raises(ValueError):
            set_value(path, key, value)
    assert path.read_bytes() == SEED_FILE.encode()


def test_unclosed_front_matter_is_refused(project: Path) -> None:
    path = config_file(project)
    path.write_text("---\ntoken_budget: light\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not closed"):
        set_value(path, "token_budget", "economy")
    assert path.read_text(encoding="utf-8") == "---\ntoken_budget: light\n"


def test_binary_file_is_refused(project: Path) -> None:
    path = config_file(project)
    path.write_bytes(b"\x00\x01binary")
    with pytest.raises(MemoryFileError, match="binary"):
        set_value(path, "auto_load", "true")
    assert path.read_bytes() == b"\x00\x01binary"


def test_a_latin1_file_is_edited_with_its_bytes_kept(project: Path, env: dict[str, str]) -> None:
    """`config set` on a file with a Latin-1 byte changes the key's line and carries the byte
    through, instead of refusing the file."""
    path = config_file(project)
    path.write_bytes(b"---\nauto_load: true  # caf\xe9\ntoken_budget: light\n---\n")
    set_value(path, "token_budget", "economy")
    assert path.read_bytes() == b"---\nauto_load: true  # caf\xe9\ntoken_budget: economy\n---\n"
    assert load_config(project, env).config.token_budget == "economy"


def test_symlinked_config_is_edited_in_place(project: Path, tmp_path: Path) -> None:
    real = config_file(project).parent / "real-config.md"
    real.write_text("---\nauto_load: true\n---\n", encoding="utf-8")
    config_file(project).symlink_to(real.name)
    set_value(config_file(project), "auto_load", "false")
    assert config_file(project).is_symlink()
    assert real.read_text(encoding="utf-8") == "---\nauto_load: false\n---\n"


def test_strings_that_need_quotes(project: Path, env: dict[str, str]) -> None:
    path = config_file(project)
    for value in ("a # b", "#hash", "'quoted'", '"double"', "it's", "x: y"):
        set_value(path, "llm_model", value)
        loaded = load_config(project, env)
        assert loaded.config.llm_model == value
        assert loaded.warnings == []


def test_empty_string_is_written_explicitly(project: Path, env: dict[str, str]) -> None:
    path = config_file(project)
    path.write_text("---\nllm_model: opus # pick one\n---\n", encoding="utf-8")
    set_value(path, "llm_model", "")
    assert path.read_text(encoding="utf-8") == '---\nllm_model: ""   # pick one\n---\n'
    assert load_config(project, env).sources["llm_model"] == "project"


def _valid_raw(spec: KeySpec) -> st.SearchStrategy[str]:
    if spec.type == "bool":
        return st.sampled_from(["true", "false", "Yes", "no", "ON", "off", "1", "0"])
    if spec.type == "int":
        hi = spec.max if spec.max is not None else (spec.min or 0) + 10**9
        numbers = st.integers(min_value=spec.min, max_value=hi).map(str)
        if spec.percent:
            return st.one_of(numbers, numbers.map(lambda n: n + "%"))
        return numbers
    if spec.type == "enum":
        return st.sampled_from(spec.allowed or ()).flatmap(
            lambda choice: st.sampled_from([choice, choice.upper(), choice.title()])
        )
    line = st.text(
        st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\x85"),
        max_size=30,
    )
    if spec.url:
        host = st.from_regex(r"[a-z0-9.-]{1,20}(:[0-9]{1,5})?", fullmatch=True)
        schemes = st.sampled_from(["http", "https"])
        tails = st.sampled_from(["", "/v1", "/api/x?y=1"])
        return st.builds(lambda scheme, h, p: f"{scheme}://{h}{p}", schemes, host, tails)
    return line


@st.composite
def key_and_valid_raw(draw: st.DrawFn) -> tuple[str, str]:
    key = draw(st.sampled_from(sorted(KEYS)))
    return key, draw(_valid_raw(KEYS[key]))


@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    max_examples=150,
)
@given(pair=key_and_valid_raw())
def test_valid_values_round_trip(project: Path, env: dict[str, str], pair: tuple[str, str]) -> None:
    key, raw = pair
    try:
        expected = parse_value(key, raw)
    except ValueError:
        return  # free text can be unwritable (e.g. both quote kinds around ' #'): refused early
    path = config_file(project)
    path.write_bytes(SEED_FILE.encode())
    other_keys = {"auto_sync_threshold", "hard_block_threshold"}
    set_value(path, key, raw)
    loaded = load_config(project, env)
    if key in other_keys:
        assert loaded.config.auto_sync_threshold <= loaded.config.hard_block_threshold
        if not loaded.warnings:
            assert getattr(loaded.config, key) == expected
    else:
        assert loaded.warnings == []
        assert getattr(loaded.config, key) == expected
        assert loaded.sources[key] == "project"
    assert _body(path.read_bytes()) == _body(SEED_FILE.encode())


def _body(data: bytes) -> bytes:
    """What follows the closing fence: the line that is ``---`` alone (a value such as
    ``http://---`` ends with those characters too; hypothesis found it)."""
    lines = data.splitlines(keepends=True)
    fences = [i for i, line in enumerate(lines) if line.rstrip(b"\r\n") == b"---"]
    return b"".join(lines[fences[1] + 1 :])
