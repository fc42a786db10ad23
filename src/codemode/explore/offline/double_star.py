"""A test's ``**kwargs`` spelled out as the keywords it holds (#32).

A parametrized test often passes its options through a dict it builds from the row:
``kwargs = {"prereleases": prereleases} if prereleases is not None else {}`` and then
``spec.filter(input, **kwargs)``. A call with ``**`` cannot be carried argument by argument,
so every row of such a test was dropped, and the method kept no input of its maintainers
(packaging's ``Specifier.filter``). Here a ``**`` whose value is a dict display with text
keys, or a name the test assigns one, or a conditional of them whose test compares literals
once the row is in place (``None is not None``), becomes the keywords it holds. Anything else
is left as it is (the call is then dropped as before).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

# the comparisons a row's literals decide: Python's own operators
_DECIDED: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_DEPTH = 4  # names followed from one ``**``: a test's own assignments, never a loop


def spelled_out(call: ast.Call, local: dict[str, ast.expr]) -> ast.Call:
    """``call`` with each ``**value`` it can read (``local``: the test's assignments, the row
    in place) replaced by its keywords; ``call`` itself when there is none or one it cannot."""
    if all(k.arg is not None for k in call.keywords):
        return call
    keywords: list[ast.keyword] = []
    for k in call.keywords:
        if k.arg is not None:
            keywords.append(k)
            continue
        got = _keywords(k.value, local, _DEPTH)
        if got is None:
            return call
        keywords += got
    names = [k.arg for k in keywords]
    if len(set(names)) != len(names):
        return call  # the same keyword twice: Python refuses the call
    return ast.Call(call.func, call.args, keywords)


def _keywords(node: ast.expr, local: dict[str, ast.expr], depth: int) -> list[ast.keyword] | None:
    if depth <= 0:
        return None
    if isinstance(node, ast.Name) and node.id in local:
        return _keywords(local[node.id], local, depth - 1)
    if isinstance(node, ast.IfExp):
        test = _decided(node.test)
        if test is None:
            return None
        return _keywords(node.body if test else node.orelse, local, depth - 1)
    if isinstance(node, ast.Dict):
        out = []
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None  # ``**inner`` inside, or a key that is no keyword
            if not key.value.isidentifier():
                return None
            out.append(ast.keyword(key.value, value))
        return out
    return None


def _decided(test: ast.expr) -> bool | None:
    """A comparison of two literals, decided; None for anything else."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    decide = _DECIDED.get(type(test.ops[0]))
    if decide is None:
        return None
    try:
        left = ast.literal_eval(test.left)
        right = ast.literal_eval(test.comparators[0])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(test.ops[0], (ast.Is, ast.IsNot)) and not _singleton(right):
        return None  # ``is`` on two literals decides only for None, True and False
    return bool(decide(left, right))


def _singleton(value: Any) -> bool:
    return value is None or value is True or value is False
