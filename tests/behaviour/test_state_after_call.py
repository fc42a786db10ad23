"""A call that returns None but leaves its receiver or an argument in another state is a
behaviour change the diff shows (`after the call, self: ... → ...`, #32): `bits.add(x)`,
`d.update(...)`, `counter.reset()` return None on both sides, and so does a method of an object
whose repr holds its address (compared on its public attributes). A refactor that leaves the
same state and a class whose constructor changed (the state before the call differs) give
no witness."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

BITS = '''\
class Bits:
    def __init__(self):
        self.items = []

    def add(self, x):
        """Keep ``x``."""
        self.items.append(x)


def push(stack, x):
    """Put ``x`` on top of ``stack``."""
    stack.append(x)


class Box:
    def __init__(self):
        self.seen = []

    def __repr__(self):
        return f"<Box at {hex(id(self))}>"

    def put(self, x):
        """Keep ``x``, in a box whose repr is its address."""
        self.seen.append(x)
'''
TESTS = """\
from demo.bits import Bits, Box, push


def test_add():
    b = Bits()
    b.add(3)
    assert b.items == [3]


def test_push():
    s = [1, 2]
    push(s, 3)
    assert s == [1, 2, 3]


def test_put():
    Box().put(4)
"""
# What each version does to the state: the same (a refactor), or another.
SAME = {
    "        self.items.append(x)\n": "        self.items += [x]\n",
    "    stack.append(x)\n": "    stack[len(stack) :] = [x]\n",
    "        self.seen.append(x)\n": "        self.seen += [x]\n",
}
OTHER = {
    "        self.items.append(x)\n": "        self.items.extend([x, x])\n",
    "    stack.append(x)\n": "    stack.insert(0, x)\n",
    "        self.seen.append(x)\n": "        self.seen.extend([x, x])\n",
}


def _staged(tmp_path: Path, edits: dict[str, str]) -> Path:
    repo = project(tmp_path, {"src/demo/bits.py": BITS, "tests/test_bits.py": TESTS})
    new = BITS
    for old, replacement in edits.items():
        new = new.replace(old, replacement)
    write(repo, {"src/demo/bits.py": new})
    git(repo, "add", "-A")
    return repo


def test_a_call_that_leaves_another_state_is_a_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _staged(tmp_path, OTHER)
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    got = functions(report)
    add = got["demo.bits.Bits.add"]
    assert add["status"] == "changed", {k: add[k] for k in ("status", "message", "diff_note", "witnesses")}
    w = add["witnesses"][0]
    assert w["old"]["returned"] is None and w["new"]["returned"] is None, w
    assert w["old"]["after"]["self"]["items"] != w["new"]["after"]["self"]["items"], w
    push = got["demo.bits.push"]
    assert push["status"] == "changed", push
    assert {"stack"} <= set(push["witnesses"][0]["new"]["after"]), push["witnesses"][0]
    # an object whose repr is its address: compared on its public attributes (#32)
    put = got["demo.bits.Box.put"]
    assert put["status"] == "changed", put
    assert put["witnesses"][0]["new"]["after"]["self"]["seen"] == [4, 4], put["witnesses"]
    assert rc == 1
    from codemode.cli.main import main

    capsys.readouterr()
    assert main(["check", "--staged"]) == 1
    out = capsys.readouterr().out
    assert "after the call, self: " in out and "after the call, stack: " in out, out


def test_a_refactor_that_leaves_the_same_state_has_no_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _staged(tmp_path, SAME)
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    for fid, f in functions(report).items():
        assert not f.get("witnesses"), (fid, f)
    assert rc == 0


def test_a_constructor_that_changed_is_not_a_change_of_the_method(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the instance starts otherwise on each side: the state the method leaves says nothing
    # of the method itself; the method is refactored too, so that it is diffed
    edits = {
        "        self.items = []\n": "        self.items = [0]\n",
        "        self.items.append(x)\n": "        self.items += [x]\n",
    }
    repo = _staged(tmp_path, edits)
    _, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    add = functions(report)["demo.bits.Bits.add"]
    assert not add["witnesses"], add
