"""No module of webhook/ over 600 lines and no function over 80 lines, except the few listed here with their reason.

Lines are physical lines of the file; a function counts from its first decorator to its last line (a nested function
counts inside its parent and on its own). A long module is split by family or along Gardener's own function
boundaries (docs/development/layout.md "Where each rule lives"), not where a cache needs it. An exception whose file
or function no
longer exists, or no longer exceeds the limit, fails too, so this list only ever shrinks; after moving a listed module,
move its entry with it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
PACKAGE: Final = ROOT / "webhook"
MAX_MODULE_LINES: Final = 600
MAX_FUNCTION_LINES: Final = 80

# path (relative to the repository) -> why it may be longer than MAX_MODULE_LINES
LONG_MODULES: Final[dict[str, str]] = {}

# (path, function qualified name) -> why it may be longer than MAX_FUNCTION_LINES
LONG_FUNCTIONS: Final[dict[tuple[str, str], str]] = {}


def _functions(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """(qualified name, lines) of every function and method in `tree`, nested ones included."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                assert child.end_lineno is not None
                yield f"{prefix}{child.name}", child.end_lineno - start + 1
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    return walk(tree, "")


def _measure() -> tuple[dict[str, int], dict[tuple[str, str], int]]:
    """Lines of every module of webhook/, and of every function, keyed as the exception lists are."""
    modules: dict[str, int] = {}
    functions: dict[tuple[str, str], int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        modules[name] = len(text.splitlines())
        for qualname, lines in _functions(ast.parse(text)):
            functions[(name, qualname)] = max(lines, functions.get((name, qualname), 0))
    return modules, functions


def test_no_module_over_600_lines() -> None:
    modules, _ = _measure()
    too_long = {name: lines for name, lines in modules.items() if lines > MAX_MODULE_LINES}
    assert {name: lines for name, lines in too_long.items() if name not in LONG_MODULES} == {}


def test_no_function_over_80_lines() -> None:
    _, functions = _measure()
    too_long = {key: lines for key, lines in functions.items() if lines > MAX_FUNCTION_LINES}
    assert {key: lines for key, lines in too_long.items() if key not in LONG_FUNCTIONS} == {}


def test_the_exceptions_are_still_needed() -> None:
    """Every listed module and function exists and still exceeds its limit (else drop it from the list)."""
    modules, functions = _measure()
    assert [name for name in LONG_MODULES if modules.get(name, 0) <= MAX_MODULE_LINES] == []
    assert [key for key in LONG_FUNCTIONS if functions.get(key, 0) <= MAX_FUNCTION_LINES] == []


def test_webhook_validators_has_no_exception() -> None:
    """The validators meet both limits without exceptions."""
    listed = [*LONG_MODULES, *(path for path, _ in LONG_FUNCTIONS)]
    assert [path for path in listed if path.startswith("webhook/validators/")] == []
