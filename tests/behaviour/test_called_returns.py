"""A function that returns a callable is diffed on what that callable does (#32): the worker
marks a returned callable, and the diff calls it on what the tests hand it (``keygen()(x)``,
``sorted(xs, key=keygen())``) and on the values the package's tests write, then compares
those outcomes; the witness shows the whole call. Real git (``check --base``), real workers
on both sides."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import witness_calls

KEYS = """\
import math


def keygen(reverse=False):
    def key(value):
        if isinstance(value, float) and math.isnan(value):
            return (0, 0.0)
        return (1, value)

    return key


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, value):
        return value * self.factor


def make_scaler(factor):
    return Scaler(factor)
"""
TESTS = """\
from demo.keys import keygen, make_scaler


def test_sorting():
    assert sorted([3.0, 1.5, 2.0], key=keygen()) == [1.5, 2.0, 3.0]


def test_scaler():
    scale = make_scaler(2)
    assert scale(4) == 8


def test_values():
    assert [1.0, float("nan"), -2.5] is not None
"""


def test_a_key_a_factory_returns_is_called_and_the_witness_calls_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # not-a-number now sorts last: only the key's value for nan changed
    new = KEYS.replace("return (0, 0.0)", "return (2, 0.0)")
    calls = witness_calls(
        tmp_path,
        {"src/demo/keys.py": KEYS, "tests/test_keys.py": TESTS},
        {"src/demo/keys.py": new},
        "demo.keys.keygen",
        capsys,
        monkeypatch,
    )
    assert "keygen()(float('nan'))" in calls, calls
    assert any(c.startswith("sorted([") and c.endswith("key=keygen())") for c in calls), calls


def test_an_instance_with_call_a_function_returns_is_called(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    new = KEYS.replace("return value * self.factor", "return value * self.factor + 1")
    calls = witness_calls(
        tmp_path,
        {"src/demo/keys.py": KEYS, "tests/test_keys.py": TESTS},
        {"src/demo/keys.py": new},
        "demo.keys.make_scaler",
        capsys,
        monkeypatch,
    )
    assert "make_scaler(2)(4)" in calls, calls
