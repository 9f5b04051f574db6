"""Save reminders (F9, the Memory Keeper design): a short nudge every ``save_interval`` tool uses.

The counter lives in the session's hook state and is changed only inside
:meth:`SessionState.update`, so parallel PostToolUse hooks never lose a count or fire twice.
It resets when the reminder fires *and* when a save is recorded (``conkeeper sync mark
--save``), so the reminder never repeats on every call afterwards (spec §7).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COUNTER_KEY = "tool_count_since_save"


def tick(state: dict[str, Any], interval: int) -> int | None:
    """Inside a state update: count one tool use; return the count when a reminder is due.

    ``interval`` 0 (or less) turns reminders off; the counter is then left alone.
    """
    if interval <= 0:
        return None
    current = state.get(COUNTER_KEY)
    count = (current if isinstance(current, int) and not isinstance(current, bool) else 0) + 1
    if count >= interval:
        state[COUNTER_KEY] = 0
        state["reminders_sent"] = int(state.get("reminders_sent") or 0) + 1
        return count
    state[COUNTER_KEY] = count
    return None


def reset(state: dict[str, Any]) -> None:
    """Inside a state update: a save was recorded; start counting again."""
    state[COUNTER_KEY] = 0


def reminder_text(count: int) -> str:
    """The instruction injected into the model's context (kept short: it recurs)."""
    return (
        f"[ConKeeper] {count} tool uses since the last save. Save progress to memory now: "
        "update .claude/memory/active-context.md (current focus, recent changes, next steps) "
        "and progress.md if a task finished, then run `conkeeper sync mark --save`. "
        "Keep it brief and continue the task."
    )
