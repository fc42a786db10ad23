"""The worker's canonical form, its JSON-lines transport and its type checks, in-process.

The worker's modules are stdlib-only and importable: the parent uses the very same canonical().
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import decimal
import enum
import fractions
import math
import re
import uuid
from pathlib import PurePosixPath
from typing import Any, NamedTuple

import pytest

from codemode.worker.canonical import canonical, dumps, has_faithful_form, loads
from codemode.worker.typeexpr import type_answer


class Colour(enum.Enum):
    RED = "red"


class Size(enum.IntEnum):
    S = 1


@dataclasses.dataclass
class Point:
    x: float
    y: float
    tags: frozenset[str] = frozenset()


class Pair(NamedTuple):
    left: int
    right: tuple[int, int]


class Plain:
    """No __repr__: compared as its public attributes."""

    def __init__(self) -> None:
        self.name = "plain"
        self._secret = "hidden"


class Slotted:
    """Its data in slots, a repr that holds its address: compared as its public slots (#32)."""

    __slots__ = ("_b", "a", "unset")

    def __init__(self) -> None:
        self.a, self._b = 1, 2

    def __repr__(self) -> str:
        return f"<Slotted at {hex(id(self))}>"


class NoData:
    __slots__ = ()


def check_type(value: Any, expr: str, strict: bool, namespace: dict[str, Any]) -> str | None:
    """None if ``value`` is of type ``expr``; otherwise a one-line reason."""
    answer = type_answer(value, expr, strict, namespace)
    return answer if answer is None or isinstance(answer, str) else answer["spec_error"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ((1, 2), [1, 2]),
        ({3, 1, 2}, [1, 2, 3]),
        (frozenset({"b", "a"}), ["a", "b"]),
        (Colour.RED, "red"),
        (Size.S, 1),
        (Point(1.0, 2.5, frozenset({"z", "a"})), {"x": 1.0, "y": 2.5, "tags": ["a", "z"]}),
        (Pair(1, (2, 3)), {"left": 1, "right": [2, 3]}),
        (dt.date(2024, 2, 29), "2024-02-29"),
        (dt.datetime(2024, 2, 29, 8, 30), "2024-02-29T08:30:00"),
        (dt.timedelta(minutes=1), 60.0),
        (decimal.Decimal("10.50"), "10.50"),
        (fractions.Fraction(1, 3), "1/3"),
        (uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
        (PurePosixPath("/a/b"), "/a/b"),
        (b"\x00\xff", {"$bytes": "AP8="}),
        (collections.Counter("aab"), {"a": 2, "b": 1}),
        (collections.OrderedDict(b=1, a=2), {"b": 1, "a": 2}),
        ({Colour.RED: 1}, {"red": 1}),
        ({(1, 2): "x"}, {"[1, 2]": "x"}),
        (range(3), [0, 1, 2]),
        (Plain(), {"$class": f"{__name__}.Plain", "name": "plain"}),
        (Slotted(), {"$class": f"{__name__}.Slotted", "a": 1}),
        (re.compile("a+"), {"$repr": "re.compile('a+')"}),
        (1 + 2j, {"$repr": "(1+2j)"}),
    ],
)
def test_canonical_data(value: Any, expected: Any) -> None:
    assert canonical(value) == expected


def test_pydantic_models_are_their_data() -> None:
    from pydantic import BaseModel

    class Customer(BaseModel):
        name: str
        since: dt.date

    assert canonical(Customer(name="ann", since=dt.date(2020, 1, 2))) == {
        "name": "ann",
        "since": "2020-01-02",
    }


def test_bool_stays_bool_and_nan_stays_nan() -> None:
    assert canonical(True) is True
    assert math.isnan(canonical(float("nan")))


@pytest.mark.parametrize("value", [NoData(), object(), (x for x in ()), lambda: 1])
def test_values_whose_repr_holds_an_address_are_unrepresentable(value: Any) -> None:
    out = canonical(value)
    assert "$unrepresentable" in out
    assert not has_faithful_form(out)
    assert "0x" not in str(out)


def test_cycles_and_depth_are_bounded() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert canonical(loop) == [{"$unrepresentable": "cycle"}]
    deep: list[Any] = []
    cur = deep
    for _ in range(200):
        cur.append([])
        cur = cur[0]
    assert not has_faithful_form(canonical(deep))


def test_transport_keeps_dates_bytes_sets_tuple_keys_and_nan() -> None:
    msg = {
        "d": dt.date(2024, 1, 2),
        "t": dt.datetime(2024, 1, 2, 3, 4, 5),
        "h": dt.time(7, 8),
        "b": b"\x00bin",
        "s": {1, 2},
        "m": {(1, 2): "pair", 3: "int"},
        "n": float("nan"),
        "tuple": (1, 2),
    }
    line = dumps(msg)
    assert "\n" not in line
    back = loads(line)
    assert back["d"] == dt.date(2024, 1, 2)
    assert back["t"] == dt.datetime(2024, 1, 2, 3, 4, 5)
    assert back["h"] == dt.time(7, 8)
    assert back["b"] == b"\x00bin"
    assert back["s"] == {1, 2}
    assert back["m"] == {(1, 2): "pair", 3: "int"}
    assert math.isnan(back["n"])
    assert (
        back["tuple"] == (1, 2) and type(back["tuple"]) is tuple
    )  # the explorer's sandbox needs it (#10)


@pytest.mark.parametrize(
    "value",
    [
        1,
        "\u00e9 \"q\"\n",
        [1, {"a": None, "b": [True, 2.5]}],
        {"x": float("nan"), "y": float("-inf"), "z": -0.0},
        {1: 2, "\u0000t": "bytes"},
        {"case": "c1", "outcome": "returned", "value": 10**30, "duration_ms": 0.01},
        (1, b"xy", frozenset({3})),
        object(),  # written as its str(), as the transport always did
    ],
)
def test_the_one_shot_encoder_writes_what_json_would(value: Any) -> None:
    """dumps keeps one C encoder for the process instead of json's per call (#20): the very
    same text, whatever the value."""
    import json

    from codemode.worker import canonical

    slow = json.JSONEncoder(separators=(",", ":"), default=str).encode(canonical._encode(value))
    assert canonical._C_ENCODE is not None  # CPython: the C encoder is there to share
    assert dumps(value) == slow


class Account:
    pass


NS = {"Account": Account, "Point": Point}


@pytest.mark.parametrize(
    ("value", "expr", "strict"),
    [
        (1, "int", False),
        (None, "int | None", False),
        (None, "Optional[int]", False),
        ("x", "Union[int, str]", False),
        ([1, 2], "list[int]", False),
        ([1, 2], "List[int]", False),
        ({"a": 1}, "dict[str, int]", False),
        ((1, "a"), "tuple[int, str]", False),
        ((1, 2, 3), "tuple[int, ...]", False),
        ({1.5}, "set[float]", False),
        ("a", "Literal['a', 'b']", False),
        (Account(), "Account", False),  # a user class from the target module
        ([Point(1, 2)], "list[Point]", False),
        (dt.date(2024, 1, 1), "date", False),
        (decimal.Decimal(1), "Decimal", False),
        (collections.Counter(), "dict", False),
        (collections.Counter(), "collections.Counter", True),
        (3, "Any", False),
        (True, "bool", True),
    ],
)
def test_type_expressions_that_hold(value: Any, expr: str, strict: bool) -> None:
    assert check_type(value, expr, strict, NS) is None


@pytest.mark.parametrize(
    ("value", "expr", "strict", "reason"),
    [
        (1, "float", False, "expected type float, got int"),  # strict where vowel is loose
        (True, "int", True, "expected type int (strict), got bool"),
        ([1, "a"], "list[int]", False, "expected type list[int], got list"),
        ({"a": "1"}, "dict[str, int]", False, "expected type dict[str, int], got dict"),
        ((1, 2), "tuple[int]", False, "expected type tuple[int], got tuple"),
        (collections.Counter(), "dict", True, "expected type dict (strict), got Counter"),
        ("c", "Literal['a', 'b']", False, "expected type Literal['a', 'b'], got str"),
    ],
)
def test_type_expressions_that_fail(value: Any, expr: str, strict: bool, reason: str) -> None:
    assert check_type(value, expr, strict, NS) == reason


@pytest.mark.parametrize(
    "expr",
    ["NoSuchClass", "list[int", "__import__('os').system('true')", "os.path", "1 + 1"],
)
def test_bad_type_expressions_are_reported_never_evaluated(expr: str) -> None:
    reason = check_type(1, expr, False, NS)
    assert reason is not None
    assert reason.startswith(f"cannot check type {expr!r}")
