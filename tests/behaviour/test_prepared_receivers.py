"""A method's instance as the test prepares it (#32), through the CLI with real git and real
workers on both sides: built, then changed by the statements before the call (a rule added,
an attribute set); built by a function of the class or a factory of the project. The change shows only on such an instance: on the
class built plainly, or with no instance at all, both versions agree or cannot run. Each
fails on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
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


@pytest.mark.parametrize("how", sorted(PREPARED))
def test_a_method_is_diffed_on_the_instance_as_the_test_prepares_it(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new, fid, call = PREPARED[how]
    repo = project(tmp_path, old)
    write(repo, new)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "new")
    rc, report = check(repo, "--base", "HEAD~1", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get(fid)
    assert f is not None and f["status"] == "changed" and rc == 1, f
    assert call in [w["call"] for w in f["witnesses"]], f["witnesses"]
