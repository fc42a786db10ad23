"""The instance a test prepares before it calls the method (#32), replayed as the test does.

::

    p = Parser()
    p.add_rule("x")
    assert p.parse("x y") == ["x"]

    v = Version.parse("1.2.3")
    v.bump()
    assert v.text() == "1.2.4"

``Parser()`` alone is not the instance ``parse`` ran on: the rule the test added is what the
call is about. The statements of the test between the instance's assignment and the call,
in the blocks that hold the call, that change the instance (a method called on it as a
statement or as the whole value of an assignment, an attribute or item set on it) are the
recipe's steps, run in the worker after the instance is built
(worker/canonical.py's ``_New.calls``). An instance comes from the class or a subclass
(``Parser()``), from a function of the class (``Version.parse("1.2.3")``) or from a
function of the project the test file imports (``make_parser("x")``): each is a recipe's
callable, resolved to its dotted id.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

MAX_STEPS = 20  # statements replayed before one call: more is a scenario, not a preparation


class Makers:
    """One test file's ways to build instances of the method's class (``names``: the class
    and its subclasses, name -> id), each resolved to the dotted id of what is called."""

    def __init__(self, tree: ast.Module, names: dict[str, str], project: str) -> None:
        self.names = names
        self.project = project  # the top package: a factory is one of the project's
        self.imported: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    self.imported[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    self.imported[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else a.name.split(".")[0]
                    )

    def maker(self, node: ast.expr | None) -> str | None:
        """The id ``node`` calls to build an instance (``pkg.mod.Class``,
        ``pkg.mod.Class.parse``, ``pkg.factories.make``), or None."""
        if not isinstance(node, ast.Call):
            return None
        parts = ast.unparse(node.func).split(".")
        if parts[-1] in self.names:
            return self.names[parts[-1]]
        if len(parts) >= 2 and parts[-2] in self.names:
            return f"{self.names[parts[-2]]}.{parts[-1]}"
        head = self.imported.get(parts[0])
        if head is None or head.split(".")[0] != self.project:
            return None
        return ".".join([head, *parts[1:]])


def method_call(node: ast.AST, method: str) -> ast.Call | None:
    """``node`` when it calls ``method`` on an object (``obj.method(...)``), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node if node.func.attr == method else None
    return None


class Blocks:
    """A test function's statements, each with the statement lists that hold it."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.holder: dict[int, list[ast.stmt]] = {}  # id(stmt) -> its list
        self.parent: dict[int, ast.stmt | None] = {}
        self.stmt_of: dict[int, ast.stmt] = {}  # id(expression node) -> its statement
        self._walk(fn.body, None)

    def _walk(self, body: list[ast.stmt], parent: ast.stmt | None) -> None:
        for stmt in body:
            self.holder[id(stmt)], self.parent[id(stmt)] = body, parent
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    self._walk(inner, stmt)
            for handler in getattr(stmt, "handlers", []):
                self._walk(handler.body, stmt)
            for case in getattr(stmt, "cases", []):
                self._walk(case.body, stmt)
            for node in _own_nodes(stmt):
                self.stmt_of[id(node)] = stmt

    def before(self, node: ast.AST) -> Iterator[ast.stmt]:
        """The statements that run before ``node``'s statement, in the lists that hold it
        and the lists that hold those, in their order (nothing inside a block that ends
        before it: a branch or a ``with pytest.raises`` is not the test's preparation)."""
        stmt = self.stmt_of.get(id(node))
        chain: list[ast.stmt] = []
        while stmt is not None:
            chain.append(stmt)
            stmt = self.parent.get(id(stmt))
        for inner in reversed(chain):
            body = self.holder[id(inner)]
            yield from body[: next(i for i, s in enumerate(body) if s is inner)]

    def changes(self, node: ast.AST) -> Callable[[str], list[ast.stmt]]:
        """A name -> the statements before ``node`` that change it after its assignment."""
        before: list[ast.stmt] | None = None

        def of(name: str) -> list[ast.stmt]:
            nonlocal before
            before = list(self.before(node)) if before is None else before
            return changes_before(before, name)

        return of


def _own_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of ``stmt`` outside the statements it holds."""
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.stmt, ast.excepthandler)) and not _is_case(child):
                todo.append(child)


def _is_case(node: ast.AST) -> bool:
    return type(node).__name__ == "match_case"


def preparation(
    before: list[ast.stmt],
    held_as: str,
    makers: Makers,
    held: ast.expr | None = None,
    held_steps: list[ast.stmt] | None = None,
) -> tuple[ast.expr, list[ast.stmt]] | None:
    """The last assignment of a built instance to ``held_as`` among ``before`` (else
    ``held``: what the test class's ``setUp`` or a fixture built, after ``held_steps``: the
    statements of ``setUp`` that prepared it), and the statements after it that change the
    instance; None when nothing builds one."""
    start = 0
    first = list(held_steps or [])
    for at in range(len(before) - 1, -1, -1):
        stmt = before[at]
        if _assigns(stmt, held_as):
            held = stmt.value  # type: ignore[attr-defined]
            if makers.maker(held) is None:
                return None
            start, first = at + 1, []
            break
    if held is None:
        return None
    return held, [*first, *(s for s in before[start:] if _changes(s, held_as))]


def setup_steps(tree: ast.Module) -> dict[int, dict[str, list[ast.stmt]]]:
    """id(method of a test class) -> ``self.NAME`` -> the statements of a method of its
    class (``setUp``) that change the instance after it assigns it there
    (``self.p = Parser()``; ``self.p.add_rule("x")``)."""
    out: dict[int, dict[str, list[ast.stmt]]] = {}
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        found: dict[str, list[ast.stmt]] = {}
        methods = [f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for fn in methods:
            for at, stmt in enumerate(fn.body):
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
                if isinstance(target, ast.Attribute) and ast.unparse(target.value) == "self":
                    name = ast.unparse(target)
                    steps = [s for s in fn.body[at + 1 :] if _changes(s, name)]
                    if steps:
                        found.setdefault(name, steps[:MAX_STEPS])
        for fn in methods if found else ():
            out[id(fn)] = found
    return out


def changes_before(before: list[ast.stmt], name: str) -> list[ast.stmt]:
    """The statements among ``before`` that change ``name``'s value after its last
    assignment there (none when it is not assigned there), at most ``MAX_STEPS``."""
    for at in range(len(before) - 1, -1, -1):
        if _assigns(before[at], name):
            return [s for s in before[at + 1 :] if _changes(s, name)][:MAX_STEPS]
    return []


def _assigns(stmt: ast.stmt, held_as: str) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], (ast.Name, ast.Attribute))
        and ast.unparse(stmt.targets[0]) == held_as
    )


def _changes(stmt: ast.stmt, held_as: str) -> bool:
    """A method called on the instance or on a part of it (``doc.children.append(x)``), as a
    statement or as the whole value assigned to a name; an attribute or an item of it set."""
    if isinstance(stmt, (ast.Expr, ast.Assign)):
        value = stmt.value
        func = value.func if isinstance(value, ast.Call) else None
        if isinstance(func, ast.Attribute) and _within(func.value, held_as):
            return True
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        return isinstance(t, (ast.Attribute, ast.Subscript)) and _within(t.value, held_as)
    return False


def _within(node: ast.expr, held_as: str) -> bool:
    text = ast.unparse(node)
    return text == held_as or text.startswith((f"{held_as}.", f"{held_as}["))


def step_calls(steps: list[ast.stmt], held_as: str) -> list[tuple[str, ast.Call]] | None:
    """Each step as the call it makes on the instance itself: (method, the call's arguments
    as a call node whose function does not matter); None when a step changes a part of it
    (a recipe's calls are the instance's own)."""
    out: list[tuple[str, ast.Call]] = []
    for stmt in steps:
        value = getattr(stmt, "value", None)
        t = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
        if isinstance(t, (ast.Attribute, ast.Subscript)) and ast.unparse(t.value) == held_as:
            if isinstance(t, ast.Attribute):
                out.append(("__setattr__", ast.Call(_F, [ast.Constant(t.attr), value], [])))
            else:
                out.append(("__setitem__", ast.Call(_F, [t.slice, value], [])))
        elif (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and ast.unparse(value.func.value) == held_as
        ):
            out.append((value.func.attr, value))
        else:
            return None
    return out


_F = ast.Name("f", ast.Load())
