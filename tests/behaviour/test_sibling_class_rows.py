"""A method whose class the tests never build gets the test rows of a sibling class's method
of the same name, on its own class (#32), through the CLI with real git and real workers on
both sides: ``Exact`` and ``Group`` both have ``matches`` and share ``_norm``, which the
change makes fold case fully (``'straße'`` matches ``'strasse'``); only ``Exact`` is tested,
and ``Group.matches`` changes on the row the tests give ``Exact``. Fails on the code before
it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

OLD = """\
def _norm(text):
    return text.strip().lower()


class Exact:
    def __init__(self, spec):
        self.spec = spec

    def matches(self, value):
        return _norm(value) == _norm(self.spec)


class Group:
    def __init__(self, specs):
        self.specs = [s for s in specs.split(",") if s]

    def matches(self, value):
        return any(_norm(value) == _norm(s) for s in self.specs)
"""
TEST = """\
import pytest

from demo.spec import Exact


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [("a", "A", True), ("b", "c", False), ("strasse", "stra\\u00dfe", False)],
)
def test_exact(spec, value, expected):
    assert Exact(spec).matches(value) is expected
"""


def test_a_sibling_class_method_of_the_same_name_lends_its_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/spec.py": OLD, "tests/test_spec.py": TEST})
    write(repo, {"src/demo/spec.py": OLD.replace(".lower()", ".casefold()")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.spec.Group.matches")
    assert f is not None and f["status"] == "changed" and rc == 1, f
    calls = [w["call"] for w in f["witnesses"]]
    assert any("strasse" in c and "straße" in c for c in calls), calls
