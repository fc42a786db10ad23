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

Where the parameter is annotated, only a value of a type the annotation names as well
(``str | None``, ``Optional[str]``, ``Union[int, str]``, ``Mapping | list``, ``Any``): the
issue's "where the tests or annotations show one". A parameter annotated ``int`` is not
handed a string: the annotation is its contract, and a change outside it is no change
to report. No rule for one library: the table is by the value's type alone.
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import random
import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codemode.explore.target import Param

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


def annotation(params: Sequence[Param], where: int | str) -> str | None:
    """The annotation of the parameter an argument binds (a position, or a keyword's name;
    ``*args``'/``**kwargs``' past the named ones); None for none, or no such parameter."""
    if isinstance(where, int):
        row = [p for p in params if p.kind in ("positional_only", "positional")]
        rest = [p for p in params if p.kind == "var_positional"]
        found = row[where] if where < len(row) else rest[0] if rest else None
    else:
        named = [p for p in params if p.name == where and p.kind != "positional_only"]
        found = (named or [p for p in params if p.kind == "var_keyword"] or [None])[0]
    return found.annotation if found is not None else None


# The names under which an annotation admits a value of each type (typing's and
# collections.abc's; an int where float is annotated, as PEP 484's numeric tower has it)
_ADMITTED: dict[type, frozenset[str]] = {
    type(None): frozenset(("None", "NoneType")),
    bool: frozenset(("bool",)),
    int: frozenset(("int", "float", "complex", "Integral", "Real", "Number", "SupportsInt")),
    float: frozenset(("float", "complex", "Real", "Number", "SupportsFloat")),
    str: frozenset(("str", "AnyStr", "Text", "LiteralString")),
    bytes: frozenset(("bytes", "AnyStr", "ByteString", "Buffer")),
    list: frozenset(("list", "List", "Sequence", "MutableSequence", "Iterable", "Collection")),
    tuple: frozenset(("tuple", "Tuple", "Sequence", "Iterable", "Collection")),
    dict: frozenset(("dict", "Dict", "Mapping", "MutableMapping", "Iterable", "Collection")),
}
_ANYTHING = frozenset(("Any", "object"))


def admits(annotation: str | None, value: Any) -> bool:
    """Whether a parameter annotated ``annotation`` (None: not annotated) may be handed
    ``value``: one of the annotation's members names its type, or anything; an annotation
    that does not parse admits nothing."""
    if annotation is None:
        return True
    try:
        names = set(_members(ast.parse(annotation, mode="eval").body, 0))
    except SyntaxError:
        return False
    return bool(names & (_ANYTHING | _ADMITTED.get(type(value), frozenset())))


def _members(node: ast.expr, depth: int) -> Iterator[str]:
    """The names of a union's members: ``str | None`` -> str, None; ``Optional[Mapping[str,
    int]]`` -> None, Mapping; a quoted forward reference read as the annotation it holds."""
    if depth > 3:
        return
    if isinstance(node, ast.Constant):
        if node.value is None:
            yield "None"
        elif isinstance(node.value, str):
            try:
                yield from _members(ast.parse(node.value, mode="eval").body, depth + 1)
            except SyntaxError:
                return
        return
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        yield from _members(node.left, depth)
        yield from _members(node.right, depth)
        return
    head = node.value if isinstance(node, ast.Subscript) else node
    name = ast.unparse(head).rsplit(".", 1)[-1]
    if isinstance(node, ast.Subscript) and name in ("Optional", "Union", "Annotated"):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if name == "Optional":
            yield "None"
        for e in elts[:1] if name == "Annotated" else elts:
            yield from _members(e, depth + 1)
        return
    yield name
