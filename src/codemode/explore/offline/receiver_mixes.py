"""A method's inputs on every instance the tests build (#32).

A test builds the instance one way and calls one method on it (``Bits('0011').as_list()``),
another test calls the changed method on an instance built another way
(``Bits('1').shift(3)``), and a method no test calls gets type-directed arguments on an
instance of its class built with no arguments, which most classes refuse: the input that
shows the change (``Bits('0011').shift(3)``) is in no single test. Every construction of
the class with literal arguments in the project's test files and doctest sessions is a
recipe (``Class(*args, **kwargs)``, built in the worker), and the method's other inputs (the
tests', then the planned ones) are tried on each: a bounded mix, spread over the recipes
and the inputs' sources, the inputs shuffled with a seed of the function's id. An instance a
test builds with more than literals (its lines, explore/offline/method_calls.py) is one of
them too: the literal inputs are written as source beside its lines.
"""

from __future__ import annotations

import ast
import random
import zlib
from collections.abc import Collection, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from codemode.explore.offline.spread import spread

if TYPE_CHECKING:
    from codemode.explore.offline.input_pool import PoolCall

MAX_MIXES = 150  # calls per method and side
MAX_RECIPES = 24


def receiver_mixes(
    calls: Sequence[PoolCall],
    recipes: Sequence[dict[str, Any]],
    function_id: str,
    first: Collection[str] = (),
) -> list[PoolCall]:
    """The calls of ``calls`` (their arguments) on each of ``recipes``, on the recipes the
    calls carry and on the instances they build with the test's lines (``exprs["self"]``:
    explore/offline/method_calls.py); none that repeats a call."""
    found: dict[str, dict[str, Any]] = {}
    for r in [*(c.receiver for c in calls if c.receiver), *recipes]:
        found.setdefault(repr(r), r)
    for c in calls:  # an instance a construction with more than literals builds (#32)
        if c.exprs and c.exprs.get("self"):
            lines = {"setup": c.exprs.get("setup", ""), "self": c.exprs["self"]}
            found.setdefault(repr(lines), {BUILT: lines})
    # a spread over the instances' shapes, not the first N: the one built from the row that
    # shows the change may be a table's last (#32); ``first`` of them (the rows the change
    # wrote) before any other
    kinds = spread(list(found.values()), MAX_RECIPES, kind_shape, lambda r: repr(r) in first)
    if not kinds:
        return []
    bases = [c for c in calls if not (c.exprs and c.exprs.get("self"))]
    random.Random(zlib.crc32(function_id.encode())).shuffle(bases)
    seen = {c.key() for c in calls}
    out: list[tuple[int, str, PoolCall]] = []
    for n, kind in enumerate(kinds):
        for base in bases:
            call = _on(base, kind)
            if call is not None and call.key() not in seen:
                seen.add(call.key())
                out.append((n, base.source, call))

    def shape(item: tuple[int, str, PoolCall]) -> Any:
        return (item[0], item[1], item[2].exprs is None)

    return [c for _, _, c in spread(out, MAX_MIXES, shape)]


def on_instances(rest: Sequence[PoolCall], pool: Sequence[PoolCall]) -> tuple[list[PoolCall], int]:
    """``rest`` with each call that brings no instance put on one (``paired``), taken in
    turn with those that bring their own, each in its order: a budget that cuts the search
    reaches both the tests' inputs on the instances they built (packaging's
    ``Specifier('==2!1.0.0.0.*').contains('2!1.0.0')``) and the inputs that came with none (a
    data file's texts for mistune's ``Markdown.parse``), where appending either after the
    other left it unreached (#32). Also how many could not be put on any; one already in
    ``pool`` on every instance is dropped, as run."""
    own = [c for c in rest if brings_instance(c)]
    put: list[PoolCall] = []
    left_out = 0
    for got, covered in paired([c for c in rest if not brings_instance(c)], pool):
        if got is not None:
            put.append(got)
        elif not covered:
            left_out += 1
    out = [c for pair in zip(own, put) for c in pair]
    n = min(len(own), len(put))
    return out + own[n:] + put[n:], left_out


def brings_instance(call: PoolCall) -> bool:
    return call.receiver is not None or "self" in (call.exprs or {})


def paired(
    bare: Sequence[PoolCall], pool: Sequence[PoolCall]
) -> list[tuple[PoolCall | None, bool]]:
    """Each call of ``bare`` (a method's input with no instance, whose class the worker could
    not build without arguments) on an instance a call of ``pool`` brings, in turn over
    their shapes, one not already in ``pool`` (#32): a pool's type-directed and data-file
    inputs were "not compared" for want of one. (None, True) for a call already in ``pool``
    on every instance; (None, False) for one that cannot be put on any."""
    found: dict[str, dict[str, Any]] = {}
    for c in pool:
        if c.receiver:
            found.setdefault(repr(c.receiver), c.receiver)
        elif c.exprs and c.exprs.get("self"):
            lines = {"setup": c.exprs.get("setup", ""), "self": c.exprs["self"]}
            found.setdefault(repr(lines), {BUILT: lines})
    kinds = spread(list(found.values()), MAX_RECIPES, kind_shape)
    seen = {c.key() for c in pool}
    out: list[tuple[PoolCall | None, bool]] = []
    for n, base in enumerate(bare):
        got, covered = None, False
        for k in range(len(kinds)):
            call = _on(base, kinds[(n + k) % len(kinds)])
            covered = covered or call is not None
            if call is not None and call.key() not in seen:
                got = call._replace(source=base.source)
                seen.add(got.key())
                break
        out.append((got, covered and got is None))
    return out


BUILT = "\0built"  # a kind of instance the test's lines build, not a recipe


def kind_shape(kind: dict[str, Any]) -> Hashable:
    """What an instance's recipe is like: what builds it and its arguments' shapes
    (explore/offline/spread.py); the test's lines' text for one they build."""
    from codemode.explore.offline.spread import text_shape, value_shape

    if BUILT in kind:
        return ("built", text_shape(str(kind[BUILT].get("setup", ""))[-200:]))
    kwargs = kind.get("kwargs") or {}
    args = tuple(value_shape(a) for a in kind.get("args") or ())
    return (kind.get("cls"), args, tuple((k, value_shape(v)) for k, v in sorted(kwargs.items())))


def _on(base: PoolCall, kind: dict[str, Any]) -> PoolCall | None:
    """``base``'s arguments on the instance ``kind`` builds, or None: they cannot be put
    beside its lines (arguments the tests build with lines of their own, or a value with
    no source form)."""
    label = f"{base.label}_on_built"
    if BUILT not in kind:
        return base._replace(receiver=kind, source="variants", label=label)
    if base.exprs is not None:
        return None
    args = [source_form(a) for a in base.args]
    kwargs = {k: source_form(v) for k, v in base.kwargs.items()}
    if None in args or None in kwargs.values():
        return None
    exprs = {"args": args, "kwargs": kwargs, **kind[BUILT]}
    return base._replace(exprs=exprs, receiver=None, source="variants", label=label)


def source_form(value: Any) -> str | None:
    """A literal value as source text that reads back the same, or None."""
    text = repr(value)
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text if type(back) is type(value) and back == value else None


def constructions(
    tree: ast.Module, cls_name: str, cls_id: str, fresh: frozenset[int] = frozenset()
) -> Iterator[tuple[dict[str, Any], bool]]:
    """Each ``Class(...)`` (or ``mod.Class(...)``) in ``tree`` with literal arguments, as a
    recipe, also once per row of its test's ``parametrize`` tables and loops over literal
    rows; with other arguments, in a test function, as the lines that build it (the test
    file's imports and the names they read, explore/offline/test_names.py), at most
    ``MAX_BUILT`` of them. Each with whether a row the change wrote built it."""
    from codemode.explore.offline.factories import last_name
    from codemode.explore.offline.harvest import import_lines, literal_arguments
    from codemode.explore.offline.row_bindings import assignments
    from codemode.explore.offline.test_names import Carrier

    built: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            built.update((id(n), fn) for n in ast.walk(fn) if isinstance(n, ast.Call))
    carrier, count = None, 0
    rows = _Rows(tree, fresh)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and last_name(node.func) == cls_name:
            literal = literal_arguments(node)
            if literal is not None:
                yield {"cls": cls_id, "args": list(literal[0]), "kwargs": literal[1]}, False
                continue
            test = built.get(id(node))
            # once per row of the test's tables: ``Specifier(spec)`` under a parametrize
            # of 200 specifiers is 200 instances, the rows the change wrote first (#32)
            made = list(rows.literal(test, node)) if test is not None else []
            yield from (({"cls": cls_id, "args": list(a), "kwargs": k}, new) for a, k, new in made)
            if made or test is None or count >= MAX_BUILT:
                continue
            carrier = carrier or Carrier(tree, assignments(tree.body), False)
            got = carrier.carry(ast.Call(_TUPLE, [node], []), assignments(test.body))
            if not isinstance(got, str):
                count += 1
                lines = [import_lines(tree), *got[1], f"obj = {ast.unparse(got[0].args[0])}"]
                yield {BUILT: {"setup": "\n".join(lines), "self": "obj"}}, False


MAX_BUILT = 8  # constructions with more than literals, per test file


class _Rows:
    """A test file's rows (``parametrize`` tables and loops over literal rows), per test."""

    def __init__(self, tree: ast.Module, fresh: frozenset[int]) -> None:
        from codemode.explore.offline.param_rows import module_tables
        from codemode.explore.offline.row_bindings import assignments, class_tables

        self.tables, self.fresh = module_tables(tree), fresh
        self.env, self.classes = assignments(tree.body), class_tables(tree)
        self.got: dict[int, tuple[list[Any], dict[int, list[Any]]]] = {}

    def literal(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.Call
    ) -> Iterator[tuple[tuple[Any, ...], dict[str, Any], bool]]:
        """``node``'s arguments as literals once each row of ``fn``'s is put in place, and
        whether the row is one the change wrote."""
        from codemode.explore.offline.fresh import is_fresh
        from codemode.explore.offline.harvest import literal_arguments, substituted
        from codemode.explore.offline.param_rows import parametrize_rows
        from codemode.explore.offline.row_bindings import MAX_ROWS, loop_rows

        if id(fn) not in self.got:
            env = {**self.env, **self.classes.get(id(fn), {})}
            self.got[id(fn)] = (
                parametrize_rows(fn, self.tables, self.fresh),
                loop_rows(fn, env, self.fresh),
            )
        params, loops = self.got[id(fn)]
        bound = [{**r, **b} for r in params for b in loops.get(id(node), [{}])]
        if bound == [{}]:
            return
        for row in bound[:MAX_ROWS]:
            made = substituted(node, row)
            literal = literal_arguments(made) if isinstance(made, ast.Call) else None
            if literal is not None:
                yield *literal, node.lineno in self.fresh or is_fresh(row, self.fresh)


_TUPLE = ast.Name("tuple", ast.Load())  # a builtin: the carrier looks up no name for it
