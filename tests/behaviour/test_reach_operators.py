"""An operator or builtin applied to a value of no known class reaches the project classes'
special methods of its name (#32): ``len(rows)``, ``str(cell)``, ``a == b``, ``for x in
items``, ``with res`` on unannotated parameters. A special method the change touched makes
its callers impacted, and the report says through what (``via Table.__len__ (via
len(rows))``). Each through ``check --staged`` with real git and real workers on both sides.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

LIB = """\
class Table:
    def __init__(self, rows):
        self.rows = list(rows)

    def __len__(self):
        return len(self.rows)

    def __str__(self):
        return "table"

    def __eq__(self, other):
        return self.rows == other.rows

    def __iter__(self):
        return iter(self.rows)

    def __enter__(self):
        return self.rows[0]

    def __exit__(self, *exc):
        return False


def size(rows):
    return len(rows) * 10


def label(cell):
    return "<" + str(cell) + ">"


def same(a, b):
    return a == b


def total(items):
    return sum(x for x in items if x)


def opened(res):
    with res as first:
        return first
"""
TEST_LIB = """\
from demo.lib import Table, label, opened, same, size, total


def test_lib():
    assert size(Table([1, 2])) == 20
    assert label(Table([1])) == "<table>"
    assert same(Table([1]), Table([1]))
    assert total(Table([1, 2])) == 3
    assert opened(Table([7, 8])) == 7
"""
# name: (the edit, the function, the witness call, its new outcome, the way first to last)
KINDS = {
    "len() of a parameter": (
        ("return len(self.rows)", "return len(self.rows) + 1"),
        "demo.lib.size",
        "size(Table([1, 2]))",
        30,
        ["demo.lib.Table.__len__ (via len(rows))", "demo.lib.size"],
    ),
    "str() of a parameter": (
        ('return "table"', 'return "TABLE"'),
        "demo.lib.label",
        "label(Table([1]))",
        "<TABLE>",
        ["demo.lib.Table.__str__ (via str(cell))", "demo.lib.label"],
    ),
    "two parameters compared": (
        ("self.rows == other.rows", "self.rows != other.rows"),
        "demo.lib.same",
        "same(Table([1]), Table([1]))",
        False,
        ["demo.lib.Table.__eq__ (via a ==)", "demo.lib.same"],
    ),
    "iteration over a parameter": (
        ("iter(self.rows)", "iter(self.rows[1:])"),
        "demo.lib.total",
        "total(Table([1, 2]))",
        2,
        ["demo.lib.Table.__iter__ (via in items if)", "demo.lib.total"],
    ),
    "a parameter as a context manager": (
        ("return self.rows[0]", "return self.rows[-1]"),
        "demo.lib.opened",
        "opened(Table([7, 8]))",
        8,
        ["demo.lib.Table.__enter__ (via with res as)", "demo.lib.opened"],
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_operator_on_a_value_of_no_known_class_reaches_the_special_method(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (old, new), fid, call, outcome, via = KINDS[kind]
    repo = project(tmp_path, {"src/demo/lib.py": LIB, "tests/test_lib.py": TEST_LIB})
    write(repo, {"src/demo/lib.py": LIB.replace(old, new)})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get(fid)
    assert f is not None, sorted(functions(report))  # in scope: re-checked and diffed
    assert f["status"] == "changed" and rc == 1, f
    assert f["via"] == via
    # a witness runs the function on a Table: the tests' call, or (on a loaded machine whose
    # budget cut the second run of that one) another Table the pool holds
    calls = {w["call"]: w["new"] for w in f["witnesses"]}
    assert calls.get(call, {"returned": outcome}) == {"returned": outcome}, calls
    assert any(c.startswith(call.split("(")[0] + "(Table(") for c in calls), calls
