"""A method reaches a change through the state its instance was built with (#32), through
``check --base`` with real git and real workers on both sides.

A base class's public methods never changed, but its constructor stores what a subclass's
override builds (``self.bound = self._compile(text)``) and they consult it later: they are
diffed on the subclass's instances, as the tests build them, and the report names the way. A
method whose class's constructor changed is diffed too. A sibling class that overrides the
changed method, and a method that reads nothing the construction set, stay out of scope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from diffkit import check, functions, git, project, write

from rulekit import sources

TEST_RULES = """\
from demo.plain import PlainRule
from demo.rules import SpanRule


def test_plain():
    assert PlainRule("<5").admits(3)
    assert PlainRule("<5").keep([1, 5, 7]) == [1]


def test_span():
    assert SpanRule("1..3").admits(2)
    assert SpanRule("1..3").width() == 3
"""
NEW_TEST = """

def test_at_most():
    assert PlainRule("<=5").admits(5)
"""

METER = """\
class Meter:
    def __init__(self, unit):
        self.unit = unit.lower()

    def show(self, value):
        return f"{value} {self.unit}"

    def scale(self, value, k):
        return value * k
"""
TEST_METER = """\
from demo.meter import Meter


def test_meter():
    assert Meter("KM").show(2) == "2 km"
    assert Meter("KM").scale(2, 3) == 6
"""


def _committed(tmp: Path, old: dict[str, str], new: dict[str, str]) -> Path:
    repo = project(tmp, old)
    write(repo, new)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "new")
    return repo


def _terminal(capsys: Any) -> str:
    from codemode.cli.main import main

    capsys.readouterr()
    main(["check", "--base", "HEAD~1"])
    return str(capsys.readouterr().out)


def test_a_base_method_consulting_what_a_subclass_override_built_is_diffed_on_its_instances(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old = {**sources("demo"), "tests/test_rules.py": TEST_RULES}
    new = {**sources("demo", at_most=True), "tests/test_rules.py": TEST_RULES + NEW_TEST}
    repo = _committed(tmp_path, old, new)
    rc, report = check(repo, "--base", "HEAD~1", capsys=capsys, monkeypatch=monkeypatch)
    found = functions(report)
    f = found["demo.rules.Rule.admits"]  # its own code, its class's, did not change
    assert f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["PlainRule('<=5').admits(5)"]["old"] == {"returned": False}, list(calls)
    assert calls["PlainRule('<=5').admits(5)"]["new"] == {"returned": True}
    assert f["via"] == [
        "demo.plain.PlainRule._compile (building PlainRule)",
        "demo.rules.Rule.admits",
    ]
    assert "demo.rules.Rule.keep" in found  # it calls self.admits: one step further
    # the sibling overrides _compile: its instances are built as before
    assert "demo.rules.SpanRule.width" not in found and "demo.rules.SpanRule.admits" not in found
    out = _terminal(capsys)
    assert "demo.rules.Rule.admits: changed: " in out, out
    assert "(impacted: via plain.PlainRule._compile (building PlainRule))" in out, out


def test_a_method_whose_class_constructor_changed_is_diffed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    new_test = TEST_METER + '    assert Meter(" cm").show(3) == "3 cm"\n'
    repo = _committed(
        tmp_path,
        {"src/demo/meter.py": METER, "tests/test_meter.py": TEST_METER},
        {
            "src/demo/meter.py": METER.replace("unit.lower()", "unit.strip().lower()"),
            "tests/test_meter.py": new_test,
        },
    )
    rc, report = check(repo, "--base", "HEAD~1", capsys=capsys, monkeypatch=monkeypatch)
    found = functions(report)
    f = found["demo.meter.Meter.show"]
    assert f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["Meter(' cm').show(3)"]["old"] == {"returned": "3  cm"}, list(calls)
    assert calls["Meter(' cm').show(3)"]["new"] == {"returned": "3 cm"}
    assert f["via"] == ["demo.meter.Meter.__init__", "demo.meter.Meter.show"]
    assert "demo.meter.Meter.scale" not in found  # it reads nothing the constructor set
    out = _terminal(capsys)
    assert "(impacted: via __init__)" in out, out  # names short within the class
