"""Privacy end to end: text inside ``<private>`` blocks or ``private: true`` files never appears
in any search output (Markdown or JSON) nor anywhere in the bytes of the database and its WAL —
after indexing, after edits, after a rebuild, and after public text becomes private."""

from __future__ import annotations

import itertools
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conkeeper.services.search.engine import SearchRequest, format_markdown, search
from conkeeper.storage import index as idx

_COUNTER = itertools.count(1000)
WORDS = [
    "alpha",
    "budget",
    "cache",
    "deploy",
    "engine",
    "feature",
    "gamma",
    "token",
    "parse_config",
]


def marker() -> str:
    """A token no public text contains; ends in digits so stemming leaves it whole."""
    return f"qxzmark{next(_COUNTER)}"


@dataclass
class Doc:
    """A generated memory file and the private markers it hides."""

    text: str
    markers: list[str] = field(default_factory=list)


public_line = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


@st.composite
def private_block(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    markers = [marker() for _ in range(draw(st.integers(1, 3)))]
    inner = [f"{draw(public_line)} {m}" for m in markers]
    style = draw(st.sampled_from(["plain", "nested", "indented-tags", "unclosed", "crlf"]))
    if style == "nested":
        lines = ["<private>", inner[0], "<private>", *inner[1:], "</private>", "</private>"]
    elif style == "indented-tags":
        lines = ["  <private>  ", *inner, "\t</private>"]
    elif style == "unclosed":
        lines = ["<private>", *inner]
    else:
        lines = ["<private>", *inner, "</private>"]
    return lines, markers


@st.composite
def memory_doc(draw: st.DrawFn) -> Doc:
    if draw(st.integers(0, 6)) == 0:  # a whole private file
        markers = [marker(), marker()]
        head = draw(st.sampled_from(["private: true", "private: yes", 'private: "true"']))
        body = "\n".join(f"{draw(public_line)} {m}" for m in markers)
        return Doc(f"---\n{head}\n---\n# Secret\n{body}\n", markers)
    lines: list[str] = []
    markers: list[str] = []
    blocks = draw(st.lists(st.sampled_from(["heading", "bullet", "text", "private"]), max_size=8))
    for kind in blocks:
        if kind == "heading":
            lines += [f"## {draw(public_line)}", "<!-- @category: decision -->"]
        elif kind == "bullet":
            lines.append(f"- {draw(public_line)}")
        elif kind == "text":
            lines.append(draw(public_line))
        else:
            block, found = draw(private_block())
            lines += block
            markers += found
    ending = "\r\n" if draw(st.booleans()) else "\n"
    return Doc("# Notes" + ending + ending.join(lines) + ending, markers)


def _layout(tmp: Path, docs: list[Doc]) -> Path:
    root = tmp / "proj"
    (root / ".git").mkdir(parents=True)
    homes = [
        root / ".claude/memory",
        root / ".claude/memory/sessions",
        tmp / "home/.claude/memory",
    ]
    for i, doc in enumerate(docs):
        folder = homes[i % len(homes)]
        folder.mkdir(parents=True, exist_ok=True)
        name = f"2099-01-0{i % 9 + 1}-notes.md" if "sessions" in str(folder) else f"n{i}.md"
        (folder / name).write_bytes(doc.text.encode("utf-8"))
    return root


def _outputs(root: Path, store: idx.IndexStore, queries: list[str], secrets: list[str]) -> str:
    """Markdown and JSON of every query; a query for a secret must find nothing at all (its
    echo in the no-results sentence is the user's own text, so it is left out)."""
    texts = []
    for query in queries:
        req = SearchRequest(
            query=query, cwd=root, include_global=True, include_sessions=True, sessions_days=0
        )
        response = search(req, store)
        if any(s in query for s in secrets):
            assert response.hits == []
            continue
        texts.append(format_markdown(response))
        texts.append(json.dumps(response.to_json(), ensure_ascii=False))
    return "\n".join(texts)


def _database_bytes(db: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal"):
        part = Path(str(db) + suffix)
        if part.exists():
            data += part.read_bytes()
    return data


def _assert_hidden(markers: list[str], text: str, db: Path) -> None:
    raw = _database_bytes(db)
    for m in markers:
        assert m not in text
        assert m.encode() not in raw


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(memory_doc(), min_size=1, max_size=5), st.data())
def test_private_text_never_reaches_output_or_database(
    docs: list[Doc], data: st.DataObject
) -> None:
    tmp = Path(tempfile.mkdtemp())
    try:
        root = _layout(tmp, docs)
        db = tmp / "data" / "conkeeper.db"
        store = idx.open_index_store(db)
        markers = [m for d in docs for m in d.markers]
        queries = [*WORDS, "qxzmark*", "notes", *markers[:3]]
        _assert_hidden(markers, _outputs(root, store, queries, markers), db)

        # edit: rewrite a file with new private content and new public words
        extra = data.draw(memory_doc())
        target = next((root / ".claude/memory").glob("*.md"), root / ".claude/memory/n0.md")
        target.write_text(extra.text + "\nfresh public words\n", encoding="utf-8")
        markers += extra.markers
        _assert_hidden(markers, _outputs(root, store, [*queries, "fresh"], markers), db)

        # rebuild from scratch
        idx.clear_index(store.conn)
        _assert_hidden(markers, _outputs(root, store, queries, markers), db)
        store.conn.close()
        _assert_hidden(markers, "", db)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_text_that_becomes_private_is_scrubbed_from_the_database(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    mem = root / ".claude/memory"
    mem.mkdir(parents=True)
    secret = "walrusmark4711"
    notes = mem / "notes.md"
    notes.write_text(f"# Notes\nthe vault code is {secret}\nkeep this public\n", "utf-8")
    other = mem / "other.md"
    other.write_text(f"# Other\nanother copy {secret}\n", "utf-8")
    db = tmp_path / "db.sqlite"
    store = idx.open_index_store(db)
    first = _outputs(root, store, [secret], [])
    assert secret in first and secret.encode() in _database_bytes(db)  # public: indexed

    notes.write_text(
        f"# Notes\n<private>\nthe vault code is {secret}\n</private>\nkeep this public\n", "utf-8"
    )
    other.write_text(f"---\nprivate: true\n---\n# Other\nanother copy {secret}\n", "utf-8")
    after = _outputs(root, store, [secret, "public", "vault"], [secret])
    assert secret not in after and "keep this public" in after
    assert secret.encode() not in _database_bytes(db)
