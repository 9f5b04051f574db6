"""Retroactive tagging: a dry-run plan that changes nothing, an apply that only adds tag lines,
privacy respected, bad files contained — through the service and the ``conkeeper tag`` CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import run_cli
from conkeeper.services.upkeep.tagging import apply_tag_plan, plan_retro_tagging

PATTERNS = """\
# Patterns

## Error handling
- Always wrap HTTP calls in with_retry(); we decided on three attempts.
- Fixed the crash when the config file had a BOM; root cause was utf-8 vs utf-8-sig.
- We learned that SQLite FTS5 needs the trigram tokenizer for substring search.
<!-- @category: learning -->
- Meeting notes from Tuesday
<private>
- Decided to rotate the staging password every Friday
</private>

## Naming
Use snake_case for functions and never abbreviate module names: a naming convention.
"""

PRIVATE_FILE = (
    "---\nprivate: true\n---\n# Secrets\nWe decided to keep the vault key in 1Password.\n"
)


def make_memory(root: Path, *, crlf: bool = False, bom: bool = False) -> Path:
    memory = root / ".claude" / "memory"
    (memory / "sessions").mkdir(parents=True)
    text = PATTERNS.replace("\n", "\r\n") if crlf else PATTERNS
    (memory / "patterns.md").write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    (memory / "private-notes.md").write_text(PRIVATE_FILE, encoding="utf-8")
    machine = '- **2026-02-09 14:32:15** | correction | "we decided to fix it" | ref: x\n'
    (memory / "corrections-queue.md").write_text("# Corrections Queue\n" + machine)
    (memory / "sessions" / "2026-02-09-observations.md").write_text("# Obs\n- fixed bug\n")
    (memory / "schema.md").write_text("# Schema\n- We decided this is documentation.\n")
    return memory


def snapshot(memory: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(memory)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(memory.rglob("*"))
        if p.is_file() and ".history" not in p.relative_to(memory).parts  # the write journal
    }


def test_plan_proposes_only_sure_untagged_public_entries(tmp_path: Path) -> None:
    memory = make_memory(tmp_path)
    before = snapshot(memory)
    plan = plan_retro_tagging(memory)
    assert snapshot(memory) == before  # planning is a dry run
    assert [(c.path.name, c.line, c.kind, c.category) for c in plan] == [
        ("patterns.md", 5, "bullet", "bugfix"),
        ("patterns.md", 13, "section", "convention"),
    ]
    assert all(c.confidence >= 0.6 for c in plan)
    assert plan[0].heading == "Error handling" and plan[0].excerpt.startswith("- Fixed the crash")


@pytest.mark.parametrize(("crlf", "bom"), [(False, False), (True, False), (False, True)])
def test_apply_adds_tag_lines_and_nothing_else(tmp_path: Path, crlf: bool, bom: bool) -> None:
    memory = make_memory(tmp_path, crlf=crlf, bom=bom)
    original = (memory / "patterns.md").read_bytes()
    result = apply_tag_plan(plan_retro_tagging(memory))
    assert not result.skipped and len(result.applied) == 2
    updated = (memory / "patterns.md").read_bytes()
    eol = b"\r\n" if crlf else b"\n"
    new_lines = updated.split(eol)
    inserted = [b"<!-- @category: bugfix -->", b"<!-- @category: convention -->"]
    assert [ln for ln in new_lines if ln not in original.split(eol)] == inserted
    assert eol.join(ln for ln in new_lines if ln not in inserted) == original
    assert updated.startswith(b"\xef\xbb\xbf") == bom
    assert plan_retro_tagging(memory) == []  # a second run finds nothing left to do


def test_apply_refuses_a_file_edited_since_planning(tmp_path: Path) -> None:
    memory = make_memory(tmp_path)
    plan = plan_retro_tagging(memory)
    edited = PATTERNS + "\n- A human added this while the plan was on screen.\n"
    (memory / "patterns.md").write_text(edited, encoding="utf-8")
    result = apply_tag_plan(plan)
    assert result.applied == [] and "changed" in result.skipped[0][1]
    assert (memory / "patterns.md").read_text(encoding="utf-8") == edited


def test_bad_files_are_reported_and_left_untouched(tmp_path: Path) -> None:
    memory = make_memory(tmp_path)
    (memory / "binary.md").write_bytes(b"# Decided\x00\x01 fixed bug")
    (memory / "latin.md").write_bytes("# Décision\nWe decided on café.\n".encode("latin-1"))
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\nWe decided to keep this outside the memory root.\n")
    (memory / "linked.md").symlink_to(outside)
    before = snapshot(memory)
    outside_before = outside.read_bytes()
    warnings: list[str] = []
    plan = plan_retro_tagging(memory, warnings)
    assert {c.path.name for c in plan} == {"patterns.md"}
    assert len(warnings) == 3 and all("\n" not in w for w in warnings)
    assert any("binary" in w for w in warnings) and any("UTF-8" in w for w in warnings)
    assert any("outside" in w for w in warnings)
    apply_tag_plan(plan)
    after = snapshot(memory)
    assert {k: v for k, v in after.items() if k != "patterns.md"} == {
        k: v for k, v in before.items() if k != "patterns.md"
    }
    assert outside.read_bytes() == outside_before


def test_cli_dry_run_then_apply(tmp_path: Path) -> None:
    memory = make_memory(tmp_path)
    before = snapshot(memory)
    dry = run_cli("tag", "retro", str(memory))
    assert dry.returncode == 0, dry.stderr
    assert "--- patterns.md" in dry.stdout
    assert "+ <!-- @category: bugfix -->" in dry.stdout
    assert "Dry run: nothing was changed" in dry.stdout
    assert snapshot(memory) == before

    as_json = run_cli("tag", "retro", "--json", cwd=tmp_path)  # default: the project's memory
    payload = json.loads(as_json.stdout)
    assert payload["applied"] is False
    assert [c["category"] for c in payload["changes"]] == ["bugfix", "convention"]

    applied = run_cli("tag", "retro", "--apply", cwd=tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert "Added 2 tags in 1 files." in applied.stdout
    assert "<!-- @category: bugfix -->" in (memory / "patterns.md").read_text()
    again = run_cli("tag", "retro", cwd=tmp_path)
    assert "nothing to change" in again.stdout


def test_cli_add_remove_and_classify(tmp_path: Path) -> None:
    memory = make_memory(tmp_path)
    path = memory / "patterns.md"
    added = run_cli("tag", "add", str(path), "4", "decision")
    assert added.returncode == 0 and "added <!-- @category: decision -->" in added.stdout
    assert path.read_text().split("\n")[4] == "<!-- @category: decision -->"
    same = run_cli("tag", "add", str(path), "4", "decision", "--json")
    assert json.loads(same.stdout)["changed"] is False
    tag = run_cli("tag", "add", str(path), "4", "retries", "--tag")
    assert tag.returncode == 0
    removed = run_cli("tag", "remove", str(path), "4", "decision")
    assert removed.returncode == 0
    assert run_cli("tag", "remove", str(path), "4", "retries", "--tag").returncode == 0
    assert path.read_text() == PATTERNS

    for bad in (("4", "bogus"), ("2", "decision"), ("4", "Bad Name")):
        proc = run_cli("tag", "add", str(path), *bad)
        assert proc.returncode == 1
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert path.read_text() == PATTERNS

    sure = run_cli("tag", "classify", "--json", stdin="We decided to use SQLite, not Postgres.")
    verdict = json.loads(sure.stdout)
    assert verdict["category"] == "decision" and verdict["unsure"] is False
    unsure = run_cli("tag", "classify", "Updated", "the", "README")
    assert unsure.stdout.startswith("unsure")
    retro = run_cli("tag", "classify", "--set", "retro", "the", "message", "was", "confusing")
    assert retro.stdout.startswith("ux")


def test_cli_refuses_symlink_out_of_root_and_bad_files(tmp_path: Path) -> None:
    memory = make_memory(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n- item\n")
    link = memory / "linked.md"
    link.symlink_to(outside)
    proc = run_cli("tag", "add", str(link), "2", "decision")
    assert proc.returncode == 1 and "outside" in proc.stderr
    assert outside.read_text() == "# Outside\n- item\n"
    binary = memory / "binary.md"
    binary.write_bytes(b"# H\x00\x00\n- item\n")
    proc = run_cli("tag", "add", str(binary), "2", "decision")
    assert proc.returncode == 1 and "binary" in proc.stderr and "Traceback" not in proc.stderr
    assert binary.read_bytes() == b"# H\x00\x00\n- item\n"
    as_file = tmp_path / "file-root"
    as_file.write_text("not a folder")
    proc = run_cli("tag", "retro", str(as_file))
    assert proc.returncode == 1 and "is a file" in proc.stderr
    assert proc.stderr.count("\n") == 1
    if os.name == "posix":
        assert as_file.read_text() == "not a folder"


def test_cli_retro_on_one_file(tmp_path: Path) -> None:
    memory = make_memory(tmp_path)
    (memory / "progress.md").write_text("# Progress\n- Fixed the flaky test by closing the db.\n")
    proc = run_cli("tag", "retro", str(memory / "progress.md"), "--apply", "--json")
    assert proc.returncode == 0, proc.stderr
    changes = json.loads(proc.stdout)["changes"]
    assert [(c["line"], c["category"]) for c in changes] == [(2, "bugfix")]
    assert "<!-- @category: bugfix -->" in (memory / "progress.md").read_text()
    assert "@category" not in (memory / "patterns.md").read_text().split("## Naming")[1]
