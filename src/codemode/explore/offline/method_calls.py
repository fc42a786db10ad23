"""A method's calls in a test file, each with the instance it runs on (#22, #32).

``obj.method(...)`` in a test, whose instance the test builds in place (``Bits('0011').count()``),
assigns from the class, a subclass, a function of the class or a factory of the project in
the same test and prepares with the statements before the call (explore/offline/prepared.py),
or finds built in its test class's ``setUp`` or a fixture of the file
(explore/offline/receivers.py); once per row of the tables the test takes its values from
(``parametrize``, a loop over a table: explore/offline/row_bindings.py). The instance
travels as a recipe the worker builds (``{"cls": ..., "args": ..., "kwargs": ..., "calls":
[[method, args, kwargs], ...]}``): the callable's id, its literal arguments, and the steps.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from codemode.explore.offline.input_pool import PoolCall
from codemode.explore.offline.prepared import (
    MAX_STEPS,
    Blocks,
    Makers,
    method_call,
    preparation,
    setup_steps,
    step_calls,
)
from codemode.explore.offline.test_names import Changes

Fn = ast.FunctionDef | ast.AsyncFunctionDef
# A call's ``side`` as it leaves here when a line or row the change wrote made it: its reader
# keeps it before any cut, then sets the side it was read at (explore/offline/input_pool.py)
FRESH = "fresh"


def method_calls(
    tree: ast.Module,
    names: dict[str, str],
    method: str,
    fresh: frozenset[int],
    as_built: bool = False,
    path: Path | None = None,
) -> Iterator[PoolCall]:
    """Each call of ``method`` in ``tree``'s functions whose instance the test builds or
    holds (``names``: the class and the subclasses beside it, name -> id), per row.
    ``as_built``: every instance as the test's lines (``exprs["self"]``), never a recipe
    (regen writes them as a fixture: explore/writing/built_fixture.py)."""
    from codemode.explore.offline.conftest_names import conftest_trees
    from codemode.explore.offline.param_rows import module_tables
    from codemode.explore.offline.receivers import held
    from codemode.explore.offline.row_bindings import assignments, class_tables

    env, classes, tables = assignments(tree.body), class_tables(tree), module_tables(tree, path)
    project = next(iter(names.values())).split(".")[0] if names else ""
    reader = _Reader(tree, env, Makers(tree, names, project), path)
    reader.as_built = as_built
    around = held(tree, names, conftest_trees(path))
    reader.set_up = setup_steps(tree)  # what setUp did to the instance it built
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            loops_env = {**env, **classes.get(id(fn), {})}
            yield from reader.calls_in(fn, method, around.get(id(fn), {}), tables, loops_env, fresh)


class _Reader:
    """One test file's calls of a method, with their instances' recipes and the lines of
    the file their arguments need (explore/offline/test_names.py)."""

    def __init__(
        self, tree: ast.Module, env: dict[str, ast.expr], makers: Makers, path: Path | None
    ) -> None:
        from codemode.explore.offline.harvest import import_lines
        from codemode.explore.offline.test_names import Carrier

        self.setup = import_lines(tree)
        self.carrier = Carrier(tree, env, False, path)
        self.makers = makers
        self.as_built = False
        self.set_up: dict[int, dict[str, list[ast.stmt]]] = {}

    def calls_in(
        self,
        fn: Fn,
        method: str,
        around: dict[str, ast.expr],
        tables: dict[str, ast.expr],
        env: dict[str, ast.expr],
        fresh: frozenset[int],
    ) -> Iterator[PoolCall]:
        from codemode.explore.offline.fresh import fresh_first, is_fresh
        from codemode.explore.offline.param_rows import parametrize_rows
        from codemode.explore.offline.row_bindings import MAX_ROWS, loop_rows

        found = [(n, c) for n in ast.walk(fn) if (c := method_call(n, method)) is not None]
        if not found:
            return
        rows = parametrize_rows(fn, tables, fresh)
        loops = loop_rows(fn, env, fresh)
        blocks = Blocks(fn)
        for node, call in found:
            built = self._instance(node, call, blocks, around, self.set_up.get(id(fn), {}))
            if built is None:
                continue
            changes = blocks.changes(node)
            bound = [{**r, **b} for r in rows for b in loops.get(id(node), [{}])]
            for row in fresh_first(bound, fresh)[:MAX_ROWS]:
                new = call.lineno in fresh or is_fresh(row, fresh)
                for got in self._one(fn, call, built, row, changes):
                    # a row the change wrote: kept before any cut (``FRESH``, for now)
                    yield got._replace(side=FRESH) if new else got

    def _instance(
        self,
        node: ast.AST,
        call: ast.Call,
        blocks: Blocks,
        around: dict[str, ast.expr],
        steps: dict[str, list[ast.stmt]],
    ) -> Instance | None:
        """How the test builds the call's instance, or None: it neither builds nor holds one."""
        base = call.func.value  # type: ignore[attr-defined]
        if isinstance(base, ast.Call):
            return Instance(base, [], "")
        if not isinstance(base, (ast.Name, ast.Attribute)):
            return None
        held_as = ast.unparse(base)
        before = list(blocks.before(node))
        got = preparation(before, held_as, self.makers, around.get(held_as), steps.get(held_as))
        return None if got is None else Instance(got[0], got[1], held_as)

    def _one(
        self, fn: Fn, call: ast.Call, built: Instance, row: Any, changes: Changes
    ) -> Iterator[PoolCall]:
        from codemode.explore.offline.double_star import spelled_out
        from codemode.explore.offline.harvest import SubstituteNames, literal_arguments

        call = SubstituteNames(row).visit(ast.parse(ast.unparse(call), mode="eval")).body
        if any(k.arg is None for k in call.keywords):  # ``**kwargs`` the test built (#32)
            call = spelled_out(call, self._local(fn, row))
        label = f"from_{fn.name}"
        recipe = None if self.as_built else self._recipe(fn, built, row)
        if recipe is None:
            # built with what no recipe holds (a constant of the project, a value another
            # call returns, a part of it changed): as the test builds it, in the worker
            exprs = self._built(fn, built, call, row, changes)
            if exprs is not None:
                yield PoolCall((), {}, "receivers", label, exprs, None)
            return
        literal = literal_arguments(call)
        if literal is not None:
            yield PoolCall(literal[0], literal[1], "receivers", label, None, recipe)
        elif (exprs := self._exprs(call, fn, row, changes)) is not None:
            # arguments the test builds (a parsed element): as the test builds them
            yield PoolCall((), {}, "receivers", label, exprs, recipe)

    def _recipe(self, fn: Fn, built: Instance, row: Any) -> dict[str, Any] | None:
        """The instance as a recipe, every argument a literal once the row and the file's
        constants are put in place; None when one is not."""
        maker = self.makers.maker(built.made)
        args = self._literal(built.made, fn, row) if maker is not None else None
        steps = step_calls(built.steps, built.held_as) if len(built.steps) <= MAX_STEPS else None
        if args is None or steps is None:
            return None
        recipe: dict[str, Any] = {"cls": maker, "args": list(args[0]), "kwargs": args[1]}
        calls = []
        for name, step in steps:
            literal = self._literal(step, fn, row)
            if literal is None:
                return None
            calls.append([name, list(literal[0]), literal[1]])
        if calls:
            recipe["calls"] = calls
        return recipe

    def _built(
        self, fn: Fn, built: Instance, call: ast.Call, row: Any, changes: Changes
    ) -> dict[str, Any] | None:
        """The call's instance and arguments as the test builds them: the setup lines (the
        test file's imports, the names they read, the instance's assignment and the steps
        that prepare it), the instance's name (``self``) and the arguments' expressions; None
        when a name cannot be carried or nothing of the class or the project builds it."""
        from codemode.explore.offline.harvest import SubstituteNames

        if self.makers.maker(built.made) is None or len(built.steps) > MAX_STEPS or _spread(call):
            return None
        me = built.held_as if built.held_as.isidentifier() else "obj"
        made = SubstituteNames(row).visit(ast.parse(ast.unparse(built.made), mode="eval")).body
        steps = [_renamed(s, built.held_as, me, row) for s in built.steps]
        local = {**self._local(fn, row), me: made}

        def prepared(name: str) -> list[ast.stmt]:
            return steps if name == me else changes(name)

        bundle = ast.Call(_TUPLE, [ast.Name(me, ast.Load()), *call.args], call.keywords)
        carried = self.carrier.carry(bundle, local, prepared)
        if isinstance(carried, str):
            return None
        got, lines = carried
        return {
            "args": [ast.unparse(a) for a in got.args[1:]],
            "kwargs": {k.arg: ast.unparse(k.value) for k in got.keywords if k.arg},
            "setup": "\n".join([self.setup, *lines]),
            "self": me,
        }

    def _literal(
        self, node: ast.expr, fn: Fn, row: Any
    ) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        from codemode.explore.offline.harvest import SubstituteNames, literal_arguments

        if not isinstance(node, ast.Call):
            return None
        node = SubstituteNames(row).visit(ast.parse(ast.unparse(node), mode="eval")).body
        literal = literal_arguments(node)
        if literal is not None:
            return literal
        carried = self.carrier.carry(node, self._local(fn, row))
        return None if isinstance(carried, str) else literal_arguments(carried[0])

    def _local(self, fn: Fn, row: Any) -> dict[str, ast.expr]:
        from codemode.explore.offline.harvest import SubstituteNames
        from codemode.explore.offline.row_bindings import assignments

        return {
            k: SubstituteNames(row).visit(ast.parse(ast.unparse(v), mode="eval")).body
            for k, v in assignments(fn.body).items()
        }

    def _exprs(self, call: ast.Call, fn: Fn, row: Any, changes: Changes) -> dict[str, Any] | None:
        """A call's arguments as expressions, with the lines of its test file they need, or
        None when they cannot be carried."""
        if _spread(call):
            return None
        carried = self.carrier.carry(call, self._local(fn, row), changes)
        if isinstance(carried, str):
            return None
        call, lines = carried
        return {
            "args": [ast.unparse(a) for a in call.args],
            "kwargs": {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg},
            "setup": "\n".join([self.setup, *lines]),
        }


_TUPLE = ast.Name("tuple", ast.Load())  # a builtin: the carrier looks up no name for it


class Instance(NamedTuple):
    """How a test builds a call's instance: the expression, the statements after it that
    change it, and how the test holds it (``p``, ``self.p``; "" when built in place)."""

    made: ast.expr
    steps: list[ast.stmt]
    held_as: str


def _renamed(stmt: ast.stmt, held_as: str, me: str, row: Any) -> ast.stmt:
    """``stmt`` with the row put in place and the instance held as ``me``."""
    from codemode.explore.offline.harvest import SubstituteNames

    class Rename(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
            if ast.unparse(node) == held_as:
                return ast.Name(me, ast.Load())
            return self.generic_visit(node)  # type: ignore[return-value]

    got = SubstituteNames(row).visit(ast.parse(ast.unparse(stmt)).body[0])
    out = Rename().visit(got) if held_as != me else got
    return ast.copy_location(out, stmt)


def _spread(call: ast.Call) -> bool:
    """``*args`` or ``**kwargs`` in a call: its arguments cannot be carried one by one."""
    return any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )
