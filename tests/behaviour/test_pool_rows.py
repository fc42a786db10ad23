"""The behaviour diff's pool carries what the tests hold (#32), with real git and real
workers on both sides: a parametrize row whose call passes a module constant of its test
file; a helper whose 300 rows change only in their last kind; a method the tests reach only
through a public wrapper of its module."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from diffkit import check, functions, git, project, write


def _diffed(
    tmp_path: Path, old: dict[str, str], new: dict[str, str], function_id: str, **fixtures: Any
) -> tuple[int, dict[str, Any]]:
    """``check --staged`` of the change from ``old`` to ``new``: (exit code, the function's
    entry), the function asserted ``changed``."""
    repo = project(tmp_path, old)
    write(repo, new)
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", **fixtures)
    f = functions(report).get(function_id)
    assert f is not None and f["status"] == "changed", f
    return rc, f


# The change shows only for lang "en" (its letters' codes add up to 211), which no value of
# the function's own hints at: only the test's constant does.
SHOUT = """\
def shout(text, lang):
    if sum(map(ord, lang)) == 211:
        return text.upper()
    return text
"""

CONSTANT_TEST = """\
import pytest

from demo.shout import shout

LANG = "en"


@pytest.mark.parametrize("text, expected", [("one", "ONE"), ("two", "TWO")])
def test_shout(text, expected):
    assert shout(text, LANG) == expected
"""


def test_a_parametrize_row_using_a_module_constant_gives_the_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old = {"src/demo/shout.py": SHOUT, "tests/test_shout.py": CONSTANT_TEST}
    new = {"src/demo/shout.py": SHOUT.replace("text.upper()", 'text.upper() + "!"')}
    rc, f = _diffed(tmp_path, old, new, "demo.shout.shout", capsys=capsys, monkeypatch=monkeypatch)
    assert "shout('one', 'en')" in {w["call"] for w in f["witnesses"]}
    assert rc == 1


CALC = """\
def calc(expr):
    left, op, right = expr.split()
    a, b = int(left), int(right)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "<":
        return a < b
    raise ValueError(op)
"""


def _helper_test() -> str:
    """A unittest helper called 300 times: 250 rows of arithmetic, then 50 comparisons."""
    rows = [f"        self.t('{i} {'+-*'[i % 3]} {i + 1}', {i})" for i in range(250)]
    rows += [f"        self.t('{i * 7} < {i * 7}', False)" for i in range(50)]
    head = "import unittest\n\nfrom demo.calc import calc\n\n\nclass CalcTest(unittest.TestCase):\n"
    helper = "    def t(self, expr, expected):\n        calc(expr)\n\n"
    return head + helper + "    def test_all(self):\n" + "\n".join(rows) + "\n"


def test_a_helpers_last_kind_of_300_rows_gives_the_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The change: `<` now holds for equal numbers. Only the helper's last 50 rows compare.
    old = {"src/demo/calc.py": CALC, "tests/test_calc.py": _helper_test()}
    new = {"src/demo/calc.py": CALC.replace("return a < b", "return a <= b")}
    rc, f = _diffed(tmp_path, old, new, "demo.calc.calc", capsys=capsys, monkeypatch=monkeypatch)
    assert any(" < " in w["call"] for w in f["witnesses"]), f["witnesses"]
    assert rc == 1


CONVERTER = """\
class Converter:
    def __init__(self, upper=False):
        self.upper = upper

    def convert(self, text):
        out = text.replace("-", " ")
        return out.upper() if self.upper else out


def convert(text, **options):
    return Converter(**options).convert(text)
"""

WRAPPER_TEST = """\
from demo.conv import convert


def test_convert():
    assert convert("ab-cd") == "ab cd"
    assert convert("ab-cd", upper=True) == "AB CD"
"""


def test_a_method_reached_only_through_a_wrapper_gives_the_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The change is in the method, on an instance built with upper=True: a default
    # Converter() never shows it, and no test calls the method itself.
    old = {"src/demo/conv.py": CONVERTER, "tests/test_conv.py": WRAPPER_TEST}
    new = {"src/demo/conv.py": CONVERTER.replace("out.upper() if", "out.title() if")}
    method = "demo.conv.Converter.convert"
    rc, f = _diffed(tmp_path, old, new, method, capsys=capsys, monkeypatch=monkeypatch)
    assert any("ab-cd" in w["call"] for w in f["witnesses"]), f["witnesses"]
    assert rc == 1
