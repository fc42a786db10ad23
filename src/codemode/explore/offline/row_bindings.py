"""Table-driven tests, read statically: the rows a test iterates bind the names its calls use.

A unittest class often keeps its cases in a table and loops over it::

    class VersionTests(unittest.TestCase):
        versions = (("0.1.0", "0.1.1", -1), ("0.1.1", "0.1.1", 0))

        def test_compare(self):
            for a, b, expected in self.versions:
                with self.subTest(a=a, b=b):
                    self.assertEqual(compare(a, b), expected)

The call ``compare(a, b)`` has no literal argument; bound from the table's rows it has two
per row. Tables are found where tests keep them: a literal in the ``for``, a name assigned in
the test function, in its class body or ``setUp`` (``self.rows``, ``cls.rows``,
``Class.rows``) or at module level; iterated directly, through ``.items()``, ``.keys()``,
``.values()``, ``zip``, ``enumerate``, ``sorted``, ``list``, ``tuple`` or ``reversed``.
``subTest`` needs nothing of its own: its names are the loop's. Each row is a binding of the
loop's target names (nested tuples unpacked); loops inside loops combine, up to ``MAX_ROWS``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from codemode.explore.offline.per_tree import once_per_tree

MAX_ROWS = 60  # bindings per call: a table of thousands of rows is data, not examples
_PASS_THROUGH = frozenset(["sorted", "list", "tuple", "reversed", "set", "frozenset"])
Row = dict[str, ast.expr]
Env = dict[str, ast.expr]


def assignments(body: list[ast.stmt]) -> Env:
    """``name = value`` statements directly in ``body`` (the last one wins)."""
    env: Env = {}
    for node in body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name):
                env[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            env[node.target.id] = node.value
    return env


@once_per_tree
def class_tables(tree: ast.Module) -> dict[int, Env]:
    """For each method (by ``id`` of its node): its class's attributes, those its class
    body assigns and those any of its methods assigns to ``self.NAME`` / ``cls.NAME``.
    Once per tree (a shared parse): the pool of one function of a 200-function module asked
    for a large test file's tables once per sibling, 21 of its 37 s (#32)."""
    return _class_tables(tree)


def _class_tables(tree: ast.Module) -> dict[int, Env]:
    out: dict[int, Env] = {}
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        env = assignments(cls.body)
        methods = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for m in methods:
            for node in ast.walk(m):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    t = node.targets[0]
                    if _on_self(t):
                        env.setdefault(t.attr, node.value)  # type: ignore[attr-defined]
        env = {f"{owner}.{k}": v for k, v in env.items() for owner in ("self", "cls", cls.name)}
        for m in methods:
            out[id(m)] = env
    return out


def _on_self(t: ast.expr) -> bool:
    """``self.NAME`` or ``cls.NAME``: an attribute a method sets (``setUp``)."""
    return (
        isinstance(t, ast.Attribute)
        and isinstance(t.value, ast.Name)
        and t.value.id in ("self", "cls")
    )


def _resolve(node: ast.expr, env: Env, depth: int = 0) -> ast.expr:
    while depth < 10:
        key = ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if key is None or key not in env:
            return node
        node = env[key]
        depth += 1
    return node


def rows_of(node: ast.expr, env: Env, depth: int = 0) -> list[ast.expr] | None:
    """The rows a ``for`` iterates, when they are written in the source; None otherwise."""
    if depth > 6:
        return None
    node = _resolve(node, env)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [_unwrap_param(e) for e in node.elts if not isinstance(e, ast.Starred)]
    if isinstance(node, ast.Dict):
        return [k for k in node.keys if k is not None]
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr in ("items", "keys", "values") and not node.args:
        d = _resolve(f.value, env)
        if not isinstance(d, ast.Dict):
            return None
        pairs = [(k, v) for k, v in zip(d.keys, d.values) if k is not None]
        if f.attr == "keys":
            return [k for k, _ in pairs]
        if f.attr == "values":
            return [v for _, v in pairs]
        return [ast.Tuple([k, v], ast.Load()) for k, v in pairs]
    if isinstance(f, ast.Attribute) and f.attr in ("split", "splitlines"):
        return _pieces(node, env)
    name = f.id if isinstance(f, ast.Name) else None
    if name in _PASS_THROUGH and len(node.args) == 1:
        return rows_of(node.args[0], env, depth + 1)
    if name == "enumerate" and node.args:
        rows = rows_of(node.args[0], env, depth + 1)
        return (
            None if rows is None else [ast.Tuple([ast.Constant(i), r]) for i, r in enumerate(rows)]
        )
    if name == "zip" and node.args:
        columns = [rows_of(a, env, depth + 1) for a in node.args]
        if any(c is None for c in columns):
            return None
        return [ast.Tuple(list(r), ast.Load()) for r in zip(*columns)]
    return None


def _pieces(node: ast.Call, env: Env) -> list[ast.expr] | None:
    """The rows of a text block split in the source: a doctest's or a test's many values
    written one a line (``for v in VALUES.split():``, a triple-quoted block's lines)."""
    assert isinstance(node.func, ast.Attribute)
    text = _resolve(node.func.value, env)
    if not isinstance(text, ast.Constant) or not isinstance(text.value, str):
        return None
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        parts = getattr(text.value, node.func.attr)(*args, **kwargs)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    line = text.lineno
    return [ast.Constant(p, lineno=line, end_lineno=line, col_offset=0) for p in parts if p]


def _unwrap_param(e: ast.expr) -> ast.expr:
    """``pytest.param(a, b, id=...)`` is the row ``(a, b)``."""
    if isinstance(e, ast.Call) and ast.unparse(e.func).split(".")[-1] == "param":
        return e.args[0] if len(e.args) == 1 else ast.Tuple(list(e.args), ast.Load())
    return e


def bind(target: ast.expr, row: ast.expr) -> Row | None:
    """The names ``target`` takes from one row (nested tuples unpacked); None on a mismatch."""
    if isinstance(target, ast.Name):
        return {target.id: row}
    if isinstance(target, (ast.Tuple, ast.List)):
        if not isinstance(row, (ast.Tuple, ast.List)) or len(row.elts) != len(target.elts):
            return None
        out: Row = {}
        for t, r in zip(target.elts, row.elts):
            sub = bind(t, r)
            if sub is None:
                return None
            out.update(sub)
        return out
    return None


def loop_rows(fn: ast.AST, env: Env, fresh: frozenset[int] = frozenset()) -> dict[int, list[Row]]:
    """For each call inside a ``for`` whose rows are written in the source (by ``id`` of the
    call node): the bindings of the enclosing loops' names, one per row; past ``MAX_ROWS``,
    the rows on lines the change wrote (``fresh``: explore/offline/fresh.py) are kept first."""
    local = {**env, **assignments(getattr(fn, "body", []))}
    out: dict[int, list[Row]] = {}
    for call, rows in _walk(fn, local, [{}], fresh):
        out[id(call)] = rows
    return out


def _combined(rows: list[Row], bound: list[Row], fresh: frozenset[int]) -> list[Row]:
    from codemode.explore.offline.fresh import fresh_first

    return fresh_first([{**r, **b} for r in rows for b in bound], fresh)[:MAX_ROWS]


def _walk(
    node: ast.AST, env: Env, rows: list[Row], fresh: frozenset[int]
) -> Iterator[tuple[ast.Call, list[Row]]]:
    if isinstance(node, (ast.For, ast.AsyncFor)):
        found = rows_of(node.iter, env)
        bound = [b for b in (bind(node.target, r) for r in found or []) if b is not None]
        inner = _combined(rows, bound, fresh) if bound else rows
        for stmt in node.body:
            yield from _walk(stmt, env, inner, fresh)
        for stmt in node.orelse:
            yield from _walk(stmt, env, rows, fresh)
        return
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        inner = rows
        for gen in node.generators:  # `[f(x) for x in TABLE]`
            found = rows_of(gen.iter, env)
            bound = [b for b in (bind(gen.target, r) for r in found or []) if b is not None]
            inner = _combined(inner, bound, fresh) if bound else inner
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for part in parts:
            yield from _walk(part, env, inner, fresh)
        return
    if isinstance(node, ast.Call) and rows != [{}]:
        yield node, rows
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, env, rows, fresh)


def built_table(node: ast.expr, tables: dict[str, ast.expr], depth: int = 0) -> ast.List | None:
    """A table the test builds in the source: lists added together, and a comprehension over
    a written table (``[(v, s, True) for v, s in [("2.0", "==2"), ...]]``), each row its
    element with the names bound (the values keep their lines: fresh.py)."""
    from codemode.explore.offline.harvest import substituted

    if depth > 6:
        return None
    if isinstance(node, ast.Name) and node.id in tables:
        node = tables[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        return ast.List(list(node.elts), ast.Load())
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = (
            built_table(node.left, tables, depth + 1),
            built_table(node.right, tables, depth + 1),
        )
        return ast.List([*left.elts, *right.elts], ast.Load()) if left and right else None
    if not isinstance(node, ast.ListComp) or len(node.generators) != 1:
        return None
    gen = node.generators[0]
    if gen.ifs:
        return None
    rows = rows_of(gen.iter, dict(tables)) or []
    bound = [b for b in (bind(gen.target, r) for r in rows) if b is not None]
    return ast.List([substituted(node.elt, b) for b in bound], ast.Load()) if bound else None
