"""The pool's calls mutated in the time the diff budget leaves (#32): a change that shows on
one input in eleven (a check digit that comes out 10) is flagged though no test call, no
variant of one and no splice reaches it, with a mutant of the test's call as the witness; and
the mutants are the same on every run, keep each argument's type, and never repeat the pool.
Real git (``check --base``), real workers."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from diffkit import check, functions, git, project, witness_calls, write

from codemode.explore.offline.havoc import havoc, mutated
from codemode.explore.offline.input_pool import PoolCall

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


def test_a_refactor_stays_no_difference_and_the_budget_is_not_said_to_cut_it(
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


def test_mutants_are_new_typed_and_the_same_on_every_run() -> None:
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
    for call in first:
        seed = next(p for p in pool if p.label == call.label.removesuffix("_havoc"))
        assert call.source == "havoc"
        assert [type(a) for a in call.args] == [type(a) for a in seed.args]
        assert {k: type(v) for k, v in call.kwargs.items()} == {
            k: type(v) for k, v in seed.kwargs.items()
        }


def test_a_literal_inside_the_tests_expressions_is_edited() -> None:
    built = {"setup": "from demo import parse", "args": ["parse('3228518', strict=True)"]}
    pool = [PoolCall((), {}, "tests", "a", exprs=built)]
    mutants = havoc("demo.f", pool, 20)
    assert len(mutants) == 20
    for call in mutants:
        assert call.exprs is not None and call.exprs["setup"] == built["setup"]
        expr = ast.parse(call.exprs["args"][0], mode="eval").body
        assert isinstance(expr, ast.Call) and ast.unparse(expr.func) == "parse", call.exprs
        assert isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str)
    assert built["args"] == ["parse('3228518', strict=True)"]  # the seed is left as it was


def test_a_value_of_no_known_type_is_left_as_it_is() -> None:
    rng = random.Random(0)
    thing = object()
    assert mutated(thing, rng) is thing
    assert mutated(float("inf"), rng) == float("-inf")  # round() of an infinity raises
    assert havoc("demo.f", [PoolCall((), {}, "tests", "a")], 10) == []
    # every byte's case swapped or cloned, none out of the bytes' range (w3lib's b"\xff")
    high = bytes(range(128, 256))
    mutants = havoc("demo.f", [PoolCall((high,), {}, "tests", "a")], 200)
    assert len(mutants) == 200 and all(type(c.args[0]) is bytes for c in mutants)
