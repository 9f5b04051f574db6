"""The floor under ``conkeeper search``: the least a Python process can do to answer the same query.

Why: the issue-9 speed targets compare a whole ``conkeeper search`` process with ``grep -rin``.
To tell "ConKeeper is slow" from "Python cannot go there", :mod:`search_bench` also times this
script: it does only the work no never-stale FTS search can skip, with nothing else loaded —

* start CPython with ``-S`` (no site-packages), import only ``os``, ``sys``, ``_sqlite3``,
  ``array`` and ``_blake2`` (no pathlib, re, json, typing, argparse or ConKeeper module);
* open the index read-only and read the project root's stored fingerprint;
* walk the memory folder and ``stat`` every Markdown file, hash the stamps (the re-check that
  keeps results fresh) — it does not compare the hash with the stored one the way ConKeeper's
  format does, it only pays for computing it;
* run one BM25 x recency query over the FTS index with the project and kind filters, highlight
  the best 60 sections and print the matching lines of the first ten.

No query parsing, stopwords, fallback, line ranking, privacy, labels or error handling: the
result is cruder than ConKeeper's, so its time is a lower bound, not a competitor.

Run: ``python3 -S bench/search_floor.py WORD`` in a project folder, with ``CONKEEPER_HOME``
pointing at a data home whose index already covers that project.
"""

import _sqlite3
import os
import sys
from _blake2 import blake2b
from array import array

FETCH = 60
SHOWN = 10


def main() -> int:
    """Answer ``sys.argv[1]`` from the index of the project in the current folder."""
    word = sys.argv[1]
    memory = os.getcwd() + "/.claude/memory"
    conn = _sqlite3.connect(os.environ["CONKEEPER_HOME"] + "/conkeeper.db")
    root = conn.execute(
        "SELECT id, fingerprint FROM index_roots WHERE kind = 'project' AND path = ?", (memory,)
    ).fetchone()
    stamps(memory)
    rows = conn.execute(
        "SELECT e.id, e.line_start, bm25(index_fts, 4.0, 1.0, 0.5) * (1.0 + 0.25 / (1.0 + "
        "max(0, :now - f.file_time) / 2592000000.0)) AS score FROM index_fts "
        "JOIN index_entries e ON e.id = index_fts.rowid JOIN index_files f ON f.id = e.file_id "
        "WHERE index_fts MATCH :word AND f.root_id = :root AND f.kind = 'memory' "
        "ORDER BY score LIMIT :fetch",
        {"word": word, "now": 1_800_000_000_000, "root": root[0], "fetch": FETCH},
    ).fetchall()
    ids = ",".join(str(r[0]) for r in rows)
    bodies = dict(
        conn.execute(
            "SELECT rowid, highlight(index_fts, 1, char(1), char(2)) FROM index_fts "
            f"WHERE index_fts MATCH ? AND rowid IN ({ids or 0})",
            (word,),
        )
    )
    out = []
    for entry_id, start, _score in rows[:SHOWN]:
        for offset, line in enumerate(bodies.get(entry_id, "").split("\n")):
            if "\x01" in line:
                text = line.replace("\x01", "").replace("\x02", "")
                out.append(f"**Line {start + offset}:** {text}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def stamps(memory: str) -> str:
    """Walk ``memory``, ``stat`` every Markdown file and hash names, sizes and mtimes."""
    rels, paths = [], []
    stack = [(memory, "")]
    while stack:
        folder, prefix = stack.pop()
        with os.scandir(folder) as it:
            entries = [e for e in it if e.name[0] != "."]
        stack += [(e.path, prefix + e.name + "/") for e in entries if e.is_dir()]
        files = [e for e in entries if e.name.endswith(".md") and e.is_file()]
        rels += [prefix + e.name for e in files]
        paths += [e.path for e in files]
    stats = list(map(os.stat, paths))
    digest = blake2b("\0".join(rels).encode(), digest_size=32)
    digest.update(array("q", [s.st_size for s in stats]).tobytes())
    digest.update(array("q", [s.st_mtime_ns for s in stats]).tobytes())
    return digest.hexdigest()


if __name__ == "__main__":
    sys.exit(main())
