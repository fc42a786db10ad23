"""Calls a test makes through a helper of its file, read statically.

Many suites keep their inputs in the calls of a helper that passes them on::

    class LoadsTest(unittest.TestCase):
        def check(self, text, expected, strict=True):
            self.assertEqual(loads(text, strict=strict), expected)

        def test_numbers(self):
            self.check('[1]', [1])
            self.check('+Infinity', float('inf'))

The call ``loads(text, strict=strict)`` has no literal argument, and the test calls only
``check``. The pattern is common in unittest suites (CPython's own tests write
``self.check(...)`` helpers throughout; Python-Markdown's tests call
``self.assertMarkdownRenders(source, expected)``, whose body calls ``markdown(source)``).
Each call of the helper binds its parameters (with their defaults) in the calls of the target
the helper makes, one binding per call site and per row the calling test iterates.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import NamedTuple

from codemode.explore.offline.row_bindings import Row, assignments
from codemode.explore.offline.spread import MAX_READ

RowsAt = Callable[[ast.FunctionDef | ast.AsyncFunctionDef, ast.Call], list[Row]]
# Each function of a tree with its calls, in walk order (harvest's index of a parse)
Calls = Sequence[tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[ast.Call]]]
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class _Helper(NamedTuple):
    params: list[str]  # by position, ``self``/``cls`` left out
    defaults: Row
    calls: list[ast.Call]  # its calls of the target that use a parameter


def helper_rows(
    tree: ast.Module, is_target: Callable[[ast.Call], bool], rows_at: RowsAt, functions: Calls
) -> dict[int, list[tuple[str, Row]]]:
    """For each call of the target inside a helper (by ``id`` of the call node): the name of
    each test that calls the helper and the binding of the helper's parameters there.
    ``rows_at(test, call)``: the rows the test binds at that call (its tables, its loops);
    ``functions``: the tree's functions with their calls, walked once (harvest's index)."""
    helpers = _helpers(functions, is_target)
    out: dict[int, list[tuple[str, Row]]] = {}
    if not helpers:
        return out
    for fn in ast.walk(tree):
        if not isinstance(fn, _FUNCTIONS) or fn.name in helpers:
            continue
        # what the test binds before it calls the helper (``body = BOM + b"hi"``): the
        # helper's call of the target gets the value, not a name only the test knows (#32)
        local = assignments(fn.body)
        for node in ast.walk(fn):
            name = _name(node)
            if name not in helpers or not isinstance(node, ast.Call) or _unpacks(node):
                continue
            for row in rows_at(fn, node):
                row = {**local, **row}
                args = [_bound(a, row) for a in node.args]
                named = {k.arg: _bound(k.value, row) for k in node.keywords if k.arg}
                for helper in helpers[name]:
                    binding = {**helper.defaults, **dict(zip(helper.params, args)), **named}
                    for call in helper.calls:
                        found = out.setdefault(id(call), [])
                        if len(found) < MAX_READ:  # all of them: the harvest spreads them (#32)
                            found.append((fn.name, binding))
    return out


def _helpers(functions: Calls, is_target: Callable[[ast.Call], bool]) -> dict[str, list[_Helper]]:
    """Functions and methods, not tests themselves, that pass a parameter to the target."""
    out: dict[str, list[_Helper]] = {}
    for fn, fn_calls in functions:
        if fn.name.startswith("test") or not any(map(is_target, fn_calls)):
            continue
        a = fn.args
        positional = [p.arg for p in (*a.posonlyargs, *a.args)]
        params = positional[1:] if positional[:1] in (["self"], ["cls"]) else positional
        defaults: Row = dict(zip(positional[len(positional) - len(a.defaults) :], a.defaults))
        defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        names = {*params, *(p.arg for p in a.kwonlyargs)}
        calls = [c for c in fn_calls if is_target(c) and _uses(c, names)]
        if calls:
            out.setdefault(fn.name, []).append(_Helper(params, defaults, calls))
    return out


def _uses(call: ast.Call, names: set[str]) -> bool:
    parts = [*call.args, *(k.value for k in call.keywords)]
    return any(isinstance(n, ast.Name) and n.id in names for p in parts for n in ast.walk(p))


def _name(node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    # self.check(...), cls.check(...), or a module-level helper called through its module
    return f.attr if isinstance(f, ast.Attribute) else None


def _unpacks(node: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    )


class _Sub(ast.NodeTransformer):
    def __init__(self, row: Row) -> None:
        self.row = row

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.row.get(node.id, node)


def _bound(node: ast.expr, row: Row) -> ast.expr:
    """``node`` with the test's row names replaced by the row's values."""
    if not row:
        return node
    out: ast.expr = _Sub(row).visit(ast.parse(ast.unparse(node), mode="eval")).body
    # the test's line, not the fresh parse's: a row the change wrote stays fresh (fresh.py)
    return ast.copy_location(out, node)
