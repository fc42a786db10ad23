"""Arguments of another type than the usual one (#32): where a parameter's annotation or
another of the tests' calls shows it takes one, each example is also tried with it (None, an
empty list for a mapping, the text as bytes), read from a real project's files."""

from __future__ import annotations

from pathlib import Path

from projectkit import project

from codemode.config import load_config
from codemode.explore.offline.explorer import plan
from codemode.explore.target import load_target

SOURCE = """
from collections.abc import Mapping, Sequence


def render(names: Mapping[str, str] | Sequence[str], sep=", "):
    return sep.join(names)


def digest(data, upper=False):
    return data.upper() if upper else data
"""

TESTS = """
from pkg.names import digest, render


def test_render():
    assert render({"a": "x"}) == "a"


def test_digest():
    assert digest("abc") == "abc"
    assert digest(b"abc", upper=None) == b"abc"
    assert digest("x", upper=True) == "X"
"""


def test_an_argument_of_another_type_is_tried_where_annotation_or_tests_show_it(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, {"src/pkg/names.py": SOURCE, "tests/test_names.py": TESTS})
    config = load_config(root)
    render = plan(load_target(config, "pkg.names.render"), root=root).candidates
    # the annotation says a sequence: the mapping of the test becomes an empty list
    assert ([], {}, "variants") in [(c.args[0], c.kwargs, c.source) for c in render if c.args]
    digest = plan(load_target(config, "pkg.names.digest"), root=root).candidates
    calls = {(c.args, tuple(c.kwargs.items())) for c in digest if c.source == "variants"}
    # the tests pass text and bytes, and None for `upper`: each example is tried with the
    # other text type, and True for `upper` also with None
    assert ((b"abc",), ()) in calls and (("abc",), (("upper", None),)) in calls
    assert (("x",), (("upper", None),)) in calls
