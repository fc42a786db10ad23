"""The pool's calls mutated in the time the diff budget leaves (#32): a change that shows on
one input in eleven (a check digit that comes out 10) is flagged though no test call, no
variant of one and no splice reaches it, with a mutant of the test's call as the witness; and
the mutants are the same on every run, keep each argument's type, and never repeat the pool.
Real git (``check --base``), real workers."""

from __future__ import annotations

import ast
import datetime as dt
import random
import re
from pathlib import Path

import pytest
from diffkit import check, functions, git, project, witness_calls, write

from codemode.behaviour.engine import FunctionDiff
from codemode.explore.offline.havoc import INTERESTING_INTS, RETYPED, havoc, mutated
from codemode.explore.offline.input_pool import PoolCall
from codemode.explore.offline.retype import annotation, retyped
from codemode.explore.target import Param

OLD = """\
def check_digit(number: str) -> str:
    total = sum(int(d) * w for d, w in zip(number, range(2, 20)))
    return str(total % 11)
"""
# a remainder of 10 is now written 0 (it was "10", two characters)
NEW = OLD.replace(
    "    return str(total % 11)\n",
    "    rest = total % 11\n    return str(rest % 10)\n",
)
# 3228518 and its variants (3228519, 3229518) all have remainders under 10: only a number a
# digit or two away from them shows the change
TESTS = """\
from demo.digits import check_digit


def test_check_digit():
    assert check_digit("3228518") == "7"
"""


BITS = """\
class Mask:
    def __init__(self, text: str) -> None:
        self.value = int(text.strip(), 2)
        self.width = len(text.strip())

    def as_list(self) -> list[bool]:
        return [c == "1" for c in bin(self.value)[2:]]
"""
# the leading zeros the instance was built with are kept now
BITS_NEW = BITS.replace("bin(self.value)[2:]", 'format(self.value, f"0{self.width}b")')
BITS_TEST = """\
from demo.bits import Mask


def test_as_list():
    assert Mask("1011").as_list() == [True, False, True, True]
"""


# a renderer that now takes a number: the tests pass its text only (#32: one that raised
# TypeError on an int, ``render('{/x}', x=2)``, now gives '/2'); no annotation, and the
# type-directed values reach no ``**values``
RENDER = """\
def render(template, **values):
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template
"""
RENDER_NEW = RENDER.replace(
    "        template =", "        if isinstance(value, int):\n            value = str(value)\n        template ="
)
RENDER_TEST = """\
from demo.paths import render


def test_render():
    assert render("/{x}", x="42") == "/42"
"""

# an encoder that now refuses what JSON cannot hold: the tests pass finite floats only
ENCODE = """\
def encode(values):
    return ",".join(_number(x) for x in values)


def _number(x):
    return format(x, ".3g")
"""
ENCODE_NEW = ENCODE.replace(
    "    return format",
    "    if isinstance(x, float) and x - x != 0:  # an infinity or nan\n"
    '        raise ValueError("out of range float values are not JSON compliant")\n'
    "    return format",
)
ENCODE_TEST = """\
from demo.encoder import encode


def test_encode():
    assert encode([1.5, -2.25]) == "1.5,-2.25"
"""


def _remainder_10(call: str) -> bool:
    digits = call.removeprefix("check_digit('").removesuffix("')")
    return sum(int(d) * w for d, w in zip(digits, range(2, 20))) % 11 == 10


# (old files, new files, the function, what each witness call must be: a real witness of
# what the change is about)
MUTATED = {
    # a mutant of the test's argument: the remainder the change is about
    "argument": (
        {"src/demo/digits.py": OLD, "tests/test_digits.py": TESTS},
        {"src/demo/digits.py": NEW},
        "demo.digits.check_digit",
        _remainder_10,
    ),
    # a mutant of the instance's constructor argument: a zero in front
    "instance": (
        {"src/demo/bits.py": BITS, "tests/test_bits.py": BITS_TEST},
        {"src/demo/bits.py": BITS_NEW},
        "demo.bits.Mask.as_list",
        lambda call: call.startswith("Mask('0"),
    ),
    # a mutant of another type than the tests' (retype.py): an int where they pass digits
    "retyped": (
        {"src/demo/paths.py": RENDER, "tests/test_paths.py": RENDER_TEST},
        {"src/demo/paths.py": RENDER_NEW},
        "demo.paths.render",
        lambda call: re.fullmatch(r"render\('.*', x=-?\d+\)", call),
    ),
    # a mutant to one of the floats no finite example steps to: nan, an infinity
    "non_finite": (
        {"src/demo/encoder.py": ENCODE, "tests/test_encoder.py": ENCODE_TEST},
        {"src/demo/encoder.py": ENCODE_NEW},
        "demo.encoder.encode",
        lambda call: "nan" in call or "inf" in call,
    ),
}


@pytest.mark.parametrize("kind", MUTATED)
def test_a_mutant_shows_a_change_no_test_reaches(
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old, new, fid, real = MUTATED[kind]
    calls = witness_calls(tmp_path, old, new, fid, capsys, monkeypatch)
    assert calls and all(real(c) for c in calls), calls


def test_a_refactor_stays_no_difference_and_says_how_many_inputs_were_mutants(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/digits.py": OLD, "tests/test_digits.py": TESTS})
    write(repo, {"src/demo/digits.py": OLD.replace("total % 11", "total % (10 + 1)")})
    git(repo, "commit", "-qam", "a refactor")
    code, report = check(repo, "--base", "HEAD~1", capsys=capsys, monkeypatch=monkeypatch)
    fn = functions(report)["demo.digits.check_digit"]
    assert code == 0, report
    assert not fn.get("witnesses"), fn
    assert "budget" not in str(fn), fn  # the mutants are the leftover time's, not owed
    # the report's row says how many of the inputs were mutants: a miss reads by it
    got = re.fullmatch(r"(\d+) inputs \((\d+) of them mutants\)", fn["diff_inputs"])
    assert got and 0 < int(got[2]) < int(got[1]), fn
    # and so does the note of a row that is the diff's alone ("no difference on ...")
    seen = FunctionDiff("demo.f", ran=140, mutants=100).inputs()
    assert (seen, FunctionDiff("demo.f", ran=1).inputs()) == (
        "140 inputs (100 of them mutants)",
        "1 input",
    )


def _types(call: PoolCall) -> list[type]:
    return [type(a) for a in (*call.args, *call.kwargs.values())]


def test_mutants_are_new_the_same_on_every_run_and_most_keep_their_types() -> None:
    pool = [
        PoolCall(("3228518",), {}, "tests", "a"),
        PoolCall((3, 7), {"names": ["x", "y"], "strict": True}, "tests", "b"),
        PoolCall((), {"when": 1.5}, "tests", "c"),
    ]
    first = havoc("demo.f", pool, 60)
    assert first == havoc("demo.f", pool, 60)  # seeded by the function's id
    assert first != havoc("demo.g", pool, 60)
    keys = {c.key() for c in pool}
    assert len({c.key() for c in first}) == len(first) == 60
    assert not keys & {c.key() for c in first}
    kept = 0
    for call in first:
        seed = next(p for p in pool if p.label == call.label.split("_havoc")[0])
        assert call.source == "havoc"
        assert list(call.kwargs) == list(seed.kwargs) and len(call.args) == len(seed.args)
        kept += _types(call) == _types(seed)
        # a mutant with an argument of another type says so (RETYPED): the diff reads it
        assert call.label.endswith(RETYPED) == (_types(call) != _types(seed)), call
    # one edit in RETYPE (1.7 a mutant) gives an argument another type: the rest keep theirs
    assert 40 <= kept < 60, kept


def test_an_annotation_bounds_the_types_an_argument_is_given() -> None:
    pool = [PoolCall(("42",), {"flag": True}, "tests", "a")]
    open_ = havoc("demo.f", pool, 100)  # no annotation: text, its number, its bytes, None
    assert {int, bytes, type(None)} <= {type(c.args[0]) for c in open_}
    assert type(None) in {type(c.kwargs["flag"]) for c in open_}
    params = (Param("value", "positional", "str"), Param("flag", "keyword_only", "bool"))
    strict = havoc("demo.f", pool, 100, params)
    assert {type(c.args[0]) for c in strict} == {str}, strict
    assert {type(c.kwargs["flag"]) for c in strict} == {bool}, strict
    either = (Param("value", "positional", "Optional[Union[str, int]]"), params[1])
    assert {type(c.args[0]) for c in havoc("demo.f", pool, 100, either)} == {
        str,
        int,
        type(None),
    }
    assert (annotation(params, 0), annotation(params, "flag"), annotation(params, 5)) == (
        "str",
        "bool",
        None,
    )


def test_a_literal_inside_the_tests_expressions_is_edited() -> None:
    built = {"setup": "from demo import parse", "args": ["parse('3228518', strict=True)"]}
    pool = [PoolCall((), {}, "tests", "a", exprs=built)]
    mutants = havoc("demo.f", pool, 20)
    assert len(mutants) == 20
    texts = 0
    for call in mutants:
        assert call.exprs is not None and call.exprs["setup"] == built["setup"]
        expr = ast.parse(call.exprs["args"][0], mode="eval").body
        assert isinstance(expr, ast.Call) and ast.unparse(expr.func) == "parse", call.exprs
        assert isinstance(expr.args[0], ast.Constant), call.exprs
        texts += isinstance(expr.args[0].value, str)
    assert texts >= 15  # and a few of another type (retype.py): parse(3228518)
    assert built["args"] == ["parse('3228518', strict=True)"]  # the seed is left as it was


def test_a_value_of_no_known_type_is_left_as_it_is() -> None:
    thing = object()
    for seed in range(50):
        rng = random.Random(seed)
        assert mutated(thing, rng) is thing
        mutated(float("inf"), rng)  # round() of an infinity raises: not called on one
    assert havoc("demo.f", [PoolCall((), {}, "tests", "a")], 10) == []
    # every byte's case swapped or cloned, none out of the bytes' range (w3lib's b"\xff");
    # given another type, no UTF-8 text: None
    high = bytes(range(128, 256))
    mutants = havoc("demo.f", [PoolCall((high,), {}, "tests", "a")], 200)
    assert len(mutants) == 200 and all(type(c.args[0]) in (bytes, type(None)) for c in mutants)


# each value's retypes (retype.py): the nearest value of another type, or None
RETYPES = [
    ("42", {42, b"42", None}),
    (" -7 ", {-7, b" -7 ", None}),
    ("2.5", {2.5, b"2.5", None}),
    ("abc", {3, b"abc", None}),  # other text: its length
    ("\u00e9", {1, "\u00e9".encode(), None}),
    (b"ok", {"ok", None}),
    (b"\xff", {None}),  # no UTF-8 text
    (2, {"2", 2.0, None}),
    (2.0, {2, None}),  # exact: the int
    (2.5, {"2.5", None}),
    (float("inf"), {"inf", None}),
    (True, {None}),
    ([1, 2], {"(1, 2)", "[]", None}),
    ((1, 2), {"[1, 2]", "()", None}),
    ({"a": 1}, {"{}", "[]", None}),
    ({}, {"[]", None}),
    (dt.date(2024, 2, 29), {"2024-02-29", None}),
    (None, {None}),
]


@pytest.mark.parametrize(("value", "expected"), RETYPES, ids=[repr(v) for v, _ in RETYPES])
def test_a_retyped_value_is_the_nearest_of_another_type(value: object, expected: set) -> None:
    rngs = [random.Random(seed) for seed in range(40)]
    got = {_hashable(retyped(value, rng)) for rng in rngs}
    assert got == expected
    assert {_hashable(retyped(value, random.Random(7))) for _ in range(3)} <= expected


def _hashable(value: object) -> object:
    # containers by their repr ([] and () apart); the rest as they are
    return repr(value) if isinstance(value, (list, tuple, dict)) else value


def test_numbers_get_afls_interesting_values_and_floats_nan_and_the_infinities() -> None:
    ints = {c.args[0] for c in havoc("demo.f", [PoolCall((7,), {}, "tests", "a")], 100)}
    assert len(ints & set(INTERESTING_INTS)) >= 3, sorted(i for i in ints if isinstance(i, int))
    floats = [c.args[0] for c in havoc("demo.f", [PoolCall((1.5,), {}, "tests", "a")], 100)]
    shown = {repr(x) for x in floats if isinstance(x, float)}
    assert {"nan", "inf", "-inf", "-0.0"} <= shown, shown
    assert havoc("demo.f", [PoolCall((1.5,), {}, "tests", "a")], 100) == havoc(
        "demo.f", [PoolCall((1.5,), {}, "tests", "a")], 100
    )
