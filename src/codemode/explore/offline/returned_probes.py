"""What the behaviour diff does with a callable a function returns (#32).

``natsort_keygen()`` returns a key, a decorator a wrapper, ``make_formatter(...)`` a handler:
the function's behaviour is what that callable does, and its canonical form (a name, or no
faithful form) is the same on both sides whatever it does. So when a call returns a callable,
the diff calls it (worker/returned.py), with, in this order:

1. what the project's tests hand to the callable a call of the function returns:
   ``f(...)(x)``, ``key = f(...)`` then ``key(x)`` in the same test, and the list a test sorts
   with it (``sorted(xs, key=f(...))``, ``xs.sort(key=f(...))``), sorted and item by item;
2. the values the tests of the function's package write in lists and tuples (the data its
   functions are tested on, which a key or handler of theirs is applied to): lists of mixed
   kinds sorted with the callable as the key, and their items one by one, one of each kind
   first (``nan``, ``inf``, an empty text, ``None`` are kinds of their own: the edges a key
   treats apart).

Each is a ``then`` of a pool call (``{"args": [...]}`` or ``{"sort": [...]}``); at most
``MAX_PROBES``. Only literal values are taken (``float('nan')`` included); nothing here runs
project code.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode.errors import FatalError

if TYPE_CHECKING:
    from codemode.config import Config
    from codemode.explore.target import TargetInfo

MAX_PROBES = 24  # follow-up calls per returned callable
MAX_SORTS = 4  # of them, lists sorted with it as the key
_MAX_ITEMS = 12  # items of a list sorted as a probe
# the constructors whose call with a literal argument is read as a value (``float('nan')``)
_BUILDERS = {"float": float, "int": int, "str": str}
_PLAIN = (type(None), bool, int, float, str, bytes)  # what a call's data carries as it is
_SORTERS = frozenset({"sorted", "sort", "min", "max"})


def returned_probes(config: Config, function_id: str, root: Path) -> list[dict[str, Any]]:
    """The ``then`` follow-ups for a callable ``function_id`` returns (see the module's doc)."""
    from codemode.explore.offline.harvest import is_test_file, parsed, python_files, read_source
    from codemode.explore.target import AST_LOCK, load_target

    try:
        info = load_target(config, function_id, root)
    except FatalError:
        return []
    package = info.module.split(".")[0]
    uses: list[dict[str, Any]] = []
    sorts: list[list[Any]] = []
    values: list[Any] = []
    with AST_LOCK:
        for rel, path in python_files(root):
            text = read_source(path) if is_test_file(rel) else None
            if not text or package not in text:
                continue
            tree = parsed(path)[1]
            if tree is None or not _imports(tree, package):
                continue
            if info.name in text:
                uses += _uses(tree, info)
            for node in ast.walk(tree):
                if isinstance(node, (ast.List, ast.Tuple)):
                    items = _value(node)
                    if isinstance(items, list) and items and items is not _NO:
                        values += [v for v in items if not isinstance(v, (list, dict))]
                        if len({_kind(v) for v in items}) > 1:
                            sorts.append(items[:_MAX_ITEMS])
    return _chosen(uses, sorts, values)


def _chosen(
    uses: list[dict[str, Any]], sorts: list[list[Any]], values: list[Any]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(then: dict[str, Any]) -> None:
        key = repr(then)
        if key not in seen and len(out) < MAX_PROBES:
            seen.add(key)
            out.append(then)

    for then in uses:
        add(then)
    sorts.sort(key=lambda xs: -len({_kind(v) for v in xs}))  # the most kinds first
    for items in sorts[:MAX_SORTS]:
        add({"sort": items})
    by_kind: dict[tuple[str, str], Any] = {}
    for v in values:
        by_kind.setdefault(_kind(v), v)
    for v in [*by_kind.values(), *values]:
        add({"args": [v]})
    return out


def _kind(value: Any) -> tuple[str, str]:
    """A value's kind: its type, and the edge it is (not a number, an infinity, empty)."""
    edge = ""
    if isinstance(value, float) and not math.isfinite(value):
        edge = repr(value)
    elif isinstance(value, (str, bytes, list, tuple)) and not value:
        edge = "empty"
    return type(value).__name__, edge


def _imports(tree: ast.Module, package: str) -> bool:
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == package:
            return True
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == package for a in node.names
        ):
            return True
    return False


def _uses(tree: ast.Module, info: TargetInfo) -> Iterator[dict[str, Any]]:
    """What the tests do with what a call of the target returns (1. in the module's doc)."""
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        held: set[str] = set()  # names assigned a call of the target in this test
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and _is_target_call(node.value, info):
                held.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            made = _is_target_call(node.func, info) or (
                isinstance(node.func, ast.Name) and node.func.id in held
            )
            if made and not node.keywords:
                args = [_value(a) for a in node.args]
                if args and _NO not in args:
                    yield {"args": args}
            yield from _sorted_with(node, info, held)


def _sorted_with(node: ast.Call, info: TargetInfo, held: set[str]) -> Iterator[dict[str, Any]]:
    """``sorted(xs, key=f(...))``: the list, sorted with it and item by item."""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name not in _SORTERS:
        return
    for kw in node.keywords:
        by_target = _is_target_call(kw.value, info)
        if kw.arg != "key" or not (
            by_target or (isinstance(kw.value, ast.Name) and kw.value.id in held)
        ):
            continue
        items = _value(node.args[0]) if node.args else _NO
        if isinstance(items, list) and items:
            yield {"sort": items[:_MAX_ITEMS]}
            for v in items[:_MAX_ITEMS]:
                yield {"args": [v]}


def _is_target_call(node: ast.AST, info: TargetInfo) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id == info.name) or (
        isinstance(f, ast.Attribute) and f.attr == info.name
    )


class _No:
    """No literal value (a name, a call of the project)."""


_NO: Any = _No()


def _value(node: ast.AST) -> Any:
    """A literal's value (lists for lists and tuples), ``float('nan')`` included; ``_NO``."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, _PLAIN) else _NO
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(e) for e in node.elts]
        return _NO if any(v is _NO for v in items) else items
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner if isinstance(node.op, ast.USub) else inner
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _BUILDERS
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
    ):
        try:
            return _BUILDERS[node.func.id](node.args[0].value)
        except (TypeError, ValueError):
            return _NO
    return _NO
