"""No mutable state at module level in `webhook/`: every store that outlives a call is passed in (the cache layer,
`webhook.caching`, one object per worker or CLI run; the server's app state).

The scan reads each module's source (AST) and fails on:
- a module-level name bound to a dict, list or set (display, comprehension or `dict()`/`list()`/`set()`/
  `OrderedDict()`/`defaultdict()`/`deque()`) that the module mutates anywhere: item or slice assignment, `del`,
  augmented assignment, or a mutating method (`append`, `update`, `setdefault`, `pop`, ...);
- a module-level instance of a store of the cache layer (`CleanEntries()`, `ByIdentity(...)`, `Caches()`, ...);
- a `global` statement;
- a function memoized with `functools.lru_cache`/`cache` that is not in `PURE_PARSERS`.
Read-only tables (`Final` dicts that nothing changes) are fine; so are module-level constants of immutable types.

`PURE_PARSERS` are the one deliberate exception: parsers of one immutable argument (a version, a quantity, a
date, a CIDR, a duration, a URL) behind `functools.lru_cache`, bounded, keyed by that argument alone, raising anew for
a bad value (the cache keeps results only), and the packaged field data loaded once. A memo of a pure function
of its argument cannot change an answer, and passing a store to every version comparison would thread the cache
layer through the domain for nothing; the standard library's memo is the well-kept one.
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
PURE_PARSERS: Final = frozenset({
    "webhook/domain/versions.py:parse_version", "webhook/domain/constraints.py:parse_constraint",
    "webhook/domain/quantity.py:_parse_quantity", "webhook/models/base.py:_parse_rfc3339_text",
    "webhook/goport/gotime.py:_parse_duration", "webhook/goport/gotime.py:_parse_maintenance_time",
    "webhook/goport/gotime.py:_is_zone", "webhook/goport/cron.py:_cron_error",
    "webhook/goport/gourl.py:_remembered_url_parts",
    "webhook/validators/meta.py:_unprefixed_qualified_name_errors", "webhook/validators/shoot/networking.py:parse_cidr",
    "webhook/admission/fieldvalidation.py:_data",
})  # fmt: skip
STORES: Final = frozenset({
    "CleanEntries", "ListFindings", "FindingStores", "ByIdentity", "RuleCaches", "Caches", "ReappliedVerdicts",
    "DecodedEntries", "ParsedEntries", "RecentObjects", "Judgements", "TimeFields",
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
        memo = isinstance(node, ast.FunctionDef) and any(_memo(d) for d in node.decorator_list)
        if memo and f"{where.as_posix()}:{node.name}" not in PURE_PARSERS:  # type: ignore[union-attr]
            problems.append(f"{where}:{node.lineno}: {node.name} keeps a process-wide memo: pass a store in")
    return problems


def _memo(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
    return name in ("lru_cache", "cache")


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
        "@lru_cache\n"
        "def g(x):\n"
        "    return x\n"
        "def f(x):\n"
        "    global COUNT\n"
        "    SEEN[x] = 1\n"
        "    LAST[0] = x\n"
        "    return TABLE['a']\n"
    )
    module.write_text(text, encoding="utf-8")
    assert module_state(module, tmp_path) == [
        "probe.py:2: module-level SEEN is changed at line 11",
        "probe.py:3: module-level LAST is changed at line 12",
        "probe.py:5: module-level STORE is a store (CleanEntries): pass it in",
        "probe.py:7: g keeps a process-wide memo: pass a store in",
        "probe.py:10: global COUNT",
    ]
