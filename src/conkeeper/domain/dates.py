"""The one parser for every ``--since`` / ``--until`` a person types.

Why it exists: each command used to read dates its own way (``search --since 7d`` worked,
``insights --since 7d`` and ``--since yesterday`` were refused). Every command with such a flag
now calls :func:`parse_when`, so they all accept the same forms:

* an ISO date, ``2026-01-31`` (local midnight; as an upper bound, the end of that day);
* an ISO date-time, ``2026-01-31T14:00`` or ``2026-01-31 14:00:00+01:00``;
* a span ago, ``12h``, ``7d``, ``2w`` (a space before the unit is allowed);
* ``today`` and ``yesterday`` (local midnight; as an upper bound, the end of that day).

Standard library only, and ``datetime`` is imported only when a date is parsed, so a command
that is not given a date (a search, say) pays nothing for this module.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

UNIT_SECONDS = {"h": 3600, "d": 86_400, "w": 7 * 86_400}
_DAY_WORDS = {"today": 0, "yesterday": 1}
FORMS = "a date like 2026-01-31, 7d, 2w, 12h, today or yesterday"


class DateError(ValueError):
    """A date a person typed that none of the accepted forms reads; the message says which
    forms are accepted."""


def parse_when(text: str, *, end: bool = False, now: float | None = None) -> int:
    """``text`` as Unix milliseconds.

    ``end`` reads it as an upper bound (``--until``): a bare day (``2026-01-31``, ``today``,
    ``yesterday``) then means the first instant after that day, so ``--until today`` includes
    today; spans ago and date-times are instants either way. ``now`` (Unix seconds) is for tests.
    Raises :class:`DateError` for anything else.
    """
    value = text.strip().lower()
    clock = time.time() if now is None else now
    span = _span_seconds(value)
    if span is not None:
        return int((clock - span) * 1000)
    if value in _DAY_WORDS:
        return _day_start(clock, _DAY_WORDS[value] - (1 if end else 0))
    from datetime import datetime  # only here: parsing a date is rare

    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise DateError(f"{text!r} is not a date: expected {FORMS}") from None
    if end and len(text.strip()) == 10:  # a bare day as an upper bound: up to its end
        return int(parsed.timestamp() * 1000) + _day_length_ms(parsed)
    return int(parsed.timestamp() * 1000)


def _span_seconds(value: str) -> int | None:
    """``7d`` / ``2w`` / ``12h`` as seconds, else ``None``."""
    number = value[:-1].rstrip()
    if value[-1:] not in UNIT_SECONDS or not number.isdecimal():
        return None
    return int(number) * UNIT_SECONDS[value[-1]]


def _day_start(clock: float, days_ago: int) -> int:
    """Local midnight ``days_ago`` days before the day of ``clock`` (negative: after it)."""
    from datetime import datetime, timedelta

    today = datetime.fromtimestamp(clock).replace(hour=0, minute=0, second=0, microsecond=0)
    return int((today - timedelta(days=days_ago)).timestamp() * 1000)


def _day_length_ms(day_start: datetime) -> int:
    """Milliseconds from a local midnight to the next one (23 or 25 hours across a clock
    change)."""
    from datetime import timedelta

    following = (day_start + timedelta(days=1)).timestamp()
    return int((following - day_start.timestamp()) * 1000)
