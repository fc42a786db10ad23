"""Callables of each kind of outcome for a parameter the tests pass a callable to (#32).

A higher-order function (``iterate(func, start)``, ``map_values(fn, d)``) behaves by what its
callable does, and the tests hand it callables that return values: a change in how it
handles a callable that returns None, or raises (``iterate`` stopping where its callable
raises StopIteration, instead of a RuntimeError), shows on none of them. So where a test's
call passes a callable as an argument (a lambda, kept as an expression by the harvest, or a
builtin function by name), the pool also gets that call with the argument replaced by one
callable of each class of outcome a caller's code branches on: it returns None, it raises
StopIteration (the iteration protocol's end, which generators turn into a RuntimeError,
PEP 479), it raises another exception. The tests' own callable is the class "returns a
value". Each is written as a lambda the witness shows and a re-check can run.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codemode.explore.offline.input_pool import PoolCall

# one callable of each class of outcome (the module's doc), as source
KINDS = (
    "lambda *a, **k: None",
    "lambda *a, **k: next(iter(()))",
    "lambda *a, **k: 1 // 0",
)
MAX_CALLS = 6  # test calls varied so, per function (each gives len(KINDS) calls)


def callable_variants(calls: Iterable[PoolCall]) -> list[PoolCall]:
    """The calls of ``calls`` that pass a callable, with it replaced by each of ``KINDS``."""
    out: list[PoolCall] = []
    varied = 0
    for call in calls:
        exprs = call.exprs
        if not exprs or "self" in exprs or varied >= MAX_CALLS:
            continue
        spots = list(_callable_spots(exprs))
        if not spots:
            continue
        varied += 1
        where, key = spots[0]  # the first callable argument
        for n, kind in enumerate(KINDS):
            args = list(exprs.get("args") or ())
            kwargs = dict(exprs.get("kwargs") or {})
            if where == "args":
                args[int(key)] = kind
            else:
                kwargs[str(key)] = kind
            new = {**exprs, "args": args, "kwargs": kwargs}
            out.append(call._replace(exprs=new, label=f"{call.label}:callable_{n}"))
    return out


def _callable_spots(exprs: dict[str, Any]) -> Iterator[tuple[str, int | str]]:
    """Where the call's argument expressions hold a callable: ("args", i) or ("kwargs", name)."""
    args = exprs.get("args")
    kwargs = exprs.get("kwargs")
    for i, src in enumerate(args if isinstance(args, list) else ()):
        if _is_callable(str(src)):
            yield "args", i
    for name, src in (kwargs if isinstance(kwargs, dict) else {}).items():
        if _is_callable(str(src)):
            yield "kwargs", str(name)


def _is_callable(src: str) -> bool:
    """A lambda, or a builtin function or type by its name (``str``, ``len``)."""
    try:
        node = ast.parse(src.strip(), mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.Lambda):
        return True
    return (
        isinstance(node, ast.Name)
        and callable(getattr(builtins, node.id, None))
        and node.id not in _NOT_HANDLERS
    )


# builtin names a test passes as a value, not as a callable to call (``None`` is no Name)
_NOT_HANDLERS = frozenset({"print", "input", "open", "exit", "quit", "breakpoint", "help"})
