"""A saved entry lands under the heading it belongs to (``remember``, ``corrections apply``,
``reflect approve``), as an insertion of its own bytes only: CRLF, a BOM, Latin-1 bytes, fences
and comments kept, ``undo`` restoring the file byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conftest import run_cli
from conkeeper.domain.memory import parse_entries, unclosed_fence
from conkeeper.domain.placement import insertion_line, place_entry
from conkeeper.domain.safewrite import line_break
from conkeeper.services.analysis.corrections import QUEUE_HEADER, format_queue_line
from test_e2e_session import Session, set_up_project
from test_reflect_e2e import replay


def _init(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".git").mkdir()
    init = run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=root)
    assert init.returncode == 0, init.stderr
    return root, root / ".claude" / "memory"


def _section_of(text: str, words: str) -> str:
    """The heading of the bullet holding ``words``."""
    found = [e for e in parse_entries(text) if e.kind == "bullet" and words in e.text]
    assert len(found) == 1, text
    return found[0].heading


def _remember(root: Path, text: str, *extra: str) -> None:
    proc = run_cli("remember", "--source", "user", text, *extra, cwd=root)
    assert proc.returncode == 0, proc.stderr


def test_remember_files_each_category_under_its_template_heading(tmp_path: Path) -> None:
    """Found from outside: a guessed convention was appended under ``## Gotchas``, the
    template's last heading."""
    root, memory = _init(tmp_path)
    _remember(root, "Always use Decimal for money amounts")
    _remember(
        root, "Tests use the tmp_path fixture, never a shared folder", "--category", "convention"
    )
    _remember(root, "Every handler goes through the retry wrapper", "--category", "pattern")
    _remember(root, "Turns out the cache TTL is ignored when debug is on")
    text = (memory / "patterns.md").read_text(encoding="utf-8")
    assert _section_of(text, "Decimal") == "Code Conventions"
    assert _section_of(text, "tmp_path") == "Testing"
    assert _section_of(text, "retry wrapper") == "Architecture Patterns"
    assert _section_of(text, "cache TTL") == "Gotchas"
    conventions = text.split("## Code Conventions\n")[1].split("\n\n## Architecture Patterns")[0]
    assert conventions.splitlines()[0] == "- Always use Decimal for money amounts"
    assert conventions.splitlines()[1] == "<!-- @category: convention -->"


def test_a_persons_headings_last_bullet_tags_and_trailing_comment(tmp_path: Path) -> None:
    """The entry goes after the section's last bullet and its tag lines, before its trailing
    comment and blank lines; a fence and a comment are never split."""
    root, memory = _init(tmp_path)
    mine = (
        "# Patterns\n\n## Conventions:\n- Modules are lowercase.\n<!-- @category: convention -->\n"
        "```\n## not a heading\n```\n<!--\nnote\n-->\n\n\n## Gotchas\n- Old one.\n"
    )
    (memory / "patterns.md").write_text(mine, encoding="utf-8")
    _remember(root, "Use Decimal for money", "--category", "convention")
    assert (memory / "patterns.md").read_text(encoding="utf-8") == mine.replace(
        "```\n<!--",
        "```\n- Use Decimal for money\n<!-- @category: convention -->\n"
        "<!-- @source: user-cli " + _day(memory) + " -->\n<!--",
        1,
    )


def _day(memory: Path) -> str:
    text = (memory / "patterns.md").read_text(encoding="utf-8")
    return text.split("<!-- @source: user-cli ")[1][:10]


def test_crlf_bom_latin1_bytes_are_kept_and_undo_restores_exactly(tmp_path: Path) -> None:
    root, memory = _init(tmp_path)
    before = (
        b"\xef\xbb\xbf# Patterns\r\n\r\n## Code Conventions\r\n- caf\xe9 stays Latin-1\r\n"
        b"\r\n## Gotchas\r\n- Old one.\r\n"
    )
    path = memory / "patterns.md"
    path.write_bytes(before)
    _remember(root, "Use Decimal for money", "--category", "convention")
    after = path.read_bytes()
    cut = after.index(b"- Use Decimal")
    assert cut == before.index(b"\r\n## Gotchas")
    entry = after[cut : cut + len(after) - len(before)]
    assert entry.startswith(b"- Use Decimal for money\r\n<!-- @category: convention -->\r\n")
    assert after[:cut] + after[cut + len(entry) :] == before
    undone = run_cli("undo", cwd=root)
    assert undone.returncode == 0, undone.stderr
    assert path.read_bytes() == before


def test_no_fitting_heading_appends_and_a_fence_below_does_not_refuse(tmp_path: Path) -> None:
    root, memory = _init(tmp_path)
    path = memory / "patterns.md"
    path.write_text("# Patterns\n\n## Naming\n- Lowercase modules.\n", encoding="utf-8")
    _remember(root, "Use Decimal for money", "--category", "convention")
    assert path.read_text(encoding="utf-8").startswith(
        "# Patterns\n\n## Naming\n- Lowercase modules.\n- Use Decimal for money\n"
    )
    # an unclosed fence in a later section reaches only what is below it
    path.write_text("## Code Conventions\n- One.\n\n## Notes\n```\nopen\n", encoding="utf-8")
    _remember(root, "Prefer pathlib over os.path", "--category", "convention")
    assert _section_of(path.read_text(encoding="utf-8"), "pathlib") == "Code Conventions"
    refused = run_cli(
        "remember", "--source", "user", "Retry twice", "--category", "learning", cwd=root
    )
    assert refused.returncode != 0 and "never closed" in refused.stderr


def test_corrections_apply_files_the_rule_under_its_heading(tmp_path: Path) -> None:
    root, memory = _init(tmp_path)
    line = format_queue_line(
        "correction", "no, use snake_case for method names", when=1_700_000_000
    )
    (memory / "corrections-queue.md").write_text(QUEUE_HEADER + line, encoding="utf-8")
    listing = json.loads(run_cli("corrections", "list", "--json", cwd=root).stdout)
    number = listing["items"][0]["line"]
    proc = run_cli(
        "corrections", "apply", str(number), "--to", "convention", "--category", "convention",
        "--text", "Use snake_case for method names.", cwd=root,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = (memory / "patterns.md").read_text(encoding="utf-8")
    assert _section_of(text, "snake_case") == "Code Conventions"


def test_reflect_approve_files_the_convention_under_its_heading(tmp_path: Path) -> None:
    s = Session(tmp_path)
    set_up_project(s)
    replay(s)
    report = json.loads(run_cli("reflect", "--write", "--json", cwd=s.project, env=s.env).stdout)
    theme = next(r for r in report["recommendations"] if r["kind"] == "correction-theme")
    approved = run_cli("reflect", "approve", str(theme["number"]), cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    text = (s.project / ".claude" / "memory" / "patterns.md").read_text(encoding="utf-8")
    assert _section_of(text, "logging") == "Code Conventions"


_LINES = st.sampled_from(
    [
        "## Code Conventions", "## Gotchas", "# Patterns", "### Python", "- a bullet",
        "<!-- @category: convention -->", "<!--", "-->", "<!-- note -->", "```", "~~~",
        "  continued", "prose", "", "---", "caf\xe9", "<private>", "</private>",
    ]
)  # fmt: skip


@given(
    lines=st.lists(_LINES, max_size=14),
    crlf=st.booleans(),
    bom=st.booleans(),
    final_break=st.booleans(),
    category=st.sampled_from(["convention", "pattern", "bugfix", "learning", "decision"]),
)
def test_the_inserted_bytes_are_the_only_change(
    lines: list[str], crlf: bool, bom: bool, final_break: bool, category: str
) -> None:
    """Whatever the file, the new bytes are the old ones with the entry (and at most the final
    line break a file without one lacked, and a blank line after an HTML tag line, whose block
    would swallow the bullet) at one line boundary, outside any fence or comment."""
    newline = "\r\n" if crlf else "\n"
    body = newline.join(lines) + (newline if final_break and lines else "")
    current = (b"\xef\xbb\xbf" if bom else b"") + body.encode("latin-1")
    data = f"- New entry{newline}<!-- @category: {category} -->{newline}".encode()
    new, offset = place_entry(current, data, category, "New entry")
    head, tail = new[:offset], new[offset + len(data) :]
    assert new[offset : offset + len(data)] == data and current.endswith(tail)
    kept = current[: len(current) - len(tail)]
    added = head[len(kept) :]
    assert head.startswith(kept)
    last = kept.rstrip(b"\r\n").rsplit(b"\n", 1)[-1].strip()
    html = last[:1] == b"<" and (last[1:2].isalpha() or last[1:2] == b"/")
    fixed = b"" if not kept or kept.endswith((b"\n", b"\r")) else line_break(current)
    assert added == fixed + (line_break(current) if html else b"")
    assert not head or head.endswith(b"\n")
    text = current.decode("utf-8", "surrogateescape")
    if insertion_line(text, category, "New entry") is not None and unclosed_fence(text) is None:
        placed = new.decode("utf-8", "surrogateescape")
        bullets = [e for e in parse_entries(placed) if e.kind == "bullet" and "New entry" in e.text]
        assert len(bullets) == 1 and category in bullets[0].categories


def test_a_setext_heading_is_a_section(tmp_path: Path) -> None:
    """Found from outside: ``Conventions`` over ``---`` (or ``===``) was no section, so a
    convention landed under another heading."""
    root, memory = _init(tmp_path)
    path = memory / "patterns.md"
    for underline in ("---", "==="):
        mine = f"# Patterns\n\nGotchas\n{underline}\n- Old one.\n\nConventions\n{underline}\n\n"
        mine += "- Modules are lowercase.\n\n## Testing\n- Fast tests.\n"
        path.write_text(mine, encoding="utf-8")
        _remember(root, "Use Decimal for money", "--category", "convention")
        text = path.read_text(encoding="utf-8")
        assert _section_of(text, "Decimal") == "Conventions", text
        assert _section_of(text, "Old one") == "Gotchas", text
        assert text.index("Use Decimal") > text.index("Modules are lowercase")
        assert text.index("Use Decimal") < text.index("## Testing")


def test_a_heading_inside_a_comment_opened_mid_line_is_no_section(tmp_path: Path) -> None:
    """Found from outside: ``note <!--`` opened a comment whose ``## Conventions`` was taken
    for a real heading: the entry went inside the comment."""
    root, memory = _init(tmp_path)
    path = memory / "patterns.md"
    mine = (
        "# Patterns\n\n## Gotchas\n- Old one. note <!--\n## Conventions\n- hidden\n-->\n\n"
        "## Code Style\n- Tabs.\n"
    )
    path.write_text(mine, encoding="utf-8")
    _remember(root, "Use Decimal for money", "--category", "convention")
    text = path.read_text(encoding="utf-8")
    assert text.index("Use Decimal") > text.index("- Tabs.")
    assert _section_of(text, "Decimal") == "Code Style"
    assert _section_of(text, "Old one") == "Gotchas"


def test_cr_only_line_breaks_are_kept(tmp_path: Path) -> None:
    """Found from outside: a file with CR-only line breaks got its entry with LF."""
    root, memory = _init(tmp_path)
    path = memory / "patterns.md"
    before = b"# Patterns\r\r## Code Conventions\r- Old one.\r\r## Gotchas\r- Other.\r"
    path.write_bytes(before)
    _remember(root, "Use Decimal for money", "--category", "convention")
    after = path.read_bytes()
    assert b"\n" not in after
    cut = after.index(b"- Use Decimal")
    assert cut == before.index(b"\r## Gotchas")
    entry = after[cut : cut + len(after) - len(before)]
    assert entry.startswith(b"- Use Decimal for money\r<!-- @category: convention -->\r")
    assert after[:cut] + after[cut + len(entry) :] == before
    assert _section_of(after.decode(), "Decimal") == "Code Conventions"
