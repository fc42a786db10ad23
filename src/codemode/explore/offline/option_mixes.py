"""The options the tests set, tried with the function's other inputs (#32).

A test that checks a flag passes it with one input (``between(5, 1, 5, inclusive=True)``),
and the test of the input the change is about passes none (``between(1, 1, 5)``): the
release changes what the flag does at that input, and neither call shows it. Each set of
keyword arguments the maintainers' calls pass (a test's, a docstring's, the spec's), and each
single option of it, is combined with the other inputs those calls hold: a bounded mix,
spread over the option sets and the inputs' shapes (explore/offline/spread.py), the inputs
shuffled with a seed of the function's id, so no first N decides which inputs are mixed.
An option a call passes by position takes that position.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codemode.explore.offline.input_pool import PoolCall
    from codemode.explore.target import Param

MAX_MIXES = 160  # calls per function and side; the diff's budget (1000 calls) holds them
MAX_OPTION_SETS = 24
_SEEDS = ("spec", "tests", "docstring", "receivers")  # the maintainers' own calls


def mixed(calls: Sequence[PoolCall], params: Sequence[Param], function_id: str) -> list[PoolCall]:
    """Each option set of the maintainers' calls on each of their other inputs, at most
    ``MAX_MIXES``, none that repeats a call."""
    from codemode.explore.offline.spread import spread, value_shape

    seeds = [c for c in calls if c.source in _SEEDS]
    positional = [p.name for p in params if p.kind in ("positional", "positional_only")]
    sets = _option_sets(seeds, params)
    if not sets:
        return []
    bases = list(seeds)
    random.Random(zlib.crc32(function_id.encode())).shuffle(bases)
    seen = {c.key() for c in calls}
    out: list[tuple[int, PoolCall]] = []
    for n, options in enumerate(sets):
        for base in bases:
            call = with_options(base, options, positional)
            if call is not None and call.key() not in seen:
                seen.add(call.key())
                out.append((n, call))

    def shape(item: tuple[int, PoolCall]) -> Any:
        n, c = item
        return (n, tuple(value_shape(a) for a in c.args[:3]), c.exprs is None)

    return [c for _, c in spread(out, MAX_MIXES, shape)]


def _option_sets(seeds: Sequence[PoolCall], params: Sequence[Param]) -> list[dict[str, Any]]:
    """The literal options the calls pass (by name, or by position to a parameter with a
    default: ``f(x, True)``), whole and one at a time."""
    named = {p.name for p in params if p.kind not in ("var_positional", "var_keyword")}
    positional = [p for p in params if p.kind in ("positional", "positional_only")]
    found: dict[str, dict[str, Any]] = {}
    for c in seeds:
        args, kwargs = literal_arguments(c)
        options = {
            p.name: v for p, v in zip(positional, args) if p.has_default and v is not NO_VALUE
        }
        options.update({k: v for k, v in kwargs.items() if k in named})
        for part in [options, *({k: v} for k, v in options.items())] if options else []:
            found.setdefault(repr(sorted(part.items())), part)
    return list(found.values())[:MAX_OPTION_SETS]


NO_VALUE = object()


def literal_arguments(c: PoolCall) -> tuple[list[Any], dict[str, Any]]:
    """A call's arguments that are literals (an argument written as other source text is
    ``NO_VALUE`` by position, left out by name)."""
    if c.exprs is None:
        return list(c.args), dict(c.kwargs)
    args = [_literal(str(src)) for src in c.exprs.get("args") or []]
    kwargs = {k: _literal(str(src)) for k, src in (c.exprs.get("kwargs") or {}).items()}
    return args, {k: v for k, v in kwargs.items() if v is not NO_VALUE}


def _literal(src: str) -> Any:
    import ast

    try:
        return ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return NO_VALUE


def with_options(base: PoolCall, options: dict[str, Any], positional: list[str]) -> PoolCall | None:
    """``base`` with ``options`` set (by position where it passes them by position); None
    when that changes nothing or an option has no source form for a call written as text."""
    label = f"{base.label}_with_{'_'.join(options)}"
    if base.exprs is None:
        args, kwargs = list(base.args), dict(base.kwargs)
        for k, v in options.items():
            at = positional.index(k) if k in positional else -1
            if 0 <= at < len(args):
                args[at] = v
            elif at == len(args) and at >= 0:  # the next position: one form of the call
                args.append(v)
            else:
                kwargs[k] = v
        if (tuple(args), kwargs) == (tuple(base.args), base.kwargs):
            return None
        return base._replace(args=tuple(args), kwargs=kwargs, source="variants", label=label)
    if any(isinstance(v, float) and not math.isfinite(v) for v in options.values()):
        return None  # repr(inf) is no source
    exprs = dict(base.exprs)
    srcs, named = list(exprs.get("args") or []), dict(exprs.get("kwargs") or {})
    for k, v in options.items():
        at = positional.index(k) if k in positional else -1
        if 0 <= at < len(srcs):
            srcs[at] = repr(v)
        elif at == len(srcs) and at >= 0:
            srcs.append(repr(v))
        else:
            named[k] = repr(v)
    if (srcs, named) == (list(exprs.get("args") or []), dict(exprs.get("kwargs") or {})):
        return None
    exprs.update(args=srcs, kwargs=named)
    return base._replace(exprs=exprs, source="variants", label=label)
