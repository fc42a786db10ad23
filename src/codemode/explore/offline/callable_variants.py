"""Callables of each kind of outcome for a parameter the tests pass a callable to (#32).

A higher-order function (``iterate(func, start)``, ``map_values(fn, d)``) behaves by what its
callable does, and the tests hand it callables that return values: a change in how it
handles a callable that returns None, or raises (``iterate`` stopping where its callable
raises StopIteration, instead of a RuntimeError), shows on none of them. So where a test's
call passes a callable as an argument (a lambda, kept as an expression by the harvest, a
builtin function by name, or a function of the test file by name, which the call's setup
carries as its definition), the pool also gets that call with the argument replaced by one
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
    own = _setup_functions(str(exprs.get("setup") or ""))
    for i, src in enumerate(args if isinstance(args, list) else ()):
        if _is_callable(str(src), own):
            yield "args", i
    for name, src in (kwargs if isinstance(kwargs, dict) else {}).items():
        if _is_callable(str(src), own):
            yield "kwargs", str(name)


def _is_callable(src: str, own: frozenset[str] = frozenset()) -> bool:
    """A lambda, a builtin function or type by its name (``str``, ``len``), or a function the
    call's setup defines (``own``: a test file's ``def my_key(x)`` passed as ``key=my_key``)."""
    try:
        node = ast.parse(src.strip(), mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.Lambda):
        return True
    if not isinstance(node, ast.Name):
        return False
    if node.id in own:
        return True
    return callable(getattr(builtins, node.id, None)) and node.id not in _NOT_HANDLERS


def _setup_functions(setup: str) -> frozenset[str]:
    """The names the setup lines bind to a function: a ``def``, as the harvest carries a
    function of the test file (``exec('def my_key(x): ...')``, explore/offline/test_names.py)
    or a method's recipe writes it, and a name assigned a lambda."""
    if "def " not in setup and "lambda" not in setup:  # most setups: no parse
        return frozenset()
    out: set[str] = set()
    whole = _statements(setup)
    for node in whole or [n for line in setup.splitlines() for n in _statements(line)]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(out)


def _statements(text: str) -> list[ast.stmt]:
    """Setup lines' statements, with the definition an ``exec('...')`` line runs read as its
    own statements ([]: the text does not parse as a whole)."""
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return []
    out: list[ast.stmt] = []
    for node in body:
        call = node.value if isinstance(node, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "exec"
            and call.args
            and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)
        ):
            out += _statements(call.args[0].value)
        else:
            out.append(node)
    return out


# builtin names a test passes as a value, not as a callable to call (``None`` is no Name)
_NOT_HANDLERS = frozenset({"print", "input", "open", "exit", "quit", "breakpoint", "help"})
