"""The host's hook payload as one typed, sanitised value.

Claude Code sends a JSON object on stdin whose fields vary by event (spec §6); other agents'
payloads are first mapped to the same field names by their module in ``conkeeper.hosts``.
Handlers must never index the raw dict with guessed names (a prompt read from
``user_message`` silently never fires), so every field they may use is parsed here once, with
the real field names, into :class:`HookPayload`. Values of the wrong type become
``None``/empty rather than errors, unknown fields are ignored (kept in ``raw``), and the
session id is made safe to use in a file name.

:class:`HookContext` (what a handler receives) and :class:`HookResult` (what it returns) live
here too, so handlers import one small module; ``hooks.runner`` re-exports them.
"""

from __future__ import annotations

from conkeeper.domain.paths import DIGEST_PREFIX
from conkeeper.domain.records import Record
from conkeeper.domain.session_id import path_without_secret, sanitize_session_id, without_secret

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Mapping
    from typing import Any

    from conkeeper.domain.config import Config
    from conkeeper.domain.paths import ProjectLocation
    from conkeeper.storage.state import SessionState


def _text(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _flag(obj: dict[str, Any], key: str) -> bool:
    value = obj.get(key)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in {"true", "1", "yes"}
    return False


def _optional_flag(obj: dict[str, Any], key: str) -> bool | None:
    value = obj.get(key)
    return value if isinstance(value, bool) else None


class HookPayload(Record):
    """The fields of a host hook payload that ConKeeper uses (spec §6), typed and sanitised.

    ``cwd`` and ``transcript_path`` are the host's strings, unchecked: the runner decides
    whether they exist. ``error`` is the PostToolUseFailure message; ``tool_response`` keeps
    whatever shape the tool returned (dict, list or string); ``raw`` is the whole payload.
    ``compaction_due`` is set by a host module whose PreCompact fires whether or not the host
    then compacts (Gemini CLI): ``False`` means nothing will be compacted; ``None`` (every
    other host) means the event itself is the compaction.
    """

    __slots__ = (
        "compaction_due",
        "custom_instructions",
        "cwd",
        "error",
        "hook_event_name",
        "is_interrupt",
        "last_assistant_message",
        "prompt",
        "raw",
        "reason",
        "session_id",
        "source",
        "stop_hook_active",
        "tool_input",
        "tool_name",
        "tool_response",
        "tool_use_id",
        "transcript_path",
        "trigger",
    )

    def __init__(
        self,
        *,
        session_id: str = "unknown",
        transcript_path: str | None = None,
        cwd: str | None = None,
        hook_event_name: str | None = None,
        source: str | None = None,
        prompt: str | None = None,
        tool_name: str | None = None,
        tool_input: dict[str, Any] | None = None,
        tool_use_id: str | None = None,
        tool_response: Any = None,
        error: str | None = None,
        is_interrupt: bool = False,
        stop_hook_active: bool = False,
        last_assistant_message: str | None = None,
        trigger: str | None = None,
        custom_instructions: str | None = None,
        reason: str | None = None,
        compaction_due: bool | None = None,
        raw: dict[str, Any] | None = None,
    ) -> None:
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.cwd = cwd
        self.hook_event_name = hook_event_name
        self.source = source
        self.prompt = prompt
        self.tool_name = tool_name
        self.tool_input: dict[str, Any] = {} if tool_input is None else tool_input
        self.tool_use_id = tool_use_id
        self.tool_response = tool_response
        self.error = error
        self.is_interrupt = is_interrupt
        self.stop_hook_active = stop_hook_active
        self.last_assistant_message = last_assistant_message
        self.trigger = trigger
        self.custom_instructions = custom_instructions
        self.reason = reason
        self.compaction_due = compaction_due
        self.raw: dict[str, Any] = {} if raw is None else raw


def parse_payload(obj: dict[str, Any]) -> HookPayload:
    """Build a :class:`HookPayload` from the decoded JSON object (any field may be missing)."""
    tool_input = obj.get("tool_input")
    error = obj.get("error")
    if error is not None and not isinstance(error, str):
        error = str(error)
    return HookPayload(
        session_id=sanitize_session_id(obj.get("session_id")),
        transcript_path=_text(obj, "transcript_path") or None,
        cwd=_text(obj, "cwd") or None,
        hook_event_name=_text(obj, "hook_event_name"),
        source=_text(obj, "source"),
        prompt=_text(obj, "prompt"),
        tool_name=_text(obj, "tool_name"),
        tool_input=tool_input if isinstance(tool_input, dict) else {},
        # keys the state's start times and agent-shell spans: a token in it is no file's text
        tool_use_id=without_secret(_text(obj, "tool_use_id") or "") or None,
        tool_response=obj.get("tool_response"),
        error=error,
        is_interrupt=_flag(obj, "is_interrupt"),
        stop_hook_active=_flag(obj, "stop_hook_active"),
        last_assistant_message=_text(obj, "last_assistant_message"),
        trigger=_text(obj, "trigger"),
        custom_instructions=_text(obj, "custom_instructions"),
        reason=_text(obj, "reason"),
        compaction_due=_optional_flag(obj, "compaction_due"),
        raw=obj,
    )


class HookResult(Record):
    """What a handler wants the host to see; the runner turns it into stdout/stderr/exit code.

    ``additional_context`` reaches the model (capped by the runner), ``system_message`` is a
    note shown to the user, ``block_reason`` blocks the action with exit 2 for the events that
    can block (the reason goes to stderr), ``plain_stdout`` is printed as is when nothing else
    is (SessionStart and UserPromptSubmit only).
    """

    __slots__ = ("additional_context", "block_reason", "plain_stdout", "system_message")

    def __init__(
        self,
        additional_context: str | None = None,
        system_message: str | None = None,
        block_reason: str | None = None,
        plain_stdout: str | None = None,
    ) -> None:
        self.additional_context = additional_context
        self.system_message = system_message
        self.block_reason = block_reason
        self.plain_stdout = plain_stdout

    def merged(self, other: HookResult | None) -> HookResult:
        """Combine two handlers' results: contexts and messages are joined, the first block
        reason wins."""
        if other is None:
            return self
        return HookResult(
            additional_context=_join(self.additional_context, other.additional_context),
            system_message=_join(self.system_message, other.system_message),
            block_reason=self.block_reason or other.block_reason,
            plain_stdout=_join(self.plain_stdout, other.plain_stdout),
        )

    def is_empty(self) -> bool:
        """True when the result asks the host for nothing."""
        return not (
            self.additional_context or self.system_message or self.block_reason or self.plain_stdout
        )


def _join(a: str | None, b: str | None) -> str | None:
    if a and b:
        return f"{a}\n\n{b}"
    return a or b


HOOK_BUSY_TIMEOUT_MS = 2000


class HookContext:
    """Everything a handler needs, with the expensive parts opened lazily and cached.

    ``location`` is ``None`` when neither the payload's ``cwd`` nor ``CLAUDE_PROJECT_DIR`` is an
    existing folder; handlers then write nothing. ``memory_dir_exists`` says whether the
    project has a ``.claude/memory`` folder (memory files are only ever written when it does).
    ``host`` is the agent whose hook this is (``claude-code``, ``codex``, ...).
    """

    __slots__ = (
        "_conn",
        "_project_id",
        "_session_id",
        "_state",
        "config",
        "env",
        "event",
        "host",
        "location",
        "memory_dir_exists",
        "payload",
    )

    def __init__(
        self,
        payload: HookPayload,
        event: str,
        location: ProjectLocation | None,
        config: Config,
        env: Mapping[str, str],
        memory_dir_exists: bool = False,
        host: str = "claude-code",
    ) -> None:
        self.payload = payload
        self.host = host
        self.event = event
        self.location = location
        self.config = config
        self.env = env
        self.memory_dir_exists = memory_dir_exists
        self._conn: sqlite3.Connection | None = None
        self._project_id: int | None = None
        self._session_id: int | None = None
        self._state: SessionState | None = None

    def __repr__(self) -> str:
        return f"HookContext(event={self.event!r}, session={self.payload.session_id!r})"

    @property
    def state(self) -> SessionState:
        """This session's hook state file (no I/O until read or updated)."""
        if self._state is None:
            from conkeeper.storage.state import SessionState

            identity = self.location.identity if self.location else "(no project)"
            root = self.location.root_folder if self.location else ""
            masked = root if identity.startswith(DIGEST_PREFIX) else ""  # named after a key
            self._state = SessionState(
                identity, self.payload.session_id, self.env, live_root=masked
            )
        return self._state

    def store(self) -> sqlite3.Connection:
        """The database connection, opened (and migrated) on first use.

        The busy timeout is shortened for hooks: a hook gives up on a locked database after
        two seconds (logged) rather than keeping the agent waiting.
        """
        if self._conn is None:
            from conkeeper.domain.paths import db_path
            from conkeeper.storage.store import open_store, set_busy_timeout

            conn = open_store(db_path(self.env))
            set_busy_timeout(conn, HOOK_BUSY_TIMEOUT_MS)
            self._conn = conn
            self._store_pending(str(db_path(self.env)))
        return self._conn

    def _store_pending(self, db_file: str) -> None:
        """Store the rows earlier hooks had to keep for later (:mod:`conkeeper.storage.pending`:
        the database was locked); one existence check when there are none."""
        import os

        from conkeeper.storage.journal import pending_file

        if self._conn is None or not os.path.exists(pending_file(db_file)):
            return
        from conkeeper.storage import pending

        try:
            pending.replay(self._conn, db_file)
        except Exception:
            from conkeeper.storage.logfile import log_exception

            log_exception(f"hook {self.event}: rows kept for later stay waiting", env=self.env)

    def keep_for_later(self, kind: str, row: Mapping[str, object]) -> None:
        """Keep a history row the database would not take (locked past the hook's wait,
        damaged) for the next hook or command to store: dropped, it was lost for good."""
        if self.location is None or not self.payload.session_id:
            return
        from conkeeper.domain.paths import db_path
        from conkeeper.storage import pending

        session = {
            "project": self.location.identity,
            "root": self.location.shown_root,  # a folder named after a key: redacted
            "name": self.location.name,
            "session": self.payload.session_id,
            "host": self.host,
            "transcript_path": self.stored_transcript_path(),
        }
        if pending.spool(str(db_path(self.env)), session, kind, row):
            self.log(f"database unavailable: {kind} kept for later", level="WARNING")

    def stored_transcript_path(self) -> str | None:
        """The transcript path as the database may keep it: a path holding a credential (a
        folder named after a key) becomes ``redacted-<digest>``; the live path stays in memory
        for whatever reads the transcript during this hook. Paths of ordinary names are not
        scanned (no secret rule is compiled for them)."""
        path = self.payload.transcript_path
        return path_without_secret(path) if path else None

    def project_id(self) -> int:
        """The ``projects.id`` of this project (inserted or touched on first use)."""
        if self._project_id is None:
            if self.location is None:
                raise RuntimeError("hook has no project (cwd and CLAUDE_PROJECT_DIR unusable)")
            from conkeeper.storage.store import ensure_project

            self._project_id = ensure_project(self.store(), self.location)
        return self._project_id

    def session_id(self) -> int:
        """The ``sessions.id`` of this host session, created on first sight."""
        if self._session_id is None:
            if self.location is None:
                raise RuntimeError("hook has no project (cwd and CLAUDE_PROJECT_DIR unusable)")
            from conkeeper.storage import sessions

            found = sessions.find_session_by_identity(
                self.store(), self.location.identity, self.payload.session_id
            )
            if found is None:
                found = sessions.ensure_session(
                    self.store(),
                    self.project_id(),
                    self.payload.session_id,
                    transcript_path=self.stored_transcript_path(),
                    host=self.host,
                )
            self._session_id = found
        return self._session_id

    def log(self, message: str, level: str = "INFO") -> None:
        """Write to ConKeeper's log, prefixed with the event and session."""
        from conkeeper.storage.logfile import log

        log(f"hook {self.event} [{self.payload.session_id}]: {message}", level=level, env=self.env)

    def close(self) -> None:
        """Close the database connection if one was opened."""
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()
