"""specs.compose builds the very node tree PyYAML's C composer builds, and checks the budgets
on the way (#20: one pass instead of three)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from codemode.specs.compose import OverBudget, compose

ROOT = Path(__file__).resolve().parents[2]
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MIXED = """\
a: &x {b: [1, 2, !!str 3], c: 0x1F, d: 1_000, e: 1:30, f: ~, g: yes, h: 2001-12-14}
c: *x
d: &y 5
e: *y
'q': |
  block
  text
? [complex, key]
: v
m: {<<: *x, z: 1.5e3}
s: !!set {p, q}
- not: here
"""


def _shape(n: Any) -> Any:
    marks = (n.start_mark.line, n.start_mark.column, n.end_mark.line, n.end_mark.column)
    if isinstance(n, yaml.ScalarNode):
        return ("scalar", n.tag, n.value, n.style, marks)
    if isinstance(n, yaml.SequenceNode):
        return ("seq", n.tag, n.flow_style, marks, [_shape(c) for c in n.value])
    return ("map", n.tag, n.flow_style, marks, [(_shape(k), _shape(v)) for k, v in n.value])


def _pyyaml(text: str) -> Any:
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _ours(text: str) -> Any:
    loader = _Loader(text)
    try:
        return compose(loader)
    finally:
        loader.dispose()


# The same text plain, quoted and tagged, again and again: a plain scalar's tag is resolved once
# per distinct text (#20), never reused for a quoted or tagged twin.
REPEATS = (
    "".join(
        f"- [{v}, '{v}', \"{v}\", !!str {v}, {v}, ! {v}]\n" for v in ("1", "yes", "~", "1.5", "x")
    )
    * 2
)

TEXTS = [
    MIXED.replace("- not: here\n", ""),
    "",
    "# a comment\n",
    "- 1\n- - 2\n  - 3\n",
    REPEATS,
] + [p.read_text() for p in sorted((ROOT / "specs").rglob("*.yml"))]


@pytest.mark.parametrize("text", TEXTS)
def test_the_tree_is_pyyamls(text: str) -> None:
    ours = _ours(text)
    theirs = _pyyaml(text)
    assert (ours is None) == (theirs is None)
    if theirs is not None:
        assert _shape(ours) == _shape(theirs)


def test_yaml_errors_are_pyyamls() -> None:
    for text in (MIXED, "a: *nowhere\n", "a: &x 1\nb: &x 2\n", "a: 1\n---\nb: 2\n"):
        with pytest.raises(yaml.YAMLError):
            _pyyaml(text)
        with pytest.raises(yaml.YAMLError):
            _ours(text)


@pytest.mark.parametrize(
    "text, words",
    [
        ("a: &a [1, *a]\n", "contains itself"),
        ("a: " + "[" * 101 + "]" * 101 + "\n", "nest more than 100"),
        ("a: &a " + "[" * 60 + "1" + "]" * 60 + "\nb: " + "[" * 45 + "*a" + "]" * 45, "nest"),
        ("a: " + "1" * 4001 + "\n", "4,001 digits"),
        ("a: &a [" + ",".join(["1"] * 1000) + "]\nb: [" + ",".join(["*a"] * 600) + "]\n", "alias"),
    ],
)
def test_a_budget_stops_the_composition(text: str, words: str) -> None:
    with pytest.raises(OverBudget) as exc:
        _ours(text)
    assert words in exc.value.problem.message
