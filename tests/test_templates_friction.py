"""Templates after ``conkeeper init``: guidance never matches a category search, and
``friction.md`` is created and injected at SessionStart within the budget (not at economy).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import conkeeper
from conftest import run_cli
from conftest import session_start_context as _session_start
from conkeeper.domain.categories import MEMORY_CATEGORIES, RETRO_CATEGORIES


def _init(project: Path) -> Path:
    result = run_cli("init", "--no", cwd=project)
    assert result.returncode == 0, result.stderr
    return project / ".claude" / "memory"


@pytest.mark.parametrize("category", sorted(set(MEMORY_CATEGORIES) | set(RETRO_CATEGORIES)))
def test_grep_for_a_category_finds_nothing_after_init(project: Path, category: str) -> None:
    memory = _init(project)
    grep = subprocess.run(
        ["grep", "-rn", f"@category: {category}", str(memory)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert grep.returncode == 1, grep.stdout  # schema.md recommends exactly this search


def test_schema_recommends_the_search_it_does_not_pollute(project: Path) -> None:
    schema = (_init(project) / "schema.md").read_text(encoding="utf-8")
    assert "grep -rnE '@(category): decision' .claude/memory" in schema
    assert "| `friction.md` |" in schema


def test_friction_is_created_and_injected_but_not_at_economy(project: Path) -> None:
    memory = _init(project)
    friction = memory / "friction.md"
    assert friction.is_file()
    assert "# friction.md" not in _session_start(project)  # template only: nothing to inject
    text = friction.read_text(encoding="utf-8").replace(
        "## Project-Specific\n",
        "## Project-Specific\n- The integration tests hang when port 8080 is taken: stop the "
        "dev server first.\n",
    )
    friction.write_text(text, encoding="utf-8")
    context = _session_start(project)
    assert "# friction.md (project memory)" in context and "port 8080" in context
    economy = _session_start(project, CONKEEPER_TOKEN_BUDGET="economy")
    assert "port 8080" not in economy and len(economy) <= 4000


def test_every_tag_mention_in_a_template_is_a_well_formed_tag_line() -> None:
    """Guidance never spells a tag in prose: a grep for ``@category:`` over a new memory folder
    finds only real tag lines (and schema.md's examples, which name no real category)."""
    from conkeeper.domain.categories import NAME_PATTERN

    tag_line = re.compile(rf"^\s*<!-- @(category|tag): {NAME_PATTERN} -->$")
    templates = Path(conkeeper.__file__).parent / "domain" / "templates"
    bad = [
        f"{path.name}: {line}"
        for path in sorted(templates.glob("*.md"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if ("@category:" in line or "@tag:" in line) and not tag_line.match(line)
    ]
    assert bad == []
