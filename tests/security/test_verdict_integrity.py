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


CONVERT = """
class Box:
    def __init__(self, data):
        self.data = data


class Stubborn(list):
    def __iter__(self):
        raise TypeError("no iterating me")


def mixed_keys():
    return {Box({1: "a", "b": 2}), Box({"c": 3, 4: "d"})}


def stubborn():
    return Stubborn([1, 2])
"""
CONVERT_SPEC = """
hazards.convert.mixed_keys:
  dataset:
    - case: {id: forged, raises: TypeError}
hazards.convert.stubborn:
  dataset:
    - case: {id: forged, raises: TypeError}
"""


def test_a_value_that_cannot_be_converted_is_an_error_never_raised(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"c.yml": CONVERT_SPEC}, modules={"convert": CONVERT})
    run = check(root)
    assert_contained(run)
    for fid in ("hazards.convert.mixed_keys", "hazards.convert.stubborn"):
        [case] = run.function(fid)["cases"]
        assert case["status"] == "error", (fid, case)
        assert "the returned value could not be converted" in case["message"], case


COLLIDE = """
def collide():
    return {(1, 2): "tuple", "[1, 2]": "text"}
"""
COLLIDE_SPEC = """
hazards.collide.collide:
  dataset:
    - case: {id: lost, expected: {"[1, 2]": text}}
"""


def test_dict_keys_that_collide_once_canonical_are_an_error(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"k.yml": COLLIDE_SPEC}, modules={"collide": COLLIDE})
    run = check(root)
    assert_contained(run)
    [case] = run.function("hazards.collide.collide")["cases"]
    assert case["status"] == "error", case
    assert "one canonical form" in case["message"], case


NOISY = """
import os, stat


def noisy():
    block = b"x" * (1 << 20)
    for _ in range(64):
        os.write(2, block)
    st = os.fstat(2)
    # What the parent keeps of the worker's stderr may not grow with what the function wrote.
    return stat.S_ISREG(st.st_mode) and st.st_size > (8 << 20)


def last_words():
    os.write(2, b"x" * (8 << 20) + b"\\nLAST-WORDS of the worker\\n")
    os._exit(3)
"""
NOISY_SPEC = """
hazards.noisy.noisy:
  dataset:
    - case: {id: capped, expected: false}
hazards.noisy.last_words:
  dataset:
    - case: {id: died, expected: 1}
"""


def test_the_worker_stderr_is_capped_and_its_tail_kept(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"n.yml": NOISY_SPEC}, modules={"noisy": NOISY})
    run = check(root)
    assert_contained(run)
    [capped] = run.function("hazards.noisy.noisy")["cases"]
    assert capped["status"] == "passed", capped
    [died] = run.function("hazards.noisy.last_words")["cases"]
    assert died["status"] == "error" and "LAST-WORDS" in died["message"], died
