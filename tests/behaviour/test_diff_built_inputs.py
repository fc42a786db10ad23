"""Inputs the tests build where the behaviour diff did not look (#32), from the CLI with real
git and real workers: the instance a method runs on built in a test class's ``setUp``, in a
pytest fixture of the test file, or as a subclass defined beside the class; an argument a
fixture builds in one expression. Without them the function was in scope but "not compared"
(every call failed: no instance) or had "no inputs". Where nothing builds one, the report
says precisely why it was not compared."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from diffkit import check, functions, git, project, write

GRAMMAR = """\
class Grammar:
    def __init__(self, sep):
        self.sep = sep

    def split(self, text):
        return text.split(self.sep)


class Node:
    def __init__(self, v):
        self.v = v

    def show(self):
        return "*" + self.v + "*"


class Bold(Node):
    pass
"""
_SPLIT = ("return text.split(self.sep)", "return [p.strip() for p in text.split(self.sep)]")
NEW_GRAMMAR = GRAMMAR.replace(*_SPLIT).replace('"*" + self.v + "*"', '"**" + self.v + "**"')

# (the test file, the function, a witness call, its new outcome)
BUILT = {
    "a test class's setUp": (
        """\
import unittest

from demo.grammar import Grammar


class TestGrammar(unittest.TestCase):
    def setUp(self):
        self.g = Grammar(",")

    def test_split(self):
        self.assertEqual(self.g.split("a, b"), ["a", " b"])
""",
        "demo.grammar.Grammar.split",
        "Grammar(',').split('a, b')",
        ["a", "b"],
    ),
    "a pytest fixture of the test file": (
        """\
import pytest
import yaml

from demo.grammar import Grammar


@pytest.fixture
def semi():
    g = Grammar(";")
    return g


def test_semi(semi):
    assert semi.split("x; y") == ["x", " y"]
""",
        "demo.grammar.Grammar.split",
        "Grammar(';').split('x; y')",
        ["x", "y"],
    ),
    "a subclass defined beside the class": (
        """\
from demo.grammar import Bold


def test_bold():
    assert Bold("x").show() == "*x*"
""",
        "demo.grammar.Node.show",
        "Bold('x').show()",
        "**x**",
    ),
}


@pytest.mark.parametrize("where", sorted(BUILT))
def test_a_method_is_diffed_on_the_instance_the_tests_build(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    test, fid, call, outcome = BUILT[where]
    files = {"src/demo/grammar.py": GRAMMAR, "tests/test_grammar.py": test}
    repo = project(tmp_path, files)
    write(repo, {"src/demo/grammar.py": NEW_GRAMMAR})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)[fid]
    assert f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls[call]["new"] == {"returned": outcome}, list(calls)


DOCTESTED = GRAMMAR.replace(
    "    def split(self, text):\n",
    '''    def split(self, text):
        """
        >>> Grammar(",").split("a,b")
        ['a', 'b']
        >>> Grammar(",").split("c,d")
        ['c', 'd']
        >>> Grammar(",").split("e,f")
        ['e', 'f']
        >>> Grammar(",").split("g,h")
        ['g', 'h']
        """
''',
)


def test_calls_without_an_instance_do_not_hide_those_with_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The docstring's examples come first in the pool and without their instance: they
    all fail, and the calls the tests build one for still run."""
    test = BUILT["a pytest fixture of the test file"][0]
    repo = project(tmp_path, {"src/demo/grammar.py": DOCTESTED, "tests/test_grammar.py": test})
    write(repo, {"src/demo/grammar.py": DOCTESTED.replace(*_SPLIT)})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.grammar.Grammar.split"]
    assert f["status"] == "changed" and rc == 1, f
    assert "Grammar(';').split('x; y')" in [w["call"] for w in f["witnesses"]], f


def test_a_method_no_input_gives_an_instance_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tests build the instance in a way no rule carries (a helper of the test file,
    which runs more than one statement): not compared, and the note says what was missing
    and where it was looked for."""
    test = """\
from demo.grammar import Grammar


def make():
    g = Grammar.__new__(Grammar)
    g.sep = ","
    return g


def test_split():
    g = make()
    assert g.split("a, b") == ["a", " b"]
"""
    repo = project(tmp_path, {"src/demo/grammar.py": GRAMMAR, "tests/test_grammar.py": test})
    write(repo, {"src/demo/grammar.py": NEW_GRAMMAR})
    git(repo, "add", "-A")
    _, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    note = functions(report)["demo.grammar.Grammar.split"]["diff_note"]
    assert note.startswith("not compared: no Grammar to call it on in any of its "), note
    assert "(Grammar() raised TypeError: " in note, note
    assert "no test of the project builds one with literal arguments" in note, note


DOC = """\
class Node:
    def __init__(self, tag, text="", parent=None):
        self.tag, self.text, self.parent = tag, text, parent
        self.children = []


def parse(source):
    root = Node("root")
    for part in source.split(";"):
        tag, _, text = part.partition(":")
        root.children.append(Node(tag, text, root))
    return root


def render(node: Node) -> str:
    return "".join(f"<{c.tag}>{c.text}</{c.tag}>" for c in node.children)
"""
FIXTURE_TEST = """\
import pytest
import yaml

from demo.doc import parse, render

SOURCE = "h1:Title;p:Body"


@pytest.fixture
def document():
    \"\"\"A parsed document.\"\"\"
    return parse(SOURCE)


def test_render(document):
    assert render(document) == "<h1>Title</h1><p>Body</p>"
"""


def test_an_argument_a_fixture_builds_is_built_as_the_fixture_builds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _render_is_diffed_on_the_built_document(tmp_path, FIXTURE_TEST, capsys, monkeypatch)


SETUP_TEST = """\
import unittest

from demo.doc import parse, render


class TestRender(unittest.TestCase):
    def setUp(self):
        self.doc = parse("h1:Title;p:Body")

    def test_render(self):
        self.assertEqual(render(self.doc), "<h1>Title</h1><p>Body</p>")
"""


def test_an_argument_a_test_class_builds_in_setup_is_built_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _render_is_diffed_on_the_built_document(tmp_path, SETUP_TEST, capsys, monkeypatch)


def _render_is_diffed_on_the_built_document(
    tmp_path: Path, test: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/doc.py": DOC, "tests/test_doc.py": test})
    write(repo, {"src/demo/doc.py": DOC.replace("<{c.tag}>{c.text}", "<{c.tag}>{c.text}!")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.doc.render"]
    assert f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    call = "render(parse('h1:Title;p:Body'))"
    assert calls[call]["new"] == {"returned": "<h1>Title!</h1><p>Body!</p>"}, list(calls)


def test_a_function_with_no_inputs_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its only test passes a fixture's value the file does not define: no inputs, and the
    note says the tests' call could not be carried, and why."""
    test = FIXTURE_TEST.split("@pytest.fixture")[0] + (
        "def test_render(document):\n    assert render(document)\n"
    )
    repo = project(tmp_path, {"src/demo/doc.py": DOC, "tests/test_doc.py": test})
    write(repo, {"src/demo/doc.py": DOC.replace("<{c.tag}>{c.text}", "<{c.tag}>{c.text}!")})
    git(repo, "add", "-A")
    _, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    note = functions(report)["demo.doc.render"]["diff_note"]
    assert note == (
        "no inputs to compare the versions on: the tests' 1 call of it could not be carried "
        "(a name the test file binds no value to: 1)"
    ), note


def test_regen_writes_a_fixture_built_argument_as_a_generated_fixture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pytest fixture's one expression becomes a ``codemode.build`` fixture of the spec,
    which ``check`` verifies, and which shows a later change."""
    from codemode.cli.main import main

    repo = project(tmp_path, {"src/demo/doc.py": DOC, "tests/test_doc.py": FIXTURE_TEST})
    monkeypatch.chdir(repo)
    assert main(["regen", "--function", "demo.doc.render", "-q"]) == 0, capsys.readouterr()
    spec = yaml.safe_load((repo / "specs" / "demo.doc.yml").read_text(encoding="utf-8"))
    assert spec["fixtures"]["node"] == {
        "setup": "codemode.build",
        "kwargs": {
            "lines": [
                "from demo.doc import parse, render",
                "SOURCE = 'h1:Title;p:Body'",
                "document = parse(SOURCE)",
            ],
            "value": "document",
        },
    }, spec["fixtures"]
    expected = [c["case"].get("expected") for c in spec["demo.doc.render"]["dataset"]]
    assert "<h1>Title</h1><p>Body</p>" in expected, spec
    assert main(["check", "--all"]) == 0, capsys.readouterr().out
    write(repo, {"src/demo/doc.py": DOC.replace("<{c.tag}>{c.text}", "<{c.tag}>{c.text}!")})
    rc, report = check(repo, "--all", capsys=capsys, monkeypatch=monkeypatch)
    assert functions(report)["demo.doc.render"]["status"] == "drifted" and rc == 1, report
