"""What a harvested call needs from its test module, carried with it (#32).

A test's call often passes a name its file defines rather than a value::

    LANG = "en"

    @pytest.mark.parametrize("text, expected", [("one", 1), ("two", 2)])
    def test_parse(text, expected):
        assert parse(text, LANG) == expected

The worker evaluates a call's arguments with the target module's globals and the test
file's imports; ``LANG`` is neither, so the call could not run. Each free name of the
arguments is looked up where the test defines it: an assignment in the test function, then
one at module level (the last one wins, as at import). A literal value is put in place of the
name (the call then has literal arguments, a seed for variants); any other value comes along
as a setup line (``when = date(2024, 1, 31)``), after the lines it needs itself; so does a
plain function of the file the arguments call (``ct("utf-8")``), as its definition. A name
bound nowhere the file says (a fixture that is more than one expression, a loop's name the
source does not spell, ``self``) drops the call with that reason, counted in ``Drops``: the
pool says how much of the tests it could not carry.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from codemode.explore.offline.conftest_names import outer_names
from codemode.explore.offline.receivers import fixture_returns
from codemode.explore.offline.row_bindings import Env

_BUILTINS = frozenset(dir(builtins))
MAX_DEPTH = 20  # a chain of assignments this long is data, not a test's setup


Changes = Callable[[str], list[ast.stmt]]


class Drops(Counter[str]):
    """Harvested calls left out of a pool, by reason."""


def imported_names(tree: ast.Module) -> set[str]:
    """Names the module's imports bind (``*`` if it star-imports: anything may be bound)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.update(a.asname or a.name for a in node.names)
    return out


def defined_names(tree: ast.Module) -> set[str]:
    """Module-level functions and classes: a call through them cannot be carried as one line."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {n.name for n in tree.body if isinstance(n, kinds)}


def plain_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """The module-level functions without decorators: helpers a test builds arguments with
    (``ct("utf-8")``), which a call can carry as their definition."""
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.decorator_list}


def def_free_names(fn: ast.FunctionDef) -> list[str]:
    """The names a function reads from outside itself: neither its parameters nor any name
    it binds (an assignment, an import, a nested def, an ``except ... as``)."""
    a = fn.args
    bound = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    bound.update(p.arg for p in (a.vararg, a.kwarg) if p is not None)
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            bound.add(n.id)
        elif isinstance(n, scopes) and n is not fn and n.name:
            bound.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound.update((x.asname or x.name).split(".")[0] for x in n.names)
    return [name for name in free_names(fn) if name not in bound]


def free_names(node: ast.AST) -> list[str]:
    """The names ``node`` reads and does not bind itself (a lambda's or a comprehension's)."""
    bound: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Lambda):
            a = n.args
            bound.update(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))
            bound.update(p.arg for p in (a.vararg, a.kwarg) if p is not None)
        elif isinstance(n, ast.comprehension):
            bound.update(t.id for t in ast.walk(n.target) if isinstance(t, ast.Name))
    out: dict[str, None] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound:
            out.setdefault(n.id, None)
    return list(out)


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


class _Put(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.values.get(node.id, node) if isinstance(node.ctx, ast.Load) else node


class Carrier:
    """One test file's names, for every call harvested from it."""

    def __init__(
        self, tree: ast.Module, module_env: Env, same_module: bool, path: Path | None = None
    ) -> None:
        self.module_env = module_env
        self.known = imported_names(tree) | _BUILTINS
        self.open = "*" in self.known or same_module  # a name may come from elsewhere
        self.defined = defined_names(tree)
        self.functions = plain_functions(tree)
        self.fixtures = fixture_returns(tree)  # a parameter a fixture builds in one line
        # and the conftest.py files' (explore/offline/conftest_names.py)
        self.outer = outer_names(path)

    def carry(
        self, call: ast.Call, local: Env, changes: Changes | None = None
    ) -> tuple[ast.Call, list[str]] | str:
        """``call`` with the literal names put in place and the setup lines its other names
        need, or the reason it cannot be carried. ``changes``: a name of the test function
        -> the statements that change its value after it is assigned, before the call
        (``doc.add(x)``: explore/offline/prepared.py), carried after its line."""
        values: dict[str, ast.expr] = {}
        lines: dict[str, tuple[tuple[bool, int], str]] = {}
        todo = [(n, 0) for n in free_names(call)]
        while todo:
            name, depth = todo.pop()
            if name in lines or name in self.known:
                continue
            value = local.get(name, self.module_env.get(name, self.fixtures.get(name)))
            fn = self.functions.get(name) if value is None else None
            if value is None and fn is None:
                if name in self.outer.imports:  # a conftest's import: the line, first
                    lines[name] = ((False, -1), self.outer.imports[name])
                    continue
                value = self.outer.fixtures.get(name, self.outer.env.get(name))
            if fn is not None and depth <= MAX_DEPTH:
                # a helper of the test file (``ct("utf-8")``): its definition comes along, as
                # one line the worker runs (#32), and the names it reads in turn
                lines[name] = ((False, fn.lineno), f"exec({ast.unparse(fn)!r})")
                todo += [(n, depth + 1) for n in def_free_names(fn) if n != name]
                continue
            if value is None or depth > MAX_DEPTH:
                if self.open:
                    continue
                what = "a function of the test file" if name in self.defined else "a name"
                return f"{what} the test file binds no value to ({name})"
            steps = changes(name) if changes is not None and name in local else []
            if depth == 0 and _literal(value) and not steps:
                values[name] = value
            line = f"{name} = {ast.unparse(value)}".replace("\n", " ")
            lines[name] = ((name in local, getattr(value, "lineno", 0)), line)
            todo += [(n, depth + 1) for n in free_names(value) if n != name]
            for i, stmt in enumerate(steps):
                step = ast.unparse(stmt).replace("\n", " ")
                lines[f"{name}\0{i}"] = ((True, stmt.lineno), step)
                todo += [(n, depth + 1) for n in free_names(stmt) if n != name]
        out = _Put(values).visit(ast.parse(ast.unparse(call), mode="eval")).body
        # setup runs line by line: in the order the file defines them
        return out, [line for _, line in sorted(lines.values())]
