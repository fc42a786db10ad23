"""Hostile spec files: each is a problem for its own file, every other function is verified,
the exit code follows the verdicts (never 3), and time and memory stay bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
from security_kit import GOOD, assert_contained, check, make_project, one_problem

BOMB = """
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
hazards.victim.add:
  dataset:
    - case: {id: boom, inputs: [1, 1], expected: *h}
"""


VICTIM = "def add(a, b):\n    return a + b\n"


def _bad(tmp_path: Path, text: str) -> Path:
    """specs/bad.yml holds ``text`` (about hazards.victim.add); specs/good.yml is untouched."""
    return make_project(tmp_path, specs={"bad.yml": text}, modules={"victim": VICTIM})


def test_an_alias_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    run = check(_bad(tmp_path, BOMB))
    assert_contained(run, ceiling_mb=300, ceiling_s=30)
    assert "alias" in one_problem(run)


@pytest.mark.parametrize("depth", [3_000, 50_000])
def test_deep_flow_nesting_is_refused_before_the_parser(tmp_path: Path, depth: int) -> None:
    text = "hazards.victim.add:\n  dataset:\n    - case: {id: deep, inputs: [1, 1], expected: "
    run = check(_bad(tmp_path, text + "[" * depth + "]" * depth + "}\n"))
    assert_contained(run)
    assert "nest" in one_problem(run)


def test_a_huge_spec_file_is_refused(tmp_path: Path) -> None:
    filler = "# " + "x" * 1000 + "\n"
    run = check(
        _bad(tmp_path, GOOD.replace("hazards.good.add", "hazards.victim.add") + filler * 12_000)
    )
    assert_contained(run)
    assert "MB" in one_problem(run)


def test_a_5000_digit_integer_is_a_problem_of_its_case(tmp_path: Path) -> None:
    text = f"hazards.victim.add:\n  dataset:\n    - case: {{id: big, inputs: [1, 1], expected: {'9' * 5000}}}\n"
    run = check(_bad(tmp_path, text))
    assert_contained(run)
    assert "digit" in one_problem(run)


def test_an_assertion_of_20000_terms_is_a_problem_of_its_case(tmp_path: Path) -> None:
    expr = " + ".join(["1"] * 20_000) + " > 0"
    text = f"hazards.victim.add:\n  dataset:\n    - case: {{id: long, inputs: [1, 1], assertion: '{expr}'}}\n"
    run = check(_bad(tmp_path, text))
    assert_contained(run)
    assert "assertion" in one_problem(run)


def test_a_type_of_20000_unions_is_a_problem_of_its_case(tmp_path: Path) -> None:
    expr = " | ".join(["int"] * 20_000)
    text = f"hazards.victim.add:\n  dataset:\n    - case: {{id: wide, inputs: [1, 1], type: '{expr}'}}\n"
    run = check(_bad(tmp_path, text))
    assert_contained(run)
    assert "type" in one_problem(run)


@pytest.mark.slow  # a 1 s regex time limit, twice
@pytest.mark.parametrize("key", ["pattern", "match"])
def test_a_backtracking_regex_is_stopped(tmp_path: Path, key: str) -> None:
    module = "def shout(s):\n    raise ValueError(s)\n\ndef echo(s):\n    return s\n"
    if key == "pattern":
        case = "{id: slow, input: " + "a" * 40 + "!, pattern: '(a|aa)+$'}"
        fid = "hazards.evil.echo"
    else:
        case = "{id: slow, input: " + "a" * 40 + "!, raises: ValueError, match: '(a|aa)+$'}"
        fid = "hazards.evil.shout"
    text = f"{fid}:\n  dataset:\n    - case: {case}\n"
    root = make_project(tmp_path, specs={"bad.yml": text}, modules={"evil": module})
    run = check(root)
    assert_contained(run, ceiling_s=30)
    assert "ran past" in one_problem(run)


@pytest.mark.parametrize("device", ["/dev/zero", "fifo"])
def test_a_spec_that_is_a_device_or_a_fifo_is_refused_unread(tmp_path: Path, device: str) -> None:
    import os

    root = _bad(tmp_path, GOOD.replace("hazards.good.add", "hazards.victim.add"))
    bad = root / "specs" / "bad.yml"
    bad.unlink()
    if device == "fifo":
        os.mkfifo(bad)
    else:
        bad.symlink_to(device)
    run = check(root)
    assert_contained(run, ceiling_s=30)
    assert "regular file" in one_problem(run)
