"""Inputs near the maintainers' own: their examples, each varied in one small way.

A test or docstring example sits where the authors know the function's behaviour, usually
on the accepted side (a valid domain, a well-formed table). Releases change behaviour at
the edge next to it: a trailing character now rejected, a doubled separator, the same
options on an empty table. So each example's arguments are varied one at a time, as a
mutation fuzzer varies its seeds: text gets a trailing punctuation mark, its first separator
doubled, surrounding spaces, upper case (a real value padded is not the type-directed
`surrounding_whitespace` text: it is what the function accepts, padded); a number
its neighbours and its negation (a Decimal also zero, and with three more digits: rounding
shows there); a date the days either side; a list or mapping becomes empty or keeps only its first
item. The other arguments, options included, stay as the example had them, so the
variant also pairs each option the example set with the edge value.

Variants are candidates like any other: mutation selection keeps those that kill
mutants, and each kind of variant is a class of input the fill may show once.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from codemode.explore.offline.harvest import Candidate
from codemode.explore.offline.values import Value
from codemode.explore.record import value_key

MAX_SEEDS = 12  # examples varied, the first distinct ones
MAX_TEXT = 200  # longer text is data, not an example to vary


def _text(s: str) -> Iterator[tuple[str, str]]:
    if not s or len(s) > MAX_TEXT:
        return
    yield s + "!", "trailing_punctuation"
    sep = next((c for c in s if not c.isalnum() and not c.isspace()), None)
    if sep is not None:
        yield s.replace(sep, sep * 2, 1), "doubled_separator"
    yield f" {s} ", "padded"
    if s.upper() != s:
        yield s.upper(), "upper_case"
    yield from _number_in_text(s)


_DIGITS = re.compile(r"\d+")


def _number_in_text(s: str) -> Iterator[tuple[str, str]]:
    """The text's last number one up and far up, its width kept: an index past a list's end
    (``/foo/1`` -> ``/foo/2``), a version's next patch, a day past the month's last. A format
    the code parses is valid in the examples, and its edge is a number away."""
    runs = list(_DIGITS.finditer(s))
    if not runs or len(runs[-1].group()) > 18:
        return
    last = runs[-1]
    n, width = int(last.group()), len(last.group())
    for m, kind in ((n + 1, "number_up"), (n + 1000, "number_far")):
        yield s[: last.start()] + str(m).zfill(width) + s[last.end() :], kind


def _number(n: int | float) -> Iterator[tuple[int | float, str]]:
    yield n + 1, "plus_one"
    yield n - 1, "minus_one"
    if n:
        yield -n, "negated"
    if abs(n) < 10**15:
        yield n * 1000, "times_1000"


def _decimal(d: Decimal) -> Iterator[tuple[Decimal, str]]:
    if not d.is_finite():
        return
    try:
        yield d + 1, "plus_one"
        yield d - 1, "minus_one"
        if d:
            yield -d, "negated"
            yield Decimal(0), "zero"
            # more digits than the value had: what a quantize or a rounding step cuts off
            yield d + d.scaleb(-3), "more_digits"
    except ArithmeticError:  # any decimal signal the context traps: no such neighbour
        return


def _date(d: dt.date) -> Iterator[tuple[dt.date, str]]:
    try:
        yield d + dt.timedelta(days=1), "next_day"
        yield d - dt.timedelta(days=1), "previous_day"
    except OverflowError:  # date.max and date.min have one neighbour
        return


def _collection(v: list[Any] | dict[str, Any]) -> Iterator[tuple[Any, str]]:
    if v:
        yield type(v)(), "emptied"
    if isinstance(v, list) and len(v) > 1:
        yield v[:1], "first_item_only"
    if isinstance(v, dict) and len(v) > 1:
        first = next(iter(v))
        yield {first: v[first]}, "first_key_only"


def varied(value: Any) -> Iterator[tuple[Any, str]]:
    """``value`` varied in one small way, each with its kind (nothing for other types)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str):
        yield from _text(value)
    elif isinstance(value, (int, float)):
        yield from _number(value)
    elif isinstance(value, Decimal):
        yield from _decimal(value)
    elif isinstance(value, dt.date):  # a datetime too: a day either side
        yield from _date(value)
    elif isinstance(value, (list, dict)):
        yield from _collection(value)


def _key(c: Candidate) -> str:
    return value_key([list(c.args), c.kwargs])


def _seeds(examples: Sequence[Candidate]) -> list[Candidate]:
    out: dict[str, Candidate] = {}
    for c in examples:
        if c.exprs is None and (c.args or c.kwargs):
            out.setdefault(_key(c), c)
        if len(out) >= MAX_SEEDS:
            break
    return list(out.values())


def variants(examples: Sequence[Candidate]) -> list[Candidate]:
    """Each example with one argument varied, labelled ``<example>_<variant>``; none that
    repeats an example or another variant."""
    seen = {_key(c) for c in examples}
    out: list[Candidate] = []

    def add(c: Candidate, args: tuple[Any, ...], kwargs: dict[str, Any], kind: str) -> None:
        new = Candidate(args, kwargs, f"{c.label}_{kind}", "variants", family=kind)
        if _key(new) not in seen:
            seen.add(_key(new))
            out.append(new)

    for c in _seeds(examples):
        for i, value in enumerate(c.args):
            for v, kind in varied(value):
                add(c, (*c.args[:i], v, *c.args[i + 1 :]), c.kwargs, kind)
        for name, value in c.kwargs.items():
            for v, kind in varied(value):
                add(c, c.args, {**c.kwargs, name: v}, f"{name}_{kind}")
    return out


def example_values(
    names: Sequence[str], positional: Sequence[str], examples: Sequence[Candidate]
) -> dict[str, list[Value]]:
    """Per parameter, the values the examples pass it (the first two distinct) and the
    variants of the first: the planner then pairs them with the other parameters' values
    (a valid domain with a trailing mark AND the option that allows a trailing dot)."""
    seen: dict[str, dict[str, Any]] = {n: {} for n in names}
    for c in _seeds(examples):
        bound = dict(zip(positional, c.args))
        bound.update({k: v for k, v in c.kwargs.items() if k in seen})
        for name, value in bound.items():
            if name in seen and len(seen[name]) < 2 and not isinstance(value, bool):
                seen[name].setdefault(value_key(value), value)
    out: dict[str, list[Value]] = {}
    for name, found in seen.items():
        vals = list(found.values())
        labelled = [
            Value(v, "example" if i == 0 else f"example_{i + 1}") for i, v in enumerate(vals)
        ]
        if vals:
            labelled += [Value(v, f"example_{kind}") for v, kind in varied(vals[0])]
        out[name] = labelled
    return out


# Another type for an argument, where the annotation or another example shows the parameter
# takes it (#32): (the seed's type, what shows the other, the word for it, the value).
# The words are what typing spells them with; the values are the emptiest of their type, or
# the seed itself in the other text type.
_OTHER_TYPES: tuple[tuple[type, type, tuple[str, ...], Any], ...] = (
    (dict, list, ("list", "Sequence", "Iterable", "tuple", "Collection"), lambda v: []),
    (list, dict, ("dict", "Mapping"), lambda v: {}),
    (str, bytes, ("bytes", "AnyStr", "Buffer"), lambda v: v.encode("utf-8")),
    (bytes, str, ("str", "AnyStr"), lambda v: v.decode("utf-8", "replace")),
)


def _shown(name: str, examples: Sequence[Candidate], positional: Sequence[str]) -> set[type]:
    """The types the examples pass ``name``."""
    out: set[type] = set()
    for c in examples:
        bound = {**dict(zip(positional, c.args)), **c.kwargs}
        if name in bound:
            out.add(type(bound[name]))
    return out


# The words typing spells a parameter that takes a float with: a whole number the examples
# pass there is tried half past itself too.
_FLOAT_WORDS = re.compile(r"\b(?:float|Number|Real|SupportsFloat|complex)\b")


def _others(value: Any, annotation: str, shown: set[type]) -> Iterator[tuple[Any, str]]:
    if value is not None and (
        type(None) in shown or "None" in annotation or "Optional" in annotation
    ):
        yield None, "as_none"
    if (
        type(value) is int
        and abs(value) < 10**15
        and (not annotation or float in shown or _FLOAT_WORDS.search(annotation))
    ):
        # a count the examples only ever pass whole, where nothing says it must be: between
        # two whole numbers a floor, a round or an ``== 1`` tells them apart (pluralize(1.5,
        # "second") was "1.5 second", #32)
        yield value + 0.5, "half_up"
    for seed, other, words, make in _OTHER_TYPES:
        if type(value) is seed and (
            other in shown or any(re.search(rf"\b{w}\b", annotation) for w in words)
        ):
            yield make(value), f"as_{other.__name__}"


def other_types(examples: Sequence[Candidate], params: Sequence[Any]) -> list[Candidate]:
    """Each example with one argument of another type than it passes, where the parameter's
    annotation or another example shows that type (``None``, an empty list for a mapping,
    bytes for text), and a whole number half past itself where no annotation says it must be
    whole: labelled ``<example>_<name>_as_<type>``. ``params``: the function's
    ``Param``s (explore/target.py)."""
    positional = [p.name for p in params if p.kind in ("positional", "positional_only")]
    seen = {_key(c) for c in examples}
    out: list[Candidate] = []
    for p in params:
        shown = _shown(p.name, examples, positional)
        for c in _seeds(examples):
            bound = dict(zip(positional, c.args))
            at = positional.index(p.name) if p.name in bound else -1
            if at < 0 and p.name not in c.kwargs:
                continue
            value = c.args[at] if at >= 0 else c.kwargs[p.name]
            for v, kind in _others(value, p.annotation or "", shown):
                args = (*c.args[:at], v, *c.args[at + 1 :]) if at >= 0 else c.args
                kwargs = c.kwargs if at >= 0 else {**c.kwargs, p.name: v}
                new = Candidate(args, kwargs, f"{c.label}_{p.name}_{kind}", "variants", family=kind)
                if _key(new) not in seen:
                    seen.add(_key(new))
                    out.append(new)
    return out
