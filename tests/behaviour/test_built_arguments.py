"""An argument with no YAML form, built as the tests build it (#32), from the CLI with real
git and real workers: the behaviour diff compares the versions on the parsed document the
test builds, and ``regen`` writes the function's cases with a fixture generated from that
construction, which ``codemode check`` then verifies."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from diffkit import check, functions, git, project, write

# A parsed-document element: a node with a parent link has no YAML form.
DOC = '''\
class Node:
    def __init__(self, tag, text="", parent=None):
        self.tag, self.text, self.parent = tag, text, parent
        self.children = []

    def add(self, tag, text=""):
        child = Node(tag, text, self)
        self.children.append(child)
        return child


def parse(source):
    """``'h1:Title;p:Body'``: a root whose children are the parts."""
    root = Node("root")
    for part in source.split(";"):
        tag, _, text = part.partition(":")
        root.add(tag, text)
    return root
'''

RENDER = """\
def render(node, sep=""):
    return sep.join(f"<{c.tag}>{c.text}</{c.tag}>" for c in node.children)
"""

# The change shows only on a document with a heading: no value the function's own source
# suggests (a string, a number) is one.
CHANGED = RENDER.replace(
    'f"<{c.tag}>{c.text}</{c.tag}>"',
    "f\"<{c.tag}>{c.text.upper() if c.tag == 'h1' else c.text}</{c.tag}>\"",
)

TEST = """\
from demo.doc import parse
from demo.render import render


def test_render():
    doc = parse("h1:Title;p:Body")
    assert render(doc) == "<h1>Title</h1><p>Body</p>"


def test_render_given(document):  # a pytest fixture's value: the pool cannot carry it
    assert render(document)
"""


def test_the_diff_compares_the_versions_on_the_object_the_tests_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"src/demo/doc.py": DOC, "src/demo/render.py": RENDER, "tests/test_render.py": TEST}
    repo = project(tmp_path, files)
    write(repo, {"src/demo/render.py": CHANGED})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.render.render")
    assert f is not None and f["status"] == "changed", f
    calls = [w["call"] for w in f["witnesses"]]
    assert "render(parse('h1:Title;p:Body'))" in calls, calls
    w = f["witnesses"][calls.index("render(parse('h1:Title;p:Body'))")]
    assert w["new"] == {"returned": "<h1>TITLE</h1><p>Body</p>"}, w
    # the call it could not carry is counted, by its reason, in the report
    dropped = "1 test call could not be carried into the pools (a name the test file binds"
    assert any(n.startswith(f"behaviour diff: {dropped}") for n in report["notes"]), report
    assert rc == 1


def test_regen_writes_the_case_with_a_fixture_built_as_the_tests_build_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from codemode.cli.main import main

    files = {"src/demo/doc.py": DOC, "src/demo/render.py": RENDER, "tests/test_render.py": TEST}
    repo = project(tmp_path, files)
    monkeypatch.chdir(repo)
    rc = main(["regen", "--function", "demo.render.render", "-q"])
    out = capsys.readouterr()
    assert rc == 0, out
    specs = list((repo / "specs").glob("*.yml"))
    assert len(specs) == 1, (specs, out)
    spec = yaml.safe_load(specs[0].read_text(encoding="utf-8"))
    assert spec["fixtures"]["node"] == {
        "setup": "codemode.build",
        "kwargs": {
            "lines": ["from demo.doc import parse", "doc = parse('h1:Title;p:Body')"],
            "value": "doc",
        },
    }, spec["fixtures"]
    block = spec["demo.render.render"]
    assert block["fixture"] == ["node"]
    expected = [c["case"].get("expected") for c in block["dataset"]]
    assert "<h1>Title</h1><p>Body</p>" in expected, block
    # the written spec is one `codemode check` verifies: it passes here, and fails on a
    # change the fixture's document shows
    assert main(["check", "--all"]) == 0, capsys.readouterr().out
    write(repo, {"src/demo/render.py": CHANGED})
    capsys.readouterr()
    rc, report = check(repo, "--all", capsys=capsys, monkeypatch=monkeypatch)
    assert functions(report)["demo.render.render"]["status"] == "drifted", report
    assert rc == 1


WRITER = """\
def make(path):
    with open(path, "w") as fh:
        fh.write("x")
    return path


def size(value):
    return len(value)


def echo(value):
    return value
"""

BUILD_SPEC = """\
fixtures:
  escape:
    setup: codemode.build
    kwargs: {lines: [], value: "().__class__"}
  writes:
    setup: codemode.build
    kwargs: {lines: [from demo.writer import make], value: "make('../outside.txt')"}
  shell:
    setup: codemode.build
    kwargs: {lines: [import os], value: "os.getcwd()"}

demo.writer.echo:
  fixture: [escape]
  dataset:
    - case: {id: escape, inputs: [], expected: 1}

demo.writer.size:
  fixture: [writes]
  dataset:
    - case: {id: writes, inputs: [], expected: 15}

demo.writer.make:
  fixture: [shell]
  dataset:
    - case: {id: shell, inputs: [], expected: 1}
"""


def test_a_built_fixture_runs_no_code_the_policy_refuses_and_stays_behind_the_wall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A spec file is text anyone can edit: its construction is not Python run as written
    # (a dunder, an import outside the policy are refused), and what it calls runs under
    # the wall, like every fixture (#31).
    repo = project(tmp_path, {"src/demo/writer.py": WRITER, "specs/writer.yml": BUILD_SPEC})
    rc, report = check(repo, "--all", capsys=capsys, monkeypatch=monkeypatch)
    got = functions(report)
    messages = {fid: [c.get("message", "") for c in f["cases"]] for fid, f in got.items()}
    assert "__class__" in messages["demo.writer.echo"][0], messages
    assert "'os'" in messages["demo.writer.make"][0], messages
    assert "blocked" in messages["demo.writer.size"][0], messages
    assert not (tmp_path / "outside.txt").exists()
    assert rc == 1


RENDERER = """\
from demo.doc import Node


class Renderer:
    def __init__(self, sep):
        self.sep = sep

    def render(self, node):
        return self.sep.join(c.text for c in node.children)
"""

METHOD_TEST = """\
from demo.doc import parse
from demo.renderer import Renderer


def test_render():
    doc = parse("h1:Title;p:Body")
    assert Renderer("|").render(doc) == "Title|Body"
"""


def test_a_methods_built_argument_is_diffed_on_the_instance_the_test_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "src/demo/doc.py": DOC,
        "src/demo/renderer.py": RENDERER,
        "tests/test_renderer.py": METHOD_TEST,
    }
    repo = project(tmp_path, files)
    changed = RENDERER.replace("c.text for c", "c.text.upper() if c.tag == 'h1' else c.text for c")
    write(repo, {"src/demo/renderer.py": changed})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.renderer.Renderer.render"]
    calls = [w["call"] for w in f["witnesses"]]
    assert "Renderer('|').render(parse('h1:Title;p:Body'))" in calls, f
    assert rc == 1
