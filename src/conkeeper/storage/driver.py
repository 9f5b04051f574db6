"""The SQLite driver the store talks to: ``_sqlite3``, the C module behind :mod:`sqlite3`.

Why it exists: ``import sqlite3`` also loads ``sqlite3.dbapi2`` and :mod:`datetime` (about
2.5 ms, a tenth of a search's own start-up) only to register the default date adapters, which
Python 3.12 deprecates and ConKeeper never uses: every time it stores is an integer of Unix
milliseconds. ``connect``, ``Row``, the connection and cursor classes and every exception are
the very same objects in both modules. Modules on the search read path import the driver from
here; where ``_sqlite3`` does not exist (another Python implementation), this is
:mod:`sqlite3` itself.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3 as sqlite3
else:
    try:
        import _sqlite3 as sqlite3
    except ImportError:  # pragma: no cover - a Python without the C module
        import sqlite3

# SQLite's INTEGER (and so every row id) is a signed 64-bit number; binding a Python int
# outside this range raises OverflowError instead of matching nothing.
ROW_ID_MIN = -(2**63)
ROW_ID_MAX = 2**63 - 1


def fits_row_id(value: int) -> bool:
    """Whether ``value`` can be a row id at all: an id a person typed past SQLite's 64-bit
    INTEGER names no row, and is reported as not found rather than crashing the query."""
    return ROW_ID_MIN <= value <= ROW_ID_MAX


__all__ = ["ROW_ID_MAX", "ROW_ID_MIN", "fits_row_id", "sqlite3"]
