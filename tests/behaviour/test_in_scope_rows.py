"""A function in the behaviour diff's scope is in the report, whatever the diff found (#32):
an impacted public method with no spec, compared on its inputs with no difference, has a
row that says so, and the inputs that came without an instance (its class needs an
argument) run on the instances the tests build. Before, such a function was
absent from the report, as if the change did not reach it (packaging 23.2 -> 24.0:
``Specifier.contains``). Real git, real ``codemode check --staged`` and ``--base``."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

LIB = '''\
class Rule:
    def __init__(self, text):
        self.text = text

    def matches(self, version: str) -> bool:
        """Whether ``version`` matches.

        >>> Rule("1.0").matches(" 1.0 ")
        True
        """
        return _clean(version) == self.text


def _clean(version):
    return version.strip()
'''
TEST = """\
from demo.rules import Rule


def test_matches():
    assert Rule("1.0").matches("1.0")
    assert not Rule("2.0").matches("1.0")
"""


@pytest.mark.parametrize("scope", ["--staged", "--base"])
def test_an_impacted_method_with_no_spec_and_no_difference_has_a_row(
    tmp_path: Path, scope: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/rules.py": LIB, "tests/test_rules.py": TEST})
    # a refactor of the private helper: the public method reaches it, and nothing differs
    # (for bytes and None either: str.strip(version) would refuse b"1.0", a mutant's type)
    write(repo, {"src/demo/rules.py": LIB.replace("version.strip()", "version.strip(None)")})
    git(repo, "add", "-A")
    args = ["--staged"]
    if scope == "--base":
        git(repo, "commit", "-qm", "new")
        args = ["--base", "HEAD~1"]
    rc, report = check(repo, *args, capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.rules.Rule.matches")
    assert f is not None, sorted(functions(report))  # in scope: never absent
    assert f["status"] == "ok", f
    assert f["via"] == ["demo.rules._clean", "demo.rules.Rule.matches"]
    note = f["diff_note"]
    assert note.startswith("no difference on "), note
    # the pool's calls that came without a Rule ran on the Rules the tests build: none is
    # left out for want of one (before, "not compared on 34 of 62 inputs: no instance")
    assert "no instance" not in note, note
    assert rc == 0
