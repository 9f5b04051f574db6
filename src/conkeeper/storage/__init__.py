"""Storage: the SQLite store, its migrations, the search index and per-session hook state."""
