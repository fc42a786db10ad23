"""A function's positional parameters, read from its code object (through decorators'
``__wrapped__``) without importing inspect, which costs every worker's start. Runs inside
the worker."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms of every start
if TYPE_CHECKING:
    from typing import Any


def _code(func: Any) -> tuple[Any, int]:
    """``func``'s code object (None when it has none) and how many leading parameters its
    binding fills (1 for a bound method's ``self``)."""
    target = func
    for _ in range(10):
        if not hasattr(target, "__wrapped__"):
            break
        target = target.__wrapped__
    skip = 1 if getattr(target, "__self__", None) is not None else 0
    return getattr(getattr(target, "__func__", target), "__code__", None), skip


def positional_only(func: Any, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    """Keyword inputs naming positional-only parameters, moved to their place in ``args``
    (taken out of ``kwargs``): ``inputs: {value: x, strict: true}`` is the spec's one form
    for ``f(value, /, *, strict=False)`` called with an option."""
    code, skip = _code(func)
    if code is None or not getattr(code, "co_posonlyargcount", 0):
        return args
    out = list(args)
    for name in code.co_varnames[skip : code.co_posonlyargcount][len(args) :]:
        if name not in kwargs:
            break
        out.append(kwargs.pop(name))
    return out


def positional_names(func: Any) -> tuple[str, ...]:
    """The names of the parameters a call's positional arguments fill, ``self`` left out."""
    code, skip = _code(func)
    if code is None:
        return ()
    return tuple(code.co_varnames[skip : code.co_argcount])
