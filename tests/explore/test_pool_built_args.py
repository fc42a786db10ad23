"""A method whose argument the tests build (a parsed element, no YAML form) gets it in the
pool as the test builds it, on the instance the test builds (#32)."""

from __future__ import annotations

from pathlib import Path

from projectkit import project

from codemode.config import load_config
from codemode.explore.offline.input_pool import pool_for

SOURCE = """
class Node:
    def __init__(self, tag):
        self.tag, self.parent = tag, None


def parse(text):
    return Node(text)


class Renderer:
    def __init__(self, sep):
        self.sep = sep

    def render(self, node):
        return self.sep + node.tag
"""

TESTS = """
from pkg.doc import Renderer, parse


def test_render():
    doc = parse("h1")
    assert Renderer("-").render(doc) == "-h1"
"""


def test_a_methods_built_argument_travels_with_the_instances_recipe(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/pkg/doc.py": SOURCE, "tests/test_doc.py": TESTS})
    pool = pool_for(load_config(root), "pkg.doc.Renderer.render", old_root=None, new_root=root)
    got = [c for c in pool if c.source == "receivers"]
    assert len(got) == 1, pool
    assert got[0].receiver == {"cls": "pkg.doc.Renderer", "args": ["-"], "kwargs": {}}
    assert got[0].exprs is not None and got[0].exprs["args"] == ["doc"]
    assert got[0].exprs["setup"].splitlines()[-1] == "doc = parse('h1')"
