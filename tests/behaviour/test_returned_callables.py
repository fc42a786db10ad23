"""A function that returns a callable changed what it returns when the callable's data
changed: a functools.partial is compared on its function, arguments and keywords, a function
on its importable name, never on a repr holding a memory address (#18). Real git, real
workers on both sides."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

OLD = """\
import functools


def to_int(text, base=10):
    return int(text, base)


def parser(kind: str):
    if kind == "hex":
        return functools.partial(to_int, base=16)
    return functools.partial(to_int)


def picker(kind: str):
    return to_int
"""
TEST = (
    'from demo.conv import parser\n\n\ndef test_parser():\n    assert parser("hex")("ff") == 255\n'
)


def test_a_returned_partial_is_compared_on_its_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/conv.py": OLD, "tests/test_conv.py": TEST})
    write(repo, {"src/demo/conv.py": OLD.replace("base=16", "base=8")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.conv.parser"]
    assert f["status"] == "changed" and rc == 1, f
    w = next(w for w in f["witnesses"] if w["call"] == "parser('hex')")
    fn = {"$class": "function", "name": "demo.conv.to_int"}
    partial = {"$class": "functools.partial", "func": fn, "args": []}
    assert w["old"] == {"returned": {**partial, "keywords": {"base": 16}}}
    assert w["new"] == {"returned": {**partial, "keywords": {"base": 8}}}


def test_a_returned_function_is_compared_on_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/conv.py": OLD, "tests/test_conv.py": TEST})
    new = OLD.replace("    return to_int\n", "    return functools.partial(to_int)\n")
    write(repo, {"src/demo/conv.py": new})
    git(repo, "add", "-A")
    _, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.conv.picker"]
    assert f["status"] == "changed", f
    assert f["witnesses"][0]["old"] == {
        "returned": {"$class": "function", "name": "demo.conv.to_int"}
    }
