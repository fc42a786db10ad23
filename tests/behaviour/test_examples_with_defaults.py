"""A parameter nothing can build (a file object, here) leaves a function with only its
examples; an example that leaves out a parameter with a default still runs (#18: a new
test's `load(b"conf.toml")` of `load(f, _dict=dict)` was dropped for passing one argument
of two, and the change it reached had no witness). Real git, real workers on both sides."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

OLD = """\
def load(f, _dict=dict):
    if isinstance(f, str):
        with open(f) as fh:
            return _dict(text=fh.read())
    return _dict(text=f.read())
"""
NEW = OLD.replace("isinstance(f, str)", "isinstance(f, (str, bytes))")
TEST = "import demo.conf as conf\n\n\ndef test_load(tmp_path):\n    assert conf.load\n"
NEW_TEST = TEST + (
    '\n\ndef test_a_bytes_path():\n    try:\n        conf.load(b"conf.toml")\n'
    "    except FileNotFoundError:\n        pass\n"
)


def test_an_example_that_leaves_out_a_default_reaches_the_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/conf.py": OLD, "tests/test_conf.py": TEST})
    write(repo, {"src/demo/conf.py": NEW, "tests/test_conf.py": NEW_TEST})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.conf.load"]
    assert f["status"] == "changed" and rc == 1, f
    [w] = f["witnesses"]
    assert w["call"] == "load(b'conf.toml')"
    assert (w["old"]["raised"], w["new"]["raised"]) == ("AttributeError", "FileNotFoundError")
