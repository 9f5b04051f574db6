"""ConKeeper's settings: one schema, one loader, one careful writer.

Every feature reads configuration through :func:`load_config`, so a key means the same thing in
a hook, the CLI and a skill. Sources, strongest first: ``CONKEEPER_<KEY>`` environment
variables (automation), the project's ``.claude/memory/.memory-config.md``, the global
``~/.claude/memory/.memory-config.md``, then the built-in defaults. Settings live in the file's
flat YAML front matter.

A bad setting must never break a hook: an invalid value, an unknown key or an unreadable file
becomes one warning message (collected in :class:`LoadedConfig`, printed or logged by the
caller) and the value falls back to the next weaker source. Warning messages carry no
``conkeeper: warning:`` prefix; the CLI adds it with ``cli.output.warn`` and hooks log them.

:func:`set_value` edits a config file the way a person would: only the key's line changes,
keeping its trailing comment, every other line, the body, the BOM and the line endings.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from conkeeper.domain.frontmatter import (
    BOM,
    parse_bool,
    parse_front_matter,
    strip_inline_comment,
    unquote,
)
from conkeeper.domain.lazy_re import LazyPattern
from conkeeper.domain.paths import global_memory_dir, project_memory_dir
from conkeeper.domain.records import FrozenRecord, Record
from conkeeper.domain.textio import MemoryFileError, read_text_lenient

CONFIG_FILENAME = ".memory-config.md"
# Keys that send memory, session records or the user's API keys off this machine (an LLM
# endpoint and its provider, team sharing, a synced copy): the user's to change, never an
# agent's, whom a page it read could tell to point them at a collector.
OUTBOUND_KEYS = frozenset(
    {
        "extractor",
        "llm_base_url",
        "team_sync",
        "team_project_id",
        "team_share_prompts",
        "obsidian_sync_target",
    }
)

# Keys only a project's own file may turn on: the team shares the choice through git, and a
# global file or an environment variable would share every project of the machine (a private
# one included) or file all of them under one project on the server. From there a value may
# only turn sharing off.
PROJECT_KEYS = frozenset({"team_sync", "team_project_id", "team_share_prompts"})

ENV_PREFIX = "CONKEEPER_"
MAX_CONFIG_BYTES = 256 * 1024

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Literal

    Value = bool | int | str
    KeyType = Literal["bool", "int", "enum", "str"]

# Front-matter keys that belong to every memory file, not to the config schema.
_SHARED_FILE_KEYS = frozenset({"private"})

TOKEN_BUDGETS: dict[str, int] = {
    "economy": 1000,
    "light": 2000,
    "standard": 4000,
    "detailed": 8000,
}


class KeySpec(FrozenRecord):
    """One setting: its type, default, allowed values or bounds, and a one-line description."""

    __slots__ = (
        "allowed",
        "default",
        "description",
        "ident",
        "max",
        "min",
        "name",
        "percent",
        "type",
        "url",
    )
    name: str
    type: KeyType
    default: Value
    description: str
    allowed: tuple[str, ...] | None
    min: int | None
    max: int | None
    percent: bool
    url: bool
    ident: bool

    def __init__(
        self,
        name: str,
        type: KeyType,
        default: Value,
        description: str,
        allowed: tuple[str, ...] | None = None,
        min: int | None = None,
        max: int | None = None,
        percent: bool = False,
        url: bool = False,
        ident: bool = False,
    ) -> None:
        self._set(
            name=name,
            type=type,
            default=default,
            description=description,
            allowed=allowed,
            min=min,
            max=max,
            percent=percent,
            url=url,
            ident=ident,
        )

    def expected(self) -> str:
        """What a valid value looks like, for error and warning messages."""
        if self.type == "bool":
            return "true or false"
        if self.type == "enum":
            return "one of " + ", ".join(self.allowed or ())
        if self.type == "int":
            unit = "a percentage" if self.percent else "an integer"
            if self.min is not None and self.max is not None:
                return f"{unit} from {self.min} to {self.max}"
            if self.min is not None:
                return f"{unit} >= {self.min}"
            return unit
        if self.url:
            return "an http:// or https:// URL, or empty"
        if self.ident:
            return "letters, digits and . _ - : / @ + (no spaces, at most 200), or empty"
        return "a single line of text"


def _enum(name: str, default: str, allowed: tuple[str, ...], description: str) -> KeySpec:
    return KeySpec(name, "enum", default, description, allowed=allowed)


def _bool(name: str, default: bool, description: str) -> KeySpec:
    return KeySpec(name, "bool", default, description)


def _int(
    name: str, default: int, description: str, lo: int, hi: int | None = None, percent: bool = False
) -> KeySpec:
    return KeySpec(name, "int", default, description, min=lo, max=hi, percent=percent)


def _str(name: str, description: str, url: bool = False, ident: bool = False) -> KeySpec:
    return KeySpec(name, "str", "", description, url=url, ident=ident)


_SPECS: tuple[KeySpec, ...] = (
    _enum(
        "token_budget",
        "standard",
        tuple(TOKEN_BUDGETS),
        "How much memory SessionStart injects (economy 1k, light 2k, standard 4k, detailed 8k"
        " tokens)",
    ),
    _bool("suggest_memories", True, "Suggest saving notable facts to memory"),
    _bool("auto_load", True, "Inject memory into the context at session start"),
    _enum("output_style", "normal", ("quiet", "normal", "verbose"), "How chatty ConKeeper is"),
    _int(
        "auto_sync_threshold",
        60,
        "Context use (%) at which a memory sync is requested",
        1,
        100,
        percent=True,
    ),
    _int(
        "hard_block_threshold",
        80,
        "Context use (%) at which work stops until memory is synced",
        1,
        100,
        percent=True,
    ),
    _int(
        "context_window_tokens",
        200000,
        "Context window size assumed when the model's is unknown",
        1000,
    ),
    _bool("observation_hook", True, "Log every tool use to the session observation file"),
    _enum(
        "observation_detail",
        "full",
        ("full", "stubs_only", "off"),
        "Detail of observation entries (full, one-line stubs, or none)",
    ),
    _enum(
        "correction_sensitivity",
        "low",
        ("low", "medium", "high"),
        "How eagerly user corrections and friction are detected",
    ),
    _bool("auto_reflect", True, "Run a reflection after a memory sync"),
    _enum(
        "reflect_depth",
        "standard",
        ("minimal", "standard", "thorough"),
        "Depth of the after-action review",
    ),
    _int("save_interval", 5, "Remind to save memory every N tool uses (0 = off)", 0),
    _int("sessions_days", 30, "Days of session files that 'search --sessions' covers", 1),
    _enum(
        "extractor",
        "local",
        ("local", "claude-cli", "claude-agent-sdk", "anthropic", "openai"),
        "What turns tool events into observations",
    ),
    _str("llm_model", "Model name for LLM extractors (empty = the provider's default)"),
    _str("llm_base_url", "API base URL for LLM extractors (empty = provider default)", url=True),
    _int("llm_daily_call_budget", 50, "Most LLM extractor calls per day (0 = none)", 0),
    _int("llm_daily_token_budget", 200000, "Most LLM extractor tokens per day (0 = none)", 0),
    _int(
        "llm_max_input_chars", 12000, "Largest input sent to an LLM extractor, in characters", 1000
    ),
    _str("obsidian_sync_target", "Obsidian vault folder to mirror memory into (empty = off)"),
    _str(
        "project_search_paths",
        "Folders whose projects 'search --cross-project' searches (':' or ',' separated)",
    ),
    _int(
        "staleness_commits",
        5,
        "Flag a memory file at session start when more commits than this landed since it "
        "last changed (0 = off)",
        0,
    ),
    _bool(
        "team_sync",
        False,
        "Share this project's observations and summaries with the team server "
        "('conkeeper team join' first)",
    ),
    _str(
        "team_project_id",
        "The project's id on the team server (empty = the normalized git origin URL)",
        ident=True,
    ),
    _bool("team_share_prompts", False, "With team_sync, share the prompts too"),
)

KEYS: dict[str, KeySpec] = {spec.name: spec for spec in _SPECS}


class Config(FrozenRecord):
    """Effective settings, one typed attribute per key in :data:`KEYS` (immutable; use
    :meth:`replace` for a changed copy). The defaults repeat the schema's, which a test checks.
    """

    __slots__ = tuple(KEYS)
    token_budget: str
    suggest_memories: bool
    auto_load: bool
    output_style: str
    auto_sync_threshold: int
    hard_block_threshold: int
    context_window_tokens: int
    observation_hook: bool
    observation_detail: str
    correction_sensitivity: str
    auto_reflect: bool
    reflect_depth: str
    save_interval: int
    sessions_days: int
    extractor: str
    llm_model: str
    llm_base_url: str
    llm_daily_call_budget: int
    llm_daily_token_budget: int
    llm_max_input_chars: int
    obsidian_sync_target: str
    project_search_paths: str
    staleness_commits: int
    team_sync: bool
    team_project_id: str
    team_share_prompts: bool

    def __init__(
        self,
        *,
        token_budget: str = "standard",
        suggest_memories: bool = True,
        auto_load: bool = True,
        output_style: str = "normal",
        auto_sync_threshold: int = 60,
        hard_block_threshold: int = 80,
        context_window_tokens: int = 200000,
        observation_hook: bool = True,
        observation_detail: str = "full",
        correction_sensitivity: str = "low",
        auto_reflect: bool = True,
        reflect_depth: str = "standard",
        save_interval: int = 5,
        sessions_days: int = 30,
        extractor: str = "local",
        llm_model: str = "",
        llm_base_url: str = "",
        llm_daily_call_budget: int = 50,
        llm_daily_token_budget: int = 200000,
        llm_max_input_chars: int = 12000,
        obsidian_sync_target: str = "",
        project_search_paths: str = "",
        staleness_commits: int = 5,
        team_sync: bool = False,
        team_project_id: str = "",
        team_share_prompts: bool = False,
    ) -> None:
        self._set(
            token_budget=token_budget,
            suggest_memories=suggest_memories,
            auto_load=auto_load,
            output_style=output_style,
            auto_sync_threshold=auto_sync_threshold,
            hard_block_threshold=hard_block_threshold,
            context_window_tokens=context_window_tokens,
            observation_hook=observation_hook,
            observation_detail=observation_detail,
            correction_sensitivity=correction_sensitivity,
            auto_reflect=auto_reflect,
            reflect_depth=reflect_depth,
            save_interval=save_interval,
            sessions_days=sessions_days,
            extractor=extractor,
            llm_model=llm_model,
            llm_base_url=llm_base_url,
            llm_daily_call_budget=llm_daily_call_budget,
            llm_daily_token_budget=llm_daily_token_budget,
            llm_max_input_chars=llm_max_input_chars,
            obsidian_sync_target=obsidian_sync_target,
            project_search_paths=project_search_paths,
            staleness_commits=staleness_commits,
            team_sync=team_sync,
            team_project_id=team_project_id,
            team_share_prompts=team_share_prompts,
        )


class LoadedConfig(Record):
    """The effective :class:`Config`, the warnings met on the way, and where each value came
    from (``"default"``, ``"global"``, ``"project"`` or ``"env"``)."""

    __slots__ = ("config", "files", "sources", "warnings")

    def __init__(
        self,
        config: Config,
        warnings: list[str] | None = None,
        sources: dict[str, str] | None = None,
        files: dict[str, Path] | None = None,
    ) -> None:
        self.config = config
        self.warnings: list[str] = [] if warnings is None else warnings
        self.sources: dict[str, str] = {} if sources is None else sources
        self.files: dict[str, Path] = {} if files is None else files


def token_budget_tokens(preset: str) -> int:
    """Tokens SessionStart may inject for a ``token_budget`` preset; ``ValueError`` if unknown."""
    try:
        return TOKEN_BUDGETS[preset.strip().lower()]
    except KeyError:
        raise ValueError(
            f"unknown token_budget {preset!r} (expected one of {', '.join(TOKEN_BUDGETS)})"
        ) from None


# --------------------------------------------------------------------------- parsing values

_INT_RE = LazyPattern(r"[+-]?[0-9][0-9_]*")
_IDENT_RE = LazyPattern(r"[A-Za-z0-9._:/@+-]{1,200}")
_CONTROL_RE = LazyPattern(r"[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029\ud800-\udfff]")


def suggest_key(name: str) -> str | None:
    """The closest known key to a misspelt one, for "did you mean" hints."""
    import difflib  # only needed when something is wrong

    normal = name.strip().lower().replace("-", "_")
    if normal in KEYS:
        return normal
    matches = difflib.get_close_matches(normal, list(KEYS), n=1, cutoff=0.6)
    return matches[0] if matches else None


def unknown_key_message(name: str) -> str:
    """One line saying a key is unknown, with a suggestion when one is close."""
    hint = suggest_key(name)
    if hint:
        return f"unknown key {name!r} (did you mean {hint!r}?)"
    return f"unknown key {name!r} (known keys: {', '.join(KEYS)})"


def _spec(key: str) -> KeySpec:
    spec = KEYS.get(key)
    if spec is None:
        raise ValueError(unknown_key_message(key))
    return spec


def _parse_int(spec: KeySpec, text: str) -> int:
    digits = text[:-1].rstrip() if spec.percent and text.endswith("%") else text
    if not _INT_RE.fullmatch(digits) or digits.endswith("_"):
        raise ValueError
    number = int(digits)
    if (spec.min is not None and number < spec.min) or (spec.max is not None and number > spec.max):
        raise ValueError
    return number


def _parse_enum(spec: KeySpec, text: str) -> str:
    """Case-insensitive, and lenient about ``-`` versus ``_`` (``stubs-only``, ``claude_cli``)."""
    wanted = text.lower().replace("-", "_")
    for choice in spec.allowed or ():
        if choice.replace("-", "_") == wanted:
            return choice
    raise ValueError


def _parse_str(spec: KeySpec, raw: str) -> str:
    if _CONTROL_RE.search(raw):
        raise ValueError
    value = raw.strip()
    if spec.url and value and not re.fullmatch(r"https?://[^\s/?#]+\S*", value, re.IGNORECASE):
        raise ValueError
    if spec.ident and value and not _IDENT_RE.fullmatch(value):
        raise ValueError
    _encode_for_file(value)  # what cannot be written back is not a valid setting
    return value


def parse_value(key: str, raw: str) -> Value:
    """Turn the text of a setting into its typed value, or raise ``ValueError`` saying what a
    valid value looks like. ``raw`` is the value as written, already unquoted."""
    spec = _spec(key)
    if not isinstance(raw, str):
        raise ValueError(f"key {key!r} needs a text value, got {type(raw).__name__}")
    text = raw.strip()
    try:
        if spec.type == "bool":
            parsed = parse_bool(text)
            if parsed is None:
                raise ValueError
            return parsed
        if spec.type == "int":
            return _parse_int(spec, text)
        if spec.type == "enum":
            return _parse_enum(spec, text)
        return _parse_str(spec, raw)
    except ValueError:
        raise ValueError(
            f"key {key!r} has invalid value {_shorten(raw)!r} (expected {spec.expected()})"
        ) from None


def format_value(value: Value) -> str:
    """The canonical text of a typed value as it is written to a config file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- loading


def config_path(
    project_root: Path | None, global_: bool, *, env: Mapping[str, str] | None = None
) -> Path:
    """Where a config file lives: the global one when ``global_`` is set or there is no
    project, otherwise ``<project>/.claude/memory/.memory-config.md``."""
    if global_ or project_root is None:
        return global_memory_dir(env) / CONFIG_FILENAME
    return project_memory_dir(project_root) / CONFIG_FILENAME


def _read_layer(path: Path, warnings: list[str]) -> dict[str, str]:
    """The raw key/value pairs of one config file; problems become warnings."""
    try:
        if not path.exists():
            return {}
        # a Latin-1 "café" in a comment must not drop every setting (privacy ones included)
        text, note = read_text_lenient(path, max_bytes=MAX_CONFIG_BYTES)
    except MemoryFileError as exc:
        warnings.append(f"{exc}; its settings are ignored")
        return {}
    except OSError as exc:
        warnings.append(f"{path}: cannot be read ({exc.strerror or exc}); its settings are ignored")
        return {}
    if note:
        warnings.append(note)
    front = parse_front_matter(text)
    if not front.present:
        if text.strip():
            warnings.append(
                f"{path}: has no '---' front matter; settings must sit between two '---' lines"
            )
        return {}
    warnings.extend(f"{path}: {error}" for error in front.errors)
    return front.values


def _env_layer(env: Mapping[str, str]) -> dict[str, str]:
    values = {}
    for key in KEYS:
        raw = env.get(ENV_PREFIX + key.upper())
        if raw is not None and raw.strip() != "":
            values[key] = raw
    return values


class _LoadState:
    """Values and their provenance while the layers are applied, weakest first."""

    __slots__ = ("origin", "sources", "values", "warnings")

    def __init__(
        self,
        values: dict[str, Value],
        sources: dict[str, str],
        origin: dict[str, str],
        warnings: list[str],
    ) -> None:
        self.values = values
        self.sources = sources
        self.origin = origin
        self.warnings = warnings


def _fallback_note(current: Value, source: str, origin: Mapping[str, str]) -> str:
    shown = format_value(current) or '""'
    if source == "default":
        return f"using default {shown}"
    return f"using {shown} from {origin[source]}"


def _apply_layer(
    layer: str,
    where: str,
    raw_values: Mapping[str, str],
    state: _LoadState,
) -> None:
    for key, raw in raw_values.items():
        if key not in KEYS:
            if key not in _SHARED_FILE_KEYS:
                state.warnings.append(f"{where}: {unknown_key_message(key)}; ignored")
            continue
        try:
            value = parse_value(key, raw)
        except ValueError:
            note = _fallback_note(state.values[key], state.sources[key], state.origin)
            state.warnings.append(
                f"{where}: key {key!r} has invalid value {_shorten(raw)!r} "
                f"(expected {KEYS[key].expected()}); {note}"
            )
            continue
        if layer != "project" and key in PROJECT_KEYS and value not in (False, ""):
            state.warnings.append(
                f"{where}: {key} is read from a project's {CONFIG_FILENAME} only (the team shares "
                "that choice through git); ignored"
            )
            continue
        state.values[key] = value
        state.sources[key] = layer


def _check_thresholds(state: _LoadState) -> None:
    """The hard block must not come before the sync request; raise it when it does."""
    auto = int(state.values["auto_sync_threshold"])
    hard = int(state.values["hard_block_threshold"])
    if hard >= auto:
        return
    fixed = max(int(KEYS["hard_block_threshold"].default), auto)

    def origin(key: str) -> str:
        source = state.sources[key]
        return "default" if source == "default" else f"from {state.origin[source]}"

    state.warnings.append(
        f"key 'hard_block_threshold' ({hard}, {origin('hard_block_threshold')}) is below "
        f"auto_sync_threshold ({auto}, {origin('auto_sync_threshold')}); using {fixed}"
    )
    state.values["hard_block_threshold"] = fixed


def load_config(project_root: Path | None, env: Mapping[str, str] | None = None) -> LoadedConfig:
    """The effective settings for a project (or none), with warnings and per-key sources.

    Cheap enough for every hook call: at most two small files are read. ``env`` defaults to
    ``os.environ``; it also decides where the global file is (``HOME``).
    """
    environ = os.environ if env is None else env
    files = {"global": config_path(None, True, env=environ)}
    if project_root is not None:
        files["project"] = config_path(project_root, False)
    state = _LoadState(
        values={name: spec.default for name, spec in KEYS.items()},
        sources=dict.fromkeys(KEYS, "default"),
        origin={name: str(path) for name, path in files.items()},
        warnings=[],
    )
    state.origin["env"] = "environment"
    for layer, path in files.items():
        if layer == "project" and same_file(path, files["global"]):
            continue  # the project is the home folder: its config is the global one
        _apply_layer(layer, str(path), _read_layer(path, state.warnings), state)
    for key, raw in _env_layer(environ).items():
        _apply_layer("env", f"environment variable {ENV_PREFIX}{key.upper()}", {key: raw}, state)
    _check_thresholds(state)
    return LoadedConfig(
        # every value was converted and checked against its key's type by _apply_layer
        config=Config(**state.values),  # type: ignore[arg-type]
        warnings=state.warnings,
        sources=state.sources,
        files=files,
    )


def same_file(a: Path, b: Path) -> bool:
    """True when two paths name the same file (after resolving symlinks)."""
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return a == b


# --------------------------------------------------------------------------- writing


def _encode_for_file(value: Value) -> str:
    """Text for a value that the front-matter parser reads back as exactly ``value``: bare when
    that is unambiguous, otherwise quoted with whichever quote survives parsing."""
    text = format_value(value)
    if not text:
        return '""'  # an explicit empty value, not a dangling "key: "
    for candidate in (text, f'"{text}"', f"'{text}'"):
        if unquote(strip_inline_comment(candidate)) == text:
            return candidate
    raise ValueError(f"value {_shorten(text)!r} cannot be written to a config file as is")


def _split_ending(line: str) -> tuple[str, str]:
    for ending in ("\r\n", "\n", "\r"):
        if line.endswith(ending):
            return line[: -len(ending)], ending
    return line, ""


def _line_key(content: str) -> str | None:
    """The lower-cased key of a flat front-matter line, mirroring ``parse_front_matter``."""
    stripped = content.strip()
    if not stripped or stripped.startswith("#") or content[:1].isspace():
        return None
    if stripped.startswith("- "):
        return None
    key, sep, _ = stripped.partition(":")
    return key.strip().lower() if sep and key.strip() else None


def _rewrite_line(content: str, encoded: str) -> str:
    """Replace the value on a ``key: value  # comment`` line, keeping the key as spelt, the
    spacing and the comment (which stays in its column when the new value leaves room)."""
    head, _, rest = content.partition(":")
    old_value = strip_inline_comment(rest).strip()
    start = len(rest) - len(rest.lstrip())
    gap = rest[:start] if old_value else " "
    comment = rest[start + len(old_value) :].strip()
    if not comment:
        return f"{head}:{gap}{encoded}"
    old_column = rest.index(comment, start + len(old_value))
    padding = max(1, old_column - len(gap) - len(encoded))
    return f"{head}:{gap}{encoded}{' ' * padding}{comment}"


def _dominant_ending(lines: list[str]) -> str:
    counts: dict[str, int] = {}
    for line in lines:
        ending = _split_ending(line)[1]
        if ending:
            counts[ending] = counts.get(ending, 0) + 1
    return max(counts, key=lambda e: counts[e]) if counts else os.linesep


def update_text(text: str, key: str, encoded: str) -> str:
    """``text`` with ``key`` set to the already-encoded value in its front matter.

    Only the key's line changes; a missing key is added before the closing ``---`` and a
    file without front matter gains one. Raises ``ValueError`` on an unclosed front matter.
    """
    bom = BOM if text.startswith(BOM) else ""
    lines = text[len(bom) :].splitlines(keepends=True)
    newline = _dominant_ending(lines)
    front = parse_front_matter(text)
    if not front.present:
        block = f"---{newline}{key}: {encoded}{newline}---{newline}"
        return bom + block + "".join(lines)
    if not front.closed:
        raise ValueError("its front matter is not closed with '---'; add the closing line first")
    found = False
    for index in range(1, front.end_line - 1):
        content, ending = _split_ending(lines[index])
        if _line_key(content) == key:
            lines[index] = _rewrite_line(content, encoded) + ending
            found = True
    if not found:
        closing = front.end_line - 1
        before = lines[closing - 1]
        if not _split_ending(before)[1]:
            lines[closing - 1] = before + newline  # pragma: no cover - fences always end lines
        lines.insert(closing, f"{key}: {encoded}{newline}")
    return bom + "".join(lines)


def _check_editable(path: Path) -> None:
    """Raise :class:`MemoryFileError` in one line when the file cannot be edited (too large,
    binary, unreadable). Bytes that are not UTF-8 are no reason: the edit carries them through."""
    if path.exists():
        read_text_lenient(path, max_bytes=MAX_CONFIG_BYTES)


def set_value(path: Path, key: str, value: str, source: str = "user-cli") -> None:
    """Validate ``value`` for ``key`` and write it into the config file at ``path``.

    Only the key's line changes (an edit of the current bytes under the shared write lock,
    journaled for ``conkeeper undo``). Raises ``ValueError`` for an unknown key, an invalid
    value or an unclosed front matter, and :class:`MemoryFileError` when the file cannot be read
    or written.
    """
    from conkeeper.domain.safewrite import edit_file, text_edit

    name = key.strip().lower()
    spec = _spec(name)
    typed = parse_value(spec.name, value)
    encoded = _encode_for_file(typed)
    _check_editable(path)

    def change(text: str) -> str:
        try:
            return update_text(text, spec.name, encoded)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    edit_file(
        path,
        text_edit(change),
        command=f"config set {spec.name}",
        source=source,
        root=path.parent,
        limit=MAX_CONFIG_BYTES,
    )


def shown_value(value: Value) -> Value:
    """A setting's value as it may be printed: text cleaned by the privacy module (a password
    in ``llm_base_url`` is cut), other values as they are. The value ConKeeper uses is not
    changed; only what ``config show|get|set`` prints."""
    if not isinstance(value, str):
        return value
    from conkeeper.domain.messages import clean_message

    return clean_message(value)


def describe(loaded: LoadedConfig) -> list[dict[str, object]]:
    """One record per key (name, value, source, default, type, expected, description), in
    schema order, for ``conkeeper config show`` and the memory-config skill."""
    records: list[dict[str, object]] = []
    for name, spec in KEYS.items():
        records.append(
            {
                "key": name,
                "value": shown_value(getattr(loaded.config, name)),
                "source": loaded.sources.get(name, "default"),
                "default": spec.default,
                "type": spec.type,
                "expected": spec.expected(),
                "description": spec.description,
            }
        )
    return records
