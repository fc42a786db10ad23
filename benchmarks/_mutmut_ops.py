"""An independent set of mutation operators for benchmarks/mutation_score.py, so that the
score of codemode's specs is not measured only with the operators codemode's own selector
optimises for (codemode/worker/mutants.py).

The operators are mutmut's (mutmut 2.4, ``mutmut/__init__.py``: ``number_mutation``,
``string_mutation``, ``keyword``/``name`` mutations, ``operator_mutation``,
``and_or_test_mutation``, ``lambda_mutation``, ``expression``/assignment mutation),
re-implemented over ``ast`` rather than mutmut's parso tree; what mutmut changes is kept:

- numbers: ``n`` -> ``n + 1`` (floats too);
- strings: ``"s"`` -> ``"XXsXX"`` (docstrings left alone, as mutmut does);
- keywords and names: ``True`` <-> ``False``, ``None`` -> ``""``, ``break`` <-> ``continue``,
  ``in`` <-> ``not in``, ``is`` <-> ``is not``, ``and`` <-> ``or``;
- operators: ``+ -``, ``* /``, ``// /``, ``% /``, ``** *``, ``<< >>``, ``& |``, ``^ &``,
  in expressions and augmented assignments; comparisons ``< <=``, ``> >=``, ``== !=``;
- lambdas: ``lambda: x`` -> ``lambda: None``;
- assignments: ``a = x`` -> ``a = None`` (``a = None`` -> ``a = ""``).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator

_BINOPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.Div,
    ast.Pow: ast.Mult,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitAnd,
}
_CMPOPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}

Site = tuple[str, Callable[[], None]]  # (description, apply in place)


def _docstrings(fn: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(fn):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                out.add(id(value))
    return out


def _constant(node: ast.Constant) -> Iterator[Site]:
    v = node.value
    if isinstance(v, bool):
        yield f"keyword {v} -> {not v}", lambda: setattr(node, "value", not v)
    elif v is None:
        yield "name None -> ''", lambda: setattr(node, "value", "")
    elif isinstance(v, (int, float)):
        yield f"number {v!r} -> {v + 1!r}", lambda: setattr(node, "value", v + 1)
    elif isinstance(v, str):
        yield f"string {v[:20]!r} -> 'XX...XX'", lambda: setattr(node, "value", f"XX{v}XX")


def _sites_of(node: ast.AST, skip: set[int]) -> Iterator[Site]:
    if isinstance(node, ast.Constant) and id(node) not in skip:
        yield from _constant(node)
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _BINOPS:
        new = _BINOPS[type(node.op)]
        desc = f"operator {type(node.op).__name__} -> {new.__name__}"
        yield desc, lambda: setattr(node, "op", new())
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _CMPOPS:
                new_op = _CMPOPS[type(op)]

                def swap(i: int = i, new_op: type[ast.cmpop] = new_op) -> None:
                    node.ops[i] = new_op()

                yield f"comparison {type(op).__name__} -> {new_op.__name__}", swap
    elif isinstance(node, ast.BoolOp):
        new_b = ast.Or if isinstance(node.op, ast.And) else ast.And
        yield (
            f"keyword {type(node.op).__name__} -> {new_b.__name__}",
            lambda: setattr(node, "op", new_b()),
        )
    elif isinstance(node, ast.Lambda):
        yield "lambda body -> None", lambda: setattr(node, "body", ast.Constant(None))
    elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        is_none = isinstance(node.value, ast.Constant) and node.value.value is None
        repl = "" if is_none else None
        yield f"assignment -> {repl!r}", lambda: setattr(node, "value", ast.Constant(repl))
    yield from _loop_control(node)


def _loop_control(node: ast.AST) -> Iterator[Site]:
    for field in ("body", "orelse", "finalbody"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list):
            continue
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, (ast.Break, ast.Continue)):
                new = ast.Continue if isinstance(stmt, ast.Break) else ast.Break

                def swap(stmts: list[ast.stmt] = stmts, i: int = i, new: type = new) -> None:
                    stmts[i] = new()

                yield f"keyword {type(stmt).__name__.lower()} -> {new.__name__.lower()}", swap


def _sites(fn: ast.AST) -> list[Site]:
    skip = _docstrings(fn)
    out: list[Site] = []
    for node in ast.walk(fn):
        if node is fn:
            continue  # the def itself (its decorators are the project's wiring)
        out.extend(_sites_of(node, skip))
    return out


def count(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str]]:
    """One entry per mutant of ``fn``: its description (the same API as codemode's)."""
    return [(desc,) for desc, _ in _sites(fn)]


def mutate(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, k: int
) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """A copy of ``fn`` with its ``k``-th mutation applied."""
    clone = copy.deepcopy(fn)
    _sites(clone)[k][1]()
    return ast.fix_missing_locations(clone)
