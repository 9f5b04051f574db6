"""Small helpers shared by host modules: reading payload fields and building output.

Kept tiny and standard-library only, because every hook process imports it.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_CONTEXT_CHARS = 9000
MAX_MESSAGE_CHARS = 2000
TRUNCATION_NOTE = "\n[ConKeeper: context truncated to fit the hook output limit]"


def cap_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, with a note saying it was cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(TRUNCATION_NOTE))] + TRUNCATION_NOTE


def text_of(value: object) -> str | None:
    """A string field as text (numbers become text); anything else ``None``."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def first_root(obj: dict[str, Any], key: str) -> str | None:
    """The first string of a list field such as ``workspace_roots``."""
    value = obj.get(key)
    if isinstance(value, list):
        for item in value:
            if isinstance(item, str) and item:
                return item
    return text_of(value)


def as_object(value: object) -> dict[str, Any]:
    """A dict field, or a JSON-encoded dict in a string (Copilot's ``toolArgs``); else {}."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            decoded = json.loads(value)
        except ValueError:
            return {}
        return decoded if isinstance(decoded, dict) else {}
    return {}


def context_and_message(result: Any) -> tuple[str | None, str | None]:
    """The result's model context (plain stdout counts as context) and user message, capped."""
    context = result.additional_context or result.plain_stdout
    message = result.system_message
    return (
        cap_text(context, MAX_CONTEXT_CHARS) if context else None,
        cap_text(message, MAX_MESSAGE_CHARS) if message else None,
    )


def dump(obj: dict[str, Any]) -> str:
    """One line of JSON for stdout."""
    return json.dumps(obj, ensure_ascii=False) + "\n"


def block(reason: str) -> tuple[str, str, int]:
    """The common block contract: exit 2 with the reason on stderr."""
    return "", cap_text(reason.strip(), MAX_MESSAGE_CHARS) + "\n", 2


def render_hook_output(
    event: str,
    result: Any,
    context_events: frozenset[str],
    blocking_events: frozenset[str],
) -> tuple[str, str, int]:
    """``(stdout, stderr, exit)`` for agents that share Claude Code's output shape
    (``hookSpecificOutput.additionalContext`` and ``systemMessage``, exit 2 to block), each with
    its own event names: context goes to the model only where ``event`` accepts it, else it is
    shown to the user with the message."""
    if result is None or result.is_empty():
        return "", "", 0
    if result.block_reason and event in blocking_events:
        return block(result.block_reason)
    context, message = context_and_message(result)
    out: dict[str, Any] = {}
    if context and event in context_events:
        out["hookSpecificOutput"] = {"hookEventName": event, "additionalContext": context}
    elif context:
        message = f"{message}\n\n{context}" if message else context
    if message:
        out["systemMessage"] = message
    return (dump(out), "", 0) if out else ("", "", 0)
