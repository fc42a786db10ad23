"""A method's instance as the test prepares it (#32), through the CLI with real git and real
workers on both sides: built, then changed by the statements before the call (a rule added,
an attribute set, in the test or its class's setUp); built by a function of the class or a
factory of the project; built with more than literals; an argument changed after it is
built; and regen's fixtures for both. The change shows only on such an input: on the class
built plainly, or with no instance at all, both versions agree or cannot run. Each fails on
the code before it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from diffkit import check, functions, git, project, write

PARSER = """\
class Parser:
    def __init__(self):
        self.rules = []
        self.sep = " "

    def add_rule(self, word):
        self.rules.append(word)

    def parse(self, text):
        return [w for w in text.split(self.sep) if w in self.rules]
"""
PARSER_NEW = PARSER.replace("[w for w", "[w.upper() for w")

VERSION = """\
class Version:
    def __init__(self, major, minor, patch):
        self.parts = [major, minor, patch]

    @classmethod
    def parse(cls, text):
        return cls(*[int(p) for p in text.split(".")])

    def bump(self):
        self.parts[2] += 1

    def text(self):
        return ".".join(map(str, self.parts))


def make_version(text):
    return Version.parse(text)
"""
VERSION_NEW = VERSION.replace(
    'return ".".join(map(str, self.parts))', 'return "v" + ".".join(map(str, self.parts))'
)

# (files before, files after, the function, a witness call)
PREPARED = {
    "a method called on it before": (
        {
            "src/demo/parser.py": PARSER,
            "tests/test_parser.py": """\
from demo.parser import Parser


def test_parse():
    p = Parser()
    p.add_rule("x")
    assert p.parse("x y") == ["x"]
""",
        },
        {"src/demo/parser.py": PARSER_NEW},
        "demo.parser.Parser.parse",
        "obj = Parser(); obj.add_rule('x'); obj.parse('x y')",
    ),
    "its test class's setUp prepares it": (
        {
            "src/demo/parser.py": PARSER,
            "tests/test_parser.py": """\
import unittest

from demo.parser import Parser


class TestParser(unittest.TestCase):
    def setUp(self):
        self.p = Parser()
        self.p.add_rule("x")

    def test_parse(self):
        self.assertEqual(self.p.parse("x y"), ["x"])
""",
        },
        {"src/demo/parser.py": PARSER_NEW},
        "demo.parser.Parser.parse",
        "obj = Parser(); obj.add_rule('x'); obj.parse('x y')",
    ),
    "an attribute set on it before": (
        {
            "src/demo/parser.py": PARSER.replace("self.rules = []", "self.rules = ['a', 'b']"),
            "tests/test_parser.py": """\
from demo.parser import Parser


def test_parse_commas():
    p = Parser()
    p.sep = ","
    assert p.parse("a,b") == ["a", "b"]
""",
        },
        {"src/demo/parser.py": PARSER_NEW.replace("self.rules = []", "self.rules = ['a', 'b']")},
        "demo.parser.Parser.parse",
        "obj = Parser(); obj.sep = ','; obj.parse('a,b')",
    ),
    "a function of the class builds it": (
        {
            "src/demo/version.py": VERSION,
            "tests/test_version.py": """\
from demo.version import Version


def test_bump():
    v = Version.parse("1.2.3")
    v.bump()
    assert v.text() == "1.2.4"
""",
        },
        {"src/demo/version.py": VERSION_NEW},
        "demo.version.Version.text",
        "obj = Version.parse('1.2.3'); obj.bump(); obj.text()",
    ),
    "a factory of the project builds it": (
        {
            "src/demo/version.py": VERSION,
            "tests/test_version.py": """\
from demo.version import make_version


def test_text():
    assert make_version("2.0.1").text() == "2.0.1"
""",
        },
        {"src/demo/version.py": VERSION_NEW},
        "demo.version.Version.text",
        "make_version('2.0.1').text()",
    ),
}


def _witnesses(
    tmp: Path, old: dict[str, str], new: dict[str, str], fid: str, capsys: Any, monkeypatch: Any
) -> dict[str, dict[str, Any]]:
    """``check --staged`` of the change from ``old`` to ``new``: the function's witnesses by
    their call, the function asserted ``changed`` with exit code 1."""
    repo = project(tmp, old)
    write(repo, new)
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get(fid)
    assert f is not None and f["status"] == "changed" and rc == 1, f
    return {w["call"]: w for w in f["witnesses"]}


@pytest.mark.parametrize("how", sorted(PREPARED))
def test_a_method_is_diffed_on_the_instance_as_the_test_prepares_it(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new, fid, call = PREPARED[how]
    calls = _witnesses(tmp_path, old, new, fid, capsys, monkeypatch)
    assert call in calls, list(calls)


LOADER = """\
DEFAULT_WORDS = ("x", "z")


def load_rules(text):
    return [w.strip() for w in text.split(",")]


class Parser:
    def __init__(self, rules):
        self.rules = list(rules)

    def add_rule(self, word):
        self.rules.append(word)

    def parse(self, text):
        return [w for w in text.split() if w in self.rules]
"""

# (the test, a witness call): the instance or an argument is built with what no literal
# holds (a constant of the project, a value another function returns), in more than one step
BUILT = {
    "an instance built with a project's constant, then prepared": (
        """\
from demo import parser
from demo.parser import Parser


def test_parse():
    p = Parser(parser.DEFAULT_WORDS)
    p.add_rule("y")
    assert p.parse("x y w") == ["x", "y"]
""",
        "demo.parser.Parser.parse",
        "p = Parser(parser.DEFAULT_WORDS); p.add_rule('y'); p.parse('x y w')",
    ),
    "an instance built with another function's value": (
        """\
from demo.parser import Parser, load_rules

RULES = "x, y"


def test_parse():
    p = Parser(load_rules(RULES))
    assert p.parse("x y w") == ["x", "y"]
""",
        "demo.parser.Parser.parse",
        "p = Parser(load_rules('x, y')); p.parse('x y w')",
    ),
}


@pytest.mark.parametrize("how", sorted(BUILT))
def test_an_instance_built_with_more_than_literals_is_built_as_the_test_builds_it(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    test, fid, call = BUILT[how]
    old = {"src/demo/parser.py": LOADER, "tests/test_parser.py": test}
    new = {"src/demo/parser.py": LOADER.replace("[w for w", "[w.upper() for w")}
    calls = _witnesses(tmp_path, old, new, fid, capsys, monkeypatch)
    assert call in calls, list(calls)


DOC = """\
class Node:
    def __init__(self, tag, text=""):
        self.tag, self.text = tag, text
        self.children = []


def parse(source):
    root = Node("root")
    for part in source.split(";"):
        tag, _, text = part.partition(":")
        root.children.append(Node(tag, text))
    return root


def render(node: Node) -> str:
    return "".join(f"<{c.tag}>{c.text}</{c.tag}>" for c in node.children)
"""
DOC_TEST = """\
from demo.doc import Node, parse, render


def test_render_more():
    doc = parse("h1:Title")
    doc.children.append(Node("p", "Body"))
    assert render(doc) == "<h1>Title</h1><p>Body</p>"
"""


def test_an_argument_the_test_changes_after_building_it_is_passed_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the paragraph the test appends shows the change: the document its first line
    builds alone renders the same on both versions."""
    old = {"src/demo/doc.py": DOC, "tests/test_doc.py": DOC_TEST}
    new = DOC.replace("for c in node.children)", 'for c in node.children if c.tag != "p")')
    calls = _witnesses(
        tmp_path, old, {"src/demo/doc.py": new}, "demo.doc.render", capsys, monkeypatch
    )
    call = "doc = parse('h1:Title'); doc.children.append(Node('p', 'Body')); render(doc)"
    assert calls[call]["new"] == {"returned": "<h1>Title</h1>"}, list(calls)


def test_regen_writes_a_methods_instance_as_the_test_builds_it_in_a_generated_fixture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A class that needs arguments: no case could run on ``Parser()``. The test's lines
    (its construction with a project's constant, then the rule it adds) become a
    ``codemode.build`` fixture the method runs on, with the test's own input as a case;
    ``check`` verifies the spec and shows a later change."""
    from codemode.cli.main import main

    test = BUILT["an instance built with a project's constant, then prepared"][0]
    repo = project(tmp_path, {"src/demo/parser.py": LOADER, "tests/test_parser.py": test})
    monkeypatch.chdir(repo)
    fid = "demo.parser.Parser.parse"
    assert main(["regen", "--function", fid, "-q"]) == 0, capsys.readouterr()
    spec = yaml.safe_load((repo / "specs" / "demo.parser.yml").read_text(encoding="utf-8"))
    assert spec["fixtures"]["parser_parse"] == {
        "setup": "codemode.build",
        "kwargs": {
            "lines": [
                "from demo import parser",
                "from demo.parser import Parser",
                "p = Parser(parser.DEFAULT_WORDS)",
                "p.add_rule('y')",
            ],
            "value": "p",
        },
    }, spec["fixtures"]
    assert spec[fid]["fixture"] == ["parser_parse"]
    cases = [c["case"] for c in spec[fid]["dataset"]]
    assert {"text": "x y w"} in [c["inputs"] for c in cases if c.get("expected") == ["x", "y"]]
    assert main(["check", "--all"]) == 0, capsys.readouterr().out
    write(repo, {"src/demo/parser.py": LOADER.replace("[w for w", "[w.upper() for w")})
    rc, report = check(repo, "--all", capsys=capsys, monkeypatch=monkeypatch)
    assert functions(report)[fid]["status"] == "drifted" and rc == 1, report


def test_regen_writes_an_argument_changed_after_it_is_built_in_a_generated_fixture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The document the test appends a paragraph to: the fixture holds the append."""
    from codemode.cli.main import main

    repo = project(tmp_path, {"src/demo/doc.py": DOC, "tests/test_doc.py": DOC_TEST})
    monkeypatch.chdir(repo)
    assert main(["regen", "--function", "demo.doc.render", "-q"]) == 0, capsys.readouterr()
    spec = yaml.safe_load((repo / "specs" / "demo.doc.yml").read_text(encoding="utf-8"))
    assert spec["fixtures"]["node"]["kwargs"] == {
        "lines": [
            "from demo.doc import Node, parse, render",
            "doc = parse('h1:Title')",
            "doc.children.append(Node('p', 'Body'))",
        ],
        "value": "doc",
    }, spec["fixtures"]
    expected = [c["case"].get("expected") for c in spec["demo.doc.render"]["dataset"]]
    assert "<h1>Title</h1><p>Body</p>" in expected, spec
    assert main(["check", "--all"]) == 0, capsys.readouterr().out


def test_a_method_no_test_calls_is_tried_on_the_instance_a_test_builds_with_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``describe`` has no test, and ``Parser()`` cannot be built: its planned inputs run on
    the instance the test of ``parse`` builds from another function's value."""
    source = LOADER + ("\n    def describe(self, sep: str):\n        return sep.join(self.rules)\n")
    test = BUILT["an instance built with another function's value"][0]
    new = source.replace("sep.join(self.rules)", "sep.join(sorted(self.rules, reverse=True))")
    old = {"src/demo/parser.py": source, "tests/test_parser.py": test}
    fid = "demo.parser.Parser.describe"
    calls = _witnesses(tmp_path, old, {"src/demo/parser.py": new}, fid, capsys, monkeypatch)
    want = "obj = Parser(load_rules('x, y')); obj.describe("
    assert calls and all(c.startswith(want) for c in calls), list(calls)
