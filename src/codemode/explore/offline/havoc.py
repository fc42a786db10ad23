"""Mutants of the pool's calls, for the time the diff budget has left once the pool ran (#32).

The maintainers' examples sit where the authors know the behaviour, and a release's change
is often a step or two away on a path no example takes: a check digit that comes out 10 for
one number in eleven, a zero in front, two bounds that meet. The pool's
fixed variants (variants.py) take one step of each kind from a few examples and splices
(splice.py) put in the values the change's lines compare against; neither wanders. So, once
the pool has run and shown no difference, its calls are mutated as a greybox fuzzer mutates
its seeds: AFL's "havoc" stage, a random stack of one to three small edits (a character
replaced by one of its class, inserted, deleted, a run of characters cloned, two swapped; a
number one away, negated, zero; an item dropped, doubled, two swapped; two arguments of one
type made equal; a number set to one of AFL's "interesting values", a float to nan, an
infinity or -0.0), in the arguments, the instance's constructor arguments, and the literals
inside the expressions the tests build an argument with. As a rule an edit keeps the value's
type, so the mutants stay near the accepted inputs rather than in the type errors a random
value meets first; one in ``RETYPE`` gives an argument another type (retype.py: ``'42'`` ->
``42``, a mapping -> ``[]``, None) where its parameter's annotation names that type too or
there is none, as the issue asks of "arguments of another type than the usual one". Such a
mutant that both versions refuse is no input (behaviour/engine.py), whatever each raises.

The random source is seeded by the function's id (crc32, not ``hash``: the same in every
process), so one commit's runs try the same mutants and agree. A mutant is a call like any
other: a difference it shows is run again on both sides before it is a witness, and it is
shown as the call it is (``source: havoc``).
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import random
import string
import zlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from codemode.explore.offline.input_pool import PoolCall
from codemode.explore.offline.retype import admits, annotation, retyped

if TYPE_CHECKING:
    from codemode.explore.target import Param

# Mutants per function, at most (and within ``diff_budget``'s calls and seconds): one
# request's worth (behaviour/pace.py's CHUNK), as a request's round trip through both
# workers, not the calls, is what the mutants cost. Measured with benchmarks/guard.py (the
# one-function hook, a refactor, so its mutants all run; 7 rounds at a load of 4 on 2 cores):
# 200 mutants, two requests, added 68 ms of wall time to 0.213 s; 100 added 9 ms.
MUTANTS = 100
MAX_TEXT = 200  # longer text is data: edits a character apart say little (as variants.py)
MAX_SEEDS = 64  # distinct calls mutated, the pool's first (its order is the pool's rank)
# Edits stacked on one mutant: AFL stacks a power of two up to 128 on bytes; calls' arguments
# are short text and small numbers, where three edits already leave the example's shape.
STACK = (1, 1, 1, 2, 2, 3)
TRIES = 4  # draws per mutant wanted: an edit can leave the call as it was (a swap of equals)
# One edit in RETYPE gives an argument another type (retype.py): rare, as a type the tests
# never pass mostly meets the function's first check, on both sides alike; at most about one
# mutant in five then holds one (1.7 edits a mutant; fewer where annotations forbid it).
RETYPE = 8
# The label's end of a mutant with an argument of another type: one that both versions
# refuse (each raises) is no input of the function, whichever exception each raises
# (behaviour/engine.py); one a version takes is compared as any call.
RETYPED = "_retyped"
# AFL's "interesting values" (afl-fuzz's config.h: INTERESTING_8, INTERESTING_16, and the
# 16-bit bounds of INTERESTING_32): the ends of the 8- and 16-bit ranges and common buffer
# sizes, where a width, a code point or a byte value changes its handling. Not the 32-bit
# ends: a count of 2**31 would run a loop or build a text ``'x' * n`` past the budget (as
# values.py leaves huge ints out).
INTERESTING_INTS = (
    *(-128, -1, 0, 1, 16, 32, 64, 100, 127),  # INTERESTING_8
    *(-32768, -129, 128, 255, 256, 512, 1000, 1024, 4096, 32767),  # INTERESTING_16
    *(-32769, 32768, 65535, 65536),  # INTERESTING_32's 16-bit bounds
)
# Floats a finite example never reaches by steps: Hypothesis's float strategy draws these
# "nasty" floats first (NASTY_FLOATS in hypothesis/internal/conjecture/providers.py: the
# infinities and nan, weighted five times, their negatives, 0.0 and -0.0, the largest
# double, 2**53 where integers stop being exact, the smallest subnormal).
INTERESTING_FLOATS = (
    *(math.nan, math.inf, -math.inf, -0.0) * 2,
    *(1.7976931348623157e308, 9007199254740992.0, 5e-324, 1 / 3),
)

# The sources whose calls someone wrote or ran (explore/offline/input_sources.py).
MAINTAINERS = frozenset(("spec", "tests", "docstring", "receivers", "callers", "splices"))
_CLASSES = (string.digits, string.ascii_lowercase, string.ascii_uppercase)


def _like(c: str, rng: random.Random, alphabet: str) -> str:
    """Another character of ``c``'s class: a digit for a digit, a letter of its case for a
    letter, else one of the text's own characters (its separators, its script)."""
    for cls in _CLASSES:
        if c in cls:
            return rng.choice(cls)
    return rng.choice(alphabet)


def _text(s: str, rng: random.Random) -> str:
    if not s:
        return rng.choice(string.ascii_lowercase + string.digits + " ")
    if len(s) > MAX_TEXT:
        return s
    i = rng.randrange(len(s))
    op = rng.randrange(6)
    if op == 0:  # replace
        return s[:i] + _like(s[i], rng, s) + s[i + 1 :]
    if op == 1:  # insert one of its class beside it
        return s[:i] + _like(s[i], rng, s) + s[i:]
    if op == 2:  # delete
        return s[:i] + s[i + 1 :]
    if op == 3:  # clone a run of up to four characters to another place (AFL's clone)
        run = s[i : i + rng.randint(1, 4)]
        j = rng.randrange(len(s) + 1)
        return s[:j] + run + s[j:]
    if op == 4 and len(s) > 1:  # swap two neighbours
        i = min(i, len(s) - 2)
        return s[:i] + s[i + 1] + s[i] + s[i + 2 :]
    return s[:i] + s[i].swapcase() + s[i + 1 :]


def _int(n: int, rng: random.Random) -> int:
    if not rng.randrange(7):  # as often as each step below
        return rng.choice(INTERESTING_INTS)
    return rng.choice((n + 1, n - 1, -n, 0, n * 2, n // 2))


def _float(x: float, rng: random.Random) -> float:
    if not math.isfinite(x):  # round() of an infinity or a nan raises
        return rng.choice((-x, *INTERESTING_FLOATS))
    if not rng.randrange(7):  # as often as each step below
        return rng.choice(INTERESTING_FLOATS)
    return rng.choice((x + 1, x - 1, -x, 0.0, x / 2, float(round(x))))


def _date(d: dt.date, rng: random.Random) -> dt.date:
    try:  # a day either side, a year on (a leap day), the month's first
        return rng.choice((d + _DAY, d - _DAY, d.replace(year=d.year + 1), d.replace(day=1)))
    except (OverflowError, ValueError):  # date.max has no next day; Feb 29 no next year
        return d


def _items(v: list[Any] | tuple[Any, ...], rng: random.Random) -> list[Any] | tuple[Any, ...]:
    items = list(v)
    op = rng.randrange(4) if items else 4
    i = rng.randrange(len(items)) if items else 0
    if op == 0:  # an item mutated
        items[i] = mutated(items[i], rng)
    elif op == 1:  # dropped
        del items[i]
    elif op == 2:  # doubled
        items.insert(i, items[i])
    elif op == 3 and len(items) > 1:  # two swapped
        j = rng.randrange(len(items))
        items[i], items[j] = items[j], items[i]
    return type(v)(items)


def _mapping(d: dict[Any, Any], rng: random.Random) -> dict[Any, Any]:
    if not d:
        return d
    out = dict(d)
    key = rng.choice(list(out))
    if rng.randrange(3):
        out[key] = mutated(out[key], rng)
    else:
        del out[key]
    return out


def mutated(value: Any, rng: random.Random) -> Any:
    """``value`` with one edit that keeps its type; as it was for a type with none."""
    if isinstance(value, bool):
        return not value
    kind: Callable[[Any, random.Random], Any] | None = _EDITS.get(type(value))
    if kind is not None:
        return kind(value, rng)
    if isinstance(value, bytes) and len(value) <= MAX_TEXT:
        edited = _text(value.decode("latin-1"), rng)
        # a swapped case can leave latin-1 ('\xff'.swapcase() is '\u0178'): no such bytes
        return edited.encode("latin-1") if max(edited, default="\0") <= "\xff" else value
    return value


def _mutant(value: Any, rng: random.Random, annotation: str | None) -> tuple[Any, bool]:
    """An argument edited, and whether it now has another type: one edit in RETYPE gives it
    one (retype.py) where its parameter's annotation names that type too (``str | None``,
    ``Optional[...]``, ``Any``) or it has none; ``annotation``: None for none."""
    if not rng.randrange(RETYPE):
        other = retyped(value, rng)
        if other is not value and admits(annotation, other):
            return other, type(other) is not type(value)  # an empty list is no other type
    return mutated(value, rng), False


_DAY = dt.timedelta(days=1)
_EDITS: dict[type, Callable[[Any, random.Random], Any]] = {
    dt.date: _date,
    dt.datetime: _date,
    str: _text,
    int: _int,
    float: _float,
    list: _items,
    tuple: _items,
    dict: _mapping,
}


def _edit_exprs(call: PoolCall, rng: random.Random) -> tuple[PoolCall, bool]:
    """A call whose arguments the tests build (``exprs``: ``parse(date(2024, 1, 31))``, an
    instance ``Renderer(width=4)``): a literal inside one of their expressions edited (and
    whether to another type: a literal's parameter is not known, so as one with none)."""
    exprs = dict(call.exprs or {})
    places: list[tuple[str, Any]] = [("self", None)] if exprs.get("self") else []
    places += [("args", i) for i in range(len(exprs.get("args") or []))]
    places += [("kwargs", k) for k in exprs.get("kwargs") or {}]
    if not places:
        return call, False
    part, where = rng.choice(places)
    source = exprs[part] if where is None else exprs[part][where]
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        return call, False
    literals = [
        n for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) in _EDITS
    ]
    if not literals:
        return call, False
    node = rng.choice(literals)
    node.value, retyped_ = _mutant(node.value, rng, None)
    edited = ast.unparse(tree)
    if where is None:
        exprs[part] = edited
    elif isinstance(where, int):
        exprs[part] = [*exprs[part][:where], edited, *exprs[part][where + 1 :]]
    else:
        exprs[part] = {**exprs[part], where: edited}
    return call._replace(exprs=exprs), retyped_


def _edit(call: PoolCall, rng: random.Random, params: Sequence[Param]) -> tuple[PoolCall, bool]:
    """``call`` with one argument edited, its instance's constructor's included, or two of one
    type made equal (bounds that meet); and whether the argument now has another type."""
    if call.exprs:
        return _edit_exprs(call, rng)
    args, kwargs = list(call.args), dict(call.kwargs)
    made = call.receiver or {}
    r_args, r_kwargs = list(made.get("args") or []), dict(made.get("kwargs") or {})
    places: list[tuple[Any, Any]] = [
        *((args, i) for i in range(len(args))),
        *((kwargs, k) for k in kwargs),
        *((r_args, i) for i in range(len(r_args))),
        *((r_kwargs, k) for k in r_kwargs),
    ]
    if not places:
        return call, False
    holder, where = rng.choice(places)
    value, other = holder[where], False
    # repr, not ==: an argument's __eq__ may raise or return an array
    twins = [h[w] for h, w in places if type(h[w]) is type(value) and repr(h[w]) != repr(value)]
    if twins and not rng.randrange(4):
        holder[where] = rng.choice(twins)
    else:  # the constructor's parameters are not known: as ones with no annotation
        named = holder is args or holder is kwargs
        holder[where], other = _mutant(value, rng, annotation(params, where) if named else None)
    receiver = {**made, "args": r_args, "kwargs": r_kwargs} if call.receiver else None
    return call._replace(args=tuple(args), kwargs=kwargs, receiver=receiver), other


def _has_values(call: PoolCall) -> bool:
    if call.exprs:
        return True
    made = call.receiver or {}
    return bool(call.args or call.kwargs or made.get("args") or made.get("kwargs"))


def _seeds(pool: Sequence[PoolCall]) -> list[PoolCall]:
    # a call that calls what it returned is its call's follow-up, not a seed. The
    # maintainers' calls first: a
    # value of the annotated type (a paragraph of words, a Windows path) was nobody's input,
    # and a variant of a call is already a step from it
    out = [c for c in pool if c.then is None and _has_values(c)]
    theirs = [c for c in out if c.source in MAINTAINERS]
    return (theirs or out)[:MAX_SEEDS]


def havoc(
    function_id: str, pool: Sequence[PoolCall], n: int, params: Sequence[Param] = ()
) -> list[PoolCall]:
    """Up to ``n`` mutants of ``pool``'s literal calls, new ones all, the seeds taken in turn;
    labelled ``<seed>_havoc``, and ``<seed>_havoc_retyped`` (RETYPED) when an argument got
    another type. ``params``: the function's (explore/target.py), for their annotations."""
    seeds = _seeds(pool)
    if not seeds or n <= 0:
        return []
    rng = random.Random(zlib.crc32(function_id.encode()))
    seen = {c.key() for c in pool}
    out: list[PoolCall] = []
    for k in range(n * TRIES):
        if len(out) >= n:
            break
        seed = seeds[k % len(seeds)]
        call, other = seed, False
        for _ in range(rng.choice(STACK)):
            try:
                call, retyped_ = _edit(call, rng, params)
            except (ArithmeticError, ValueError, TypeError, RecursionError):
                # an edit a value's own type refuses (a date past its last year, an int
                # too long to print): no mutant of it, never an error of the check
                break
            other = other or retyped_
        key = call.key()
        if key in seen:
            continue
        seen.add(key)
        label = f"{seed.label or 'call'}_havoc{RETYPED * other}"
        out.append(call._replace(source="havoc", label=label))
    return out
