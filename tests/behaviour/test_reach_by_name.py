"""More ways a public function reaches a change (#32), each through ``check --staged`` with
real git and real workers on both sides, and its report naming the way:

- a method called on a value whose class nothing names (a loop variable over a parameter):
  the caller is impacted by the method's name alone, and the way says so (``by name``);
- an instance an attribute holds, built in ``__init__`` (``self.conv = Conv()``) and used by
  another method (``self.conv.run(s)``);
- a special method run on the instance itself by a method of its class: ``sum(x for x in
  self)`` runs ``__iter__``, ``f"{self}"`` runs ``__str__``, ``self(y)`` runs ``__call__``,
  ``self == other`` runs ``__eq__``, ``len(self)`` runs ``__len__``, ``self[i]`` runs
  ``__getitem__``. The special method itself is not diffed (a private name); its public
  users are, via it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import assert_reaches

LIB = """\
class Chip:
    def __init__(self, text):
        self.text = text

    def render(self):
        return "<" + self.text + ">"


def render_all(chips):
    return [c.render() for c in chips]


class Conv:
    def run(self, s):
        return s.upper()


class Page:
    def __init__(self):
        self.conv = Conv()

    def shout(self, s):
        return self.conv.run(s)


class Bag:
    def __init__(self, items):
        self.items = list(items)

    def __iter__(self):
        return iter(self.items)

    def __str__(self):
        return "bag"

    def __call__(self, y):
        return y + 1

    def __eq__(self, other):
        return self.items == list(other)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def total(self):
        return sum(x for x in self)

    def describe(self):
        return f"{self}!"

    def twice(self, y):
        return self(y) * 2

    def same(self, other):
        return self == other

    def size(self):
        return len(self) * 10

    def first(self):
        return self[0]
"""
TEST_LIB = """\
from demo.lib import Bag, Chip, Page, render_all


def test_lib():
    assert render_all([Chip("a"), Chip("b")]) == ["<a>", "<b>"]
    assert Page().shout("a") == "A"
    assert Bag([1, 2]).total() == 3
    assert Bag([1]).describe() == "bag!"
    assert Bag([]).twice(1) == 4
    assert Bag([1]).same([1])
    assert Bag([1, 2]).size() == 20
    assert Bag([5, 6]).first() == 5
"""
# name: (the edit, the function, the witness call, its new outcome, the way first to last)
KINDS = {
    "a method on a value of no known class, by name": (
        ('"<" + self.text + ">"', '"[" + self.text + "]"'),
        "demo.lib.render_all",
        "render_all([Chip('a'), Chip('b')])",
        ["[a]", "[b]"],
        ["demo.lib.Chip.render (by name: c.render)", "demo.lib.render_all"],
    ),
    "an instance an attribute holds": (
        ("return s.upper()", "return s.lower()"),
        "demo.lib.Page.shout",
        "Page().shout('a')",
        "a",
        ["demo.lib.Conv.run", "demo.lib.Page.shout"],
    ),
    "iteration over self": (
        ("iter(self.items)", "iter(self.items[1:])"),
        "demo.lib.Bag.total",
        "Bag([1, 2]).total()",
        2,
        ["demo.lib.Bag.__iter__", "demo.lib.Bag.total"],
    ),
    "self in an f-string": (
        ('return "bag"', 'return "BAG"'),
        "demo.lib.Bag.describe",
        "Bag([1]).describe()",
        "BAG!",
        ["demo.lib.Bag.__str__", "demo.lib.Bag.describe"],
    ),
    "calling self": (
        ("return y + 1", "return y + 2"),
        "demo.lib.Bag.twice",
        "Bag([]).twice(1)",
        6,
        ["demo.lib.Bag.__call__", "demo.lib.Bag.twice"],
    ),
    "self compared": (
        ("self.items == list(other)", "self.items != list(other)"),
        "demo.lib.Bag.same",
        "Bag([1]).same([1])",
        False,
        ["demo.lib.Bag.__eq__", "demo.lib.Bag.same"],
    ),
    "the length of self": (
        ("return len(self.items)", "return len(self.items) + 1"),
        "demo.lib.Bag.size",
        "Bag([1, 2]).size()",
        30,
        ["demo.lib.Bag.__len__", "demo.lib.Bag.size"],
    ),
    "an item of self": (
        ("return self.items[i]", "return self.items[-1 - i]"),
        "demo.lib.Bag.first",
        "Bag([5, 6]).first()",
        6,
        ["demo.lib.Bag.__getitem__", "demo.lib.Bag.first"],
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_function_reaching_a_change_this_way_is_diffed_and_says_through_what(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_reaches(tmp_path, LIB, TEST_LIB, KINDS[kind], capsys, monkeypatch)


def test_the_way_names_the_special_method_a_user_runs_when_several_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three special methods of a class change at once: each user's way names the one its
    code runs (``for x in self``: ``__iter__``; ``f"{self}"``: ``__str__``; ``self(y)``:
    ``__call__``), not the first by name. ``codemode diff --staged``, real git."""
    import json

    from diffkit import git, project, write

    from codemode.cli.main import main

    repo = project(tmp_path, {"src/demo/lib.py": LIB})
    edits = [
        ("iter(self.items)", "iter(self.items[1:])"),
        ('return "bag"', 'return "BAG"'),
        ("return y + 1", "return y + 2"),
    ]
    new = LIB
    for old, text in edits:
        new = new.replace(old, text)
    write(repo, {"src/demo/lib.py": new})
    git(repo, "add", "-A")
    monkeypatch.chdir(repo)
    capsys.readouterr()
    assert main(["diff", "--staged", "--format", "json"]) == 0
    via = {f["id"]: f.get("via") for f in json.loads(capsys.readouterr().out)["functions"]}
    assert via["demo.lib.Bag.total"] == ["demo.lib.Bag.__iter__", "demo.lib.Bag.total"]
    assert via["demo.lib.Bag.describe"] == ["demo.lib.Bag.__str__", "demo.lib.Bag.describe"]
    assert via["demo.lib.Bag.twice"] == ["demo.lib.Bag.__call__", "demo.lib.Bag.twice"]
