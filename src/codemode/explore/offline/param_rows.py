"""The rows a test runs with: its ``parametrize`` tables (its own and its class's, written
with positional or keyword arguments), and the values of the parametrized fixtures it takes
(#32).

``@pytest.fixture(params=["ab", "a\\tb"])`` with ``return request.param`` (or an expression of
it, ``Doc(request.param)``) runs each test that takes the fixture once per value, as a
``parametrize`` table does; projects keep the inputs shared by many tests there, in the test
file or a ``conftest.py`` above it (explore/offline/conftest_names.py). A test's parameter of
that name was bound to nothing and its calls dropped. Each such fixture is read as a table
of its values (``request.param`` replaced by each, ``pytest.param(x, ...)`` read as ``x``),
kept beside the module's tables under a key no name can spell (``FIXTURE``), and combined
with the test's own tables.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codemode.explore.offline import fresh as fresh_lines
from codemode.explore.offline.receivers import fixture_value
from codemode.explore.offline.row_bindings import built_table
from codemode.explore.offline.spread import expr_shape, spread

FIXTURE = "@fixture "  # + the fixture's name: a key of ``tables`` no identifier can be
# + id() of a test method: its class's decorators (a ``parametrize`` on a class applies to
# each of its tests; ``ast`` keeps no parent to find it from the method)
IN_CLASS = "@class "
SPREAD = 50  # rows a test keeps, over their shapes
# values of one parametrized fixture read, at most: each is rebuilt with its value in place,
# and a conftest is read for every test file below it (a spread of 50 keeps fewer anyway)
MAX_PARAMS = 200


def module_tables(tree: ast.Module, path: Path | None = None) -> dict[str, ast.expr]:
    """Module-level ``NAME = [...]`` / ``(...)``: parametrize tables kept apart from the test;
    and the parametrized fixtures of the file and of the conftest.py files above ``path``."""
    from codemode.explore.offline.conftest_names import conftest_trees

    out: dict[str, ast.expr] = {}
    for more in reversed(conftest_trees(path)):  # the nearest last: its fixture wins
        out.update(fixture_tables(more))
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.List, ast.Tuple))
        ):
            out[node.targets[0].id] = node.value
    out.update(fixture_tables(tree))
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and cls.decorator_list:
            marks = ast.List(list(cls.decorator_list), ast.Load())
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[IN_CLASS + str(id(fn))] = marks
    return out


def fixture_tables(tree: ast.Module) -> dict[str, ast.expr]:
    """``FIXTURE + name`` -> a list of the values of each module-level fixture of ``tree``
    with ``params=[...]`` that returns or yields one expression (``fixture_value``)."""
    out: dict[str, ast.expr] = {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        params = _params(fn.decorator_list)
        value = fixture_value(fn) if params is not None else None
        if params is not None and value is not None:
            out[FIXTURE + fn.name] = ast.List([_put(value, p) for p in params], ast.Load())
    return out


def _params(decorators: Sequence[ast.expr]) -> list[ast.expr] | None:
    for dec in decorators:
        if isinstance(dec, ast.Call) and ast.unparse(dec.func).endswith("fixture"):
            for k in dec.keywords:
                if k.arg == "params" and isinstance(k.value, (ast.List, ast.Tuple)):
                    return [_unwrapped(e) for e in k.value.elts[:MAX_PARAMS]]
    return None


def _unwrapped(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("param") and node.args:
        return node.args[0] if len(node.args) == 1 else ast.Tuple(node.args, ast.Load())
    return node


class _Param(ast.NodeTransformer):
    def __init__(self, value: ast.expr) -> None:
        self.value = value

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if ast.unparse(node) == "request.param":
            return self.value
        return self.generic_visit(node)


def _put(expr: ast.expr, value: ast.expr) -> ast.expr:
    """``expr`` with ``request.param`` replaced by ``value`` (a fresh tree)."""
    made: ast.expr = _Param(value).visit(ast.parse(ast.unparse(expr), mode="eval")).body
    return made


def parametrize_rows(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    tables: dict[str, ast.expr],
    fresh: frozenset[int] = frozenset(),
) -> list[dict[str, ast.expr]]:
    """The rows of the test's ``parametrize`` tables and parametrized fixtures (combined), a
    spread of 50 over their shapes, the rows the change wrote (``fresh`` lines) first."""
    rows: list[dict[str, ast.expr]] = [{}]
    for table in [*_decorated(fn, tables), *_fixtures_taken(fn, tables)]:
        combined = [{**r, **t} for r in rows for t in table]
        rows = spread(combined, SPREAD, _row_shape, lambda r: fresh_lines.is_fresh(r, fresh))
    return rows


def _fixtures_taken(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, tables: dict[str, ast.expr]
) -> list[list[dict[str, ast.expr]]]:
    out = []
    for a in [*fn.args.posonlyargs, *fn.args.args]:
        values = tables.get(FIXTURE + a.arg)
        if isinstance(values, ast.List) and values.elts:
            out.append([{a.arg: v} for v in values.elts])
    return out


def _decorated(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, tables: dict[str, ast.expr]
) -> list[list[dict[str, ast.expr]]]:
    out = []
    marks = tables.get(IN_CLASS + str(id(fn)))
    outer = marks.elts if isinstance(marks, ast.List) else []
    for dec in [*outer, *fn.decorator_list]:
        if not (isinstance(dec, ast.Call) and ast.unparse(dec.func).endswith("parametrize")):
            continue
        dec = _positional(dec)
        if len(dec.args) >= 2 and isinstance(dec.args[1], (ast.Name, ast.BinOp, ast.ListComp)):
            built = built_table(dec.args[1], tables)  # a name, lists added, a comprehension
            dec = ast.Call(dec.func, [dec.args[0], built or dec.args[1]], [])
        if len(dec.args) < 2 or not isinstance(dec.args[1], (ast.List, ast.Tuple)):
            continue
        try:
            names = ast.literal_eval(dec.args[0])
        except ValueError:
            continue
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        table: list[dict[str, ast.expr]] = []
        for row in dec.args[1].elts:
            row = _unwrapped(row)
            values = list(row.elts) if len(names) > 1 and isinstance(row, ast.Tuple) else [row]
            if len(values) == len(names):
                table.append(dict(zip(names, values)))
        if table:
            out.append(table)
    return out


def _positional(dec: ast.Call) -> ast.Call:
    """``parametrize(argnames=..., argvalues=...)`` as ``parametrize(names, values)``."""
    named = {k.arg: k.value for k in dec.keywords if k.arg in ("argnames", "argvalues")}
    if not named:
        return dec
    args = list(dec.args)
    for i, key in enumerate(("argnames", "argvalues")):
        if key in named and len(args) == i:
            args.append(named[key])
    return ast.Call(dec.func, args, [])


def _row_shape(row: dict[str, ast.expr]) -> tuple[Any, ...]:
    return tuple(expr_shape(v) for v in row.values())
