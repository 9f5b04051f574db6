"""The context monitor (F8): ask for a memory sync before the context window runs out.

When the context fills up, the host compacts it and whatever was not saved to memory is gone.
On every prompt this reads how full the context is from the transcript — the last main-chain
assistant entry's ``input + cache_creation + cache_read`` tokens — over the model's window, and:

* at ``auto_sync_threshold`` % injects one instruction to run the memory sync (once; it re-arms
  only after a recorded sync *and* a drop below the threshold, i.e. a new context);
* at ``hard_block_threshold`` % blocks the prompt once (exit 2) with a clear message, but only
  if no sync was recorded in this session (``conkeeper sync mark`` records one; a nudge alone
  does not count). It never blocks twice.

The transcript can be tens of megabytes, so only its tail is read: 256 KB from the end, widened
up to 2 MB when no usable assistant entry is found there.

The window is 1M tokens for an extended-context model: a ``[1m]`` model id (``sonnet[1m]``) in
the payload, ``ANTHROPIC_MODEL``, the ``model`` of ``~/.claude/settings.json``, the project's
``.claude/settings.json`` or ``.claude/settings.local.json`` (strongest last), or a
``context-1m`` beta in the transcript. When the window is only assumed (no explicit setting and
a model that may run with 1M), the monitor warns instead of blocking: a wrong block costs the
user a prompt, a wrong warning costs nothing.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

from conkeeper.domain.config import KEYS
from conkeeper.domain.lazy_re import LazyPattern
from conkeeper.domain.records import FrozenRecord
from conkeeper.domain.textio import open_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from conkeeper.domain.config import Config
    from conkeeper.storage.state import SessionState

DEFAULT_WINDOW = 200_000
EXTENDED_WINDOW = 1_000_000
MIN_AUTO_COMPACT_WINDOW = 100_000
TAIL_BYTES = 256 * 1024
MAX_TAIL_BYTES = 2 * 1024 * 1024
AUTO_COMPACT_ENV = "CLAUDE_CODE_AUTO_COMPACT_WINDOW"
MAX_SETTINGS_BYTES = 1024 * 1024
_EXTENDED_MODEL = LazyPattern(r"\[1m\]|context-1m|(?:^|[^a-z0-9])1m(?:$|[^a-z0-9])", re.IGNORECASE)
# Model families that can run with the 1M window (so a 200k assumption may be wrong).
_MAY_BE_EXTENDED = LazyPattern(r"sonnet|^$|default", re.IGNORECASE)
_EXTENDED_MARKERS = (b"context-1m", b"[1m]")


class Usage(FrozenRecord):
    """Context use read from the transcript; ``extended`` when the tail names the 1M context
    (a ``context-1m`` beta or a ``[1m]`` model id)."""

    __slots__ = ("extended", "model", "tokens")
    tokens: int
    model: str
    extended: bool

    def __init__(self, tokens: int, model: str, extended: bool = False) -> None:
        self._set(tokens=tokens, model=model, extended=extended)


class Reading(FrozenRecord):
    """How full the context is: tokens used, the window they are measured against, percent;
    ``certain`` is False when the window is assumed rather than known (then never block)."""

    __slots__ = ("certain", "model", "tokens", "window")
    tokens: int
    window: int
    model: str
    certain: bool

    def __init__(self, tokens: int, window: int, model: str, certain: bool = True) -> None:
        self._set(tokens=tokens, window=window, model=model, certain=certain)

    @property
    def percent(self) -> float:
        """Share of the window in use, 0-100+."""
        return 100.0 * self.tokens / self.window if self.window else 0.0


# --------------------------------------------------------------------------- transcript


def _usage_of(line: bytes) -> Usage | None:
    """The context use of one transcript line, when it is a usable main-chain assistant entry."""
    if b'"assistant"' not in line or b'"usage"' not in line:
        return None
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("type") != "assistant" or entry.get("isSidechain"):
        return None
    message = entry.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
        return None
    model = str(message.get("model") or "")
    if model == "<synthetic>":
        return None
    usage = message["usage"]
    total = 0
    for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            total += value
    return Usage(total, model) if total > 0 else None


def last_usage(path: Path, tail: int = TAIL_BYTES, limit: int = MAX_TAIL_BYTES) -> Usage | None:
    """The context use of the last main-chain assistant entry, reading only the file's tail.

    The window read from the end doubles (256 KB, 512 KB, ... up to ``limit``) until an entry
    is found; a first line cut by the window is skipped unless the window reached the start.
    """
    try:
        with open_regular(path) as handle:
            return _scan_tail(handle, tail, limit)
    except OSError:
        return None


def _scan_tail(handle: Any, tail: int, limit: int) -> Usage | None:
    size = handle.seek(0, os.SEEK_END)
    window = min(tail, size)
    while True:
        start = size - window
        handle.seek(start)
        lines = handle.read(window).split(b"\n")
        if start > 0:
            lines = lines[1:]  # the first line may be cut
        for line in reversed(lines):
            found = _usage_of(line)
            if found is not None:
                if any(marker in line for marker in _EXTENDED_MARKERS):
                    return Usage(found.tokens, found.model, True)
                return found
        if start == 0 or window >= limit:
            return None
        window = min(window * 2, limit, size)


# --------------------------------------------------------------------------- window


def _parse_tokens(text: str) -> int | None:
    """An integer token count as the host accepts it (``200000``, ``200_000``, ``2e5``)."""
    cleaned = text.strip().replace("_", "").replace(",", "")
    try:
        value = float(cleaned)
    except ValueError:
        return None
    if not math.isfinite(value) or value <= 0:
        return None
    return int(value)


def is_extended_model(model: str) -> bool:
    """True for a model id that names the 1M-token extended context (``sonnet[1m]``)."""
    return bool(model) and bool(_EXTENDED_MODEL.search(model))


def context_window(
    models: list[str],
    used: int,
    configured: int | None,
    env: Mapping[str, str],
) -> int:
    """The window the current use is measured against.

    ``configured`` (``context_window_tokens`` set explicitly by the user) overrides detection;
    otherwise 1M for an extended-context model id (or when more than 200k is already in use),
    else 200k. ``CLAUDE_CODE_AUTO_COMPACT_WINDOW``, when set, caps the result: the host compacts
    at that size (it raises values below 100,000 to 100,000, and so does this).
    """
    if configured:
        window = configured
    elif any(is_extended_model(m) for m in models) or used > DEFAULT_WINDOW:
        window = EXTENDED_WINDOW
    else:
        window = DEFAULT_WINDOW
    cap = _parse_tokens(env.get(AUTO_COMPACT_ENV, "") or "")
    if cap:
        window = min(window, max(cap, MIN_AUTO_COMPACT_WINDOW))
    return window


def _settings_paths(project_root: Path | None, env: Mapping[str, str]) -> list[Path]:
    """Claude Code's settings files, weakest first: user, project, project local."""
    paths = []
    home = env.get("HOME") or os.path.expanduser("~")
    if home:
        paths.append(Path(home) / ".claude" / "settings.json")
    if project_root is not None:
        paths.append(project_root / ".claude" / "settings.json")
        paths.append(project_root / ".claude" / "settings.local.json")
    return paths


def settings_model(project_root: Path | None, env: Mapping[str, str]) -> str | None:
    """The model the user chose in Claude Code's settings (``model``, or ``ANTHROPIC_MODEL``
    in a settings file's ``env``), strongest file winning; ``None`` when none names one."""
    found: str | None = None
    for path in _settings_paths(project_root, env):
        try:
            with open_regular(path) as handle:
                data = json.loads(handle.read(MAX_SETTINGS_BYTES))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        model = data.get("model")
        extra = data.get("env")
        if isinstance(extra, dict) and isinstance(extra.get("ANTHROPIC_MODEL"), str):
            model = extra["ANTHROPIC_MODEL"]
        if isinstance(model, str) and model.strip():
            found = model.strip()
    return found


def read_context(
    transcript_path: str | None,
    config: Config,
    env: Mapping[str, str],
    model_hint: str = "",
    project_root: Path | None = None,
) -> Reading | None:
    """How full a session's context is, or ``None`` without a usable transcript.

    ``model_hint`` is the model id the host named in the payload, if any; the transcript's
    own model id and betas, ``ANTHROPIC_MODEL`` and the Claude Code settings files (user,
    ``project_root``'s shared and local ones) are consulted too.
    """
    if not transcript_path or "\x00" in transcript_path:
        return None
    usage = last_usage(Path(transcript_path))
    if usage is None:
        return None
    default = KEYS["context_window_tokens"].default
    configured = config.context_window_tokens if config.context_window_tokens != default else None
    chosen = env.get("ANTHROPIC_MODEL", "") or settings_model(project_root, env) or ""
    models = [usage.model, model_hint, chosen, "[1m]" if usage.extended else ""]
    window = context_window(models, usage.tokens, configured, env)
    known = bool(configured) or window != DEFAULT_WINDOW or bool(env.get(AUTO_COMPACT_ENV))
    if not known:  # an explicit choice without [1m] is certain; the transcript alone is not
        known = bool(chosen or model_hint) or not _MAY_BE_EXTENDED.search(usage.model)
    return Reading(usage.tokens, window, usage.model, certain=known)


# --------------------------------------------------------------------------- decisions


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.0f}k"


def sync_instruction(reading: Reading) -> str:
    """The one-time request to sync memory (injected into the model's context)."""
    return (
        f"[ConKeeper] The context window is {reading.percent:.0f}% full "
        f"({_k(reading.tokens)} of {_k(reading.window)} tokens). Before it is compacted, run "
        "`/memory-sync` now: save the current focus, decisions and next steps to "
        ".claude/memory/ (it ends with `conkeeper sync mark`), then continue the task."
    )


def uncertain_instruction(reading: Reading) -> str:
    """The warning given instead of a block when the window size is assumed, not known."""
    return (
        f"[ConKeeper] The context may be {reading.percent:.0f}% full "
        f"({_k(reading.tokens)} of an assumed {_k(reading.window)}-token window; a 1M-context "
        "model would be far from full). If this session runs with the 200k window, run "
        "`/memory-sync` now so nothing is lost when the context is compacted. Set "
        "context_window_tokens (or model in Claude Code's settings) to make this exact."
    )


def block_message(reading: Reading) -> str:
    """Why the prompt was blocked and exactly what to do (shown to the user)."""
    return (
        f"ConKeeper: the context window is {reading.percent:.0f}% full "
        f"({_k(reading.tokens)} of {_k(reading.window)} tokens) and memory has not been synced "
        "in this session. Run /memory-sync now so nothing is lost when the context is "
        "compacted, then send your prompt again. This block happens only once per session; "
        "change hard_block_threshold with /memory-config."
    )


def decide(state: dict[str, Any], percent: float, auto: int, hard: int) -> str | None:
    """Inside a state update: ``"block"``, ``"nudge"`` or ``None`` for a reading, updating the
    once-only flags so parallel hooks can never both act."""
    synced_at = state.get("last_sync_at")
    nudged_at = state.get("sync_nudged_at") or 0
    if percent < auto:
        if state.get("sync_nudged") and synced_at and synced_at >= nudged_at:
            state["sync_nudged"] = False  # a sync happened and the context is fresh again
        return None
    if percent >= hard and not state.get("hard_blocked") and not synced_at:
        state["hard_blocked"] = True
        state["sync_nudged"] = True
        state.setdefault("sync_nudged_at", _now_ms())
        return "block"
    if not state.get("sync_nudged"):
        state["sync_nudged"] = True
        state["sync_nudged_at"] = _now_ms()
        return "nudge"
    return None


def _now_ms() -> int:
    from conkeeper.storage.state import now_ms

    return now_ms()


def _settled(state: dict[str, Any]) -> bool:
    """True when no reading could lead to any action (skip reading the transcript)."""
    if not state.get("sync_nudged"):
        return False
    can_block = not state.get("hard_blocked") and not state.get("last_sync_at")
    can_rearm = bool(state.get("last_sync_at"))
    return not can_block and not can_rearm


class Verdict(FrozenRecord):
    """What the monitor decided for this prompt: ``nudge`` (inject ``message``) or ``block``
    (refuse the prompt once with ``message``), and the reading behind it."""

    __slots__ = ("action", "message", "reading")
    action: str
    message: str
    reading: Reading

    def __init__(self, action: str, message: str, reading: Reading) -> None:
        self._set(action=action, message=message, reading=reading)


def check(
    state: SessionState,
    transcript_path: str | None,
    config: Config,
    env: Mapping[str, str],
    model_hint: str = "",
    project_root: Path | None = None,
) -> Verdict | None:
    """UserPromptSubmit's monitor step: a sync instruction, a one-time block, or nothing.

    The decision is taken inside the session state's lock, so parallel hooks never nudge or
    block twice. When the window is only assumed, a block becomes a warning.
    """
    if _settled(state.read()):
        return None
    reading = read_context(transcript_path, config, env, model_hint, project_root)
    if reading is None:
        return None
    auto = config.auto_sync_threshold
    hard = max(config.hard_block_threshold, auto)
    action = state.update(lambda data: decide(data, reading.percent, auto, hard))
    if action == "block" and not reading.certain:
        return Verdict("nudge", uncertain_instruction(reading), reading)
    if action == "block":
        return Verdict("block", block_message(reading), reading)
    if action == "nudge":
        return Verdict("nudge", sync_instruction(reading), reading)
    return None
