"""The behaviour diff reaches what a change reaches (#32), with real git and real workers on
both sides: a public function whose own code did not change, but that builds an object whose
method changed, or a class that picks its methods from a table, is diffed like a changed one
and its report says through what it reaches the change."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

CONV = """\
class Converter:
    def __init__(self, **options):
        self.options = options
        self.handlers = {"b": self.bold, "i": self.italic}

    def convert(self, text):
        return self.process(text)

    def process(self, text):
        tag, _, body = text.partition(":")
        return getattr(self, "convert_" + tag)(body)

    def convert_hn(self, body):
        return "# " + body

    def convert_p(self, body):
        return body

    def apply(self, key, body):
        return self.handlers[key](body)

    def bold(self, body):
        return "**" + body + "**"

    def italic(self, body):
        return "_" + body + "_"


def markdownify(text, **options):
    return Converter(**options).convert(text)
"""
TEST_CONV = """\
from demo.conv import Converter, markdownify


def test_markdownify():
    assert markdownify("hn:Title") == "# Title"
    assert markdownify("p:text") == "text"


def test_apply():
    assert Converter().apply("b", "x") == "**x**"
    assert Converter().apply("i", "x") == "_x_"
"""


def _staged(tmp_path: Path, old: str, new: str) -> Path:
    repo = project(tmp_path, {"src/demo/conv.py": CONV, "tests/test_conv.py": TEST_CONV})
    write(repo, {"src/demo/conv.py": CONV.replace(old, new)})
    git(repo, "add", "-A")
    return repo


def test_a_caller_reaching_a_changed_method_through_an_instance_it_builds_gets_a_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _staged(tmp_path, '"# " + body', '"## " + body')
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.conv.markdownify"]
    assert f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["markdownify('hn:Title')"]["old"] == {"returned": "# Title"}
    assert calls["markdownify('hn:Title')"]["new"] == {"returned": "## Title"}
    assert f["via"][0] == "demo.conv.Converter.convert_hn"
    from codemode.cli.main import main

    capsys.readouterr()
    main(["check", "--staged"])
    out = capsys.readouterr().out
    assert "demo.conv.markdownify: changed: " in out
    assert (
        "(impacted: via Converter.convert -> Converter.process -> Converter.convert_hn)" in out
    ), out


def test_a_class_that_dispatches_through_a_table_is_diffed_when_a_handler_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _staged(tmp_path, '"**" + body + "**"', '"__" + body + "__"')
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.conv.Converter.apply"]
    assert f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["Converter().apply('b', 'x')"]["new"] == {"returned": "__x__"}, list(calls)
    assert "Converter().apply('i', 'x')" not in calls  # a witness still needs a difference
    assert f["via"] == ["demo.conv.Converter.bold", "demo.conv.Converter.apply"]
