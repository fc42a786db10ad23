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
from typing import Any

from codemode.explore.offline.input_pool import PoolCall
from codemode.explore.offline.prepared import (
    MAX_STEPS,
    Blocks,
    Makers,
    method_call,
    preparation,
    step_calls,
)

Fn = ast.FunctionDef | ast.AsyncFunctionDef


def method_calls(
    tree: ast.Module, names: dict[str, str], method: str, fresh: frozenset[int]
) -> Iterator[PoolCall]:
    """Each call of ``method`` in ``tree``'s functions whose instance the test builds or
    holds (``names``: the class and the subclasses beside it, name -> id), per row."""
    from codemode.explore.offline.harvest import module_tables
    from codemode.explore.offline.receivers import held
    from codemode.explore.offline.row_bindings import assignments, class_tables

    env, classes, tables = assignments(tree.body), class_tables(tree), module_tables(tree)
    project = next(iter(names.values())).split(".")[0] if names else ""
    reader = _Reader(tree, env, Makers(tree, names, project))
    around = held(tree, names)
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            loops_env = {**env, **classes.get(id(fn), {})}
            yield from reader.calls_in(fn, method, around.get(id(fn), {}), tables, loops_env, fresh)


class _Reader:
    """One test file's calls of a method, with their instances' recipes and the lines of
    the file their arguments need (explore/offline/test_names.py)."""

    def __init__(self, tree: ast.Module, env: dict[str, ast.expr], makers: Makers) -> None:
        from codemode.explore.offline.harvest import import_lines
        from codemode.explore.offline.test_names import Carrier

        self.setup = import_lines(tree)
        self.carrier = Carrier(tree, env, False)
        self.makers = makers

    def calls_in(
        self,
        fn: Fn,
        method: str,
        around: dict[str, ast.expr],
        tables: dict[str, ast.expr],
        env: dict[str, ast.expr],
        fresh: frozenset[int],
    ) -> Iterator[PoolCall]:
        from codemode.explore.offline.fresh import fresh_first
        from codemode.explore.offline.harvest import parametrize_rows
        from codemode.explore.offline.row_bindings import MAX_ROWS, loop_rows

        found = [(n, c) for n in ast.walk(fn) if (c := method_call(n, method)) is not None]
        if not found:
            return
        rows = parametrize_rows(fn, tables, fresh)
        loops = loop_rows(fn, env, fresh)
        blocks = Blocks(fn)
        for node, call in found:
            made, steps = self._instance(node, call, blocks, around)
            bound = [{**r, **b} for r in rows for b in loops.get(id(node), [{}])]
            for row in fresh_first(bound, fresh)[:MAX_ROWS]:
                yield from self._one(fn, call, made, steps, row)

    def _instance(
        self, node: ast.AST, call: ast.Call, blocks: Blocks, around: dict[str, ast.expr]
    ) -> tuple[ast.expr | None, list[ast.stmt]]:
        """The expression that builds the call's instance and the statements that prepare
        it, or (None, []): the test neither builds nor holds one."""
        base = call.func.value  # type: ignore[attr-defined]
        if isinstance(base, ast.Call):
            return base, []
        if not isinstance(base, (ast.Name, ast.Attribute)):
            return None, []
        held_as = ast.unparse(base)
        before = list(blocks.before(node))
        got = preparation(before, held_as, self.makers, around.get(held_as))
        return got if got is not None else (None, [])

    def _one(
        self, fn: Fn, call: ast.Call, made: ast.expr | None, steps: list[ast.stmt], row: Any
    ) -> Iterator[PoolCall]:
        from codemode.explore.offline.harvest import SubstituteNames, literal_arguments

        if made is None:
            return
        call = SubstituteNames(row).visit(ast.parse(ast.unparse(call), mode="eval")).body
        recipe = self._recipe(fn, made, steps, row)
        if recipe is None:
            return
        label = f"from_{fn.name}"
        literal = literal_arguments(call)
        if literal is not None:
            yield PoolCall(literal[0], literal[1], "receivers", label, None, recipe)
        elif (exprs := self._exprs(call, fn, row)) is not None:
            # arguments the test builds (a parsed element): as the test builds them
            yield PoolCall((), {}, "receivers", label, exprs, recipe)

    def _recipe(
        self, fn: Fn, made: ast.expr, steps: list[ast.stmt], row: Any
    ) -> dict[str, Any] | None:
        """``made`` and ``steps`` as a recipe, every argument a literal once the row and the
        file's constants are put in place; None when one is not."""
        maker = self.makers.maker(made)
        built = self._literal(made, fn, row) if maker is not None else None
        if built is None or len(steps) > MAX_STEPS:
            return None
        recipe: dict[str, Any] = {"cls": maker, "args": list(built[0]), "kwargs": built[1]}
        calls = []
        for name, step in step_calls(steps):
            literal = self._literal(step, fn, row)
            if literal is None:
                return None
            calls.append([name, list(literal[0]), literal[1]])
        if calls:
            recipe["calls"] = calls
        return recipe

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

    def _exprs(self, call: ast.Call, fn: Fn, row: Any) -> dict[str, Any] | None:
        """A call's arguments as expressions, with the lines of its test file they need, or
        None when they cannot be carried."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            return None
        carried = self.carrier.carry(call, self._local(fn, row))
        if isinstance(carried, str):
            return None
        call, lines = carried
        return {
            "args": [ast.unparse(a) for a in call.args],
            "kwargs": {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg},
            "setup": "\n".join([self.setup, *lines]),
        }
