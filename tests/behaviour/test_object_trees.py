"""A function that returns a tree of objects whose repr holds a memory address (a parser's
nodes: ``<Comparison 'a in b' at 0x7f...>``, data in ``__slots__``, a ``parent`` link up) is
diffed on the tree's data (#32): sqlparse 0.4.4's ``parse('a in (1, 2)')`` stopped grouping
``IN`` into a ``Comparison``, and both versions' trees read "no faithful form", so the diff
could never tell them apart. The nodes' classes and public attributes are compared; a back
link is left out (it would make the tree a cycle), and a refactor that keeps the tree (a new
repr, a private slot) gives no witness. Real git (``check --base``), real workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from diffkit import check, functions, project, witness_calls, write

from codemode.behaviour.outcomes import Seen, difference
from codemode.worker.canonical import canonical
from gitkit import git

OLD = """\
class Node:
    __slots__ = ("value", "parent", "children")

    def __init__(self, value, children=()):
        self.value = value
        self.parent = None
        self.children = list(children)
        for child in self.children:
            child.parent = self

    def __repr__(self):
        return f"<{type(self).__name__} {self.value!r} at 0x{id(self):X}>"


class Word(Node):
    pass


class Comparison(Node):
    pass


class Statement(Node):
    pass


def parse(text):
    words = [Word(w) for w in text.split()]
    if len(words) == 3 and words[1].value.lower() in ("in", "="):
        return Statement(text, [Comparison(text, words)])
    return Statement(text, words)
"""
# IN is no comparison any more: its words stay apart, as sqlparse 0.4.4 reverted
NEW = OLD.replace('("in", "=")', '("=",)')
# a refactor: another repr, a private slot; the tree a call returns is the same
REFACTOR = OLD.replace(
    '__slots__ = ("value", "parent", "children")',
    '__slots__ = ("value", "parent", "children", "_seen")',
).replace("{self.value!r} at 0x{id(self):X}>", "at 0x{id(self):x} {self.value!r}>")
TESTS = """\
from demo.sql import parse


def test_parse_keeps_the_text():
    assert parse("a in b").value == "a in b"
"""


def test_a_tree_of_nodes_of_another_class_is_a_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = witness_calls(
        tmp_path,
        {"src/demo/sql.py": OLD, "tests/test_sql.py": TESTS},
        {"src/demo/sql.py": NEW},
        "demo.sql.parse",
        capsys,
        monkeypatch,
    )
    assert "parse('a in b')" in calls, calls


def test_a_refactor_that_keeps_the_tree_gives_no_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/sql.py": OLD, "tests/test_sql.py": TESTS})
    write(repo, {"src/demo/sql.py": REFACTOR})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "refactor")
    rc, report = check(repo, "--base", "HEAD~1", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.sql.parse")
    assert f is not None and f["status"] != "changed", f
    assert not f.get("witnesses"), f["witnesses"]
    assert rc == 0, report


class _Leaf:
    __slots__ = ("lock", "parent", "value")

    def __init__(self, value: Any) -> None:
        self.value, self.parent, self.lock = value, None, (lambda: None)

    def __repr__(self) -> str:
        return f"<leaf at 0x{id(self):x}>"


class _Group(_Leaf):  # no slots of its own: a __dict__, as sqlparse's node classes
    def __init__(self, *leaves: _Leaf) -> None:
        super().__init__("group")
        self.leaves = list(leaves)
        for leaf in leaves:
            leaf.parent = self


class _Empty:
    __slots__ = ()


def test_an_object_with_an_address_in_its_repr_has_its_attributes_form() -> None:
    form = canonical(_Group(_Leaf(1)))
    name = f"{__name__}._Group"
    assert form["$class"] == name and form["value"] == "group" and form["parent"] is None
    (leaf,) = form["leaves"]
    # the leaf's parent (the group the walk is inside) is left out, not a cycle
    assert leaf == {"$class": f"{__name__}._Leaf", "lock": leaf["lock"], "value": 1}
    assert "$unrepresentable" in leaf["lock"]  # a lambda has no form, as before
    assert canonical(_Empty()) == {"$unrepresentable": f"{__name__}._Empty"}


def test_a_part_with_no_form_on_both_sides_leaves_the_rest_compared() -> None:
    def tree(value: int) -> Any:
        return canonical(_Group(_Leaf(value)))

    assert difference(Seen("returned", tree(1)), Seen("returned", tree(1))) is None
    assert difference(Seen("returned", tree(1)), Seen("returned", tree(2))) == "value"


def test_a_value_of_many_objects_is_written_up_to_a_bound() -> None:
    # a graph that shares parts would be written once per path without one
    form = canonical([_Leaf(i) for i in range(6_000)])
    assert form[0]["value"] == 0 and form[4_999]["value"] == 4_999
    assert "$unrepresentable" in form[5_000] and "$unrepresentable" in form[-1]
