"""A value of another type than the one the tests pass: the havoc stage's rare edit (#32).

The maintainers' calls pass one type per parameter, and a release's change is often in what
a function does with another: a template renderer that raised TypeError on an int where the
tests only pass text (``render('{/x}', x=2)`` now gives '/2'), a mapping parameter that now
takes an empty list, text where bytes were read. The issue's rule is to try "arguments of
another type than the usual one"; the edits are type-changing mutation as property-based
testing draws it (a union's other branch: Hypothesis's ``one_of``, and ``from_type`` of an
``Optional[T]`` parameter, which adds None) and the type confusion that grammar-less fuzzers
find in dynamically typed code. The nearest value of another type, never a random one, so
the call still reaches the code past its first check:

- text of a number <-> the number (``'42'`` <-> ``42``), other text -> its length (an int a
  count or an index would take), text <-> its UTF-8 bytes;
- an int -> a float (``2`` -> ``2.0``) and a float -> the int it equals, or its text;
- a list <-> a tuple; a container -> its empty form, a mapping -> an empty list;
- a date -> its ISO text; any of these -> None.

No rule for one library: the table is by the value's type alone.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from collections.abc import Callable
from typing import Any

# A decimal integer or a decimal fraction, as int() and float() read the text a person
# writes ('-3', ' 42 ', '2.5'); not '1e3', 'nan', '0x1f' (text, not a number, to a reader)
_INTEGER = re.compile(r"\s*[-+]?\d+\s*")
_DECIMAL = re.compile(r"\s*[-+]?\d*\.\d+\s*")


def _text(s: str, rng: random.Random) -> Any:
    if _INTEGER.fullmatch(s):
        number: Any = int(s)
    elif _DECIMAL.fullmatch(s):
        number = float(s)
    else:
        number = len(s)  # a small int: what a count, a width or an index would be given
    return rng.choice((number, s.encode("utf-8"), None))


def _bytes(b: bytes, rng: random.Random) -> Any:
    try:
        return rng.choice((b.decode("utf-8"), None))
    except UnicodeDecodeError:
        return None


def _int(n: int, rng: random.Random) -> Any:
    return rng.choice((str(n), float(n), None))


def _float(x: float, rng: random.Random) -> Any:
    exact = math.isfinite(x) and x.is_integer()
    return rng.choice((int(x) if exact else repr(x), None))


def _list(v: list[Any], rng: random.Random) -> Any:
    return rng.choice((tuple(v), [], None)) if v else rng.choice(((), None))


def _tuple(v: tuple[Any, ...], rng: random.Random) -> Any:
    return rng.choice((list(v), (), None)) if v else rng.choice(([], None))


def _mapping(d: dict[Any, Any], rng: random.Random) -> Any:
    # the issue's own example: an empty list where a mapping is usual (``names=[]``)
    return rng.choice(({}, [], None)) if d else rng.choice(([], None))


def _date(d: dt.date, rng: random.Random) -> Any:
    return rng.choice((d.isoformat(), None))


_RETYPE: dict[type, Callable[[Any, random.Random], Any]] = {
    str: _text,
    bytes: _bytes,
    int: _int,
    float: _float,
    list: _list,
    tuple: _tuple,
    dict: _mapping,
    dt.date: _date,
    dt.datetime: _date,
    bool: lambda b, rng: None,  # True/1 compare equal: only None is another kind of flag
}


def retyped(value: Any, rng: random.Random) -> Any:
    """``value`` as a value of another type (see the module's table); as it was for a type
    with none (None, an object the tests built)."""
    edit = _RETYPE.get(type(value))
    return value if edit is None else edit(value, rng)
