"""Running an extractor over a session: local rules, or an LLM per turn with the local rules
as the safety net.

This is what ``conkeeper extract`` (spawned detached by the SessionEnd/Stop hooks, never inside
a hook's wait) and the transcript importer call. Guarantees:

* every write happens in one short transaction per turn (LLM) or per session (local), so a
  crash, a budget stop or a broken reply never leaves partial rows;
* an LLM sees only turns whose prompt was stored (a private turn never leaves the machine),
  only privacy-cleaned text, cut to ``llm_max_input_chars``;
* any LLM failure — no client, HTTP error, empty or non-XML reply, budget reached — falls back
  to the local extractor for that turn, and the reason is reported.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conkeeper.domain.config import Config, load_config
from conkeeper.domain.observations import Observation, Summary, Turn, clean_turns
from conkeeper.domain.tokens import estimate_tokens
from conkeeper.services.observations import budget, prompts
from conkeeper.services.observations.llm_extractors import (
    LlmClient,
    LlmError,
    clean_observation,
    clean_reply,
    clean_summary,
    make_client,
)
from conkeeper.services.observations.local_extractor import (
    NAME as LOCAL,
)
from conkeeper.services.observations.local_extractor import (
    extract_observations,
    summarize_session,
)
from conkeeper.services.observations.xml_parse import parse_observations, parse_summary
from conkeeper.storage.logfile import log
from conkeeper.storage.observations import (
    ExtractionProgress,
    SessionInfo,
    get_progress,
    last_event_id,
    load_turns,
    save_observations,
    save_summary,
    session_info,
    session_observations,
    set_progress,
    turn_times,
)
from conkeeper.storage.store import transaction

LOCK_NAME = "extract.lock"


@dataclass
class ExtractResult:
    """What one extraction run did to a session."""

    session_id: int
    extractor: str
    added: int = 0
    removed: int = 0
    summarized: bool = False
    llm_calls: int = 0
    used: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``."""
        return {
            "session_id": self.session_id,
            "extractor": self.extractor,
            "added": self.added,
            "removed": self.removed,
            "summarized": self.summarized,
            "llm_calls": self.llm_calls,
            "used": self.used,
            "notes": self.notes,
        }


@contextlib.contextmanager
def worker_lock(state_dir: Path) -> Iterator[None]:
    """Serialise extraction workers (one detached worker per ended session may overlap)."""
    from conkeeper.domain.textio import locked

    state_dir.mkdir(parents=True, exist_ok=True)
    with open(state_dir / LOCK_NAME, "a+b") as handle, locked(handle):
        yield


@dataclass
class ExtractionRun:
    """What one ``extract`` request did: a result per session and the LLM budget after it."""

    results: list[ExtractResult] = field(default_factory=list)
    budget: dict[str, object] | None = None


def extract_pending(
    *,
    session_ref: str | None = None,
    all_projects: bool = False,
    extractor: str | None = None,
    summarize: bool | None = None,
    cwd: Path | None = None,
) -> ExtractionRun:
    """Extract one session (``session_ref``: an id, host id or prefix, the current project's
    first) or every pending one (of the current project, or of all), under the worker lock.

    Raises ``SessionNotFound`` for an unknown reference and ``StoreError`` when the database
    cannot be opened; this is what every front door calls (the CLI, detached workers).
    """
    from conkeeper.domain.paths import state_dir
    from conkeeper.services.workspace import project_scope, project_store
    from conkeeper.storage.observations import pending_sessions, resolve_in_scope

    run = ExtractionRun()
    with worker_lock(state_dir()), project_store() as conn:
        here = project_scope(conn, cwd=cwd).project_id
        if session_ref:
            ids = [resolve_in_scope(conn, session_ref, here)]
        elif all_projects:
            ids = pending_sessions(conn, None)
        else:
            ids = [] if here is None else pending_sessions(conn, here)
        for session_id in ids:
            run.results.append(
                extract_session(conn, session_id, extractor=extractor, summarize=summarize)
            )
        run.budget = budget.budget_status(conn) if run.results else None
    return run


def extract_session(
    conn: sqlite3.Connection,
    session_id: int,
    *,
    extractor: str | None = None,
    config: Config | None = None,
    summarize: bool | None = None,
    client: LlmClient | None = None,
    env: Mapping[str, str] | None = None,
) -> ExtractResult:
    """Extract observations (and, for an ended session or on request, the summary)."""
    info = session_info(conn, session_id)
    untrusted_url = ""
    if config is None:
        loaded = load_config(Path(info.project_root), env)
        cfg = loaded.config
        if loaded.sources.get("llm_base_url") == "project" and cfg.llm_base_url:
            untrusted_url = cfg.llm_base_url
    else:
        cfg = config
    name = extractor or cfg.extractor
    do_summary = info.status != "active" if summarize is None else summarize
    result = ExtractResult(session_id, name)
    turns = clean_turns(load_turns(conn, session_id))  # old rows may predate a privacy fix
    if name == LOCAL:
        _run_local(conn, info, turns, do_summary, result)
        return result
    try:
        if untrusted_url and client is None:
            env = _project_endpoint(untrusted_url, env)
        active = client or make_client(_with_extractor(cfg, name), env)
    except LlmError as exc:
        result.notes.append(f"{name} unavailable ({exc}); used the local extractor")
        log(f"extract: {name} unavailable: {exc}", level="WARNING")
        _run_local(conn, info, turns, do_summary, result)
        return result
    _run_llm(conn, info, turns, do_summary, result, active, _with_extractor(cfg, name))
    return result


# Hosts that are this machine: a local model server (Ollama, llama.cpp) a project may name.
_LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]")
_API_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")


def _project_endpoint(url: str, env: Mapping[str, str] | None) -> dict[str, str]:
    """The environment an extractor may use with ``llm_base_url`` taken from the project's own
    config file, which a cloned repository or an agent's edit can carry: the endpoint must be
    this machine, and it never gets the user's API keys (a file that pointed extraction at a
    collector received every session's prompts and tool events and the key in a header).
    Raises :class:`LlmError` (the local extractor is used) for any other host."""
    import os
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        host = ""
    if host not in _LOOPBACK and not host.startswith("127."):
        from conkeeper.domain.privacy import clean_or_empty

        shown = clean_or_empty(host) or "another host"  # the host only: a URL may carry a key
        raise LlmError(
            f"llm_base_url ({shown}) comes from the project's .memory-config.md and is not this "
            "machine; set it in your global config or CONKEEPER_LLM_BASE_URL to use it"
        )
    source = os.environ if env is None else env
    return {key: value for key, value in source.items() if key not in _API_KEYS}


def _with_extractor(cfg: Config, name: str) -> Config:
    return cfg if cfg.extractor == name else cfg.replace(extractor=name)


def _run_local(
    conn: sqlite3.Connection,
    info: SessionInfo,
    turns: Sequence[Turn],
    do_summary: bool,
    result: ExtractResult,
) -> None:
    observations = extract_observations(turns, info.project_root)
    with transaction(conn):
        ids, removed = save_observations(
            conn, info, observations, LOCAL, replace=True, times=turn_times(turns)
        )
        if do_summary and turns:
            stored = session_observations(conn, info.id)
            save_summary(conn, info, summarize_session(turns, stored), LOCAL)
        _mark(
            conn,
            info.id,
            LOCAL,
            last_prompt=max((t.prompt_number for t in turns), default=0),
            last_event=last_event_id(conn, info.id),
            summarized=do_summary and bool(turns),
        )
    result.added += len(ids)
    result.removed += removed
    result.summarized = do_summary and bool(turns)
    if LOCAL not in result.used:
        result.used.append(LOCAL)


def _mark(
    conn: sqlite3.Connection,
    session_id: int,
    extractor: str,
    *,
    last_prompt: int,
    last_event: int,
    summarized: bool,
) -> None:
    previous = get_progress(conn, session_id)
    set_progress(
        conn,
        session_id,
        ExtractionProgress(
            extractor=extractor,
            last_event_id=max(last_event, previous.last_event_id if previous else 0),
            last_prompt_number=max(last_prompt, previous.last_prompt_number if previous else 0),
            summarized=summarized or bool(previous and previous.summarized),
        ),
    )


# --------------------------------------------------------------------------- LLM path


def _clean(text: str | None) -> str | None:
    if not text:
        return None
    from conkeeper.domain.privacy import clean_captured

    return clean_captured(text)


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(ms / 1000))


def build_turn_request(
    info: SessionInfo, turn: Turn, max_chars: int
) -> tuple[str, str, int] | None:
    """``(system, user message, tool uses included)`` for one turn, or ``None`` when the turn
    must not (private prompt) or need not (no tool use) go to an LLM."""
    prompt_text = _clean(turn.prompt)
    if prompt_text is None or not turn.events:
        return None
    user_goal = prompt_text[: max(200, max_chars // 4)]
    system = prompts.init_prompt(
        Path(info.project_root).name, info.host_session_id, user_goal, _iso(info.started_at)[:10]
    )
    budget_left = max_chars - len(user_goal)
    blocks: list[str] = []
    for event in turn.events:
        block = prompts.observation_prompt(
            event.tool_name,
            _iso(event.created_at),
            turn.prompt_number,
            {"summary": _clean(event.input_summary) or "", "paths": list(event.paths)},
            {"status": event.status, "error": _clean(event.error), "exit_code": event.exit_code},
        )
        if len(block) > budget_left:
            break
        blocks.append(block)
        budget_left -= len(block)
    if not blocks:
        return None
    omitted = len(turn.events) - len(blocks)
    if omitted:
        blocks.append(f"({omitted} more tool uses of this prompt were omitted for size.)")
    return system, prompts.turn_prompt(blocks), len(blocks)


def _call(
    conn: sqlite3.Connection,
    client: LlmClient,
    cfg: Config,
    system: str,
    message: str,
    result: ExtractResult,
) -> str | None:
    """One budgeted call; the reply text, or ``None`` (reason noted) when it did not happen."""
    decision = budget.check(conn, cfg, estimate_tokens(system + message))
    if not decision.allowed:
        budget.note_exhausted(conn, decision.reason)
        if not any("budget" in n for n in result.notes):
            result.notes.append(f"{decision.reason}; used the local extractor")
        return None
    try:
        reply = client.complete(system, message)
    except LlmError as exc:
        budget.record(conn, estimate_tokens(system + message), failed=True, error=str(exc))
        result.llm_calls += 1
        result.notes.append(f"{client.name} failed ({exc}); used the local extractor")
        log(f"extract: {client.name} failed: {exc}", level="WARNING")
        return None
    budget.record(conn, reply.tokens)
    result.llm_calls += 1
    return clean_reply(reply.text)  # a reply is captured text: cleaned whole before parsing


def _llm_turn(
    conn: sqlite3.Connection,
    info: SessionInfo,
    turn: Turn,
    client: LlmClient,
    cfg: Config,
    result: ExtractResult,
) -> tuple[list[Observation], str]:
    request = build_turn_request(info, turn, cfg.llm_max_input_chars)
    if request is None:
        return extract_observations([turn], info.project_root), LOCAL
    system, message, _count = request
    reply = _call(conn, client, cfg, system, message, result)
    if reply is None:
        return extract_observations([turn], info.project_root), LOCAL
    found = [clean_observation(o) for o in parse_observations(reply, turn.prompt_number)]
    if not found:
        kind = "an empty reply" if not reply.strip() else "no valid <observation>"
        result.notes.append(
            f"{client.name} gave {kind} for prompt {turn.prompt_number}; used the local extractor"
        )
        return extract_observations([turn], info.project_root), LOCAL
    return found, client.name


def _run_llm(
    conn: sqlite3.Connection,
    info: SessionInfo,
    turns: Sequence[Turn],
    do_summary: bool,
    result: ExtractResult,
    client: LlmClient,
    cfg: Config,
) -> None:
    progress = get_progress(conn, info.id)
    done = progress.last_prompt_number if progress else 0
    for turn in turns:
        if turn.prompt_number <= done:
            continue
        observations, used = _llm_turn(conn, info, turn, client, cfg, result)
        with transaction(conn):
            ids, _ = save_observations(conn, info, observations, used, times=turn_times([turn]))
            _mark(
                conn,
                info.id,
                client.name,
                last_prompt=turn.prompt_number,
                last_event=max((e.id for e in turn.events), default=0),
                summarized=False,
            )
        result.added += len(ids)
        if used not in result.used:
            result.used.append(used)
    if do_summary and turns:
        summary, used = _llm_summary(conn, info, turns, client, cfg, result)
        with transaction(conn):
            save_summary(conn, info, summary, used)
            _mark(
                conn,
                info.id,
                client.name,
                last_prompt=max(t.prompt_number for t in turns),
                last_event=last_event_id(conn, info.id),
                summarized=True,
            )
        result.summarized = True
        if used not in result.used:
            result.used.append(used)


def _llm_summary(
    conn: sqlite3.Connection,
    info: SessionInfo,
    turns: Sequence[Turn],
    client: LlmClient,
    cfg: Config,
    result: ExtractResult,
) -> tuple[Summary, str]:
    stored = session_observations(conn, info.id)
    fallback = summarize_session(turns, stored)
    user_prompts = [p for p in (_clean(t.prompt) for t in turns) if p]
    if not user_prompts:
        return fallback, LOCAL
    lines = [f"[{o.type}] {o.title}: {'; '.join(o.facts[:3])}" for o in stored]
    limit = cfg.llm_max_input_chars
    message = prompts.summary_prompt(
        [line[:300] for line in lines][: max(1, limit // 300)],
        [p[:300] for p in user_prompts][:10],
    )
    system = prompts.init_prompt(
        Path(info.project_root).name, info.host_session_id, user_prompts[0][:500], ""
    )
    reply = _call(conn, client, cfg, system, message, result)
    parsed = clean_summary(summary) if reply and (summary := parse_summary(reply)) else None
    if parsed is None:
        if reply is not None:
            result.notes.append(f"{client.name} gave no valid <summary>; used the local summary")
        return fallback, LOCAL
    if not parsed.files_read:
        parsed.files_read = fallback.files_read
    if not parsed.files_edited:
        parsed.files_edited = fallback.files_edited
    return parsed, client.name
