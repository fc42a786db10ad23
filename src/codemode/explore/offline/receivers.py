"""Where a test file builds the objects a call needs (#32), beyond ``Cls(...).m()`` and ``x =
Cls(...); x.m()`` in one test: a test class's ``setUp`` (or any method of it) that assigns
``self.x = Cls(...)``, a pytest fixture in the file that returns or yields ``Cls(...)``, and
the constructor of a subclass defined beside the class (``Bold('x').show()`` runs
``Node.show``). Without these, a method whose class needs constructor arguments had no
instance in the behaviour diff, and every call of it failed on both sides: "not compared".
An argument a fixture of the file builds in one expression (``return parse("h1:T")``) is
carried as that expression (``fixture_returns``, read by explore/offline/test_names.py).
Read statically; an instance still travels as a literal recipe the worker builds.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from codemode.explore.offline.per_tree import once_per_tree

_CLASS_HEAD = re.compile(r"^class[ \t]+(\w+)[ \t]*\(([^)]*)\)", re.M)


def class_names(cls_id: str, module: str, path: Path) -> dict[str, str]:
    """Class name -> its id: the method's class, and its subclasses defined at the top of
    its module (any depth), whose instances run the method they inherit."""
    from codemode.explore.offline.harvest import read_source

    out = {cls_id.rsplit(".", 1)[-1]: cls_id}
    heads = _CLASS_HEAD.findall(read_source(path) or "")
    grew = True
    while grew:
        grew = False
        for name, bases in heads:
            if name not in out and not out.keys().isdisjoint(re.findall(r"\w+", bases)):
                out[name] = f"{module}.{name}"
                grew = True
    return out


def is_constructor(node: ast.expr | None, names: dict[str, str]) -> bool:
    """``Cls(...)`` or ``mod.Cls(...)`` for a class of ``names``."""
    return isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in names


def held(
    tree: ast.Module, names: dict[str, str], outer: Sequence[ast.Module] = ()
) -> dict[int, dict[str, ast.expr]]:
    """id(test function) -> the receivers its test class or fixtures build for it, by how the
    test writes them (``self.g``, ``parser``) -> the constructor call. ``outer``: the
    conftest.py files above the test file, the nearest first (their fixtures are its too)."""
    out: dict[int, dict[str, ast.expr]] = {}
    fixtures: dict[str, ast.expr] = {}
    for more in [*reversed(outer), tree]:
        fixtures.update(_fixtures(more, names))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            attrs = _self_attributes(node, names)
            for fn in node.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and attrs:
                    out.setdefault(id(fn), {}).update(attrs)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and fixtures:
            given = {a.arg for a in [*node.args.posonlyargs, *node.args.args]}
            got = {name: fixtures[name] for name in given & fixtures.keys()}
            if got:
                out.setdefault(id(node), {}).update(got)
    return out


def _self_attributes(cls: ast.ClassDef, names: dict[str, str]) -> dict[str, ast.expr]:
    """``self.NAME`` -> ``Cls(...)`` for each assignment of a constructor call to an
    attribute in a method of the test class (``setUp``, ``setup_method``, a helper)."""
    out: dict[str, ast.expr] = {}
    for attr, value in _self_assignments(cls):
        if is_constructor(value, names):
            out.setdefault(f"self.{attr}", value)
    return out


def _self_assignments(cls: ast.ClassDef) -> Iterator[tuple[str, ast.expr]]:
    """(NAME, value) for each ``self.NAME = value`` in a method of ``cls``, in order."""
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(target := node.targets[0], ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                yield target.attr, node.value


def _fixtures(tree: ast.Module, names: dict[str, str]) -> dict[str, ast.expr]:
    """Fixture name -> the constructor call it returns or yields (directly, or through a
    local name it assigned one to), for the module-level pytest fixtures of the file."""
    out: dict[str, ast.expr] = {}
    for fn in tree.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not any(
            "fixture" in ast.unparse(d) for d in fn.decorator_list
        ):
            continue
        local = {
            node.targets[0].id: node.value
            for node in ast.walk(fn)
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and is_constructor(node.value, names)
        }
        for node in ast.walk(fn):
            if isinstance(node, (ast.Return, ast.Yield)) and node.value is not None:
                value = node.value
                if isinstance(value, ast.Name):
                    value = local.get(value.id, value)
                if is_constructor(value, names):
                    out.setdefault(fn.name, value)
    return out


def fixture_returns(tree: ast.Module) -> dict[str, ast.expr]:
    """Fixture name -> the expression it returns or yields (``fixture_value``), for the
    module-level pytest fixtures of the file: a test's parameter of that name is that
    expression (its own names looked up in the file)."""
    out: dict[str, ast.expr] = {}
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and any(
            "fixture" in ast.unparse(d) for d in fn.decorator_list
        ):
            value = fixture_value(fn)
            if value is not None:
                out[fn.name] = value
    return out


def fixture_value(fn: ast.FunctionDef) -> ast.expr | None:
    """The one expression a fixture returns or yields, when its body (a docstring aside) is
    plain assignments and then that statement (a ``yield``'s teardown after it aside), with
    the assigned names put in place: ``text = "a, b"`` then ``return Doc(text)`` is
    ``Doc("a, b")``. None for a body that does anything else first (a call, a loop, a ``with``):
    its value is more than an expression."""
    body = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
    names: dict[str, ast.expr] = {}
    for stmt in body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            names[stmt.targets[0].id] = _put_names(stmt.value, names)
            continue
        value = stmt.value if isinstance(stmt, (ast.Return, ast.Expr)) else None
        if isinstance(stmt, ast.Expr):
            value = value.value if isinstance(value, ast.Yield) else None
        if isinstance(stmt, ast.Return) and stmt is not body[-1]:
            return None
        return None if value is None else _put_names(value, names)
    return None


def _put_names(node: ast.expr, names: dict[str, ast.expr]) -> ast.expr:
    if not names:
        return node
    from codemode.explore.offline.harvest import SubstituteNames

    made: ast.expr = SubstituteNames(names).visit(ast.parse(ast.unparse(node), mode="eval")).body
    return made


@once_per_tree
def self_values(tree: ast.Module) -> dict[int, dict[str, ast.expr]]:
    """id(method of a test class) -> attribute -> the expression a method of its class
    (``setUp``) assigns to ``self.<attribute>``, the first one: ``render(self.doc)`` in a
    test is ``render(parse("h1:T"))`` when ``setUp`` says ``self.doc = parse("h1:T")``.
    Once per tree: a pool asks for it once per sibling of the target (per_tree.py)."""
    out: dict[int, dict[str, ast.expr]] = {}
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        values: dict[str, ast.expr] = {}
        for attr, value in _self_assignments(cls):
            if not any(isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(value)):
                values.setdefault(attr, value)
        for fn in cls.body if values else ():
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[id(fn)] = values
    return out


class PutSelfValues(ast.NodeTransformer):
    """``self.<attribute>`` replaced by the expression ``self_values`` found for it."""

    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return self.values.get(node.attr, node)
        return self.generic_visit(node)  # type: ignore[return-value]
