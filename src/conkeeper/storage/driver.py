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

__all__ = ["sqlite3"]
