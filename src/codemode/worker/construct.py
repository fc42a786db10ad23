"""The built-in fixture ``codemode.build`` (#32): a value built as the project's tests build it.

A parameter whose values have no YAML form (a parsed-document element, a connection) gets
its value from the lines a test builds it with, which regen copies from the test::

    fixtures:
      node:
        setup: codemode.build
        kwargs:
          lines: ["from demo.doc import parse", "doc = parse('h1:Title;p:Body')"]
          value: doc

A spec file is text anyone can edit, so these lines are not run as Python (the policy of
#11 holds: ``eval`` is never a spec's callable). Each line is an import, resolved under the
policy (the project's modules and the allowed standard-library ones), ``name = <expression>``,
a call made for what it changes (``doc.add("p")``), or a part set of a value an earlier line
assigned (``p.sep = ","``, ``d["k"] = 1``); an expression is calls, names, literals,
containers, operators, subscripts and attributes, none starting with ``_``: what a test writes to build a value, and no way to reach the
interpreter's internals (``().__class__``). The names it reads are the lines' own and a few
pure builtins. It runs inside the worker, under the wall (#31), like every fixture.

Stdlib only; runs inside the worker.
"""

from __future__ import annotations

import ast
import builtins
import importlib

from .policy import import_object, module_allowed, refused

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

BUILD = "codemode.build"

# Builtins a test's construction uses that run no code of their own and reach no file.
_PURE = [
    "abs",
    "all",
    "any",
    "bool",
    "bytes",
    "dict",
    "divmod",
    "enumerate",
    "float",
    "frozenset",
    "int",
    "len",
    "list",
    "max",
    "min",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "str",
    "sum",
    "tuple",
    "zip",
]
_NODES = (
    ast.Expression, ast.Call, ast.keyword, ast.Attribute, ast.Subscript, ast.Slice, ast.Name,
    ast.Load, ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.Starred, ast.UnaryOp,
    ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.JoinedStr, ast.FormattedValue,
    ast.unaryop, ast.operator, ast.boolop, ast.cmpop,
)  # fmt: skip


class BuildError(Exception):
    """A line of the construction that is not of the allowed form."""


def build(lines: Sequence[str] = (), value: str = "") -> tuple[Any, None]:
    """The value of ``value`` after ``lines``; no teardown."""
    ns: dict[str, Any] = {"__builtins__": {n: getattr(builtins, n) for n in _PURE}}
    built: set[str] = set()  # the names the lines assigned: only their values are changed
    for line in lines:
        _line(str(line), ns, built)
    return _eval(str(value), ns), None


def _line(line: str, ns: dict[str, Any], built: set[str]) -> None:
    try:
        body = ast.parse(line).body
    except SyntaxError as exc:
        raise BuildError(f"{line!r} does not parse: {exc.msg}") from None
    if len(body) != 1:
        raise BuildError(f"{line!r}: one import or assignment a line")
    stmt = body[0]
    if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
        for a in stmt.names:
            if a.name == "*":
                raise BuildError(f"{line!r}: name what is imported")
            ns[a.asname or a.name] = import_object(f"{stmt.module}.{a.name}")
    elif isinstance(stmt, ast.Import):
        for a in stmt.names:
            if module_allowed(a.name) is not True:
                raise refused(a.name, f"module {a.name!r}")
            module = importlib.import_module(a.name)
            ns[a.asname or a.name.split(".")[0]] = module if a.asname else _top(a.name)
    elif (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        ns[stmt.targets[0].id] = _eval(ast.unparse(stmt.value), ns)
        built.add(stmt.targets[0].id)
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        _eval(ast.unparse(stmt.value), ns)  # a step that prepares a value: doc.add('p')
    elif (
        isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _root(stmt.targets[0]) in built
    ):
        _set(stmt.targets[0], stmt.value, ns)
    else:
        raise BuildError(
            f"{line!r}: only imports, `name = expression`, a call, and a part of a value the "
            "lines built set (`name.attribute = expression`) build a value"
        )


def _root(node: ast.expr) -> str:
    """The name an attribute or item chain starts from (``doc`` of ``doc.meta['k']``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _set(target: ast.expr, value: ast.expr, ns: dict[str, Any]) -> None:
    """``obj.attribute = value`` or ``obj[key] = value`` on a value the lines built."""
    if isinstance(target, ast.Attribute):
        if target.attr.startswith("_"):
            raise BuildError(f"{target.attr} (a name starting with _) is not allowed")
        setattr(_eval(ast.unparse(target.value), ns), target.attr, _eval(ast.unparse(value), ns))
    elif isinstance(target, ast.Subscript):
        obj, key = _eval(ast.unparse(target.value), ns), _eval(ast.unparse(target.slice), ns)
        obj[key] = _eval(ast.unparse(value), ns)


def _top(name: str) -> Any:
    return importlib.import_module(name.split(".")[0])


def _eval(source: str, ns: dict[str, Any]) -> Any:
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise BuildError(f"{source!r} does not parse: {exc.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise BuildError(f"{source!r}: {type(node).__name__} is not allowed in a construction")
        name = getattr(node, "attr", None) or getattr(node, "id", None) or ""
        if isinstance(name, str) and name.startswith("_"):
            raise BuildError(f"{source!r}: {name} (a name starting with _) is not allowed")
    return eval(compile(tree, "<codemode.build>", "eval"), ns)  # of the form checked above
