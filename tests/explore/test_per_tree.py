"""A test file's readings are memoised per parsed tree (explore/offline/per_tree.py): the same
tree is read once however many siblings ask, and a new tree never gets an old one's reading."""

from __future__ import annotations

import ast

from codemode.explore.offline.per_tree import once_per_tree
from codemode.explore.offline.receivers import self_values

SOURCE = """
class TestRender:
    def setUp(self):
        self.doc = parse("h1:T")

    def test_it(self):
        render(self.doc)
"""


def test_a_tree_is_read_once_however_often_it_is_asked() -> None:
    reads: list[int] = []

    @once_per_tree
    def count(tree: ast.Module) -> int:
        reads.append(1)
        return len(tree.body)

    tree = ast.parse("a = 1\nb = 2")
    assert [count(tree) for _ in range(5)] == [2] * 5
    assert len(reads) == 1
    assert count(ast.parse("a = 1")) == 1  # another tree: its own reading
    assert len(reads) == 2


def test_a_new_tree_at_a_freed_address_gets_its_own_reading() -> None:
    first = ast.parse(SOURCE)
    assert [ast.unparse(v) for v in next(iter(self_values(first).values())).values()] == [
        'parse("h1:T")'.replace('"', "'")
    ]
    del first
    # trees parsed one after another reuse addresses: the memo checks the tree, not its id
    for _ in range(20):
        other = ast.parse(SOURCE.replace("h1:T", "h2:U"))
        (values,) = {id(v): v for v in self_values(other).values()}.values()
        assert ast.unparse(values["doc"]) == "parse('h2:U')"
