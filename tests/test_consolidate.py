"""``conkeeper consolidate``: duplicates merged on ``--apply``; contradictions shown with both
entries, where and when each was written, and resolved only by ``--keep FILE:LINE``; every
change a journaled byte edit (``conkeeper undo``) that keeps what a person appended meanwhile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import load_script, run_cli
from conkeeper.domain.textio import MemoryFileError
from conkeeper.services.upkeep.freshness import consolidate

ROOT = Path(__file__).resolve().parents[1]
T0 = 1_767_000_000

PATTERNS = """# Patterns

## Code Conventions
- Wrap every outbound HTTP call in with_retry with three attempts and exponential backoff.
<!-- @category: convention -->
- Always run the formatter before committing changes to the parser module.
- Keep functions short and give every public module a docstring.
"""
ADR = """# ADR-001: Retries

## Decision
- Wrap every outbound HTTP call in with_retry, three attempts, exponential backoff.
"""
ACTIVE = """# Active Context

## Recent Decisions
- Never run the formatter before committing changes to the parser module.
"""


def git(root: Path, *args: str, when: int = T0) -> None:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="Dev",
        GIT_AUTHOR_EMAIL="dev@example.com",
        GIT_COMMITTER_NAME="Dev",
        GIT_COMMITTER_EMAIL="dev@example.com",
        GIT_AUTHOR_DATE=f"@{when} +0000",
        GIT_COMMITTER_DATE=f"@{when} +0000",
    )
    subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True)


def head(root: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    memory = root / ".claude" / "memory"
    (memory / "decisions").mkdir(parents=True)
    git(root, "init", "-q")
    (memory / "patterns.md").write_text(PATTERNS, encoding="utf-8")
    (memory / "decisions" / "ADR-001-retries.md").write_text(ADR, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "patterns and ADR", when=T0)
    (memory / "active-context.md").write_text(ACTIVE, encoding="utf-8")
    git(root, "add", "-A", when=T0 + 86400 * 30)
    git(root, "commit", "-q", "-m", "active context", when=T0 + 86400 * 30)
    return root


def memory(root: Path) -> Path:
    return root / ".claude" / "memory"


def proposals(root: Path) -> dict[str, dict]:
    result = run_cli("consolidate", "--json", cwd=root)
    assert result.returncode == 0, result.stderr
    return {p["kind"]: p for p in json.loads(result.stdout)["proposals"]}


def test_proposals_are_shown_and_nothing_changes(repo: Path) -> None:
    before = (memory(repo) / "patterns.md").read_bytes()
    result = run_cli("consolidate", "--json", cwd=repo)
    data = json.loads(result.stdout)
    kinds = {p["kind"]: p for p in data["proposals"]}
    assert kinds["duplicate"]["keep"] == "decisions/ADR-001-retries.md:4"
    assert kinds["duplicate"]["remove"] == "patterns.md:4"
    assert "--- a/.claude/memory/patterns.md" in data["diff"]
    assert "-<!-- @category: convention -->" in data["diff"]  # the tag goes with its entry
    assert "\n-- Always run the formatter" not in data["diff"]  # a contradiction is never merged
    assert data["applied"] == []
    assert (memory(repo) / "patterns.md").read_bytes() == before


def test_contradiction_shows_both_entries_and_when_each_was_written(repo: Path) -> None:
    contradiction = proposals(repo)["contradiction"]
    assert contradiction["keep"] is None and contradiction["remove"] is None
    entries = {e["where"]: e for e in contradiction["entries"]}
    assert set(entries) == {"patterns.md:6", "active-context.md:4"}
    assert entries["patterns.md:6"]["text"].startswith("- Always run the formatter")
    # local days of the two commits (2025-12-29 and 2026-01-28 in UTC; a day earlier in Alaska)
    first, second = (time.strftime("%Y-%m-%d", time.localtime(t)) for t in (T0, T0 + 86400 * 30))
    assert entries["patterns.md:6"]["written"].startswith(f"{first}, commit ")
    assert entries["active-context.md:4"]["written"] == (
        f"{second}, commit {head(repo)} (git blame)"
    )
    assert sorted(contradiction["resolve"]) == [
        "conkeeper consolidate --keep active-context.md:4",
        "conkeeper consolidate --keep patterns.md:6",
    ]
    text = run_cli("consolidate", cwd=repo).stdout
    assert "[contradiction]" in text and f"patterns.md:6  (written {first}, commit" in text
    assert "resolve with: conkeeper consolidate --keep" in text


def test_uncommitted_and_untracked_entries_are_dated_by_the_file(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write("# Progress\n\n- Never run the formatter before committing changes to the ")
        handle.write("parser module.\n")
    entries = {
        e["where"]: e["written"]
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
        for e in p["entries"]
    }
    assert entries["progress.md:3"].endswith(", file modified (not in git)")
    with (memory(repo) / "active-context.md").open("a", encoding="utf-8") as handle:
        handle.write("- Always use float for prices.\n- Money is always `Decimal`.\n")
    entries = {
        e["where"]: e["written"]
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
        for e in p["entries"]
    }
    assert entries["active-context.md:5"].endswith(", not committed yet (file modified)")


def test_an_entry_conkeeper_wrote_is_dated_from_the_journal(repo: Path) -> None:
    from conkeeper.services.analysis.routing import add_entry

    add_entry(
        memory(repo), "patterns.md", "Always use float for prices.", "convention", source="mcp"
    )
    (memory(repo) / "glossary.md").write_text("# Glossary\n\n- Money is always `Decimal`.\n")
    pair = next(
        p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
        if "glossary.md:3" in {e["where"] for e in p["entries"]}
    )
    written = {e["where"].split(":")[0]: e["written"] for e in pair["entries"]}
    assert written["patterns.md"].endswith(", by 'remember' (mcp, ConKeeper journal)")
    assert written["glossary.md"].endswith(", file modified (not in git)")  # a person's file


def test_apply_merges_duplicates_and_never_touches_a_contradiction(repo: Path) -> None:
    result = run_cli("consolidate", "--apply", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "Applied: 1 file(s) changed" in result.stdout
    assert "never resolved automatically" in result.stdout
    patterns = (memory(repo) / "patterns.md").read_text(encoding="utf-8")
    assert "with_retry" not in patterns and "@category: convention" not in patterns
    assert "- Always run the formatter" in patterns  # both sides of the contradiction stay
    assert "- Never run the formatter" in (memory(repo) / "active-context.md").read_text()
    again = proposals(repo)
    assert "duplicate" not in again and "contradiction" in again


def test_float_prices_against_decimal_money_is_a_contradiction(repo: Path) -> None:
    (memory(repo) / "patterns.md").write_text(
        PATTERNS + "- Always use float for prices.\n", encoding="utf-8"
    )
    (memory(repo) / "glossary.md").write_text("# Glossary\n\n- Money is always `Decimal`.\n")
    found = [
        p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
        if {"patterns.md:8", "glossary.md:3"} == {e["where"] for e in p["entries"]}
    ]
    assert [p["kind"] for p in found] == ["contradiction"]
    run_cli("consolidate", "--apply", cwd=repo)
    assert "- Always use float for prices." in (memory(repo) / "patterns.md").read_text()
    assert "- Money is always `Decimal`." in (memory(repo) / "glossary.md").read_text()


def test_keep_resolves_a_contradiction_by_choice_and_undo_restores_it(repo: Path) -> None:
    path = memory(repo) / "active-context.md"
    before = path.read_bytes()
    result = run_cli("consolidate", "--keep", "patterns.md:6", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert b"Never run the formatter" not in path.read_bytes()
    assert "- Always run the formatter" in (memory(repo) / "patterns.md").read_text()
    assert "with_retry" in (memory(repo) / "patterns.md").read_text()  # no --apply: no merge
    history = json.loads(run_cli("history", "--json", cwd=repo).stdout)
    assert history[0]["command"] == "consolidate --keep patterns.md:6"
    assert run_cli("undo", cwd=repo).returncode == 0
    assert path.read_bytes() == before


def test_keep_accepts_the_path_from_the_project_root_and_any_line_of_the_entry(
    repo: Path,
) -> None:
    result = run_cli("consolidate", "--keep", ".claude/memory/active-context.md:4", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "Always run the formatter" not in (memory(repo) / "patterns.md").read_text()


def test_keep_of_an_entry_in_no_pair_is_refused_and_changes_nothing(repo: Path) -> None:
    before = {p: p.read_bytes() for p in memory(repo).rglob("*.md")}
    result = run_cli("consolidate", "--keep", "patterns.md:7", cwd=repo)
    assert result.returncode != 0
    assert "patterns.md:7 is not part of a proposed duplicate or contradiction" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert {p: p.read_bytes() for p in memory(repo).rglob("*.md")} == before


def test_merge_is_a_byte_edit_of_the_lines_concerned(repo: Path) -> None:
    raw = (
        PATTERNS.replace("\n", "\r\n").encode("utf-8")
        + b"- Caf\xe9 notes kept in Latin-1 by an old editor.\r\n"
    )
    (memory(repo) / "patterns.md").write_bytes(raw)
    assert run_cli("consolidate", "--apply", cwd=repo).returncode == 0
    removed = (
        b"- Wrap every outbound HTTP call in with_retry with three attempts and exponential "
        b"backoff.\r\n<!-- @category: convention -->\r\n"
    )
    assert (memory(repo) / "patterns.md").read_bytes() == raw.replace(removed, b"")
    history = json.loads(run_cli("history", "--json", cwd=repo).stdout)
    assert history[0]["command"] == "consolidate --apply"
    assert history[0]["files"] and "patterns.md" in str(history[0]["files"][0])
    assert run_cli("undo", cwd=repo).returncode == 0
    assert (memory(repo) / "patterns.md").read_bytes() == raw


def test_a_line_appended_by_a_person_meanwhile_is_kept(repo: Path) -> None:
    folder = memory(repo)
    proposal = consolidate.plan(repo, folder)
    assert proposal.merges
    with (folder / "patterns.md").open("a", encoding="utf-8") as handle:
        handle.write("- A line the user added meanwhile.\n")
    consolidate.apply(proposal, folder)
    text = (folder / "patterns.md").read_text(encoding="utf-8")
    assert text.endswith("- A line the user added meanwhile.\n")
    assert "with_retry" not in text


def test_an_entry_changed_since_the_proposal_is_refused(repo: Path) -> None:
    folder = memory(repo)
    proposal = consolidate.plan(repo, folder)
    edited = PATTERNS.replace("three attempts and", "four attempts and")
    (folder / "patterns.md").write_text(edited, encoding="utf-8")
    with pytest.raises(MemoryFileError, match=r"patterns\.md:4 changed since it was read"):
        consolidate.apply(proposal, folder)
    assert (folder / "patterns.md").read_text(encoding="utf-8") == edited


def test_private_entries_are_never_proposed(repo: Path) -> None:
    (memory(repo) / "secret.md").write_text(
        "---\nprivate: true\n---\n- Wrap every outbound HTTP call in with_retry, three "
        "attempts, exponential backoff.\n",
        encoding="utf-8",
    )
    data = json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)
    assert all("secret.md" not in json.dumps(p["entries"]) for p in data["proposals"])


def test_diff_never_shows_private_lines(repo: Path) -> None:
    text = PATTERNS.replace(
        "- Keep functions short",
        "<private>\nThe staging password is hunter2-staging.\n</private>\n- Keep functions short",
    )
    (memory(repo) / "patterns.md").write_text(text, encoding="utf-8")
    data = json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)
    assert data["proposals"] and "hunter2" not in json.dumps(data)
    assert run_cli("consolidate", "--apply", cwd=repo).returncode == 0
    assert "hunter2-staging" in (memory(repo) / "patterns.md").read_text(encoding="utf-8")


def test_quality_bench_tiny_reports_tuning_and_blind_apart(tmp_path: Path) -> None:
    out = tmp_path / "quality.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "consolidate_quality.py"), "--tiny", "--out", out],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["tiny"] is True and report["targets"]["wrong_deletions"] == 0
    for name in ("tuning", "blind"):
        assert report[name]["pairs"] == 12
        assert report[name]["auto_contradiction_deletions"] == 0
    assert "== tuning set" in result.stdout and "== blind set" in result.stdout


def test_a_person_appending_while_apply_runs_loses_nothing(repo: Path) -> None:
    import threading

    path = memory(repo) / "patterns.md"
    stop = threading.Event()
    written: list[str] = []

    def person() -> None:
        number = 0
        while not stop.is_set():
            line = f"- Note {number} typed by the person.\n"
            with path.open("a", encoding="utf-8") as handle:  # no lock: an editor or a shell
                handle.write(line)
            written.append(line)
            number += 1
            stop.wait(0.0005)  # pacing, not timing: keeps the file far below the read limit

    duplicate = PATTERNS.splitlines(keepends=True)[3]  # the copy of the ADR's rule
    appender = threading.Thread(target=person)
    appender.start()
    try:
        for _ in range(3):
            result = run_cli("consolidate", "--apply", cwd=repo)
            assert result.returncode == 0, result.stderr
            with path.open("a", encoding="utf-8") as handle:  # the copy comes back: merge again
                handle.write(duplicate)
    finally:
        stop.set()
        appender.join()
    text = path.read_text(encoding="utf-8")
    assert written and all(line in text for line in written)
    assert text.count("- Note ") == len(written)
    assert text.count(duplicate) == 1  # each round merged the copy; the last one is new


def test_keep_chooses_which_copy_of_a_duplicate_stays(repo: Path) -> None:
    result = run_cli("consolidate", "--keep", "patterns.md:4", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "with_retry with three attempts" in (memory(repo) / "patterns.md").read_text()
    assert "with_retry" not in (memory(repo) / "decisions" / "ADR-001-retries.md").read_text()
    assert "- Never run the formatter" in (memory(repo) / "active-context.md").read_text()


def test_quality_bench_reports_a_new_blind_set_apart_and_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_script("bench/consolidate_quality.py")
    pair = {"a": "- Use tabs.", "b": "- Indent with spaces.", "label": "contradiction"}
    lines = "".join(json.dumps(pair) + "\n" for _ in range(13))
    for name in ("tuning_pairs.jsonl", "blind_pairs.jsonl", "blind_pairs22.jsonl"):
        (tmp_path / name).write_text(lines, encoding="utf-8")
    monkeypatch.setattr(bench, "DATA", tmp_path)
    monkeypatch.setattr(bench, "SETS", {k: tmp_path / v.name for k, v in bench.SETS.items()})
    out = tmp_path / "out.json"
    assert bench.main(["--tiny", "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["first_blind"] == [] and "blind22" not in report  # never cut short by --tiny
    assert bench.main(["--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["first_blind"] == ["blind22"] and report["blind22"]["pairs"] == 13
    assert "FIRST BLIND MEASUREMENT: blind_pairs22.jsonl" in capsys.readouterr().out


def test_leave_one_author_out_tool_reports_each_author(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "consolidate_cv.py"), "--current"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [f"author{n}" for n in range(1, 30)]
    assert all("wrong merges 0" in line for line in lines)  # the shipped limits delete no rule


def test_an_entry_said_whole_in_one_clause_of_a_longer_one_is_its_duplicate(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write("# Progress\n\n- The docs deploy to GitHub Pages.\n")
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- Docs deploy to GitHub Pages from the `gh-pages` branch, the "
            "`docs.yml` workflow pushes there after every merge to main (takes ~4 min).\n"
        )
    found = [
        p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
        if {e["file"] for e in p["entries"]} == {"progress.md", "product-context.md"}
    ]
    assert [p["kind"] for p in found] == ["duplicate"]
    assert found[0]["reason"].startswith("says the same thing (with more detail)")


def test_a_longer_entry_placed_somewhere_narrower_is_no_duplicate(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write("# Progress\n\n- Clippy runs with `-D warnings`.\n")
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- In the `examples/` directory clippy is run without `-D warnings`, "
            "they are for learning not perfection.\n"
        )
    before = (memory(repo) / "progress.md").read_bytes()
    result = run_cli("consolidate", "--apply", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert (memory(repo) / "progress.md").read_bytes() == before  # the general rule stays
    assert "clippy" in (memory(repo) / "product-context.md").read_text(encoding="utf-8")


def test_all_pairs_check_judges_every_merge_against_the_labels(tmp_path: Path) -> None:
    tool = load_script("tools/consolidate_cv.py")
    decimal, money, amounts = (
        "- Use `Decimal` for money.",
        "- Money is always `Decimal`.",
        "- All monetary amounts are `Decimal`.",
    )
    rows = [
        {"a": decimal, "b": money, "label": "duplicate"},
        {"a": money, "b": amounts, "label": "compatible"},  # a merge a pair-level check misses
        {"a": decimal, "b": "- Prefer small PRs.", "label": "unrelated"},
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    shown: list[str] = []
    counts = tool.all_pairs(path, tool.relations.LIMITS, shown)
    assert counts["right_merges"] == 1
    assert counts["labelled_wrong_merges"] + counts["implied_wrong_merges"] == 1
    assert any("All monetary amounts" in text for text in shown)
    bullets = tool.Bullets(path)
    first, second, third = (bullets.texts.index(t) for t in (decimal, money, amounts))
    assert bullets.verdict(first, second) == "right_merges"
    assert bullets.verdict(second, third) == "labelled_wrong_merges"
    assert bullets.verdict(first, third) == "implied_wrong_merges"  # decimal = money != amounts


def test_missed_duplicates_are_counted_by_kind_and_cause(tmp_path: Path) -> None:
    tool = load_script("tools/consolidate_cv.py")
    rows = [
        {"a": "- Use `Decimal` for money.", "b": "- Money is always `Decimal`.", "kind": "order"},
        {"a": "- Large refactors need an ADR first.", "b": "- Ship small PRs.", "kind": "other"},
        {"a": "- Never squash merge.", "b": "- Always squash merge.", "kind": "other"},
        {"a": "- Retries: 3.", "b": "- Deploy on Fridays.", "label": "unrelated"},
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        "".join(json.dumps({"label": "duplicate", **row}) + "\n" for row in rows), encoding="utf-8"
    )
    counts = tool.misses(path, tool.relations.LIMITS)
    assert set(counts) == {"order", "other"}  # a pair labelled apart is no miss
    assert counts["order"]["pairs"] == 1
    assert sum(counts["order"][cause] for cause in tool.MISS_CAUSES) == 0  # merged
    assert counts["other"]["pairs"] == 2
    assert counts["other"]["not compared"] == 1  # no word shared: never compared
    assert counts["other"]["read as a contradiction"] == 1


def test_a_permission_granting_what_the_other_entry_forbids_is_a_contradiction(
    repo: Path,
) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Progress\n\n- The admin app is allowed to show full patient names to support "
            "staff.\n- For the data team, BigQuery on-demand pricing is fine.\n"
        )
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- Support staff must never see full patient names in the admin app, "
            "only initials.\n- BigQuery slots: we never reserved any, on-demand only.\n"
        )
    found = {
        tuple(sorted(e["where"] for e in p["entries"])): p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
    }
    names = found[("product-context.md:3", "progress.md:3")]
    assert names["kind"] == "contradiction"
    assert names["reason"] == "one allows what the other forbids"
    assert ("product-context.md:4", "progress.md:4") not in found  # "only X" and "X is fine"


def test_a_change_note_meets_only_the_entries_about_what_changed(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Progress\n\n- The React admin app authenticates through Entra ID (formerly "
            "Azure AD) using MSAL.\n"
        )
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- Admin app CI builds with Node 18.\n"
            "- The admin app logs in through Azure AD.\n"
        )
    found = {
        tuple(sorted(e["where"] for e in p["entries"])): p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
    }
    assert ("product-context.md:3", "progress.md:3") not in found  # the build did not change
    changed = found[("product-context.md:4", "progress.md:3")]
    assert (changed["kind"], changed["reason"]) == (
        "contradiction",
        "one note says the other changed",
    )


def test_two_notes_merely_naming_rival_tools_are_no_contradiction(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Progress\n\n- Terraform state locks live in the DynamoDB table `tf-locks` of "
            "the shared account.\n- Use pnpm.\n"
        )
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- Postgres backups are automated RDS snapshots, kept 35 days.\n"
            "- We use yarn.\n"
        )
    found = {
        tuple(sorted(e["where"] for e in p["entries"])): p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
    }
    assert ("product-context.md:3", "progress.md:3") not in found  # nothing chosen between them
    rivals = found[("product-context.md:4", "progress.md:4")]
    assert rivals["kind"] == "contradiction" and "pnpm" in rivals["reason"]


def test_values_of_two_different_settings_are_no_contradiction(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Progress\n\n- Rate-limit counters live in Redis db 2 so they can be flushed "
            "without touching sessions.\n- The API listens on port 8080.\n"
        )
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write("# Product\n\n- ElastiCache Redis version is 7.1.\n- The API port is 3000.\n")
    found = {
        tuple(sorted(e["where"] for e in p["entries"])): p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
    }
    assert ("product-context.md:3", "progress.md:3") not in found  # a db number, a version
    port = found[("product-context.md:4", "progress.md:4")]
    assert port["kind"] == "contradiction" and "8080" in port["reason"]


def test_a_note_that_a_named_tool_is_gone_contradicts_an_entry_using_it(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Progress\n\n- Metrics are scraped into our Graphite cluster.\n"
            "- Feature flags are removed two sprints after full rollout.\n"
        )
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- Graphite was shut down in May; metrics go to Prometheus.\n"
            "- Feature flags live in Unleash.\n"
        )
    found = {
        tuple(sorted(e["where"] for e in p["entries"])): p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
    }
    gone = found[("product-context.md:3", "progress.md:3")]
    assert (gone["kind"], gone["reason"]) == (
        "contradiction",
        "one note says what the other uses is gone",
    )
    assert ("product-context.md:4", "progress.md:4") not in found  # flags retire no tool


def test_a_rule_and_the_same_rule_with_its_reason_merge(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Progress\n\n- Restart the worker after a deploy because the old code stays "
            "loaded in memory.\n"
        )
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- The old code stays loaded in the worker after a deploy, so restart "
            "it.\n- Restart the worker after a deploy unless the old code stays loaded in "
            "memory.\n"
        )
    found = {
        tuple(sorted(e["where"] for e in p["entries"])): p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
    }
    assert found[("product-context.md:3", "progress.md:3")]["kind"] == "duplicate"
    # an exception ("unless") is a special case, never that rule said twice
    assert all(
        p["kind"] != "duplicate" for where, p in found.items() if "product-context.md:4" in where
    )


def test_a_merge_keeps_the_entry_with_more_detail_not_the_older_copy(repo: Path) -> None:
    short = memory(repo) / "progress.md"
    short.write_text("# Progress\n\n- The docs deploy to GitHub Pages.\n", encoding="utf-8")
    detailed = memory(repo) / "product-context.md"
    detailed.write_text(
        "# Product\n\n- Docs deploy to GitHub Pages from the `gh-pages` branch, the "
        "`docs.yml` workflow pushes there after every merge to main.\n",
        encoding="utf-8",
    )
    os.utime(short, (T0, T0))  # the short copy is the older one
    result = run_cli("consolidate", "--apply", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "GitHub Pages" not in short.read_text(encoding="utf-8")
    assert "`docs.yml` workflow" in detailed.read_text(encoding="utf-8")


def test_a_merge_within_one_rank_never_removes_the_newer_copy(repo: Path) -> None:
    older = memory(repo) / "progress.md"
    older.write_text(
        "# Progress\n\n- Restart the worker after a deploy because the old code stays loaded "
        "in memory.\n",
        encoding="utf-8",
    )
    newer = memory(repo) / "product-context.md"
    newer.write_text(
        "# Product\n\n- The old code stays loaded in the worker after a deploy, so restart it.\n",
        encoding="utf-8",
    )
    os.utime(older, (T0, T0))
    os.utime(newer, (T0 + 86400, T0 + 86400))
    result = run_cli("consolidate", "--apply", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "Restart the worker" not in older.read_text(encoding="utf-8")
    assert "so restart it" in newer.read_text(encoding="utf-8")


def test_an_entry_that_says_it_is_an_exception_is_never_merged_into_the_rule(repo: Path) -> None:
    """ "Except the billing export: ... reads from the primary" names every word of "Analytics
    jobs read from the replica" and said nothing against it in the rule's own words, so it was
    taken for the rule with more detail and `--apply` removed the rule (blind pairs 8's one
    wrong deletion, after its measurement). An entry that calls itself an exception is a
    special case of the rule, never the rule said again."""
    rule = memory(repo) / "progress.md"
    rule.write_text("# Progress\n\n- Analytics jobs read from the replica.\n", encoding="utf-8")
    exception = memory(repo) / "product-context.md"
    exception.write_text(
        "# Product\n\n- Except the billing export analytics job: replica lag is too much for it, "
        "it reads from the primary.\n",
        encoding="utf-8",
    )
    result = run_cli("consolidate", "--apply", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "read from the replica" in rule.read_text(encoding="utf-8")
    assert all(p["kind"] != "duplicate" for p in proposals(repo).values())


def test_two_code_spans_given_for_one_setting_contradict(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Progress\n\n- Gunicorn worker class must be `gevent`.\n"
            "- The lint config lives in `ruff.toml`.\n"
        )
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- Gunicorn `worker_class` is `sync`.\n"
            "- The type-check config lives in `mypy.ini`.\n"
        )
    found = {
        tuple(sorted(e["where"] for e in p["entries"])): p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
    }
    worker = found[("product-context.md:3", "progress.md:3")]
    assert worker["kind"] == "contradiction"
    assert sorted(worker["reason"].split(" against ")) == ["gevent", "sync"]
    assert ("product-context.md:4", "progress.md:4") not in found  # two configs, two files


def _values_in(reason: str) -> set[str]:
    """The values a contradiction's reason sets against each other ("key: A against B")."""
    return set(reason.rpartition(": ")[2].split(" against "))


def test_bounds_and_rates_said_in_words_are_values(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Progress\n\n- Search API throttle: 300 requests per minute per key.\n"
            "- Usernames are at least 3 characters long (validated in `UsernameField`).\n"
            "- Guests can book at most 3 rooms per stay.\n"
        )
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- Search API rate limit per key is 10 req/s.\n"
            "- Username min length: 5 chars.\n"
            "- Max 5 rooms per guest booking.\n"
        )
    found = {
        tuple(sorted(e["where"] for e in p["entries"])): p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
    }
    rate = found[("product-context.md:3", "progress.md:3")]  # 300/min is 5/s
    assert rate["kind"] == "contradiction" and {"5req/s", "10req/s"} <= _values_in(rate["reason"])
    length = found[("product-context.md:4", "progress.md:4")]  # "at least" is "min"
    assert length["kind"] == "contradiction" and {"3ch", "5ch"} <= _values_in(length["reason"])
    rooms = found[("product-context.md:5", "progress.md:5")]  # "can ... at most" is a limit
    assert rooms["kind"] == "contradiction" and {"3room", "5room"} <= _values_in(rooms["reason"])


def test_a_range_and_its_two_bounds_are_one_rule(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write("# Progress\n\n- The node group scales between 2 and 6 nodes.\n")
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write("# Product\n\n- Node group size: min 2 / max 6.\n")
    found = [
        p
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
        if {e["file"] for e in p["entries"]} == {"progress.md", "product-context.md"}
    ]
    assert [p["kind"] for p in found] == ["duplicate"]
    result = run_cli("consolidate", "--apply", cwd=repo)
    assert result.returncode == 0, result.stderr
    texts = [
        (memory(repo) / name).read_text(encoding="utf-8")
        for name in ("progress.md", "product-context.md")
    ]
    assert sum("node group" in t.lower() for t in texts) == 1  # one copy left


def test_a_switch_said_off_agrees_with_doing_it_by_hand(repo: Path) -> None:
    with (memory(repo) / "progress.md").open("w", encoding="utf-8") as handle:
        handle.write("# Progress\n\n- Commit offsets manually after each batch.\n")
    with (memory(repo) / "product-context.md").open("w", encoding="utf-8") as handle:
        handle.write(
            "# Product\n\n- Auto-commit is off on the consumers; offsets are committed after "
            "a batch.\n"
        )
    found = [
        p["kind"]
        for p in json.loads(run_cli("consolidate", "--json", cwd=repo).stdout)["proposals"]
        if {e["file"] for e in p["entries"]} == {"progress.md", "product-context.md"}
    ]
    assert found == ["duplicate"]  # one rule, said two ways
