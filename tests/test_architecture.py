"""The layering of ``src/conkeeper`` as a test (docs/architecture.md, "Layers").

Imports only go downwards: ``domain`` ← host adapters (``hosts``/``platforms``: each agent's
payload and file formats, built on the domain alone) ← ``storage`` ← ``services`` ← front doors
(``cli``, ``hooks``, ``mcp``, ``viewer``, ``server``). A front door never imports another front
door (except the CLI command that starts one), all SQL lives in ``storage/``, and nothing below
the front doors prints or writes to stdout/stderr (a service returns values or calls a progress
callback).

The walk is static (``ast``), so it is cheap and never flaky; every failure names the module,
the line and the rule it broke. A new top-level package must be given a layer here first.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "conkeeper"

# Rank of each layer; a module may import only from a lower rank (or its own package).
LAYERS = {"domain": 0, "hosts": 1, "platforms": 1, "storage": 2, "services": 3}
FRONT_DOORS = {"cli", "hooks", "mcp", "viewer", "server"}
FRONT_DOOR_RANK = 4
# Top-level modules that are entry points, not layers; anyone may import the package root
# (``from conkeeper import __version__``).
ENTRY_POINTS = {"__init__", "__main__"}

# Front door → front door imports that are the design: the CLI command that starts another
# front door (``conkeeper hook EVENT``, ``conkeeper mcp``, ``conkeeper viewer``) only hands it
# its arguments.
STARTERS = {
    "cli.cmd_hook": "hooks",
    "cli.cmd_mcp": "mcp",
    "cli.cmd_viewer": "viewer",
    "cli.cmd_server": "server",
}

# Modules outside storage/ that still run SQL of their own, each with the helper moving it.
# This list may only shrink: a listed module that no longer runs SQL fails the test too.
SQL_PENDING: dict[str, str] = {}

SQL_CALLS = {"execute", "executemany", "executescript"}
SQL_TEXT = re.compile(
    r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|BEGIN|COMMIT|ROLLBACK|WITH)\s"
)
OUTPUT_STREAMS = {"stdout", "stderr", "__stdout__", "__stderr__"}

# Writes to files a person owns (memory files, agent configs, the queue) go through
# ``domain.safewrite``. Modules that still write files some other way, each with the branch
# moving it there. This list may only shrink: a listed module that no longer writes fails too.
WRITE_PENDING: dict[str, str] = {}
# Modules that write ConKeeper's own files, never a person's, and why.
MACHINE_WRITERS: dict[str, str] = {
    "domain.safewrite": "the write path itself",
    "domain.textio": "the old helpers, kept until the pending modules above have moved",
    "storage.recovery": "the database backup, and a damaged database moved aside",
    "storage.journal": "the row journal beside the database (forget rewrites it)",
    "storage.logfile": "rotates ConKeeper's log",
    "services.capture.handoff": "checkpoints in the data home, claimed by rename",
    "services.upkeep.freshness.report": "the stale-check cache in the data home",
    "services.upkeep.doctor": "a write probe in the data home",
    "services.setup.demo": "the generated demo project",
    "services.setup.launcher": "the launcher and its interpreter list in the data home",
    "services.setup.install_records": "install records (bytes before/after) in the data home",
    "hooks.on_session_end": "the detached extractor's log",
    "services.observations.extract": "the worker lock file",
    "cli.cmd_export": "the export file the person names with --output",
    "services.review": "the review queue: held entries in the memory folder's git-ignored .review/",
    "storage.agent_edits": "the agent-edit keys and known line keys in the git-ignored .review/",
    "services.team.credentials": "the team join file in the data home (0600)",
    "services.team.sync": "the team sync's marks and lock file in the data home",
    "services.team.recent": "the team block's cache in the data home",
    "storage.team_files": "moves the team sync's marks and cached block to a digest identity",
    "storage.identity_cache": "its own verdicts on folder paths, by digest, in the data home",
    "storage.state": "a project's own records in the data home (the pairs consolidate showed)",
    "storage.instruction_known": "instruction files' known line keys, beside a session's state",
    "storage.agent_shells": "trims its own span file in the data home (agents' shell commands)",
    "storage.memory_folders": "rewrites its own list of memory folders in the data home",
}
WRITE_CALLS = {"atomic_write", "append_text", "write_text", "write_bytes", "replace", "rename"}


def _modules() -> Iterator[tuple[str, Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join(parts) or "__init__"
        yield name, path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _package_of(module: str) -> str:
    return module.split(".", 1)[0]


def _rank(package: str) -> int | None:
    if package in LAYERS:
        return LAYERS[package]
    if package in FRONT_DOORS:
        return FRONT_DOOR_RANK
    return None


def _imports(module: str, path: Path, tree: ast.Module) -> Iterator[tuple[str, int]]:
    """``(imported conkeeper module without the prefix, line)`` for every import, type-only
    ones included (an upward type import is still an upward dependency)."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("conkeeper."):
                    yield alias.name.removeprefix("conkeeper."), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                drop = node.level - 1 if is_package else node.level
                base = base[: len(base) - drop] if drop else base
                target = ".".join([*base, node.module] if node.module else base)
            elif node.module and node.module.startswith("conkeeper."):
                target = node.module.removeprefix("conkeeper.")
            elif node.module == "conkeeper":
                target = ""
            else:
                continue
            if target:
                yield target, node.lineno
            else:  # "from conkeeper import domain" names a package, "__version__" the root
                for alias in node.names:
                    is_package = (PACKAGE / alias.name / "__init__.py").exists()
                    yield alias.name if is_package else "__init__", node.lineno


def _layering_problem(module: str, target: str) -> str | None:
    source_pkg, target_pkg = _package_of(module), _package_of(target)
    if module in ENTRY_POINTS or target in ENTRY_POINTS or source_pkg == target_pkg:
        return None
    source_rank, target_rank = _rank(source_pkg), _rank(target_pkg)
    if source_rank is None:
        return f"package '{source_pkg}' has no layer: add it to LAYERS or FRONT_DOORS"
    if target_rank is None:
        return f"imports '{target_pkg}', which has no layer"
    if source_rank == FRONT_DOOR_RANK and target_rank == FRONT_DOOR_RANK:
        if STARTERS.get(module) == target_pkg:
            return None
        return "a front door never imports another front door (move the shared code down)"
    if target_rank >= source_rank:
        return f"{source_pkg}/ may import only lower layers, not {target_pkg}/ (imports go down)"
    return None


def test_imports_only_go_down() -> None:
    problems = []
    for module, path, tree in _modules():
        for target, line in _imports(module, path, tree):
            reason = _layering_problem(module, target)
            if reason:
                problems.append(f"{module}:{line} imports {target}: {reason}")
    assert not problems, "layering broken:\n" + "\n".join(problems)


def _docstring_nodes(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _sql_uses(tree: ast.Module) -> Iterator[tuple[int, str]]:
    docstrings = _docstring_nodes(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SQL_CALLS
        ):
            yield node.lineno, f".{node.func.attr}() call"
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and SQL_TEXT.match(node.value)
        ):
            yield node.lineno, f"SQL text {node.value.strip()[:30]!r}"


def test_sql_lives_in_storage() -> None:
    problems, still_pending = [], set()
    for module, _path, tree in _modules():
        if _package_of(module) == "storage":
            continue
        uses = list(_sql_uses(tree))
        if uses and module in SQL_PENDING:
            still_pending.add(module)
            continue
        problems.extend(
            f"{module}:{line} {what}: SQL belongs in storage/ (call a storage function)"
            for line, what in uses
        )
    cleaned = set(SQL_PENDING) - still_pending
    problems.extend(f"{m} runs no SQL any more: remove it from SQL_PENDING" for m in cleaned)
    assert not problems, "SQL outside storage/:\n" + "\n".join(problems)


def _output_uses(tree: ast.Module) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in {"print", "input", "breakpoint"}:
                yield node.lineno, f"{node.func.id}()"
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in OUTPUT_STREAMS
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            yield node.lineno, f"sys.{node.attr}"


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_below_front_doors_nothing_prints(layer: str) -> None:
    problems = [
        f"{module}:{line} uses {what}: a {layer} module never prints; return a value or take "
        "a progress callback, and let the front door write"
        for module, _path, tree in _modules()
        if _package_of(module) == layer
        for line, what in _output_uses(tree)
    ]
    assert not problems, "\n".join(problems)


def _write_uses(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """File writes that bypass ``domain.safewrite``: ``os.replace``/``os.rename``,
    ``atomic_write``/``append_text``, ``Path.write_text``/``write_bytes`` and
    ``open(.., 'w'|'a'|'x')``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in {"replace", "rename"}:
            owner = func.value if isinstance(func, ast.Attribute) else None
            if isinstance(owner, ast.Name) and owner.id == "os":
                yield node.lineno, f"os.{name}()"
        elif name in WRITE_CALLS:
            yield node.lineno, f"{name}()"
        elif name == "open" and isinstance(func, ast.Name):
            mode = node.args[1] if len(node.args) > 1 else None
            for keyword in node.keywords:
                if keyword.arg == "mode":
                    mode = keyword.value
            if isinstance(mode, ast.Constant) and set(str(mode.value)) & set("wax+"):
                yield node.lineno, f"open(..., {mode.value!r})"


def test_writes_to_user_files_go_through_safewrite() -> None:
    problems, still_pending = [], set()
    for module, _path, tree in _modules():
        uses = list(_write_uses(tree))
        if not uses or module in MACHINE_WRITERS:
            continue
        if module in WRITE_PENDING:
            still_pending.add(module)
            continue
        problems.extend(
            f"{module}:{line} {what}: write a person's file through domain.safewrite "
            "(or list a machine-owned file in MACHINE_WRITERS, saying why)"
            for line, what in uses
        )
    cleaned = set(WRITE_PENDING) - still_pending
    problems.extend(
        f"{m} writes through safewrite now: remove it from WRITE_PENDING" for m in cleaned
    )
    assert not problems, "writes outside the write path:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "source",
    [
        "import os\nos.replace(a, b)",
        "atomic_write(path, text, root=root)",
        "path.write_text('x')",
        "open(path, 'a', encoding='utf-8')",
        "open(path, mode='wb')",
    ],
)
def test_the_write_rule_catches_its_break(source: str) -> None:
    assert list(_write_uses(ast.parse(source)))


def test_every_package_has_a_layer() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    unplaced = packages - set(LAYERS) - FRONT_DOORS
    assert not unplaced, f"packages without a layer in tests/test_architecture.py: {unplaced}"


# ----------------------------------------------------------------- the checks themselves work


def _problems_in(source: str, module: str) -> list[str]:
    tree = ast.parse(source)
    path = PACKAGE / (module.replace(".", "/") + ".py")
    found = [r for t, _ in _imports(module, path, tree) if (r := _layering_problem(module, t))]
    found += [w for _, w in _sql_uses(tree)]
    found += [w for _, w in _output_uses(tree)]
    return found


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("domain.x", "from conkeeper.storage.store import open_store", "not storage/"),
        ("storage.x", "import conkeeper.services.search.engine", "not services/"),
        ("services.x", "from ..cli.output import CliError", "not cli/"),
        ("services.x", "from conkeeper.hooks import payload", "not hooks/"),
        ("mcp.server", "from conkeeper.cli.output import emit_json", "another front door"),
        ("viewer.app", "from conkeeper.hooks.payload import HookResult", "another front door"),
        ("cli.cmd_x", "from conkeeper.mcp import server", "another front door"),
        ("services.x", "rows = conn.execute('x')", ".execute() call"),
        ("cli.cmd_x", "Q = 'SELECT id FROM t'", "SQL text"),
        ("services.x", "print('hi')", "print()"),
        ("services.x", "import sys\nsys.stderr.write('x')", "sys.stderr"),
        ("gadgets.x", "from conkeeper.domain import paths", "has no layer"),
        ("hosts.codex", "from conkeeper.storage.store import open_store", "not storage/"),
        ("cli.cmd_mcp", "from conkeeper.viewer import app", "another front door"),
    ],
)
def test_each_rule_catches_its_break(module: str, source: str, expected: str) -> None:
    assert any(expected in p for p in _problems_in(source, module)), (module, source)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("services.x", "from conkeeper.storage.store import open_store"),
        ("cli.cmd_x", "from conkeeper.services import search"),
        ("mcp.server", "from conkeeper.services.workspace import open_project_store"),
        ("services.observations.x", "from .retrieval import list_sessions"),
        ("cli.cmd_hook", "from conkeeper.hooks.runner import run_hook"),
        ("cli.main", "from conkeeper import __version__"),
        ("cli.cmd_mcp", "from conkeeper.mcp.server import serve"),
        ("cli.cmd_viewer", "from conkeeper.viewer.app import create_app"),
        ("hooks.runner", "from conkeeper.hosts import claude_code"),
        ("services.upkeep.doctor", "from conkeeper.hosts.spec import Integration"),
        ("hosts.codex", "from conkeeper.domain.paths import home_dir"),
        ("services.x", '"""SELECT the best entries (a docstring, not SQL)."""'),
    ],
)
def test_allowed_imports_pass(module: str, source: str) -> None:
    assert _problems_in(source, module) == []
