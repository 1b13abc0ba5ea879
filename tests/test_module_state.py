"""No mutable state at module level in `webhook/`: every store that outlives a call is passed in (the cache layer,
`webhook.caching`, one object per worker or CLI run; the server's app state).

The scan reads each module's source (AST) and fails on:
- a module-level name bound to a dict, list or set (display, comprehension or `dict()`/`list()`/`set()`/
  `OrderedDict()`/`defaultdict()`/`deque()`) that the module mutates anywhere: item or slice assignment, `del`,
  augmented assignment, or a mutating method (`append`, `update`, `setdefault`, `pop`, ...);
- a module-level instance of a store of the cache layer (`CleanEntries()`, `ByIdentity(...)`, `Caches()`, ...);
- a `global` statement.
Read-only tables (`Final` dicts that nothing changes) are fine; so are module-level constants of immutable types.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
PACKAGE: Final = ROOT / "webhook"
CONTAINERS: Final = frozenset({"dict", "list", "set", "OrderedDict", "defaultdict", "deque", "Counter"})
MUTATORS: Final = frozenset({
    "append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "clear", "remove", "discard",
    "appendleft", "extendleft", "move_to_end", "sort", "reverse", "__setitem__", "__delitem__",
})  # fmt: skip
STORES: Final = frozenset({
    "CleanEntries", "ListFindings", "FindingStores", "ByIdentity", "RuleCaches", "Caches", "ReappliedVerdicts",
    "DecodedEntries", "ParsedEntries", "RecentObjects",
})  # fmt: skip


def _container(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp | ast.SetComp):
        return True
    return isinstance(value, ast.Call) and _called(value) in CONTAINERS


def _called(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _module_bindings(tree: ast.Module) -> list[tuple[str, ast.expr | None, int]]:
    found: list[tuple[str, ast.expr | None, int]] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            found.extend((t.id, node.value, node.lineno) for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.append((node.target.id, node.value, node.lineno))
    return found


def _mutated(tree: ast.Module, name: str) -> int | None:
    """The line of the first mutation of module-level `name` in the module, or None."""

    def is_name(expr: ast.expr) -> bool:
        return isinstance(expr, ast.Name) and expr.id == name

    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            if isinstance(target, ast.Subscript) and is_name(target.value):
                return node.lineno
            if isinstance(node, ast.AugAssign) and is_name(target):
                return node.lineno
        mutator = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS
        if mutator and is_name(node.func.value):  # type: ignore[union-attr]
            return node.lineno
    return None


def module_state(path: Path, root: Path = ROOT) -> list[str]:
    """What in `path` is mutable module-level state, one line each (`file:line: what`, file relative to root)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(root)
    problems: list[str] = []
    for name, value, line in _module_bindings(tree):
        if _container(value):
            changed = _mutated(tree, name)
            if changed is not None:
                problems.append(f"{where}:{line}: module-level {name} is changed at line {changed}")
        if isinstance(value, ast.Call) and _called(value) in STORES:
            problems.append(f"{where}:{line}: module-level {name} is a store ({_called(value)}): pass it in")
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            problems.append(f"{where}:{node.lineno}: global {', '.join(node.names)}")
    return problems


def test_no_module_in_the_package_keeps_mutable_state() -> None:
    problems = [p for path in sorted(PACKAGE.rglob("*.py")) for p in module_state(path)]
    assert problems == []


def test_the_scan_finds_each_kind_of_module_state(tmp_path: Path) -> None:
    module = tmp_path / "probe.py"
    text = (
        "from webhook.caching.findings import CleanEntries\n"
        "SEEN = {}\n"
        "LAST = [None]\n"
        "TABLE = {'a': 1}\n"
        "STORE = CleanEntries()\n"
        "def f(x):\n"
        "    global COUNT\n"
        "    SEEN[x] = 1\n"
        "    LAST[0] = x\n"
        "    return TABLE['a']\n"
    )
    module.write_text(text, encoding="utf-8")
    assert module_state(module, tmp_path) == [
        "probe.py:2: module-level SEEN is changed at line 8",
        "probe.py:3: module-level LAST is changed at line 9",
        "probe.py:5: module-level STORE is a store (CleanEntries): pass it in",
        "probe.py:7: global COUNT",
    ]
