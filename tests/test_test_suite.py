"""The test suite itself: no assertion that cannot fail.

An assertion ending in ``or True``, asserting a constant or a non-empty tuple (a message in
parentheses by mistake), comparing an expression with itself, or checking that a length is at
least zero passes whatever the code does: it hides a wrong expectation instead of stating one.
The walk is static (``ast``) over every ``tests/**/*.py`` and ``bench/*.py`` file.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").glob("*.py")])


def _truthy_constant(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return bool(node.value) and node.value is not Ellipsis
    return isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)) and bool(
        node.keys if isinstance(node, ast.Dict) else node.elts
    )


def _never_negative(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"len", "abs"}
    )


def _why_it_cannot_fail(test: ast.expr) -> str | None:
    """The reason an asserted expression is always true, or ``None``."""
    if _truthy_constant(test):
        return "asserts a constant (a message in the assert's parentheses?)"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        if any(_truthy_constant(value) for value in test.values):
            return "an 'or' with a true constant (`or True`)"
        return None
    if isinstance(test, ast.BoolOp):
        reasons = (_why_it_cannot_fail(value) for value in test.values)
        return next((r for r in reasons if r), None)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        same = ast.dump(left) == ast.dump(right)
        if same and isinstance(op, (ast.Eq, ast.Is, ast.LtE, ast.GtE)):
            return "compares an expression with itself"
        zero = isinstance(right, ast.Constant) and right.value == 0
        if zero and isinstance(op, ast.GtE) and _never_negative(left):
            return "a length (or abs) is always >= 0"
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
        and isinstance(test.args[1], ast.Name)
        and test.args[1].id == "object"
    ):
        return "everything is an instance of object"
    return None


def _asserts(tree: ast.AST) -> Iterator[ast.Assert]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            yield node


def test_no_assertion_in_the_suite_passes_whatever_happens() -> None:
    problems = []
    for path in SCANNED:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _asserts(tree):
            reason = _why_it_cannot_fail(node.test)
            if reason:
                where = path.relative_to(ROOT)
                problems.append(f"{where}:{node.lineno}: {ast.unparse(node.test)} — {reason}")
    assert not problems, "assertions that cannot fail:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "source",
    [
        "assert (len(t) == 2 and t[0] == 'x') or True",
        "assert x == 1 or 'always'",
        "assert True",
        "assert (x == 1, 'message')",
        "assert 'x in y'",
        "assert len(items) >= 0",
        "assert result == result",
        "assert ok and (n > 1 or True)",
        "assert isinstance(value, object)",
    ],
)
def test_each_kind_of_hollow_assertion_is_found(source: str) -> None:
    node = next(_asserts(ast.parse(source)))
    assert _why_it_cannot_fail(node.test) is not None


@pytest.mark.parametrize(
    "source",
    [
        "assert x == 1 or y == 2",
        "assert len(items) > 0",
        "assert count >= 0",  # a value that could be negative: a real check
        "assert a == b",
        "assert not problems, 'message'",
        "assert isinstance(value, int)",
        "assert proc.returncode == 0, proc.stderr",
    ],
)
def test_real_assertions_pass(source: str) -> None:
    node = next(_asserts(ast.parse(source)))
    assert _why_it_cannot_fail(node.test) is None
