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
    assert rc == 1
