"""A method's inputs on every instance the tests build (#32).

A test builds the instance one way and calls one method on it (``Bits('0011').as_list()``),
another test calls the changed method on an instance built another way
(``Bits('1').shift(3)``), and a method no test calls gets type-directed arguments on an
instance of its class built with no arguments, which most classes refuse: the input that
shows the change (``Bits('0011').shift(3)``) is in no single test. Every construction of
the class with literal arguments in the project's test files and doctest sessions is a
recipe (``Class(*args, **kwargs)``, built in the worker), and the method's other inputs (the
tests', then the planned ones) are tried on each: a bounded mix, spread over the recipes
and the inputs' sources, the inputs shuffled with a seed of the function's id.
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
    """The calls of ``calls`` (their arguments) on each of ``recipes``, and on the recipes
    the calls carry; none that repeats a call."""
    from codemode.explore.offline.spread import spread

    found: dict[str, dict[str, Any]] = {}
    for r in [*(c.receiver for c in calls if c.receiver), *recipes]:
        found.setdefault(repr(r), r)
    kinds = list(found.values())[:MAX_RECIPES]
    if not kinds:
        return []
    bases = list(calls)
    random.Random(zlib.crc32(function_id.encode())).shuffle(bases)
    seen = {c.key() for c in calls}
    out: list[tuple[int, str, PoolCall]] = []
    for n, recipe in enumerate(kinds):
        for base in bases:
            label = f"{base.label}_on_built"
            call = base._replace(receiver=recipe, source="variants", label=label)
            if call.key() not in seen:
                seen.add(call.key())
                out.append((n, base.source, call))

    def shape(item: tuple[int, str, PoolCall]) -> Any:
        return (item[0], item[1], item[2].exprs is None)

    return [c for _, _, c in spread(out, MAX_MIXES, shape)]


def constructions(tree: ast.Module, cls_name: str, cls_id: str) -> Iterator[dict[str, Any]]:
    """Each ``Class(...)`` (or ``mod.Class(...)``) in ``tree`` with literal arguments, as a
    recipe."""
    from codemode.explore.offline.harvest import literal_arguments

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == cls_name:
            literal = literal_arguments(node)
            if literal is not None:
                yield {"cls": cls_id, "args": list(literal[0]), "kwargs": literal[1]}
