"""Verdicts that cannot be forged or bent (#21): floats compare with a relative tolerance only,
ints exactly, and a value the worker cannot convert is an error of its case, never `raised`."""

from __future__ import annotations

from pathlib import Path

from security_kit import assert_contained, check, make_project

NUMBERS = """
def planck():
    return 0.0

def tiny():
    return -5e-13

def big():
    return 1e17

def third():
    return 0.1 + 0.2
"""
NUMBER_SPEC = """
hazards.numbers.planck:
  dataset:
    - case: {id: h, expected: 6.62607015e-34}
hazards.numbers.tiny:
  dataset:
    - case: {id: sign, expected: 5e-13}
hazards.numbers.big:
  dataset:
    - case: {id: int, expected: 100000000000000001}
    - case: {id: exact, expected: 100000000000000000}
hazards.numbers.third:
  dataset:
    - case: {id: rel, expected: 0.3}
"""


def _case_status(run, fid: str, cid: str) -> str:  # type: ignore[no-untyped-def]
    return next(c["status"] for c in run.function(fid)["cases"] if c["id"] == cid)


def test_no_hidden_absolute_tolerance_and_ints_compare_exactly(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"n.yml": NUMBER_SPEC}, modules={"numbers": NUMBERS})
    run = check(root)
    assert_contained(run)
    assert _case_status(run, "hazards.numbers.planck", "h") == "drifted"
    assert _case_status(run, "hazards.numbers.tiny", "sign") == "drifted"
    assert _case_status(run, "hazards.numbers.big", "int") == "drifted"
    assert _case_status(run, "hazards.numbers.big", "exact") == "passed"
    assert _case_status(run, "hazards.numbers.third", "rel") == "passed"


def test_an_explicit_absolute_tolerance_is_honoured(tmp_path: Path) -> None:
    config = "float_abs_tolerance = 1e-12\n"
    root = make_project(
        tmp_path, specs={"n.yml": NUMBER_SPEC}, modules={"numbers": NUMBERS}, config=config
    )
    run = check(root)
    assert_contained(run)
    assert _case_status(run, "hazards.numbers.planck", "h") == "passed"
    assert _case_status(run, "hazards.numbers.big", "int") == "drifted"
