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
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codemode.explore.offline.input_pool import PoolCall

MAX_MIXES = 150  # calls per method and side
MAX_RECIPES = 24


def receiver_mixes(
    calls: Sequence[PoolCall], recipes: Sequence[dict[str, Any]], function_id: str
) -> list[PoolCall]:
    """The calls of ``calls`` (their arguments) on each of ``recipes``, on the recipes the
    calls carry and on the instances they build with the test's lines (``exprs["self"]``:
    explore/offline/method_calls.py); none that repeats a call."""
    from codemode.explore.offline.spread import spread

    found: dict[str, dict[str, Any]] = {}
    for r in [*(c.receiver for c in calls if c.receiver), *recipes]:
        found.setdefault(repr(r), r)
    for c in calls:  # an instance a construction with more than literals builds (#32)
        if c.exprs and c.exprs.get("self"):
            lines = {"setup": c.exprs.get("setup", ""), "self": c.exprs["self"]}
            found.setdefault(repr(lines), {BUILT: lines})
    kinds = list(found.values())[:MAX_RECIPES]
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


BUILT = "\0built"  # a kind of instance the test's lines build, not a recipe


def _on(base: PoolCall, kind: dict[str, Any]) -> PoolCall | None:
    """``base``'s arguments on the instance ``kind`` builds, or None: they cannot be put
    beside its lines (arguments the tests build with lines of their own, or a value with
    no source form)."""
    label = f"{base.label}_on_built"
    if BUILT not in kind:
        return base._replace(receiver=kind, source="variants", label=label)
    if base.exprs is not None:
        return None
    args = [_source(a) for a in base.args]
    kwargs = {k: _source(v) for k, v in base.kwargs.items()}
    if None in args or None in kwargs.values():
        return None
    exprs = {"args": args, "kwargs": kwargs, **kind[BUILT]}
    return base._replace(exprs=exprs, receiver=None, source="variants", label=label)


def _source(value: Any) -> str | None:
    """A literal value as source text that reads back the same, or None."""
    text = repr(value)
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text if type(back) is type(value) and back == value else None


def constructions(tree: ast.Module, cls_name: str, cls_id: str) -> Iterator[dict[str, Any]]:
    """Each ``Class(...)`` (or ``mod.Class(...)``) in ``tree`` with literal arguments, as a
    recipe; with other arguments, in a test function, as the lines that build it (the test
    file's imports and the names they read, explore/offline/test_names.py), at most
    ``MAX_BUILT`` of them."""
    from codemode.explore.offline.harvest import import_lines, literal_arguments
    from codemode.explore.offline.row_bindings import assignments
    from codemode.explore.offline.test_names import Carrier

    built: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            built.update((id(n), fn) for n in ast.walk(fn) if isinstance(n, ast.Call))
    carrier, count = None, 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == cls_name:
            literal = literal_arguments(node)
            if literal is not None:
                yield {"cls": cls_id, "args": list(literal[0]), "kwargs": literal[1]}
                continue
            fn = built.get(id(node))
            if fn is None or count >= MAX_BUILT:
                continue
            carrier = carrier or Carrier(tree, assignments(tree.body), False)
            got = carrier.carry(ast.Call(_TUPLE, [node], []), assignments(fn.body))
            if not isinstance(got, str):
                count += 1
                lines = [import_lines(tree), *got[1], f"obj = {ast.unparse(got[0].args[0])}"]
                yield {BUILT: {"setup": "\n".join(lines), "self": "obj"}}


MAX_BUILT = 8  # constructions with more than literals, per test file
_TUPLE = ast.Name("tuple", ast.Load())  # a builtin: the carrier looks up no name for it
