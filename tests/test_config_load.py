"""Loading settings: precedence, validation, warnings and broken files (spec F4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conkeeper.domain.config import (
    KEYS,
    Config,
    config_path,
    format_value,
    load_config,
    parse_value,
    token_budget_tokens,
)
from conkeeper.domain.frontmatter import parse_front_matter

SPEC_DEFAULTS = {
    "token_budget": "standard",
    "suggest_memories": True,
    "auto_load": True,
    "output_style": "normal",
    "auto_sync_threshold": 60,
    "hard_block_threshold": 80,
    "context_window_tokens": 200000,
    "observation_hook": True,
    "observation_detail": "full",
    "correction_sensitivity": "low",
    "auto_reflect": True,
    "reflect_depth": "standard",
    "save_interval": 5,
    "sessions_days": 30,
    "extractor": "local",
    "llm_model": "",
    "llm_base_url": "",
    "llm_daily_call_budget": 50,
    "llm_daily_token_budget": 200000,
    "llm_max_input_chars": 12000,
    "obsidian_sync_target": "",
    "project_search_paths": "",
    "staleness_commits": 5,
    "team_sync": False,
    "team_project_id": "",
    "team_share_prompts": False,
}


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A fake home and project; returns (global file, project file, env)."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = {"HOME": str(home), "CONKEEPER_HOME": str(tmp_path / "data")}
    global_file = config_path(None, True, env=env)
    project_file = config_path(project, False)
    global_file.parent.mkdir(parents=True)
    project_file.parent.mkdir(parents=True)
    return global_file, project_file, env


def write(path: Path, body: str) -> None:
    path.write_text(body, encoding="utf-8")


def front(**values: object) -> str:
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in values.items()) + "---\n"


def project_of(project_file: Path) -> Path:
    return project_file.parent.parent.parent


def test_every_spec_key_has_its_default() -> None:
    defaults = Config()
    assert {name: getattr(defaults, name) for name in Config.field_names()} == SPEC_DEFAULTS
    assert {name: spec.default for name, spec in KEYS.items()} == SPEC_DEFAULTS
    assert all(spec.description and "\n" not in spec.description for spec in KEYS.values())


def test_paths(layout: tuple[Path, Path, dict[str, str]]) -> None:
    global_file, project_file, env = layout
    assert global_file == Path(env["HOME"]) / ".claude" / "memory" / ".memory-config.md"
    assert project_file.name == ".memory-config.md"
    assert project_file.parent.name == "memory"
    assert config_path(None, False, env=env) == global_file


def test_no_files_gives_defaults_silently(layout: tuple[Path, Path, dict[str, str]]) -> None:
    _, project_file, env = layout
    loaded = load_config(project_of(project_file), env)
    assert loaded.config == Config()
    assert loaded.warnings == []
    assert set(loaded.sources.values()) == {"default"}


def test_precedence_env_over_project_over_global(
    layout: tuple[Path, Path, dict[str, str]],
) -> None:
    global_file, project_file, env = layout
    write(global_file, front(token_budget="light", save_interval=7, output_style="quiet"))
    write(project_file, front(token_budget="detailed", save_interval=9))
    env = {**env, "CONKEEPER_SAVE_INTERVAL": "0"}
    loaded = load_config(project_of(project_file), env)
    assert loaded.config.output_style == "quiet"
    assert loaded.config.token_budget == "detailed"
    assert loaded.config.save_interval == 0
    assert loaded.sources["output_style"] == "global"
    assert loaded.sources["token_budget"] == "project"
    assert loaded.sources["save_interval"] == "env"
    assert loaded.sources["auto_load"] == "default"
    assert loaded.warnings == []


def test_no_project_reads_only_global(layout: tuple[Path, Path, dict[str, str]]) -> None:
    global_file, _, env = layout
    write(global_file, front(reflect_depth="thorough"))
    loaded = load_config(None, env)
    assert loaded.config.reflect_depth == "thorough"
    assert "project" not in loaded.files


def test_empty_env_value_is_ignored(layout: tuple[Path, Path, dict[str, str]]) -> None:
    _, project_file, env = layout
    loaded = load_config(project_of(project_file), {**env, "CONKEEPER_AUTO_LOAD": "  "})
    assert loaded.config.auto_load is True
    assert loaded.sources["auto_load"] == "default"


def test_invalid_value_warns_once_and_falls_back_to_default(
    layout: tuple[Path, Path, dict[str, str]],
) -> None:
    _, project_file, env = layout
    write(project_file, front(token_budget="huge", auto_sync_threshold="150"))
    loaded = load_config(project_of(project_file), env)
    assert loaded.config.token_budget == "standard"
    assert loaded.config.auto_sync_threshold == 60
    assert len(loaded.warnings) == 2
    budget = next(w for w in loaded.warnings if "token_budget" in w)
    assert str(project_file) in budget
    assert "'huge'" in budget
    assert "economy, light, standard, detailed" in budget
    assert budget.endswith("using default standard")
    assert all("\n" not in w for w in loaded.warnings)


def test_invalid_project_value_falls_back_to_global(
    layout: tuple[Path, Path, dict[str, str]],
) -> None:
    global_file, project_file, env = layout
    write(global_file, front(save_interval=3))
    write(project_file, front(save_interval="often"))
    loaded = load_config(project_of(project_file), env)
    assert loaded.config.save_interval == 3
    assert loaded.sources["save_interval"] == "global"
    assert loaded.warnings == [
        f"{project_file}: key 'save_interval' has invalid value 'often' (expected an integer"
        f" >= 0); using 3 from {global_file}"
    ]


def test_invalid_env_value_names_the_variable(layout: tuple[Path, Path, dict[str, str]]) -> None:
    _, project_file, env = layout
    loaded = load_config(project_of(project_file), {**env, "CONKEEPER_OUTPUT_STYLE": "loud"})
    assert loaded.config.output_style == "normal"
    assert len(loaded.warnings) == 1
    assert "CONKEEPER_OUTPUT_STYLE" in loaded.warnings[0]
    assert "output_style" in loaded.warnings[0]


def test_unknown_key_warns_with_suggestion(layout: tuple[Path, Path, dict[str, str]]) -> None:
    _, project_file, env = layout
    write(project_file, front(token_budgt="light", private="true", zzz_qqq=1))
    loaded = load_config(project_of(project_file), env)
    assert loaded.config == Config()
    assert len(loaded.warnings) == 2  # 'private' is a memory-file key, not unknown
    assert "did you mean 'token_budget'" in loaded.warnings[0]
    assert "zzz_qqq" in loaded.warnings[1]


def test_threshold_order_is_enforced(layout: tuple[Path, Path, dict[str, str]]) -> None:
    _, project_file, env = layout
    write(project_file, front(auto_sync_threshold=70, hard_block_threshold=50))
    loaded = load_config(project_of(project_file), env)
    assert loaded.config.auto_sync_threshold == 70
    assert loaded.config.hard_block_threshold == 80
    assert len(loaded.warnings) == 1
    assert "hard_block_threshold" in loaded.warnings[0]
    write(project_file, front(auto_sync_threshold=90))
    loaded = load_config(project_of(project_file), env)
    assert loaded.config.hard_block_threshold == 90
    assert "hard_block_threshold" in loaded.warnings[0]


def test_lenient_spellings(layout: tuple[Path, Path, dict[str, str]]) -> None:
    _, project_file, env = layout
    text = (
        "\ufeff---\r\n"
        "# comment line\r\n"
        "Token_Budget: 'Economy'   # tiny\r\n"
        'observation_detail: "stubs-only"\r\n'
        "auto_sync_threshold: 55%\r\n"
        "observation_hook: no\r\n"
        "context_window_tokens: 1_000_000\r\n"
        "extractor: claude_cli\r\n"
        "---\r\n# Notes\r\n"
    )
    write(project_file, text)
    loaded = load_config(project_of(project_file), env)
    assert loaded.warnings == []
    c = loaded.config
    assert (c.token_budget, c.observation_detail, c.auto_sync_threshold) == (
        "economy",
        "stubs_only",
        55,
    )
    assert c.observation_hook is False
    assert c.context_window_tokens == 1_000_000
    assert c.extractor == "claude-cli"


def test_unreadable_file_warns_and_uses_defaults(
    layout: tuple[Path, Path, dict[str, str]],
) -> None:
    global_file, project_file, env = layout
    write(global_file, front(token_budget="light"))
    project_file.write_bytes(b"\x00\x01\x02binary\x00")
    loaded = load_config(project_of(project_file), env)
    assert loaded.config.token_budget == "light"  # the global layer still applies
    assert len(loaded.warnings) == 1
    assert str(project_file) in loaded.warnings[0]


def test_config_path_is_a_directory(layout: tuple[Path, Path, dict[str, str]]) -> None:
    _, project_file, env = layout
    project_file.mkdir()
    loaded = load_config(project_of(project_file), env)
    assert loaded.config == Config()
    assert "directory" in loaded.warnings[0]


def test_malformed_front_matter(layout: tuple[Path, Path, dict[str, str]]) -> None:
    _, project_file, env = layout
    write(project_file, "---\nsave_interval: 2\nthis line has no colon\n")
    loaded = load_config(project_of(project_file), env)
    assert loaded.config.save_interval == 2  # readable lines of an unclosed header still count
    assert any("not closed" in w for w in loaded.warnings)
    assert any("expected 'key: value'" in w for w in loaded.warnings)


def test_file_without_front_matter_warns(layout: tuple[Path, Path, dict[str, str]]) -> None:
    _, project_file, env = layout
    write(project_file, "token_budget: light\n")
    loaded = load_config(project_of(project_file), env)
    assert loaded.config == Config()
    assert "front matter" in loaded.warnings[0]


def test_project_at_home_reads_global_once(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    path = config_path(None, True, env=env)
    path.parent.mkdir(parents=True)
    write(path, front(tokn=1))
    loaded = load_config(tmp_path, env)
    assert len(loaded.warnings) == 1
    assert "project" not in set(loaded.sources.values())


def test_token_budget_tokens() -> None:
    assert [token_budget_tokens(p) for p in ("economy", "light", "standard", "detailed")] == [
        1000,
        2000,
        4000,
        8000,
    ]
    assert token_budget_tokens(Config().token_budget) == 4000
    with pytest.raises(ValueError, match="token_budget"):
        token_budget_tokens("huge")


@pytest.mark.parametrize(
    ("key", "raw", "expected"),
    [
        ("suggest_memories", "Yes", True),
        ("auto_reflect", "off", False),
        ("save_interval", "0", 0),
        ("hard_block_threshold", "100", 100),
        ("sessions_days", "+7", 7),
        ("reflect_depth", " THOROUGH ", "thorough"),
        ("llm_base_url", "http://localhost:11434/v1", "http://localhost:11434/v1"),
        ("obsidian_sync_target", "  ~/Vault/Memory  ", "~/Vault/Memory"),
    ],
)
def test_parse_value_accepts(key: str, raw: str, expected: object) -> None:
    assert parse_value(key, raw) == expected


@pytest.mark.parametrize(
    ("key", "raw"),
    [
        ("suggest_memories", "maybe"),
        ("save_interval", "-1"),
        ("save_interval", "5.0"),
        ("auto_sync_threshold", "0"),
        ("auto_sync_threshold", "101%"),
        ("context_window_tokens", "999"),
        ("sessions_days", "0"),
        ("llm_max_input_chars", "10"),
        ("extractor", "gpt"),
        ("llm_base_url", "localhost:8080"),
        ("llm_model", "a\nb"),
        ("nope", "1"),
    ],
)
def test_parse_value_rejects(key: str, raw: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_value(key, raw)
    message = str(info.value)
    assert repr(key) in message
    assert "\n" not in message


@given(key=st.sampled_from(sorted(KEYS)), raw=st.text(max_size=40))
def test_parse_value_only_raises_value_error(key: str, raw: str) -> None:
    try:
        value = parse_value(key, raw)
    except ValueError as exc:
        assert key in str(exc)
        return
    assert isinstance(value, type(KEYS[key].default))


@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    max_examples=60,
)
@given(
    key=st.sampled_from(sorted(k for k, s in KEYS.items() if s.type != "str")),
    raw=st.text(
        st.characters(
            blacklist_categories=("Cs",),
            blacklist_characters="\x00\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029",
        ),
        max_size=12,
    ),
)
def test_invalid_file_value_falls_back(
    layout: tuple[Path, Path, dict[str, str]], key: str, raw: str
) -> None:
    _, project_file, env = layout
    text = f"---\n{key}: '{raw}'\n---\n"
    seen = parse_front_matter(text).values.get(key)
    try:
        parse_value(key, seen if seen is not None else "")
    except ValueError:
        pass
    else:
        return  # the file would hold a valid value; nothing to fall back from
    write(project_file, text)
    loaded = load_config(project_of(project_file), env)
    assert getattr(loaded.config, key) == KEYS[key].default
    assert loaded.sources[key] == "default"
    mentions = [w for w in loaded.warnings if f"key {key!r}" in w]
    assert len(mentions) == 1
    assert mentions[0].endswith(f"using default {format_value(KEYS[key].default)}")


def test_a_latin1_byte_keeps_every_setting_of_the_file(
    layout: tuple[Path, Path, dict[str, str]],
) -> None:
    """One byte that is not UTF-8 (a Latin-1 "caf\xe9" in a comment) once made the whole file
    ignored, its privacy settings with it; now the settings hold and one warning names it."""
    _, project_file, env = layout
    project_file.write_bytes(
        b"---\nobservation_hook: false  # caf\xe9 policy\ntoken_budget: light\n---\n"
    )
    loaded = load_config(project_of(project_file), env)
    assert loaded.config.observation_hook is False
    assert loaded.config.token_budget == "light"
    assert len(loaded.warnings) == 1
    assert "not valid UTF-8" in loaded.warnings[0]
