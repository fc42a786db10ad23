"""A test's ``**kwargs`` spelled out as the keywords it holds, and its ``*args`` as the
arguments (#32).

A parametrized test often passes its options through a dict it builds from the row:
``kwargs = {"prereleases": prereleases} if prereleases is not None else {}`` and then
``spec.filter(input, **kwargs)``. A call with ``**`` cannot be carried argument by argument,
so every row of such a test was dropped, and the method kept no input of its maintainers
(packaging's ``Specifier.filter``). Here a ``**`` whose value is a dict display with text
keys, or a name the test assigns one, or a conditional of them whose test compares literals
once the row is in place (``None is not None``), becomes the keywords it holds. Anything else
is left as it is (the call is then dropped as before).

The same holds for one star: a table of whole argument tuples, ``@parametrize("case,
expected", [(({"a": [1]}, "a[0]"), 1), ...])`` with ``get(*case)``, is a common pytest form
(a library's tests of a function of many arguments), and every one of its rows was dropped
for its ``*``: the new row a pull request adds to show its change never ran. A ``*`` whose
value is a tuple or list display (the row's, or a name the test assigns one) becomes its
items.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any, TypeVar

# the comparisons a row's literals decide: Python's own operators
_DECIDED: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_Part = TypeVar("_Part", ast.expr, ast.keyword)
_DEPTH = 4  # names followed from one ``**``: a test's own assignments, never a loop


def spelled_out(call: ast.Call, local: dict[str, ast.expr]) -> ast.Call:
    """``call`` with each ``**value`` it can read (``local``: the test's assignments, the row
    in place) replaced by its keywords, and each ``*value`` by its items; ``call`` itself
    when there is none or one it cannot."""
    args = _expanded(
        call.args, lambda a: _items(a.value, local) if isinstance(a, ast.Starred) else [a]
    )
    if args is None:
        return call
    keywords = _expanded(
        call.keywords, lambda k: [k] if k.arg is not None else _keywords(k.value, local)
    )
    if keywords is None:
        return call
    if len({k.arg for k in keywords}) != len(keywords):
        return call  # the same keyword twice: Python refuses the call
    if args == call.args and keywords == call.keywords:
        return call
    return ast.Call(call.func, args, keywords)


def _expanded(
    parts: list[_Part], read: Callable[[_Part], list[_Part] | None]
) -> list[_Part] | None:
    """``parts`` with each read as the parts it stands for (itself, or a star's items), or
    None when one cannot be read."""
    out: list[_Part] = []
    for part in parts:
        got = read(part)
        if got is None:
            return None
        out += got
    return out


def _items(node: ast.expr, local: dict[str, ast.expr]) -> list[ast.expr] | None:
    got = _display(node, local, _DEPTH)
    if isinstance(got, (ast.Tuple, ast.List)) and not any(
        isinstance(e, ast.Starred) for e in got.elts
    ):
        return list(got.elts)
    return None


def _keywords(node: ast.expr, local: dict[str, ast.expr]) -> list[ast.keyword] | None:
    got = _display(node, local, _DEPTH)
    if not isinstance(got, ast.Dict):
        return None
    out = []
    for key, value in zip(got.keys, got.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None  # ``**inner`` inside, or a key that is no keyword
        if not key.value.isidentifier():
            return None
        out.append(ast.keyword(key.value, value))
    return out


def _display(node: ast.expr, local: dict[str, ast.expr], depth: int) -> ast.expr | None:
    """What ``node`` stands for: a name the test assigned followed, a conditional the row
    decides taken; None past ``depth`` steps or for a condition it cannot decide."""
    if depth <= 0:
        return None
    if isinstance(node, ast.Name) and node.id in local:
        return _display(local[node.id], local, depth - 1)
    if isinstance(node, ast.IfExp):
        test = _decided(node.test)
        if test is None:
            return None
        return _display(node.body if test else node.orelse, local, depth - 1)
    return node


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
